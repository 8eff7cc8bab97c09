/* SPDX-License-Identifier: MIT */
/*
 * fat/params: choose FAT type, cluster size, reserved sectors and FAT size for a volume.
 * Rules and sources: fat.h (fat_params); SD Part 2 format parameters; fatgen103 "FAT Type
 * Determination" and "FAT Volume Initialization".
 */
#include "fat/params_priv.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* SD Association format table (SD Part 2 format parameters): capacity in sectors -> FAT type, SC. */
struct sd_row {
	uint32_t max_sectors;
	enum fat_type type;
	uint32_t spc;
};

static const struct sd_row sd_rows[] = {
	{ 1u << 14, FAT_12, 16 }, { 1u << 17, FAT_12, 32 }, { 1u << 19, FAT_16, 32 },
	{ 1u << 21, FAT_16, 32 }, { 1u << 22, FAT_16, 64 }, { UINT32_MAX, FAT_32, 64 },
};

int fat_count_ok(enum fat_type type, uint32_t n)
{
	switch (type) {
	case FAT_12:
		return n >= 1 && n <= FAT12_MAX_SAFE;
	case FAT_16:
		return n >= FAT16_MIN_SAFE && n <= FAT16_MAX_SAFE;
	case FAT_32:
		return n >= FAT32_MIN_SAFE && n <= FAT32_MAX;
	default:
		return 0;
	}
}

/* FAT sectors needed for @count clusters (fatgen103: entries 0 and 1 are reserved). */
static uint64_t fat_need(enum fat_type type, uint64_t count)
{
	uint64_t bytes = (count + 2) * (uint64_t)type / 8 + ((count + 2) * type % 8 ? 1 : 0);
	return (bytes + FAT_SECTOR - 1) / FAT_SECTOR;
}

static uint64_t count_for(uint64_t ts, uint64_t sys, uint32_t spc)
{
	return ts > sys ? (ts - sys) / spc : 0;
}

/*
 * The smallest FAT size that covers the clusters it leaves room for. Both the count and the
 * need shrink as the FAT grows, so "need(count(sf)) <= sf" is monotone: binary search.
 */
