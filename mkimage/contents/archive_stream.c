/*
 * archive_stream: the data pass (contents.h). fat_write() has placed every file and written
 * everything but the bytes of files that come from archives; this reads each archive a
 * second time (a compressed one from the spool its listing left, archive_spool.c), in its
 * own order, and pwrite()s every entry's bytes where fat/ put them (once for each name the
 * entry has: hard and symbolic links get the same bytes again). Holes stay holes: only
 * blocks that are not all zero are written into the zero, sparse output.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/array.h"
#include "common/sparse.h"
#include "mkimage/contents/contents_priv.h"

/* Where the data pass writes, and who may stop it. */
struct sink {
	struct content_archive_lib lib; /* owned while archives are read */
	int fd;
	const char *image; /* the image's name, for messages */
	content_stop_fn stop;
	void *stop_ctx;
	struct diag *d;
};

/* One file the data pass writes: entry @entry of the archive goes to byte @off. */
struct dest {
	uint64_t entry;
	uint64_t off;
	uint64_t size;
};

static int compare_dest(const void *a, const void *b)
{
	const struct dest *x = a, *y = b;

	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* The files of archive @id with bytes, sorted by entry number, in *@ret (free() it). */
static int collect(const struct content *c, const struct fat_tree *vol, uint32_t id,
		   uint64_t vol_offset, struct dest **ret, size_t *ret_n)
{
	struct dest *v = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < c->n; i++) {
		const struct content_node *node = &c->nodes[i];
		if (node->removed || node->archive != id || !node->size)
			continue;
		if (array_grow((void **)&v, &cap, n + 1, sizeof(*v)) < 0) {
			free(v);
			return -ENOMEM;
		}
		v[n] = (struct dest){ .entry = node->entry, .size = node->size };
		if (fat_tree_file_offset(vol, node->path, &v[n].off) < 0) {
			free(v);
			return -EINVAL;
		}
		v[n++].off += vol_offset;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), compare_dest);
	*ret = v;
	*ret_n = n;
	return 0;
}

/* Copies the current entry's data to the @n destinations @v. */
static int copy_entry(const struct sink *out, const char *host, struct archive *a,
		      struct archive_entry *ae, const struct dest *v, size_t n)
{
	const void *buf;
	size_t len;
	la_int64_t at;
	int r;

	if ((uint64_t)out->lib.archive_entry_size(ae) != v->size)
		return diag_error(out->d, "%s: %s: changed while the image was built", host,
				  content_archive_entry_name(&out->lib, ae));
	while (content_archive_ok(r = out->lib.archive_read_data_block(a, &buf, &len, &at))) {
		if (at < 0 || (uint64_t)at + len > v->size)
			return diag_error(out->d, "%s: %s: holds more data than its size", host,
					  content_archive_entry_name(&out->lib, ae));
		for (size_t i = 0; i < n; i++) {
			uint64_t failed_at;
			int rc = sparse_write(out->fd, buf, len, v[i].off + (uint64_t)at,
					      &failed_at);
			if (rc < 0)
				return diag_error(out->d, "%s: writing the image at byte %llu: %s",
						  out->image, (unsigned long long)failed_at,
						  strerror(-rc));
		}
		if (out->stop && out->stop(out->stop_ctx)) /* a large entry: after each block */
			return -EINTR;
	}
	if (r != ARCHIVE_EOF)
		return diag_error(out->d, "%s: %s: %s", host,
				  content_archive_entry_name(&out->lib, ae),
				  out->lib.archive_error_string(a));
	return 0;
}

static int stream(const struct sink *out, const char *host, struct archive *a, const struct dest *v,
		  size_t n)
{
	struct archive_entry *ae;
	uint64_t k = 0;
	size_t j = 0;
	int r = ARCHIVE_OK;

	while (j < n && content_archive_ok(r = out->lib.archive_read_next_header(a, &ae))) {
		size_t end = j;
		if (out->stop && out->stop(out->stop_ctx))
			return -EINTR;
		while (end < n && v[end].entry == k)
			end++;
		if (end > j) {
			int rc = copy_entry(out, host, a, ae, v + j, end - j);
			if (rc < 0)
				return rc;
			j = end;
		}
		k++;
	}
	if (j < n)
		return diag_error(out->d, "%s: %s", host,
				  r == ARCHIVE_EOF ? "changed while the image was built"
						   : out->lib.archive_error_string(a));
	return 0;
}

/* The archive must be the file that was listed: same file, size and time. */
static int unchanged(const struct sink *out, const struct content_archive *ca)
{
	struct stat st;

	if (stat(ca->path, &st) < 0)
		return diag_error(out->d, "%s: %s", ca->path, strerror(errno));
	if (st.st_dev != ca->dev || st.st_ino != ca->ino || st.st_size != ca->size ||
	    st.st_mtim.tv_sec != ca->mtime.tv_sec || st.st_mtim.tv_nsec != ca->mtime.tv_nsec)
		return diag_error(out->d, "%s: changed while the image was built", ca->path);
	return 0;
}

/* The archive of @ca for the data pass: its spool when it has one, else the file itself. */
/* Archive @id's bytes to the files of @c that come from it. */
static int write_archive(struct sink *out, const struct content *c, const struct fat_tree *vol,
			 uint32_t id, uint64_t vol_offset)
{
	const struct content_archive *ca = &c->archives[id - 1];
	struct dest *v = NULL;
	size_t n = 0;
	int rc = ca->spooled ? 0 : unchanged(out, ca);

	if (rc == 0)
		rc = collect(c, vol, id, vol_offset, &v, &n);
	/* libarchive, opened for the first archive with bytes to write: the listing has
	 * loaded it already, and this takes one more reference */
	if (rc == 0 && n && !out->lib.dl.handle)
		rc = content_archive_lib_open(&out->lib, "archive trees", out->d);
	if (rc == 0 && n) {
		struct archive *a = content_archive_reopen(&out->lib, ca->path,
							   ca->spooled ? ca->spool_fd : -1, out->d);
		rc = a ? stream(out, ca->path, a, v, n) : -EINVAL;
		if (a)
			out->lib.archive_read_free(a);
	}
	free(v);
	return rc;
}

int content_write_archive_data(const struct content *c, const struct fat_tree *vol, int fd,
			       uint64_t vol_offset, const char *image, content_stop_fn stop,
			       void *stop_ctx, struct diag *d)
{
	struct sink out = { .fd = fd, .image = image, .stop = stop, .stop_ctx = stop_ctx, .d = d };
	int rc = 0;

	for (uint32_t id = 1; rc == 0 && id <= c->n_archives; id++)
		rc = write_archive(&out, c, vol, id, vol_offset);
	content_archive_lib_close(&out.lib);
	return rc;
}
