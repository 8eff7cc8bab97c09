/* SPDX-License-Identifier: MIT */
/* card_patches: one card's own bytes, from the per-card manifest (see flash.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/array.h"
#include "common/bytes.h"
#include "common/gpt.h"
#include "common/sha256.h"
#include "common/uboot_env.h"

#include "exfat/exfat.h"
#include "exfat/ondisk.h"
#include "fat/fat.h"
#include "mkimage/flash/flash_priv.h"

/*
 * Which patches touch each block of the image, so that a new patch takes what the earlier
 * ones changed from those alone, not from all of them: a hash table of (block, patch) pairs,
 * chained in the order they were added. A patch is noted in the blocks of the smallest size
 * (4 KiB, 64 KiB, 1 MiB, ... 16 times the one before) of which it covers at most 17: a large
 * reserve costs a few pairs, not one per page.
 */
#define PAGE_SHIFT 12
#define LEVEL_BITS 4 /* each size 16 times the one before */
#define LEVELS 12    /* up to 2^56 bytes */

/* The key of the block of size @level that holds byte @offset. */
static uint64_t block_key(uint64_t offset, unsigned level)
{
	return (offset >> (PAGE_SHIFT + LEVEL_BITS * level)) << LEVEL_BITS | level;
}

/* The size of block a patch of @len bytes is noted in. */
static unsigned level_of(uint64_t len)
{
	unsigned level = 0;

	while (level + 1 < LEVELS && len > (uint64_t)16 << (PAGE_SHIFT + LEVEL_BITS * level))
		level++;
	return level;
}

struct block_ref {
	uint64_t key; /* block_key() */
	size_t patch;
	size_t next; /* 1 + the index of the bucket's earlier pair, 0: none */
};

struct flash_patch_blocks {
	struct block_ref *refs;
	size_t n, cap;
	size_t *heads;  /* per bucket: 1 + the index of its latest pair, 0: none */
	size_t n_heads; /* a power of two */
};

static size_t bucket(const struct flash_patch_blocks *t, uint64_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15u) >> 32) & (t->n_heads - 1);
}

/* Twice the buckets when there are more pairs than buckets: chains stay short. */
static int blocks_grow(struct flash_patch_blocks *t)
{
	size_t n_heads = t->n_heads ? 2 * t->n_heads : 1024;
	size_t *heads = calloc(n_heads, sizeof(*heads));

	if (!heads)
		return -ENOMEM;
	free(t->heads);
	t->heads = heads;
	t->n_heads = n_heads;
	for (size_t i = 0; i < t->n; i++) {
		size_t b = bucket(t, t->refs[i].key);
		t->refs[i].next = heads[b];
		heads[b] = i + 1;
	}
	return 0;
}

