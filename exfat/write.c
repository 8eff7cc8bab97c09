/* SPDX-License-Identifier: MIT */
/*
 * exfat/write: writes a laid-out tree as an exFAT volume (exfat.h, exfat_write_or_stop()).
 * Only what is not zero is written, each byte once: both boot regions (§3), the FAT's entries
 * 0 and 1 and the chains of the bitmap, up-case table and root directory (which have no
 * NoFatChain flag; every file and folder is contiguous and marked NoFatChain, §7.6.2, so the
 * FAT holds nothing for them), the allocation bitmap (§7.1), the up-case table (§7.2), and
 * each directory's entries followed by its files' bytes (fat/copy.c).
 */
#include "exfat/write_priv.h"

#include "common/bytes.h"
#include "common/units.h"
#include "common/utf8.h"
#include "fat/copy_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct wctx {
	struct fat_copier c; /* the output, and file data into it */
	struct exfat_tree *t;
	const struct exfat_geom *g;
	uint32_t next; /* the first cluster nothing uses */
	uint64_t used; /* clusters marked in the bitmap */
};

static uint64_t cluster_off(const struct exfat_geom *g, uint32_t c)
{
	return (uint64_t)g->heap_offset * EXFAT_SECTOR +
	       (uint64_t)(c - EXFAT_FIRST_CLUSTER) * g->cluster_size;
}

static uint32_t clusters_of(uint64_t bytes, uint32_t cluster_size)
{
	return (uint32_t)((bytes + cluster_size - 1) / cluster_size);
}

static uint32_t bitmap_first(void)
{
	return EXFAT_FIRST_CLUSTER;
}

static uint32_t upcase_first(const struct exfat_geom *g)
{
	return bitmap_first() + clusters_of(exfat_bitmap_bytes(g->clusters), g->cluster_size);
}

/* Clusters of @n that its bytes use: all but those a reserve holds beyond its size. */
static uint32_t used_clusters(const struct fat_node *n, uint32_t cluster_size)
{
	return n->is_dir || !fat_node_reserve(n) ? n->n_clusters
						 : clusters_of(n->size, cluster_size);
}

/* The boot sector (§3.1). */
static void put_boot_sector(uint8_t *s, const struct exfat_geom *g, uint32_t root, uint8_t percent)
{
	static const uint8_t jump[3] = { 0xEB, 0x76, 0x90 };

	memcpy(s + EXFAT_JUMPBOOT, jump, sizeof(jump));
	memcpy(s + EXFAT_FILESYSTEMNAME, EXFAT_NAME, 8);
	put_le64(s + EXFAT_PARTITIONOFFSET, g->part_offset);
	put_le64(s + EXFAT_VOLUMELENGTH, g->vol_sectors);
	put_le32(s + EXFAT_FATOFFSET, g->fat_offset);
	put_le32(s + EXFAT_FATLENGTH, g->fat_length);
	put_le32(s + EXFAT_CLUSTERHEAPOFFSET, g->heap_offset);
	put_le32(s + EXFAT_CLUSTERCOUNT, g->clusters);
	put_le32(s + EXFAT_FIRSTCLUSTEROFROOTDIRECTORY, root);
	put_le32(s + EXFAT_VOLUMESERIALNUMBER, g->volume_id);
	put_le16(s + EXFAT_FILESYSTEMREVISION, EXFAT_REVISION);
	put_le16(s + EXFAT_VOLUMEFLAGS, 0); /* clean, first FAT */
	s[EXFAT_BYTESPERSECTORSHIFT] = 9;
	s[EXFAT_SECTORSPERCLUSTERSHIFT] = g->cluster_shift;
	s[EXFAT_NUMBEROFFATS] = 1;
	s[EXFAT_DRIVESELECT] = EXFAT_DRIVE;
	s[EXFAT_PERCENTINUSE] = percent;
	/* boot code: halt, should a machine jump to it (§3.1.19 leaves its content to us) */
	memset(s + EXFAT_BOOTCODE, 0xF4, EXFAT_BOOTSIGNATURE - EXFAT_BOOTCODE);
	s[EXFAT_BOOTSIGNATURE] = 0x55;
	s[EXFAT_BOOTSIGNATURE + 1] = 0xAA;
}

/* Both boot regions: boot sector, extended boot sectors with their signature, OEM parameters
 * and reserved sector (zero), boot checksum sector (§3.4); the backup equals the main. */
