/* SPDX-License-Identifier: MIT */
/* ids: identifiers derived from the layout's seed (the rule is in builder.h), and the files
 * that name them. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/cards.h"
#include "common/sha256.h"
#include "mkimage/builder/builder.h"
#include "plan/plan.h"

/* SHA-256 of SEED "\n" PURPOSE NAME (NAME may be ""). */
static int id_hash(struct sha256 *sha, const char *seed, const char *purpose, const char *name,
		   uint8_t out[SHA256_LEN])
{
	return sha256_strings(sha, out, seed, "\n", purpose, name, (const char *)NULL);
}

/* The first 16 bytes as a version-4 (random-style) GUID, RFC 4122 section 4.4. */
static void to_guid(const uint8_t h[32], struct layout_guid *ret)
{
	memcpy(ret->b, h, 16);
	ret->b[6] = (uint8_t)((ret->b[6] & 0x0f) | 0x40);
	ret->b[8] = (uint8_t)((ret->b[8] & 0x3f) | 0x80);
}

int build_id_mbr_disk(struct sha256 *sha, const char *seed, uint32_t *ret)
{
	uint8_t h[SHA256_LEN];
	int rc = id_hash(sha, seed, "disk-id", "", h);

	*ret = get_le32(h);
	return rc;
}

int build_id_gpt_disk(struct sha256 *sha, const char *seed, struct layout_guid *ret)
{
	uint8_t h[SHA256_LEN];
	int rc = id_hash(sha, seed, "disk-guid", "", h);

	to_guid(h, ret);
	return rc;
}

int build_id_partition_uuid(struct sha256 *sha, const char *seed, const char *name,
			    struct layout_guid *ret)
{
	uint8_t h[SHA256_LEN];
	int rc = id_hash(sha, seed, "partition-uuid/", name, h);

	to_guid(h, ret);
	return rc;
}

int build_id_volume(struct sha256 *sha, const char *seed, const char *name, uint32_t *ret)
{
	uint8_t h[SHA256_LEN];
	int rc = id_hash(sha, seed, "volume-id/", name, h);

	*ret = get_le32(h);
	return rc;
}

int build_id_exfat_volume(struct sha256 *sha, const char *seed, const char *name, uint32_t *ret)
{
	uint8_t h[SHA256_LEN];
	int rc = id_hash(sha, seed, "exfat-volume-id/", name, h);

	*ret = get_le32(h);
	return rc;
}

int build_id_ext4(struct sha256 *sha, const char *seed, const char *name,
		  struct layout_guid *ret_uuid, uint8_t ret_hash_seed[16])
{
	uint8_t h[SHA256_LEN];
	int rc = id_hash(sha, seed, "ext4-uuid/", name, h);

	to_guid(h, ret_uuid);
	if (rc == 0)
		rc = id_hash(sha, seed, "ext4-hash-seed/", name, h);
	memcpy(ret_hash_seed, h, 16);
	return rc;
}

/* ---- the image's ids in the content of `file` entries with ids = true ---- */

/* Whether a file of @l names the image's ids. */
static bool has_id_files(const struct layout *l)
{
	for (size_t i = 0; i < l->n_parts; i++)
		for (size_t k = 0; k < l->parts[i].n_entries; k++)
			if (l->parts[i].entries[k].ids)
				return true;
	return false;
}

/* One more id: ${@prefix@name} is @text. */
static int add_id(struct cards_var *vars, size_t *n, const char *prefix, const char *name,
		  const char *text)
{
	char *var = NULL, *value = strdup(text);

	if (!value || asprintf(&var, "%s%s", prefix, name) < 0) {
		free(value);
		return -ENOMEM;
	}
	vars[(*n)++] = (struct cards_var){ .name = var, .value = value };
	return 0;
}

/* @g as Linux's /dev/disk/by-partuuid names it (and a per-card file): in lower case. */
static void guid_lower_text(const struct layout_guid *g, char out[37])
{
	layout_guid_text(g, out);
	for (char *c = out; *c; c++)
		*c = (char)tolower((unsigned char)*c);
}

/* DISK_ID and every PARTUUID_NAME, as a per-card file names them (LAYOUT.md, "Per-card
 * ids"): an MBR's signature and "SIGNATURE-NN" (Linux's root=PARTUUID= form), a GPT's GUIDs. */
static int table_ids(struct sha256 *sha, const struct layout *l, struct cards_var *vars, size_t *n)
{
	bool gpt = l->image.table == LAYOUT_TABLE_GPT;
	struct layout_guid g = l->image.gpt_id;
	uint32_t mbr = l->image.mbr_id;
	char text[48];
	int rc = 0;

	if (!l->image.disk_id_set)
		rc = gpt ? build_id_gpt_disk(sha, l->image.seed, &g)
			 : build_id_mbr_disk(sha, l->image.seed, &mbr);
	if (gpt)
		guid_lower_text(&g, text);
	else
		snprintf(text, sizeof(text), "%08x", mbr);
	if (rc == 0)
		rc = add_id(vars, n, "DISK_ID", "", text);
	for (size_t i = 0; rc == 0 && i < l->n_parts; i++) {
		const struct layout_partition *p = &l->parts[i];
		bool logical;
		unsigned number = plan_partition_number(l, i, &logical);
		if (!number)
			continue;
		g = p->uuid;
		if (gpt && !p->uuid_set)
			rc = build_id_partition_uuid(sha, l->image.seed, p->name, &g);
		if (gpt)
			guid_lower_text(&g, text);
		else
			snprintf(text, sizeof(text), "%08x-%02x", mbr, number);
		if (rc == 0)
			rc = add_id(vars, n, "PARTUUID_", p->name, text);
	}
	return rc;
}

