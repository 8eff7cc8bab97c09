/*
 * fat/params: choose FAT type, cluster size, reserved sectors and FAT size for a volume.
 * Rules and sources: fat.h (fat_params); SD Part 2 format parameters; fatgen103 "FAT Type
 * Determination" and "FAT Volume Initialization".
 */
#include "fat/params_priv.h"

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

/* One candidate layout: what layout_try() found for a type and a cluster size. */
struct cand {
	uint32_t reserved, fat_sectors, root_sectors, clusters;
	int room; /* 0: the system area does not even fit */
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

/* The type a count calls for, or FAT_AUTO when it sits within 16 of an edge. */
static enum fat_type type_for_count(uint32_t n)
{
	static const enum fat_type types[] = { FAT_12, FAT_16, FAT_32 };
	for (size_t i = 0; i < 3; i++)
		if (fat_count_ok(types[i], n))
			return types[i];
	return FAT_AUTO;
}

const char *fat_fmt_size(char *buf, size_t len, uint64_t bytes)
{
	static const char units[] = "KMGT";
	int u = -1;

	while (bytes >= 1024 && bytes % 1024 == 0 && u < 3) {
		bytes /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%" PRIu64, bytes);
	else
		snprintf(buf, len, "%" PRIu64 "%c", bytes, units[u]);
	return buf;
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
	if (type == FAT_32)
		return 0;
	return o->root_entries ? o->root_entries : 512;
}

/*
 * Lays out @type with @spc sectors per cluster on @ts sectors that start at disk sector @off:
 * minimal reserved sectors (FAT12/16: 1, FAT32: 32, fatgen103), padded for data-align unless
 * fixed by hand. The FAT size is computed before the padding and kept: padding only removes
 * clusters, so the FAT stays large enough (at most a few sectors larger than needed).
 */
static void layout_try(const struct fat_opts *o, enum fat_type type, uint32_t spc, uint64_t ts,
		       uint64_t off, struct cand *c)
{
	uint64_t rsv = o->reserved ? o->reserved : (type == FAT_32 ? 32 : 1);
	uint64_t rds = opt_root_entries(o, type) * 32ull / FAT_SECTOR;
	uint64_t sf = fat_size(type, ts, rsv + rds, opt_fats(o), spc);
	uint64_t align = o->data_align / FAT_SECTOR;
	uint64_t sys = rsv + opt_fats(o) * sf + rds;

	if (align > 1 && !o->reserved) {
		rsv += (align - (off + sys) % align) % align;
		sys = rsv + opt_fats(o) * sf + rds;
	}
	c->reserved = rsv > 0xFFFF ? 0xFFFF : (uint32_t)rsv;
	c->fat_sectors = (uint32_t)sf;
	c->root_sectors = (uint32_t)rds;
	c->room = rsv <= 0xFFFF && ts > sys;
	c->clusters = (uint32_t)(c->room ? count_for(ts, sys, spc) : 0);
	if (count_for(ts, sys, spc) > UINT32_MAX)
		c->clusters = UINT32_MAX;
}

static int works(const struct fat_opts *o, enum fat_type type, uint32_t spc, uint64_t ts,
		 uint64_t off)
{
	struct cand c;

	layout_try(o, type, spc, ts, off, &c);
	return c.room && fat_count_ok(type, c.clusters);
}

/* Appends "a..b" ranges of the cluster sizes that work for @type to @buf. */
static void list_spcs(char *buf, size_t len, const struct fat_opts *o, enum fat_type type,
		      uint64_t ts, uint64_t off)
{
	char a[16], b[16];
	uint32_t first = 0, last = 0;

	for (uint32_t spc = 1; spc <= 128; spc *= 2) {
		if (!works(o, type, spc, ts, off))
			continue;
		if (!first)
			first = spc;
		last = spc;
	}
	if (!first) {
		snprintf(buf, len, "no cluster size works for FAT%d", type);
		return;
	}
	fat_fmt_size(a, sizeof(a), (uint64_t)first * FAT_SECTOR);
	fat_fmt_size(b, sizeof(b), (uint64_t)last * FAT_SECTOR);
	if (first == last)
		snprintf(buf, len, "FAT%d works with cluster-size %s", type, a);
	else
		snprintf(buf, len, "FAT%d works with cluster-size %s..%s", type, a, b);
}

/* The error for an impossible type/cluster-size pair, with what would work instead. */
static int impossible(const struct fat_opts *o, enum fat_type type, uint32_t spc, uint64_t ts,
		      uint64_t off, struct diag *d)
{
	struct cand c;
	char size[16], cs[16], alt[3][96];
	static const enum fat_type types[] = { FAT_12, FAT_16, FAT_32 };

	layout_try(o, type, spc, ts, off, &c);
	fat_fmt_size(size, sizeof(size), ts * FAT_SECTOR);
	fat_fmt_size(cs, sizeof(cs), (uint64_t)spc * FAT_SECTOR);
	for (int i = 0; i < 3; i++)
		list_spcs(alt[i], sizeof(alt[i]), o, types[i], ts, off);
	if (!c.room && c.reserved == 0xFFFF && o->data_align && !o->reserved)
		return diag_error(d, "data-align %s would need more than 65535 reserved sectors "
				     "on this volume; use a smaller data-align",
				  fat_fmt_size(cs, sizeof(cs), o->data_align));
	if (!c.room)
		return diag_error(d, "a %s volume is too small for FAT%d with cluster-size %s and "
				     "%u reserved sectors (%s; %s; %s)", size, type, cs, c.reserved,
				  alt[0], alt[1], alt[2]);
	return diag_error(d, "FAT%d with cluster-size %s gives %" PRIu32 " clusters on a %s volume; "
			     "safe counts are 1..%u (FAT12), %u..%u (FAT16), %u.. (FAT32): %s; %s; %s",
			  type, cs, c.clusters, size, FAT12_MAX_SAFE, FAT16_MIN_SAFE, FAT16_MAX_SAFE,
			  FAT32_MIN_SAFE, alt[0], alt[1], alt[2]);
}

/* The working cluster size nearest to @spc for @type (ties: the larger), or 0. */
static uint32_t nearest_spc(const struct fat_opts *o, enum fat_type type, uint32_t spc,
			    uint64_t ts, uint64_t off)
{
	for (uint32_t k = 0; k < 8; k++) {
		uint64_t up = (uint64_t)spc << k, down = spc >> k;
		if (up <= 64 && works(o, type, (uint32_t)up, ts, off))
			return (uint32_t)up;
		if (down >= 1 && (down << k) == spc && works(o, type, (uint32_t)down, ts, off))
			return (uint32_t)down;
	}
	return 0;
}

/* Picks type and sectors per cluster (see fat_params() in fat.h for the rules). */
static int choose(const struct fat_opts *o, uint64_t ts, uint64_t off, enum fat_type *type,
		  uint32_t *spc, struct diag *d)
{
	const struct sd_row *row = sd_rows;
	struct cand c;

	while (ts > row->max_sectors)
		row++;
	*type = o->type;
	*spc = o->cluster_size ? o->cluster_size / FAT_SECTOR : row->spc;
	if (o->type == FAT_AUTO) {
		layout_try(o, row->type, *spc, ts, off, &c);
		*type = type_for_count(c.clusters);
		if (c.room && *type == row->type)
			return 0;
		/* fallback (1): the type follows the count */
		if (c.room && *type != FAT_AUTO && works(o, *type, *spc, ts, off))
			return 0;
		/* fallback (2): within 16 of an edge, halve the cluster size */
		if (c.room && !o->cluster_size && *spc > 1) {
			*spc /= 2;
			layout_try(o, row->type, *spc, ts, off, &c);
			*type = type_for_count(c.clusters);
			if (*type != FAT_AUTO && works(o, *type, *spc, ts, off))
				return 0;
		}
		*type = c.room && type_for_count(c.clusters) ? type_for_count(c.clusters) : row->type;
		return impossible(o, *type, *spc, ts, off, d);
	}
	if (works(o, *type, *spc, ts, off))
		return 0;
	if (!o->cluster_size) {
		uint32_t alt = nearest_spc(o, *type, *spc, ts, off);
		if (alt) {
			*spc = alt;
			return 0;
		}
	}
	return impossible(o, *type, *spc, ts, off, d);
}

static int check_opts(const struct fat_opts *o, uint64_t vol_bytes, uint64_t vol_offset,
		      struct diag *d)
{
	uint32_t cs = o->cluster_size;

	if (vol_bytes % FAT_SECTOR || vol_bytes / FAT_SECTOR > UINT32_MAX || !vol_bytes)
		return diag_error(d, "FAT volume size %" PRIu64 " is not a non-zero multiple of 512 "
				     "up to 2T - 512", vol_bytes);
	if (vol_offset % FAT_SECTOR || vol_offset / FAT_SECTOR > UINT32_MAX)
		return diag_error(d, "FAT volume offset %" PRIu64 " is not a multiple of 512 below "
				     "2T", vol_offset);
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
		return diag_error(d, "root-entries = %u: FAT32 has no fixed root directory; drop it",
				  o->root_entries);
	if (o->reserved > 0xFFFF)
		return diag_error(d, "reserved = %u: at most 65535", o->reserved);
	if (o->data_align % FAT_SECTOR)
		return diag_error(d, "data-align %" PRIu64 " is not a multiple of 512", o->data_align);
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
		return diag_error(d, "reserved = %u: FAT32 needs at least 9 (boot sectors 0-2 and "
				     "their backups at 6-8)", g->reserved);
	if (g->type == FAT_32 && o->root_entries)
		return diag_error(d, "root-entries = %u: this volume is FAT32, which has no fixed "
				     "root directory; drop root-entries or choose fat12/fat16",
				  o->root_entries);
	if (o->reserved && align > 1 && start % align) {
		char a[16];
		return diag_error(d, "reserved = %u puts the data area at disk sector %" PRIu64
				     ", not a multiple of data-align %s; reserved = %" PRIu64
				     " would align it",
				  o->reserved, start, fat_fmt_size(a, sizeof(a), o->data_align),
				  o->reserved + (align - start % align));
	}
	return 0;
}

int fat_params(const struct fat_opts *o, uint64_t vol_bytes, uint64_t vol_offset,
	       struct fat_geom *ret, struct diag *d)
{
	static const struct fat_opts none;
	uint64_t ts = vol_bytes / FAT_SECTOR, off = vol_offset / FAT_SECTOR;
	enum fat_type type;
	uint32_t spc;
	struct cand c;
	int r;

	if (!o)
		o = &none;
	memset(ret, 0, sizeof(*ret));
	r = check_opts(o, vol_bytes, vol_offset, d);
	if (!r)
		r = choose(o, ts, off, &type, &spc, d);
	if (r)
		return r;
	layout_try(o, type, spc, ts, off, &c);
	ret->type = type;
	ret->sec_per_clus = spc;
	ret->cluster_size = spc * FAT_SECTOR;
	ret->reserved = c.reserved;
	ret->fats = opt_fats(o);
	ret->fat_sectors = c.fat_sectors;
	ret->root_entries = opt_root_entries(o, type);
	ret->root_sectors = c.root_sectors;
	ret->clusters = c.clusters;
	ret->total_sectors = (uint32_t)ts;
	ret->hidden_sectors = (uint32_t)off;
	ret->data_offset = (uint64_t)(c.reserved + ret->fats * c.fat_sectors + c.root_sectors) *
			   FAT_SECTOR;
	r = check_resolved(o, ret, off, d);
	if (!r)
		r = fat_geom_names(ret, o, vol_bytes, d);
	return r;
}
