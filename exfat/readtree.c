/* SPDX-License-Identifier: MIT */
/*
 * exfat/readtree: walking a folder and every folder below it in one pass over their
 * clusters, as fat/readtree.c does for FAT. Each folder is listed from the extent its
 * stream entry names, never looked up again by path, and without recursion: the folders
 * still to list sit on a stack of their own. A bit per cluster catches folders that share
 * clusters or loop, and a bound on the depth keeps paths short.
 */
#include "exfat/read_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"

/* A folder met in a listing, to be listed later. */
struct pending {
	struct exfat_dirent e; /* its entry: extent and name (ext checked when listed) */
	size_t name;           /* offset of its name in walk.names */
};

/* A folder being listed: its subfolders are pending[first..] up to the next frame's first. */
struct frame {
	size_t first, next; /* in walk.pending */
	size_t names;       /* walk.names's length before its subfolders' names */
	size_t path_len;    /* length of its path in walk.path */
};

struct walk {
	struct exfat_vol *v;
	const struct exfat_walk_fns *fns;
	void *ctx;
	struct pending *pending;
	size_t n_pending, cap_pending;
	char *names;
	size_t n_names, cap_names;
	char *path;
	size_t cap_path;
	struct frame *frames;
	size_t depth, cap_frames;
	uint8_t *seen; /* a bit per cluster of every folder listed and file met */
	struct diag *d;
};

/* Marks the clusters of the file @e (in the folder w->path) as taken. */
static int claim_file(struct walk *w, const struct exfat_dirent *e)
{
	struct exfat_extent x = exfat_rd_file_extent(w->v, e);
	size_t dir = strlen(w->path), len = dir + 1 + strlen(e->name) + 1;
	char *path = malloc(len);
	int r;

	if (!path)
		return -ENOMEM;
	snprintf(path, len, "%s%s%s", w->path, dir && w->path[dir - 1] == '/' ? "" : "/", e->name);
	r = exfat_rd_claim(w->v, &x, w->seen, path, w->d);
	free(path);
	return r;
}

static int collect(void *ctx, const struct exfat_rd_entry *re)
{
	struct walk *w = ctx;
	const struct exfat_dirent *e = &re->e;
	size_t len = strlen(e->name) + 1;
	int r = w->fns->entry ? w->fns->entry(w->ctx, e) : 0;

	if (!r && !(e->attrs & EXFAT_ATTR_DIRECTORY))
		r = claim_file(w, e);
	if (r || !(e->attrs & EXFAT_ATTR_DIRECTORY))
		return r;
	if (array_grow((void **)&w->pending, &w->cap_pending, w->n_pending + 1,
		       sizeof(*w->pending)) < 0 ||
	    array_grow((void **)&w->names, &w->cap_names, w->n_names + len, 1) < 0)
		return -ENOMEM;
	w->pending[w->n_pending++] = (struct pending){ *e, w->n_names };
	memcpy(w->names + w->n_names, e->name, len);
	w->n_names += len;
	return 0;
}

/* Lists the folder @x (its path in w->path) and pushes its frame. */
static int list(struct walk *w, const struct exfat_extent *x, uint8_t *seen, struct diag *d)
{
	if (array_grow((void **)&w->frames, &w->cap_frames, w->depth + 1, sizeof(*w->frames)) < 0)
		return -ENOMEM;
	w->frames[w->depth++] = (struct frame){ w->n_pending, w->n_pending, w->n_names,
						strlen(w->path) };
	return exfat_rd_list(w->v, x, seen, w->path, collect, w, d);
}

/* Sets w->path to the path of @name in the folder whose path is w->path[0..@len]. */
static int set_path(struct walk *w, size_t len, const char *name)
{
	bool slash = !len || w->path[len - 1] != '/';
	size_t n = strlen(name);

	if (array_grow((void **)&w->path, &w->cap_path, len + slash + n + 1, 1) < 0)
		return -ENOMEM;
	if (slash)
		w->path[len++] = '/';
	memcpy(w->path + len, name, n + 1);
	return 0;
}

/* Lists the next pending subfolder of the top frame, or pops the frame when it has none. */
static int step(struct walk *w, unsigned depth_max, uint8_t *seen, struct diag *d)
{
	struct frame *f = &w->frames[w->depth - 1];
	struct exfat_extent x;
	struct pending p;
	int r;

	if (f->next == w->n_pending) { /* the top frame's subfolders end the stack */
		w->n_pending = f->first;
		w->n_names = f->names;
		w->depth--;
		return 0;
	}
	p = w->pending[f->next++];
	if ((r = set_path(w, f->path_len, w->names + p.name)) < 0)
		return r;
	if (w->depth > depth_max)
		return diag_error(d,
				  "%s: folders nested more than %u deep (list this one by its "
				  "own path)",
				  w->path, depth_max);
	if ((r = exfat_rd_dir_extent(w->v, &p.e, w->path, &x, d)))
		return r;
	if (w->fns->folder && (r = w->fns->folder(w->ctx, w->path)))
		return r;
	return list(w, &x, seen, d);
}

int exfat_vol_walk(struct exfat_vol *v, const char *path, unsigned depth_max,
		   const struct exfat_walk_fns *fns, void *ctx, struct diag *d)
{
	struct walk w = { .v = v, .fns = fns, .ctx = ctx, .d = d };
	struct exfat_extent top;
	uint8_t *seen = NULL;
	int r = exfat_rd_lookup_dir(v, path, &top, d);

	if (!r && (!(seen = exfat_rd_seen_new(v)) || !(w.path = strdup(path))))
		r = -ENOMEM;
	w.seen = seen;
	if (!r) {
		w.cap_path = strlen(path) + 1;
		r = list(&w, &top, seen, d);
	}
	while (!r && w.depth)
		r = step(&w, depth_max, seen, d);
	if (r == -ENOMEM)
		diag_error(d, "%s: out of memory", path);
	free(seen);
	free(w.pending);
	free(w.names);
	free(w.path);
	free(w.frames);
	return r;
}
