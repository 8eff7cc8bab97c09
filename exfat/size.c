/* SPDX-License-Identifier: MIT */
/*
 * exfat/size: the geometry of a volume that is to hold a tree (exfat_params_for_tree()) and
 * the smallest such volume (exfat_min_size()), computed from the clusters the tree needs.
 */
#include "exfat/write_priv.h"

#include "common/units.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

/* Clusters the allocation bitmap of @clusters clusters takes. */
static uint64_t bitmap_clusters(uint64_t clusters, uint32_t cluster_size)
{
	return ((clusters + 7) / 8 + cluster_size - 1) / cluster_size;
}

/* Clusters @t needs on a volume with clusters of @cluster_size, all but the bitmap's. */
static uint64_t need_without_bitmap(struct exfat_tree *t, const struct exfat_opts *o,
				    uint32_t cluster_size)
{
	struct exfat_geom g = { .cluster_size = cluster_size, .has_guid = o->guid != NULL };

	return exfat_tree_alloc(t, &g);
}

/* Whether @vol_sectors with clusters of @cs hold @base clusters and their bitmap; the
 * geometry in @g. */
static bool holds(const struct exfat_opts *o, uint64_t vol_sectors, uint64_t vol_offset,
		  uint32_t cs, uint64_t base, struct exfat_geom *g)
{
	struct diag quiet;
	int r;

	diag_init(&quiet);
	r = exfat_layout(o, vol_sectors, vol_offset, cs, o->heap_align, g, &quiet);
	diag_release(&quiet);
	return r == 0 && g->clusters >= base + bitmap_clusters(g->clusters, cs);
}

/* The smallest volume (sectors) at least @from with clusters of @cs that holds @base
 * clusters and their bitmap; 0 when none does (too many clusters for exFAT). */
static uint64_t min_sectors(const struct exfat_opts *o, uint64_t vol_offset, uint32_t cs,
			    uint64_t base, uint64_t from)
{
	uint64_t spc = cs / EXFAT_SECTOR, lo = from, hi = from;
	struct exfat_geom g;

	/* grow by what is missing until it holds, then bisect down to the edge */
	for (unsigned i = 0; !holds(o, hi, vol_offset, cs, base, &g); i++) {
		uint64_t want = base + bitmap_clusters(base, cs) + 1;
		uint64_t have = g.clusters;
		if (i > 64 || hi > (1ull << 50))
			return 0;
		lo = hi + 1;
		hi += (want > have ? want - have : 1) * spc + EXFAT_FAT_OFFSET_MIN;
		if (hi < EXFAT_VOLUME_MIN)
			hi = EXFAT_VOLUME_MIN;
		if (i == 0)
			hi += (o->heap_align / EXFAT_SECTOR) +
			      ((base + 2) * 4 + EXFAT_SECTOR - 1) / EXFAT_SECTOR;
	}
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (holds(o, mid, vol_offset, cs, base, &g))
			hi = mid;
		else
			lo = mid + 1;
	}
	return hi;
}

/* The smallest volume (sectors) that holds @t with @o's settings: with a cluster size of
 * @o's, else the smallest whose default cluster size holds it. 0: none. */
static uint64_t smallest(struct exfat_tree *t, const struct exfat_opts *o, uint64_t vol_offset)
{
	static const uint64_t edges[] = { EXFAT_VOLUME_MIN, (256ull << 20) / EXFAT_SECTOR + 1,
					  (32ull << 30) / EXFAT_SECTOR + 1 };

	if (o->cluster_size)
		return min_sectors(o, vol_offset, o->cluster_size,
				   need_without_bitmap(t, o, o->cluster_size), EXFAT_VOLUME_MIN);
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
		uint32_t cs = exfat_default_cluster(edges[i] * EXFAT_SECTOR);
		uint64_t s = min_sectors(o, vol_offset, cs, need_without_bitmap(t, o, cs),
					 edges[i]);
		if (s && exfat_default_cluster(s * EXFAT_SECTOR) == cs)
			return s;
	}
	return 0;
}

int exfat_min_size(struct exfat_tree *t, const struct exfat_opts *o, uint64_t vol_offset,
		   uint64_t *ret_bytes, struct diag *d)
{
	static const struct exfat_opts none;
	struct exfat_geom g;
	uint64_t s;
	int r;

	o = o ? o : &none;
	r = exfat_tree_prepare(t, d);
	if (!r)
		r = exfat_params(o, 1ull << 30, vol_offset, &g, d); /* the settings alone */
	if (r)
		return r;
	s = smallest(t, o, vol_offset);
	if (!s)
		return diag_error(d, "the files and folders need more clusters than an exFAT "
				     "volume holds; a larger cluster size may hold them");
	*ret_bytes = s * EXFAT_SECTOR;
	return 0;
}

/* Clusters the allocation bitmap and the up-case table take on a volume of @g: what a build
 * sizes itself for each geometry it tries. */
static uint64_t metadata_clusters(const struct exfat_geom *g)
{
	return bitmap_clusters(g->clusters, g->cluster_size) +
	       (EXFAT_UPCASE_BYTES + g->cluster_size - 1) / g->cluster_size;
}

