/* SPDX-License-Identifier: MIT */
/*
 * fat/write: writes a laid-out tree as a FAT volume. Only non-zero bytes are written (the
 * output is a zero, sparse file), each once: the holes and all-zero blocks of file data too
 * (common/sparse.h); memory holds one directory at a time and a bounded copy buffer, which
 * also holds the FAT a window at a time.
 */
#include "fat/copy_priv.h"
#include "fat/write_priv.h"
#include "fat/ondisk.h"

#include "common/sparse.h"
#include "common/utf8.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct wctx {
	struct fat_copier c; /* the output, and file data into it */
	struct fat_tree *t;
	const struct fat_geom *g;
	uint32_t next; /* first free cluster */
};

static int put(struct wctx *w, const void *buf, size_t len, uint64_t off)
{
	return fat_copier_put(&w->c, buf, len, off);
}

static uint64_t cluster_off(const struct fat_geom *g, uint32_t c)
{
	return g->data_offset + (uint64_t)(c - 2) * g->cluster_size;
}

/* Clusters of @n that its bytes use: all but those a reserve holds beyond its size. */
static uint32_t used_clusters(const struct fat_node *n, uint32_t cluster_size)
{
	return n->is_dir || !fat_node_reserve(n)
		       ? n->n_clusters
		       : (uint32_t)((n->size + cluster_size - 1) / cluster_size);
}

/* Clusters given to files under @dir that their reserve holds and their bytes do not use:
 * free in the FAT (fat_card_chain()). */
static uint32_t spare_clusters(const struct fat_node *dir, uint32_t cluster_size)
{
	uint32_t spare = 0;

	for (size_t i = 0; i < dir->n_kids; i++) {
		const struct fat_node *n = dir->kids[i];
		spare += n->is_dir ? spare_clusters(n, cluster_size)
				   : n->n_clusters - used_clusters(n, cluster_size);
	}
	return spare;
}

/* Boot sector; on FAT32 also FSInfo, the third boot sector and their backups at 6..8. */
static int write_boot(struct wctx *w)
{
	uint8_t s[3][FAT_SECTOR];
	uint32_t free_count = w->g->clusters - (w->next - 2) +
			      spare_clusters(&w->t->root, w->g->cluster_size);
	int r;

	fat_put_boot_sector(s[0], w->g);
	if (w->g->type != FAT_32)
		return put(w, s[0], FAT_SECTOR, 0);
	fat_put_fsinfo(s[1], free_count, w->next <= w->g->clusters + 1 ? w->next : 0xFFFFFFFF);
	memset(s[2], 0, FAT_SECTOR);
	s[2][510] = 0x55; /* a third boot sector holding only the signature */
	s[2][511] = 0xAA;
	r = put(w, s, sizeof(s), 0);
	if (!r)
		r = put(w, s, sizeof(s), 6 * FAT_SECTOR);
	return r;
}

/*
 * The used part of the FAT, made a window at a time in the copier's buffer (its files are
 * not copied yet) and written to every FAT copy as each window is done: a volume of many
 * files need not hold its whole FAT. The walk meets clusters in the order fat_tree_alloc()
 * gave them, so that a window is done once an entry beyond it is set.
 */
struct fat_window {
	struct wctx *w;
	const struct fat_ent_ops *ops;
	uint64_t len;   /* bytes of the used part of one FAT */
	uint32_t first; /* the window's first entry (even: a FAT12 pair starts a byte) */
	int r;
};

/* Entries in a window: an even count, its bytes (and the 4 a 32-bit set may touch beyond
 * the last entry) well within SPARSE_CHUNK for every entry width. */
#define FAT_WINDOW_ENTRIES (SPARSE_CHUNK / 8u)

/* Writes the window to every FAT copy and starts the next one at entry @first. */
static void window_flush(struct fat_window *x, uint32_t first)
{
	const struct fat_geom *g = x->w->g;
	uint64_t from = fat_ent_bytes(g->type, x->first),
		 to = fat_ent_bytes(g->type, (uint64_t)x->first + FAT_WINDOW_ENTRIES);

	if (to > x->len)
		to = x->len;
	for (uint32_t i = 0; i < g->fats && !x->r && from < to; i++)
		x->r = put(x->w, x->w->c.buf, (size_t)(to - from),
			   ((uint64_t)g->reserved + (uint64_t)i * g->fat_sectors) * FAT_SECTOR +
				   from);
	memset(x->w->c.buf, 0, fat_ent_bytes(g->type, FAT_WINDOW_ENTRIES) + 4);
	x->first = first;
}

