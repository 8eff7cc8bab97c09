/* SPDX-License-Identifier: MIT */
/*
 * exfat/readtree: walking a folder and every folder below it in one pass over their
 * clusters, as fat/readtree.c does for FAT. Each folder is listed from the extent its
 * stream entry names, never looked up again by path, and without recursion: the folders
 * still to list sit on a stack of their own (common/dirstack.h). A bit per cluster catches folders that share
 * clusters or loop, and a bound on the depth keeps paths short.
 */
#include "exfat/read_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dirstack.h"

struct walk {
	struct exfat_vol *v;
	const struct exfat_walk_fns *fns;
	void *ctx;
	struct dirstack s; /* a folder's handle: its entry (extent and name, checked when listed) */
	uint8_t *seen;     /* a bit per cluster of every folder listed and file met */
	struct diag *d;
	uint64_t held; /* the clusters of the files and folders met, by their DataLength */
};

/* Marks the clusters of the file @e (in the folder w->path) as taken. */
static int claim_file(struct walk *w, const struct exfat_dirent *e)
{
	struct exfat_extent x = exfat_rd_file_extent(w->v, e);
	size_t dir = strlen(w->s.path), len = dir + 1 + strlen(e->name) + 1;
	char *path = malloc(len);
	int r;

	if (!path)
		return -ENOMEM;
	snprintf(path, len, "%s%s%s", w->s.path, dir && w->s.path[dir - 1] == '/' ? "" : "/",
		 e->name);
	r = exfat_rd_claim(w->v, &x, w->seen, path, w->d);
	free(path);
	return r;
}

static int collect(void *ctx, const struct exfat_rd_entry *re)
{
	struct walk *w = ctx;
	const struct exfat_dirent *e = &re->e;
	int r = w->fns->entry ? w->fns->entry(w->ctx, e) : 0;

	w->held += exfat_rd_file_extent(w->v, e).clusters; /* a folder's too (§7.6.6) */
	if (!r && !(e->attrs & EXFAT_ATTR_DIRECTORY))
		r = claim_file(w, e);
	if (r || !(e->attrs & EXFAT_ATTR_DIRECTORY))
		return r;
	return dirstack_push(&w->s, e->name, e);
}

/* Lists the folder @x (its path in w->s.path) and pushes its frame. */
static int list(struct walk *w, const struct exfat_extent *x, uint8_t *seen, struct diag *d)
{
	int r = dirstack_open(&w->s);

	return r ? r : exfat_rd_list(w->v, x, seen, w->s.path, collect, w, d);
}

/* Lists the next pending subfolder of the top frame, or pops the frame when it has none. */
static int step(struct walk *w, unsigned depth_max, uint8_t *seen, struct diag *d)
{
	struct exfat_dirent e;
	struct exfat_extent x;
	int r = dirstack_next(&w->s, &e);

	if (r <= 0)
		return r;
	if (w->s.depth > depth_max)
		return diag_error(d,
				  "%s: folders nested more than %u deep (list this one by its "
				  "own path)",
				  w->s.path, depth_max);
	if ((r = exfat_rd_dir_extent(w->v, &e, w->s.path, &x, d)))
		return r;
	if (w->fns->folder && (r = w->fns->folder(w->ctx, w->s.path)))
		return r;
	return list(w, &x, seen, d);
}

/* Walks @path into @w (its seen bitmap left for the caller to free). */
static int walk(struct walk *w, const char *path, unsigned depth_max, struct diag *d)
{
	struct exfat_extent top;
	int r = exfat_rd_lookup_dir(w->v, path, &top, d);

	if (!r && !(w->seen = exfat_rd_seen_new(w->v)))
		r = -ENOMEM;
	if (!r)
		r = dirstack_init(&w->s, path, sizeof(struct exfat_dirent));
	if (!r)
		r = list(w, &top, w->seen, d);
	while (!r && w->s.depth)
		r = step(w, depth_max, w->seen, d);
	if (r == -ENOMEM)
		diag_error(d, "%s: out of memory", path);
	dirstack_free(&w->s);
	return r;
}

int exfat_vol_walk(struct exfat_vol *v, const char *path, unsigned depth_max,
		   const struct exfat_walk_fns *fns, void *ctx, struct diag *d)
{
	struct walk w = { .v = v, .fns = fns, .ctx = ctx, .d = d };
	int r = walk(&w, path, depth_max, d);

	free(w.seen);
	return r;
}

/* The clusters of the root's chain (§7: it has no DataLength, its chain ends at the FAT's
 * end-of-chain mark) into *@ret, at most as many as a directory may have. */
static int root_clusters(struct exfat_vol *v, uint64_t *ret, struct diag *d)
{
	struct exfat_extent root = exfat_rd_root(v);
	struct exfat_chain ch;
	uint32_t c;
	int r;

	exfat_rd_chain_init(&ch, &root, NULL, "/", EXFAT_DIR_BYTES_MAX / v->info.cluster_size + 1);
	*ret = 0;
	while ((r = exfat_rd_chain_next(v, &ch, &c, d)) > 0)
		++*ret;
	return r;
}

static bool marked(const uint8_t *bits, uint32_t c)
{
	return bits[c / 8] & (1u << (c % 8));
}

int exfat_vol_walk_held(struct exfat_vol *v, unsigned depth_max, const struct exfat_walk_fns *fns,
			void *ctx, const struct fat_run *keep, size_t n_keep, uint64_t *ret_held,
			uint64_t *ret_kept, struct diag *d)
{
	struct walk w = { .v = v, .fns = fns, .ctx = ctx, .d = d };
	uint64_t root = 0, kept = 0;
	int r = walk(&w, "/", depth_max, d);

	if (!r)
		r = root_clusters(v, &root, d);
	for (size_t i = 0; !r && i < n_keep; i++)
		for (uint64_t c = keep[i].first; c < (uint64_t)keep[i].first + keep[i].clusters;
		     c++)
			if (exfat_rd_valid_cluster(v, (uint32_t)c) &&
			    !marked(w.seen, (uint32_t)c) && !marked(v->sys, (uint32_t)c)) {
				w.seen[c / 8] |= (uint8_t)(1u << (c % 8));
				kept++;
			}
	if (!r) {
		*ret_held = w.held + root;
		*ret_kept = kept;
	}
	free(w.seen);
	return r;
}