/* exfat_params() for @t with @o as it is (without @t: a volume with room for @least clusters
 * besides its bitmap and up-case table, when @least is not 0); *@small says the volume is
 * too small for it. */
static int params_holding(struct exfat_tree *t, const struct exfat_opts *o, uint64_t vol_bytes,
			  uint64_t vol_offset, uint64_t least, struct exfat_geom *g, bool *small,
			  struct diag *d)
{
	uint64_t need;
	char cs[16], size[16];
	int r = exfat_params(o, vol_bytes, vol_offset, g, d);

	*small = r != 0;
	if (!r && !t && least && g->clusters < least + metadata_clusters(g)) {
		*small = true;
		return diag_errno(d, -ENOSPC,
				  "the volume has fewer than %" PRIu64 " clusters besides its "
				  "bitmap and up-case table",
				  least);
	}
	if (r || !t) /* !t: the settings alone */
		return r;
	need = exfat_tree_alloc(t, g);
	if (need <= g->clusters)
		return 0;
	*small = true;
	uint64_t s = smallest(t, o, vol_offset);
	const char *smallest_text = s ? units_layout(s * EXFAT_SECTOR, size, sizeof(size)) : NULL;
	return diag_errno(d, -ENOSPC,
			  "the files and folders need %" PRIu64 " clusters of %s but the volume "
			  "has %" PRIu32 "%s%s",
			  need, units_layout(g->cluster_size, cs, sizeof(cs)), g->clusters,
			  s ? "; the smallest volume that holds them is " : "",
			  s ? smallest_text : "");
}

/*
 * The rule by which a default heap alignment (the partition's align) that leaves too little
 * room is lowered: halved, down to one sector, until the volume holds @t (NULL: room for
 * @least clusters besides the bitmap and up-case table it sizes for each alignment) with clusters
 * no larger than the alignment; that geometry in @ret. 0: none does.
 */
static uint64_t lower_heap_align(struct exfat_tree *t, const struct exfat_opts *o,
				 uint64_t vol_bytes, uint64_t vol_offset, uint64_t least,
				 struct exfat_geom *ret)
{
	struct exfat_opts lo = *o;
	bool small;

	for (lo.heap_align = o->heap_align / 2; lo.heap_align >= EXFAT_SECTOR; lo.heap_align /= 2) {
		struct diag quiet;
		diag_init(&quiet);
		int r = params_holding(t, &lo, vol_bytes, vol_offset, least, ret, &small, &quiet);
		diag_release(&quiet);
		if (r == 0 && ret->cluster_size <= lo.heap_align)
			return lo.heap_align;
	}
	return 0;
}

uint64_t exfat_reached_heap_align(const struct exfat_opts *o, uint64_t vol_bytes,
				  uint64_t vol_offset, uint64_t need)
{
	struct exfat_geom g;
	struct diag quiet;
	bool small;

	if (!o->heap_align)
		return 0;
	diag_init(&quiet);
	int r = params_holding(NULL, o, vol_bytes, vol_offset, need, &g, &small, &quiet);
	diag_release(&quiet);
	if (r == 0)
		return o->heap_align;
	return small && o->heap_align_lower
		       ? lower_heap_align(NULL, o, vol_bytes, vol_offset, need, &g)
		       : 0;
}

int exfat_params_for_tree(struct exfat_tree *t, const struct exfat_opts *o, uint64_t vol_bytes,
			  uint64_t vol_offset, struct exfat_geom *ret, struct diag *d)
{
	static const struct exfat_opts none;
	struct exfat_opts lo;
	struct diag first;
	char a[16], b[16], size[16];
	bool small;
	int r;

	o = o ? o : &none;
	r = exfat_tree_prepare(t, d);
	if (r)
		return r;
	diag_init(&first);
	r = params_holding(t, o, vol_bytes, vol_offset, 0, ret, &small, &first);
	if (r == 0 || !small || !o->heap_align || !o->heap_align_lower) {
		diag_take(d, &first);
		diag_release(&first);
		return r;
	}
	lo = *o;
	lo.heap_align = lower_heap_align(t, o, vol_bytes, vol_offset, 0, ret);
	if (!lo.heap_align) {
		/* no alignment gives the room: where even none would not, the files are what
		 * does not fit, and that is what is said */
		struct diag bare;
		diag_init(&bare);
		lo.heap_align = 0;
		r = params_holding(t, &lo, vol_bytes, vol_offset, 0, ret, &small, &bare);
		diag_take(d, r ? &bare : &first);
		diag_release(&bare);
		diag_release(&first);
		return r ? r : -ENOSPC;
	}
	diag_release(&first);
	diag_note(d,
		  "data-align %s (the partition's align) leaves too little room in this %s "
		  "volume; its cluster heap starts on a multiple of %s instead (exfat { "
		  "data-align } sets it)",
		  units_layout(o->heap_align, a, sizeof(a)),
		  units_layout(vol_bytes, size, sizeof(size)),
		  units_layout(lo.heap_align, b, sizeof(b)));
	return 0;
}
