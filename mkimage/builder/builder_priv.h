/*
 * The builder's parts (private to mkimage/builder/): the state of one build and its steps,
 * derived ids, the output file, partition tables and raw copies. build.c joins them.
 */
#ifndef SDIMG_MKIMAGE_BUILDER_PRIV_H
#define SDIMG_MKIMAGE_BUILDER_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/diag.h"
#include "layouts/layouts.h"

/* ---- ids.c: every id the layout leaves unset comes from its seed -------------------- *
 * id = SHA-256 of the bytes SEED "\n" PURPOSE, PURPOSE being "disk-id" (MBR signature: the
 * first 4 bytes, little-endian), "disk-guid", "partition-uuid/NAME" (GUIDs: the first 16
 * bytes in text order with the RFC 4122 version-4 and variant bits set) or
 * "volume-id/NAME" (FAT serial: the first 4 bytes, little-endian). So
 *   printf '%s\n%s' "$SEED" "volume-id/boot" | sha256sum
 * predicts them. */
uint32_t build_id_mbr_disk(const char *seed);
void build_id_gpt_disk(const char *seed, struct layout_guid *ret);
void build_id_partition_uuid(const char *seed, const char *name, struct layout_guid *ret);
uint32_t build_id_volume(const char *seed, const char *name);

/* ---- output.c: the image file, created whole or not at all ----------------------------- */
struct build_output {
	int fd;          /* -1 when closed: start from BUILD_OUTPUT_INIT */
	char *path;      /* the final name, owned */
	char *tmp_path;  /* a named temporary file (when the file system has no O_TMPFILE) */
	uint64_t size;
};

#define BUILD_OUTPUT_INIT { .fd = -1 }

/*
 * Creates the output for @path as an empty (sparse) file of @size bytes: an unnamed file in
 * @path's folder where the file system allows it (nothing is left behind whatever happens),
 * else a hidden temporary name there. Nothing exists at @path until build_output_commit().
 * Returns 0 or a negative errno with a message naming @path in @d.
 */
int build_output_create(struct build_output *o, const char *path, uint64_t size, struct diag *d);

/* fsyncs the data and puts the file at its final name (replacing an old one atomically). */
int build_output_commit(struct build_output *o, struct diag *d);

/* Removes whatever build_output_create() made; the old file at the final name stays untouched.
 * Safe after build_output_commit() and on BUILD_OUTPUT_INIT. */
void build_output_abort(struct build_output *o);

/* ---- copy.c: bytes of a host file into the image ---------------------------------------- */

/*
 * Copies the whole of the host file @src_fd (of @size bytes) to @dst_fd at @dst_offset,
 * leaving its holes as holes (SEEK_DATA/SEEK_HOLE) and moving data with copy_file_range
 * where the kernel allows (read/pwrite otherwise). @what names the source in messages.
 * Returns 0 or a negative errno with a message in @d.
 */
int build_copy_file(int src_fd, uint64_t size, int dst_fd, uint64_t dst_offset, const char *what,
		 struct diag *d);


/* ---- table.c: the partition table (MBR, EBRs, GPT), through libfdisk ------------------  */

/*
 * Writes the table the plan describes (mbr or gpt; nothing for none) into @fd, the image of
 * plan->image_size bytes named @path in messages. @mbr_types[i] is the MBR type byte of
 * layout partition i (the builder resolves `fat` by the FAT type it chose). Every id is
 * set: the layout's, or one derived from its seed. libfdisk never moves or resizes what the
 * plan decided; a relocated GPT entry array (gpt-entries) is moved afterwards and the
 * header's CRC fixed.
 * Returns 0 or a negative errno with a message in @d.
 */
int build_write_table(const struct layout *l, const struct plan *p, const uint8_t *mbr_types, int fd,
		 const char *path, struct diag *d);

/* ---- gpt_entries.c: the primary GPT entry array where the layout puts it ------------- */

/*
 * Moves the 128-entry array from LBA 2 to @entries_lba in the image @fd, zeroes where it was,
 * and updates the primary header's PartitionEntryLBA and HeaderCRC32 (UEFI 2.10, 5.3.2).
 * The backup header and array are untouched (the array's CRC does not change).
 * Returns 0 or a negative errno with a message naming @path in @d.
 */
int build_move_gpt_entries(int fd, uint64_t entries_lba, const char *path, struct diag *d);

#include <signal.h>
#include <stdbool.h>
#include <time.h>

#include "fat/fat.h"
#include "mkimage/builder/builder.h"
#include "mkimage/builder/builder_priv.h"
#include "mkimage/contents/contents.h"

/* What one layout partition needs while it is built. */
struct part_state {
	char *from;                /* raw: the host image file (owned) */
	uint64_t from_size;
	struct content content;    /* FAT: the files, overlaid */
	struct fat_tree *tree;     /* FAT: the tree fat/ writes (owned) */
	struct fat_opts opts;      /* FAT: the layout's fat { } settings */
	struct fat_geom geom;      /* FAT: the geometry chosen for the planned size */
	struct fat_sd_layout sd;   /* FAT with sd-format */
};

struct build {
	const struct layout *l;
	const struct build_options *o;
	struct diag *d;
	struct part_state *parts;  /* one per layout partition */
	uint64_t *part_sizes;      /* what the contents need, for size = auto */
	uint64_t *part_starts;     /* starts sd-format dictates */
	char **raw_from;           /* host file of each raw region (owned) */
	uint64_t *raw_sizes;
	uint8_t *mbr_types;        /* resolved MBR type of each partition */
	struct plan *plan;
	struct build_output out;
	struct timespec t0;
	bool tty, progress_shown, signals_blocked;
	sigset_t old_mask;
};

/* build_state.c */
int build_state_init(struct build *b);
void build_state_release(struct build *b);
int build_read_inputs(struct build *b);

/* build_plan.c */
int build_plan_with_contents(struct build *b);
int build_choose_geometries(struct build *b);

/* build_write.c */
int build_write_raw_regions(struct build *b);
int build_write_partitions(struct build *b);
void build_report_partitions(struct build *b);

/* build.c */
void build_progress(struct build *b, const char *what, const char *name);
bool build_interrupted(struct build *b);

/* The plan region of layout partition @i, or NULL. */
const struct plan_region *build_region_of(const struct build *b, size_t i);

#endif
