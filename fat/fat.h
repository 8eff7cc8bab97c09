/* SPDX-License-Identifier: MIT */
/*
 * fat: write FAT12/16/32 volumes in-process, and read them back.
 *
 * The module knows nothing of layouts or partition tables. A caller
 *   1. builds a tree with fat_tree_new(), fat_tree_add_dir() and fat_tree_add_file(),
 *   2. resolves a geometry with fat_params_for_tree() (fat_params() without a tree, or
 *      fat_sd_format() for a whole SD card); fat_min_size() tells how small the volume may
 *      be for the tree,
 *   3. writes it with fat_write() into a pre-sized, zero (sparse) output file at the volume's
 *      byte offset.
 * The reader (fat_vol_open() ...) validates a volume, lists and reads its files and walks its
 * tree (fat_vol_walk()).
 *
 * Sources: Microsoft's FAT specification (fatgen103, v1.03) and the SD Association's SD
 * Specifications Part 2 File System Specification (format parameters and algorithms).
 * Every function reports user-facing problems into a struct diag and returns 0 on success or
 * a negative errno value.
 *
 * Timestamps: FAT stores local-less DOS date/time; sdimg always encodes UTC. DOS dates cannot
 * hold times before 1980-01-01 00:00:00 or after 2107-12-31 23:59:59: such times are clamped
 * to those limits (no message).
 */
#ifndef SDIMG_FAT_H
#define SDIMG_FAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/diag.h"
#include "common/fileid.h"

#define FAT_SECTOR 512u

/* Requested FAT type. FAT_AUTO: FAT16 where it can exist (fat_params() says how). */
enum fat_type {
	FAT_AUTO = 0,
	FAT_12 = 12,
	FAT_16 = 16,
	FAT_32 = 32,
};

/* Directory entry attribute bits (fatgen103 DIR_Attr). */
#define FAT_ATTR_READONLY 0x01
#define FAT_ATTR_HIDDEN 0x02
#define FAT_ATTR_SYSTEM 0x04
#define FAT_ATTR_VOLUME 0x08
#define FAT_ATTR_DIR 0x10
#define FAT_ATTR_ARCHIVE 0x20

/*
 * The settings of a volume, as LAYOUT.md's `fat { }` exposes them. Zero/NULL means "default".
 * Strings are borrowed for the duration of the call that takes the struct.
 */
struct fat_opts {
	enum fat_type type;    /* FAT_AUTO, FAT_12, FAT_16 or FAT_32 */
	uint32_t cluster_size; /* bytes, 512..64K power of two; 0: chosen (fat_params()) */
	unsigned fats;         /* 1 or 2; 0: 2 */
	unsigned root_entries; /* FAT12/16 root entries, multiple of 16; 0: see root_entries_min */
	unsigned root_entries_min; /* with root_entries 0: entries the root needs; the root
				    * gets that many rounded up to 16, at least 512 */
	bool esp;                  /* an EFI system partition: FAT_AUTO prefers FAT32 */
	unsigned reserved;         /* reserved sectors fixed by hand; 0: computed */
	uint64_t data_align; /* bytes from the DISK start; cluster 2 lands on a multiple; 0: none */
	bool data_align_lower; /* data_align is a default, not the user's: see
				* fat_params_for_tree() */
	const char *label;     /* volume label, up to 11 characters; NULL: none ("NO NAME") */
	uint32_t volume_id;    /* volume serial (the caller derives it, e.g. from a seed) */
	const char *oem_name;  /* up to 8 characters; NULL: "MSWIN4.1" */
};

/* A resolved volume geometry: everything fat_write() needs to lay out the volume. */
struct fat_geom {
	enum fat_type type;      /* FAT_12, FAT_16 or FAT_32 */
	uint32_t sec_per_clus;   /* sectors per cluster */
	uint32_t cluster_size;   /* bytes per cluster */
	uint32_t reserved;       /* reserved sectors (boot sector included) */
	uint32_t fats;           /* number of FAT copies */
	uint32_t fat_sectors;    /* sectors per FAT copy */
	uint32_t root_entries;   /* FAT12/16 root directory entries; 0 on FAT32 */
	uint32_t root_sectors;   /* sectors of the FAT12/16 root directory; 0 on FAT32 */
	uint32_t clusters;       /* count of data clusters (cluster numbers 2..clusters+1) */
	uint32_t total_sectors;  /* sectors in the volume = BPB total sectors */
	uint32_t hidden_sectors; /* volume start on the disk in sectors = BPB_HiddSec */
	uint64_t data_offset;    /* byte offset of cluster 2 from the start of the VOLUME */
	uint16_t sec_per_track;  /* CHS geometry written to the BPB */
	uint16_t heads;
	uint32_t volume_id;
	uint8_t label[11];   /* space padded; "NO NAME    " when none */
	bool has_label;      /* a volume-label entry goes into the root directory */
	uint8_t oem_name[8]; /* space padded */
};

