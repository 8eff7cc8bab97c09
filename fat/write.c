/* SPDX-License-Identifier: MIT */
/*
 * fat/write: writes a laid-out tree as a FAT volume. Only non-zero bytes are written (the
 * output is a zero, sparse file), each once: the holes and all-zero blocks of file data too
 * (common/sparse.h); memory holds the used part of one FAT and one directory at a time,
 * plus a bounded copy buffer.
 */
#include "fat/tree_priv.h"
#include "fat/write_priv.h"
#include "fat/ondisk.h"
#include "common/sparse.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct wctx {
	struct fat_tree *t;
	const struct fat_geom *g;
	int fd;
	uint64_t vol;      /* volume offset in fd */
	const char *image; /* fd's name in messages, or NULL */
	uint32_t next;     /* first free cluster */
	uint8_t *buf;      /* SPARSE_CHUNK bytes for copies */
	uint8_t *pend;     /* SPARSE_CHUNK bytes: the clusters of small files, in a row */
	size_t pend_len;   /* bytes in pend, the clusters of files from volume byte pend_off */
	uint64_t pend_off;
	const char *dir; /* the host folder open as dir_fd (NULL: none) */
	int dir_fd;
	fat_stop_fn stop; /* asked before each file and after each SPARSE_CHUNK (may be NULL) */
	void *stop_ctx;
	struct diag *d;
};

static bool stopped(const struct wctx *w)
{
	return w->stop && w->stop(w->stop_ctx);
}

/* Says that writing at volume byte @off failed with @e; returns -@e. */
static int write_failed(struct wctx *w, uint64_t off, int e)
{
	return diag_errno(w->d, -e, "%s%swriting the FAT volume at byte %" PRIu64 ": %s",
			  w->image ? w->image : "", w->image ? ": " : "", w->vol + off,
			  strerror(e));
}

/* pwrite()s all of @buf at volume byte @off. */
static int put(struct wctx *w, const void *buf, size_t len, uint64_t off)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = pwrite(w->fd, p, len, (off_t)(w->vol + off));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return write_failed(w, off, n < 0 ? errno : EIO);
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

static uint64_t cluster_off(const struct fat_geom *g, uint32_t c)
{
	return g->data_offset + (uint64_t)(c - 2) * g->cluster_size;
}

