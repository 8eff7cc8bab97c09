/* SPDX-License-Identifier: MIT */
/*
 * The state of one build and its steps (private to mkimage/builder/): build.c joins them.
 * Beside it: output.h (the output files), map.h (what must read back as written),
 * tables.h (the partition tables) and stop.h (progress and the signals that stop a build).
 */
#ifndef SDIMG_MKIMAGE_BUILDER_PRIV_H
#define SDIMG_MKIMAGE_BUILDER_PRIV_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "common/bmap.h"
#include "common/diag.h"
#include "common/fileid.h"
#include "exfat/exfat.h"
#include "fat/fat.h"
#include "layouts/layouts.h"
#include "mkimage/builder/builder.h"
#include "mkimage/builder/map.h"
#include "mkimage/builder/stop.h"
#include "mkimage/contents/contents.h"
#include "plan/plan.h"

/* ---- copy.c: bytes of a host file into the image ---------------------------------------- */

/*
 * Copies bytes [@from, @to) of the host file @src_fd into the image @b writes, at
 * @dst_offset, a range nothing was written to before: its holes and its all-zero blocks
 * are left out (common/sparse.h), the image reads their zeros anyway. @what names the
 * source in messages; a failure to write names the image. Each allocated extent of the
 * source, zeros or not, is recorded in @map (when not NULL): an allocated extent of a file
 * system image may hold zeros that matter. build_interrupted() is asked after each
 * SPARSE_CHUNK. Returns 0 or a negative errno with a message in b->d (-EINTR: interrupted).
 */
struct build;
int build_copy_file(struct build *b, int src_fd, uint64_t from, uint64_t to, uint64_t dst_offset,
		    const char *what, struct build_map *map);

/*
 * Writes @len bytes of value @byte (zeros, or a NOR flash's erased 0xff) into the image @b
 * writes, at @offset, with write(), so that they are data of the image file (its extents say
 * so to a flash without a bmap), not a hole. @what names the region in messages;
 * build_interrupted() is asked after each MiB. Returns 0 or a negative errno with a message
 * in b->d (-EINTR: interrupted).
 */
int build_write_bytes(struct build *b, uint64_t offset, uint64_t len, uint8_t byte,
		      const char *what);

/* ---- direct.c: input files the sparse writer reads itself ----------------------------- */

/* Bytes [@at, @at + @len) of the image are those of the file @fd from @src_off on. */
struct build_direct {
	uint64_t at, len, src_off;
	int fd;         /* (owned) */
	char *path;     /* its name in messages (owned) */
	struct stat st; /* as it was when copied: it must be so when read */
};

/* The most files held open for the sparse writer; past it, bytes are copied as before. */
#define BUILD_DIRECT_MAX 32

struct build_directs {
	bool on; /* build_direct_wanted(): build_copy_file() records instead of copying */
	struct build_direct *v;
	size_t n, cap;
};

/* Whether a build of @o leaves its input files' bytes out of the scratch image: when the
 * sparse files are the only thing that reads it back. */
bool build_direct_wanted(const struct build_options *o, bool per_card);

/* Records that bytes [@from, @to) of @src_fd (named @path) are the image's from @at on, the
 * file held open (a descriptor of its own). Returns 0 or a negative errno: -EMFILE or
 * -ENFILE when no descriptor is left, and the caller copies the bytes instead. */
int build_direct_add(struct build *b, int src_fd, uint64_t from, uint64_t to, uint64_t at,
		     const char *path);

/* The image as the sparse writer reads it: the scratch file, and the files recorded. */
struct simg_image;
void build_direct_image(struct build *b, struct simg_image *ret);

/* Whether every file recorded is still as it was (its size and modification time): 0, or
 * -EINVAL with a message naming it. */
int build_direct_check(struct build *b);
void build_direct_release(struct build *b);

/* ---- read_inputs.c: what a raw region or raw partition writes ------------------------------ */

/* The file a raw input's path named when it was measured, and its size then. */
struct build_listed {
	struct fileid id;
	uint64_t size;
};

/* The from, skip, fill and holes of one raw region or raw partition, as the layout gives
 * them, with the resolved path of `from` (borrowed from the build and the layout). */
