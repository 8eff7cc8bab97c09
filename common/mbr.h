/* SPDX-License-Identifier: MIT */
/*
 * mbr: the legacy Master Boot Record as it lies in sector 0, defined once for whoever reads
 * or writes its bytes beside libfdisk (the builder writes a hybrid MBR and mends the
 * protective one of a GPT without backup; the reader checks records and follows EBRs, which
 * have the same form: the first record the logical partition, the second the next EBR). Offsets and rules are those of the UEFI
 * Specification 2.10, §5.2.1 "Legacy Master Boot Record" (tables 5-1 and 5-2) and §5.2.3
 * "Protective MBR" (table 5-4); all fields are little-endian.
 */
#ifndef SDIMG_MBR_H
#define SDIMG_MBR_H

#include <stdint.h>

#define MBR_DISK_SIGNATURE 440u /* UniqueMBRDiskSignature: 4 bytes */
#define MBR_ENTRIES 446u        /* PartitionRecord[4]: 16 bytes each */
#define MBR_ENTRY_SIZE 16u
#define MBR_N_ENTRIES 4u
#define MBR_SIGNATURE 510u /* 0x55, 0xAA */

/* Field offsets in one partition record (table 5-2). */
enum mbr_entry_field {
	MBR_ENT_BOOT = 0,      /* 1 byte: 0x80 = bootable (active), else 0x00 */
	MBR_ENT_START_CHS = 1, /* 3 bytes: head, sector | cylinder bits 8-9, cylinder */
	MBR_ENT_TYPE = 4,      /* 1 byte: OSType */
	MBR_ENT_END_CHS = 5,   /* 3 bytes */
	MBR_ENT_START_LBA = 8, /* 4 bytes: StartingLBA */
	MBR_ENT_SIZE_LBA = 12, /* 4 bytes: SizeInLBA */
};

#define MBR_BOOT_ACTIVE 0x80
#define MBR_TYPE_GPT_PROTECTIVE 0xee /* table 5-4: OSType of the GPT protective entry */

/*
 * The CHS address of @lba in the 3 bytes at @chs, with the geometry partitioning tools
 * assume for a disk of unknown geometry (255 heads, 63 sectors a track); an address past
 * cylinder 1023 is the largest one, 1023/254/63 (bytes 0xfe 0xff 0xff).
 */
static inline void mbr_chs(uint64_t lba, uint8_t chs[3])
{
	uint64_t cylinder = lba / (255 * 63);
	unsigned head = (unsigned)(lba / 63 % 255), sector = (unsigned)(lba % 63 + 1);

	if (cylinder > 1023) {
		cylinder = 1023;
		head = 254;
		sector = 63;
	}
	chs[0] = (uint8_t)head;
	chs[1] = (uint8_t)(sector | ((cylinder >> 2) & 0xc0));
	chs[2] = (uint8_t)cylinder;
}

/*
 * The EndingCHS of a GPT's protective entry ending at @lba, as UEFI 2.10 §5.2.3 (table 5-4)
 * asks: "the CHS address of the last logical block on the disk", or 0xFFFFFF "if it is not
 * possible to represent the value in this field". The specification names no geometry; the
 * one of mbr_chs() (255 heads, 63 sectors a track) is what BIOSes translate an LBA disk to
 * and what other partitioning tools write, so a tool checking CHS against LBA finds them
 * agree. It represents LBAs up to the end of cylinder 1023 (16450559, about 7.8 GiB).
 */
static inline void mbr_protective_end_chs(uint64_t lba, uint8_t chs[3])
{
	if (lba / (255 * 63) > 1023) {
		chs[0] = chs[1] = chs[2] = 0xff;
		return;
	}
	mbr_chs(lba, chs);
}

#endif
