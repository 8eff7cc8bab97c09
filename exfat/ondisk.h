/* SPDX-License-Identifier: MIT */
/*
 * exfat/ondisk: the exFAT on-disk structures, defined once for the writer and the reader.
 * Byte offsets and values are those of Microsoft's "exFAT File System Specification"
 * (learn.microsoft.com/windows/win32/fileio/exfat-specification), named as it names them:
 * §3.1 "Main and Backup Boot Sector Structure", §3.2 "Main and Backup Extended Boot Sectors",
 * §3.4 "Main and Backup Boot Checksum Sub-regions", §4 "File Allocation Table Region",
 * §6 "Directory Structure", §7 "Directory Entry Definitions" (§7.1 Allocation Bitmap, §7.2
 * Up-case Table, §7.3 Volume Label, §7.4 File, §7.5 Volume GUID, §7.6 Stream Extension,
 * §7.7 File Name). Every multi-byte field is little-endian (common/bytes.h).
 */
#ifndef SDIMG_EXFAT_ONDISK_H
#define SDIMG_EXFAT_ONDISK_H

#include <stdint.h>

/* ---- the boot region (§3): 12 sectors of main boot region, then 12 of backup */
#define EXFAT_BOOT_REGION_SECTORS \
	12u                       /* boot sector, 8 extended boot sectors, OEM parameters,
				       * reserved, boot checksum (§3) */
#define EXFAT_EXT_BOOT_SECTORS 8u /* sectors 1..8 (§3.2) */
#define EXFAT_OEM_SECTOR 9u       /* §3.3 */
#define EXFAT_CHECKSUM_SECTOR 11u /* §3.4: the checksum, repeated over the sector */

/* ---- the boot sector (§3.1, Table 3) */
enum exfat_boot_field {
	EXFAT_JUMPBOOT = 0,                     /* 3 bytes: EB 76 90 */
	EXFAT_FILESYSTEMNAME = 3,               /* 8 bytes: "EXFAT   " */
	EXFAT_MUSTBEZERO = 11,                  /* 53 bytes: 0 (where a FAT BPB would be) */
	EXFAT_PARTITIONOFFSET = 64,             /* 8 bytes: sectors before the volume on its disk */
	EXFAT_VOLUMELENGTH = 72,                /* 8 bytes: sectors of the volume */
	EXFAT_FATOFFSET = 80,                   /* 4 bytes: first FAT's sector, from the volume */
	EXFAT_FATLENGTH = 84,                   /* 4 bytes: sectors of each FAT */
	EXFAT_CLUSTERHEAPOFFSET = 88,           /* 4 bytes: sector of cluster 2 */
	EXFAT_CLUSTERCOUNT = 92,                /* 4 bytes: clusters in the heap */
	EXFAT_FIRSTCLUSTEROFROOTDIRECTORY = 96, /* 4 bytes */
	EXFAT_VOLUMESERIALNUMBER = 100,         /* 4 bytes */
	EXFAT_FILESYSTEMREVISION = 104,         /* 2 bytes: 0x0100 (major 1 high, minor 0 low) */
	EXFAT_VOLUMEFLAGS = 106,                /* 2 bytes: EXFAT_FLAG_*; not in the checksum */
	EXFAT_BYTESPERSECTORSHIFT = 108,        /* 1 byte: 9..12 */
	EXFAT_SECTORSPERCLUSTERSHIFT = 109,     /* 1 byte: cluster at most 32 MiB */
	EXFAT_NUMBEROFFATS = 110,               /* 1 byte: 1, or 2 with TexFAT */
	EXFAT_DRIVESELECT = 111,                /* 1 byte: 0x80 */
	EXFAT_PERCENTINUSE = 112,               /* 1 byte: 0..100, or 0xFF unknown; not in the
						* checksum */
	EXFAT_RESERVED = 113,                   /* 7 bytes: 0 */
	EXFAT_BOOTCODE = 120,                   /* 390 bytes */
	EXFAT_BOOTSIGNATURE = 510,              /* 2 bytes: 55 AA */
};
#define EXFAT_NAME "EXFAT   "
#define EXFAT_REVISION 0x0100u
#define EXFAT_FLAG_ACTIVEFAT 0x0001u    /* VolumeFlags bit 0: second FAT active */
#define EXFAT_FLAG_VOLUMEDIRTY 0x0002u  /* bit 1 */
#define EXFAT_FLAG_MEDIAFAILURE 0x0004u /* bit 2 */
#define EXFAT_FLAG_CLEARTOZERO 0x0008u  /* bit 3 */
#define EXFAT_DRIVE 0x80u
#define EXFAT_PERCENT_UNKNOWN 0xFFu
/* the extended boot sectors end in this signature (§3.2.1, ExtendedBootSignature: the last
 * 4 bytes of each of the 8 sectors) */
