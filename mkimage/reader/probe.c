/* SPDX-License-Identifier: MIT */
/* probe: what a partition holds: FAT (fat/'s reader), exFAT (exfat/'s reader), ext2/3/4
 * (superblock), unknown. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/array.h"
#include "common/bytes.h"
#include "common/cards.h"
#include "mkimage/reader/reader_priv.h"

/*
 * The ext2/3/4 superblock, 1 KiB into the volume ("The Second Extended File System",
 * Poirier; the Linux kernel's Documentation/filesystems/ext4/super.rst): the fields read
 * here, little-endian.
 */
#define EXT_SUPER 1024u
#define EXT_MAGIC 0xEF53u
enum ext_super_field {
	EXT_S_BLOCKS_COUNT_LO = 0x04,  /* 4 bytes */
	EXT_S_LOG_BLOCK_SIZE = 0x18,   /* 4 bytes: block size = 1024 << this */
	EXT_S_MAGIC = 0x38,            /* 2 bytes: EXT_MAGIC */
	EXT_S_FEATURE_COMPAT = 0x5C,   /* 4 bytes: 0x4 has_journal */
	EXT_S_FEATURE_INCOMPAT = 0x60, /* 4 bytes: 0x40 extents, 0x80 64bit, 0x200 flex_bg */
	EXT_S_UUID = 0x68,             /* 16 bytes */
	EXT_S_VOLUME_NAME = 0x78,      /* 16 bytes, NUL-padded */
	EXT_S_BLOCKS_COUNT_HI = 0x150, /* 4 bytes, with the 64bit feature */
};
#define EXT_COMPAT_HAS_JOURNAL 0x4u
#define EXT_INCOMPAT_64BIT 0x80u
#define EXT_INCOMPAT_EXT4 0x2C0u /* extents, 64bit, flex_bg: only ext4 has them */
#define WALK_MAX_DEPTH 64u /* as deep as the builder nests folders; a deeper tree is not counted */
#define WALK_MAX_ENTRIES 10000000u

static int count_entry(void *ctx, const struct fat_dirent *e)
{
	struct disk_fat *f = ctx;

	if (f->files + f->dirs >= WALK_MAX_ENTRIES)
		return -E2BIG;
	if (e->attrs & FAT_ATTR_DIR)
		f->dirs++;
	else
		f->files++;
	return 0;
}

/* Counts the free and chained clusters, files and folders of the volume @v into @f, and the
 * clusters its tree holds (fat_vol_walk_held(), with the runs @keep). */
static void count_fat(struct fat_vol *v, struct disk_fat *f, const struct fat_run *keep,
		      size_t n_keep, struct diag *scratch)
{
	static const struct fat_walk_fns fns = { .entry = count_entry };
	struct fat_cluster_count n;

	f->counted = fat_vol_count_clusters(v, &n, scratch) == 0;
	if (!f->counted)
		return;
	f->free_clusters = n.free;
	f->chained = n.chained;
	f->walked = fat_vol_walk_held(v, WALK_MAX_DEPTH, &fns, f, keep, n_keep, &f->held, &f->kept,
				      scratch) == 0;
}

/* The per-card files' runs of the volume at @p: each file's clusters as the build allocated
 * them, its reserve (the manifest @m, or NULL), into *@ret (free() it); how many. */
static size_t keep_runs(const struct cards_manifest *m, const struct disk_part *p,
			uint32_t cluster_size, struct fat_run **ret)
{
	size_t n = 0;

	*ret = m && m->n_files ? calloc(m->n_files, sizeof(**ret)) : NULL;
	for (size_t i = 0; *ret && i < m->n_files; i++)
		if (m->files[i].volume == p->start && m->files[i].cluster_size == cluster_size)
			(*ret)[n++] = (struct fat_run){ m->files[i].first_cluster,
							m->files[i].clusters };
	return n;
}

static void probe_fat(struct disk *k, struct disk_part *p, const uint8_t *boot,
		      const struct cards_manifest *m)
{
	struct fat_vol *v = NULL;
	struct diag scratch;

	diag_init(&scratch);
	uint64_t room = p->start + p->size > k->size ? k->size - p->start : p->size;

	if (fat_vol_open(k->fd, p->start, room, &v, &scratch) == 0) {
		p->content = CONTENT_FAT;
		p->fat.info = *fat_vol_info(v);
		if (m) {
			struct fat_run *keep;
			size_t n = keep_runs(m, p, p->fat.info.cluster_size, &keep);
			count_fat(v, &p->fat, keep, n, &scratch);
			free(keep);
		}
	} else if (fat_boot_sector_claimed(boot) || (!p->number && fat_boot_sector_valid(boot))) {
		/* (without a table, the valid BPB is what made the disk a bare volume) */
		p->content = CONTENT_FAT;
		snprintf(p->content_error, sizeof(p->content_error), "%s",
			 scratch.n ? scratch.msgs[0].text : "unreadable FAT volume");
	}
	fat_vol_close(v);
	diag_release(&scratch);
}

static int count_exfat_entry(void *ctx, const struct exfat_dirent *e)
{
	struct disk_exfat *f = ctx;

	if (f->files + f->dirs >= WALK_MAX_ENTRIES)
		return -E2BIG;
	if (e->attrs & EXFAT_ATTR_DIRECTORY)
		f->dirs++;
	else
		f->files++;
	return 0;
}

/* Counts the free clusters (the allocation bitmap), files and folders of @v into @f, and the
 * clusters its tree holds (exfat_vol_walk_held(), with the runs @keep). */
