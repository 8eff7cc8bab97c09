/* SPDX-License-Identifier: MIT */
/*
 * fat/params_limits: the errors of fat_params() when no layout works. Each names the limit
 * the settings break, with the numbers (cluster-count bounds, reserved sectors past 65535,
 * data-align padding that leaves no clusters), and what would work (a cluster size, a size,
 * a data-align). Limits: fatgen103 "FAT Type Determination" and "Boot Sector and BPB".
 */
#include "fat/params_priv.h"

#include <inttypes.h>
#include <stdio.h>

/* Appends "a..b" ranges of the cluster sizes that work for @type to @buf. */
static void list_spcs(char *buf, size_t len, const struct fat_opts *o, enum fat_type type,
		      uint64_t ts, uint64_t off)
{
	char a[16], b[16];
	uint32_t first = 0, last = 0;

	for (uint32_t spc = 1; spc <= 128; spc *= 2) {
		if (!fat_works(o, type, spc, ts, off))
			continue;
		if (!first)
			first = spc;
		last = spc;
	}
	if (!first) {
		snprintf(buf, len, "no cluster size works for FAT%d", type);
		return;
	}
	units_layout((uint64_t)first * FAT_SECTOR, a, sizeof(a));
	units_layout((uint64_t)last * FAT_SECTOR, b, sizeof(b));
	if (first == last)
		snprintf(buf, len, "FAT%d works with cluster-size %s", type, a);
	else
		snprintf(buf, len, "FAT%d works with cluster-size %s..%s", type, a, b);
}

static int picks(const struct fat_opts *o, uint64_t ts, uint64_t off)
{
	enum fat_type type;
	uint32_t spc;

	return ts > 0 && ts <= UINT32_MAX && fat_pick(o, ts, off, NULL, &type, &spc);
}