static int write_boot(struct wctx *w)
{
	uint8_t *region = calloc(EXFAT_BOOT_REGION_SECTORS, EXFAT_SECTOR);
	uint8_t percent = (uint8_t)(w->used * 100 / w->g->clusters);
	int r;

	if (!region)
		return -ENOMEM;
	put_boot_sector(region, w->g, w->t->root_cluster, percent);
	for (unsigned i = 1; i <= EXFAT_EXT_BOOT_SECTORS; i++)
		put_le32(region + (i + 1) * EXFAT_SECTOR - 4, EXFAT_EXT_BOOT_SIGNATURE);
	uint32_t sum = exfat_boot_checksum(region);
	for (unsigned i = 0; i < EXFAT_SECTOR / 4; i++)
		put_le32(region + EXFAT_CHECKSUM_SECTOR * EXFAT_SECTOR + i * 4, sum);
	r = fat_copier_put(&w->c, region, EXFAT_BOOT_REGION_SECTORS * EXFAT_SECTOR, 0);
	if (!r)
		r = fat_copier_put(&w->c, region, EXFAT_BOOT_REGION_SECTORS * EXFAT_SECTOR,
				   EXFAT_BOOT_REGION_SECTORS * EXFAT_SECTOR);
	free(region);
	return r;
}

/* The FAT: entries 0 and 1 (§4.1) and the chains of the bitmap, up-case table and root. */
static int write_fat(struct wctx *w)
{
	uint32_t end = w->t->root_cluster + w->t->ft->root.n_clusters;
	size_t len = (size_t)end * 4;
	uint8_t *fat = calloc(1, len);
	uint32_t starts[] = { bitmap_first(), upcase_first(w->g), w->t->root_cluster, end };
	int r;

	if (!fat)
		return -ENOMEM;
	put_le32(fat, EXFAT_FAT_MEDIA);
	put_le32(fat + 4, EXFAT_FAT_ENTRY1);
	for (unsigned k = 0; k < 3; k++)
		for (uint32_t c = starts[k]; c < starts[k + 1]; c++)
			put_le32(fat + (size_t)c * 4,
				 c + 1 < starts[k + 1] ? c + 1 : EXFAT_FAT_EOC);
	r = fat_copier_put(&w->c, fat, len, (uint64_t)w->g->fat_offset * EXFAT_SECTOR);
	free(fat);
	return r;
}

static void set_bits(uint8_t *bm, uint32_t first, uint32_t n)
{
	for (uint32_t c = first - EXFAT_FIRST_CLUSTER, e = c + n; c < e; c++)
		bm[c / 8] |= (uint8_t)(1u << (c % 8));
}

static uint64_t mark_dir(uint8_t *bm, const struct fat_node *dir, uint32_t cluster_size)
{
	uint64_t used = 0;

	for (size_t i = 0; i < dir->n_kids; i++) {
		const struct fat_node *n = dir->kids[i];
		uint32_t u = used_clusters(n, cluster_size);
		if (u)
			set_bits(bm, n->cluster, u);
		used += u + (n->is_dir ? mark_dir(bm, n, cluster_size) : 0);
	}
	return used;
}

/* The allocation bitmap's bytes up to the first free cluster (the rest is zero); counts the
 * clusters it marks. */
static uint8_t *make_bitmap(struct wctx *w, size_t *ret_len)
{
	size_t len = (size_t)(w->next - EXFAT_FIRST_CLUSTER + 7) / 8;
	uint8_t *bm = calloc(1, len ? len : 1);
	uint32_t fixed = w->t->root_cluster + w->t->ft->root.n_clusters - EXFAT_FIRST_CLUSTER;

	if (!bm)
		return NULL;
	set_bits(bm, EXFAT_FIRST_CLUSTER, fixed);
	w->used = fixed + mark_dir(bm, &w->t->ft->root, w->g->cluster_size);
	*ret_len = len;
	return bm;
}

/* A file's time as its entry's timestamp fields hold it (§7.4.8: the DOS date in the high
 * 16 bits, the time in the low; §7.4.10: the 10 ms increment), in UTC. */
struct entry_time {
	uint32_t stamp;
	uint8_t inc10ms;
};

static struct entry_time entry_time(int64_t t, uint32_t ns)
{
	uint16_t date, time;
	uint8_t tenth;

	fat_dos_time(t, ns, &date, &time, &tenth);
	return (struct entry_time){ (uint32_t)date << 16 | time, tenth };
}

/* Timestamp field @ts_at, its increment at @inc_at (none when negative) and its UTC offset
 * at @utc_at, from @et. */
static void put_time(uint8_t *e, unsigned ts_at, int inc_at, unsigned utc_at, struct entry_time et)
{
	put_le32(e + ts_at, et.stamp);
	if (inc_at >= 0)
		e[inc_at] = et.inc10ms;
	e[utc_at] = EXFAT_UTC_OFFSET_VALID; /* offset 0: UTC */
}