/* Notes the blocks patch @i of @p touches. */
static int blocks_add(struct flash_patches *p, size_t i)
{
	const struct flash_patch *x = &p->v[i];
	struct flash_patch_blocks *t = p->blocks;

	if (!t && !(t = p->blocks = calloc(1, sizeof(*t))))
		return -ENOMEM;
	if (!x->len)
		return 0;
	unsigned level = level_of(x->len);
	for (uint64_t key = block_key(x->offset, level);
	     key <= block_key(x->offset + x->len - 1, level); key += 1u << LEVEL_BITS) {
		if (array_grow((void **)&t->refs, &t->cap, t->n + 1, sizeof(*t->refs)) < 0 ||
		    (t->n >= t->n_heads && blocks_grow(t) < 0))
			return -ENOMEM;
		size_t b = bucket(t, key);
		t->refs[t->n] = (struct block_ref){ .key = key, .patch = i, .next = t->heads[b] };
		t->heads[b] = ++t->n;
	}
	return 0;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

/* Patches found for an overlay. */
struct found {
	size_t *v;
	size_t n, cap;
};

/* Adds to @f the patches noted in the block @key that share a byte with [@offset, @offset +
 * @len). Returns 0 or -ENOMEM. */
static int collect(const struct flash_patches *p, uint64_t key, uint64_t offset, size_t len,
		   struct found *f)
{
	const struct flash_patch_blocks *t = p->blocks;

	for (size_t r = t->heads[bucket(t, key)]; r; r = t->refs[r - 1].next) {
		const struct block_ref *ref = &t->refs[r - 1];
		const struct flash_patch *x = &p->v[ref->patch];
		if (ref->key != key || x->offset >= offset + len || offset >= x->offset + x->len)
			continue;
		if (array_grow((void **)&f->v, &f->cap, f->n + 1, sizeof(*f->v)) < 0)
			return -ENOMEM;
		f->v[f->n++] = ref->patch;
	}
	return 0;
}

/* Copies into @buf, the image's @len bytes at @offset, what the patches made so far changed
 * there, in the order they were made (a later one wins). */
static int overlay_earlier(const struct flash_patches *p, uint64_t offset, uint8_t *buf, size_t len)
{
	struct found f = { 0 };
	int rc = 0;

	if (!p->blocks || !p->blocks->n_heads || !len)
		return 0;
	for (unsigned level = 0; rc == 0 && level < LEVELS; level++)
		for (uint64_t key = block_key(offset, level);
		     rc == 0 && key <= block_key(offset + len - 1, level); key += 1u << LEVEL_BITS)
			rc = collect(p, key, offset, len, &f);
	if (rc == 0 && f.n)
		qsort(f.v, f.n, sizeof(*f.v), cmp_size);
	for (size_t i = 0; rc == 0 && i < f.n; i++)
		if (i == 0 || f.v[i] != f.v[i - 1]) /* noted in two blocks: overlaid once */
			flash_patch_overlay(&p->v[f.v[i]], offset, buf, len);
	free(f.v);
	return rc;
}

/* A new patch of @len bytes at @offset, holding what the image (with the earlier patches)
 * has there. */
static int add_patch(struct flash_patches *p, int fd, const char *image, uint64_t offset,
		     size_t len, struct diag *d, uint8_t **ret)
{
	uint8_t *bytes = array_grow((void **)&p->v, &p->cap, p->n + 1, sizeof(*p->v)) == 0
				 ? calloc(1, len ? len : 1)
				 : NULL;

	if (!bytes)
		return -ENOMEM;
	p->v[p->n++] = (struct flash_patch){ .offset = offset, .len = len, .bytes = bytes };
	ssize_t got = pread(fd, bytes, len, (off_t)offset);
	if (got < 0 || (size_t)got != len)
		return diag_error(d, "%s: cannot read %zu bytes at %llu: %s", image, len,
				  (unsigned long long)offset,
				  got < 0 ? strerror(errno) : "too short");
	/* what earlier patches changed here stays changed (two files' FAT entries may share
	 * bytes) */
	if (overlay_earlier(p, offset, bytes, len) < 0 || blocks_add(p, p->n - 1) < 0)
		return -ENOMEM;
	*ret = bytes;
	return 0;
}

static struct fat_card_file fat_file(const struct cards_file *f)
{
	return (struct fat_card_file){ .type = (enum fat_type)f->fat_type,
				       .cluster_size = f->cluster_size,
				       .first_cluster = f->first_cluster,
				       .clusters = f->clusters };
}

/* A new patch of @reserve bytes at @offset: @content (@len bytes), then zeros, which it
 * does not hold. */
static int add_content_patch(struct flash_patches *p, uint64_t offset, const char *content,
			     size_t len, uint64_t reserve)
{
	uint8_t *bytes = array_grow((void **)&p->v, &p->cap, p->n + 1, sizeof(*p->v)) == 0
				 ? malloc(len ? len : 1)
				 : NULL;

	if (!bytes)
		return -ENOMEM;
	memcpy(bytes, content, len);
	p->v[p->n++] = (struct flash_patch){ .offset = offset,
					     .len = (size_t)reserve,
					     .zero_tail = (size_t)reserve - len,
					     .bytes = bytes };
	return blocks_add(p, p->n - 1);
}

struct exfat_card_file flash_exfat_file(const struct cards_file *f)
{
	return (struct exfat_card_file){ .cluster_size = f->cluster_size,
					 .first_cluster = f->first_cluster,
					 .clusters = f->clusters,
					 .count = f->set_count };
}

/* An exFAT file's entry set (its lengths, first cluster and SetChecksum) and its clusters'
 * bits in the allocation bitmap, for @len bytes. */
static int exfat_patches(const struct cards_file *f, size_t len, int fd, const char *image,
			 struct flash_patches *p, struct diag *d)
{
	struct exfat_card_file xf = flash_exfat_file(f);
	uint8_t *b;
	int rc = add_patch(p, fd, image, f->entry, (size_t)f->set_count * EXFAT_DENTRY_SIZE, d, &b);

	if (rc < 0)
		return rc;
	exfat_card_entries(&xf, len, b);
	rc = add_patch(p, fd, image, f->bitmap + exfat_card_bitmap_start(&xf),
		       (size_t)exfat_card_bitmap_len(&xf), d, &b);
	if (rc == 0)
		exfat_card_bitmap(&xf, len, b);
	return rc;
}

/* One per-card file filled with @content (@len bytes, at most its reserve). */
static int file_patches(const struct cards_file *f, const char *content, size_t len, int fd,
			const char *image, struct flash_patches *p, struct diag *d)
{
	struct fat_card_file ff = fat_file(f);
	uint8_t *b;
	int rc = add_content_patch(p, f->data, content, len, f->reserve);

	if (rc < 0)
		return rc;
	if (f->kind == CARDS_EXFAT_FILE)
		return exfat_patches(f, len, fd, image, p, d);
	if ((rc = add_patch(p, fd, image, f->entry, 32, d, &b)) < 0)
		return rc;
	fat_card_entry(&ff, len, b);
	for (unsigned k = 0; k < f->n_fats; k++) {
		rc = add_patch(p, fd, image, f->fats[k] + fat_card_fat_start(&ff),
			       (size_t)fat_card_fat_len(&ff), d, &b);
		if (rc < 0)
			return rc;
		fat_card_chain(&ff, len, b);
	}
	return 0;
}

static int cmp_fsinfo(const void *a, const void *b, void *files)
{
	const struct cards_file *f = files;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (f[x].fsinfo[0] != f[y].fsinfo[0])
		return f[x].fsinfo[0] < f[y].fsinfo[0] ? -1 : 1;
	return (x > y) - (x < y);
}

int flash_fsinfo_used(const struct cards_manifest *m, const size_t *lens, uint32_t *used,
		      bool *first)
{
	size_t *order = malloc((m->n_files + 1) * sizeof(*order)), n = 0;

	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < m->n_files; i++)
		if (m->files[i].n_fsinfo)
			order[n++] = i;
	/* by FSInfo sector, each sector's files in the manifest's order */
	qsort_r(order, n, sizeof(*order), cmp_fsinfo, m->files);
	for (size_t g = 0, e; g < n; g = e) {
		uint64_t at = m->files[order[g]].fsinfo[0];
		uint32_t sum = 0;
		for (e = g; e < n && m->files[order[e]].fsinfo[0] == at; e++) {
			const struct cards_file *f = &m->files[order[e]];
			struct fat_card_file ff = fat_file(f);
			sum += fat_card_used(&ff, lens ? lens[order[e]] : strlen(f->template));
		}
		for (size_t k = g; k < e; k++) {
			used[order[k]] = sum;
			if (first)
				first[order[k]] = k == g;
		}
	}
	free(order);
	return 0;
}

