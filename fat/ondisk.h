/* SPDX-License-Identifier: MIT */
/*
 * fat/ondisk: the FAT on-disk structures, defined once for the writer (bootsect.c) and the
 * reader (read.c, readdir.c). Byte offsets and values are those of Microsoft's "FAT: General
 * Overview of On-Disk Format" (fatgen103, version 1.03), named as it names them: §3.1 "Boot
 * Sector and BPB", §3.2 and §3.3 the FAT12/16 and FAT32 extensions, §5 "FAT32 FSInfo Sector
 * Structure", §6 "FAT Directory Structure", §7 "FAT Long Directory Entries". Every
 * multi-byte field is little-endian (common/bytes.h).
 */
#ifndef SDIMG_FAT_ONDISK_H
#define SDIMG_FAT_ONDISK_H

#include <stdint.h>

/* ---- boot sector and BPB (§3.1): offsets 0..35, shared by all FAT types */
enum fat_bpb_field {
	BS_JMPBOOT = 0,      /* 3 bytes: EB xx 90 or E9 xx xx */
	BS_OEMNAME = 3,      /* 8 bytes */
	BPB_BYTSPERSEC = 11, /* 2 bytes: 512, 1024, 2048 or 4096 */
	BPB_SECPERCLUS = 13, /* 1 byte: a power of two up to 128 */
	BPB_RSVDSECCNT = 14, /* 2 bytes: sectors before the first FAT, never 0 */
	BPB_NUMFATS = 16,    /* 1 byte */
	BPB_ROOTENTCNT = 17, /* 2 bytes: 32-byte entries of the fixed root; 0 on FAT32 */
	BPB_TOTSEC16 = 19,   /* 2 bytes: total sectors when they fit, else 0 */
	BPB_MEDIA = 21,      /* 1 byte: 0xF8 fixed, 0xF0 removable, 0xF9..0xFF */
	BPB_FATSZ16 = 22,    /* 2 bytes: sectors per FAT on FAT12/16; 0 on FAT32 */
	BPB_SECPERTRK = 24,  /* 2 bytes */
	BPB_NUMHEADS = 26,   /* 2 bytes */
	BPB_HIDDSEC = 28,    /* 4 bytes: sectors before the volume on its disk */
	BPB_TOTSEC32 = 32,   /* 4 bytes: total sectors when BPB_TOTSEC16 is 0 */
};

/* ---- FAT32's BPB extension (§3.3): offsets 36..63 */
enum fat_bpb32_field {
	BPB_FATSZ32 = 36,   /* 4 bytes: sectors per FAT */
	BPB_EXTFLAGS = 40,  /* 2 bytes: 0 = the FATs are mirrored */
	BPB_FSVER = 42,     /* 2 bytes: 0.0, minor version in the low byte */
	BPB_ROOTCLUS = 44,  /* 4 bytes: first cluster of the root directory */
	BPB_FSINFO = 48,    /* 2 bytes: sector of the FSInfo structure */
	BPB_BKBOOTSEC = 50, /* 2 bytes: sector of the backup boot sector */
};

/* ---- the extended boot record (§3.2, §3.3): at FAT_EBPB_12_16 or FAT_EBPB_32, then code */
#define FAT_EBPB_12_16 36
#define FAT_EBPB_32 64
enum fat_ebpb_field {                 /* offsets from the start of the extended boot record */
		      BS_DRVNUM = 0,  /* 1 byte: 0x80 hard disk */
		      BS_BOOTSIG = 2, /* 1 byte: FAT_BOOTSIG when the next three fields exist */
		      BS_VOLID = 3,   /* 4 bytes: volume serial number */
		      BS_VOLLAB = 7,  /* 11 bytes: volume label, space-padded */
		      BS_FILSYSTYPE =
			      18, /* 8 bytes: "FAT12   ", "FAT16   ", "FAT32   " (informative only) */
		      FAT_EBPB_SIZE = 26, /* the boot code follows */
};
#define FAT_BOOTSIG 0x29
#define FAT_SIGNATURE_OFFSET 510 /* 0x55 0xAA at bytes 510 and 511 of a boot sector */

