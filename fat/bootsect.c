/*
 * fat/bootsect: boot sector, FAT32 FSInfo and directory entries, serialised field by field
 * (fatgen103 "Boot Sector and BPB", "FAT32 FSInfo Sector Structure", "FAT Directory
 * Structure", "FAT Long Directory Entries"; REFERENCE-sd-fat.md §2.3, §2.4, §4.1, §4.2).
 */
#include "fat/write_priv.h"

#include <string.h>

#include "common/bytes.h"

/*
 * A boot stub that boots nothing: INT 18h (BIOS "no bootable disk": try the next device),
 * then CLI, HLT and a jump back to the HLT forever.
 */
static const uint8_t boot_stub[] = { 0xCD, 0x18, 0xFA, 0xF4, 0xEB, 0xFD };

/* Fields shared by all FAT types: offsets 0..35. */
static void put_bpb_common(uint8_t *s, const struct fat_geom *g)
{
	bool fat32 = g->type == FAT_32;

	s[0] = 0xEB;			 /* BS_jmpBoot: jump over the BPB to the stub */
	s[1] = fat32 ? 0x58 : 0x3C;
	s[2] = 0x90;
	memcpy(s + 3, g->oem_name, 8);	 /* BS_OEMName */
	put_le16(s + 11, FAT_SECTOR);	 /* BPB_BytsPerSec */
	s[13] = (uint8_t)g->sec_per_clus; /* BPB_SecPerClus */
	put_le16(s + 14, (uint16_t)g->reserved); /* BPB_RsvdSecCnt */
	s[16] = (uint8_t)g->fats;	 /* BPB_NumFATs */
	put_le16(s + 17, (uint16_t)g->root_entries); /* BPB_RootEntCnt: 0 on FAT32 */
	/* BPB_TotSec16 when it fits (never on FAT32), else BPB_TotSec32 */
	if (!fat32 && g->total_sectors < 0x10000)
		put_le16(s + 19, (uint16_t)g->total_sectors);
	else
		put_le32(s + 32, g->total_sectors);
	s[21] = FAT_MEDIA;		 /* BPB_Media: fixed disk */
	if (!fat32)
		put_le16(s + 22, (uint16_t)g->fat_sectors); /* BPB_FATSz16 */
	put_le16(s + 24, g->sec_per_track); /* BPB_SecPerTrk */
	put_le16(s + 26, g->heads);	 /* BPB_NumHeads */
	put_le32(s + 28, g->hidden_sectors); /* BPB_HiddSec: the partition's start sector */
}

/* BS_DrvNum .. BS_FilSysType at @e (offset 36 on FAT12/16, 64 on FAT32). */
static void put_ebpb(uint8_t *e, const struct fat_geom *g)
{
	static const char *types[] = { "FAT12   ", "FAT16   ", "FAT32   " };

	e[0] = 0x80;			   /* BS_DrvNum: hard disk */
	e[2] = 0x29;			   /* BS_BootSig: the next three fields exist */
	put_le32(e + 3, g->volume_id);	   /* BS_VolID */
	memcpy(e + 7, g->label, 11);	   /* BS_VolLab */
	memcpy(e + 18, types[g->type == FAT_12 ? 0 : g->type == FAT_16 ? 1 : 2], 8);
}

void fat_put_boot_sector(uint8_t s[FAT_SECTOR], const struct fat_geom *g)
{
	memset(s, 0, FAT_SECTOR);
	put_bpb_common(s, g);
	if (g->type == FAT_32) {
		put_le32(s + 36, g->fat_sectors); /* BPB_FATSz32 */
		/* BPB_ExtFlags 0: FATs mirrored; BPB_FSVer 0.0 */
		put_le32(s + 44, 2);		 /* BPB_RootClus */
		put_le16(s + 48, 1);		 /* BPB_FSInfo */
		put_le16(s + 50, 6);		 /* BPB_BkBootSec */
		put_ebpb(s + 64, g);
		memcpy(s + 90, boot_stub, sizeof(boot_stub));
	} else {
		put_ebpb(s + 36, g);
		memcpy(s + 62, boot_stub, sizeof(boot_stub));
	}
	s[510] = 0x55;				 /* signature */
	s[511] = 0xAA;
}

void fat_put_fsinfo(uint8_t s[FAT_SECTOR], uint32_t free_count, uint32_t next_free)
{
	memset(s, 0, FAT_SECTOR);
	put_le32(s + 0, 0x41615252);	/* FSI_LeadSig "RRaA" */
	put_le32(s + 484, 0x61417272);	/* FSI_StrucSig "rrAa" */
	put_le32(s + 488, free_count);	/* FSI_Free_Count */
	put_le32(s + 492, next_free);	/* FSI_Nxt_Free */
	put_le32(s + 508, 0xAA550000);	/* FSI_TrailSig */
}

void fat_put_sfn_entry(uint8_t e[32], const uint8_t name[11], uint8_t attrs, uint8_t ntres,
		       uint32_t cluster, uint32_t size, int64_t mtime, uint32_t ns)
{
	uint16_t date, time;
	uint8_t tenth;

	fat_dos_time(mtime, ns, &date, &time, &tenth);
	memcpy(e, name, 11);		/* DIR_Name */
	e[11] = attrs;			/* DIR_Attr */
	e[12] = ntres;			/* DIR_NTRes: lower-case flags */
	e[13] = tenth;			/* DIR_CrtTimeTenth */
	put_le16(e + 14, time);		/* DIR_CrtTime */
	put_le16(e + 16, date);		/* DIR_CrtDate */
	put_le16(e + 18, date);		/* DIR_LstAccDate */
	put_le16(e + 20, (uint16_t)(cluster >> 16)); /* DIR_FstClusHI */
	put_le16(e + 22, time);		/* DIR_WrtTime */
	put_le16(e + 24, date);		/* DIR_WrtDate */
	put_le16(e + 26, (uint16_t)cluster); /* DIR_FstClusLO */
	put_le32(e + 28, size);		/* DIR_FileSize */
}

/* UTF-16 unit @i of an LFN: the name, then one 0x0000, then 0xFFFF padding. */
static uint16_t lfn_unit(const uint16_t *u, size_t n, size_t i)
{
	return i < n ? u[i] : i == n ? 0x0000 : 0xFFFF;
}

void fat_put_lfn_entries(uint8_t *e, const uint16_t *u, size_t n, const uint8_t sfn[11])
{
	static const uint8_t pos[13] = { 1, 3, 5, 7, 9, 14, 16, 18, 20, 22, 24, 28, 30 };
	size_t count = (n + 12) / 13;
	uint8_t sum = fat_lfn_checksum(sfn);

	/* entries come last-first: ordinal count|0x40, count-1, ..., 1 */
	for (size_t k = 0; k < count; k++) {
		uint8_t *x = e + 32 * k;
		size_t ord = count - k;
		memset(x, 0, 32);
		x[0] = (uint8_t)(ord | (k == 0 ? 0x40 : 0)); /* LDIR_Ord */
		x[11] = 0x0F;				       /* LDIR_Attr: ATTR_LONG_NAME */
		x[13] = sum;				       /* LDIR_Chksum */
		for (size_t j = 0; j < 13; j++)		       /* LDIR_Name1/2/3 */
			put_le16(x + pos[j], lfn_unit(u, n, (ord - 1) * 13 + j));
	}
}
