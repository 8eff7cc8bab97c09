/* SPDX-License-Identifier: MIT */
/*
 * exfat: write exFAT volumes in-process, and read them back.
 *
 * The module knows nothing of layouts or partition tables, and works as fat/ does (whose
 * file sources, node metadata and DOS times it shares: exFAT is of the FAT family). A caller
 *   1. builds a tree with exfat_tree_new(), exfat_tree_add_dir() and exfat_tree_add_file(),
 *   2. resolves a geometry with exfat_params_for_tree() (exfat_params() without a tree, or
 *      exfat_sd_format() for a whole SDXC card); exfat_min_size() tells how small the volume
 *      may be for the tree,
 *   3. writes it with exfat_write_or_stop() into a pre-sized, zero (sparse) output file at
 *      the volume's byte offset.
 * The reader (exfat_vol_open() ...) validates a volume, lists and reads its files and walks
 * its tree.
 *
 * Sources: Microsoft's "exFAT File System Specification" (learn.microsoft.com/windows/win32/
 * fileio/exfat-specification; section numbers below are its own) and the SD Association's SD
 * Specifications Part 2 File System Specification (the SDXC format parameters). On-disk
 * structures: exfat/ondisk.h. Every function reports user-facing problems into a struct diag
 * and returns 0 on success or a negative errno value.
 *
 * Timestamps: sdimg writes UTC, with the UTC offset fields saying so (offset 0, valid); times
 * before 1980 or after 2107 are clamped as on FAT.
 */
#ifndef SDIMG_EXFAT_H
#define SDIMG_EXFAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"
#include "exfat/ondisk.h"
#include "fat/fat.h"

#define EXFAT_SECTOR 512u

/* ---- checksums and hashes (checksum.c), shared by the writer and the reader */

/* The boot checksum of §3.4 over the first 11 sectors of a boot region (@region, 11 * 512
 * bytes), skipping VolumeFlags and PercentInUse of the boot sector. */
uint32_t exfat_boot_checksum(const uint8_t *region);

/* The SetChecksum of §6.3.3 over the @count entries of a directory entry set (@set, 32 *
 * @count bytes), skipping the SetChecksum field of its first entry. */
uint16_t exfat_set_checksum(const uint8_t *set, unsigned count);

/* The NameHash of §7.6.4 over @len UTF-16 units of an already up-cased name. */
uint16_t exfat_name_hash(const uint16_t *upcased, unsigned len);

/* The TableChecksum of §7.2.2 over @len bytes of an up-case table. */
uint32_t exfat_table_checksum(const uint8_t *table, size_t len);

/* ---- the up-case table (upcase.c): the recommended table of §7.2.5.1 */

#define EXFAT_UPCASE_BYTES 5836u          /* its compressed length */
#define EXFAT_UPCASE_CHECKSUM 0xE619D30Du /* its TableChecksum (§7.2.2) */

/* The upper case of the UTF-16 unit @c by the recommended table. */
uint16_t exfat_upcase(uint16_t c);

/* The recommended table, compressed as the specification gives it (EXFAT_UPCASE_BYTES). */
void exfat_upcase_table(uint8_t out[EXFAT_UPCASE_BYTES]);

/* ---- the volume's settings and geometry */

/*
 * The settings of a volume, as LAYOUT.md's `exfat { }` exposes them. Zero/NULL means
 * "default". Strings are borrowed for the duration of the call that takes the struct.
 */
struct exfat_opts {
	uint32_t cluster_size; /* bytes, 512..32 MiB power of two; 0: chosen by size */
	uint64_t heap_align;   /* bytes from the DISK start; cluster 2 lands on a multiple (the
				* erase-block alignment); 0: none */
	bool heap_align_lower; /* heap_align is a default, not the user's: it may be lowered
				* (as fat_opts.data_align_lower) */
	const char *label;     /* volume label in UTF-8, up to 11 UTF-16 units; NULL: none */
	uint32_t volume_id;    /* VolumeSerialNumber (the caller derives it, e.g. from a seed) */
	const uint8_t *guid;   /* 16 bytes: a Volume GUID entry (§7.5); NULL: none */
};

/* A resolved volume geometry: everything the writer needs to lay out the volume. */
struct exfat_geom {
	uint64_t part_offset;  /* PartitionOffset: the volume's first sector on the disk */
	uint64_t vol_sectors;  /* VolumeLength */
	uint32_t fat_offset;   /* FatOffset, sectors from the volume start */
	uint32_t fat_length;   /* FatLength, sectors */
	uint32_t heap_offset;  /* ClusterHeapOffset, sectors from the volume start */
	uint32_t clusters;     /* ClusterCount (cluster numbers 2..clusters+1) */
	uint32_t cluster_size; /* bytes */
	uint8_t cluster_shift; /* SectorsPerClusterShift */
	uint32_t volume_id;
	uint16_t label[EXFAT_LABEL_MAX]; /* UTF-16 units of the label */
	uint8_t label_len;               /* 0: no label */
	bool has_guid;
	uint8_t guid[16];
};