/* ---- FAT32 FSInfo sector (§5) */
enum fat_fsinfo_field {
	FSI_LEADSIG = 0,      /* 4 bytes: FSI_LEADSIG_VALUE */
	FSI_STRUCSIG = 484,   /* 4 bytes: FSI_STRUCSIG_VALUE */
	FSI_FREE_COUNT = 488, /* 4 bytes: free clusters, 0xFFFFFFFF unknown */
	FSI_NXT_FREE = 492,   /* 4 bytes: where to look for a free cluster, 0xFFFFFFFF unknown */
	FSI_TRAILSIG = 508,   /* 4 bytes: FSI_TRAILSIG_VALUE */
};
#define FSI_LEADSIG_VALUE 0x41615252u  /* "RRaA" */
#define FSI_STRUCSIG_VALUE 0x61417272u /* "rrAa" */
#define FSI_TRAILSIG_VALUE 0xAA550000u

/* ---- directory entry (§6): 32 bytes */
#define FAT_DIRENT_SIZE 32
enum fat_dirent_field {
	DIR_NAME = 0,          /* 11 bytes: 8.3 short name, space-padded */
	DIR_ATTR = 11,         /* 1 byte: FAT_ATTR_* bits (fat.h) */
	DIR_NTRES = 12,        /* 1 byte: lower-case flags (Windows NT) */
	DIR_CRTTIMETENTH = 13, /* 1 byte: 0..199, the 2 s of DIR_CRTTIME in 10 ms */
	DIR_CRTTIME = 14,      /* 2 bytes */
	DIR_CRTDATE = 16,      /* 2 bytes */
	DIR_LSTACCDATE = 18,   /* 2 bytes */
	DIR_FSTCLUSHI = 20,    /* 2 bytes: high word of the first cluster (FAT32) */
	DIR_WRTTIME = 22,      /* 2 bytes */
	DIR_WRTDATE = 24,      /* 2 bytes */
	DIR_FSTCLUSLO = 26,    /* 2 bytes: low word of the first cluster */
	DIR_FILESIZE = 28,     /* 4 bytes */
};
#define DIR_NAME_LEN 11
#define DIR_NAME_FREE 0xE5  /* DIR_Name[0]: the entry is free */
#define DIR_NAME_END 0x00   /* DIR_Name[0]: free, and so is every entry after it */
#define DIR_NAME_KANJI 0x05 /* DIR_Name[0]: stands for a real 0xE5 */

/* ---- long-name entry (§7): 32 bytes, 13 UTF-16 units each */
enum fat_lfn_field {
	LDIR_ORD = 0,        /* 1 byte: ordinal 1..20, FAT_LFN_LAST on the last (first stored) */
	LDIR_NAME1 = 1,      /* 10 bytes: units 1-5 */
	LDIR_ATTR = 11,      /* 1 byte: FAT_ATTR_LONG_NAME */
	LDIR_TYPE = 12,      /* 1 byte: 0 */
	LDIR_CHKSUM = 13,    /* 1 byte: checksum of the short name */
	LDIR_NAME2 = 14,     /* 12 bytes: units 6-11 */
	LDIR_FSTCLUSLO = 26, /* 2 bytes: 0 */
	LDIR_NAME3 = 28,     /* 4 bytes: units 12-13 */
};
#define FAT_LFN_UNITS 13  /* UTF-16 units per long-name entry */
#define FAT_LFN_LAST 0x40 /* LDIR_Ord flag of the last entry of a name */
#define FAT_LFN_ORD_MASK 0x3F
#define FAT_ATTR_LONG_NAME 0x0F /* READ_ONLY | HIDDEN | SYSTEM | VOLUME_ID */
#define FAT_ATTR_LONG_NAME_MASK 0x3F

/* The byte offset of UTF-16 unit @j (0..12) of a long-name entry's name. */
static inline unsigned fat_lfn_unit_offset(unsigned j)
{
	return j < 5    ? LDIR_NAME1 + 2 * j
	       : j < 11 ? LDIR_NAME2 + 2 * (j - 5)
			: LDIR_NAME3 + 2 * (j - 11);
}

#endif
