/* SPDX-License-Identifier: MIT */
/* sparse: host file bytes into an image file, zeros left out (see sparse.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/sparse.h"

#include "common/extent.h"

static bool all_zero(const uint8_t *p, size_t len)
{
	return !len || (!p[0] && !memcmp(p, p + 1, len - 1));
}

/* The bytes of @buf from @from up to the first block of the other kind (zero or not). */
static size_t run_of(const uint8_t *buf, size_t len, size_t from, bool zero)
{
	size_t end = from;

	while (end < len) {
		size_t n = len - end < SPARSE_BLOCK ? len - end : SPARSE_BLOCK;
		if (all_zero(buf + end, n) != zero)
			break;
		end += n;
	}
	return end - from;
}

/* pwrite()s all of @len bytes; a write that makes no progress is -ENOSPC. */
static int write_all(int fd, const uint8_t *p, size_t len, uint64_t off, uint64_t *failed_at)
{
	while (len) {
		ssize_t w = pwrite(fd, p, len, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			*failed_at = off;
			return w < 0 ? -errno : -ENOSPC;
		}
		p += w;
		len -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

int sparse_write(int dst, const uint8_t *buf, size_t len, uint64_t dst_off, uint64_t *failed_at)
{
	size_t pos = 0;

	while (pos < len) {
		pos += run_of(buf, len, pos, true);
		size_t data = run_of(buf, len, pos, false);
		int rc = write_all(dst, buf + pos, data, dst_off + pos, failed_at);
		if (rc < 0)
			return rc;
		pos += data;
	}
	return 0;
}

/* Starts the writeback of @dst's bytes [@start, @end) without waiting for it: the disk
 * writes the data while the copy goes on and the final fsync() has little left. Only a
 * hint: where sync_file_range() fails, the final fsync() does it all. */
static void write_behind(int dst, uint64_t start, uint64_t end)
{
	(void)sync_file_range(dst, (off64_t)start, (off64_t)(end - start), SYNC_FILE_RANGE_WRITE);
}

/*
 * Makes [@from, @from + @len) of the destination share the source's blocks (FICLONERANGE,
 * ioctl_ficlonerange(2)): a file system with reflinks (Btrfs, XFS) copies no byte. Returns
 * whether it did; *@can is cleared where the file system cannot (ext4, another file system
 * than the source's), so that the copy asks no more.
 */
static bool clone_range(const struct sparse_copy *c, uint64_t from, size_t len, bool *can)
{
	struct file_clone_range r = { .src_fd = c->src,
				      .src_offset = c->src_off + from,
				      .src_length = len,
				      .dest_offset = c->dst_off + from };

	if (ioctl(c->dst, FICLONERANGE, &r) == 0)
		return true;
	/* EINVAL: this range is not on the block grid, another one may be */
	if (errno != EINVAL)
		*can = false;
	return false;
}

/*
 * Writes the blocks of c->buf, @len bytes of the source at @from, that are not all zero:
 * shared with the source where the file system can, else from the buffer. The bytes were
 * read to find the zeros, and a write from a buffer the cache still holds costs less than
 * copy_file_range(2) copying them again from the page cache (1 GiB on ext4: 0.37 s of
 * system time against 0.42 s).
 */
static int put_data(const struct sparse_copy *c, uint64_t from, size_t len, bool *can_clone,
		    struct sparse_fault *fault)
{
	size_t pos = 0;

	while (pos < len) {
		pos += run_of(c->buf, len, pos, true);
		size_t data = run_of(c->buf, len, pos, false);
		if (data && *can_clone && clone_range(c, from + pos, data, can_clone)) {
			pos += data;
			continue;
		}
		int rc = write_all(c->dst, c->buf + pos, data, c->dst_off + from + pos, &fault->at);
		if (rc < 0) {
			fault->in_dst = true;
			return rc;
		}
		pos += data;
	}
	return 0;
}

/* Copies [@from, @from + @len) (relative to the copy's start), a data extent of the source;
 * stop() is asked after each chunk while the copy has bytes left past @from. */
static int copy_data(const struct sparse_copy *c, uint64_t from, uint64_t len, bool *can_clone,
		     struct sparse_fault *fault)
{
	uint64_t start = c->dst_off + from; /* the first byte not handed to write_behind() */

	while (len > 0) {
		size_t n = len < SPARSE_CHUNK ? (size_t)len : SPARSE_CHUNK;
		ssize_t got = pread(c->src, c->buf, n, (off_t)(c->src_off + from));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (got == 0)
			return -ENODATA; /* the file shrank while it was read */
		int rc = put_data(c, from, (size_t)got, can_clone, fault);
		if (rc < 0)
			return rc;
		from += (uint64_t)got;
		len -= (uint64_t)got;
		if (!c->scratch && c->dst_off + from - start >= SPARSE_WINDOW) {
			write_behind(c->dst, start, c->dst_off + from);
			start = c->dst_off + from;
		}
		if (from < c->len && c->stop && c->stop(c->stop_ctx, from))
			return -EINTR;
	}
	return 0;
}

/* Whether the source still holds all the bytes of the copy (a hole at its end was not read). */
static int check_length(const struct sparse_copy *c)
{
	struct stat st;

	if (fstat(c->src, &st) < 0)
		return -errno;
	return (uint64_t)st.st_size < c->src_off + c->len ? -ENODATA : 0;
}

int sparse_copy(const struct sparse_copy *c, struct sparse_fault *fault)
{
	struct extent_walk w;
	uint64_t start, end;
	bool can_clone = true;

	*fault = (struct sparse_fault){ 0 };
	/* one chunk is read whole, holes and all: the zeros the kernel gives for its holes are
	 * left out like written ones, and two lseek() calls a file are saved */
	if (c->len <= SPARSE_CHUNK)
		return copy_data(c, 0, c->len, &can_clone, fault);
	extent_start(&w, c->src, c->src_off, c->src_off + c->len);
	while (extent_next(&w, &start, &end)) {
		int rc = copy_data(c, start - c->src_off, end - start, &can_clone, fault);
		if (rc < 0)
			return rc;
		if (end == c->src_off + c->len)
			return 0;
	}
	if (w.err) /* the source's extents could not be told: a read fault */
		return w.err;
	return check_length(c); /* only a hole is left: is it inside the file? */
}
