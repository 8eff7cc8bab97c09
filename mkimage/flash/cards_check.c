/* SPDX-License-Identifier: MIT */
/*
 * cards_check: whether a per-card manifest belongs to its image and says the truth about
 * it (flash.h), before any card or copy is written: a manifest of another build, or one
 * edited by hand, would otherwise put a card's bytes over its partition table, its boot
 * sector or its file system and the card would pass.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/array.h"
#include "common/gpt.h"
#include "common/mbr.h"
#include "common/sha256.h"
#include "common/uboot_env.h"
#include "fat/fat.h"
#include "mkimage/builder/builder.h"
#include "mkimage/flash/flash_priv.h"
#include "mkimage/reader/reader.h"

/* FAT32 BPB fields (fatgen103 §3.3): the FSInfo sector and the backup boot sector. */
#define BPB_FSINFO 48
#define BPB_BKBOOTSEC 50
#define FAT_VOLID_16 39 /* BS_VolID on FAT12/16 (§3.2), on FAT32 (§3.3) */
#define FAT_VOLID_32 67
#define DIR_ENTRY 32u

/* One line naming the manifest and @what (a field, "ids"): the manifest is refused. */
void flash_check_refusal(const struct flash_checker *c, const char *what, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	diag_error(c->d,
		   "%s: %s: %s (the manifest does not fit %s; use the one its build "
		   "wrote beside it)",
		   c->manifest, what, why, c->image);
}

int flash_check_read_at(const struct flash_checker *c, void *buf, size_t len, uint64_t at)
{
	ssize_t got = pread(c->fd, buf, len, (off_t)at);

	if (got < 0 || (size_t)got != len)
		return diag_error(c->d, "%s: cannot read %zu bytes at %" PRIu64 ": %s", c->image,
				  len, at, got < 0 ? strerror(errno) : "too short");
	return 0;
}

