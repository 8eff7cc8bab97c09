/* SPDX-License-Identifier: MIT */
/*
 * The partition tables a build writes (private to mkimage/builder/): MBR, EBRs and GPT
 * through libfdisk, the GPT entry array moved, the backup GPT dropped, the hybrid MBR. They
 * work on the image's file descriptor and know nothing of the build's state.
 */
#ifndef SDIMG_MKIMAGE_BUILDER_TABLES_H
#define SDIMG_MKIMAGE_BUILDER_TABLES_H

#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"
#include "layouts/layouts.h"
#include "plan/plan.h"

struct sha256;

/* ---- write_table.c: the partition table (MBR, EBRs, GPT), through libfdisk ------------  */

/*
 * Writes the table the plan describes (mbr or gpt; nothing for none) into @fd, the image of
 * plan->image_size bytes named @path in messages. @mbr_types[i] is the MBR type byte of
 * layout partition i (the builder resolves `fat` by the FAT type it chose). Every id is
 * set: the layout's, or one derived from its seed. libfdisk never moves or resizes what the
 * plan decided; a relocated GPT entry array (gpt-entries) is moved afterwards and the
 * header's CRC fixed.
 * Returns 0 or a negative errno with a message in @d.
 */
int build_write_table(const struct layout *l, const struct plan *p, const uint8_t *mbr_types,
		      int fd, const char *path, struct sha256 *sha, struct diag *d);

/* ---- gpt_entries.c: the primary GPT entry array where the layout puts it ------------- */

/*
 * Moves the 128-entry array from LBA 2 to @entries_lba in the image @fd, zeroes where it was,
 * and updates the primary header's PartitionEntryLBA and HeaderCRC32 (UEFI 2.10, 5.3.2).
 * The backup header and array are untouched (the array's CRC does not change).
 * Returns 0 or a negative errno with a message naming @path in @d.
 */
int build_move_gpt_entries(int fd, uint64_t entries_lba, const char *path, struct diag *d);

/* All of @n bytes at @off of @fd read (written), or a negative errno (-EIO: short). */
int build_pread_all(int fd, void *buf, size_t n, uint64_t off);
int build_pwrite_all(int fd, const void *buf, size_t n, uint64_t off);

/*
 * Sets the 64-bit field at byte @field (enum gpt_header_field) of the primary GPT header in
 * @fd to @value and its HeaderCRC32 anew (UEFI 2.10, 5.3.2). Returns 0, -EILSEQ when LBA 1
 * holds no GPT header, or a negative errno.
 */
int build_gpt_header_set(int fd, size_t field, uint64_t value);

/* ---- gpt_backup.c: a GPT without its backup (gpt-backup = false) ------------------------ */

/*
 * Gives the image @fd of @image_size bytes room for the backup GPT past its end, where
 * libfdisk then writes it; build_drop_gpt_backup() cuts it off again, sets the primary
 * header's AlternateLBA to the image's last LBA (where the backup would be) with its CRC,
 * and ends the protective MBR entry at that LBA.
 * Both return 0 or a negative errno with a message naming @path in @d.
 */
int build_gpt_backup_room(int fd, uint64_t image_size, const char *path, struct diag *d);
int build_drop_gpt_backup(int fd, uint64_t image_size, const char *path, struct diag *d);

/* ---- hybrid.c: the MBR of table = hybrid --------------------------------------------- */

/*
 * Writes bytes 440-511 of sector 0 of @fd (the image named @path in messages) over the
 * protective MBR libfdisk wrote: the MBR disk signature derived from the seed, an 0xEE entry
 * from LBA 1 up to the first mirrored partition (first, or after the mirrored entries with
 * hybrid-ee = last), and one entry per partition with `hybrid`, in layout order, typed
 * @mbr_types[i] and active when bootable. The plan has checked that there are one to three
 * and that they end within 2 TiB.
 * Returns 0 or a negative errno with a message in @d.
 */
int build_write_hybrid_mbr(const struct layout *l, const struct plan *p, const uint8_t *mbr_types,
			   int fd, const char *path, struct sha256 *sha, struct diag *d);

#endif
