/* SPDX-License-Identifier: MIT */
/* io: libext2fs's block I/O onto a region of an open image file. libext2fs writes a block at
 * a time (inodes, folders, bitmaps, small files): writes are kept in RUNS runs of consecutive
 * bytes (up to RUN_BYTES each), a write that continues a run or falls inside it joins it, a
 * read inside one is answered from it, and the run written least recently is passed on in one
 * pwrite when a new one needs its place (all of them on flush and close). A write of
 * DIRECT_BYTES or more (a file's run of blocks, data.c) goes to the image at once.
 * No two runs hold the same byte: a write or read that meets a run it does not fall inside
 * passes that run on first, so the image and the runs together always hold the newest bytes.
 * A channel opened for writing reads the bytes past the end of its (sparse, still short) image
 * file as zeros; one opened read-only reads an image that should hold them all, and a read
 * past its end is EXT2_ET_SHORT_READ (a cut image). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ext4/ext4_priv.h"

#define RUN_BYTES (1u << 20)
#define RUNS 8
/* A write of this many bytes or more goes to the image at once. */
#define DIRECT_BYTES (RUN_BYTES / 4)

/* Bytes written but not yet passed on: [pos, pos + len) of the region. */
struct run {
	char *buf; /* RUN_BYTES */
	uint64_t pos, len;
	uint64_t used; /* when it was last written: the oldest goes first */
};

struct region {
	int fd;
	uint64_t offset, size;
	struct run runs[RUNS];
	uint64_t clock;
	bool reading; /* opened read-only: the end of the file is an error */
};

static struct region *region_of(io_channel ch)
{
	return ch->private_data;
}

/* @len bytes at @pos of the region, or EXT2_ET_LLSEEK_FAILED when past its end. */
static errcode_t region_check(const struct region *r, uint64_t pos, uint64_t len)
{
	return pos > r->size || len > r->size - pos ? EXT2_ET_LLSEEK_FAILED : 0;
}

