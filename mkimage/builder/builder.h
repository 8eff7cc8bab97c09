/* SPDX-License-Identifier: MIT */
/*
 * builder: the whole card image a layout describes, and what ships with it (the interface
 * of mkimage/builder/; `sdimg build`):
 *   build.c          the steps in order: inputs, plan, tables, regions, volumes, finish
 *   read_inputs.c    contents gathered and checked before anything is written
 *   sizes.c          sizes from the measured contents, the final plan, FAT geometries
 *   write_table.c    the partition table: MBR (and its EBRs) or GPT, through libfdisk
 *   gpt_entries.c    the primary GPT entry array moved where the layout puts it
 *   write_regions.c  raw regions, raw partitions and FAT volumes into the image
 *   copy.c           a host file into the image, holes kept
 *   ids.c            every id the layout leaves unset, derived from its seed; the files
 *                    that name them (ids = true)
 *   map.c            what must read back as written (the bmap's ranges)
 *   manifest.c       IMAGE.cards.json: where the per-card files lie (common/cards.h)
 *   finish.c         the one pass after writing: compressed copy, bmap, checksums
 *   compress.c       zstd, xz and gzip streams
 *   bmap_text.c      the block map in bmaptool's format
 *   simg_out.c       the image as Android sparse files (common/simg.h), from the map
 *   output.c         every output file appears at its name together with the others, or none
 *   stop.c           progress on the terminal, and the signals that stop a build
 *   region.c         where the plan puts each layout partition
 */
#ifndef SDIMG_MKIMAGE_BUILDER_H
#define SDIMG_MKIMAGE_BUILDER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/diag.h"
#include "layouts/layouts.h"

enum build_verbosity { BUILD_QUIET, BUILD_NORMAL, BUILD_VERBOSE };

enum build_compression {
	BUILD_COMPRESS_NONE,
	BUILD_COMPRESS_ZSTD,
	BUILD_COMPRESS_XZ,
	BUILD_COMPRESS_GZIP
};

/* The levels used when none is given: those of the zstd, xz and gzip programs. */
#define BUILD_ZSTD_LEVEL 3
#define BUILD_XZ_LEVEL 6
#define BUILD_GZIP_LEVEL 6

struct build_options {
	const char *output; /* the raw image's name (also when it is not written) */
	bool write_raw;     /* false: only the compressed image is written */
	enum build_compression compress;
	int level;              /* the compressor's level */
	const char *compressed; /* the compressed image's name, with compress */
	const char *bmap;       /* the block map to write, or NULL */
	const char *sha256;     /* the checksum file to write, or NULL */
	const char *simg;       /* the Android sparse image to write (NAME.simg), or NULL */
	uint32_t simg_block_size;
	bool simg_crc;          /* a CRC32 chunk at the end of each sparse file */
	uint64_t simg_max_size; /* 0, or the bytes of each sparse file at most: then the
				 * files are NAME.0.simg, NAME.1.simg, ... */
	enum build_verbosity verbosity;
	FILE *report; /* where the summary goes (stdout) */
};

/*
 * Builds the image of @l: the partition table, raw regions and each partition's contents,
 * in one sparse file, and what o asks beside it (a compressed copy, a bmap, a checksum
 * file). Every output appears only when all are complete.
 * Returns 0, or a negative errno with the problems in @d (no output is left at its name,
 * and older files there are untouched).
 * SIGINT, SIGTERM and SIGHUP (those not ignored) stop the build, nothing left behind; once
 * the outputs are being put in place they can no longer change the outcome: on success
 * they are left blocked (the caller is about to exit, and one that came dies with the
 * process), on failure a pending one ends the process before this returns.
 */
int build_image_file(const struct layout *l, const struct build_options *o, struct diag *d);

/*
 * What the plan of @l takes from the host before any contents are gathered (`sdimg plan`),
 * as a build takes it: in @raw_sizes (one per raw region) each region's size, its `size`
 * or else its `from` file's; in @part_sizes (one per partition) a raw partition's `auto`
 * size, its `from` file's (before the rounding up to align); in @part_starts (one per
 * partition) the start the SD formatter gives a partition with sd-format. 0 where the value
 * waits: for FAT contents, or for a `from` file that does not exist (yet): a warning in @d
 * then says so. A file that exists but cannot be used is an error, as it is in a build.
 * Returns 0, or a negative errno with the problems in @d.
 */
int build_plan_inputs(const struct layout *l, struct diag *d, uint64_t *raw_sizes,
		      uint64_t *part_sizes, uint64_t *part_starts);

/* The per-card manifest's name is the image's (o->output) with this added. */
#define BUILD_CARDS_SUFFIX ".cards.json"

/* ".zst", ".xz", ".gz"; "" for none. */
const char *build_compression_suffix(enum build_compression kind);

/* ---- output.c: the files of a build, all put in place together or none (also those of
 * `sdimg personalize`) ------------------------------------------------------------------ */
struct build_file {
	int fd;         /* -1 when closed: start from BUILD_FILE_INIT */
	char *path;     /* the final name, owned */
	char *tmp_path; /* a named temporary file (when the file system has no O_TMPFILE) */
	int old_fd;     /* the older file, locked while the temporary name holds it, or -1 */
};