struct build_input {
	char name[300];             /* "raw 'spl'", "partition 'root'" */
	const char *path;           /* the resolved `from`, or NULL */
	struct build_listed listed; /* the file @path named when it was measured */
	uint64_t skip;
	bool fill;         /* every byte outside the holes written: from's, then fill_byte */
	uint8_t fill_byte; /* what fill writes after from (or everywhere without from) */
	bool dense;        /* sparse = false: the zeros of from written and mapped too */
	const struct layout_range *holes; /* offsets from the region's start */
	size_t n_holes;
	struct layout_loc skip_loc, holes_loc;
};

/* What one layout partition needs while it is built. */
struct part_state {
	char *from;                      /* raw: the host image file (owned) */
	struct build_listed from_listed; /* raw: which file it was when measured */
	uint64_t from_size;              /* raw: its bytes after `skip` */
	struct content content;          /* FAT, exFAT: the files, overlaid */
	struct fat_tree *tree;           /* FAT: the tree fat/ writes (owned) */
	struct fat_opts opts;            /* FAT: the layout's fat { } settings */
	struct fat_geom geom;            /* FAT: the geometry chosen for the planned size */
	struct fat_sd_layout sd;         /* FAT with sd-format */
	struct exfat_tree *exfat_tree;   /* exFAT: the tree exfat/ writes (owned) */
	struct exfat_opts exfat_opts;    /* exFAT: the layout's exfat { } settings */
	uint8_t exfat_guid[16];          /* exFAT: its Volume GUID, which exfat_opts points at */
	struct exfat_geom exfat_geom;    /* exFAT: the geometry chosen for the planned size */
	struct exfat_sd_layout exfat_sd; /* exFAT with sd-format */
	uint64_t ext4_inodes;            /* ext4 size = auto without inodes: the count measured
					  * for it (0: the default) */
	/* ext4 size = auto counted from its tree's walk (ext4_count.c), not by a trial: what
	 * the count found, for the build to check, and the trial volume's fewest free blocks
	 * between used ranges (ext4_free_stretch()) */
	bool ext4_counted;
	uint64_t ext4_count_blocks, ext4_count_inodes, ext4_trial_stretch;
};

/* How a build again (build_image_file()) sizes an ext4 size = auto partition whose count
 * the build before found other than what it took (ext4_count.c): by a trial, or, where
 * that build could say what a trial would count, by that (@known: the blocks and inodes
 * past an empty volume's, and the empty volume's inodes). */
struct build_ext4_redo {
	bool trial, known;
	uint64_t blocks, inodes, reserved_inodes;
};

struct uboot_env;
struct build_follow;
struct build {
	const struct layout *l;
	const struct build_options *o;
	struct diag *d;
	struct sha256 *sha;       /* the hasher of ids, the bmap and the manifest (owned) */
	struct part_state *parts; /* one per layout partition */
	uint64_t *part_sizes;     /* what the contents need, for size = auto */
	uint64_t *part_starts;    /* starts sd-format dictates */
	char **raw_from;          /* host file of each raw region (owned; NULL with fill) */
	uint64_t *raw_sizes;      /* each raw region's size: its own, or its file's less skip */
	struct build_listed *raw_listed; /* which file each raw region's was when measured */
	struct uboot_env *raw_envs;      /* each raw region's U-Boot environment as written (owned;
				       empty without uboot-env) */
	uint8_t *mbr_types;              /* resolved MBR type of each partition */
	struct plan *plan;
	struct build_file image;                    /* the raw image, written in place */
	struct build_file compressed, bmap, sha256; /* what build_finish() writes */
	struct build_file *simg;                    /* the sparse files (owned) */
	uint8_t (*simg_sha)[32]; /* the SHA-256 of each, with a checksum file (owned) */
	size_t n_simg;
	struct build_file cards; /* IMAGE.cards.json, when the layout has per-card values */
	char *cards_path;        /* its name (owned) */
	struct build_map map;
	struct build_directs direct; /* input files left out of the scratch image (owned) */
	struct build_follow *follow; /* the digests taken while writing (owned; may be NULL) */
	struct timespec t0;
	bool tty, progress_shown, signals_blocked;
	bool per_card; /* the layout has per-card values (a manifest reads the image) */
	bool placed;   /* every output is at its name: the build has succeeded */
	struct build_ext4_redo *ext4_redo; /* per partition (build_write_ext4()) */
	bool redo;                         /* a build again is wanted: an ext4 count was wrong */
	sigset_t stop_signals; /* SIGINT, SIGTERM, SIGHUP less those ignored at the start */
	sigset_t old_mask;
};