/*
 * exfat_params - choose the geometry of a volume.
 * @o:          the settings (NULL: all defaults)
 * @vol_bytes:  size of the volume in bytes (a multiple of 512)
 * @vol_offset: byte offset of the volume on the disk (a multiple of 512): PartitionOffset and
 *              the heap-align reference point
 * @ret:        the resolved geometry
 * @d:          messages
 *
 * Default cluster size by volume size as the specification's and the SD Association's
 * tables give it (4K up to 256 MiB, 32K up to 32 GiB, 128K above; the SDXC capacities take
 * exfat_sd_format()'s). The FAT starts after both boot regions (24 sectors) rounded up, the
 * heap after the FAT, both aligned to @o->heap_align where set. Explicit settings are never
 * changed: an impossible combination is an error that names the limit and what would work.
 *
 * Returns: 0, or -EINVAL with a message in @d.
 */
int exfat_params(const struct exfat_opts *o, uint64_t vol_bytes, uint64_t vol_offset,
		 struct exfat_geom *ret, struct diag *d);

/* Where the SD formatter puts the single exFAT partition of an SDXC card, and its geometry. */
struct exfat_sd_layout {
	uint64_t part_start;   /* partition start sector (= geom.part_offset) */
	uint64_t part_sectors; /* partition size in sectors: to the end of the card */
	uint32_t boundary;     /* the boundary unit BU in sectors */
	uint8_t mbr_type;      /* 0x07 */
	struct exfat_geom geom;
};

/*
 * exfat_sd_format - lay a whole SDXC card out exactly as the SD Association's formatter
 * does (SD Part 2 File System Specification, the SDXC rows: cluster size, boundary unit,
 * partition offset, FAT offset and cluster heap offset by capacity).
 * @o:            settings; label, volume_id and guid are honoured; cluster_size must be 0 or
 *                the SD value
 * @card_sectors: size of the card in 512-byte sectors (above 2^26: an SDXC card)
 * @ret:          partition start and size and the volume geometry
 *
 * Returns: 0, or -EINVAL with a message in @d (a card that is not SDXC names what is).
 */
int exfat_sd_format(const struct exfat_opts *o, uint64_t card_sectors, struct exfat_sd_layout *ret,
		    struct diag *d);

/* ---- the tree of directories and files */

/* An opaque tree of directories and files; paths are absolute, in UTF-8. */
struct exfat_tree;

/* exfat_tree_new - an empty tree; @timestamp goes to folders created as parents.
 * Returns: the tree, or NULL when out of memory. Free with exfat_tree_free(). */
struct exfat_tree *exfat_tree_new(int64_t timestamp);

/* exfat_tree_expect - as fat_tree_expect(). Returns: 0 or -ENOMEM. */
int exfat_tree_expect(struct exfat_tree *t, size_t nodes);

/* exfat_tree_free - frees @t and every node. Accepts NULL. */
void exfat_tree_free(struct exfat_tree *t);

/*
 * exfat_tree_add_dir - adds a directory (and any missing parents); as fat_tree_add_dir(),
 * with the fat_meta attrs read as exFAT's (the same bits, §7.4.4) and `reserve` unused.
 */
int exfat_tree_add_dir(struct exfat_tree *t, const char *path, const struct fat_meta *m,
		       struct diag *d);

/*
 * exfat_tree_add_file - adds a file (and any missing parent directories); as
 * fat_tree_add_file(), with no 4 GiB limit on @size (exFAT's DataLength is 64 bits).
 */
int exfat_tree_add_file(struct exfat_tree *t, const char *path, uint64_t size,
			const struct fat_source *src, const struct fat_meta *m, struct diag *d);

/*
 * exfat_reached_heap_align - the heap alignment a volume of @vol_bytes at @vol_offset gets with
 * the settings @o and a tree that takes @need clusters besides the allocation bitmap and the
 * up-case table (its root included; 0: no files), sized, as a build sizes them, for each
 * alignment tried: @o->heap_align where exfat_params() accepts it and leaves that room; with
 * @o->heap_align_lower, else the one exfat_params_for_tree() lowers it to; else 0. What
 * `inspect` judges a cluster heap against, by the builder's own rule, with @need the clusters
 * the allocation bitmap marks used less the bitmap's and the up-case table's own.
 */
uint64_t exfat_reached_heap_align(const struct exfat_opts *o, uint64_t vol_bytes,
				  uint64_t vol_offset, uint64_t need);