/*
 * fat_params - choose the geometry of a volume.
 * @o:          the settings (NULL: all defaults)
 * @vol_bytes:  size of the volume in bytes (a multiple of 512, at most 2 TiB - 512)
 * @vol_offset: byte offset of the volume on the disk (a multiple of 512): hidden sectors and
 *              the data-align reference point
 * @ret:        the resolved geometry
 * @d:          messages
 *
 * FAT_AUTO takes the first type in the order FAT16, FAT32, FAT12 (FAT32, FAT16, FAT12 for
 * an @o->esp volume and for volumes over 2 GiB) that works with a cluster size at or below
 * the SD Association's table's for the volume size (8K up to 8 MiB, 16K up to 1 GiB, 32K
 * above), taking the largest that works. A type works when its cluster count stays at least
 * 16 away from 4085 and 65525 (fatgen103 "FAT Type Determination"). So a small partition is
 * FAT16 with small clusters (FAT12 only below about 2 MiB, where FAT16 cannot exist): the
 * table is meant for a whole card, and boot firmware often reads FAT12 poorly. An explicit
 * cluster size is the only one tried (the cluster count then decides the type). With a
 * forced type and a default cluster size, the working cluster size nearest the table's is
 * taken (ties: the larger). Explicit settings are never changed: an impossible combination
 * (also root-entries on a volume that comes out FAT32) is an error that names the limit it
 * breaks (cluster-count bounds, reserved sectors past 65535) and what would work. data-align
 * pads the reserved sectors (FAT12/16: the root directory between the FATs and the data area
 * counts; unless @o->reserved is set, in which case a misaligned result is an error).
 * Minimum reserved sectors: 1 (FAT12/16), 32 (FAT32). The FAT size is the smallest that
 * covers the clusters, computed before the padding.
 *
 * Returns: 0, or -EINVAL with a message in @d.
 */
int fat_params(const struct fat_opts *o, uint64_t vol_bytes, uint64_t vol_offset,
	       struct fat_geom *ret, struct diag *d);

/* Where the SD formatter puts the single FAT partition of a card, and its geometry. */
struct fat_sd_layout {
	uint32_t part_start;   /* partition start sector (= geom.hidden_sectors) */
	uint32_t part_sectors; /* partition size in sectors: to the end of the card */
	uint32_t boundary;     /* the boundary unit BU in sectors */
	uint8_t mbr_type;      /* MBR system id the SD formatter uses (0x01/04/06/0B/0C) */
	struct fat_geom geom;
};

/*
 * fat_sd_format - lay a whole card out exactly as the SD Association's formatter does.
 * @o:            settings; label, volume_id and oem_name are honoured; type, cluster_size,
 *                fats, root_entries and reserved must be 0 or equal to the SD values
 * @card_sectors: size of the card in 512-byte sectors
 * @ret:          partition start and size and the volume geometry
 * @d:            messages
 *
 * FAT12/16: the partition start absorbs the misalignment; FAT32: the reserved sectors do.
 * When the table's FAT12 gives too many clusters for FAT12 (a 2^17-sector card), FAT16 is
 * used; a legal count within 16 of an edge is kept (as the formatter does) with a warning.
 * Cards over 32 GiB are SDXC, which the formatter writes as exFAT: an error.
 *
 * Returns: 0, or -EINVAL with a message in @d.
 */
int fat_sd_format(const struct fat_opts *o, uint64_t card_sectors, struct fat_sd_layout *ret,
		  struct diag *d);

/* ---- The tree of directories and files ---- */

/* An opaque tree of directories and files; all paths are absolute FAT paths in UTF-8. */
struct fat_tree;

