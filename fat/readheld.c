/* SPDX-License-Identifier: MIT */
/*
 * fat/readheld: the clusters a volume's tree holds, counted from its chains: each file's and
 * folder's chain from the first cluster its entry names (Microsoft's FAT specification,
 * "FAT Data Structure" and "FAT Directory Structure"), FAT32's root from BPB_RootClus. A bit
 * per cluster counts each cluster once and ends a chain that loops or runs into another's, so
 * the cost stays linear in the clusters whatever the image holds.
 */
#include "fat/read_priv.h"

#include <errno.h>
#include <stdlib.h>

struct held {
	struct fat_vol *v;
	const struct fat_walk_fns *fns;
	void *ctx;
	uint8_t *seen; /* a bit per cluster counted */
	uint64_t held;
	struct diag *d;
};

/* Counts the clusters of the chain from @first not counted yet; @steps gets how many of them
 * it went through, @broken whether it ended on a free, bad, reserved or out-of-range entry
 * before its end-of-chain mark. */
static int count_chain(struct held *h, uint32_t first, uint64_t *steps, bool *broken,
		       struct diag *d)
{
	uint32_t c = first;

	*steps = 0;
	*broken = false;
	for (;;) {
		if (!fat_rd_valid_cluster(h->v, c)) {
			*broken = true;
			return 0;
		}
		if (fat_rd_seen_before(h->seen, c))
			return 0; /* shared with a chain already counted, or a loop */
		h->held++;
		++*steps;
		int r = fat_rd_next(h->v, c, &c, d);
		if (r)
			return r;
		if (fat_rd_end(h->v, c))
			return 0;
	}
}

static int count_entry(void *ctx, const struct fat_dirent *e)
{
	struct held *h = ctx;
	uint64_t need = ((uint64_t)e->size + h->v->info.cluster_size - 1) / h->v->info.cluster_size;
	uint64_t steps;
	bool broken;
	int r = h->fns->entry ? h->fns->entry(h->ctx, e) : 0;

	if (r || (!e->first_cluster && !need))
		return r;
	r = count_chain(h, e->first_cluster, &steps, &broken, h->d);
	/* a file whose chain breaks early holds, by its size, what the chain lost */
	if (!r && broken && !(e->attrs & FAT_ATTR_DIR) && steps < need)
		h->held += need - steps;
	return r;
}

static int count_folder(void *ctx, const char *path)
{
	struct held *h = ctx;

	return h->fns->folder ? h->fns->folder(h->ctx, path) : 0;
}

/* The clusters of @keep not counted yet (inside the volume). */
static uint64_t count_runs(struct held *h, const struct fat_run *keep, size_t n_keep)
{
	uint64_t n = 0;

	for (size_t i = 0; i < n_keep; i++)
		for (uint64_t c = keep[i].first; c < (uint64_t)keep[i].first + keep[i].clusters;
		     c++)
			if (fat_rd_valid_cluster(h->v, (uint32_t)c) &&
			    !fat_rd_seen_before(h->seen, (uint32_t)c))
				n++;
	return n;
}

int fat_vol_walk_held(struct fat_vol *v, unsigned depth_max, const struct fat_walk_fns *fns,
		      void *ctx, const struct fat_run *keep, size_t n_keep, uint64_t *ret_held,
		      uint64_t *ret_kept, struct diag *d)
{
	static const struct fat_walk_fns counting = { .folder = count_folder,
						      .entry = count_entry };
	struct held h = { .v = v, .fns = fns, .ctx = ctx, .seen = fat_rd_seen_new(v), .d = d };
	uint64_t steps;
	bool broken;
	int r = h.seen ? 0 : diag_errno(d, -ENOMEM, "out of memory");

	if (!r && v->info.type == FAT_32)
		r = count_chain(&h, v->root_cluster, &steps, &broken, d);
	if (!r)
		r = fat_vol_walk(v, "/", depth_max, &counting, &h, d);
	if (!r) {
		*ret_held = h.held;
		*ret_kept = count_runs(&h, keep, n_keep);
	}
	free(h.seen);
	return r;
}