/* The smallest volume from @ts sectors up for which @o picks a layout; 0 when none to 2T. */
static uint64_t first_working(const struct fat_opts *o, uint64_t ts, uint64_t off)
{
	uint64_t lo = ts, hi = ts;

	while (!picks(o, hi, off)) {
		lo = hi;
		if (hi >= UINT32_MAX)
			return 0;
		hi = hi * 2 > UINT32_MAX ? UINT32_MAX : hi * 2;
	}
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (picks(o, mid, off))
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* The largest volume up to @ts sectors with at most @max clusters of @spc for @type. */
static uint64_t last_under(const struct fat_opts *o, enum fat_type type, uint32_t spc, uint64_t ts,
			   uint64_t off, uint32_t max)
{
	uint64_t lo = 1, hi = ts;
	struct fat_cand c;

	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;
		fat_layout_try(o, type, spc, mid, off, &c);
		if (c.clusters <= max)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* @sectors as a size rounded to whole MiB (up, or down when @down), e.g. "257M". */
static const char *fmt_mib(char *buf, size_t len, uint64_t sectors, int down)
{
	uint64_t mib = down ? (sectors * FAT_SECTOR) >> 20
			    : (sectors * FAT_SECTOR + (1u << 20) - 1) >> 20;

	if (!mib)
		return units_layout(sectors * FAT_SECTOR, buf, len);
	return units_layout(mib << 20, buf, len);
}

/* The size advice "size = 9M or more works" for the settings @o (or that none does). */
static const char *bigger(char *buf, size_t len, const struct fat_opts *o, uint64_t ts,
			  uint64_t off)
{
	char s[16];
	uint64_t n = first_working(o, ts, off);

	if (!n)
		snprintf(buf, len, "no size up to 2T helps");
	else
		snprintf(buf, len, "size = %s or more works", fmt_mib(s, sizeof(s), n, 0));
	return buf;
}

/* data-align pads the reserved sectors past 65535: no size changes that much. */
static int pad_overflow(const struct fat_opts *o, const struct fat_cand *c, struct diag *d,
			enum fat_why *why)
{
	char a[16];

	*why = FAT_WHY_SETTINGS;
	return diag_error(d,
			  "data-align %s would need %" PRIu64 " reserved sectors before the "
			  "data area, more than the 65535 a FAT boot sector "
			  "counts; use data-align = 32M or less (it defaults to the image's "
			  "align), or set reserved and no data-align",
			  units_layout(o->data_align, a, sizeof(a)), c->want_reserved);
}

/* No room for clusters: data-align padding, or the volume is too small for the system area. */
static int no_room(const struct fat_opts *o, enum fat_type type, uint32_t spc, uint64_t ts,
		   uint64_t off, const struct fat_cand *c, struct diag *d, enum fat_why *why)
{
	char size[16], cs[16], a[16], more[48];
	struct fat_opts less = *o;

	*why = FAT_WHY_SMALL;
	units_layout(ts * FAT_SECTOR, size, sizeof(size));
	bigger(more, sizeof(more), o, ts, off);
	if (c->pad) {
		do
			less.data_align /= 2;
		while (less.data_align >= 2 * FAT_SECTOR && !picks(&less, ts, off));
		if (less.data_align >= 2 * FAT_SECTOR)
			return diag_error(d,
					  "data-align %s pads the reserved sectors to %" PRIu64
					  ", which leaves no room for clusters in this %s "
					  "volume; %s, or data-align = %s or less",
					  units_layout(o->data_align, a, sizeof(a)),
					  c->want_reserved, size, more,
					  units_layout(less.data_align, cs, sizeof(cs)));
		return diag_error(d,
				  "data-align %s pads the reserved sectors to %" PRIu64 ", which "
				  "leaves no room for clusters in this %s volume; %s",
				  units_layout(o->data_align, a, sizeof(a)), c->want_reserved, size,
				  more);
	}
	return diag_error(d,
			  "%s is too small for FAT%d with cluster-size %s: %" PRIu32
			  " reserved sectors, FATs and root directory leave no room for "
			  "clusters; %s",
			  size, type, units_layout((uint64_t)spc * FAT_SECTOR, cs, sizeof(cs)),
			  c->reserved, more);
}

/* The fewest and most clusters sdimg gives @type, and how fatgen103 draws those lines. */
static uint32_t count_min(enum fat_type t)
{
	return t == FAT_32 ? FAT32_MIN_SAFE : t == FAT_16 ? FAT16_MIN_SAFE : 1;
}

static uint32_t count_max(enum fat_type t)
{
	return t == FAT_32 ? FAT32_MAX : t == FAT_16 ? FAT16_MAX_SAFE : FAT12_MAX_SAFE;
}

/* Too few clusters for @type: a smaller cluster size or a larger volume. */
static int too_few(const struct fat_opts *o, enum fat_type type, uint32_t spc, uint64_t ts,
		   uint64_t off, const struct fat_cand *c, struct diag *d)
{
	char size[16], cs[16], alt[16], more[48];
	uint32_t s = spc / 2;

	while (s >= 1 && !fat_works(o, type, s, ts, off))
		s /= 2;
	units_layout(ts * FAT_SECTOR, size, sizeof(size));
	units_layout((uint64_t)spc * FAT_SECTOR, cs, sizeof(cs));
	bigger(more, sizeof(more), o, ts, off);
	if (s >= 1)
		return diag_error(d,
				  "FAT%d needs at least %" PRIu32 " clusters (%u and a margin "
				  "of 16); %s with cluster-size %s gives %" PRIu32
				  "; use cluster-size = %s or less, or a larger volume (%s)",
				  type, count_min(type), type == FAT_32 ? 65525u : 4085u, size, cs,
				  c->clusters,
				  units_layout((uint64_t)s * FAT_SECTOR, alt, sizeof(alt)), more);
	return diag_error(d,
			  "FAT%d needs at least %" PRIu32 " clusters (%u and a margin of 16); "
			  "%s with cluster-size %s gives %" PRIu32 " and no cluster "
			  "size gives enough; %s",
			  type, count_min(type), type == FAT_32 ? 65525u : 4085u, size, cs,
			  c->clusters, more);
}

/* Too many clusters for @type: a larger cluster size or a smaller volume. */
static int too_many(const struct fat_opts *o, enum fat_type type, uint32_t spc, uint64_t ts,
		    uint64_t off, const struct fat_cand *c, struct diag *d)
{
	char size[16], cs[16], alt[16], less[16];
	uint32_t s = spc * 2;
	uint64_t fit = last_under(o, type, spc, ts, off, count_max(type));

	while (s <= 128 && !fat_works(o, type, s, ts, off))
		s *= 2;
	units_layout(ts * FAT_SECTOR, size, sizeof(size));
	units_layout((uint64_t)spc * FAT_SECTOR, cs, sizeof(cs));
	fmt_mib(less, sizeof(less), fit, 1);
	if (s <= 128)
		return diag_error(d,
				  "FAT%d holds at most %" PRIu32 " clusters%s; %s with "
				  "cluster-size %s gives %" PRIu32 "; use cluster-size = %s or "
				  "more, or size = %s or less",
				  type, count_max(type),
				  type == FAT_32   ? ""
				  : type == FAT_16 ? " (65525 less a margin of 16)"
						   : " (4085 less a margin of 16)",
				  size, cs, c->clusters,
				  units_layout((uint64_t)s * FAT_SECTOR, alt, sizeof(alt)), less);
	return diag_error(d,
			  "FAT%d holds at most %" PRIu32 " clusters%s; %s with "
			  "cluster-size %s gives %" PRIu32 " and no cluster size up to 64K gives "
			  "few enough; use size = %s or less, or another FAT type",
			  type, count_max(type),
			  type == FAT_32   ? ""
			  : type == FAT_16 ? " (65525 less a margin of 16)"
					   : " (4085 less a margin of 16)",
			  size, cs, c->clusters, less);
}

/* The error for a forced type and cluster size that cannot work, with what would. */
static int impossible_type(const struct fat_opts *o, enum fat_type type, uint32_t spc, uint64_t ts,
			   uint64_t off, struct diag *d, enum fat_why *why)
{
	struct fat_cand c;

	fat_layout_try(o, type, spc, ts, off, &c);
	if (!c.room && c.want_reserved > 0xFFFF)
		return pad_overflow(o, &c, d, why);
	if (!c.room)
		return no_room(o, type, spc, ts, off, &c, d, why);
	*why = c.clusters < count_min(type) ? FAT_WHY_SMALL : FAT_WHY_STUCK;
	if (c.clusters < count_min(type))
		return too_few(o, type, spc, ts, off, &c, d);
	return too_many(o, type, spc, ts, off, &c, d);
}

/* The error when FAT_AUTO finds nothing: padding, no room, or a cluster count on an edge. */
static int impossible_auto(const struct fat_opts *o, uint64_t ts, uint64_t off, struct diag *d,
			   enum fat_why *why)
{
	static const enum fat_type types[] = { FAT_12, FAT_16, FAT_32 };
	uint32_t spc = o->cluster_size ? o->cluster_size / FAT_SECTOR : fat_table_spc(ts);
	enum fat_type type = fat_auto_order(o, ts)[0];
	char size[16], cs[16], alt[3][96];
	struct fat_cand c;

	for (int i = 0; i < 3; i++) {
		fat_layout_try(o, types[i], spc, ts, off, &c);
		if (!c.room && c.want_reserved > 0xFFFF)
			return pad_overflow(o, &c, d, why);
	}
	fat_layout_try(o, type, spc, ts, off, &c);
	if (!c.room)
		return no_room(o, type, spc, ts, off, &c, d, why);
	*why = c.clusters > FAT32_MAX ? FAT_WHY_STUCK : FAT_WHY_SMALL;
	units_layout(ts * FAT_SECTOR, size, sizeof(size));
	units_layout((uint64_t)spc * FAT_SECTOR, cs, sizeof(cs));
	for (int i = 0; i < 3; i++)
		list_spcs(alt[i], sizeof(alt[i]), o, types[i], ts, off);
	return diag_error(d,
			  "cluster-size %s gives %" PRIu32 " clusters on %s; "
			  "safe counts are 1..%u (FAT12), %u..%u (FAT16), %u.. (FAT32), 16 "
			  "away from where fatgen103 changes the type: %s; %s; %s",
			  cs, c.clusters, size, FAT12_MAX_SAFE, FAT16_MIN_SAFE, FAT16_MAX_SAFE,
			  FAT32_MIN_SAFE, alt[0], alt[1], alt[2]);
}

int fat_params_impossible(const struct fat_opts *o, uint64_t ts, uint64_t off, struct diag *d,
			  enum fat_why *why)
{
	if (o->type == FAT_AUTO)
		return impossible_auto(o, ts, off, d, why);
	return impossible_type(o, o->type,
			       o->cluster_size ? o->cluster_size / FAT_SECTOR : fat_table_spc(ts),
			       ts, off, d, why);
}