static void window_set(struct fat_window *x, uint32_t c, uint32_t v)
{
	assert(c >= x->first);
	while (c - x->first >= FAT_WINDOW_ENTRIES) /* windows of free entries are written too */
		window_flush(x, x->first + FAT_WINDOW_ENTRIES);
	x->ops->set(x->w->c.buf, c - x->first, v);
}

static void chain(struct fat_window *x, uint32_t first, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		window_set(x, first + i, i + 1 < n ? first + i + 1 : x->ops->eoc);
}

/* In the order alloc_dir() gives clusters: @dir's children, then their folders. */
static void chain_dir(struct fat_window *x, const struct fat_node *dir, uint32_t cluster_size)
{
	for (size_t i = 0; i < dir->n_kids; i++)
		chain(x, dir->kids[i]->cluster, used_clusters(dir->kids[i], cluster_size));
	for (size_t i = 0; i < dir->n_kids; i++)
		if (dir->kids[i]->is_dir)
			chain_dir(x, dir->kids[i], cluster_size);
}

/* The used part of the FAT (entries 0..next-1), written to every FAT copy. */
static int write_fats(struct wctx *w)
{
	struct fat_window x = { .w = w,
				.ops = fat_ent_ops(w->g->type),
				.len = fat_ent_bytes(w->g->type, w->next) };

	memset(w->c.buf, 0, fat_ent_bytes(w->g->type, FAT_WINDOW_ENTRIES) + 4);
	/* FAT[0]: the media byte with all other bits set; FAT[1]: end of chain, clean */
	window_set(&x, 0, (x.ops->eoc & ~0xFFu) | FAT_MEDIA);
	window_set(&x, 1, x.ops->eoc);
	chain(&x, w->t->root.cluster, w->t->root.n_clusters);
	chain_dir(&x, &w->t->root, w->g->cluster_size);
	window_flush(&x, 0);
	return x.r;
}

static void put_dot(uint8_t *e, const char *name, const struct fat_node *dir, uint32_t cluster)
{
	uint8_t sfn[11];

	memset(sfn, ' ', 11);
	memcpy(sfn, name, strlen(name));
	fat_put_sfn_entry(e, sfn, FAT_ATTR_DIR, 0, cluster, 0, dir->mtime, dir->mtime_ns);
}

/* Fills the entries of @dir into @e (fat_dir_entries() * FAT_DIRENT_SIZE bytes). */
static void fill_dir(struct wctx *w, const struct fat_node *dir, uint8_t *e)
{
	if (!dir->parent && w->g->has_label) {
		fat_put_sfn_entry(e, w->g->label, FAT_ATTR_VOLUME, 0, 0, 0, w->t->timestamp, 0);
		e += FAT_DIRENT_SIZE;
	}
	if (dir->parent) {
		put_dot(e, ".", dir, dir->cluster);
		/* ".." of a first-level directory is 0, even on FAT32 (fatgen103) */
		put_dot(e + FAT_DIRENT_SIZE, "..", dir,
			dir->parent->parent ? dir->parent->cluster : 0);
		e += 64;
	}
	for (size_t i = 0; i < dir->n_kids; i++) {
		const struct fat_node *n = dir->kids[i];
		if (n->n_lfn) {
			/* fat_tree_prepare() checked the name: it converts */
			uint16_t u16[FAT_LFN_MAX + 1];
			utf8_to_utf16(n->name, u16, FAT_LFN_MAX + 1);
			fat_put_lfn_entries(e, u16, n->n16, n->sfn);
			e += FAT_DIRENT_SIZE * n->n_lfn;
		}
		fat_put_sfn_entry(e, n->sfn, (uint8_t)(n->attrs | (n->is_dir ? FAT_ATTR_DIR : 0)),
				  n->ntres, n->is_dir || n->size ? n->cluster : 0,
				  (uint32_t)n->size, n->mtime, n->mtime_ns);
		e += FAT_DIRENT_SIZE;
	}
}

