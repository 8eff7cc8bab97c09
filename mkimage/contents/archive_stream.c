/* SPDX-License-Identifier: MIT */
/*
 * archive_stream: the data pass of FAT and exFAT (contents.h). The file system's writer has
 * placed every file and written everything but the bytes of files that come from archives;
 * the data pass of the archive reader (archive_read.c) reads each archive a second time, in
 * its own order, and this pwrite()s every entry's bytes where the writer put them (once for each name the
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
	content_place_fn place; /* where the volume put each file */
	const void *vol;
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
static int collect(const struct content *c, const struct sink *out, uint32_t id,
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
		if (out->place(out->vol, node->path, &v[n].off) < 0) {
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

/* The data pass's destinations of archive @id: v[@j]... for each entry it wants. */
struct sink_files {
	const struct sink *out;
	const struct dest *v;
	size_t n, j; /* v[j] is the first destination of the entry the pass is at */
};

/* Copies the bytes of want[@i], entry @b, to each of its destinations (a content_bytes_fn). */
static int copy_entry(void *ctx, size_t i, struct content_entry_bytes *b)
{
	struct sink_files *f = ctx;
	size_t end = f->j;
	const void *buf;
	size_t len;
	uint64_t at;
	int rc;

	(void)i; /* the destinations come in the order of the entries wanted */
	while (end < f->n && f->v[end].entry == f->v[f->j].entry)
		end++;
	while ((rc = content_entry_block(b, &buf, &len, &at)) > 0)
		for (size_t k = f->j; k < end; k++) {
			uint64_t failed_at;
			rc = sparse_write(f->out->fd, buf, len, f->v[k].off + at, &failed_at);
			if (rc < 0)
				return diag_error(f->out->d,
						  "%s: writing the image at byte %llu: %s",
						  f->out->image, (unsigned long long)failed_at,
						  strerror(-rc));
		}
	f->j = end;
	return rc;
}

/* The entries of the destinations @v, each once, for content_archive_data(). */
static struct content_archive_want *wanted(const struct dest *v, size_t n, size_t *ret_n)
{
	struct content_archive_want *w = malloc((n ? n : 1) * sizeof(*w));
	size_t k = 0;

	for (size_t i = 0; w && i < n; i++)
		if (!k || w[k - 1].entry != v[i].entry)
			w[k++] = (struct content_archive_want){ v[i].entry, v[i].size };
	*ret_n = k;
	return w;
}

/* Archive @id's bytes to the files of @c that come from it. */
static int write_archive(struct sink *out, const struct content *c, uint32_t id,
			 uint64_t vol_offset)
{
	const struct content_archive *ca = &c->archives[id - 1];
	struct content_archive_want *want = NULL;
	struct dest *v = NULL;
	size_t n = 0, n_want = 0;
	int rc = collect(c, out, id, vol_offset, &v, &n);

	if (rc == 0 && !(want = wanted(v, n, &n_want)))
		rc = -ENOMEM;
	/* libarchive, opened for the first archive with bytes to write: the listing has
	 * loaded it already, and this takes one more reference */
	if (rc == 0 && n && !out->lib.dl.handle)
		rc = content_archive_lib_open(&out->lib, "archive trees", out->d);
	struct sink_files f = { .out = out, .v = v, .n = n };
	if (rc == 0)
		rc = content_archive_data(&out->lib, ca, want, n_want, copy_entry, &f, out->stop,
					  out->stop_ctx, out->d);
	free(want);
	free(v);
	return rc;
}

int content_write_archive_data(const struct content *c, content_place_fn place, const void *vol,
			       int fd, uint64_t vol_offset, const char *image, content_stop_fn stop,
			       void *stop_ctx, struct diag *d)
{
	struct sink out = { .place = place,
			    .vol = vol,
			    .fd = fd,
			    .image = image,
			    .stop = stop,
			    .stop_ctx = stop_ctx,
			    .d = d };
	int rc = 0;

	for (uint32_t id = 1; rc == 0 && id <= c->n_archives; id++)
		rc = write_archive(&out, c, id, vol_offset);
	content_archive_lib_close(&out.lib);
	return rc;
}