/*
 * Where a file's bytes come from, one of four ways:
 *   - @path set: the host file at @path, opened only while fat_write() copies it (so a tree
 *     of many files holds no descriptors). The tree stores each folder once and a file's
 *     name in it; fat_write() looks the name up in its folder, which stays open for the files
 *     after it from the same folder;
 *   - @read set: a callback that fills @buf with @len bytes at @off of the file and returns 0
 *     or a negative errno;
 *   - else the host fd @fd from @offset (the caller's; it must stay open until fat_write()
 *     returns);
 *   - @deferred set: fat_write() writes everything but this file's bytes (its clusters stay
 *     zero), and the caller pwrite()s them afterwards at fat_tree_file_offset() (a stream,
 *     such as an archive, that delivers files in its own order).
 */
struct fat_source {
	const char *path;
	/* the file @path named when it was listed: a file that is another one or changed when
	 * its bytes are copied is an error, not silently other bytes */
	struct fileid listed;
	uint64_t offset;
	int (*read)(void *ctx, uint64_t off, void *buf, size_t len);
	void *ctx;
	int fd;
	bool deferred;
};

/* Metadata of a node. */
struct fat_meta {
	int64_t mtime;      /* seconds since the epoch, UTC */
	uint32_t mtime_ns;  /* nanoseconds (the 10 ms creation field keeps part of it) */
	uint8_t attrs;      /* FAT_ATTR_READONLY/HIDDEN/SYSTEM/ARCHIVE */
	bool first;         /* place this entry first in its directory */
	const char *origin; /* where it comes from, for messages (NULL: the FAT path); copied */
	uint64_t reserve;   /* a file: its clusters hold at least this many bytes (less than
			     * 4 GiB), whatever its size, so that it may later grow up to there
			     * in place; 0: as many as its size needs */
};

/*
 * fat_tree_new - an empty tree (the root directory only).
 * @timestamp: seconds since the epoch given to directories created implicitly as parents and
 *             to the volume-label entry
 *
 * Returns: the tree, or NULL when out of memory. Free with fat_tree_free().
 */
struct fat_tree *fat_tree_new(int64_t timestamp);

/*
 * fat_tree_expect - makes room in @t's index for @nodes files and directories at once, so
 * that a caller who knows how many it will add does not have the index grown (held twice)
 * as they come. The adds that go beyond still work.
 *
 * Returns: 0 or -ENOMEM.
 */
int fat_tree_expect(struct fat_tree *t, size_t nodes);

/* fat_tree_free - frees @t and every node. Accepts NULL. */
void fat_tree_free(struct fat_tree *t);

/*
 * fat_tree_add_dir - adds a directory (and any missing parents).
 * @t:    the tree
 * @path: "/a/b"; adding an existing directory again updates its metadata; "/" is a no-op
 * @m:    metadata (NULL: timestamp of the tree, no attributes)
 * @d:    messages
 *
 * Names are checked when the tree is laid out (fat_write(), fat_min_size()).
 * Returns: 0, -EEXIST/-EINVAL with a message (a file is in the way), -ENOMEM.
 */
int fat_tree_add_dir(struct fat_tree *t, const char *path, const struct fat_meta *m,
		     struct diag *d);

/*
 * fat_tree_add_file - adds a file (and any missing parent directories).
 * @t:    the tree
 * @path: "/a/b.txt"; must not exist yet
 * @size: file size in bytes (less than 4 GiB)
 * @src:  where its bytes come from (copied; unused when @size is 0)
 * @m:    metadata (NULL: timestamp of the tree, no attributes)
 * @d:    messages
 *
 * Returns: 0, -EEXIST/-EINVAL/-EFBIG with a message naming the path, or -ENOMEM.
 */
int fat_tree_add_file(struct fat_tree *t, const char *path, uint64_t size,
		      const struct fat_source *src, const struct fat_meta *m, struct diag *d);

