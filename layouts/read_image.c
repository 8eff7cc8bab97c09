/* SPDX-License-Identifier: MIT */
/* read_image: the `image` section, with its defaults (LAYOUT.md, "image"). */
#include "layouts/read_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/sdcard.h"
#include "common/sha256.h"
#include "layouts/schema.h"
#include "layouts/values.h"

/* The default seed: the SHA-256 of the layout file's bytes followed by those of every file
 * it includes (in the order they were read), then of every value substituted for a
 * ${VAR}, in hex. */
static int default_seed(const struct doc *doc, struct diag *d, char **ret)
{
	uint8_t md[SHA256_LEN];
	struct sha256 *sha = NULL;
	int rc = sha256_new_builtin(&sha, d); /* a layout is at most a few MiB */

	for (size_t i = 0; rc == 0 && i < doc->n_files; i++)
		sha256_update(sha, doc->texts[i], strlen(doc->texts[i]));
	if (rc == 0)
		sha256_update(sha, doc->values.s, doc->values.len);
	if (rc == 0)
		rc = sha256_final(sha, md);
	sha256_free(sha);
	char *hex = rc == 0 ? malloc(2 * SHA256_LEN + 1) : NULL;
	if (rc == 0 && !hex)
		rc = -ENOMEM;
	if (rc == 0)
		bytes_hex(md, SHA256_LEN, hex);
	if (rc == 0)
		*ret = hex;
	return rc;
}

/* timestamp, or $SOURCE_DATE_EPOCH, or the default; @s may be an absent section. */
static int read_timestamp(struct reader *r, const struct sect *s, struct layout_image *im)
{
	uint64_t t = LAYOUT_DEFAULT_TIMESTAMP;
	bool set = layout_key_u64(s, "timestamp", &t);
	const char *env = r->opts ? r->opts->source_date_epoch : NULL;
	struct why why;

	if (env && *env) {
		uint64_t e;
		if (layout_value_seconds(env, LAYOUT_TIMESTAMP_MAX, &e, &why) < 0)
			return diag_error(r->d, "SOURCE_DATE_EPOCH: %s", why.text);
		im->timestamp_from_env = true;
		if (!set)
			t = e;
	}
	im->timestamp = (int64_t)t;
	return 0;
}

/* A disk id is a 32-bit number for mbr, a GUID for gpt: its form follows the table. */
static int read_disk_id(struct reader *r, const struct sect *s, struct layout_image *im)
{
	const char *v = layout_key_text(s, "disk-id");
	struct why why;
	uint64_t id;

	if (!v)
		return 0;
	if (strcmp(v, "per-card") == 0) {
		im->disk_id_per_card = im->table != LAYOUT_TABLE_NONE;
		return im->disk_id_per_card ? 0
					    : layout_key_error(r, s, "disk-id",
							       "table = none "
							       "has no disk id");
	}
	im->disk_id_set = true;
	switch (im->table) {
	case LAYOUT_TABLE_MBR:
		if (layout_value_uint(v, 0, UINT32_MAX, &id, &why) < 0)
			return layout_key_error(r, s, "disk-id",
						"%s (an MBR disk id is 32 bits: "
						"0x1234abcd)",
						why.text);
		im->mbr_id = (uint32_t)id;
		return 0;
	case LAYOUT_TABLE_GPT:
		if (layout_value_guid(v, &im->gpt_id, &why) < 0)
			return layout_key_error(r, s, "disk-id", "%s", why.text);
		return 0;
	case LAYOUT_TABLE_NONE:
		break;
	}
	return layout_key_error(r, s, "disk-id", "table = none has no disk id");
}

static int read_gpt_entries(struct reader *r, const struct sect *s, struct layout_image *im)
{
	if (!layout_key_u64(s, "gpt-entries", &im->gpt_entries))
		return 0;
	if (im->table != LAYOUT_TABLE_GPT)
		return layout_key_error(r, s, "gpt-entries", "only a gpt table has an entry array");
	if (im->gpt_entries < 2 * LAYOUT_SECTOR)
		return layout_key_error(r, s, "gpt-entries",
					"the entry array cannot start before "
					"byte 1024 (LBA 2), after the protective MBR and the GPT "
					"header");
	return 0;
}