/* The entry set of @n (exfat_node_set() entries) at @e. */
static void put_set(uint8_t *e, const struct fat_node *n, uint32_t cluster_size)
{
	unsigned count = exfat_node_set(n);
	uint16_t up[EXFAT_NAME_MAX], u16[EXFAT_NAME_MAX];
	uint64_t len = n->is_dir ? (uint64_t)n->n_clusters * cluster_size : n->size;
	uint8_t *s = e + EXFAT_DENTRY_SIZE;
	struct entry_time et = entry_time(n->mtime, n->mtime_ns);

	e[EXFAT_DE_ENTRYTYPE] = EXFAT_TYPE_FILE;
	e[EXFAT_FE_SECONDARYCOUNT] = (uint8_t)(count - 1);
	put_le16(e + EXFAT_FE_FILEATTRIBUTES,
		 (uint16_t)(n->attrs | (n->is_dir ? EXFAT_ATTR_DIRECTORY : 0)));
	put_time(e, EXFAT_FE_CREATETIMESTAMP, EXFAT_FE_CREATE10MSINCREMENT,
		 EXFAT_FE_CREATEUTCOFFSET, et);
	put_time(e, EXFAT_FE_LASTMODIFIEDTIMESTAMP, EXFAT_FE_LASTMODIFIED10MSINCREMENT,
		 EXFAT_FE_LASTMODIFIEDUTCOFFSET, et);
	put_time(e, EXFAT_FE_LASTACCESSEDTIMESTAMP, -1, EXFAT_FE_LASTACCESSEDUTCOFFSET, et);

	s[EXFAT_DE_ENTRYTYPE] = EXFAT_TYPE_STREAM;
	s[EXFAT_SE_FLAGS] = (uint8_t)(EXFAT_SE_ALLOCATIONPOSSIBLE |
				      (len ? EXFAT_SE_NOFATCHAIN : 0));
	s[EXFAT_SE_NAMELENGTH] = (uint8_t)n->n16;
	/* exfat_tree_prepare() checked the name: it converts */
	utf8_to_utf16(n->name, u16, EXFAT_NAME_MAX);
	for (unsigned i = 0; i < n->n16; i++)
		up[i] = exfat_upcase(u16[i]);
	put_le16(s + EXFAT_SE_NAMEHASH, exfat_name_hash(up, n->n16));
	put_le64(s + EXFAT_SE_VALIDDATALENGTH, len);
	put_le32(s + EXFAT_DE_FIRSTCLUSTER, len ? n->cluster : 0);
	put_le64(s + EXFAT_DE_DATALENGTH, len);

	for (unsigned i = 0; i < n->n16; i++) {
		uint8_t *f = e + (2 + i / EXFAT_NAME_UNITS_PER_ENTRY) * EXFAT_DENTRY_SIZE;
		f[EXFAT_DE_ENTRYTYPE] = EXFAT_TYPE_NAME;
		put_le16(f + EXFAT_FN_FILENAME + (i % EXFAT_NAME_UNITS_PER_ENTRY) * 2, u16[i]);
	}
	put_le16(e + EXFAT_FE_SETCHECKSUM, exfat_set_checksum(e, count));
}

/* The root's own entries: label (§7.3, also when empty), bitmap (§7.1), up-case table (§7.2), GUID (§7.5). */
static uint8_t *put_root_head(uint8_t *e, const struct exfat_geom *g)
{
	uint8_t table[EXFAT_UPCASE_BYTES];

	e[EXFAT_DE_ENTRYTYPE] = EXFAT_TYPE_LABEL; /* CharacterCount 0: no label */
	e[EXFAT_VL_CHARACTERCOUNT] = g->label_len;
	for (unsigned i = 0; i < g->label_len; i++)
		put_le16(e + EXFAT_VL_VOLUMELABEL + 2 * i, g->label[i]);
	e += EXFAT_DENTRY_SIZE;
	e[EXFAT_DE_ENTRYTYPE] = EXFAT_TYPE_BITMAP;
	put_le32(e + EXFAT_DE_FIRSTCLUSTER, bitmap_first());
	put_le64(e + EXFAT_DE_DATALENGTH, exfat_bitmap_bytes(g->clusters));
	e += EXFAT_DENTRY_SIZE;
	exfat_upcase_table(table);
	e[EXFAT_DE_ENTRYTYPE] = EXFAT_TYPE_UPCASE;
	put_le32(e + EXFAT_UC_TABLECHECKSUM, exfat_table_checksum(table, sizeof(table)));
	put_le32(e + EXFAT_DE_FIRSTCLUSTER, upcase_first(g));
	put_le64(e + EXFAT_DE_DATALENGTH, EXFAT_UPCASE_BYTES);
	e += EXFAT_DENTRY_SIZE;
	if (g->has_guid) {
		e[EXFAT_DE_ENTRYTYPE] = EXFAT_TYPE_GUID;
		memcpy(e + EXFAT_VG_VOLUMEGUID, g->guid, sizeof(g->guid));
		put_le16(e + EXFAT_VG_SETCHECKSUM, exfat_set_checksum(e, 1));
		e += EXFAT_DENTRY_SIZE;
	}
	return e;
}