/* FAT32: each volume's FSInfo free count, with the clusters its per-card files now use. */
static int fsinfo_patches(const struct cards_manifest *m, const size_t *lens, int fd,
			  const char *image, struct flash_patches *p, struct diag *d)
{
	uint32_t *used = calloc(m->n_files + 1, sizeof(*used));
	bool *first = calloc(m->n_files + 1, sizeof(*first));
	int rc = used && first ? flash_fsinfo_used(m, lens, used, first) : -ENOMEM;

	for (size_t i = 0; rc == 0 && i < m->n_files; i++) {
		const struct cards_file *f = &m->files[i];
		for (unsigned k = 0; rc == 0 && first[i] && k < f->n_fsinfo; k++) {
			uint8_t *b;
			if ((rc = add_patch(p, fd, image, f->fsinfo[k], FAT_SECTOR, d, &b)) == 0)
				fat_card_fsinfo(b, f->free_base - used[i]);
		}
	}
	free(used);
	free(first);
	return rc;
}

/* ---- ids set anew on every card ---- */

static int cmp_var(const void *a, const void *b)
{
	return strcmp(((const struct cards_var *)a)->name, ((const struct cards_var *)b)->name);
}

/* @s into @sha as its length (8 bytes, little-endian) and its bytes: one string's end can
 * never be taken for another's. */
