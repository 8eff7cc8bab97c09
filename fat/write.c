/* SPDX-License-Identifier: MIT */
/*
 * fat/write: writes a laid-out tree as a FAT volume. Only non-zero bytes are written (the
 * output is a zero, sparse file), each once: the holes and all-zero blocks of file data too
 * (common/sparse.h); memory holds the used part of one FAT and one directory at a time,
 * plus a bounded copy buffer.
 */
#include "fat/copy_priv.h"
#include "fat/write_priv.h"
#include "fat/ondisk.h"

#include "common/utf8.h"

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

static void chain(uint8_t *fat, const struct fat_ent_ops *ops, uint32_t first, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		ops->set(fat, first + i, i + 1 < n ? first + i + 1 : ops->eoc);
}

static void chain_dir(uint8_t *fat, const struct fat_ent_ops *ops, const struct fat_node *dir,
		      uint32_t cluster_size)
{
	for (size_t i = 0; i < dir->n_kids; i++) {
		const struct fat_node *n = dir->kids[i];
		chain(fat, ops, n->cluster, used_clusters(n, cluster_size));
		if (n->is_dir)
			chain_dir(fat, ops, n, cluster_size);
	}
}

/* The used part of the FAT (entries 0..next-1), written to every FAT copy. */
static int write_fats(struct wctx *w)
{
	const struct fat_ent_ops *ops = fat_ent_ops(w->g->type);
	uint64_t len = fat_ent_bytes(w->g->type, w->next);
	uint8_t *fat = calloc(1, len + 4);
	int r = 0;

	if (!fat)
		return -ENOMEM;
	/* FAT[0]: the media byte with all other bits set; FAT[1]: end of chain, clean */
	ops->set(fat, 0, (ops->eoc & ~0xFFu) | FAT_MEDIA);
	ops->set(fat, 1, ops->eoc);
	chain(fat, ops, w->t->root.cluster, w->t->root.n_clusters);
	chain_dir(fat, ops, &w->t->root, w->g->cluster_size);
	for (uint32_t i = 0; i < w->g->fats && !r; i++)
		r = put(w, fat, len,
			((uint64_t)w->g->reserved + (uint64_t)i * w->g->fat_sectors) * FAT_SECTOR);
	free(fat);
	return r;
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

static int write_dir(struct wctx *w, const struct fat_node *dir)
{
	int r = write_dir_entries(w, dir);

	for (size_t i = 0; i < dir->n_kids && !r; i++)
		if (!dir->kids[i]->is_dir)
			r = fat_copier_stopped(&w->c)
				    ? -EINTR
				    : fat_copier_file(&w->c, dir->kids[i],
						      cluster_off(w->g, dir->kids[i]->cluster));
	for (size_t i = 0; i < dir->n_kids && !r; i++)
		if (dir->kids[i]->is_dir)
			r = write_dir(w, dir->kids[i]);
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
	if (fat_copier_start(&w.c))
		return -ENOMEM;
	r = write_boot(&w);
	if (!r)
		r = write_fats(&w);
	if (!r)
		r = write_dir(&w, &t->root);
	return fat_copier_finish(&w.c, r);
}

uint64_t fat_tree_used_bytes(const struct fat_tree *t)
{
	if (!t->cluster_size)
		return 0;
	return t->data_offset + (uint64_t)(t->next_free - 2) * t->cluster_size;
}