static errcode_t pwrite_all(const struct region *r, uint64_t pos, size_t len, const void *buf)
{
	for (size_t done = 0; done < len;) {
		ssize_t n = pwrite(r->fd, (const char *)buf + done, len - done,
				   (off_t)(r->offset + pos + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		done += (size_t)n;
	}
	return 0;
}

static errcode_t flush_run(const struct region *r, struct run *u)
{
	errcode_t err = u->len ? pwrite_all(r, u->pos, u->len, u->buf) : 0;

	u->len = 0;
	return err;
}

static errcode_t flush_all(struct region *r)
{
	errcode_t err = 0;

	/* in order on disk: no run overlaps another, so any order gives the same bytes */
	for (int i = 0; i < RUNS; i++) {
		errcode_t e = flush_run(r, &r->runs[i]);
		err = err ? err : e;
	}
	return err;
}

static bool overlaps(const struct run *u, uint64_t pos, size_t len)
{
	return u->len && pos < u->pos + u->len && pos + len > u->pos;
}

static bool inside(const struct run *u, uint64_t pos, size_t len)
{
	return u->len && pos >= u->pos && pos + len <= u->pos + u->len;
}

static errcode_t region_pread(io_channel ch, uint64_t pos, size_t len, void *buf)
{
	struct region *r = region_of(ch);
	errcode_t err = region_check(r, pos, len);

	for (int i = 0; err == 0 && i < RUNS; i++) {
		struct run *u = &r->runs[i];
		if (inside(u, pos, len)) {
			memcpy(buf, u->buf + (pos - u->pos), len);
			return 0;
		}
		if (overlaps(u, pos, len))
			err = flush_run(r, u);
	}
	for (size_t done = 0; err == 0 && done < len;) {
		ssize_t n = pread(r->fd, (char *)buf + done, len - done,
				  (off_t)(r->offset + pos + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		if (n == 0 && r->reading)
			return EXT2_ET_SHORT_READ;
		if (n == 0) { /* past the end of a sparse image file that is still short */
			memset((char *)buf + done, 0, len - done);
			break;
		}
		done += (size_t)n;
	}
	return err;
}

static errcode_t region_pwrite(io_channel ch, uint64_t pos, size_t len, const void *buf)
{
	struct region *r = region_of(ch);
	errcode_t err = region_check(r, pos, len);
	struct run *oldest = &r->runs[0];

	if (err)
		return err;
	r->clock++;
	for (int i = 0; i < RUNS; i++) {
		struct run *u = &r->runs[i];
		if (inside(u, pos, len)) { /* no other run holds any of these bytes */
			memcpy(u->buf + (pos - u->pos), buf, len);
			u->used = r->clock;
			return 0;
		}
	}
	/* older copies of any of these bytes go out first: the runs never overlap, so the bytes
	 * of a run are the newest whatever the order they are passed on in */
	for (int i = 0; i < RUNS; i++)
		if (overlaps(&r->runs[i], pos, len) && (err = flush_run(r, &r->runs[i])))
			return err;
	if (len >= DIRECT_BYTES) /* a file's run of blocks: not copied into a run first */
		return pwrite_all(r, pos, len, buf);
	for (int i = 0; i < RUNS; i++) {
		struct run *u = &r->runs[i];
		if (u->len && pos == u->pos + u->len && u->len + len <= RUN_BYTES) {
			memcpy(u->buf + u->len, buf, len);
			u->len += len;
			u->used = r->clock;
			return 0;
		}
	}
	for (int i = 1; i < RUNS && oldest->len; i++) /* an empty one, else the oldest */
		if (!r->runs[i].len || r->runs[i].used < oldest->used)
			oldest = &r->runs[i];
	if ((err = flush_run(r, oldest)))
		return err;
	memcpy(oldest->buf, buf, len);
	oldest->pos = pos;
	oldest->len = len;
	oldest->used = r->clock;
	return 0;
}

/* libext2fs's count: blocks, or bytes when negative. */
static size_t count_bytes(io_channel ch, int count)
{
	return count < 0 ? (size_t) - (long)count : (size_t)count * (size_t)ch->block_size;
}

static errcode_t region_read_blk64(io_channel ch, unsigned long long block, int count, void *data)
{
	return region_pread(ch, (uint64_t)block * (uint64_t)ch->block_size, count_bytes(ch, count),
			    data);
}

static errcode_t region_write_blk64(io_channel ch, unsigned long long block, int count,
				    const void *data)
{
	return region_pwrite(ch, (uint64_t)block * (uint64_t)ch->block_size, count_bytes(ch, count),
			     data);
}

static errcode_t region_read_blk(io_channel ch, unsigned long block, int count, void *data)
{
	return region_read_blk64(ch, block, count, data);
}

static errcode_t region_write_blk(io_channel ch, unsigned long block, int count, const void *data)
{
	return region_write_blk64(ch, block, count, data);
}

static errcode_t region_write_byte(io_channel ch, unsigned long offset, int count, const void *data)
{
	return count < 0 ? EXT2_ET_INVALID_ARGUMENT
			 : region_pwrite(ch, offset, (size_t)count, data);
}

static errcode_t region_set_blksize(io_channel ch, int blksize)
{
	ch->block_size = blksize;
	return 0;
}

static errcode_t region_flush(io_channel ch)
{
	return flush_all(region_of(ch));
}

static errcode_t region_set_option(io_channel ch, const char *option, const char *arg)
{
	(void)ch, (void)option, (void)arg;
	return EXT2_ET_INVALID_ARGUMENT;
}

static errcode_t region_close(io_channel ch)
{
	struct region *r = region_of(ch);

	if (--ch->refcount > 0)
		return 0;
	errcode_t err = flush_all(r);
	for (int i = 0; i < RUNS; i++)
		free(r->runs[i].buf);
	free(r);
	free(ch->name);
	free(ch);
	return err;
}

static errcode_t region_open(const char *name, int flags, io_channel *ret)
{
	struct region r = { 0 };

	r.reading = !(flags & IO_FLAG_RW);
	if (sscanf(name, "%d:%" SCNu64 ":%" SCNu64, &r.fd, &r.offset, &r.size) != 3)
		return EXT2_ET_BAD_DEVICE_NAME;
	io_channel ch = calloc(1, sizeof(*ch));
	struct region *rp = malloc(sizeof(*rp));
	char *copy = strdup(name);
	bool ok = ch && rp && copy;
	for (int i = 0; i < RUNS; i++)
		ok &= (r.runs[i].buf = malloc(RUN_BYTES)) != NULL;
	if (!ok) {
		for (int i = 0; i < RUNS; i++)
			free(r.runs[i].buf);
		free(ch);
		free(rp);
		free(copy);
		return EXT2_ET_NO_MEMORY;
	}
	*rp = r;
	ch->private_data = rp;
	ch->name = copy;
	ch->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	ch->manager = ext4_io_manager();
	ch->block_size = 1024;
	ch->refcount = 1;
	*ret = ch;
	return 0;
}

static const struct struct_io_manager region_manager = {
	.magic = EXT2_ET_MAGIC_IO_MANAGER,
	.name = "sdimg image region",
	.open = region_open,
	.close = region_close,
	.set_blksize = region_set_blksize,
	.read_blk = region_read_blk,
	.write_blk = region_write_blk,
	.flush = region_flush,
	.write_byte = region_write_byte,
	.set_option = region_set_option,
	.read_blk64 = region_read_blk64,
	.write_blk64 = region_write_blk64,
};

io_manager ext4_io_manager(void)
{
	return (io_manager)&region_manager;
}

void ext4_io_name(int fd, uint64_t offset, uint64_t size, char *buf, size_t n)
{
	snprintf(buf, n, "%d:%" PRIu64 ":%" PRIu64, fd, offset, size);
}