static void hash_string(struct sha256 *sha, const char *s)
{
	uint64_t len = strlen(s);
	uint8_t le[8];

	for (int i = 0; i < 8; i++)
		le[i] = (uint8_t)(len >> (8 * i));
	sha256_update(sha, le, sizeof(le));
	sha256_update(sha, s, (size_t)len);
}

/*
 * An id of one card: SHA-256 of SEED "\n" "card/" PURPOSE NAME "\n" and then each of the
 * card's values, in the order of their names, as its name and its value, each
 * length-prefixed (hash_string()), so that cards with other values get other ids whatever
 * bytes the values hold (a newline in a value cannot pass for the start of another), and
 * the same card the same ones again.
 */
static int card_hash(struct sha256 *sha, const char *seed, const struct cards_var *sorted, size_t n,
		     const char *purpose, const char *name, uint8_t out[SHA256_LEN])
{
	sha256_update(sha, seed, strlen(seed));
	sha256_update(sha, "\ncard/", 6);
	sha256_update(sha, purpose, strlen(purpose));
	sha256_update(sha, name, strlen(name));
	sha256_update(sha, "\n", 1);
	for (size_t i = 0; i < n; i++) {
		hash_string(sha, sorted[i].name);
		hash_string(sha, sorted[i].value);
	}
	return sha256_final(sha, out);
}

/* The first 16 bytes of @h as a version-4 GUID (RFC 4122 §4.4), in text order. */
static void to_guid(uint8_t g[16], const uint8_t h[32])
{
	memcpy(g, h, 16);
	g[6] = (uint8_t)((g[6] & 0x0f) | 0x40);
	g[8] = (uint8_t)((g[8] & 0x3f) | 0x80);
}

/* @g (text order) as a GPT stores it: the first three fields little-endian (UEFI 2.10,
 * Appendix A). */
static void guid_on_disk(uint8_t out[16], const uint8_t g[16])
{
	static const uint8_t order[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };

	for (int i = 0; i < 16; i++)
		out[i] = g[order[i]];
}

static void guid_text(const uint8_t g[16], char out[37])
{
	static const char hex[] = "0123456789abcdef";
	char *p = out;

	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*p++ = '-';
		*p++ = hex[g[i] >> 4];
		*p++ = hex[g[i] & 15];
	}
	*p = '\0';
}

/* One card's ids, and the variables that name them in templates. */
struct card_ids {
	struct cards_var *vars; /* the card's values, then the ids' (names and values owned
				     from n_given on) */
	size_t n, n_given;
	uint32_t mbr;             /* the MBR disk signature */
	uint8_t disk_guid[16];    /* text order */
	uint8_t (*part_guid)[16]; /* one per m->parts */
	uint32_t *volume;         /* one per m->volumes */
};

static void card_ids_release(struct card_ids *c)
{
	for (size_t i = c->n_given; c->vars && i < c->n; i++) {
		free((char *)c->vars[i].name);
		free((char *)c->vars[i].value);
	}
	free(c->vars);
	free(c->part_guid);
	free(c->volume);
}

