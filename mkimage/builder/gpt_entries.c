/* SPDX-License-Identifier: MIT */
/* gpt_entries: the primary GPT entry array moved to where the layout puts it, and the one way
 * the builder mends a field of the primary header that libfdisk wrote (builder_priv.h). */
#include "mkimage/builder/tables.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bytes.h"
#include "common/gpt.h"

#define SECTOR 512u
#define GPT_DEFAULT_ENTRIES_LBA 2u      /* where libfdisk puts the array */
#define GPT_ENTRIES_BYTES (128u * 128u) /* 128 entries of 128 bytes */

int build_pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	ssize_t got = pread(fd, buf, n, (off_t)off);
	return got == (ssize_t)n ? 0 : got < 0 ? -errno : -EIO;
}

int build_pwrite_all(int fd, const void *buf, size_t n, uint64_t off)
{
	ssize_t put = pwrite(fd, buf, n, (off_t)off);
	return put == (ssize_t)n ? 0 : put < 0 ? -errno : -EIO;
}

/* Zeroes the old array: a hole where the file system can punch one, zero bytes elsewhere. */
static int punch_zeros(int fd, const uint8_t *zeros, uint64_t off)
{
	if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off,
		      GPT_ENTRIES_BYTES) == 0)
		return 0;
	return build_pwrite_all(fd, zeros, GPT_ENTRIES_BYTES, off);
}

int build_gpt_header_set(int fd, size_t field, uint64_t value)
{
	uint8_t hdr[SECTOR];
	int rc = build_pread_all(fd, hdr, sizeof(hdr), GPT_HEADER_LBA * SECTOR);

	if (rc < 0)
		return rc;
	uint32_t size = get_le32(hdr + GPT_HDR_SIZE);
	if (memcmp(hdr + GPT_HDR_SIGNATURE, GPT_SIGNATURE, GPT_SIGNATURE_LEN) != 0 ||
	    size < GPT_HEADER_MIN_SIZE || size > SECTOR)
		return -EILSEQ;
	put_le64(hdr + field, value);
	put_le32(hdr + GPT_HDR_CRC, gpt_header_crc(hdr, size));
	return build_pwrite_all(fd, hdr, sizeof(hdr), GPT_HEADER_LBA * SECTOR);
}

int build_move_gpt_entries(int fd, uint64_t entries_lba, const char *path, struct diag *d)
{
	uint8_t *entries = malloc(GPT_ENTRIES_BYTES);
	uint8_t *zeros = calloc(1, GPT_ENTRIES_BYTES);
	int rc = entries && zeros ? 0 : -ENOMEM;

	if (rc == 0)
		rc = build_pread_all(fd, entries, GPT_ENTRIES_BYTES,
				     GPT_DEFAULT_ENTRIES_LBA * SECTOR);
	if (rc == 0)
		rc = punch_zeros(fd, zeros, GPT_DEFAULT_ENTRIES_LBA * SECTOR);
	if (rc == 0)
		rc = build_pwrite_all(fd, entries, GPT_ENTRIES_BYTES, entries_lba * SECTOR);
	if (rc == 0)
		rc = build_gpt_header_set(fd, GPT_HDR_ENTRIES_LBA, entries_lba);
	free(entries);
	free(zeros);
	if (rc < 0)
		return diag_error(d, "%s: moving the GPT entry array: %s", path,
				  rc == -EILSEQ ? "no GPT header at LBA 1" : strerror(-rc));
	return 0;
}
