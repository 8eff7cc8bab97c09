/* SPDX-License-Identifier: MIT */
/*
 * fat/readtree: walking a folder and every folder below it in one pass over their clusters.
 * Each folder is listed from the cluster its entry names, never looked up again by path, and
 * without recursion: the folders still to list sit on a stack of their own (common/dirstack.h,
 * a folder's handle there is its first cluster). A bit per cluster catches folders that share
 * clusters or loop (a hostile image's tree is finite only that way), and a bound on the depth
 * keeps paths short.
 */
#include "fat/read_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "common/dirstack.h"

struct walk {
	struct fat_vol *v;
	const struct fat_walk_fns *fns;
	void *ctx;
	struct dirstack s;
};

static int collect(void *ctx, const struct fat_dirent *e)
{
	struct walk *w = ctx;
	int r = w->fns->entry ? w->fns->entry(w->ctx, e) : 0;

	if (r || !(e->attrs & FAT_ATTR_DIR))
		return r;
	return dirstack_push(&w->s, e->name, &e->first_cluster);
}

/* Lists the folder at @cluster (its path in w->s.path) and pushes its frame. */
static int list(struct walk *w, uint32_t cluster, uint8_t *seen, struct diag *d)
{
	int r = dirstack_open(&w->s);

	return r ? r : fat_rd_list(w->v, cluster, seen, w->s.path, collect, w, d);
}

/* Lists the next pending subfolder of the top frame, or pops the frame when it has none. */
static int step(struct walk *w, unsigned depth_max, uint8_t *seen, struct diag *d)
{
	uint32_t cluster;
	int r = dirstack_next(&w->s, &cluster);

	if (r <= 0)
		return r;
	if (w->s.depth > depth_max)
		return diag_error(d,
				  "%s: folders nested more than %u deep (list this one by its "
				  "own path)",
				  w->s.path, depth_max);
	if (!cluster)
		return diag_error(d, "%s: a directory without a cluster", w->s.path);
	if (w->fns->folder && (r = w->fns->folder(w->ctx, w->s.path)))
		return r;
	return list(w, cluster, seen, d);
}

int fat_vol_walk(struct fat_vol *v, const char *path, unsigned depth_max,
		 const struct fat_walk_fns *fns, void *ctx, struct diag *d)
{
	struct walk w = { .v = v, .fns = fns, .ctx = ctx };
	struct fat_dirent top;
	uint8_t *seen = NULL;
	int r = fat_rd_lookup_dir(v, path, &top, d);

	if (!r && !(seen = fat_rd_seen_new(v)))
		r = -ENOMEM;
	if (!r)
		r = dirstack_init(&w.s, path, sizeof(uint32_t));
	if (!r)
		r = list(&w, top.first_cluster, seen, d);
	while (!r && w.s.depth)
		r = step(&w, depth_max, seen, d);
	if (r == -ENOMEM)
		diag_error(d, "%s: out of memory", path);
	free(seen);
	dirstack_free(&w.s);
	return r;
}
