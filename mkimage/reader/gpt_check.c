/* gpt_check: are the primary and backup GPT headers (and their entry arrays) intact? */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bytes.h"
#include "common/gpt.h"
#include "mkimage/reader/reader_priv.h"

#define GPT_ENTRIES_MAX_BYTES (1u << 20) /* far beyond any real array: refuse larger */

static bool signature_at(const uint8_t *h)
{
	return memcmp(h + GPT_HDR_SIGNATURE, GPT_SIGNATURE, GPT_SIGNATURE_LEN) == 0;
}

/* The header at @lba: signature, size, CRC, and the CRC of the entry array it points to
 * (UEFI 2.10, 5.3.2). Never trusts a field: every read is bounded by the disk. */
static bool header_ok(const struct disk *k, uint64_t lba)
{
	uint8_t h[512];

	if ((lba + 1) * 512 > k->size || pread(k->fd, h, sizeof(h), (off_t)(lba * 512)) != 512)
		return false;
	uint32_t size = get_le32(h + GPT_HDR_SIZE);
	if (!signature_at(h) || size < GPT_HEADER_MIN_SIZE || size > 512 ||
	    gpt_header_crc(h, size) != get_le32(h + GPT_HDR_CRC))
		return false;
	uint64_t entries_lba = get_le64(h + GPT_HDR_ENTRIES_LBA);
	uint64_t bytes = (uint64_t)get_le32(h + GPT_HDR_ENTRY_COUNT) * get_le32(h + GPT_HDR_ENTRY_SIZE);
	if (bytes == 0 || bytes > GPT_ENTRIES_MAX_BYTES || entries_lba > k->size / 512 ||
	    bytes > k->size - entries_lba * 512)
		return false;
	uint8_t *entries = malloc(bytes);
	bool ok = entries && pread(k->fd, entries, bytes, (off_t)(entries_lba * 512)) == (ssize_t)bytes &&
		  gpt_crc32(entries, bytes) == get_le32(h + GPT_HDR_ENTRIES_CRC);
	free(entries);
	return ok;
}

void reader_check_gpt(struct disk *k)
{
	uint8_t h[512];

	k->gpt_primary_ok = header_ok(k, 1);
	/* the backup is where the primary says, else in the last sector */
	uint64_t backup = k->size / 512 - 1;
	if (pread(k->fd, h, sizeof(h), GPT_HEADER_LBA * 512) == 512 && signature_at(h))
		backup = get_le64(h + GPT_HDR_ALTERNATE_LBA);
	k->gpt_backup_ok = header_ok(k, backup);
}

bool reader_gpt_present(const struct disk *k)
{
	uint8_t h[GPT_SIGNATURE_LEN];

	return (pread(k->fd, h, sizeof(h), GPT_HEADER_LBA * 512) == sizeof(h) && signature_at(h)) ||
	       (pread(k->fd, h, sizeof(h), (off_t)((k->size / 512 - 1) * 512)) == sizeof(h) &&
		signature_at(h));
}