static int write_dir_entries(struct wctx *w, const struct fat_node *dir)
{
	size_t len = (size_t)fat_dir_entries(w->t, dir, w->g) * FAT_DIRENT_SIZE;
	uint64_t off = dir->cluster ? cluster_off(w->g, dir->cluster)
				    : ((uint64_t)w->g->reserved +
				       (uint64_t)w->g->fats * w->g->fat_sectors) *
					      FAT_SECTOR;
	uint8_t *e;
	int r;

	if (!len)
		return 0;
	e = calloc(1, len);
	if (!e)
		return -ENOMEM;
	fill_dir(w, dir, e);
	r = put(w, e, len, off);
	free(e);
	return r;
}

/* Every folder's entries, @dir's first, then those of its folders in turn. */
static int write_dirs(struct wctx *w, const struct fat_node *dir)
{
	int r = write_dir_entries(w, dir);

	for (size_t i = 0; i < dir->n_kids && !r; i++)
		if (dir->kids[i]->is_dir)
			r = write_dirs(w, dir->kids[i]);
	return r;
}

/* The bytes of @dir's files, then those of its folders' in turn: the order alloc_dir() gave
 * their clusters, so that all before a file's first cluster is written when it comes. */
static int write_files(struct wctx *w, const struct fat_node *dir)
{
	int r = 0;

	for (size_t i = 0; i < dir->n_kids && !r; i++) {
		const struct fat_node *n = dir->kids[i];
		if (n->is_dir)
			continue;
		uint64_t at = cluster_off(w->g, n->cluster);
		bool stopped = n->cluster ? fat_copier_stopped_at(&w->c, at)
					  : fat_copier_stopped(&w->c);
		r = stopped ? -EINTR : fat_copier_file(&w->c, n, at);
	}
	for (size_t i = 0; i < dir->n_kids && !r; i++)
		if (dir->kids[i]->is_dir)
			r = write_files(w, dir->kids[i]);
	return r;
}

int fat_write(struct fat_tree *t, const struct fat_geom *g, int fd, uint64_t vol_offset,
	      struct diag *d)
{
	return fat_write_or_stop(t, g, fd, vol_offset, NULL, NULL, NULL, d);
}

int fat_write_or_stop(struct fat_tree *t, const struct fat_geom *g, int fd, uint64_t vol_offset,
		      const char *image, fat_stop_fn stop, void *stop_ctx, struct diag *d)
{
	struct wctx w = { .c = { .fd = fd,
				 .vol = vol_offset,
				 .image = image,
				 .kind = "FAT",
				 .cluster_size = g->cluster_size,
				 .stop = stop,
				 .stop_ctx = stop_ctx,
				 .written_below = &t->written_below,
				 .d = d },
			  .t = t,
			  .g = g };
	uint64_t end = g->data_offset + (uint64_t)g->clusters * g->cluster_size;
	int r;

	if (!g->cluster_size || end > (uint64_t)g->total_sectors * FAT_SECTOR)
		return diag_error(d, "FAT geometry is inconsistent (use fat_params())");
	t->cluster_size = 0;
	r = fat_tree_alloc(t, g, &w.next, d);
	if (r)
		return r;
	t->data_offset = g->data_offset;
	t->cluster_size = g->cluster_size;
	t->next_free = w.next;
	t->root_offset = ((uint64_t)g->reserved + (uint64_t)g->fats * g->fat_sectors) * FAT_SECTOR;
	t->root_label = g->has_label;
	t->written_below = 0;
	if (fat_copier_start(&w.c))
		return -ENOMEM;
	r = write_boot(&w);
	if (!r)
		r = write_fats(&w);
	if (!r)
		r = write_dirs(&w, &t->root);
	if (!r)
		r = write_files(&w, &t->root);
	r = fat_copier_finish(&w.c, r);
	if (!r)
		t->written_below = (uint64_t)g->total_sectors * FAT_SECTOR;
	return r;
}

uint64_t fat_tree_written_below(const struct fat_tree *t)
{
	return t->written_below;
}

uint64_t fat_tree_used_bytes(const struct fat_tree *t)
{
	if (!t->cluster_size)
		return 0;
	return t->data_offset + (uint64_t)(t->next_free - 2) * t->cluster_size;
}