static int read_gpt_backup(struct reader *r, const struct sect *s, struct layout_image *im)
{
	if (!layout_key_bool(s, "gpt-backup", &im->gpt_backup))
		return 0;
	if (im->table != LAYOUT_TABLE_GPT)
		return layout_key_error(r, s, "gpt-backup", "only a gpt table has a backup");
	if (im->hybrid && !im->gpt_backup)
		return layout_key_error(r, s, "gpt-backup",
					"a hybrid MBR beside a GPT without "
					"backup is refused by gdisk and sgdisk (a valid MBR and a "
					"damaged GPT): keep the backup, or use table = gpt");
	return 0;
}

static int read_image_keys(struct reader *r, const struct sect *s, struct layout_image *im)
{
	uint64_t v;
	int bad = 0;

	if (layout_key_u64(s, "table", &v)) {
		im->hybrid = strcmp(layout_key_value(s, "table")->word, "hybrid") == 0;
		im->table = im->hybrid ? LAYOUT_TABLE_GPT : (enum layout_table)v;
	}
	im->table_loc = layout_key_loc(s, "table");
	im->extended_loc = layout_key_loc(s, "extended-partition");
	if (layout_key_u64(s, "extended-partition", &v)) {
		im->extended_slot = (unsigned)v;
		if (im->table != LAYOUT_TABLE_MBR)
			bad |= layout_key_error(r, s, "extended-partition",
						"only an mbr table has "
						"an extended partition") < 0;
	}
	if (layout_key_u64(s, "hybrid-ee", &v)) {
		im->hybrid_ee_last = v == 1;
		if (!im->hybrid)
			bad |= layout_key_error(r, s, "hybrid-ee",
						"only a hybrid table has an 0xEE "
						"entry beside mirrored ones") < 0;
	}
	if (layout_key_u64(s, "mtime", &v))
		im->mtime = (enum layout_mtime)v;
	im->size_set = layout_key_u64(s, "size", &im->size);
	/* a partition table counts sectors; a bare image is any number of bytes (a boot ROM's
	 * blob, a NOR flash image) */
	if (im->size_set && im->size % LAYOUT_SECTOR && im->table != LAYOUT_TABLE_NONE)
		bad |= layout_key_error(r, s, "size",
					"%s is not a multiple of 512 bytes (only an image "
					"with table = none may end inside a sector)",
					layout_key_text(s, "size")) < 0;
	if (!layout_key_u64(s, "align", &im->align) && im->size_set)
		im->align = sdcard_default_align(im->size);
	else if (im->align > LAYOUT_MAX_ALIGN)
		bad |= layout_key_error(r, s, "align", "%llu is larger than 1 TiB",
					(unsigned long long)im->align) < 0;
	bad |= read_gpt_entries(r, s, im) < 0;
	bad |= read_gpt_backup(r, s, im) < 0;
	if (layout_key_strdup(s, "seed", &im->seed) < 0)
		return -ENOMEM;
	if (im->seed && !*im->seed)
		bad |= layout_key_error(r, s, "seed", "must not be empty") < 0;
	bad |= read_disk_id(r, s, im) < 0;
	im->size_loc = layout_key_loc(s, "size");
	im->gpt_entries_loc = layout_key_loc(s, "gpt-entries");
	return bad ? -EINVAL : 0;
}

int layout_read_image(struct reader *r)
{
	const struct tree_section *top = r->doc->top;
	const struct tree_section *node = layout_tree_sub(top, "image");
	struct layout_image *im = &r->l->image;
	struct sect s = { .node = NULL, .what = "image" };
	int rc = 0;

	*im = (struct layout_image){
		.table = LAYOUT_TABLE_MBR,
		.align = LAYOUT_DEFAULT_ALIGN,
		.mtime = LAYOUT_MTIME_FIXED,
		.gpt_entries = 2 * LAYOUT_SECTOR,
		.gpt_backup = true,
		.loc = node ? node->loc : top->loc,
	};
	if (node) {
		layout_sect_init(&s, node);
		rc = read_image_keys(r, &s, im);
	}
	if (rc != -ENOMEM && read_timestamp(r, &s, im) < 0)
		rc = -EINVAL;
	/* -ENOMEM goes up (the loader says it once); the hasher told any other failure */
	if (rc == 0 && !im->seed)
		rc = default_seed(r->doc, r->d, &im->seed);
	return rc;
}