/* read_inputs.c */
void build_input_of_raw(const struct build *b, size_t i, struct build_input *ret);
void build_input_of_part(const struct build *b, size_t i, struct build_input *ret);
int build_state_init(struct build *b);
void build_state_release(struct build *b);
int build_read_inputs(struct build *b);

/* ---- feed.c: the written image into its hashers and compressor ----------------------- */

#define BUILD_FEED_CHUNK (1u << 20)

struct sha256;
struct build_compressor;
struct build_feed {
	struct build *b;
	struct diag *d;             /* where a failure is told */
	atomic_bool *stop;          /* on a thread of its own: set when the build stops (else
				       build_interrupted() is asked) */
	uint64_t size;              /* the image's */
	struct sha256 *image_sha;   /* the image's SHA-256, with a checksum file */
	struct build_compressor *z; /* with a compressed copy */
	struct sha256 *range_sha;   /* with a bmap: the range being hashed */
	struct build_map *map;      /* the ranges, in whole blocks, sorted (build_map_to_blocks) */
	size_t range;               /* the first of them not hashed yet */
	uint8_t *buf;               /* @chunk bytes read */
	uint8_t *zeros;             /* @chunk zero bytes */
	size_t chunk;               /* BUILD_FEED_CHUNK, or less on a thread that follows */
};

/* Feeds [@from, @to) of the image to @f's hashers and compressor: its data extents read, its
 * holes as zeros; the parts inside @f->map's ranges into their digests, each range's digest
 * taken when its last byte is fed. Returns 0, -EINTR (stopped), or another negative errno
 * with a message in @f->d. */
int build_feed_walk(struct build_feed *f, uint64_t from, uint64_t to);

/* build_feed_walk() of each of @f->map's ranges alone. */
int build_feed_walk_ranges(struct build_feed *f);

/* ---- follow.c: the digests taken while the image is written -------------------------- */

/* With --sha256 (the raw image) or --bmap, and a thread to be had: starts the thread that
 * hashes the image behind the writers, in b->follow (owned). Without, b->follow stays NULL
 * and build_finish() does it all after the writers, as it would. */
void build_follow_start(struct build *b);

/* The build's word that every byte below a point is written for good: that of the lowest
 * partition not written yet (none below the first partition until this is first called),
 * with @part being written and its bytes below @written (from its start) final, or with
 * @written UINT64_MAX, @part written whole (@part b->l->n_parts: none). The map records made
 * so far go with it: every record that starts below the point must be made by then. */
void build_follow_advance(struct build *b, size_t part, uint64_t written);

/* Every byte is written: the thread may hash to the end (before build_follow_take(), for a
 * caller with something to do meanwhile). */
void build_follow_written(struct build *b);

/* Once every byte is written and b->map is in blocks: waits for the thread and ends it. The
 * image's digest into @image_digest (*@image true), the map's ranges' into b->map (*@ranges
 * true), for each that the thread took completely and right; the rest is build_finish()'s. */
void build_follow_take(struct build *b, uint8_t image_digest[32], bool *image, bool *ranges);

/* Stops the thread, if any, and frees it (a build that failed). */
void build_follow_stop(struct build *b);

/* finish.c: one pass over the written image for the compressed copy, the bmap's range
 * checksums and the image's SHA-256; then the bmap and the checksum file. */
int build_finish(struct build *b);

/* simg_out.c: the sparse files of the image, made from the map (in whole 4 KiB blocks);
 * their SHA-256 taken with a checksum file. Returns 0 or a negative errno with a message. */
int build_write_simg(struct build *b);
void build_simg_release(struct build *b);

/* compress.c: a compressed copy, streamed */
struct build_compressor;

/* Starts compressing @size bytes into @fd (named @path in messages); the compressed bytes
 * also go into the digest in progress of @sha when it is not NULL. Returns 0 or a negative
 * errno. */
