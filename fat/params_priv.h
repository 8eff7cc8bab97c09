/* fat/params: private helpers shared by the parameter code and the writer. */
#ifndef SDIMG_FAT_PARAMS_PRIV_H
#define SDIMG_FAT_PARAMS_PRIV_H

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
	FAT_WHY_OK,    /* no failure */
	FAT_WHY_SMALL, /* a larger volume may work (no room, too few clusters, files short) */
	FAT_WHY_STUCK, /* larger volumes do not help: too many clusters for the type */
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

/* Formats @bytes as "512", "4K", "1M", "3G" (exact units only, else bytes) into @buf. */
const char *fat_fmt_size(char *buf, size_t len, uint64_t bytes);

/* Fills label, OEM name, volume id and CHS fields of @g from @o; checks label and OEM name. */
int fat_geom_names(struct fat_geom *g, const struct fat_opts *o, uint64_t vol_bytes,
		   struct diag *d);

#endif