/* Clusters of @n that its bytes use: all but those a reserve holds beyond its size. */
static uint32_t used_clusters(const struct fat_node *n, uint32_t cluster_size)
{
	return n->is_dir || !n->reserve ? n->n_clusters
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
			fat_put_lfn_entries(e, n->u16, n->n16, n->sfn);
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

/* Copies through the source's read callback; blocks of zeros stay holes. */
static int copy_read(struct wctx *w, const struct fat_node *n, uint64_t dst)
{
	char where[4096];

	for (uint64_t done = 0; done < n->size;) {
		size_t len = n->size - done < SPARSE_CHUNK ? (size_t)(n->size - done)
							   : SPARSE_CHUNK;
		uint64_t failed_at;
		int r = n->src.read(n->src.ctx, done, w->buf, len);
		if (r)
			return diag_error(w->d, "%s: %s", fat_node_where(n, where, sizeof(where)),
					  strerror(-r));
		r = sparse_write(w->fd, w->buf, len, w->vol + dst + done, &failed_at);
		if (r)
			return write_failed(w, failed_at - w->vol, -r);
		done += (uint64_t)len;
		if (done < n->size && stopped(w))
			return -EINTR;
	}
	return 0;
}

static bool stop_of(void *wctx)
{
	return stopped(wctx);
}

/* Copies from the source's @fd; its holes and blocks of zeros stay holes. */
static int copy_fd(struct wctx *w, const struct fat_node *n, int fd, uint64_t dst)
{
	struct sparse_copy c = { .src = fd,
				 .src_off = n->src.offset,
				 .len = n->size,
				 .dst = w->fd,
				 .dst_off = w->vol + dst,
				 .buf = w->buf,
				 .stop = stop_of,
				 .stop_ctx = w };
	struct sparse_fault fault;
	char where[4096];
	int r = sparse_copy(&c, &fault);

	if (r == 0 || r == -EINTR)
		return r;
	if (fault.in_dst)
		return write_failed(w, fault.at - w->vol, -r);
	return diag_error(w->d, "%s: %s", fat_node_where(n, where, sizeof(where)),
			  r == -ENODATA ? "shorter than its size (changed?)" : strerror(-r));
}

/* Writes the clusters gathered in pend (their zero blocks left out). */
static int flush_pending(struct wctx *w)
{
	uint64_t failed_at;
	int r = sparse_write(w->fd, w->pend, w->pend_len, w->vol + w->pend_off, &failed_at);

	w->pend_len = 0;
	return r ? write_failed(w, failed_at - w->vol, -r) : 0;
}

/* Reads the data of @n, whose clusters fit in pend, from @fd after those gathered there
 * when they follow them on the volume: one write for the files of a folder, not one each.
 * The rest of its last cluster is zeros, as the volume reads it anyway. */
static int gather_small(struct wctx *w, const struct fat_node *n, int fd, uint64_t dst)
{
	size_t span = (size_t)n->n_clusters * w->g->cluster_size;
	char where[4096];
	int r = 0;

	if (w->pend_len && (w->pend_off + w->pend_len != dst || w->pend_len + span > SPARSE_CHUNK))
		r = flush_pending(w);
	if (r)
		return r;
	if (!w->pend_len)
		w->pend_off = dst;
	uint8_t *p = w->pend + w->pend_len;
	for (size_t done = 0; done < n->size;) {
		ssize_t got = pread(fd, p + done, (size_t)n->size - done,
				    (off_t)(n->src.offset + done));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return diag_error(w->d, "%s: %s", fat_node_where(n, where, sizeof(where)),
					  got < 0 ? strerror(errno)
						  : "shorter than its size (changed?)");
		done += (size_t)got;
	}
	memset(p + n->size, 0, span - (size_t)n->size);
	w->pend_len += span;
	return 0;
}

/*
 * Opens the host file of @n: its name looked up in its folder, which stays open for the
 * files after it from the same folder. Returns the fd or a negative errno.
 */
static int open_host_file(struct wctx *w, const struct fat_node *n)
{
	if (w->dir != n->host_dir) {
		if (w->dir_fd >= 0)
			close(w->dir_fd);
		w->dir = NULL;
		w->dir_fd = open(*n->host_dir ? n->host_dir : ".",
				 O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (w->dir_fd < 0)
			return -errno;
		w->dir = n->host_dir;
	}
	int fd = openat(w->dir_fd, n->host_name ? n->host_name : n->name, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* File data straight from its source fd to its clusters where the kernel can. */
static int write_file(struct wctx *w, const struct fat_node *n)
{
	uint64_t dst = cluster_off(w->g, n->cluster);
	int fd = n->src.fd, r;
	char where[4096];

	if (!n->size || n->src.deferred)
		return 0;
	if (n->host_dir && (fd = open_host_file(w, n)) < 0)
		return diag_error(w->d, "%s: %s", fat_node_where(n, where, sizeof(where)),
				  strerror(-fd));
	struct stat st;
	if (n->host_dir && (fstat(fd, &st) < 0 || (uint64_t)st.st_size != n->size ||
			    !fileid_same(&n->src.listed, &st))) {
		close(fd);
		return diag_error(w->d,
				  "%s: changed while the image was built (it is not the "
				  "file of %" PRIu64 " bytes that was listed)",
				  fat_node_where(n, where, sizeof(where)), n->size);
	}
	if (n->src.read)
		r = copy_read(w, n, dst);
	else if ((uint64_t)n->n_clusters * w->g->cluster_size <= SPARSE_CHUNK / 4)
		r = gather_small(w, n, fd, dst);
	else
		r = copy_fd(w, n, fd, dst);
	if (n->host_dir)
		close(fd);
	return r;
}

static int write_dir(struct wctx *w, const struct fat_node *dir)
{
	int r = write_dir_entries(w, dir);

	for (size_t i = 0; i < dir->n_kids && !r; i++)
		if (!dir->kids[i]->is_dir)
			r = stopped(w) ? -EINTR : write_file(w, dir->kids[i]);
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
	struct wctx w = { .t = t,
			  .g = g,
			  .fd = fd,
			  .vol = vol_offset,
			  .image = image,
			  .dir_fd = -1,
			  .stop = stop,
			  .stop_ctx = stop_ctx,
			  .d = d };
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
	w.buf = malloc(SPARSE_CHUNK);
	w.pend = malloc(SPARSE_CHUNK);
	if (!w.buf || !w.pend) {
		free(w.buf);
		free(w.pend);
		return -ENOMEM;
	}
	r = write_boot(&w);
	if (!r)
		r = write_fats(&w);
	if (!r)
		r = write_dir(&w, &t->root);
	if (!r && w.pend_len)
		r = flush_pending(&w);
	if (w.dir_fd >= 0)
		close(w.dir_fd);
	free(w.buf);
	free(w.pend);
	return r;
}

uint64_t fat_tree_used_bytes(const struct fat_tree *t)
{
	if (!t->cluster_size)
		return 0;
	return t->data_offset + (uint64_t)(t->next_free - 2) * t->cluster_size;
}