#define BUILD_FILE_INIT                \
	{                              \
		.fd = -1, .old_fd = -1 \
	}
/* The sparse files of one build at most (--simg-max-size). */
#define BUILD_MAX_SIMG_FILES 64
/* the image, a compressed image, the bmap, the checksums, the per-card manifest, the sparse
 * files */
#define BUILD_MAX_FILES (5 + BUILD_MAX_SIMG_FILES)

/* The name of sparse file @i of @n for the sparse image @simg ("card.simg"): @simg itself
 * when @n is 0 (one file, no --simg-max-size), else "card.I.simg" (the ".simg" of @simg,
 * if it has one, after the number). Returns NULL when out of memory; free() it. */
char *build_simg_name(const char *simg, size_t i, size_t n);

/* Whether @path's last component fits its folder's file system (@what in the message:
 * "the image"): asked before the work, since only putting the file in place would tell.
 * Returns 0 or -EINVAL with a message in @d. */
int build_file_check_name(const char *path, const char *what, struct diag *d);

/*
 * Creates the file for @path (@what in messages: "the image", "the bmap"), empty, or sparse
 * of @size bytes: an unnamed file in @path's folder where the file system allows it
 * (nothing is left behind whatever happens), else a hidden temporary name there, of one
 * length whatever @path's. Either is locked while the process lives; hidden names that
 * dead builds to @path left there (no lock held) are removed first. Nothing exists at
 * @path until build_files_commit().
 * Returns 0 or a negative errno with a message naming @path in @d.
 */
int build_file_create(struct build_file *f, const char *path, const char *what, uint64_t size,
		      struct diag *d);

/*
 * fsyncs the @n files and puts each at its name, replacing older files there (each new
 * file takes the permissions of the older one it replaces); when any step fails every
 * older file is back at its name and none of the new ones is left. @stop(@stop_ctx) (may
 * be NULL) is asked once all are written out, before the first is put in place: true
 * gives -EINTR (no message). From then on nothing stops the commit but a failure.
 * Returns 0 or a negative errno with a message in @d (the files are then aborted).
 */
int build_files_commit(struct build_file **files, size_t n, bool (*stop)(void *ctx), void *stop_ctx,
		       struct diag *d);

/* Removes whatever build_file_create() made; the older file at the name stays untouched.
 * Safe after build_files_commit() and on BUILD_FILE_INIT. */
void build_file_abort(struct build_file *f);

/* ---- stop.c: the signals that stop a build (and `sdimg personalize`) ----------------- */

/* Into @set: SIGINT, SIGTERM and SIGHUP, but not one that is ignored (nohup ignores SIGHUP,
 * a shell SIGINT for a background job): it stays ignored. Held (sigprocmask()) while a
 * file has a name, they are asked for with build_stop_pending() inside every long loop. */
void build_stop_signals(sigset_t *set);

/* Whether a signal of @set is pending. */
bool build_stop_pending(const sigset_t *set);

/* ---- ids.c: every id the layout leaves unset comes from its seed (the builder derives
 * them; flash/ checks a per-card manifest's seed against its image with them) ---------- *
 * id = SHA-256 of the bytes SEED "\n" PURPOSE, PURPOSE being "disk-id" (MBR signature: the
 * first 4 bytes, little-endian), "disk-guid", "partition-uuid/NAME" (GUIDs: the first 16
 * bytes in text order with the RFC 4122 version-4 and variant bits set) or
 * "volume-id/NAME" (FAT serial: the first 4 bytes, little-endian), "exfat-volume-id/NAME"
 * (exFAT's VolumeSerialNumber, the same way), "ext4-uuid/NAME" (an ext4
 * file system's UUID, as a GUID) or "ext4-hash-seed/NAME" (its directory hash seed: the
 * first 16 bytes). So
 *   printf '%s\n%s' "$SEED" "volume-id/boot" | sha256sum
 * predicts them. */
/* Each takes the SHA-256 with @sha and returns 0, or -EIO when libcrypto failed (its diag
 * says so). */
struct sha256;
int build_id_mbr_disk(struct sha256 *sha, const char *seed, uint32_t *ret);
int build_id_gpt_disk(struct sha256 *sha, const char *seed, struct layout_guid *ret);
int build_id_partition_uuid(struct sha256 *sha, const char *seed, const char *name,
			    struct layout_guid *ret);
int build_id_volume(struct sha256 *sha, const char *seed, const char *name, uint32_t *ret);
int build_id_exfat_volume(struct sha256 *sha, const char *seed, const char *name, uint32_t *ret);
int build_id_ext4(struct sha256 *sha, const char *seed, const char *name,
		  struct layout_guid *ret_uuid, uint8_t ret_hash_seed[16]);

/*
 * The content of each `file` of @l with ids = true, its ${DISK_ID}, ${PARTUUID_NAME} and
 * ${VOLUME_ID_NAME} replaced by the ids the image gets (as a per-card file names them:
 * LAYOUT.md, "Per-card ids"); before anything measures or gathers the contents, so that a
 * size = auto sees the final text. Returns 0, -EINVAL with a message naming the file's
 * FILE:LINE in @d (an id the image has not), -EIO or -ENOMEM.
 */
int build_fill_ids(struct layout *l, struct diag *d);

#endif
