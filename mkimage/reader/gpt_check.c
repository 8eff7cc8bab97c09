/* SPDX-License-Identifier: MIT */
/* gpt_check: are the primary and backup GPT headers (and their entry arrays) intact? Is the
 * MBR in front of them protective or hybrid? */
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

uint8_t *reader_gpt_load(const struct disk *k, uint64_t lba, uint8_t h[512], size_t *ret_bytes)
{
	if (lba >= k->size / 512 || pread(k->fd, h, 512, (off_t)(lba * 512)) != 512)
		return NULL;
	uint32_t size = get_le32(h + GPT_HDR_SIZE);
	if (!signature_at(h) || size < GPT_HEADER_MIN_SIZE || size > 512 ||
	    gpt_header_crc(h, size) != get_le32(h + GPT_HDR_CRC) ||
	    get_le64(h + GPT_HDR_MY_LBA) != lba)
		return NULL;
	uint64_t entries_lba = get_le64(h + GPT_HDR_ENTRIES_LBA);
	uint32_t entry_size = get_le32(h + GPT_HDR_ENTRY_SIZE);
	uint64_t bytes = (uint64_t)get_le32(h + GPT_HDR_ENTRY_COUNT) * entry_size;
	if (bytes == 0 || bytes > GPT_ENTRIES_MAX_BYTES || entry_size < GPT_ENTRY_MIN_SIZE ||
	    entry_size % GPT_ENTRY_MIN_SIZE || entries_lba > k->size / 512 ||
	    bytes > k->size - entries_lba * 512)
		return NULL;
	uint8_t *entries = malloc(bytes);
	if (entries && pread(k->fd, entries, bytes, (off_t)(entries_lba * 512)) == (ssize_t)bytes &&
	    gpt_crc32(entries, bytes) == get_le32(h + GPT_HDR_ENTRIES_CRC)) {
		*ret_bytes = bytes;
		return entries;
	}
	free(entries);
	return NULL;
}

/* The header at @lba: signature, size, CRC, and the CRC of the entry array it points to
 * (UEFI 2.10, 5.3.2). Never trusts a field: every read is bounded by the disk. */
static bool header_ok(const struct disk *k, uint64_t lba)
{
	uint8_t h[512];
	size_t bytes;
	uint8_t *entries = reader_gpt_load(k, lba, h, &bytes);

	free(entries);
	return entries != NULL;
}

/* The MBR's records besides the 0xEE one, each matched with a GPT partition. */
static void check_hybrid(struct disk *k)
{
	uint8_t s[512];
	struct reader_mbr_entry e[4];
	bool protective = false;

	if (pread(k->fd, s, sizeof(s), 0) != (ssize_t)sizeof(s) || s[MBR_SIGNATURE] != 0x55 ||
	    s[MBR_SIGNATURE + 1] != 0xAA)
		return;
	reader_mbr_entries(s, e);
	for (unsigned i = 0; i < 4; i++)
		protective |= e[i].used && e[i].type == MBR_TYPE_GPT_PROTECTIVE;
	for (unsigned i = 0; protective && i < 4; i++) {
		if (!e[i].used || e[i].type == MBR_TYPE_GPT_PROTECTIVE || !e[i].type)
			continue;
		struct disk_mirror *m = &k->mirrors[k->n_mirrors++];
		*m = (struct disk_mirror){ .type = e[i].type,
					   .start = (uint64_t)e[i].start * 512,
					   .size = (uint64_t)e[i].sectors * 512 };
		for (size_t p = 0; p < k->n_parts && !m->gpt_number; p++)
			if (k->parts[p].start == m->start && k->parts[p].size == m->size)
				m->gpt_number = k->parts[p].number;
	}
	k->hybrid_mbr = k->n_mirrors > 0;
}

void reader_check_gpt(struct disk *k)
{
	uint8_t h[512];
	uint64_t last = k->size / 512 - 1;

	k->gpt_primary_ok = header_ok(k, GPT_HEADER_LBA);
	/* the backup is where the primary says, else in the last sector */
	k->gpt_backup_lba = last;
	if (pread(k->fd, h, sizeof(h), GPT_HEADER_LBA * 512) == 512 && signature_at(h) &&
	    get_le64(h + GPT_HDR_ALTERNATE_LBA) > GPT_HEADER_LBA)
		k->gpt_backup_lba = get_le64(h + GPT_HDR_ALTERNATE_LBA);
	if (header_ok(k, k->gpt_backup_lba))
		k->gpt_backup = DISK_GPT_BACKUP_VALID;
	else if (k->gpt_backup_lba > last ||
		 pread(k->fd, h, sizeof(h), (off_t)(k->gpt_backup_lba * 512)) != 512 ||
		 !signature_at(h))
		k->gpt_backup = DISK_GPT_BACKUP_MISSING;
	else
		k->gpt_backup = DISK_GPT_BACKUP_INVALID;
	check_hybrid(k);
}

bool reader_gpt_present(const struct disk *k)
{
	uint8_t h[GPT_SIGNATURE_LEN];

	return (pread(k->fd, h, sizeof(h), GPT_HEADER_LBA * 512) == sizeof(h) && signature_at(h)) ||
	       (pread(k->fd, h, sizeof(h), (off_t)((k->size / 512 - 1) * 512)) == sizeof(h) &&
		signature_at(h));
}
