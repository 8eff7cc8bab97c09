/*
 * The builder's parts (private to mkimage/): derived ids, the output file, partition tables
 * and raw copies. cmd_build.c joins them with layouts/ and fat/.
 */
#ifndef SDIMG_MKIMAGE_BUILD_PRIV_H
#define SDIMG_MKIMAGE_BUILD_PRIV_H

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
uint32_t id_mbr_disk(const char *seed);
void id_gpt_disk(const char *seed, struct layout_guid *ret);
void id_partition_uuid(const char *seed, const char *name, struct layout_guid *ret);
uint32_t id_volume(const char *seed, const char *name);

/* ---- output.c: the image file, created whole or not at all ----------------------------- */
struct output {
	int fd;          /* -1 when closed: start from OUTPUT_INIT */
	char *path;      /* the final name, owned */
	char *tmp_path;  /* a named temporary file (when the file system has no O_TMPFILE) */
	uint64_t size;
};

#define OUTPUT_INIT { .fd = -1 }

/*
 * Creates the output for @path as an empty (sparse) file of @size bytes: an unnamed file in
 * @path's folder where the file system allows it (nothing is left behind whatever happens),
 * else a hidden temporary name there. Nothing exists at @path until output_commit().
 * Returns 0 or a negative errno with a message naming @path in @d.
 */
int output_create(struct output *o, const char *path, uint64_t size, struct diag *d);

/* fsyncs the data and puts the file at its final name (replacing an old one atomically). */
int output_commit(struct output *o, struct diag *d);

/* Removes whatever output_create() made; the old file at the final name stays untouched.
 * Safe after output_commit() and on OUTPUT_INIT. */
void output_abort(struct output *o);

/* ---- copy.c: bytes of a host file into the image ---------------------------------------- */

/*
 * Copies the whole of the host file @src_fd (of @size bytes) to @dst_fd at @dst_offset,
 * leaving its holes as holes (SEEK_DATA/SEEK_HOLE) and moving data with copy_file_range
 * where the kernel allows (read/pwrite otherwise). @what names the source in messages.
 * Returns 0 or a negative errno with a message in @d.
 */
int copy_file_to(int src_fd, uint64_t size, int dst_fd, uint64_t dst_offset, const char *what,
		 struct diag *d);

#endif

/* ---- ptable.c: the partition table, through libfdisk ------------------------------------- */

/*
 * Writes the table the plan describes (mbr or gpt; nothing for none) into @fd, the image of
 * plan->image_size bytes named @path in messages. @mbr_types[i] is the MBR type byte of
 * layout partition i (the builder resolves `fat` by the FAT type it chose). Every id is
 * set: the layout's, or one derived from its seed. libfdisk never moves or resizes what the
 * plan decided; a relocated GPT entry array (gpt-entries) is moved afterwards and the
 * header's CRC fixed.
 * Returns 0 or a negative errno with a message in @d.
 */
int ptable_write(const struct layout *l, const struct plan *p, const uint8_t *mbr_types, int fd,
		 const char *path, struct diag *d);