/* Every id of @l's image that a file may name, into @vars (*@n of them). */
static int image_ids(struct sha256 *sha, const struct layout *l, struct cards_var *vars, size_t *n)
{
	int rc = l->image.table == LAYOUT_TABLE_NONE ? 0 : table_ids(sha, l, vars, n);
	char text[16];

	for (size_t i = 0; rc == 0 && i < l->n_parts; i++) {
		const struct layout_partition *p = &l->parts[i];
		bool exfat = layout_part_is_exfat(p);
		uint32_t v = exfat ? p->exfat.volume_id : p->fat.volume_id;
		if (!exfat && !layout_part_is_fat(p))
			continue;
		if (exfat && !p->exfat.volume_id_set)
			rc = build_id_exfat_volume(sha, l->image.seed, p->name, &v);
		else if (!exfat && !p->fat.volume_id_set)
			rc = build_id_volume(sha, l->image.seed, p->name, &v);
		snprintf(text, sizeof(text), "%04X-%04X", v >> 16, v & 0xFFFF);
		if (rc == 0)
			rc = add_id(vars, n, "VOLUME_ID_", p->name, text);
	}
	return rc;
}

/* Each `file` with ids = true gets its content with the ids filled in. */
static int fill_files(struct layout *l, const struct cards_var *vars, size_t n, struct diag *d)
{
	int bad = 0;

	for (size_t i = 0; i < l->n_parts; i++)
		for (size_t k = 0; k < l->parts[i].n_entries; k++) {
			struct layout_entry *e = &l->parts[i].entries[k];
			char where[600], *text = NULL;
			if (!e->ids)
				continue;
			snprintf(where, sizeof(where), "%s:%d: partition '%s': file '%s'",
				 e->loc.file, e->loc.line, l->parts[i].name, e->path);
			int rc = cards_render_ids(e->content, vars, n, where, &text, d);
			if (rc == -ENOMEM)
				return rc;
			bad |= rc < 0;
			if (rc == 0) {
				free(e->content);
				e->content = text;
			}
		}
	return bad ? -EINVAL : 0;
}

/* Whether a card gets the id named by the @len bytes at @name anew (what personalize and
 * flash --card-values set: LAYOUT.md, "Per-card ids"). */
static bool card_gets_id(const struct layout *l, const char *name, size_t len)
{
	bool gpt = l->image.table == LAYOUT_TABLE_GPT;
	bool table = l->image.disk_id_per_card && l->image.table != LAYOUT_TABLE_NONE;

	if (len == strlen("DISK_ID") && !memcmp(name, "DISK_ID", len))
		return table;
	for (size_t i = 0; i < l->n_parts; i++) {
		const struct layout_partition *p = &l->parts[i];
		size_t n = strlen(p->name);
		bool logical;
		if (len == strlen("PARTUUID_") + n &&
		    !memcmp(name, "PARTUUID_", strlen("PARTUUID_")) &&
		    !memcmp(name + strlen("PARTUUID_"), p->name, n))
			return table && plan_partition_number(l, i, &logical) &&
			       !(gpt && p->uuid_set);
		if (len == strlen("VOLUME_ID_") + n &&
		    !memcmp(name, "VOLUME_ID_", strlen("VOLUME_ID_")) &&
		    !memcmp(name + strlen("VOLUME_ID_"), p->name, n))
			return layout_part_is_fat(p) && p->fat.volume_id_per_card;
	}
	return false;
}

/* Each per-card file names only ids a card gets anew: any other would have no value on
 * every card (personalize would refuse each one). */
static int check_card_ids(const struct layout *l, struct diag *d)
{
	int bad = 0;

	for (size_t i = 0; i < l->n_parts; i++)
		for (size_t k = 0; k < l->parts[i].n_entries; k++) {
			const struct layout_entry *e = &l->parts[i].entries[k];
			const char *name, *p = e->content;
			size_t len;
			if (!e->per_card || !p)
				continue;
			for (; (name = cards_next_id(p, &len)); p = name + len)
				if (!card_gets_id(l, name, len)) {
					bad = 1;
					diag_error(d,
						   "%s:%d: partition '%s': file '%s': ${%.*s} is "
						   "no "
						   "id a card gets anew (DISK_ID and PARTUUID_NAME "
						   "with image { disk-id = per-card }, "
						   "VOLUME_ID_NAME "
						   "of a FAT partition with fat { volume-id = "
						   "per-card }); ids = true gives the image's own",
						   e->loc.file, e->loc.line, l->parts[i].name,
						   e->path, (int)len, name);
					break;
				}
		}
	return bad ? -EINVAL : 0;
}

int build_fill_ids(struct layout *l, struct diag *d)
{
	struct sha256 *sha = NULL;
	struct cards_var *vars;
	size_t n = 0;
	int rc;

	if (!has_id_files(l))
		return check_card_ids(l, d);
	/* DISK_ID, a PARTUUID_ for each partition, a VOLUME_ID_ for each */
	vars = calloc(2 * l->n_parts + 1, sizeof(*vars));
	if (!vars)
		return -ENOMEM;
	rc = sha256_new_builtin(&sha, d);
	if (rc == 0)
		rc = image_ids(sha, l, vars, &n);
	if (rc == 0)
		rc = fill_files(l, vars, n, d);
	if (rc == 0)
		rc = check_card_ids(l, d);
	for (size_t i = 0; i < n; i++) {
		free((char *)vars[i].name);
		free((char *)vars[i].value);
	}
	free(vars);
	sha256_free(sha);
	return rc == -ENOMEM ? diag_errno(d, rc, "filling in the ids of files: out of memory") : rc;
}