/*
 * fat_params_for_tree - fat_params() for a volume that is to hold @t.
 * @t:          the tree (its names are checked here)
 * @o:          settings; when root_entries is 0, root_entries_min is set from @t's root
 * @vol_bytes, @vol_offset, @ret, @d: as for fat_params()
 *
 * A default cluster size (and FAT_AUTO's type) is the first in fat_params()'s order that also
 * holds @t (so many small files get small clusters); when none does, fat_params()'s. Then
 * checks that @t fits: the FAT12/16 root directory's entries (long names included) against
 * root-entries, and the clusters the files and folders need against the volume's, with an
 * error that gives both numbers and the smallest volume that holds them.
 * With @o->data_align_lower, when @o->data_align leaves too little room, the largest data
 * alignment below it that works and is at least the volume's cluster size is taken, with a
 * note (so clusters stay aligned to their size; the geometry of every volume that works with
 * @o->data_align stays as it is); when none does, the error names the padding and the
 * data-align that would leave the room, if one does. fat_min_size() lowers it only where no
 * volume size can reach it (padding past 65535 reserved sectors), by the same rule.
 *
 * Returns: 0, or -EINVAL with a message in @d.
 */
int fat_params_for_tree(struct fat_tree *t, const struct fat_opts *o, uint64_t vol_bytes,
			uint64_t vol_offset, struct fat_geom *ret, struct diag *d);

/*
 * fat_reached_data_align - the data alignment a volume of @vol_bytes at @vol_offset gets with
 * the settings @o and files that take @need clusters (with the cluster size @o sets):
 * @o->data_align where fat_params() accepts it and leaves @need clusters; with
 * @o->data_align_lower, else the one fat_params_for_tree() lowers it to (the largest half, down
 * to the volume's cluster size, that works); else 0. What `inspect` judges a volume's data area
 * against, by the builder's own rule, with @need the clusters in use on the image.
 */
uint64_t fat_reached_data_align(const struct fat_opts *o, uint64_t vol_bytes, uint64_t vol_offset,
				uint64_t need);

/*
 * fat_min_size - the smallest volume that holds @t with the settings @o.
 * @t:          the tree
 * @o:          settings (as for fat_params_for_tree())
 * @vol_offset: the volume's byte offset on the disk (matters with data-align)
 * @ret_bytes:  smallest volume size in bytes (a multiple of 512) for which
 *              fat_params_for_tree() succeeds; with FAT_AUTO and no cluster size, also the
 *              type the volume would get without the files: not FAT12 (FAT32 when @o->esp)
 * @d:          messages
 *
 * Volumes grow from 8 KiB, doubling, then the edge is bisected (the result holds @t; a
 * volume a little smaller may too where the cluster size steps up). A failure that a larger
 * volume cannot cure (settings that clash, data-align padding past 65535 reserved sectors,
 * too many clusters for a forced type, a root directory over a root-entries set by hand) is
 * reported at once with its cause.
 *
 * Returns: 0, or -EINVAL with a message in @d.
 */
int fat_min_size(struct fat_tree *t, const struct fat_opts *o, uint64_t vol_offset,
		 uint64_t *ret_bytes, struct diag *d);

/*
 * fat_write - writes the volume.
 * @t:          the tree (its names are checked and short names assigned here)
 * @g:          the geometry from fat_params() or fat_sd_format()
 * @fd:         the output, already sized and zero where nothing is written (a sparse file)
 * @vol_offset: byte offset of the volume in @fd
 * @d:          messages
 *
 * Writes only what is not zero, each byte once, with pwrite; file data goes from its source
 * through one buffer (shared blocks where the file system can, FICLONERANGE), leaving
 * all-zero blocks as holes. Directories are sorted by the UTF-8 bytes of their names, `first` nodes
 * first; clusters are given in that order, depth first, so every file is contiguous.
 * Names: a long-name (LFN) entry only when the name is not a plain 8.3 name (all-lower-case
 * base or extension use the NT case flags instead); short names follow Windows NT (basis,
 * ~1..~4, then 2 characters + 4 hex digits of Windows' hash + ~1); characters outside ASCII
 * become '_' in short names (no OEM code page). Names are compared as FAT does with a fixed
 * upper-case table (ASCII, Latin-1, Latin Extended-A, Greek, Cyrillic).
 *
 * Returns: 0, or a negative errno with a message in @d.
 */
int fat_write(struct fat_tree *t, const struct fat_geom *g, int fd, uint64_t vol_offset,
	      struct diag *d);

/* Asked by fat_write_or_stop() during its long loops: true stops the write. */
typedef bool (*fat_stop_fn)(void *ctx);

