/* SPDX-License-Identifier: MIT */
/* copy: a host file into the image, holes and zeros kept as holes (see builder_priv.h). */
#include <errno.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "common/extent.h"
#include "common/sparse.h"
#include "mkimage/builder/builder_priv.h"

#define BYTES_CHUNK (1u << 20)

/* pwrite()s all of @len bytes; a write that makes no progress is -ENOSPC. */
static int write_all(int fd, const char *p, size_t len, uint64_t off)
{
	while (len) {
		ssize_t w = pwrite(fd, p, len, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -ENOSPC;
		p += w;
		len -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

/*
 * Records in @map every extent the file system gives @fd within [@from, @to), written or
 * not (FIEMAP), at @dst_offset + (its offset - @from): mke2fs allocates a journal and inode
 * tables as unwritten extents, which SEEK_DATA reports as holes, or writes their zeros,
 * which the copy leaves out, yet a card must hold their zeros rather than what it held
 * before. Without FIEMAP_FLAG_SYNC: that would write the file's cached bytes to its disk
 * first, a wait no copy needs (ext4, XFS and Btrfs report those bytes as delayed extents;
 * map_data() adds them where a file system does not). Returns 0, or a negative errno when
 * the file system offers no FIEMAP.
 */
static int map_extents(int fd, uint64_t from, uint64_t to, uint64_t dst_offset,
		       struct build_map *map)
{
	enum { EXTENTS = 64 };
	/* the request and room for EXTENTS answers after it (fm_extents[], Linux's
	 * Documentation/filesystems/fiemap.rst) */
	union {
		struct fiemap fm;
		unsigned char room[sizeof(struct fiemap) + EXTENTS * sizeof(struct fiemap_extent)];
	} q;
	uint64_t start = from;

	while (start < to) {
		memset(&q, 0, sizeof(q));
		q.fm.fm_start = start;
		q.fm.fm_length = to - start;
		q.fm.fm_extent_count = EXTENTS;
		if (ioctl(fd, FS_IOC_FIEMAP, &q.fm) < 0)
			return -errno;
		if (q.fm.fm_mapped_extents == 0)
			return 0;
		for (unsigned i = 0; i < q.fm.fm_mapped_extents; i++) {
			const struct fiemap_extent *e = &q.fm.fm_extents[i];
			uint64_t first = e->fe_logical > from ? e->fe_logical : from;
			uint64_t end = e->fe_logical + e->fe_length < to
					       ? e->fe_logical + e->fe_length
					       : to;
			if (first < end &&
			    build_map_add(map, dst_offset + (first - from), end - first) < 0)
				return -ENOMEM;
			if (e->fe_flags & FIEMAP_EXTENT_LAST)
				return 0;
			start = e->fe_logical + e->fe_length;
		}
	}
	return 0;
}

/* Records in @map the data extents SEEK_DATA gives @fd within [@from, @to), at @dst_offset +
 * (their offset - @from), all of it where there is no SEEK_DATA: where FIEMAP is not
 * offered, or gives no extent for bytes not yet on the disk. Returns 0, -ENOMEM or
 * lseek()'s failure (-errno). */
static int map_data(int fd, uint64_t from, uint64_t to, uint64_t dst_offset, struct build_map *map)
{
	struct extent_walk w;
	uint64_t start, end;

	extent_start(&w, fd, from, to);
	while (extent_next(&w, &start, &end))
		if (build_map_add(map, dst_offset + (start - from), end - start) < 0)
			return -ENOMEM;
	return w.err;
}

static bool stop_requested(void *build, uint64_t done)
{
	(void)done;
	return build_interrupted(build);
}

int build_copy_file(struct build *b, int src_fd, uint64_t from, uint64_t to, uint64_t dst_offset,
		    const char *what, struct build_map *map)
{
	int rc = map ? map_extents(src_fd, from, to, dst_offset, map) : 0;

	if (map && rc != -ENOMEM) /* the data extents at least, where FIEMAP misses some */
		rc = map_data(src_fd, from, to, dst_offset, map);
	if (rc == -ENOMEM)
		return diag_error(b->d, "%s: out of memory", what);
	if (rc < 0)
		return diag_errno(b->d, rc, "%s: %s", what, strerror(-rc));
	/* a few descriptors at most: a layout of many holes copies the rest */
	if (b->direct.on && b->direct.n < BUILD_DIRECT_MAX) {
		rc = build_direct_add(b, src_fd, from, to, dst_offset, what);
		if (rc != -EMFILE && rc != -ENFILE) /* out of descriptors: copied after all */
			return rc < 0 ? diag_errno(b->d, rc, "%s: %s", what, strerror(-rc)) : 0;
	}
	struct sparse_copy c = { .src = src_fd,
				 .src_off = from,
				 .len = to - from,
				 .dst = b->image.fd,
				 .dst_off = dst_offset,
				 .buf = malloc(SPARSE_CHUNK),
				 .stop = stop_requested,
				 .stop_ctx = b,
				 .scratch = !b->o->write_raw };
	struct sparse_fault fault;
	if (!c.buf)
		return diag_error(b->d, "%s: out of memory", what);
	rc = sparse_copy(&c, &fault);
	free(c.buf);
	if (rc == -EINTR)
		return rc; /* build_interrupted() said so */
	if (rc < 0 && fault.in_dst)
		return diag_error(b->d, "%s: writing %s into it: %s", b->o->output, what,
				  strerror(-rc));
	if (rc < 0)
		return diag_error(b->d, "%s: %s", what,
				  rc == -ENODATA ? "the file shrank while it was copied"
						 : strerror(-rc));
	return 0;
}

int build_write_bytes(struct build *b, uint64_t offset, uint64_t len, uint8_t byte,
		      const char *what)
{
	char *bytes = malloc(BYTES_CHUNK);
	int rc = bytes ? 0 : -ENOMEM;

	if (bytes)
		memset(bytes, byte, BYTES_CHUNK);
	while (rc == 0 && len > 0) {
		size_t n = len > BYTES_CHUNK ? BYTES_CHUNK : (size_t)len;
		rc = write_all(b->image.fd, bytes, n, offset);
		offset += n;
		len -= n;
		if (rc == 0 && len && build_interrupted(b))
			rc = -EINTR;
	}
	free(bytes);
	if (rc == -EINTR)
		return rc;
	return rc < 0 ? diag_error(b->d, "%s: writing the %s of %s into it: %s", b->o->output,
				   byte ? "fill bytes" : "zeros", what, strerror(-rc))
		      : 0;
}
