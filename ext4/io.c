/* io: libext2fs's block I/O onto a region of an open image file. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ext4/ext4_priv.h"

struct region {
	int fd;
	uint64_t offset, size;
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

static errcode_t region_pread(io_channel ch, uint64_t pos, size_t len, void *buf)
{
	const struct region *r = region_of(ch);
	errcode_t err = region_check(r, pos, len);

	for (size_t done = 0; err == 0 && done < len;) {
		ssize_t n = pread(r->fd, (char *)buf + done, len - done,
				  (off_t)(r->offset + pos + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		if (n == 0) { /* past the end of a sparse image file that is still short */
			for (size_t i = done; i < len; i++)
				((char *)buf)[i] = 0;
			break;
		}
		done += (size_t)n;
	}
	return err;
}

static errcode_t region_pwrite(io_channel ch, uint64_t pos, size_t len, const void *buf)
{
	const struct region *r = region_of(ch);
	errcode_t err = region_check(r, pos, len);

	for (size_t done = 0; err == 0 && done < len;) {
		ssize_t n = pwrite(r->fd, (const char *)buf + done, len - done,
				   (off_t)(r->offset + pos + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		done += (size_t)n;
	}
	return err;
}

/* libext2fs's count: blocks, or bytes when negative. */
static size_t count_bytes(io_channel ch, int count)
{
	return count < 0 ? (size_t)-(long)count : (size_t)count * (size_t)ch->block_size;
}

static errcode_t region_read_blk64(io_channel ch, unsigned long long block, int count,
				   void *data)
{
	return region_pread(ch, block * (uint64_t)ch->block_size, count_bytes(ch, count), data);
}

static errcode_t region_write_blk64(io_channel ch, unsigned long long block, int count,
				    const void *data)
{
	return region_pwrite(ch, block * (uint64_t)ch->block_size, count_bytes(ch, count), data);
}

static errcode_t region_read_blk(io_channel ch, unsigned long block, int count, void *data)
{
	return region_read_blk64(ch, block, count, data);
}

static errcode_t region_write_blk(io_channel ch, unsigned long block, int count,
				  const void *data)
{
	return region_write_blk64(ch, block, count, data);
}

static errcode_t region_write_byte(io_channel ch, unsigned long offset, int count,
				   const void *data)
{
	return count < 0 ? EXT2_ET_INVALID_ARGUMENT : region_pwrite(ch, offset, (size_t)count, data);
}

static errcode_t region_set_blksize(io_channel ch, int blksize)
{
	ch->block_size = blksize;
	return 0;
}

static errcode_t region_flush(io_channel ch)
{
	(void)ch;
	return 0;
}

static errcode_t region_set_option(io_channel ch, const char *option, const char *arg)
{
	(void)ch, (void)option, (void)arg;
	return EXT2_ET_INVALID_ARGUMENT;
}

static errcode_t region_close(io_channel ch)
{
	if (--ch->refcount > 0)
		return 0;
	free(ch->private_data);
	free(ch->name);
	free(ch);
	return 0;
}

static errcode_t region_open(const char *name, int flags, io_channel *ret)
{
	struct region r;
	io_channel ch;

	(void)flags;
	if (sscanf(name, "%d:%" SCNu64 ":%" SCNu64, &r.fd, &r.offset, &r.size) != 3)
		return EXT2_ET_BAD_DEVICE_NAME;
	if (!(ch = calloc(1, sizeof(*ch))) || !(ch->private_data = malloc(sizeof(r))) ||
	    !(ch->name = malloc(strlen(name) + 1))) {
		if (ch)
			free(ch->private_data);
		free(ch);
		return EXT2_ET_NO_MEMORY;
	}
	*(struct region *)ch->private_data = r;
	strcpy(ch->name, name);
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