/*
 * fat_write_or_stop - fat_write() into the file named @image in messages (may be NULL) that
 * asks @stop(@stop_ctx) (may be NULL) before each file and after each MiB of file data, so
 * that a large volume stops within moments.
 * Returns: as fat_write(), or -EINTR (no message) when @stop said so.
 */
int fat_write_or_stop(struct fat_tree *t, const struct fat_geom *g, int fd, uint64_t vol_offset,
		      const char *image, fat_stop_fn stop, void *stop_ctx, struct diag *d);

/*
 * fat_tree_written_below - during fat_write_or_stop(), as its @stop is asked (before each
 * file, and after each chunk of a file's bytes):
 * the volume's bytes below this offset are written and will not be written again (the boot
 * sectors, the FATs and every folder are written first, then the files in the order of
 * their clusters); once it has returned 0, the volume's size. Deferred files (archive
 * entries written later by their own pass) are not counted: their clusters are passed over.
 */
uint64_t fat_tree_written_below(const struct fat_tree *t);

/*
 * fat_tree_file_offset - where the bytes of file @path go (after fat_write()).
 * @t:          the tree, written by fat_write()
 * @path:       the file's FAT path exactly as it was added
 * @ret_offset: byte offset of its first byte from the start of the volume (its clusters are
 *              contiguous); for an empty file, 0
 *
 * Returns: 0, -ENOENT (no such file) or -EINVAL (@t not written yet).
 */
int fat_tree_file_offset(const struct fat_tree *t, const char *path, uint64_t *ret_offset);

/* Where a file's bytes and its directory entry are (fat_tree_file_place()). */
struct fat_place {
	uint64_t data;  /* byte offset of its first cluster from the volume's start (0:
				it has none) */
	uint64_t room;  /* bytes its clusters hold (contiguous) */
	uint64_t entry; /* byte offset of its short directory entry (fatgen103 §6: its
				DIR_FileSize is the 4 bytes at 28) */
};

/*
 * fat_tree_file_place - where file @path (exactly as it was added) lies, after fat_write().
 * Returns: 0, -ENOENT (no such file) or -EINVAL (@t not written yet).
 */
int fat_tree_file_place(const struct fat_tree *t, const char *path, struct fat_place *ret);

/*
 * A file whose content each card sets anew (a per-card file), in place: its clusters
 * first_cluster .. first_cluster + clusters - 1 stay given to it whatever its length; a
 * content of L bytes chains the first ceil(L / cluster_size) of them and leaves the others
 * free in the FAT (0), so that every card's volume is consistent. card.c.
 */
struct fat_card_file {
	enum fat_type type;
	uint32_t cluster_size;
	uint32_t first_cluster;
	uint32_t clusters;
};

/* Byte offset (from a FAT's first byte) and length of the part of a FAT that
 * fat_card_chain() sets. */
uint64_t fat_card_fat_start(const struct fat_card_file *f);
uint64_t fat_card_fat_len(const struct fat_card_file *f);

/* The clusters that a content of @len bytes (at most clusters * cluster_size) uses. */
uint32_t fat_card_used(const struct fat_card_file *f, uint64_t len);

/* Sets the entries of @f's clusters for a content of @len bytes in @fat, which holds the
 * fat_card_fat_len() bytes from fat_card_fat_start() (bits outside them are kept). */
void fat_card_chain(const struct fat_card_file *f, uint64_t len, uint8_t *fat);

/* Sets the first cluster and the size of @f's short directory entry @e for @len bytes. */
void fat_card_entry(const struct fat_card_file *f, uint64_t len, uint8_t e[32]);

/* Sets the free cluster count of the FAT32 FSInfo sector @s (fatgen103 §5: FSI_Free_Count). */
void fat_card_fsinfo(uint8_t s[FAT_SECTOR], uint32_t free_count);

/*
 * fat_tree_used_bytes - how much of the volume fat_write() gave meaning to: from its start
 * through the reserved sectors, every FAT (whole), the FAT12/16 root directory and the
 * last cluster a file or folder uses (clusters are given from 2 upwards, without gaps).
 * What follows is free space, which may hold anything.
 * Returns: that byte count, or 0 when @t has not been written.
 */
uint64_t fat_tree_used_bytes(const struct fat_tree *t);