int build_compressor_new(enum build_compression kind, int level, uint64_t size, int fd,
			 const char *path, struct sha256 *sha, struct diag *d,
			 struct build_compressor **ret);
int build_compressor_write(struct build_compressor *z, const void *buf, size_t len, struct diag *d);
int build_compressor_finish(struct build_compressor *z, struct diag *d);
void build_compressor_free(struct build_compressor *z);

/* read_inputs.c: partition @i of @l (sd-format = true) as the SD formatter lays it out.
 * Returns 0 or -EINVAL with the messages in @d. */
int build_sd_format(const struct layout *l, size_t i, struct sha256 *sha, struct diag *d,
		    struct fat_sd_layout *ret);

/* exfat_part.c: an exFAT partition. */
/* The exfat_opts of partition @p's exfat { } (the volume serial from the seed unless set),
 * pointing at @guid (16 bytes) for its Volume GUID. Returns 0 or -EIO (@sha failed). */
int build_exfat_opts(const struct layout *l, const struct layout_partition *p, struct sha256 *sha,
		     struct exfat_opts *o, uint8_t guid[16]);
/* Partition @i of @l (exfat { sd-format = true }) as the SD formatter lays out an SDXC card.
 * Returns 0 or -EINVAL with the messages in @d (a card that is not SDXC says what is). */
int build_sd_format_exfat(const struct layout *l, size_t i, struct sha256 *sha, struct diag *d,
			  struct exfat_sd_layout *ret);
/* size = auto: the smallest volume at byte @start that holds partition @i's files. */
int build_exfat_min_size(struct build *b, size_t i, uint64_t start, uint64_t *ret);
/* The geometry of partition @i for its planned region @r, and its MBR type byte. */
int build_choose_exfat(struct build *b, size_t i, const struct plan_region *r);
/* The volume, the data of its archives, and its used bytes into the map. */
int build_write_exfat(struct build *b, size_t i);
/* The exFAT part of partition @i's line in the report of build -v. */
void build_report_exfat(const struct build *b, size_t i, FILE *out);

/* sizes.c */
/* Passes fat/'s messages in @scratch on to @d, each placed at @loc of partition @p;
 * returns @rc. */
int build_relay(struct diag *d, const struct layout_partition *p, const struct layout_loc *loc,
		struct diag *scratch, int rc);
int build_plan_with_contents(struct build *b);
int build_choose_geometries(struct build *b);
/* Whether the @need bytes of raw partition @p's `from` fit its @size: 0, or -EINVAL with
 * "FILE:LINE: partition 'NAME': @what 1 KiB, the partition has 512 B" in @d (a build and
 * `sdimg plan` both say it so). */
int build_check_fits(const struct layout_partition *p, uint64_t need, uint64_t size,
		     const char *what, struct diag *d);

/* ext4_part.c: an ext4 partition built from its tree, file and dir entries, written at its
 * region of the image, its used blocks recorded in the map. */
int build_write_ext4(struct build *b, size_t i);
/* What the layout's ext4 { } says that only ext4/ can check (features). */
int build_check_ext4(struct build *b, size_t i);
/* size = auto: the smallest size (in whole units of the partition's align, at most 1 MiB)
 * whose volume holds partition @i's entries, found by trials in a scratch file. */
int build_measure_ext4(struct build *b, size_t i, uint64_t *ret);
/* ext4_count.c: what partition @i's entries take, counted from its tree's walk with
 * @params (the build's, inodes aside) and ext4's @caps (build_ext4_caps), into @ret (a file
 * longer than @longest blocks, which runs of free blocks that short may cut, counted with
 * the most extent tree blocks it can take): 0; 1 when the count does not serve the
 * partition (not one tree from a host folder, features set, a sparse file, a walk that
 * failed: a trial then says it); -EINTR or -ENOMEM. */
struct ext4_params;
struct ext4_count_sum;
int build_count_ext4(struct build *b, size_t i, const struct ext4_params *params,
		     const struct content_caps *caps, uint64_t longest, struct ext4_count_sum *ret);

