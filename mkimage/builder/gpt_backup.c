/* SPDX-License-Identifier: MIT */
/*
 * gpt_backup: a GPT without its backup header and array (gpt-backup = false; see
 * builder_priv.h). libfdisk always writes a backup at the end of the device it is given, so
 * it is given the image with room for one past its end; that room is then cut off and the
 * primary header says where the backup would be (UEFI 2.10, 5.3.2).
 */
#include "mkimage/builder/tables.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "common/bytes.h"
#include "common/gpt.h"
#include "common/mbr.h"

#define SECTOR 512u
#define GPT_BACKUP_BYTES (128u * 128u + SECTOR) /* the backup array and header */

int build_gpt_backup_room(int fd, uint64_t image_size, const char *path, struct diag *d)
{
	if (ftruncate(fd, (off_t)(image_size + GPT_BACKUP_BYTES)) == 0)
		return 0;
	int e = errno;
	return diag_error(d, "%s: partition table: %s", path, strerror(e));
}

/* The protective entry covers the disk from LBA 1: up to the image's last LBA, or
 * 0xFFFFFFFF sectors when the image is larger (§5.2.3, table 5-4). */
static int fix_protective_entry(int fd, uint64_t last_lba)
{
	uint8_t e[MBR_ENTRY_SIZE];
	int rc = build_pread_all(fd, e, sizeof(e), MBR_ENTRIES);

	if (rc < 0)
		return rc;
	if (e[MBR_ENT_TYPE] != MBR_TYPE_GPT_PROTECTIVE)
		return -EILSEQ;
	put_le32(e + MBR_ENT_SIZE_LBA, last_lba > UINT32_MAX ? UINT32_MAX : (uint32_t)last_lba);
	return build_pwrite_all(fd, e, sizeof(e), MBR_ENTRIES);
}

int build_drop_gpt_backup(int fd, uint64_t image_size, const char *path, struct diag *d)
{
	uint64_t last_lba = image_size / SECTOR - 1;
	int rc = ftruncate(fd, (off_t)image_size) == 0 ? 0 : -errno;

	/* AlternateLBA: the image's last LBA, where the backup would be (tools then report it
	 * missing rather than misplaced). LastUsableLBA stays as libfdisk wrote it from the
	 * plan: the last LBA, since no backup takes the end. */
	if (rc == 0)
		rc = build_gpt_header_set(fd, GPT_HDR_ALTERNATE_LBA, last_lba);
	if (rc == 0)
		rc = fix_protective_entry(fd, last_lba);
	if (rc < 0)
		return diag_error(d, "%s: leaving out the backup GPT: %s", path,
				  rc == -EILSEQ ? "no GPT as libfdisk writes it" : strerror(-rc));
	return 0;
}