/*
 * fat_path_key - @path folded the way FAT compares names (upper case by FAT's own fixed
 * table, the same on every machine and locale), so that two paths FAT sees as equal have
 * equal keys. Returns a new string (free() it), or NULL when out of memory.
 */
char *fat_path_key(const char *path);

/* ---- Reader ---- */

/* An opaque, opened FAT volume. */
struct fat_vol;

/* What the boot sector says, after validation. */
struct fat_info {
	enum fat_type type;
	uint32_t bytes_per_sector;
	uint32_t cluster_size; /* bytes */
	uint32_t fats;
	uint32_t reserved;     /* sectors */
	uint32_t root_entries; /* 0 on FAT32 */
	uint32_t fat_sectors;
	uint32_t clusters;
	uint64_t data_offset; /* byte offset of cluster 2 from the volume start */
	uint32_t hidden_sectors;
	uint32_t total_sectors;
	uint32_t volume_id;
	char label[12]; /* boot sector label (not the root's label entry), trailing
				   * spaces removed; empty without the 0x29 extended signature */
	char oem_name[9];
};

/* One directory entry as the reader reports it. */
struct fat_dirent {
	char name[1024];     /* long name in UTF-8 (or the short name when there is none) */
	char short_name[13]; /* "NAME.EXT" */
	uint8_t attrs;
	uint32_t size;
	uint32_t first_cluster;
	int64_t mtime; /* seconds since the epoch (DOS time read as UTC) */
};

/*
 * fat_boot_sector_claimed - whether the sector @s claims to be a FAT boot sector: signature
 * 55 AA, a jump at byte 0 and "FAT" where FAT12/16 or FAT32 keep BS_FilSysType. A volume
 * that claims it but fails fat_vol_open() is a damaged FAT volume, not something else.
 */
bool fat_boot_sector_claimed(const uint8_t s[FAT_SECTOR]);

/*
 * fat_boot_sector_valid - whether the sector @s holds a valid BPB (fatgen103 §3.1): signature
 * 55 AA, a jump instruction, 512..4096 bytes per sector, a power of two sectors per cluster,
 * reserved sectors, 1 to 4 FATs, a total sector count, a FAT size and a media byte. Reads
 * nothing else: the volume behind it may still be damaged.
 */
bool fat_boot_sector_valid(const uint8_t s[FAT_SECTOR]);

/*
 * fat_vol_open - opens the FAT volume at @offset of @fd and validates its boot sector.
 * @fd:     file or block device (borrowed; must outlive the volume)
 * @offset: byte offset of the volume
 * @size:   bytes available from @offset (0: unknown; else the volume must fit)
 * @ret:    the opened volume, freed with fat_vol_close()
 * @d:      messages
 *
 * Returns: 0, -EINVAL with a message for a bad boot sector, -EIO/-errno for read errors.
 */
int fat_vol_open(int fd, uint64_t offset, uint64_t size, struct fat_vol **ret, struct diag *d);

/* fat_vol_close - frees @v. Accepts NULL. */
void fat_vol_close(struct fat_vol *v);

/* fat_vol_info - the validated parameters of @v (borrowed, valid until fat_vol_close()). */
const struct fat_info *fat_vol_info(const struct fat_vol *v);

/*
 * fat_vol_free_clusters - counts the free clusters in the first FAT of @v (entries that are 0),
 * reading it 1 MiB at a time (a hole of an image file reads as free without being read).
 * Returns: 0, or -EIO/-errno with a message.
 */
int fat_vol_free_clusters(struct fat_vol *v, uint32_t *ret_free, struct diag *d);

/* What fat_vol_count_clusters() counts in the first FAT (cluster entries 2..clusters + 1). */
struct fat_cluster_count {
	uint32_t free;    /* entries that are 0 */
	uint32_t chained; /* links of a chain: a next cluster in range, or end of chain (not a
			   * bad-cluster mark, a reserved value or one past the last cluster) */
};

/*
 * fat_vol_count_clusters - as fat_vol_free_clusters(), counting also the entries that are
 * links of a chain: the clusters a file or folder may hold, where a damaged FAT has other
 * values too. Returns: 0, or -EIO/-errno with a message.
 */
int fat_vol_count_clusters(struct fat_vol *v, struct fat_cluster_count *ret, struct diag *d);