static void count_exfat(struct exfat_vol *v, struct disk_exfat *f, const struct fat_run *keep,
			size_t n_keep, struct diag *scratch)
{
	static const struct exfat_walk_fns fns = { .entry = count_exfat_entry };

	f->counted = exfat_vol_free_clusters(v, &f->free_clusters, scratch) == 0;
	if (!f->counted)
		return;
	f->walked = exfat_vol_walk_held(v, WALK_MAX_DEPTH, &fns, f, keep, n_keep, &f->held,
					&f->kept, scratch) == 0;
}

/* A volume whose boot sector @boot says "EXFAT": read, or reported as damaged. */
static void probe_exfat(struct disk *k, struct disk_part *p, const struct cards_manifest *m)
{
	struct exfat_vol *v = NULL;
	struct diag scratch;

	diag_init(&scratch);
	uint64_t room = p->start + p->size > k->size ? k->size - p->start : p->size;

	p->content = CONTENT_EXFAT;
	if (exfat_vol_open(k->fd, p->start, room, &v, &scratch) == 0) {
		p->exfat.info = *exfat_vol_info(v);
		if (m) {
			struct fat_run *keep;
			size_t n = keep_runs(m, p, p->exfat.info.cluster_size, &keep);
			count_exfat(v, &p->exfat, keep, n, &scratch);
			free(keep);
		}
	} else {
		snprintf(p->content_error, sizeof(p->content_error), "%s",
			 scratch.n ? scratch.msgs[0].text : "unreadable exFAT volume");
	}
	exfat_vol_close(v);
	diag_release(&scratch);
}

static void probe_ext(struct disk_part *p, const uint8_t *sb)
{
	uint32_t compat = get_le32(sb + EXT_S_FEATURE_COMPAT);
	uint32_t incompat = get_le32(sb + EXT_S_FEATURE_INCOMPAT);
	uint32_t log = get_le32(sb + EXT_S_LOG_BLOCK_SIZE);
	uint64_t blocks = get_le32(sb + EXT_S_BLOCKS_COUNT_LO);
	const uint8_t *u = sb + EXT_S_UUID;

	if (get_le16(sb + EXT_S_MAGIC) != EXT_MAGIC || log > 6)
		return;
	p->content = CONTENT_EXT;
	if (incompat & EXT_INCOMPAT_64BIT)
		blocks |= (uint64_t)get_le32(sb + EXT_S_BLOCKS_COUNT_HI) << 32;
	p->ext.block_size = 1024u << log;
	p->ext.size = blocks * p->ext.block_size;
	snprintf(p->ext.kind, sizeof(p->ext.kind), "%s",
		 incompat & EXT_INCOMPAT_EXT4      ? "ext4"
		 : compat & EXT_COMPAT_HAS_JOURNAL ? "ext3"
						   : "ext2");
	memcpy(p->ext.label, sb + EXT_S_VOLUME_NAME, 16);
	p->ext.label[16] = '\0';
	snprintf(p->ext.uuid, sizeof(p->ext.uuid),
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
		 u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
		 u[15]);
}

/* Probes @p; counts its clusters when @m is not NULL (the per-card manifest, maybe empty). */
static void probe(struct disk *k, struct disk_part *p, const struct cards_manifest *m)
{
	uint8_t boot[512] = { 0 }, sb[1024] = { 0 };

	if (p->content == CONTENT_CONTAINER || p->start >= k->size || p->size < sizeof(boot))
		return; /* a partition smaller than a sector holds no file system */
	if (pread(k->fd, boot, sizeof(boot), (off_t)p->start) != (ssize_t)sizeof(boot))
		return;
	if (exfat_boot_sector_claimed(boot)) {
		probe_exfat(k, p, m);
		return;
	}
	probe_fat(k, p, boot, m);
	if (p->content == CONTENT_UNKNOWN && p->size >= EXT_SUPER + sizeof(sb) &&
	    pread(k->fd, sb, sizeof(sb), (off_t)(p->start + EXT_SUPER)) == (ssize_t)sizeof(sb))
		probe_ext(p, sb);
}

/* The per-card manifest beside the image (IMAGE.cards.json, where a build writes it) into @m
 * (zeroed); left empty when there is none or it does not read. */
static void read_manifest(const char *image, struct cards_manifest *m)
{
	struct diag scratch;
	char *name = NULL;

	diag_init(&scratch);
	if (asprintf(&name, "%s.cards.json", image) >= 0 && access(name, F_OK) == 0 &&
	    cards_manifest_read(name, m, &scratch) != 0) {
		cards_manifest_release(m);
		memset(m, 0, sizeof(*m));
	}
	free(name);
	diag_release(&scratch);
}

static int probe_parts(struct disk *k, const struct cards_manifest *m, struct diag *d)
{
	if (k->table_unreadable)
		return 0; /* the findings say why nothing is listed */
	if (strcmp(k->table, "none") == 0) {
		/* no table: the whole disk may be one file system */
		struct disk_part whole = { .number = 0, .start = 0, .size = k->size };
		size_t cap = 0;
		probe(k, &whole, m);
		if (whole.content == CONTENT_UNKNOWN)
			return diag_error(d,
					  "%s: not a disk image: no partition table and no file "
					  "system at its start",
					  k->path);
		if (array_grow((void **)&k->parts, &cap, 1, sizeof(*k->parts)) < 0)
			return -ENOMEM;
		k->parts[k->n_parts++] = whole;
		return 0;
	}
	for (size_t i = 0; i < k->n_parts; i++)
		probe(k, &k->parts[i], m);
	return 0;
}

int reader_probe_all(struct disk *k, bool count, struct diag *d)
{
	struct cards_manifest m = { 0 };
	int r;

	if (count)
		read_manifest(k->path, &m);
	r = probe_parts(k, count ? &m : NULL, d);
	cards_manifest_release(&m);
	return r;
}
