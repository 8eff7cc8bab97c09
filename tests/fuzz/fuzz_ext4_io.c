/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: any bytes as a sequence of writes, reads and flushes through the ext4 volume's
 * I/O manager (ext4/io.c, its write cache), each checked against a plain copy in memory: a
 * read that does not return the newest bytes, or an image file that does not hold them after
 * a flush and at close, aborts.
 *
 * Input: byte 0 picks the block size (even 1024, odd 4096); then 4 bytes an operation:
 * byte 0's low 2 bits the kind (0 blocks written, 1 bytes written, 2 blocks read, 3 flush),
 * its high 6 bits the count (63: more blocks than one run of the cache holds), bytes 1-2 the
 * block (little-endian), byte 3 the bytes' pattern, or the offset in the block of a byte write.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ext4/ext4_priv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define OFFSET 4096u
#define REGION (3u << 20)

struct rig {
	int fd;
	io_channel ch;
	unsigned char *want, *buf;
};

static void check(int ok)
{
	if (!ok)
		abort();
}

static void check_file(const struct rig *r)
{
	unsigned char *got = malloc(OFFSET + REGION);

	check(got && pread(r->fd, got, OFFSET + REGION, 0) == OFFSET + REGION);
	for (size_t i = 0; i < OFFSET; i++)
		check(got[i] == 0);
	check(memcmp(got + OFFSET, r->want, REGION) == 0);
	free(got);
}

static void fill(unsigned char *p, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (unsigned char)(seed + 1 + i * 13 + (i >> 9));
}

static void one_op(struct rig *r, const uint8_t *op)
{
	uint64_t bs = (uint64_t)r->ch->block_size, blocks = REGION / bs;
	unsigned kind = op[0] & 3, n = op[0] >> 2;
	uint64_t count = n == 63 ? (1u << 20) / bs + 1 : 1 + n % 16;
	uint64_t b = (op[1] | (uint64_t)op[2] << 8) % blocks;

	b = b + count > blocks ? blocks - count : b;
	if (kind == 0) {
		fill(r->buf, count * bs, op[3]);
		check(io_channel_write_blk64(r->ch, b, (int)count, r->buf) == 0);
		memcpy(r->want + b * bs, r->buf, count * bs);
	} else if (kind == 1) {
		uint64_t pos = b * bs + op[3] * bs / 256, len = 1 + (uint64_t)n * 67;
		len = pos + len > REGION ? REGION - pos : len;
		fill(r->buf, len, n);
		check(io_channel_write_byte(r->ch, (unsigned long)pos, (int)len, r->buf) == 0);
		memcpy(r->want + pos, r->buf, len);
	} else if (kind == 2) {
		check(io_channel_read_blk64(r->ch, b, (int)count, r->buf) == 0);
		check(memcmp(r->buf, r->want + b * bs, count * bs) == 0);
	} else {
		check(io_channel_flush(r->ch) == 0);
		check_file(r);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rig r = { .fd = memfd_create("fuzz-io", MFD_CLOEXEC) };
	char name[64];

	if (size < 1 || r.fd < 0)
		return 0;
	r.want = calloc(1, REGION);
	r.buf = malloc(REGION);
	check(r.want && r.buf && ftruncate(r.fd, OFFSET + REGION) == 0);
	ext4_io_name(r.fd, OFFSET, REGION, name, sizeof(name));
	check(ext4_io_manager()->open(name, IO_FLAG_RW, &r.ch) == 0);
	check(io_channel_set_blksize(r.ch, data[0] & 1 ? 4096 : 1024) == 0);
	for (size_t i = 1; i + 4 <= size; i += 4)
		one_op(&r, data + i);
	check(io_channel_close(r.ch) == 0);
	check_file(&r);
	free(r.want);
	free(r.buf);
	close(r.fd);
	return 0;
}