/*
 * fat_vol_list - calls @fn for each entry of the directory @path ("/" for the root), in
 * on-disk order, skipping ".", "..", deleted entries and the volume label. Long names are
 * reassembled (checksum and ordinals checked; a broken LFN falls back to the short name).
 * @fn returns 0 to go on, anything else stops the walk and is returned; it may itself call
 * fat_vol_list() and fat_vol_read() on @v (to walk a tree). Each nested walk holds one
 * cluster-sized buffer.
 *
 * Returns: 0, what @fn returned, -ENOENT/-ENOTDIR/-EINVAL with a message, or -EIO.
 */
int fat_vol_list(struct fat_vol *v, const char *path,
		 int (*fn)(void *ctx, const struct fat_dirent *e), void *ctx, struct diag *d);

/* What fat_vol_walk() calls; either may be NULL. Each returns 0 to go on; anything else
 * stops the walk and is returned. */
struct fat_walk_fns {
	/* before the entries of each folder below the first, with the folder's path */
	int (*folder)(void *ctx, const char *path);
	/* for each entry of each folder, as fat_vol_list() calls its @fn */
	int (*entry)(void *ctx, const struct fat_dirent *e);
};

/*
 * fat_vol_walk - lists the folder @path and every folder below it: a folder's entries, then
 * each folder in it in turn (depth first, in on-disk order). One pass over the directory
 * clusters: each folder is listed from its entry's first cluster, never looked up again by
 * path. Folders whose clusters are another folder's, or their own (a loop), are an error, as
 * are folders nested more than @depth_max below @path. Holds a bit per cluster and the names
 * of the folders still to list.
 *
 * Returns: 0, what a function of @fns returned, -ENOENT/-ENOTDIR/-EINVAL with a message
 * (naming the folder), -ENOMEM with a message, or -EIO.
 */
int fat_vol_walk(struct fat_vol *v, const char *path, unsigned depth_max,
		 const struct fat_walk_fns *fns, void *ctx, struct diag *d);

/* A run of clusters a volume keeps for a file beyond its chain: a per-card file's reserve,
 * which the build allocates whole and chains only as far as the content goes. */
struct fat_run {
	uint32_t first, clusters;
};

/*
 * fat_vol_walk_held - fat_vol_walk() of the root, calling @fns, and counts into *@ret_held
 * the clusters the tree holds: each file's and folder's chain (FAT32's root's too) to its
 * end-of-chain mark; into *@ret_kept the clusters of the runs @keep (@n_keep of them) that
 * no chain holds. Each cluster counts once: a chain
 * that loops, or runs into clusters already counted, ends there. A file whose chain breaks
 * (a free, bad or out-of-range entry before its end) holds as many clusters as its size
 * needs. Costs a read of each FAT entry of the chains and a bit per cluster.
 *
 * Returns: as fat_vol_walk().
 */
int fat_vol_walk_held(struct fat_vol *v, unsigned depth_max, const struct fat_walk_fns *fns,
		      void *ctx, const struct fat_run *keep, size_t n_keep, uint64_t *ret_held,
		      uint64_t *ret_kept, struct diag *d);

/*
 * fat_vol_read - calls @fn with the bytes of the file @path, in order, in pieces of at most a
 * cluster. Path components are matched case-insensitively against long and short names.
 *
 * Returns: 0, what @fn returned when not 0, -ENOENT/-EISDIR/-EINVAL with a message
 * (a cluster chain that is short, loops or leaves the volume), or -EIO.
 */
int fat_vol_read(struct fat_vol *v, const char *path,
		 int (*fn)(void *ctx, const void *buf, size_t len), void *ctx, struct diag *d);

/* ---- Encoding helpers (exposed for tests and for `sdimg inspect`) ---- */

/*
 * fat_dos_time - encodes @t (+@ns) as DOS date, time (2 s) and tenths (0..199, 10 ms units),
 * in UTC, clamped to 1980-01-01 00:00:00 .. 2107-12-31 23:59:59.
 * Returns: 1 when the time was clamped, else 0.
 */
int fat_dos_time(int64_t t, uint32_t ns, uint16_t *ret_date, uint16_t *ret_time,
		 uint8_t *ret_tenth);

/* fat_dos_time_decode - seconds since the epoch of a DOS date and time read as UTC. */
int64_t fat_dos_time_decode(uint16_t date, uint16_t time);

#endif
