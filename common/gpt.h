/* SPDX-License-Identifier: MIT */
/*
 * gpt: the GUID Partition Table header as it lies on disk, defined once for the writer
 * (mkimage/builder, which moves the entry array libfdisk placed) and the reader
 * (mkimage/reader, which checks both headers). Offsets and rules are those of the UEFI
 * Specification 2.10, §5.3.2 "GPT Header" (table 5-5); all fields are little-endian.
 */
#ifndef SDIMG_GPT_H
#define SDIMG_GPT_H

#include <stddef.h>
#include <stdint.h>

#define GPT_SIGNATURE "EFI PART" /* Signature: 8 bytes, no NUL */
#define GPT_SIGNATURE_LEN 8
#define GPT_HEADER_LBA 1u       /* the primary header; the backup is in the last LBA */
#define GPT_HEADER_MIN_SIZE 92u /* HeaderSize is at least 92 and at most a block */

/* Field offsets in the header (table 5-5). */
enum gpt_header_field {
	GPT_HDR_SIGNATURE = 0,      /* 8 bytes: "EFI PART" */
	GPT_HDR_REVISION = 8,       /* 4 bytes: 0x00010000 */
	GPT_HDR_SIZE = 12,          /* 4 bytes: HeaderSize */
	GPT_HDR_CRC = 16,           /* 4 bytes: HeaderCRC32 over HeaderSize bytes, this field 0 */
	GPT_HDR_MY_LBA = 24,        /* 8 bytes: the LBA of this header */
	GPT_HDR_ALTERNATE_LBA = 32, /* 8 bytes: the LBA of the other header */
	GPT_HDR_FIRST_USABLE = 40,  /* 8 bytes */
	GPT_HDR_LAST_USABLE = 48,   /* 8 bytes */
	GPT_HDR_DISK_GUID = 56,     /* 16 bytes */
	GPT_HDR_ENTRIES_LBA = 72,   /* 8 bytes: PartitionEntryLBA */
	GPT_HDR_ENTRY_COUNT = 80,   /* 4 bytes: NumberOfPartitionEntries */
	GPT_HDR_ENTRY_SIZE = 84,    /* 4 bytes: SizeOfPartitionEntry */
	GPT_HDR_ENTRIES_CRC = 88,   /* 4 bytes: PartitionEntryArrayCRC32 */
};

/* Field offsets in a partition entry (§5.3.3, table 5-6). An entry whose type GUID is all
 * zero is unused. */
enum gpt_entry_field {
	GPT_ENT_TYPE_GUID = 0,    /* 16 bytes: PartitionTypeGUID */
	GPT_ENT_UNIQUE_GUID = 16, /* 16 bytes: UniquePartitionGUID */
	GPT_ENT_FIRST_LBA = 32,   /* 8 bytes: StartingLBA */
	GPT_ENT_LAST_LBA = 40,    /* 8 bytes: EndingLBA, inclusive */
	GPT_ENT_ATTRIBUTES = 48,  /* 8 bytes: bit 2 LegacyBIOSBootable (table 5-7) */
	GPT_ENT_NAME = 56,        /* 72 bytes: PartitionName, UTF-16LE, NUL-padded */
};
#define GPT_ENTRY_MIN_SIZE 128u /* SizeOfPartitionEntry: 128 x 2^n */
#define GPT_ENT_NAME_UNITS 36u

/* CRC-32 as GPT uses it (§5.3.2 names the IEEE 802.3 polynomial: reflected 0xEDB88320,
 * initial value and final XOR 0xFFFFFFFF). */
uint32_t gpt_crc32(const void *data, size_t len);

/*
 * The HeaderCRC32 the header @hdr (@size bytes, GPT_HEADER_MIN_SIZE..block size) should
 * hold: the CRC of its @size bytes with the CRC field taken as zero. @hdr is not changed.
 */
uint32_t gpt_header_crc(const uint8_t *hdr, uint32_t size);

#endif
