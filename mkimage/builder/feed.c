/* SPDX-License-Identifier: MIT */
/*
 * feed: bytes of the written image into the hashers and the compressor that ship beside it
 * (builder_priv.h): its data extents read from the page cache the writers just filled, its
 * holes fed from a buffer of zeros, never read.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "common/extent.h"
#include "common/sha256.h"
#include "mkimage/builder/builder_priv.h"

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* The part of [@pos, @pos + @len) that falls into bmap ranges goes into their hashes. */
static int feed_ranges(struct build_feed *f, uint64_t pos, const uint8_t *p, size_t len)
{
	struct build_map *m = f->map;

	while (len && f->range < m->n) {
		struct build_range *r = &m->v[f->range];
		uint64_t end = min64(r->end, f->size);
		if (pos < r->start) {
			size_t skip = (size_t)min64(len, r->start - pos);
			pos += skip, p += skip, len -= skip;
			continue;
		}
		size_t take = (size_t)min64(len, end - pos);
		sha256_update(f->range_sha, p, take);
		pos += take, p += take, len -= take;
		if (pos == end) {
			if (sha256_final(f->range_sha, r->sha256) < 0)
				return -EIO;
			f->range++;
		}
	}
	return 0;
}

/* Whether the pass is to stop: a signal the build holds, asked on the build's own thread
 * (which tells it once); on the ranges' thread, the build's word. */
static bool stopped(struct build_feed *f)
{
	return f->stop ? atomic_load(f->stop) : build_interrupted(f->b);
}

static int feed(struct build_feed *f, uint64_t pos, const uint8_t *p, size_t len)
{
	struct diag *d = f->d;
	int rc = 0;

	if (f->image_sha)
		sha256_update(f->image_sha, p, len);
	if (f->z)
		rc = build_compressor_write(f->z, p, len, d);
	if (rc == 0 && f->range_sha)
		rc = feed_ranges(f, pos, p, len);
	/* after every chunk: gzip takes ~50 ms a MiB of incompressible data (xz's threaded
	 * encoder may still keep a signal waiting while a block is finished) */
	if (rc == 0 && stopped(f))
		rc = -EINTR;
	return rc;
}

static int feed_zeros(struct build_feed *f, uint64_t pos, uint64_t len)
{
	int rc = 0;

	while (rc == 0 && len) {
		size_t n = (size_t)min64(len, f->chunk);
		rc = feed(f, pos, f->zeros, n);
		pos += n;
		len -= n;
	}
	return rc;
}

static int feed_data(struct build_feed *f, uint64_t pos, uint64_t len)
{
	int fd = f->b->image.fd;
	int rc = 0;

	while (rc == 0 && len) {
		ssize_t n = pread(fd, f->buf, (size_t)min64(len, f->chunk), (off_t)pos);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return diag_error(f->d, "%s: reading the image back: %s", f->b->o->output,
					  n < 0 ? strerror(errno) : "it is shorter than planned");
		rc = feed(f, pos, f->buf, (size_t)n);
		pos += (uint64_t)n;
		len -= (uint64_t)n;
	}
	return rc;
}

/* Feeds [@from, @to) of the image: its data extents read, its holes as zeros. */
int build_feed_walk(struct build_feed *f, uint64_t from, uint64_t to)
{
	struct extent_walk w;
	uint64_t pos = from, start, end;
	int rc = 0;

	extent_start(&w, f->b->image.fd, from, to);
	while (rc == 0 && extent_next(&w, &start, &end)) {
		rc = feed_zeros(f, pos, start - pos);
		if (rc == 0)
			rc = feed_data(f, start, end - start);
		pos = end;
	}
	if (rc == 0 && w.err)
		return diag_errno(f->d, w.err, "%s: reading the image back: %s", f->b->o->output,
				  strerror(-w.err));
	return rc == 0 ? feed_zeros(f, pos, to - pos) : rc;
}

/* Feeds the bmap's ranges alone. */
int build_feed_walk_ranges(struct build_feed *f)
{
	struct build_map *m = f->map;

	for (size_t i = 0; i < m->n; i++) {
		int rc = build_feed_walk(f, m->v[i].start, min64(m->v[i].end, f->size));
		if (rc < 0)
			return rc;
	}
	return 0;
}