static int add_id_var(struct card_ids *c, char *name, const char *value)
{
	char *v = strdup(value);

	if (!name || !v) {
		free(name);
		free(v);
		return -ENOMEM;
	}
	c->vars[c->n++] = (struct cards_var){ .name = name, .value = v };
	return 0;
}

static char *joined(const char *a, const char *b)
{
	char *s = NULL;

	return asprintf(&s, "%s%s", a, b) < 0 ? NULL : s;
}

static int derive_ids(struct sha256 *sha, const struct cards_manifest *m,
		      const struct cards_var *vars, size_t n_vars, struct card_ids *c)
{
	size_t cap = n_vars + m->n_parts + m->n_volumes + 1;
	struct cards_var *sorted = calloc(n_vars + 1, sizeof(*sorted));
	uint8_t h[32];
	char text[48];
	int rc = 0;

	c->vars = calloc(cap, sizeof(*c->vars));
	c->part_guid = calloc(m->n_parts + 1, sizeof(*c->part_guid));
	c->volume = calloc(m->n_volumes + 1, sizeof(*c->volume));
	if (!sorted || !c->vars || !c->part_guid || !c->volume) {
		free(sorted);
		return -ENOMEM;
	}
	if (n_vars) { /* @vars may be NULL without any */
		memcpy(sorted, vars, n_vars * sizeof(*vars));
		qsort(sorted, n_vars, sizeof(*sorted), cmp_var);
		memcpy(c->vars, vars, n_vars * sizeof(*vars));
	}
	c->n = c->n_given = n_vars;
	if (m->mbr_disk_id)
		rc = card_hash(sha, m->seed, sorted, n_vars, "disk-id", "", h);
	else if (m->n_gpt_headers)
		rc = card_hash(sha, m->seed, sorted, n_vars, "disk-guid", "", h);
	if (rc == 0 && m->mbr_disk_id) {
		c->mbr = get_le32(h);
		snprintf(text, sizeof(text), "%08x", c->mbr);
		rc = add_id_var(c, strdup("DISK_ID"), text);
	} else if (rc == 0 && m->n_gpt_headers) {
		to_guid(c->disk_guid, h);
		guid_text(c->disk_guid, text);
		rc = add_id_var(c, strdup("DISK_ID"), text);
	}
	for (size_t i = 0; rc == 0 && i < m->n_parts; i++) {
		const struct cards_part *p = &m->parts[i];
		if (m->mbr_disk_id) {
			snprintf(text, sizeof(text), "%08x-%02x", c->mbr, p->number);
		} else if (p->per_card_uuid) {
			rc = card_hash(sha, m->seed, sorted, n_vars, "partition-uuid/", p->name, h);
			if (rc < 0)
				break;
			to_guid(c->part_guid[i], h);
			guid_text(c->part_guid[i], text);
		} else {
			continue;
		}
		rc = add_id_var(c, joined("PARTUUID_", p->name), text);
	}
	for (size_t i = 0; rc == 0 && i < m->n_volumes; i++) {
		rc = card_hash(sha, m->seed, sorted, n_vars, "volume-id/", m->volumes[i].partition,
			       h);
		if (rc < 0)
			break;
		c->volume[i] = get_le32(h);
		snprintf(text, sizeof(text), "%04X-%04X", c->volume[i] >> 16,
			 c->volume[i] & 0xFFFF);
		rc = add_id_var(c, joined("VOLUME_ID_", m->volumes[i].partition), text);
	}
	free(sorted);
	return rc;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_n(const uint8_t *p, int bytes)
{
	uint64_t v = 0;

	for (int i = bytes - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* One GPT header and its entry array with the card's GUIDs, both CRCs recomputed (UEFI
 * 2.10 §5.3.2). */
static int gpt_patches(const struct cards_manifest *m, const struct card_ids *c, uint64_t at,
		       int fd, const char *image, struct flash_patches *p, struct diag *d)
{
	uint8_t *hdr, *arr, g[16];
	int rc = add_patch(p, fd, image, at, 512, d, &hdr);

	if (rc < 0)
		return rc;
	uint32_t size = (uint32_t)get_n(hdr + GPT_HDR_SIZE, 4);
	uint64_t lba = get_n(hdr + GPT_HDR_ENTRIES_LBA, 8);
	uint64_t count = get_n(hdr + GPT_HDR_ENTRY_COUNT, 4),
		 esize = get_n(hdr + GPT_HDR_ENTRY_SIZE, 4);
	if (memcmp(hdr, GPT_SIGNATURE, GPT_SIGNATURE_LEN) || size < GPT_HEADER_MIN_SIZE ||
	    size > 512 || esize < GPT_ENTRY_MIN_SIZE || count > 1024 ||
	    lba * 512 + count * esize > m->image_size)
		return diag_error(d,
				  "%s: the GPT header at byte %llu is not the one the per-card "
				  "manifest was made for",
				  image, (unsigned long long)at);
	if ((rc = add_patch(p, fd, image, lba * 512, (size_t)(count * esize), d, &arr)) < 0)
		return rc;
	guid_on_disk(hdr + GPT_HDR_DISK_GUID, c->disk_guid);
	for (size_t i = 0; i < m->n_parts; i++)
		if (m->parts[i].per_card_uuid && m->parts[i].number <= count) {
			guid_on_disk(g, c->part_guid[i]);
			memcpy(arr + (m->parts[i].number - 1) * esize + GPT_ENT_UNIQUE_GUID, g, 16);
		}
	put32(hdr + GPT_HDR_ENTRIES_CRC, gpt_crc32(arr, (size_t)(count * esize)));
	put32(hdr + GPT_HDR_CRC, gpt_header_crc(hdr, size));
	return 0;
}

/* The environment @e for a card (its per-card variables' templates filled in with @vars),
 * each copy written whole: the variables, the padding and the CRC; the first copy the active
 * one. */
static int env_patches(const struct cards_env *e, const struct cards_var *vars, size_t n_vars,
		       struct flash_patches *p, struct diag *d)
{
	struct uboot_env env = { 0 };
	bool redundant = e->n_copies == 2;
	uint8_t *buf = malloc(e->size);
	int rc = buf ? 0 : -ENOMEM;

	for (size_t k = 0; rc == 0 && k < e->n_vars; k++) {
		const struct cards_env_var *v = &e->vars[k];
		char where[600], *value = NULL;
		snprintf(where, sizeof(where), "raw '%s': %s", e->region, v->name);
		rc = v->per_card ? cards_render(v->template, vars, n_vars, where, &value, d) : 0;
		if (rc == 0 && value && (strchr(value, '\n') || strchr(value, '\r')))
			rc = diag_error(d, "%s: the card's value holds a line break", where);
		if (rc == 0)
			rc = uboot_env_add(&env, v->name, value ? value : v->template, 0);
		free(value);
	}
	for (unsigned c = 0; rc == 0 && c < e->n_copies; c++) {
		rc = uboot_env_encode(&env, buf, e->size, redundant,
				      c ? UBOOT_ENV_FLAG_OBSOLETE : UBOOT_ENV_FLAG_ACTIVE, e->pad);
		if (rc == -ENOSPC)
			rc = diag_error(d,
					"raw '%s': the card's environment takes %zu bytes, more "
					"than the %llu of a copy less its header",
					e->region, uboot_env_data_bytes(&env),
					(unsigned long long)e->size);
		if (rc == 0)
			rc = add_content_patch(p, e->copies[c], (const char *)buf, e->size,
					       e->size);
	}
	uboot_env_release(&env);
	free(buf);
	return rc;
}

static int id_patches(const struct cards_manifest *m, const struct card_ids *c, int fd,
		      const char *image, struct flash_patches *p, struct diag *d)
{
	uint8_t *b;
	int rc = 0;

	if (m->mbr_disk_id && (rc = add_patch(p, fd, image, CARDS_MBR_DISK_ID, 4, d, &b)) == 0)
		put32(b, c->mbr);
	for (unsigned i = 0; rc == 0 && i < m->n_gpt_headers; i++)
		rc = gpt_patches(m, c, m->gpt_headers[i], fd, image, p, d);
	for (size_t i = 0; rc == 0 && i < m->n_volumes; i++)
		for (unsigned k = 0; rc == 0 && k < m->volumes[i].n_volume_id; k++)
			if ((rc = add_patch(p, fd, image, m->volumes[i].volume_id[k], 4, d, &b)) ==
			    0)
				put32(b, c->volume[i]);
	return rc;
}

int flash_cards_patches(const struct cards_manifest *m, const struct cards_var *given,
			size_t n_given, int fd, const char *image, struct flash_patches *ret,
			struct diag *d)
{
	size_t *lens = calloc(m->n_files + 1, sizeof(*lens));
	struct card_ids ids = { 0 };
	struct sha256 *sha = NULL;
	int rc = lens ? sha256_new(&sha, d) : -ENOMEM;

	if (rc == 0)
		rc = derive_ids(sha, m, given, n_given, &ids);
	sha256_free(sha);
	const struct cards_var *vars = ids.vars;
	size_t n_vars = ids.n;

	*ret = (struct flash_patches){ 0 };
	if (rc == 0 && !n_given && (m->n_parts || m->n_volumes))
		rc = diag_error(d,
				"%s: its ids are per-card, and derive from the card's values: "
				"give at least one",
				image);
	if (rc == 0)
		rc = id_patches(m, &ids, fd, image, ret, d);
	for (size_t i = 0; rc == 0 && i < m->n_files; i++) {
		const struct cards_file *f = &m->files[i];
		char where[600], *content = NULL;
		snprintf(where, sizeof(where), "%s:%s", f->partition, f->path);
		rc = cards_render(f->template, vars, n_vars, where, &content, d);
		if (rc == 0 && strlen(content) > f->reserve)
			rc = diag_error(d,
					"%s: the card's content takes %zu bytes, more than its "
					"reserve of %llu",
					where, strlen(content), (unsigned long long)f->reserve);
		if (rc == 0) {
			lens[i] = strlen(content);
			rc = file_patches(f, content, lens[i], fd, image, ret, d);
		}
		free(content);
	}
	if (rc == 0)
		rc = fsinfo_patches(m, lens, fd, image, ret, d);
	for (size_t i = 0; rc == 0 && i < m->n_envs; i++)
		rc = env_patches(&m->envs[i], vars, n_vars, ret, d);
	card_ids_release(&ids);
	free(lens);
	return rc;
}

void flash_patch_overlay(const struct flash_patch *x, uint64_t offset, void *buf, size_t len)
{
	uint64_t lo = x->offset > offset ? x->offset : offset;
	uint64_t hi = x->offset + x->len < offset + len ? x->offset + x->len : offset + len;
	uint64_t held = x->offset + (x->len - x->zero_tail); /* zeros from here */
	uint64_t mid = held < lo ? lo : held > hi ? hi : held;

	if (lo < mid)
		memcpy((uint8_t *)buf + (lo - offset), x->bytes + (lo - x->offset),
		       (size_t)(mid - lo));
	if (mid < hi)
		memset((uint8_t *)buf + (mid - offset), 0, (size_t)(hi - mid));
}

void flash_patches_overlay(const struct flash_patches *p, uint64_t offset, void *buf, size_t len)
{
	for (size_t i = 0; i < p->n; i++)
		flash_patch_overlay(&p->v[i], offset, buf, len);
}

void flash_patches_release(struct flash_patches *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i].bytes);
	free(p->v);
	if (p->blocks) {
		free(p->blocks->refs);
		free(p->blocks->heads);
		free(p->blocks);
	}
	*p = (struct flash_patches){ 0 };
}