/*
 * exfat_params_for_tree - exfat_params() for a volume that is to hold @t: checks @t's names
 * (1..255 UTF-16 units, none of the characters §7.7.3 forbids, no two equal after the
 * up-case table) and that its files and folders fit, with an error that gives both numbers
 * and the smallest volume that holds them.
 */
int exfat_params_for_tree(struct exfat_tree *t, const struct exfat_opts *o, uint64_t vol_bytes,
			  uint64_t vol_offset, struct exfat_geom *ret, struct diag *d);

/*
 * exfat_min_size - the smallest volume (bytes, a multiple of 512) that holds @t with the
 * settings @o at @vol_offset; computed, not searched by trial writes.
 */
int exfat_min_size(struct exfat_tree *t, const struct exfat_opts *o, uint64_t vol_offset,
		   uint64_t *ret_bytes, struct diag *d);

/*
 * exfat_write_or_stop - writes the volume into @fd (already sized and zero where nothing is
 * written) at @vol_offset, asking @stop(@stop_ctx) (may be NULL) before each file and after
 * each MiB of file data. @image names @fd in messages (may be NULL).
 *
 * Writes only what is not zero, each byte once: both boot regions, the FAT (entries 0 and 1
 * and the chains of what is not contiguous), the allocation bitmap, the up-case table (the
 * specification's recommended table, §7.2.5.1), the root directory (label, bitmap, up-case
 * table and GUID entries first), then every folder and file. Directories are sorted by the
 * UTF-8 bytes of their names, `first` nodes first; clusters are given in that order, depth
 * first, so every file and folder is contiguous and marked NoFatChain.
 *
 * Returns: 0, -EINTR (no message) when @stop said so, or a negative errno with a message.
 */
int exfat_write_or_stop(struct exfat_tree *t, const struct exfat_geom *g, int fd,
			uint64_t vol_offset, const char *image, fat_stop_fn stop, void *stop_ctx,
			struct diag *d);

/* Where a file's bytes and its directory entry set are (exfat_tree_file_place()). */
struct exfat_place {
	uint64_t data;    /* byte offset of its first cluster from the volume's start (0: none) */
	uint64_t room;    /* bytes its clusters hold (contiguous) */
	uint64_t entries; /* byte offset of its File entry (§7.4); its set follows contiguously */
	unsigned count;   /* entries in its set (the File entry and its secondaries) */
};

/* exfat_tree_file_place - where file @path (exactly as added) lies, after the write.
 * Returns: 0, -ENOENT (no such file) or -EINVAL (@t not written yet). */
int exfat_tree_file_place(const struct exfat_tree *t, const char *path, struct exfat_place *ret);

/* exfat_tree_used_bytes - bytes from the volume's start through the last cluster given
 * meaning (what follows is free space). 0 when @t has not been written. */
uint64_t exfat_tree_used_bytes(const struct exfat_tree *t);

/* exfat_path_key - @path folded the way exFAT compares names (the up-case table), so that two
 * paths exFAT sees as equal have equal keys. A new string (free() it), or NULL. */
char *exfat_path_key(const char *path);

/*
 * A per-card file (as fat_card_file): its clusters first_cluster .. + clusters - 1 stay
 * given to it whatever its length; a content of L bytes marks the first ceil(L / cluster)
 * of them in the allocation bitmap and leaves the others free, and its set's DataLength,
 * ValidDataLength and SetChecksum say L.
 */
struct exfat_card_file {
	uint32_t cluster_size;
	uint32_t first_cluster;
	uint32_t clusters;
	unsigned count; /* entries in its set */
};

/* Byte offset (from the bitmap's first byte) and length of the part of the allocation bitmap
 * that exfat_card_bitmap() sets. */
uint64_t exfat_card_bitmap_start(const struct exfat_card_file *f);
uint64_t exfat_card_bitmap_len(const struct exfat_card_file *f);

/* Sets the bits of @f's clusters for a content of @len bytes in @bitmap, which holds the
 * exfat_card_bitmap_len() bytes from exfat_card_bitmap_start() (other bits kept). */
void exfat_card_bitmap(const struct exfat_card_file *f, uint64_t len, uint8_t *bitmap);

/* Sets the lengths and the SetChecksum of @f's entry set @set (32 * count bytes) for @len. */
void exfat_card_entries(const struct exfat_card_file *f, uint64_t len, uint8_t *set);

/* ---- Reader ---- */

/* An opaque, opened exFAT volume. */
struct exfat_vol;

/* What the boot region says, after validation. */
struct exfat_info {
	uint64_t part_offset;
	uint64_t vol_sectors;
	uint32_t fat_offset;
	uint32_t fat_length;
	uint32_t heap_offset;
	uint32_t clusters;
	uint32_t root_cluster;
	uint32_t cluster_size;
	uint32_t volume_id;
	uint16_t revision;
	uint16_t flags;
	uint8_t fats;
	uint8_t percent_in_use;
	char label[EXFAT_LABEL_MAX * 3 + 1]; /* from the root's label entry, UTF-8 */
	bool has_guid;
	uint8_t guid[16];
	uint32_t bitmap_cluster; /* the root's Allocation Bitmap entry */
	uint64_t bitmap_bytes;
	uint32_t upcase_cluster;
	uint64_t upcase_bytes;
	uint32_t upcase_checksum;
};

