/* SPDX-License-Identifier: MIT */
/*
 * exfat/checksum: the checksums and the name hash of the exFAT specification, shared by the
 * writer and the reader (exfat.h). Each is a 16- or 32-bit rotate-right-and-add over bytes.
 */
#include "exfat/exfat.h"

static uint32_t ror32_add(uint32_t sum, uint8_t byte)
{
	return ((sum & 1u) ? 0x80000000u : 0u) + (sum >> 1) + byte;
}

static uint16_t ror16_add(uint16_t sum, uint8_t byte)
{
	return (uint16_t)(((sum & 1u) ? 0x8000u : 0u) + (sum >> 1) + byte);
}

/* §3.4.1 BootChecksum: bytes 106, 107 (VolumeFlags) and 112 (PercentInUse) of the boot
 * sector are not counted, so that setting them needs no new checksum. */
uint32_t exfat_boot_checksum(const uint8_t *region)
{
	uint32_t sum = 0;

	for (size_t i = 0; i < (size_t)EXFAT_CHECKSUM_SECTOR * EXFAT_SECTOR; i++) {
		if (i == EXFAT_VOLUMEFLAGS || i == EXFAT_VOLUMEFLAGS + 1 || i == EXFAT_PERCENTINUSE)
			continue;
		sum = ror32_add(sum, region[i]);
	}
	return sum;
}

/* §6.3.3 SetChecksum: bytes 2 and 3 of the first entry (the field itself) are not counted. */
uint16_t exfat_set_checksum(const uint8_t *set, unsigned count)
{
	uint16_t sum = 0;

	for (size_t i = 0; i < EXFAT_FE_SETCHECKSUM; i++)
		sum = ror16_add(sum, set[i]);
	for (size_t i = EXFAT_FE_SETCHECKSUM + 2; i < (size_t)count * EXFAT_DENTRY_SIZE; i++)
		sum = ror16_add(sum, set[i]);
	return sum;
}

/* §7.6.4 NameHash: over the up-cased name's UTF-16 units, low byte first. */
uint16_t exfat_name_hash(const uint16_t *upcased, unsigned len)
{
	uint16_t sum = 0;

	for (unsigned i = 0; i < len; i++) {
		sum = ror16_add(sum, (uint8_t)(upcased[i] & 0xFFu));
		sum = ror16_add(sum, (uint8_t)(upcased[i] >> 8));
	}
	return sum;
}

/* §7.2.2 TableChecksum. */
uint32_t exfat_table_checksum(const uint8_t *table, size_t len)
{
	uint32_t sum = 0;

	for (size_t i = 0; i < len; i++)
		sum = ror32_add(sum, table[i]);
	return sum;
}