static int write_dir_entries(struct wctx *w, const struct fat_node *dir)
{
	unsigned head = dir->parent ? 0 : exfat_root_head(w->g);
	size_t len = ((size_t)dir->n_entries + head) * EXFAT_DENTRY_SIZE;
	uint8_t *buf = calloc(1, len), *e = buf;
	int r;

	if (!buf)
		return -ENOMEM;
	if (!dir->parent)
		e = put_root_head(e, w->g);
	for (size_t i = 0; i < dir->n_kids; i++) {
		put_set(e, dir->kids[i], w->g->cluster_size);
		e += (size_t)exfat_node_set(dir->kids[i]) * EXFAT_DENTRY_SIZE;
	}
	r = fat_copier_put(&w->c, buf, len, cluster_off(w->g, dir->cluster));
	free(buf);
	return r;
}

static int write_dir(struct wctx *w, const struct fat_node *dir)
{
	int r = write_dir_entries(w, dir);

	for (size_t i = 0; i < dir->n_kids && !r; i++) {
		const struct fat_node *n = dir->kids[i];
		if (!n->is_dir)
			r = fat_copier_stopped(&w->c)
				    ? -EINTR
				    : fat_copier_file(&w->c, n, cluster_off(w->g, n->cluster));
	}
	for (size_t i = 0; i < dir->n_kids && !r; i++)
		if (dir->kids[i]->is_dir)
			r = write_dir(w, dir->kids[i]);
	return r;
}

/* The bitmap, the up-case table and every directory with its files. */
static int write_heap(struct wctx *w)
{
	uint8_t table[EXFAT_UPCASE_BYTES];
	size_t len;
	uint8_t *bm = make_bitmap(w, &len);
	int r;

	if (!bm)
		return -ENOMEM;
	r = write_boot(w);
	if (!r)
		r = write_fat(w);
	if (!r)
		r = fat_copier_put(&w->c, bm, len, cluster_off(w->g, bitmap_first()));
	free(bm);
	exfat_upcase_table(table);
	if (!r)
		r = fat_copier_put(&w->c, table, sizeof(table),
				   cluster_off(w->g, upcase_first(w->g)));
	if (!r)
		r = write_dir(w, &w->t->ft->root);
	return r;
}

/* Whether @g is a geometry exfat_params() or exfat_sd_format() could have made. */
static bool geom_ok(const struct exfat_geom *g)
{
	uint64_t spc = g->cluster_size / EXFAT_SECTOR;

	return g->cluster_size >= EXFAT_SECTOR && spc == 1ull << g->cluster_shift &&
	       g->cluster_shift <= EXFAT_MAX_CLUSTER_SHIFT - 9 && g->clusters &&
	       g->fat_offset >= EXFAT_FAT_OFFSET_MIN &&
	       (uint64_t)g->fat_length * EXFAT_SECTOR >= ((uint64_t)g->clusters + 2) * 4 &&
	       (uint64_t)g->fat_offset + g->fat_length <= g->heap_offset &&
	       g->heap_offset + (uint64_t)g->clusters * spc <= g->vol_sectors;
}

int exfat_write_or_stop(struct exfat_tree *t, const struct exfat_geom *g, int fd,
			uint64_t vol_offset, const char *image, fat_stop_fn stop, void *stop_ctx,
			struct diag *d)
{
	struct wctx w = { .c = { .fd = fd,
				 .vol = vol_offset,
				 .image = image,
				 .kind = "exFAT",
				 .cluster_size = g->cluster_size,
				 .stop = stop,
				 .stop_ctx = stop_ctx,
				 .d = d },
			  .t = t,
			  .g = g };
	uint64_t need;
	char cs[16];
	int r;

	if (!geom_ok(g))
		return diag_error(d, "exFAT geometry is inconsistent (use exfat_params())");
	t->cluster_size = 0;
	r = exfat_tree_prepare(t, d);
	if (r)
		return r;
	need = exfat_tree_alloc(t, g);
	if (need > g->clusters)
		return diag_errno(d, -ENOSPC,
				  "the files and folders need %" PRIu64 " clusters of %s but the "
				  "volume has %" PRIu32,
				  need, units_layout(g->cluster_size, cs, sizeof(cs)), g->clusters);
	w.next = (uint32_t)(need + EXFAT_FIRST_CLUSTER);
	t->root_cluster = t->ft->root.cluster;
	t->root_head = exfat_root_head(g);
	if (fat_copier_start(&w.c))
		return -ENOMEM;
	r = fat_copier_finish(&w.c, write_heap(&w));
	if (!r) {
		t->heap_offset = (uint64_t)g->heap_offset * EXFAT_SECTOR;
		t->cluster_size = g->cluster_size;
		t->next_free = w.next;
	}
	return r;
}