/* One directory entry as the reader reports it. */
struct exfat_dirent {
	char name[EXFAT_NAME_MAX * 3 + 1]; /* UTF-8 */
	uint16_t attrs;                    /* EXFAT_ATTR_* */
	uint64_t size;                     /* DataLength */
	uint64_t valid_size;               /* ValidDataLength */
	uint32_t first_cluster;
	bool contiguous; /* NoFatChain */
	int64_t mtime;   /* seconds since the epoch, UTC (the UTC offset field applied) */
};

/* exfat_boot_sector_claimed - whether the sector @s claims to be an exFAT boot sector
 * (FileSystemName "EXFAT   "): a volume that claims it but fails exfat_vol_open() is a
 * damaged exFAT volume, not something else. */
bool exfat_boot_sector_claimed(const uint8_t s[EXFAT_SECTOR]);

/*
 * exfat_vol_open - opens the exFAT volume at @offset of @fd: checks the main boot region
 * (every field's range, §3.1; the regions inside the volume and apart; the boot checksum
 * sector, §3.4) and the root directory's system entries: the allocation bitmap of the active
 * FAT, the up-case table (read, its TableChecksum checked, kept for name matching), the
 * label and the volume GUID. Volumes of 512-byte sectors only (what SD cards have): another
 * sector size is refused with a message saying so. The bitmap and the up-case table are read
 * as contiguous runs, as the Linux driver reads them. As fat_vol_open() otherwise: @size is
 * the bytes there are from @offset (0: unknown), errors are -EINVAL with a message or -EIO.
 */
int exfat_vol_open(int fd, uint64_t offset, uint64_t size, struct exfat_vol **ret, struct diag *d);

/* exfat_vol_close - frees @v. Accepts NULL. */
void exfat_vol_close(struct exfat_vol *v);

/* exfat_vol_info - the validated parameters of @v (borrowed until exfat_vol_close()). */
const struct exfat_info *exfat_vol_info(const struct exfat_vol *v);

/* exfat_vol_free_clusters - the clusters the allocation bitmap leaves free. */
int exfat_vol_free_clusters(struct exfat_vol *v, uint32_t *ret_free, struct diag *d);

/* exfat_vol_list - calls @fn for each file and folder of the directory @path, in on-disk
 * order (sets checked: counts, SetChecksum, NameHash, names); as fat_vol_list(). */
int exfat_vol_list(struct exfat_vol *v, const char *path,
		   int (*fn)(void *ctx, const struct exfat_dirent *e), void *ctx, struct diag *d);

/* What exfat_vol_walk() calls; either may be NULL (as struct fat_walk_fns). */
struct exfat_walk_fns {
	int (*folder)(void *ctx, const char *path);
	int (*entry)(void *ctx, const struct exfat_dirent *e);
};

/* exfat_vol_walk - @path and every folder below it, depth first, as fat_vol_walk(): loops,
 * clusters that two files or folders share or that are the bitmap's, the up-case table's or
 * the root's are errors, as are folders nested more than @depth_max deep. */
int exfat_vol_walk(struct exfat_vol *v, const char *path, unsigned depth_max,
		   const struct exfat_walk_fns *fns, void *ctx, struct diag *d);

/* exfat_vol_walk_held - exfat_vol_walk() of the root, calling @fns, and counts into *@ret_held
 * the clusters the tree holds: each file's and folder's DataLength (the clusters the walk
 * claims, §7.6.6) and the root's chain, not the bitmap's or the up-case table's; into
 * *@ret_kept the clusters of the runs @keep (as fat_vol_walk_held(): a per-card file's
 * reserve) that no file or folder holds. Returns: as exfat_vol_walk(). */
int exfat_vol_walk_held(struct exfat_vol *v, unsigned depth_max, const struct exfat_walk_fns *fns,
			void *ctx, const struct fat_run *keep, size_t n_keep, uint64_t *ret_held,
			uint64_t *ret_kept, struct diag *d);

/* exfat_vol_read - calls @fn with the bytes of the file @path, in order, in pieces of at most
 * a cluster (bytes past ValidDataLength read as zero); names matched through the volume's
 * up-case table. As fat_vol_read(); first every file and folder of the volume is walked as
 * exfat_vol_walk() does, so a file whose clusters another shares gives no byte. */
int exfat_vol_read(struct exfat_vol *v, const char *path,
		   int (*fn)(void *ctx, const void *buf, size_t len), void *ctx, struct diag *d);

#endif
