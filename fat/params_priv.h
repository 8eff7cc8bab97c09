/* SPDX-License-Identifier: MIT */
/* fat/params: private helpers shared by the parameter code and the writer. */
#ifndef SDIMG_FAT_PARAMS_PRIV_H
#define SDIMG_FAT_PARAMS_PRIV_H

#include "common/units.h"
#include "fat/fat.h"

/*
 * Safe cluster-count ranges: fatgen103 draws the lines at 4085 and 65525 and advises keeping
 * 16 clusters away from them; FAT32 stops at 0x0FFFFFF5 clusters (0x0FFFFFF7 is "bad").
 */
#define FAT12_MAX_SAFE 4069u
#define FAT16_MIN_SAFE 4101u
#define FAT16_MAX_SAFE 65509u
#define FAT32_MIN_SAFE 65541u
#define FAT32_MAX 0x0FFFFFF5u

/* BPB_RootEntCnt is 16 bits; the root fills whole sectors of 16 entries. */
#define FAT_ROOT_ENTRIES_MAX 65520u

/* What a failure of fat_params_why() says about larger volumes of the same settings. */
enum fat_why {
	FAT_WHY_OK,       /* no failure */
	FAT_WHY_SMALL,    /* a larger volume may work (no room, too few clusters, files short) */
	FAT_WHY_STUCK,    /* larger volumes do not help: too many clusters for the type */
	FAT_WHY_SETTINGS, /* the settings clash whatever the size (padding, root-entries, ...) */
};

/* What a default choice must also pass: @fn returns 1 when the files fit geometry @g. */
struct fat_holds {
	int (*fn)(void *ctx, const struct fat_geom *g);
	void *ctx;
};

/*
 * fat_params(), also saying in @why whether a larger volume could succeed. With @h, a
 * default cluster size (and FAT_AUTO's type) is the first in fat_params()'s order that
 * also passes @h; when none does, the first that works.
 */
int fat_params_why(const struct fat_opts *o, uint64_t vol_bytes, uint64_t vol_offset,
		   const struct fat_holds *h, struct fat_geom *ret, struct diag *d,
		   enum fat_why *why);

/* Returns 1 when @n clusters are a safe count for @type, else 0. */
int fat_count_ok(enum fat_type type, uint32_t n);

/* One candidate layout: what fat_layout_try() found for a type and a cluster size. */
struct fat_cand {
	uint32_t reserved, fat_sectors, root_sectors, clusters;
	uint64_t pad;           /* reserved sectors added for data-align */
	uint64_t want_reserved; /* reserved sectors with the padding (may pass 65535) */
	int room;               /* 0: the system area does not even fit */
};

/*
 * Lays out @type with @spc sectors per cluster on @ts sectors that start at disk sector @off
 * (fat/params.c says how).
 */
void fat_layout_try(const struct fat_opts *o, enum fat_type type, uint32_t spc, uint64_t ts,
		    uint64_t off, struct fat_cand *c);

/* 1 when that layout has room and a safe cluster count for @type. */
int fat_works(const struct fat_opts *o, enum fat_type type, uint32_t spc, uint64_t ts,
	      uint64_t off);

/* The SD table's sectors per cluster for @ts sectors. */
uint32_t fat_table_spc(uint64_t ts);

/* The three types in the order FAT_AUTO tries them for @ts sectors. */
const enum fat_type *fat_auto_order(const struct fat_opts *o, uint64_t ts);

/*
 * Type and sectors per cluster as fat_params() picks them, the first that also passes @h
 * when one does (else the first that works). Returns 1, or 0 when none works.
 */
int fat_pick(const struct fat_opts *o, uint64_t ts, uint64_t off, const struct fat_holds *h,
	     enum fat_type *type, uint32_t *spc);

/* The error when fat_pick() finds nothing, with @why set (fat/params_limits.c). */
int fat_params_impossible(const struct fat_opts *o, uint64_t ts, uint64_t off, struct diag *d,
			  enum fat_why *why);

/* Fills label, OEM name, volume id and CHS fields of @g from @o; checks label and OEM name. */
int fat_geom_names(struct fat_geom *g, const struct fat_opts *o, uint64_t vol_bytes,
		   struct diag *d);

#endif
