/* SPDX-License-Identifier: MIT */
/* mbr: the legacy MBR's four entries, read without libfdisk (reader_priv.h). */
#include <string.h>
#include <unistd.h>

#include "common/bytes.h"
#include "mkimage/reader/reader_priv.h"

#define EBR_CHAIN_MAX 1024u /* a hostile chain that loops ends here */

void reader_mbr_entries(const uint8_t s[512], struct reader_mbr_entry e[4])
{
	for (unsigned i = 0; i < 4; i++) {
		const uint8_t *x = s + MBR_ENTRIES + i * MBR_ENTRY_SIZE;
		static const uint8_t zero[MBR_ENTRY_SIZE];
		e[i] = (struct reader_mbr_entry){
			.used = memcmp(x, zero, MBR_ENTRY_SIZE) != 0,
			.status = x[MBR_ENT_BOOT],
			.type = x[MBR_ENT_TYPE],
			.start = get_le32(x + MBR_ENT_START_LBA),
			.sectors = get_le32(x + MBR_ENT_SIZE_LBA),
		};
	}
}

bool reader_mbr_plausible(const uint8_t s[512], uint64_t disk_sectors)
{
	struct reader_mbr_entry e[4];
	unsigned used = 0;

	if (s[MBR_SIGNATURE] != 0x55 || s[MBR_SIGNATURE + 1] != 0xAA)
		return false;
	reader_mbr_entries(s, e);
	for (unsigned i = 0; i < 4; i++) {
		if (!e[i].used)
			continue;
		used++;
		if ((e[i].status != 0x00 && e[i].status != 0x80) || !e[i].type || !e[i].start ||
		    !e[i].sectors || (uint64_t)e[i].start + e[i].sectors > disk_sectors)
			return false;
		for (unsigned j = 0; j < i; j++)
			if (e[j].used && e[i].start < (uint64_t)e[j].start + e[j].sectors &&
			    e[j].start < (uint64_t)e[i].start + e[i].sectors)
				return false;
	}
	return used > 0;
}

static bool is_extended(uint8_t type)
{
	return type == 0x05 || type == 0x0F || type == 0x85;
}

size_t reader_ebr_sectors(const struct disk *k, uint64_t *lba, size_t max)
{
	uint8_t s[512];
	struct reader_mbr_entry e[4];
	uint64_t ext = 0, disk_sectors = k->size / 512;
	size_t n = 0;

	if (pread(k->fd, s, sizeof(s), 0) != (ssize_t)sizeof(s))
		return 0;
	reader_mbr_entries(s, e);
	for (unsigned i = 0; i < 4 && !ext; i++)
		if (e[i].used && is_extended(e[i].type))
			ext = e[i].start;
	/* each EBR: entry 1 its logical partition, entry 2 the next EBR relative to the
	 * extended partition's start */
	for (uint64_t at = ext; at && at < disk_sectors && n < max && n < EBR_CHAIN_MAX;) {
		for (size_t j = 0; j < n; j++)
			if (lba[j] == at)
				return n;
		lba[n++] = at;
		if (pread(k->fd, s, sizeof(s), (off_t)(at * 512)) != (ssize_t)sizeof(s) ||
		    s[MBR_SIGNATURE] != 0x55 || s[MBR_SIGNATURE + 1] != 0xAA)
			break;
		reader_mbr_entries(s, e);
		at = e[1].used && is_extended(e[1].type) && e[1].start ? ext + e[1].start : 0;
	}
	return n;
}
