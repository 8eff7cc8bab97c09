/* SPDX-License-Identifier: MIT */
/*
 * direct: in a build whose only outputs are sparse files, the bytes of the host files that
 * raw regions and raw partitions copy verbatim are not copied into the scratch image: the
 * sparse writer reads them from the files themselves (builder_priv.h). Each byte then
 * crosses memory once on its way to the sparse file, as it does on its way to a raw image,
 * instead of being copied in and read back out. The files stay open until the sparse files
 * are written, and must then be as they were when they were measured.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/array.h"
#include "common/simg.h"
#include "mkimage/builder/builder_priv.h"

bool build_direct_wanted(const struct build_options *o, bool per_card)
{
	/* anything else that reads the image back (the bmap's checksums, the compressed or raw
	 * image, a per-card manifest's digest) reads the scratch file, so it must hold them */
	return o->simg && !o->write_raw && !o->compress && !o->bmap && !per_card;
}

int build_direct_add(struct build *b, int src_fd, uint64_t from, uint64_t to, uint64_t at,
		     const char *path)
{
	struct build_directs *ds = &b->direct;
	struct build_direct d = { .at = at, .len = to - from, .src_off = from, .fd = -1 };
	int rc = 0;

	if (fstat(src_fd, &d.st) < 0)
		rc = -errno;
	else if ((d.fd = fcntl(src_fd, F_DUPFD_CLOEXEC, 0)) < 0)
		rc = -errno;
	else if (!(d.path = strdup(path)) ||
		 array_grow((void **)&ds->v, &ds->cap, ds->n + 1, sizeof(*ds->v)) < 0)
		rc = -ENOMEM;
	if (rc < 0) {
		if (d.fd >= 0)
			close(d.fd);
		free(d.path);
		return rc;
	}
	ds->v[ds->n++] = d;
	return 0;
}

static int by_at(const void *x, const void *y)
{
	const struct build_direct *a = x, *b = y;

	return a->at < b->at ? -1 : a->at > b->at;
}

/* simg_image.locate: the file that holds [@at, @at + @len), or the scratch image up to the
 * next such file. */
static void locate(void *ctx, uint64_t at, uint64_t len, struct simg_source *src)
{
	const struct build_directs *ds = ctx;
	size_t lo = 0, hi = ds->n; /* the first whose range ends after @at */

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ds->v[mid].at + ds->v[mid].len <= at)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == ds->n)
		return; /* the scratch image's own bytes, as *@src says already */
	const struct build_direct *d = &ds->v[lo];
	if (d->at > at) {
		if (d->at - at < len)
			src->len = d->at - at;
		return;
	}
	*src = (struct simg_source){ .fd = d->fd,
				     .off = d->src_off + (at - d->at),
				     .len = d->at + d->len - at < len ? d->at + d->len - at : len,
				     .name = d->path };
}

void build_direct_image(struct build *b, struct simg_image *ret)
{
	struct build_directs *ds = &b->direct;

	if (ds->n > 1)
		qsort(ds->v, ds->n, sizeof(*ds->v), by_at);
	*ret = (struct simg_image){ .fd = b->image.fd,
				    .name = b->o->output,
				    .locate = ds->n ? locate : NULL,
				    .locate_ctx = ds };
}

int build_direct_check(struct build *b)
{
	for (size_t i = 0; i < b->direct.n; i++) {
		const struct build_direct *d = &b->direct.v[i];
		struct stat st;
		if (fstat(d->fd, &st) < 0)
			return diag_error(b->d, "%s: %s", d->path, strerror(errno));
		/* the change time too: a tool may set the modification time back */
		if (st.st_size != d->st.st_size || fileid_mtime(&st) != fileid_mtime(&d->st) ||
		    st.st_ctim.tv_sec != d->st.st_ctim.tv_sec ||
		    st.st_ctim.tv_nsec != d->st.st_ctim.tv_nsec)
			return diag_error(b->d, "%s: changed while the image was built", d->path);
	}
	return 0;
}

void build_direct_release(struct build *b)
{
	for (size_t i = 0; i < b->direct.n; i++) {
		close(b->direct.v[i].fd);
		free(b->direct.v[i].path);
	}
	free(b->direct.v);
	b->direct = (struct build_directs){ 0 };
}
