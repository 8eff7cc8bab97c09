/* SPDX-License-Identifier: MIT */
/* query: questions about a layout once it is read (see layouts.h): the names of its types,
 * what a partition holds, where its extended partition is. The readers ask here, never
 * load.c back. */
#include <stdbool.h>
#include <stddef.h>

#include "layouts/layouts.h"

const char *layout_part_type_name(enum layout_part_type t)
{
	static const char *const names[] = { "raw",   "fat",  "fat12", "fat16",
					     "fat32", "ext4", "exfat" };
	return (unsigned)t < 7 ? names[t] : "?";
}

const char *layout_table_name(enum layout_table t)
{
	static const char *const names[] = { "mbr", "gpt", "none" };
	return (unsigned)t < 3 ? names[t] : "?";
}

unsigned layout_extended_slot(const struct layout *l)
{
	size_t n = 0;

	if (l->image.table != LAYOUT_TABLE_MBR)
		return 0;
	if (l->image.extended_slot)
		return l->image.extended_slot;
	for (size_t i = 0; i < l->n_parts; i++)
		n += l->parts[i].in_table;
	return n > 4 ? 4 : 0;
}

bool layout_part_is_fat(const struct layout_partition *p)
{
	return p->type == LAYOUT_PART_FAT || p->type == LAYOUT_PART_FAT12 ||
	       p->type == LAYOUT_PART_FAT16 || p->type == LAYOUT_PART_FAT32;
}

bool layout_part_is_exfat(const struct layout_partition *p)
{
	return p->type == LAYOUT_PART_EXFAT;
}

bool layout_part_sd_format(const struct layout_partition *p)
{
	return (layout_part_is_fat(p) && p->fat.sd_format) ||
	       (layout_part_is_exfat(p) && p->exfat.sd_format);
}

bool layout_part_has_files(const struct layout_partition *p)
{
	return p->type != LAYOUT_PART_RAW;
}
