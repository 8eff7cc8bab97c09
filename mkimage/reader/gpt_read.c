/* SPDX-License-Identifier: MIT */
/* gpt_read: the primary GPT's partitions, read directly (reader_priv.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/bytes.h"
#include "common/gpt.h"
#include "common/utf8.h"
#include "mkimage/reader/reader_priv.h"

/* A GUID as text (UEFI 2.10, appendix A: the first three fields little-endian). */
static void guid_text(const uint8_t *g, char *out, size_t n)
{
	snprintf(out, n, "%08X-%04X-%04X-%02X%02X-%02X%02X%02X%02X%02X%02X", get_le32(g),
		 get_le16(g + 4), get_le16(g + 6), g[8], g[9], g[10], g[11], g[12], g[13], g[14],
		 g[15]);
}

static void type_name(struct fdisk_context *cxt, struct disk_part *p)
{
	struct fdisk_label *lb = fdisk_get_label(cxt, "gpt");
	struct fdisk_parttype *t = lb ? fdisk_label_get_parttype_from_string(lb, p->type) : NULL;

	if (t && fdisk_parttype_get_name(t))
		snprintf(p->type_name, sizeof(p->type_name), "%s", fdisk_parttype_get_name(t));
	fdisk_unref_parttype(t);
}

static void part_from_entry(const uint8_t *e, unsigned number, struct disk_part *p)
{
	uint16_t name[GPT_ENT_NAME_UNITS];
	size_t units = 0;
	uint64_t first = get_le64(e + GPT_ENT_FIRST_LBA), last = get_le64(e + GPT_ENT_LAST_LBA);

	p->number = number;
	p->start = first * 512;
	p->size = last >= first ? (last - first + 1) * 512 : 0;
	guid_text(e + GPT_ENT_TYPE_GUID, p->type, sizeof(p->type));
	guid_text(e + GPT_ENT_UNIQUE_GUID, p->uuid, sizeof(p->uuid));
	p->bootable = (get_le64(e + GPT_ENT_ATTRIBUTES) >> 2) & 1; /* LegacyBIOSBootable */
	while (units < GPT_ENT_NAME_UNITS && (name[units] = get_le16(e + GPT_ENT_NAME + 2 * units)))
		units++;
	if (utf8_from_utf16(name, units, p->name, sizeof(p->name)) < 0)
		p->name[0] = '\0';
}

int reader_read_primary_gpt(struct disk *k, struct fdisk_context *cxt)
{
	static const uint8_t unused[16];
	uint8_t h[512];
	size_t bytes = 0, cap = 0;
	uint8_t *entries = reader_gpt_load(k, GPT_HEADER_LBA, h, &bytes);

	if (!entries)
		return -EINVAL;
	uint32_t entry_size = get_le32(h + GPT_HDR_ENTRY_SIZE);
	guid_text(h + GPT_HDR_DISK_GUID, k->id, sizeof(k->id));
	for (size_t i = 0; i < bytes / entry_size; i++) {
		const uint8_t *e = entries + i * entry_size;
		struct disk_part p = { 0 };
		if (!memcmp(e + GPT_ENT_TYPE_GUID, unused, sizeof(unused)))
			continue;
		part_from_entry(e, (unsigned)i + 1, &p);
		type_name(cxt, &p);
		if (array_grow((void **)&k->parts, &cap, k->n_parts + 1, sizeof(*k->parts)) < 0) {
			free(entries);
			return -ENOMEM;
		}
		k->parts[k->n_parts++] = p;
	}
	free(entries);
	k->gpt_read_directly = true;
	return 0;
}