#define EXFAT_EXT_BOOT_SIGNATURE 0xAA550000u
/* cluster size limit (§3.1.9: BytesPerSectorShift + SectorsPerClusterShift at most 25) */
#define EXFAT_MAX_CLUSTER_SHIFT 25u
/* the highest cluster count the heap may hold (§3.1.8: at most 2^32 - 11) */
#define EXFAT_MAX_CLUSTERS 0xFFFFFFF5u

/* ---- the FAT (§4.1) */
#define EXFAT_FAT_MEDIA 0xFFFFFFF8u  /* FatEntry[0]: media type F8 and FF FF FF */
#define EXFAT_FAT_ENTRY1 0xFFFFFFFFu /* FatEntry[1] */
#define EXFAT_FAT_BAD 0xFFFFFFF7u
#define EXFAT_FAT_EOC 0xFFFFFFFFu /* end of a cluster chain */
#define EXFAT_FIRST_CLUSTER 2u

/* ---- directory entries (§6.2, Table 14): 32 bytes each */
#define EXFAT_DENTRY_SIZE 32u
enum exfat_dentry_field {
	EXFAT_DE_ENTRYTYPE = 0, /* 1 byte: TypeCode (bits 0-4), TypeImportance (5),
				 * TypeCategory (6: secondary), InUse (7) */
	/* generic primary (§6.3) and secondary (§6.4) entries end in these two */
	EXFAT_DE_FIRSTCLUSTER = 20, /* 4 bytes */
	EXFAT_DE_DATALENGTH = 24,   /* 8 bytes */
};
/* EntryType values of the entries sdimg writes and reads (§7) */
#define EXFAT_TYPE_END 0x00u       /* end of the directory (§6.2.1.1) */
#define EXFAT_TYPE_BITMAP 0x81u    /* Allocation Bitmap (§7.1) */
#define EXFAT_TYPE_UPCASE 0x82u    /* Up-case Table (§7.2) */
#define EXFAT_TYPE_LABEL 0x83u     /* Volume Label (§7.3) */
#define EXFAT_TYPE_FILE 0x85u      /* File (§7.4) */
#define EXFAT_TYPE_GUID 0xA0u      /* Volume GUID (§7.5) */
#define EXFAT_TYPE_STREAM 0xC0u    /* Stream Extension (§7.6) */
#define EXFAT_TYPE_NAME 0xC1u      /* File Name (§7.7) */
#define EXFAT_TYPE_INUSE 0x80u     /* InUse bit of EntryType */
#define EXFAT_TYPE_SECONDARY 0x40u /* TypeCategory bit */
#define EXFAT_TYPE_BENIGN 0x20u    /* TypeImportance bit */

/* Allocation Bitmap entry (§7.1.1); FirstCluster at 20, DataLength (bytes of the bitmap)
 * at 24 */
enum exfat_bitmap_field {
	EXFAT_BM_FLAGS = 1, /* 1 byte: bit 0 = which FAT's bitmap (0: first) */
};

/* Up-case Table entry (§7.2.1); FirstCluster at 20, DataLength at 24 */
enum exfat_upcase_field {
	EXFAT_UC_TABLECHECKSUM = 4, /* 4 bytes: the checksum of §7.2.2 over the table */
};

