/* SPDX-License-Identifier: MIT */
/* fat/write: on-disk structures shared by the writer and the reader (private to fat/). */
#ifndef SDIMG_FAT_WRITE_PRIV_H
#define SDIMG_FAT_WRITE_PRIV_H

#include "fat/fat.h"
#include "fat/name_priv.h"

#define FAT_MEDIA 0xF8 /* BPB_Media and the low byte of FAT[0]: fixed disk */

/* FAT entry access for one FAT width (fatgen103 "FAT Type Determination" and entries). */
struct fat_ent_ops {
	unsigned bits;
	uint32_t eoc;     /* end-of-chain value written */
	uint32_t eoc_min; /* any value from here up is end of chain */
	uint32_t bad;     /* bad-cluster mark */
	uint32_t (*get)(const uint8_t *fat, uint32_t c);
	void (*set)(uint8_t *fat, uint32_t c, uint32_t v);
};

/* The entry operations of FAT @type (12, 16 or 32). */
const struct fat_ent_ops *fat_ent_ops(enum fat_type type);

/* Bytes of FAT that entries 0..@n-1 occupy. */
uint64_t fat_ent_bytes(enum fat_type type, uint64_t n);

/* Serialisers (bootsect.c). */
void fat_put_boot_sector(uint8_t s[FAT_SECTOR], const struct fat_geom *g);
void fat_put_fsinfo(uint8_t s[FAT_SECTOR], uint32_t free_count, uint32_t next_free);
void fat_put_sfn_entry(uint8_t e[32], const uint8_t name[11], uint8_t attrs, uint8_t ntres,
		       uint32_t cluster, uint32_t size, int64_t mtime, uint32_t ns);
/* Writes the (n + 12) / 13 LFN entries of @u/@n for short name @sfn at @e. */
void fat_put_lfn_entries(uint8_t *e, const uint16_t *u, size_t n, const uint8_t sfn[11]);

#endif
