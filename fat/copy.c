/* SPDX-License-Identifier: MIT */
/* fat/copy: the bytes of a tree's files into their clusters (see copy_priv.h). */
#include "fat/copy_priv.h"
#include "common/path.h"
#include "common/sparse.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int fat_copier_start(struct fat_copier *w)
{
	w->dir = NULL;
	w->dir_fd = -1;
	w->pend_len = 0;
	w->buf = malloc(SPARSE_CHUNK);
	w->pend = malloc(SPARSE_CHUNK);
	if (w->buf && w->pend)
		return 0;
	free(w->buf);
	free(w->pend);
	w->buf = w->pend = NULL;
	return -ENOMEM;
}

bool fat_copier_stopped(const struct fat_copier *w)
{
	return w->stop && w->stop(w->stop_ctx);
}

uint64_t fat_copier_written_below(const struct fat_copier *w, uint64_t next)
{
	return w->pend_len && w->pend_off < next ? w->pend_off : next;
}

bool fat_copier_stopped_at(const struct fat_copier *w, uint64_t next)
{
	if (w->written_below)
		*w->written_below = fat_copier_written_below(w, next);
	return fat_copier_stopped(w);
}

int fat_copier_failed(struct fat_copier *w, uint64_t off, int e)
{
	return diag_errno(w->d, -e, "%s%swriting the %s volume at byte %" PRIu64 ": %s",
			  w->image ? w->image : "", w->image ? ": " : "", w->kind, w->vol + off,
			  strerror(e));
}

int fat_copier_put(struct fat_copier *w, const void *buf, size_t len, uint64_t off)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = pwrite(w->fd, p, len, (off_t)(w->vol + off));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fat_copier_failed(w, off, n < 0 ? errno : EIO);
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* Copies through the source's read callback; blocks of zeros stay holes. */
static int copy_read(struct fat_copier *w, const struct fat_node *n, uint64_t dst)
{
	char where[4096];

	for (uint64_t done = 0; done < n->size;) {
		size_t len = n->size - done < SPARSE_CHUNK ? (size_t)(n->size - done)
							   : SPARSE_CHUNK;
		uint64_t failed_at;
		int r = fat_node_src(n)->read(fat_node_src(n)->ctx, done, w->buf, len);
		if (r)
			return diag_error(w->d, "%s: %s", fat_node_where(n, where, sizeof(where)),
					  strerror(-r));
		r = sparse_write(w->fd, w->buf, len, w->vol + dst + done, &failed_at);
		if (r)
			return fat_copier_failed(w, failed_at - w->vol, -r);
		done += (uint64_t)len;
		if (done < n->size && fat_copier_stopped_at(w, dst + done))
			return -EINTR;
	}
	return 0;
}

static bool stop_of(void *copier, uint64_t done)
{
	const struct fat_copier *w = copier;

	return fat_copier_stopped_at(w, w->file_at + done);
}

/* Copies from the source's @fd; its holes and blocks of zeros stay holes. */
static int copy_fd(struct fat_copier *w, const struct fat_node *n, int fd, uint64_t dst)
{
	struct sparse_copy c = { .src = fd,
				 .src_off = fat_node_src(n) ? fat_node_src(n)->offset : 0,
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
		return fat_copier_failed(w, fault.at - w->vol, -r);
	return diag_error(w->d, "%s: %s", fat_node_where(n, where, sizeof(where)),
			  r == -ENODATA ? "shorter than its size (changed?)" : strerror(-r));
}

/* Writes the clusters gathered in pend (their zero blocks left out). */
static int flush_pending(struct fat_copier *w)
{
	uint64_t failed_at;
	int r = sparse_write(w->fd, w->pend, w->pend_len, w->vol + w->pend_off, &failed_at);

	w->pend_len = 0;
	return r ? fat_copier_failed(w, failed_at - w->vol, -r) : 0;
}

/* Reads the data of @n, whose clusters fit in pend, from @fd after those gathered there
 * when they follow them on the volume: one write for the files of a folder, not one each.
 * The rest of its last cluster is zeros, as the volume reads it anyway. */
static int gather_small(struct fat_copier *w, const struct fat_node *n, int fd, uint64_t dst)
{
	size_t span = (size_t)n->n_clusters * w->cluster_size;
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
				    (off_t)((fat_node_src(n) ? fat_node_src(n)->offset : 0) +
					    done));
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
static int open_host_file(struct fat_copier *w, const struct fat_node *n)
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
	return path_open_at(w->dir_fd, fat_node_host_name(n), 0);
}

/* File data from its source fd to its clusters (common/sparse.h). */
int fat_copier_file(struct fat_copier *w, const struct fat_node *n, uint64_t dst)
{
	const struct fat_source *src = fat_node_src(n);
	int fd = src ? src->fd : -1, r;
	char where[4096];

	if (!n->size || (src && src->deferred))
		return 0;
	w->file_at = dst;
	if (n->host_dir && (fd = open_host_file(w, n)) < 0 &&
	    !(w->dir && fileid_replaced_at(w->dir_fd, fat_node_host_name(n), &n->listed, n->size)))
		return diag_error(w->d, "%s: %s", fat_node_where(n, where, sizeof(where)),
				  strerror(-fd));
	struct stat st;
	if (n->host_dir &&
	    (fd < 0 || fstat(fd, &st) < 0 || !fileid_same(&n->listed, n->size, &st))) {
		if (fd >= 0)
			close(fd);
		return diag_error(w->d,
				  "%s: changed while the image was built (it is not the "
				  "file of %" PRIu64 " bytes that was listed)",
				  fat_node_where(n, where, sizeof(where)), n->size);
	}
	if (src && src->read)
		r = copy_read(w, n, dst);
	else if ((uint64_t)n->n_clusters * w->cluster_size <= SPARSE_CHUNK / 4)
		r = gather_small(w, n, fd, dst);
	else
		r = copy_fd(w, n, fd, dst);
	if (n->host_dir)
		close(fd);
	return r;
}

int fat_copier_finish(struct fat_copier *w, int r)
{
	if (!r && w->pend_len)
		r = flush_pending(w);
	if (w->dir_fd >= 0)
		close(w->dir_fd);
	w->dir_fd = -1;
	free(w->buf);
	free(w->pend);
	w->buf = w->pend = NULL;
	return r;
}
