/* SPDX-License-Identifier: MIT */
/*
 * fat/bootsect: boot sector, FAT32 FSInfo and directory entries, serialised field by field
 * (fatgen103 "Boot Sector and BPB", "FAT32 FSInfo Sector Structure", "FAT Directory
 * Structure", "FAT Long Directory Entries"); the offsets are in ondisk.h.
 */
#include "fat/write_priv.h"

#include <string.h>

#include "common/bytes.h"
#include "fat/ondisk.h"

/*
 * A boot stub that boots nothing: INT 18h (BIOS "no bootable disk": try the next device),
 * then CLI, HLT and a jump back to the HLT forever.
 */
static const uint8_t boot_stub[] = { 0xCD, 0x18, 0xFA, 0xF4, 0xEB, 0xFD };

/* Fields shared by all FAT types: offsets 0..35. */
static void put_bpb_common(uint8_t *s, const struct fat_geom *g)
{
	bool fat32 = g->type == FAT_32;

	/* a short jump over the BPB to the stub, then NOP */
	s[BS_JMPBOOT] = 0xEB;
	s[BS_JMPBOOT + 1] = (uint8_t)((fat32 ? FAT_EBPB_32 : FAT_EBPB_12_16) + FAT_EBPB_SIZE - 2);
	s[BS_JMPBOOT + 2] = 0x90;
	memcpy(s + BS_OEMNAME, g->oem_name, 8);
	put_le16(s + BPB_BYTSPERSEC, FAT_SECTOR);
	s[BPB_SECPERCLUS] = (uint8_t)g->sec_per_clus;
	put_le16(s + BPB_RSVDSECCNT, (uint16_t)g->reserved);
	s[BPB_NUMFATS] = (uint8_t)g->fats;
	put_le16(s + BPB_ROOTENTCNT, (uint16_t)g->root_entries); /* 0 on FAT32 */
	/* BPB_TotSec16 when it fits (never on FAT32), else BPB_TotSec32 */
	if (!fat32 && g->total_sectors < 0x10000)
		put_le16(s + BPB_TOTSEC16, (uint16_t)g->total_sectors);
	else
		put_le32(s + BPB_TOTSEC32, g->total_sectors);
	s[BPB_MEDIA] = FAT_MEDIA;
	if (!fat32)
		put_le16(s + BPB_FATSZ16, (uint16_t)g->fat_sectors);
	put_le16(s + BPB_SECPERTRK, g->sec_per_track);
	put_le16(s + BPB_NUMHEADS, g->heads);
	put_le32(s + BPB_HIDDSEC, g->hidden_sectors); /* the partition's start sector */
}

/* BS_DrvNum .. BS_FilSysType at @e (FAT_EBPB_12_16 or FAT_EBPB_32), then the stub. */
static void put_ebpb(uint8_t *e, const struct fat_geom *g)
{
	static const char *types[] = { "FAT12   ", "FAT16   ", "FAT32   " };

	e[BS_DRVNUM] = 0x80; /* hard disk */
	e[BS_BOOTSIG] = FAT_BOOTSIG;
	put_le32(e + BS_VOLID, g->volume_id);
	memcpy(e + BS_VOLLAB, g->label, 11);
	memcpy(e + BS_FILSYSTYPE, types[g->type == FAT_12 ? 0 : g->type == FAT_16 ? 1 : 2], 8);
	memcpy(e + FAT_EBPB_SIZE, boot_stub, sizeof(boot_stub));
}

void fat_put_boot_sector(uint8_t s[FAT_SECTOR], const struct fat_geom *g)
{
	memset(s, 0, FAT_SECTOR);
	put_bpb_common(s, g);
	if (g->type == FAT_32) {
		put_le32(s + BPB_FATSZ32, g->fat_sectors);
		/* BPB_ExtFlags 0: FATs mirrored; BPB_FSVer 0.0 */
		put_le32(s + BPB_ROOTCLUS, 2);
		put_le16(s + BPB_FSINFO, 1);
		put_le16(s + BPB_BKBOOTSEC, 6);
		put_ebpb(s + FAT_EBPB_32, g);
	} else {
		put_ebpb(s + FAT_EBPB_12_16, g);
	}
	s[FAT_SIGNATURE_OFFSET] = 0x55;
	s[FAT_SIGNATURE_OFFSET + 1] = 0xAA;
}

void fat_put_fsinfo(uint8_t s[FAT_SECTOR], uint32_t free_count, uint32_t next_free)
{
	memset(s, 0, FAT_SECTOR);
	put_le32(s + FSI_LEADSIG, FSI_LEADSIG_VALUE);
	put_le32(s + FSI_STRUCSIG, FSI_STRUCSIG_VALUE);
	put_le32(s + FSI_FREE_COUNT, free_count);
	put_le32(s + FSI_NXT_FREE, next_free);
	put_le32(s + FSI_TRAILSIG, FSI_TRAILSIG_VALUE);
}

void fat_put_sfn_entry(uint8_t e[32], const uint8_t name[11], uint8_t attrs, uint8_t ntres,
		       uint32_t cluster, uint32_t size, int64_t mtime, uint32_t ns)
{
	uint16_t date, time;
	uint8_t tenth;

	fat_dos_time(mtime, ns, &date, &time, &tenth);
	memcpy(e + DIR_NAME, name, DIR_NAME_LEN);
	e[DIR_ATTR] = attrs;
	e[DIR_NTRES] = ntres; /* lower-case flags */
	e[DIR_CRTTIMETENTH] = tenth;
	put_le16(e + DIR_CRTTIME, time);
	put_le16(e + DIR_CRTDATE, date);
	put_le16(e + DIR_LSTACCDATE, date);
	put_le16(e + DIR_FSTCLUSHI, (uint16_t)(cluster >> 16));
	put_le16(e + DIR_WRTTIME, time);
	put_le16(e + DIR_WRTDATE, date);
	put_le16(e + DIR_FSTCLUSLO, (uint16_t)cluster);
	put_le32(e + DIR_FILESIZE, size);
}

/* UTF-16 unit @i of an LFN: the name, then one 0x0000, then 0xFFFF padding. */
static uint16_t lfn_unit(const uint16_t *u, size_t n, size_t i)
{
	return i < n ? u[i] : i == n ? 0x0000 : 0xFFFF;
}

void fat_put_lfn_entries(uint8_t *e, const uint16_t *u, size_t n, const uint8_t sfn[11])
{
	size_t count = (n + FAT_LFN_UNITS - 1) / FAT_LFN_UNITS;
	uint8_t sum = fat_lfn_checksum(sfn);

	/* entries come last-first: ordinal count|0x40, count-1, ..., 1 */
	for (size_t k = 0; k < count; k++) {
		uint8_t *x = e + FAT_DIRENT_SIZE * k;
		size_t ord = count - k;
		memset(x, 0, FAT_DIRENT_SIZE);
		x[LDIR_ORD] = (uint8_t)(ord | (k == 0 ? FAT_LFN_LAST : 0));
		x[LDIR_ATTR] = FAT_ATTR_LONG_NAME;
		x[LDIR_CHKSUM] = sum;
		for (unsigned j = 0; j < FAT_LFN_UNITS; j++)
			put_le16(x + fat_lfn_unit_offset(j),
				 lfn_unit(u, n, (ord - 1) * FAT_LFN_UNITS + j));
	}
}