/* The walk of one layout entry into an ext4 volume (ext4_part.c, ext4_archive.c). */
struct ext4_volume;
struct ext4_meta;
struct host_link;
struct ext4_pending {
	uint32_t ino;
	char *host;           /* owned */
	struct fileid listed; /* the file @host named when the walk met it, ... */
	uint64_t size;        /* ... of this many bytes */
};
struct content_filter;
struct ext4_walk {
	struct build *b;
	struct ext4_volume *v;
	const struct layout_partition *p;
	const struct layout_entry *e;
	struct content_filter *filter; /* the tree's include and exclude (NULL: none) */
	struct host_link *links;       /* host files with more than one name */
	size_t n_links, cap_links;
	struct ext4_pending *data; /* files whose bytes are written after the walk (ino 0:
				    * left out) */
	size_t n_data, cap_data;
	size_t others_owners; /* host entries whose owner or group was made root's though
				   * it is neither root nor the build's user's */
	bool host_xattrs;     /* a host entry of the tree had extended attributes */
	int proc_fds;         /* whether /proc/self/fd names the walk's folders: 0 not
			       * known yet, 1 it does, -1 it does not (a chroot) */
	int xattrs_at;        /* whether listxattrat() answers: 0 not known yet, 1 it
			       * does, -1 it does not (Linux before 6.13) */
	uid_t euid;           /* the build's user and group, asked once a tree */
	gid_t egid;
};
/* The folder at the absolute @path, made 0:0 0755 where missing. */
int build_ext4_folder_at(struct ext4_walk *w, const char *path, uint32_t *ret_ino);
/* A host file read for ext4_write_data(): its holes (SEEK_DATA, SEEK_HOLE) handed out as
 * zeros without reading them. */
struct ext4_host_reader {
	int fd;
	const char *host; /* its path, for the messages */
	struct diag *d;
	uint64_t pos;                      /* the bytes handed out so far */
	const struct ext4_pending *listed; /* the file the walk listed (NULL: not listed): one
					    * that ends before its size, or cannot be read
					    * being another, has changed since */
	uint64_t data, hole;               /* the data extent around or after @pos: [data, hole) */
};
/* ext4_read_fn over a struct ext4_host_reader whose @fd is open at its start. */
long build_ext4_read_fd(void *ctx, void *buf, size_t len);
/* ext4_folder.c: the host folder @host (@st) of a tree entry, and all below it, with
 * owners, modes, links, device nodes and extended attributes as the host has them. */
int build_ext4_folder(struct ext4_walk *w, const char *host, const struct stat *st);
/* ext4_archive.c: the archive @host of a tree entry, with owners, modes, links, device
 * nodes and extended attributes as its entries give them. */
int build_ext4_archive(struct ext4_walk *w, const char *host);
/* What ext4 holds of a tree (ext4_folder.c): everything a Linux host folder or an archive
 * gives, as it is. */
extern const struct content_caps build_ext4_caps;

/* write_regions.c */
int build_write_raw_regions(struct build *b);
int build_write_partitions(struct build *b);
void build_report_partitions(struct build *b);

/* uboot_env.c: a raw region's U-Boot environment (its layout's uboot-env { }) */
/* The variables of raw region @r: its vars file's, then the layout's, each name once, all
 * within a copy. Returns 0, -EINVAL with "FILE:LINE: ..." in @d, or -errno/-ENOMEM. */
int build_uboot_env_vars(const struct layout *l, const struct layout_raw *r, struct uboot_env *e,
			 struct diag *d);
/* @e as @env's copies (the first at @offset) into @fd, each recorded in @map (NULL: none).
 * Returns 0, -ENOSPC (it does not fit a copy), -errno or -ENOMEM. */
int build_uboot_env_write(int fd, const struct layout_uboot_env *env, uint64_t offset,
			  const struct uboot_env *e, struct build_map *map);
/* Raw region @i's environment into the image. Returns 0 or a negative errno with a message. */
int build_write_uboot_env(struct build *b, size_t i);

/* manifest.c: the per-card manifest (common/cards.h) of the written volumes, in b->cards
 * when the layout has per-card values. Returns 0 or a negative errno with a message. */
int build_write_cards(struct build *b);

/* region.c: the plan region of layout partition @i, or NULL. */
const struct plan_region *build_region_of(const struct build *b, size_t i);

#endif