static uint64_t fat_size(enum fat_type type, uint64_t ts, uint64_t fixed, uint32_t fats,
			 uint32_t spc)
{
	uint64_t lo = 1, hi = fat_need(type, ts / spc);

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (fat_need(type, count_for(ts, fixed + fats * mid, spc)) <= mid)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static uint32_t opt_fats(const struct fat_opts *o)
{
	return o->fats ? o->fats : 2;
}

static uint32_t opt_root_entries(const struct fat_opts *o, enum fat_type type)
{
	uint32_t want = (o->root_entries_min + 15) / 16 * 16;

	if (type == FAT_32)
		return 0;
	if (o->root_entries)
		return o->root_entries;
	return want < 512 ? 512 : want > FAT_ROOT_ENTRIES_MAX ? FAT_ROOT_ENTRIES_MAX : want;
}

/*
 * Lays out @type with @spc sectors per cluster on @ts sectors that start at disk sector @off:
 * minimal reserved sectors (FAT12/16: 1, FAT32: 32, fatgen103), padded for data-align unless
 * fixed by hand. The FAT size is computed before the padding and kept: padding only removes
 * clusters, so the FAT stays large enough (at most a few sectors larger than needed).
 */
void fat_layout_try(const struct fat_opts *o, enum fat_type type, uint32_t spc, uint64_t ts,
		    uint64_t off, struct fat_cand *c)
{
	uint64_t rsv = o->reserved ? o->reserved : (type == FAT_32 ? 32 : 1);
	uint64_t rds = opt_root_entries(o, type) * 32ull / FAT_SECTOR;
	uint64_t sf = fat_size(type, ts, rsv + rds, opt_fats(o), spc);
	uint64_t align = o->data_align / FAT_SECTOR;
	uint64_t sys = rsv + opt_fats(o) * sf + rds;

	c->pad = 0;
	if (align > 1 && !o->reserved) {
		c->pad = (align - (off + sys) % align) % align;
		rsv += c->pad;
		sys += c->pad;
	}
	c->want_reserved = rsv;
	c->reserved = rsv > 0xFFFF ? 0xFFFF : (uint32_t)rsv;
	c->fat_sectors = (uint32_t)sf;
	c->root_sectors = (uint32_t)rds;
	c->room = rsv <= 0xFFFF && ts > sys;
	c->clusters = (uint32_t)(c->room ? count_for(ts, sys, spc) : 0);
	if (count_for(ts, sys, spc) > UINT32_MAX)
		c->clusters = UINT32_MAX;
}

int fat_works(const struct fat_opts *o, enum fat_type type, uint32_t spc, uint64_t ts, uint64_t off)
{
	struct fat_cand c;

	fat_layout_try(o, type, spc, ts, off, &c);
	return c.room && fat_count_ok(type, c.clusters);
}

static const struct sd_row *sd_row_for(uint64_t ts)
{
	const struct sd_row *row = sd_rows;

	while (ts > row->max_sectors)
		row++;
	return row;
}

uint32_t fat_table_spc(uint64_t ts)
{
	return sd_row_for(ts)->spc;
}

const enum fat_type *fat_auto_order(const struct fat_opts *o, uint64_t ts)
{
	static const enum fat_type small[] = { FAT_16, FAT_32, FAT_12 };
	static const enum fat_type large[] = { FAT_32, FAT_16, FAT_12 };

	return o->esp || sd_row_for(ts)->type == FAT_32 ? large : small;
}

/* The geometry of @type with @spc sectors per cluster (names and CHS not filled in). */
static void fill_geom(const struct fat_opts *o, enum fat_type type, uint32_t spc, uint64_t ts,
		      uint64_t off, struct fat_geom *g)
{
	struct fat_cand c;

	fat_layout_try(o, type, spc, ts, off, &c);
	memset(g, 0, sizeof(*g));
	g->type = type;
	g->sec_per_clus = spc;
	g->cluster_size = spc * FAT_SECTOR;
	g->reserved = c.reserved;
	g->fats = opt_fats(o);
	g->fat_sectors = c.fat_sectors;
	g->root_entries = opt_root_entries(o, type);
	g->root_sectors = c.root_sectors;
	g->clusters = c.clusters;
	g->total_sectors = (uint32_t)ts;
	g->hidden_sectors = (uint32_t)off;
	g->data_offset = (uint64_t)(c.reserved + g->fats * c.fat_sectors + c.root_sectors) *
			 FAT_SECTOR;
	g->has_label = o->label && *o->label;
}

/* A working candidate that also passes the caller's test (@h NULL: any working one). */
static int fits(const struct fat_opts *o, enum fat_type type, uint32_t spc, uint64_t ts,
		uint64_t off, const struct fat_holds *h)
{
	struct fat_geom g;

	if (!fat_works(o, type, spc, ts, off))
		return 0;
	if (!h)
		return 1;
	if (type == FAT_32 && o->root_entries) /* root-entries asks for a fixed root */
		return 0;
	fill_geom(o, type, spc, ts, off, &g);
	return h->fn(h->ctx, &g);
}

/* Type and sectors per cluster for @ts sectors with the settings @o and the test @h; 0
 * when none passes. */
static int pick_with(const struct fat_opts *o, uint64_t ts, uint64_t off, const struct fat_holds *h,
		     enum fat_type *type, uint32_t *spc)
{
	const struct sd_row *row = sd_row_for(ts);
	uint32_t top = o->cluster_size ? o->cluster_size / FAT_SECTOR : row->spc;
	uint32_t bottom = o->cluster_size ? top : 1;

	if (o->type != FAT_AUTO) {
		*type = o->type;
		*spc = top;
		if (fits(o, *type, *spc, ts, off, h))
			return 1;
		if (o->cluster_size)
			return 0;
		/* the working cluster size nearest to the table's (ties: the larger) */
		for (uint32_t k = 1; k < 8; k++) {
			uint64_t up = (uint64_t)top << k, down = top >> k;
			*spc = (uint32_t)up;
			if (up <= 64 && fits(o, *type, *spc, ts, off, h))
				return 1;
			*spc = (uint32_t)down;
			if (down >= 1 && (down << k) == top && fits(o, *type, *spc, ts, off, h))
				return 1;
		}
		return 0;
	}
	for (const enum fat_type *t = fat_auto_order(o, ts); t < fat_auto_order(o, ts) + 3; t++)
		for (*spc = top; *spc >= bottom; *spc /= 2) {
			*type = *t;
			if (fits(o, *type, *spc, ts, off, h))
				return 1;
		}
	return 0;
}

int fat_pick(const struct fat_opts *o, uint64_t ts, uint64_t off, const struct fat_holds *h,
	     enum fat_type *type, uint32_t *spc)
{
	return (h && pick_with(o, ts, off, h, type, spc)) || pick_with(o, ts, off, NULL, type, spc);
}

/* Picks type and sectors per cluster (see fat_params() in fat.h for the rules). */
static int choose(const struct fat_opts *o, uint64_t ts, uint64_t off, const struct fat_holds *h,
		  enum fat_type *type, uint32_t *spc, struct diag *d, enum fat_why *why)
{
	int r;

	if (fat_pick(o, ts, off, h, type, spc))
		return 0;
	r = fat_params_impossible(o, ts, off, d, why);
	assert(r < 0); /* for a static analyser, which does not see into fat/params_limits.c */
	return r;
}

static int check_opts(const struct fat_opts *o, uint64_t vol_bytes, uint64_t vol_offset,
		      struct diag *d)
{
	uint32_t cs = o->cluster_size;

	if (vol_bytes % FAT_SECTOR || vol_bytes / FAT_SECTOR > UINT32_MAX || !vol_bytes)
		return diag_error(d,
				  "FAT volume size %" PRIu64 " is not a non-zero multiple of 512 "
				  "up to 2T - 512",
				  vol_bytes);
	if (vol_offset % FAT_SECTOR || vol_offset / FAT_SECTOR > UINT32_MAX)
		return diag_error(d,
				  "FAT volume offset %" PRIu64 " is not a multiple of 512 below "
				  "2T",
				  vol_offset);
	if (o->type != FAT_AUTO && o->type != FAT_12 && o->type != FAT_16 && o->type != FAT_32)
		return diag_error(d, "FAT type %d: use 12, 16 or 32", (int)o->type);
	if (cs && (cs < 512 || cs > 65536 || (cs & (cs - 1))))
		return diag_error(d, "cluster-size %" PRIu32 ": use a power of two from 512 to 64K",
				  cs);
	if (o->fats > 2)
		return diag_error(d, "fats = %u: use 1 or 2", o->fats);
	if (o->root_entries && (o->root_entries % 16 || o->root_entries > 65520))
		return diag_error(d, "root-entries = %u: use a multiple of 16 up to 65520",
				  o->root_entries);
	if (o->root_entries && o->type == FAT_32)
		return diag_error(d,
				  "root-entries = %u: FAT32 has no fixed root directory; drop it",
				  o->root_entries);
	if (o->reserved > 0xFFFF)
		return diag_error(d, "reserved = %u: at most 65535", o->reserved);
	if (o->data_align % FAT_SECTOR)
		return diag_error(d, "data-align %" PRIu64 " is not a multiple of 512",
				  o->data_align);
	return 0;
}

/* Settings that the chosen type cannot honour: a hand-set reserved count that clashes with
 * data-align or is too small for FAT32, root-entries on FAT32. */
static int check_resolved(const struct fat_opts *o, const struct fat_geom *g, uint64_t off,
			  struct diag *d)
{
	uint64_t align = o->data_align / FAT_SECTOR;
	uint64_t start = off + g->data_offset / FAT_SECTOR;

	if (g->type == FAT_32 && g->reserved < 9)
		return diag_error(d,
				  "reserved = %u: FAT32 needs at least 9 (boot sectors 0-2 and "
				  "their backups at 6-8)",
				  g->reserved);
	if (g->type == FAT_32 && o->root_entries)
		return diag_error(d,
				  "root-entries = %u: this volume is FAT32, which has no fixed "
				  "root directory; drop root-entries or choose fat12/fat16",
				  o->root_entries);
	if (o->reserved && align > 1 && start % align) {
		char a[16];
		return diag_error(d,
				  "reserved = %u puts the data area at disk sector %" PRIu64
				  ", not a multiple of data-align %s; reserved = %" PRIu64
				  " would align it",
				  o->reserved, start, units_layout(o->data_align, a, sizeof(a)),
				  o->reserved + (align - start % align));
	}
	return 0;
}

int fat_params_why(const struct fat_opts *o, uint64_t vol_bytes, uint64_t vol_offset,
		   const struct fat_holds *h, struct fat_geom *ret, struct diag *d,
		   enum fat_why *why)
{
	static const struct fat_opts none;
	uint64_t ts = vol_bytes / FAT_SECTOR, off = vol_offset / FAT_SECTOR;
	enum fat_type type;
	uint32_t spc;
	int r;

	if (!o)
		o = &none;
	memset(ret, 0, sizeof(*ret));
	*why = FAT_WHY_SETTINGS;
	r = check_opts(o, vol_bytes, vol_offset, d);
	if (!r)
		r = choose(o, ts, off, h, &type, &spc, d, why);
	if (r)
		return r;
	*why = FAT_WHY_SETTINGS;
	fill_geom(o, type, spc, ts, off, ret);
	r = check_resolved(o, ret, off, d);
	if (!r)
		r = fat_geom_names(ret, o, vol_bytes, d);
	if (!r)
		*why = FAT_WHY_OK;
	return r;
}

int fat_params(const struct fat_opts *o, uint64_t vol_bytes, uint64_t vol_offset,
	       struct fat_geom *ret, struct diag *d)
{
	enum fat_why why;

	return fat_params_why(o, vol_bytes, vol_offset, NULL, ret, d, &why);
}