static uint64_t le(const uint8_t *p, int bytes)
{
	uint64_t v = 0;

	for (int i = bytes - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* ---------------------------------------------------------------- the image */

/* Whether [@start, @end) lies in the manifest's mapped ranges, those its digest covers
 * (ascending and apart, cards_manifest_read() made sure: found by halving). */
static bool mapped(const struct cards_manifest *m, uint64_t start, uint64_t end)
{
	size_t lo = 0, hi = m->n_mapped;

	while (lo < hi) { /* the first range that ends past @start */
		size_t mid = lo + (hi - lo) / 2;
		if (m->mapped[mid].end <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < m->n_mapped && start < end && m->mapped[i].start <= start; i++)
		start = m->mapped[i].end;
	return start >= end;
}

static int check_image(const struct flash_checker *c, uint64_t size)
{
	size_t errors = c->d->errors;
	uint8_t sum[32];
	int rc;

	if (size != c->m->image_size)
		return diag_error(c->d,
				  "%s: %" PRIu64 " bytes, but its per-card manifest %s is of an "
				  "image of %" PRIu64 " bytes",
				  c->image, size, c->manifest, c->m->image_size);
	if ((rc = cards_digest(c->fd, c->m->mapped, c->m->n_mapped, NULL, sum, c->d)) < 0)
		return c->d->errors > errors ? rc /* the hasher said why */
					     : diag_error(c->d, "%s: reading its mapped bytes: %s",
							  c->image, strerror(-rc));
	if (memcmp(sum, c->m->mapped_sha256, sizeof(sum)) != 0)
		return diag_error(c->d,
				  "%s: its per-card manifest %s belongs to another image (the "
				  "SHA-256 of the mapped bytes differs): use the one its build "
				  "wrote beside it",
				  c->image, c->manifest);
	return 0;
}

/* ---------------------------------------------------------------- fields */

enum span_kind { SPAN_DATA, SPAN_ENTRY, SPAN_FAT, SPAN_FSINFO, SPAN_VOLUME_ID, SPAN_TABLE };

/* Bytes [start, end) a card's patches change, and whose they are. */
struct span {
	uint64_t start, end;
	enum span_kind kind;
	size_t order; /* in which it was added: of two with one start, the first */
	char what[160];
};

struct spans {
	struct span *v;
	size_t n, cap;
};

static int add_span(struct spans *s, uint64_t start, uint64_t len, enum span_kind kind,
		    const char *what)
{
	if (array_grow((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v)) < 0)
		return -ENOMEM;
	s->v[s->n] = (struct span){ .start = start, .end = start + len, .kind = kind };
	snprintf(s->v[s->n++].what, sizeof(s->v[0].what), "%s", what);
	return 0;
}

/* Where the GPT header at @at keeps its entry array, into *@lo, *@hi; false: no header. */
static bool gpt_array(const struct flash_checker *c, uint64_t at, uint64_t *lo, uint64_t *hi)
{
	uint8_t h[512];

	if (at > c->m->image_size - 512 || pread(c->fd, h, 512, (off_t)at) != 512 ||
	    memcmp(h, GPT_SIGNATURE, GPT_SIGNATURE_LEN) != 0)
		return false;
	*lo = le(h + GPT_HDR_ENTRIES_LBA, 8) * 512;
	*hi = *lo + le(h + GPT_HDR_ENTRY_COUNT, 4) * le(h + GPT_HDR_ENTRY_SIZE, 4);
	return true;
}

/* The partition table's own bytes: sector 0, and on GPT both headers and their arrays. */
static size_t table_ranges(const struct flash_checker *c, struct cards_range r[5])
{
	uint64_t lo, hi, backup = c->m->image_size - 512;
	size_t n = 0;

	if (strcmp(c->k->table, "none") == 0) /* a bare volume: sector 0 is its boot sector */
		return 0;
	r[n++] = (struct cards_range){ 0, 512 };
	if (gpt_array(c, 512, &lo, &hi)) {
		r[n++] = (struct cards_range){ 512, 1024 };
		r[n++] = (struct cards_range){ lo, hi };
	}
	if (gpt_array(c, backup, &lo, &hi)) {
		r[n++] = (struct cards_range){ backup, backup + 512 };
		r[n++] = (struct cards_range){ lo, hi };
	}
	return n;
}

/* The partition of the table that starts at @volume, clear of the table's own bytes. */
static int partition_at(const struct flash_checker *c, const char *what, uint64_t volume,
			const struct disk_part **ret)
{
	struct cards_range t[5];
	size_t nt = table_ranges(c, t);

	*ret = NULL;
	for (size_t i = 0; i < c->k->n_parts && !*ret; i++)
		if (c->k->parts[i].start == volume && c->k->parts[i].size)
			*ret = &c->k->parts[i];
	if (!*ret)
		return flash_refuse(c, what, "no partition of the image starts at byte %" PRIu64,
				    volume);
	for (size_t i = 0; i < nt; i++)
		if ((*ret)->start < t[i].end && t[i].start < (*ret)->start + (*ret)->size)
			return flash_refuse(c, what,
					    "its partition at byte %" PRIu64 " overlaps the "
					    "partition table (bytes %" PRIu64 "-%" PRIu64 ")",
					    volume, t[i].start, t[i].end - 1);
	return 0;
}

int flash_check_fat_open(const struct flash_checker *c, const char *what, uint64_t at,
			 struct flash_fat_volume *ret)
{
	const struct disk_part *p;
	uint8_t bs[FAT_SECTOR];
	struct diag scratch;
	int rc = partition_at(c, what, at, &p);

	*ret = (struct flash_fat_volume){ .start = at };
	if (rc < 0)
		return rc;
	ret->size = p->size;
	diag_init(&scratch);
	rc = fat_vol_open(c->fd, at, p->size, &ret->v, &scratch);
	if (rc < 0)
		rc = flash_refuse(c, what,
				  "the partition at byte %" PRIu64 " holds no FAT volume: %s", at,
				  scratch.n ? scratch.msgs[0].text : strerror(-rc));
	diag_release(&scratch);
	if (rc < 0 || (rc = flash_check_read_at(c, bs, sizeof(bs), at)) < 0)
		return rc;
	ret->info = fat_vol_info(ret->v);
	if (ret->info->type == FAT_32) {
		ret->fsinfo = le(bs + BPB_FSINFO, 2) * ret->info->bytes_per_sector;
		ret->bk_boot = le(bs + BPB_BKBOOTSEC, 2) * ret->info->bytes_per_sector;
	}
	return 0;
}

/* An exfat-file (cards_check_exfat.c); its bits of the allocation bitmap are noted as FAT
 * entries are: two files' bits may share a byte, each patch keeping the other's. */
static int check_exfat_file(const struct flash_checker *c, const struct cards_file *f,
			    struct spans *s, const char *what)
{
	struct exfat_card_file xf = flash_exfat_file(f);
	const struct disk_part *p;
	char why[400];
	size_t errors = c->d->errors;
	int rc = partition_at(c, what, f->volume, &p);

	if (rc == 0)
		rc = flash_exfat_card_check(c->fd, c->image, f, p->size, why, sizeof(why), c->d);
	if (rc == -EINVAL && c->d->errors == errors)
		rc = flash_refuse(c, what, "%s", why);
	if (rc == 0)
		rc = add_span(s, f->data, f->reserve, SPAN_DATA, what);
	if (rc == 0)
		rc = add_span(s, f->entry, (uint64_t)f->set_count * DIR_ENTRY, SPAN_ENTRY, what);
	if (rc == 0)
		rc = add_span(s, f->bitmap + exfat_card_bitmap_start(&xf),
			      exfat_card_bitmap_len(&xf), SPAN_FAT, what);
	return rc;
}

static int check_file(struct flash_checker *c, const struct cards_file *f, struct spans *s)
{
	const struct fat_card_file ff = { .type = (enum fat_type)f->fat_type,
					  .cluster_size = f->cluster_size,
					  .first_cluster = f->first_cluster,
					  .clusters = f->clusters };
	char what[160];
	struct flash_fat_volume v;
	int rc;

	snprintf(what, sizeof(what), "%s:%s", f->partition, f->path);
	if (f->kind == CARDS_EXFAT_FILE)
		return check_exfat_file(c, f, s, what);
	rc = flash_check_fat_open(c, what, f->volume, &v);
	if (rc == 0)
		rc = flash_check_fat_file(c, &v, f, what);
	fat_vol_close(v.v);
	if (rc == 0)
		rc = add_span(s, f->data, f->reserve, SPAN_DATA, what);
	if (rc == 0)
		rc = add_span(s, f->entry, DIR_ENTRY, SPAN_ENTRY, what);
	for (unsigned k = 0; rc == 0 && k < f->n_fats; k++)
		rc = add_span(s, f->fats[k] + fat_card_fat_start(&ff), fat_card_fat_len(&ff),
			      SPAN_FAT, what);
	for (unsigned k = 0; rc == 0 && k < f->n_fsinfo; k++)
		rc = add_span(s, f->fsinfo[k], FAT_SECTOR, SPAN_FSINFO, what);
	return rc;
}

/* The image holds the volume id the manifest's seed derives for the volume's name: the
 * build wrote it so (mkimage/builder/ids.c), and a card's id comes from the same seed. */
/* An environment's copies hold what its variables give (the templates as the image has
 * them), each copy within the mapped bytes and apart from the other fields. */
static int check_env(struct flash_checker *c, const struct cards_env *e, struct spans *s)
{
	struct uboot_env env = { 0 };
	uint8_t *want = malloc(e->size), *have = malloc(e->size);
	char what[300];
	int rc = want && have ? 0 : -ENOMEM;

	snprintf(what, sizeof(what), "uboot-envs (raw '%.200s')", e->region);
	for (size_t k = 0; rc == 0 && k < e->n_vars; k++)
		rc = uboot_env_add(&env, e->vars[k].name, e->vars[k].template, 0);
	for (unsigned k = 0; rc == 0 && k < e->n_copies; k++) {
		rc = uboot_env_encode(&env, want, e->size, e->n_copies == 2,
				      k ? UBOOT_ENV_FLAG_OBSOLETE : UBOOT_ENV_FLAG_ACTIVE, e->pad);
		if (rc == -ENOSPC)
			rc = flash_refuse(c, what, "its variables do not fit its size");
		if (rc == 0 && (rc = flash_check_read_at(c, have, e->size, e->copies[k])) == 0 &&
		    memcmp(want, have, e->size) != 0)
			rc = flash_refuse(c, what,
					  "the image's copy at byte %" PRIu64 " holds other bytes",
					  e->copies[k]);
		if (rc == 0)
			rc = add_span(s, e->copies[k], e->size, SPAN_DATA, what);
	}
	uboot_env_release(&env);
	free(want);
	free(have);
	return rc;
}

static int check_volume_seed(const struct flash_checker *c, const struct cards_volume *cv,
			     const char *what)
{
	uint8_t id[4];
	uint32_t want;
	int rc = flash_check_read_at(c, id, sizeof(id), cv->volume_id[0]);

	if (rc == 0 && (rc = build_id_volume(c->sha, c->m->seed, cv->partition, &want)) == 0 &&
	    le(id, 4) != want)
		rc = flash_refuse(c, what,
				  "its seed is not the image's (the volume id %08" PRIx64 " at "
				  "byte %" PRIu64 " is not %08" PRIx32 ", which the seed derives "
				  "for '%s')",
				  le(id, 4), cv->volume_id[0], want, cv->partition);
	return rc;
}

static int check_volume(struct flash_checker *c, const struct cards_volume *cv, struct spans *s)
{
	char what[160];
	struct flash_fat_volume v;
	int rc;

	snprintf(what, sizeof(what), "%s: volume-id", cv->partition);
	if ((rc = flash_check_fat_open(c, what, cv->volume, &v)) < 0) {
		fat_vol_close(v.v);
		return rc;
	}
	bool fat32 = v.info->type == FAT_32;
	if (cv->n_volume_id != (fat32 ? 2u : 1u) ||
	    cv->volume_id[0] != v.start + (fat32 ? FAT_VOLID_32 : FAT_VOLID_16) ||
	    (fat32 && cv->volume_id[1] != v.start + v.bk_boot + FAT_VOLID_32))
		rc = flash_refuse(c, what,
				  "byte %" PRIu64 " is not the BS_VolID of the volume's boot "
				  "sector",
				  cv->volume_id[0]);
	fat_vol_close(v.v);
	if (rc == 0)
		rc = check_volume_seed(c, cv, what);
	for (unsigned k = 0; rc == 0 && k < cv->n_volume_id; k++)
		rc = add_span(s, cv->volume_id[k], 4, SPAN_VOLUME_ID, what);
	return rc;
}

/* The ids the manifest sets on each card are of the image's own table: mbr-disk-id on an
 * MBR, on a GPT gpt-headers with byte 512 and, when the image ends in a backup header, the
 * last sector's (a card whose backup header kept the image's ids would hold a corrupt
 * GPT), and the partitions only with one of them. */
static int check_table_kind(const struct flash_checker *c)
{
	const struct cards_manifest *m = c->m;
	uint64_t lo, hi;
	unsigned headers = 1 + gpt_array(c, m->image_size - 512, &lo, &hi);

	if (m->mbr_disk_id && strcmp(c->k->table, "mbr") != 0)
		return flash_refuse(c, "ids", "mbr-disk-id, but the image's table is %s",
				    c->k->table);
	if (m->n_gpt_headers && strcmp(c->k->table, "gpt") != 0)
		return flash_refuse(c, "ids", "gpt-headers, but the image's table is %s",
				    c->k->table);
	if (m->n_gpt_headers && m->n_gpt_headers != headers && headers == 2)
		return flash_refuse(c, "ids",
				    "gpt-headers must list both GPT headers, at byte 512 and at "
				    "byte %" PRIu64 " (the last sector)",
				    m->image_size - 512);
	if (m->n_gpt_headers && m->n_gpt_headers != headers)
		return flash_refuse(c, "ids",
				    "gpt-headers must list the one GPT header, at byte 512 (the "
				    "image has no backup header)");
	if (m->n_parts && !m->mbr_disk_id && !m->n_gpt_headers)
		return flash_refuse(c, "ids", "partitions without mbr-disk-id or gpt-headers");
	return 0;
}

/* The image's disk id is the one the manifest's seed derives: the build wrote it so
 * (mkimage/builder/ids.c), and each card's ids come from the same seed. */
static int check_disk_seed(const struct flash_checker *c)
{
	const struct cards_manifest *m = c->m;
	struct layout_guid g;
	uint32_t id;
	char want[40] = "";
	int rc = 0;

	if (m->mbr_disk_id && (rc = build_id_mbr_disk(c->sha, m->seed, &id)) == 0)
		snprintf(want, sizeof(want), "0x%08" PRIx32, id);
	else if (m->n_gpt_headers && (rc = build_id_gpt_disk(c->sha, m->seed, &g)) == 0)
		layout_guid_text(&g, want);
	if (rc == 0 && *want && strcasecmp(want, c->k->id) != 0)
		rc = flash_refuse(c, "seed",
				  "its seed is not the image's (the disk id %s is not %s, "
				  "which the seed derives)",
				  c->k->id, want);
	return rc;
}

/* The image's partition numbered @number, or NULL. */
static const struct disk_part *part_numbered(const struct flash_checker *c, unsigned number)
{
	for (size_t k = 0; k < c->k->n_parts; k++)
		if (c->k->parts[k].number == number)
			return &c->k->parts[k];
	return NULL;
}

/* The number of the image's partition that starts at @volume, or 0. */
static unsigned number_at(const struct flash_checker *c, uint64_t volume)
{
	for (size_t k = 0; k < c->k->n_parts; k++)
		if (c->k->parts[k].start == volume && c->k->parts[k].size)
			return c->k->parts[k].number;
	return 0;
}

/* The volumes and fields that name partition @p say it starts where its number does. */
static bool volumes_agree(const struct flash_checker *c, const struct cards_part *p)
{
	const struct cards_manifest *m = c->m;
	bool ok = true;

	for (size_t i = 0; i < m->n_volumes; i++)
		ok &= strcmp(m->volumes[i].partition, p->name) != 0 ||
		      number_at(c, m->volumes[i].volume) == p->number;
	for (size_t i = 0; i < m->n_files; i++)
		ok &= strcmp(m->files[i].partition, p->name) != 0 ||
		      number_at(c, m->files[i].volume) == p->number;
	return ok;
}

/* Partition @p of the manifest is the image's partition of its name and number: there is
 * one of that number, listed once; on a GPT with per-card GUIDs its entry holds the GUID the
 * seed derives for the name (so a manifest with two numbers swapped cannot point
 * ${PARTUUID_NAME} at the other partition); and the volumes of that name start there. */
static int check_part(const struct flash_checker *c, size_t i)
{
	const struct cards_part *p = &c->m->parts[i];
	const struct disk_part *dp = part_numbered(c, p->number);
	struct layout_guid g;
	char want[40];
	int rc;

	if (!dp)
		return flash_refuse(c, "ids", "the image has no partition %u (%s)", p->number,
				    p->name);
	for (size_t k = 0; k < i; k++)
		if (c->m->parts[k].number == p->number)
			return flash_refuse(c, "ids", "partition %u is listed twice (%s and %s)",
					    p->number, c->m->parts[k].name, p->name);
	if (c->m->n_gpt_headers && p->per_card_uuid) {
		if ((rc = build_id_partition_uuid(c->sha, c->m->seed, p->name, &g)) < 0)
			return rc;
		layout_guid_text(&g, want);
		if (strcasecmp(want, dp->uuid) != 0)
			return flash_refuse(c, "ids",
					    "partition %u is not '%s' (its GUID %s is not %s, "
					    "which the seed derives for '%s')",
					    p->number, p->name, dp->uuid, want, p->name);
	}
	if (!volumes_agree(c, p))
		return flash_refuse(c, "ids",
				    "partition %u is not '%s' (its volumes start elsewhere)",
				    p->number, p->name);
	return 0;
}

/* The ids in the table: of the image's table kind and from its seed, the MBR's signature,
 * both GPT headers where GPT keeps them, every partition of the table once, by its number. */
static int check_ids(struct flash_checker *c, struct spans *s)
{
	const struct cards_manifest *m = c->m;
	uint64_t lo, hi;
	uint8_t sig[2];
	int rc = check_table_kind(c);

	if (rc == 0)
		rc = check_disk_seed(c);
	if (rc == 0 && m->mbr_disk_id &&
	    (rc = flash_check_read_at(c, sig, 2, MBR_SIGNATURE)) == 0) {
		if (sig[0] != 0x55 || sig[1] != 0xAA)
			return flash_refuse(c, "ids", "sector 0 holds no MBR");
		rc = add_span(s, CARDS_MBR_DISK_ID, 4, SPAN_TABLE, "ids: mbr-disk-id");
	}
	for (unsigned i = 0; rc == 0 && i < m->n_gpt_headers; i++) {
		uint64_t at = m->gpt_headers[i];
		if (at != (i ? m->image_size - 512 : 512) || !gpt_array(c, at, &lo, &hi))
			return flash_refuse(c, "ids", "no GPT header at byte %" PRIu64, at);
		rc = add_span(s, at, 512, SPAN_TABLE, "ids: gpt-headers");
		if (rc == 0)
			rc = add_span(s, lo, hi - lo, SPAN_TABLE, "ids: a GPT entry array");
	}
	if (rc == 0 && m->n_gpt_headers && m->n_parts != c->k->n_parts)
		return flash_refuse(c, "ids", "%zu partitions, but the image has %zu", m->n_parts,
				    c->k->n_parts);
	for (size_t i = 0; rc == 0 && i < m->n_parts; i++)
		rc = check_part(c, i);
	return rc;
}

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

/* Of the spans before @a (by start), the one it must not overlap that reaches farthest:
 * @reach holds, for the kinds FAT, FSInfo and the others, the farthest-reaching so far. */
static const struct span *overlapped(const struct span *a, const struct span *const reach[3])
{
	const struct span *fat = reach[0], *fsinfo = reach[1], *other = reach[2];

	if (a->start == a->end) /* it changes no byte */
		return NULL;
	if (other && other->end > a->start)
		return other;
	/* two files' FAT entries may share bytes (FAT12); one volume's files its FSInfo */
	if (fat && fat->end > a->start && a->kind != SPAN_FAT)
		return fat;
	if (fsinfo && fsinfo->end > a->start &&
	    (a->kind != SPAN_FSINFO || fsinfo->start != a->start))
		return fsinfo;
	return NULL;
}

/* No two fields share a byte, but the FAT entries of two files (FAT12 packs two clusters in
 * three bytes: the patches keep each other's bits) and one volume's FSInfo; and the image's
 * digest covers every byte a card's patches start from. In one pass by start; what is
 * refused is of the span added first among those at fault (of two that overlap, the later
 * one names the earlier), as a check of each span against those before it would find. */
static int check_spans_apart(const struct flash_checker *c, struct spans *s)
{
	const struct span *reach[3] = { NULL, NULL, NULL };
	const struct span *bad = NULL, *other = NULL; /* other: NULL when bad is not mapped */

	for (size_t i = 0; i < s->n; i++)
		s->v[i].order = i;
	if (s->n) /* qsort() wants an array, even of none */
		qsort(s->v, s->n, sizeof(*s->v), cmp_span);
	for (size_t i = 0; i < s->n; i++) {
		const struct span *a = &s->v[i], *b = overlapped(a, reach);
		if (!mapped(c->m, a->start, a->end) && (!bad || a->order <= bad->order))
			bad = a, other = NULL;
		if (b) {
			const struct span *later = a->order > b->order ? a : b;
			if (!bad || later->order < bad->order)
				bad = later, other = later == a ? b : a;
		}
		int k = a->kind == SPAN_FAT ? 0 : a->kind == SPAN_FSINFO ? 1 : 2;
		if (!reach[k] || a->end > reach[k]->end)
			reach[k] = a;
	}
	if (bad && !other)
		return flash_refuse(c, bad->what,
				    "bytes %" PRIu64 "-%" PRIu64 " are not in its mapped "
				    "ranges",
				    bad->start, bad->end - 1);
	if (bad)
		return flash_refuse(c, bad->what,
				    "bytes %" PRIu64 "-%" PRIu64 " overlap those of %s", bad->start,
				    bad->end - 1, other->what);
	return 0;
}

static int cmp_clusters(const void *a, const void *b, void *files)
{
	const struct cards_file *f = files;
	const struct cards_file *x = &f[*(const size_t *)a], *y = &f[*(const size_t *)b];

	if (x->volume != y->volume)
		return x->volume < y->volume ? -1 : 1;
	if (x->first_cluster != y->first_cluster)
		return x->first_cluster < y->first_cluster ? -1 : 1;
	return (*(const size_t *)a > *(const size_t *)b) -
	       (*(const size_t *)a < *(const size_t *)b);
}

/* No two files of a volume share a cluster: in one pass by volume and first cluster. */
static int check_clusters_apart(const struct flash_checker *c)
{
	const struct cards_manifest *m = c->m;
	size_t *order = malloc((m->n_files + 1) * sizeof(*order));
	const struct cards_file *far = NULL; /* of the volume, the one whose clusters end last */
	int rc = 0;

	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < m->n_files; i++)
		order[i] = i;
	qsort_r(order, m->n_files, sizeof(*order), cmp_clusters, m->files);
	for (size_t i = 0; rc == 0 && i < m->n_files; i++) {
		const struct cards_file *a = &m->files[order[i]];
		uint64_t a_end = (uint64_t)a->first_cluster + a->clusters;
		if (far && far->volume != a->volume)
			far = NULL;
		if (a->clusters && far &&
		    a->first_cluster < (uint64_t)far->first_cluster + far->clusters)
			rc = flash_refuse(c, a->path, "its clusters are also those of %s",
					  far->path);
		if (!far || a_end > (uint64_t)far->first_cluster + far->clusters)
			far = a;
	}
	free(order);
	return rc;
}

int flash_cards_check(const struct cards_manifest *m, const char *manifest, int fd,
		      const char *image, uint64_t size, struct diag *d)
{
	struct disk k = { 0 };
	struct flash_checker c = { .m = m,
				   .manifest = manifest,
				   .image = image,
				   .fd = fd,
				   .k = &k,
				   .d = d };
	struct spans s = { 0 };
	struct diag scratch;
	int rc = check_image(&c, size);

	if (rc < 0 || (rc = sha256_new(&c.sha, d)) < 0)
		return rc;
	diag_init(&scratch);
	/* what only U-Boot environments change is checked without the image's table: an
	 * eMMC boot area or a NOR image may have none */
	bool on_disk = m->n_files || m->n_parts || m->n_volumes || m->mbr_disk_id ||
		       m->n_gpt_headers;
	rc = on_disk ? reader_read_disk_uncounted(&k, image, fd, &scratch) : 0;
	if (rc < 0)
		rc = diag_error(d, "%s: %s", manifest,
				scratch.n ? scratch.msgs[0].text : strerror(-rc));
	diag_release(&scratch);
	if (rc == 0 && on_disk)
		rc = check_ids(&c, &s);
	for (size_t i = 0; rc == 0 && i < m->n_volumes; i++)
		rc = check_volume(&c, &m->volumes[i], &s);
	if (rc == 0 && !(c.fsinfo_used = calloc(m->n_files + 1, sizeof(*c.fsinfo_used))))
		rc = -ENOMEM;
	if (rc == 0)
		rc = flash_fsinfo_used(m, NULL, c.fsinfo_used, NULL);
	for (size_t i = 0; rc == 0 && i < m->n_files; i++)
		rc = check_file(&c, &m->files[i], &s);
	for (size_t i = 0; rc == 0 && i < m->n_envs; i++)
		rc = check_env(&c, &m->envs[i], &s);
	if (rc == 0)
		rc = flash_check_fat_names(&c);
	if (rc == 0)
		rc = check_spans_apart(&c, &s);
	if (rc == 0)
		rc = check_clusters_apart(&c);
	free(c.fsinfo_used);
	free(s.v);
	sha256_free(c.sha);
	reader_release_disk(&k);
	return rc;
}