/* Volume Label entry (§7.3.1) */
enum exfat_label_field {
	EXFAT_VL_CHARACTERCOUNT = 1, /* 1 byte: 0..11 */
	EXFAT_VL_VOLUMELABEL = 2,    /* 22 bytes: up to 11 UTF-16LE units */
};
#define EXFAT_LABEL_MAX 11u

/* File entry (§7.4) */
enum exfat_file_field {
	EXFAT_FE_SECONDARYCOUNT = 1,  /* 1 byte: 2..18 */
	EXFAT_FE_SETCHECKSUM = 2,     /* 2 bytes: §6.3.3 over the whole set */
	EXFAT_FE_FILEATTRIBUTES = 4,  /* 2 bytes: EXFAT_ATTR_* */
	EXFAT_FE_CREATETIMESTAMP = 8, /* 4 bytes: §7.4.8 (DOS date and time) */
	EXFAT_FE_LASTMODIFIEDTIMESTAMP = 12,
	EXFAT_FE_LASTACCESSEDTIMESTAMP = 16,
	EXFAT_FE_CREATE10MSINCREMENT = 20, /* 1 byte: 0..199 */
	EXFAT_FE_LASTMODIFIED10MSINCREMENT = 21,
	EXFAT_FE_CREATEUTCOFFSET = 22, /* 1 byte: bit 7 valid, bits 0-6 signed 15-min units */
	EXFAT_FE_LASTMODIFIEDUTCOFFSET = 23,
	EXFAT_FE_LASTACCESSEDUTCOFFSET = 24,
};
#define EXFAT_ATTR_READONLY 0x0001u
#define EXFAT_ATTR_HIDDEN 0x0002u
#define EXFAT_ATTR_SYSTEM 0x0004u
#define EXFAT_ATTR_DIRECTORY 0x0010u
#define EXFAT_ATTR_ARCHIVE 0x0020u
#define EXFAT_UTC_OFFSET_VALID 0x80u /* an offset of 0 (UTC) is written as 0x80 */
#define EXFAT_SET_MAX_SECONDARY 18u  /* a stream and 17 names (§7.4.1) */

/* Volume GUID entry (§7.5) */
enum exfat_guid_field {
	EXFAT_VG_SECONDARYCOUNT = 1, /* 1 byte: 0 */
	EXFAT_VG_SETCHECKSUM = 2,    /* 2 bytes */
	EXFAT_VG_FLAGS = 4,          /* 2 bytes: 0 */
	EXFAT_VG_VOLUMEGUID = 6,     /* 16 bytes */
};

/* Stream Extension entry (§7.6) */
enum exfat_stream_field {
	EXFAT_SE_FLAGS = 1,           /* 1 byte: GeneralSecondaryFlags (§6.4.2) */
	EXFAT_SE_NAMELENGTH = 3,      /* 1 byte: UTF-16 units of the name, 1..255 */
	EXFAT_SE_NAMEHASH = 4,        /* 2 bytes: §7.6.4 over the up-cased name */
	EXFAT_SE_VALIDDATALENGTH = 8, /* 8 bytes */
				      /* FirstCluster at 20, DataLength at 24 */
};
#define EXFAT_SE_ALLOCATIONPOSSIBLE 0x01u /* GeneralSecondaryFlags bit 0 */
#define EXFAT_SE_NOFATCHAIN \
	0x02u               /* bit 1: the clusters are contiguous, the FAT
					   * holds nothing for them */
#define EXFAT_NAME_MAX 255u /* UTF-16 units of a file name */

/* File Name entry (§7.7) */
enum exfat_name_field {
	EXFAT_FN_FLAGS = 1,    /* 1 byte: 0 */
	EXFAT_FN_FILENAME = 2, /* 30 bytes: 15 UTF-16LE units */
};
#define EXFAT_NAME_UNITS_PER_ENTRY 15u

#endif
