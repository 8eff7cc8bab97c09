/* disk_gpt: are the primary and backup GPT headers (and their entry arrays) intact? */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bytes.h"
#include "mkimage/disk_priv.h"
#include "mkimage/gpt_move.h"

#define GPT_ENTRIES_MAX_BYTES (1u << 20) /* far beyond any real array: refuse larger */

/* The header at @lba: signature, size, CRC, and the CRC of the entry array it points to
 * (UEFI 2.10, 5.3.2). Never trusts a field: every read is bounded by the disk. */
static bool header_ok(const struct disk *k, uint64_t lba)
{
	uint8_t h[512];

	if ((lba + 1) * 512 > k->size || pread(k->fd, h, sizeof(h), (off_t)(lba * 512)) != 512)
		return false;
	uint32_t size = get_le32(h + 12), crc = get_le32(h + 16);
	if (memcmp(h, "EFI PART", 8) != 0 || size < 92 || size > 512)
		return false;
	put_le32(h + 16, 0);
	if (gpt_crc32(h, size) != crc)
		return false;
	uint64_t entries_lba = get_le64(h + 72);
	uint64_t bytes = (uint64_t)get_le32(h + 80) * get_le32(h + 84);
	if (bytes == 0 || bytes > GPT_ENTRIES_MAX_BYTES || entries_lba > k->size / 512 ||
	    bytes > k->size - entries_lba * 512)
		return false;
	uint8_t *entries = malloc(bytes);
	bool ok = entries && pread(k->fd, entries, bytes, (off_t)(entries_lba * 512)) == (ssize_t)bytes &&
		  gpt_crc32(entries, bytes) == get_le32(h + 88);
	free(entries);
	return ok;
}

void gpt_check_headers(struct disk *k)
{
	uint8_t h[512];

	k->gpt_primary_ok = header_ok(k, 1);
	/* the backup is where the primary says, else in the last sector */
	uint64_t backup = k->size / 512 - 1;
	if (pread(k->fd, h, sizeof(h), 512) == 512 && memcmp(h, "EFI PART", 8) == 0)
		backup = get_le64(h + 32);
	k->gpt_backup_ok = header_ok(k, backup);
}

bool gpt_signature_present(const struct disk *k)
{
	uint8_t h[8];

	return (pread(k->fd, h, sizeof(h), 512) == 8 && memcmp(h, "EFI PART", 8) == 0) ||
	       (pread(k->fd, h, sizeof(h), (off_t)((k->size / 512 - 1) * 512)) == 8 &&
		memcmp(h, "EFI PART", 8) == 0);
}
