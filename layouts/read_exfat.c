/* SPDX-License-Identifier: MIT */
/* read_exfat: an exFAT partition's `exfat { }` section. */
#include "layouts/read_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"

/* The Volume Label entry holds at most 11 UTF-16 units (exFAT specification §7.3.2). */
#define EXFAT_LABEL_UNITS 11
/* A cluster is 512 bytes to 32 MiB (SectorsPerClusterShift up to 25 - BytesPerSectorShift,
 * §3.1.15), in 512-byte sectors. */
#define EXFAT_CLUSTER_MAX (32ull << 20)

static int check_label(struct reader *r, const struct sect *s, const char *label)
{
	char shown[200];
	long units = utf8_utf16_units(label);

	utf8_shown(label, shown, sizeof(shown));
	if (units < 0)
		return layout_key_error(r, s, "label", "is not valid UTF-8");
	if (units > EXFAT_LABEL_UNITS)
		return layout_key_error(r, s, "label",
					"'%s' is longer than the %d UTF-16 units of an exFAT "
					"volume label",
					shown, EXFAT_LABEL_UNITS);
	for (const char *p = label; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return layout_key_error(r, s, "label",
						"'%s' holds a control character, which no "
						"system shows",
						shown);
	return 0;
}

static int read_cluster_size(struct reader *r, const struct sect *s, struct layout_exfat *x)
{
	uint64_t v;

	if (!layout_key_u64(s, "cluster-size", &v))
		return 0;
	if (v < 512 || v > EXFAT_CLUSTER_MAX || (v & (v - 1)))
		return layout_key_error(r, s, "cluster-size",
					"%llu is not a power of two from 512 to 32M",
					(unsigned long long)v);
	x->cluster_size = (uint32_t)v;
	x->cluster_size_set = true;
	return 0;
}

static int read_exfat_keys(struct reader *r, const struct sect *s, struct layout_exfat *x)
{
	const struct key_value *v;
	uint64_t n;
	int bad = 0;

	if (layout_key_strdup(s, "label", &x->label) < 0)
		return -ENOMEM;
	x->data_align_set = layout_key_u64(s, "data-align", &x->data_align);
	layout_key_bool(s, "sd-format", &x->sd_format);
	if ((x->volume_id_set = layout_key_u64(s, "volume-id", &n)))
		x->volume_id = (uint32_t)n;
	if ((v = layout_key_value(s, "guid"))) {
		x->guid = v->guid;
		x->guid_set = true;
	}
	bad |= read_cluster_size(r, s, x) < 0;
	if (x->label)
		bad |= check_label(r, s, x->label) < 0;
	return bad ? -EINVAL : 0;
}

int layout_read_exfat(struct reader *r, const struct sect *ps, struct layout_partition *p)
{
	const struct tree_section *node = layout_tree_sub(ps->node, "exfat");
	struct layout_exfat *x = &p->exfat;
	struct sect s;

	*x = (struct layout_exfat){ .data_align = p->align, .loc = p->loc };
	if (!node)
		return 0;
	layout_sect_init(&s, node);
	x->loc = layout_sect_loc(&s);
	if (!layout_part_is_exfat(p))
		return layout_sect_error(r, &s, "an exfat { } section needs type = exfat");
	return read_exfat_keys(r, &s, x);
}
