/* SPDX-License-Identifier: MIT */
/* Unit tests: ext4/io.c — the I/O manager's write cache, driven with random overlapping
 * reads and writes (blocks, bytes, runs longer than the cache holds) and checked against a
 * plain copy in memory: every read returns the newest bytes, and after each flush and at
 * close the image file holds exactly them, with nothing written outside the region. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "ext4/ext4_priv.h"

#define OFFSET 8192u       /* where the region starts in the image file */
#define REGION (12u << 20) /* more than the cache's runs hold together */
#define FILE_SIZE (OFFSET + REGION + 8192u)

struct rig {
	int fd;
	io_channel ch;
	unsigned char *want; /* the region as it must read */
	unsigned char *buf;
	uint64_t rng;
};

static uint64_t next(struct rig *r)
{
	r->rng ^= r->rng << 13;
	r->rng ^= r->rng >> 7;
	r->rng ^= r->rng << 17;
	return r->rng;
}

static uint64_t below(struct rig *r, uint64_t n)
{
	return next(r) % n;
}

static void open_rig(struct rig *r, uint64_t seed)
{
	char name[64];

	r->rng = seed * 0x9e3779b97f4a7c15ull + 1;
	r->fd = memfd_create("io", 0);
	assert_true(r->fd >= 0);
	assert_int_equal(ftruncate(r->fd, FILE_SIZE), 0);
	assert_non_null(r->want = calloc(1, REGION));
	assert_non_null(r->buf = malloc(REGION));
	ext4_io_name(r->fd, OFFSET, REGION, name, sizeof(name));
	assert_int_equal(ext4_io_manager()->open(name, IO_FLAG_RW, &r->ch), 0);
}

/* The image file holds the region's newest bytes, and zeros around it. */
static void check_file(struct rig *r)
{
	unsigned char *all = malloc(FILE_SIZE);

	assert_non_null(all);
	assert_int_equal(pread(r->fd, all, FILE_SIZE, 0), FILE_SIZE);
	for (size_t i = 0; i < OFFSET; i++)
		assert_int_equal(all[i], 0);
	for (size_t i = OFFSET + REGION; i < FILE_SIZE; i++)
		assert_int_equal(all[i], 0);
	assert_memory_equal(all + OFFSET, r->want, REGION);
	free(all);
}

static void close_rig(struct rig *r)
{
	assert_int_equal(io_channel_close(r->ch), 0);
	check_file(r);
	free(r->want);
	free(r->buf);
	close(r->fd);
}

/* A place to write or read: most near a few spots, so that runs meet, continue and overlap
 * one another; some anywhere, so that the cache runs out of runs. */
static uint64_t pick_block(struct rig *r, uint64_t blocks, uint64_t count)
{
	static const uint64_t spots[] = { 0, 40, 700, 3000, 5000, 9000 };
	uint64_t b = below(r, 4) ? spots[below(r, 6)] * 1024 / (uint64_t)r->ch->block_size +
					   below(r, 24)
				 : below(r, blocks);
	return b + count > blocks ? blocks - count : b;
}

static void fill(struct rig *r, size_t len)
{
	unsigned char seed = (unsigned char)next(r);
	for (size_t i = 0; i < len; i++)
		r->buf[i] = (unsigned char)(seed + i * 7 + (i >> 10));
}

static void one_op(struct rig *r)
{
	uint64_t bs = (uint64_t)r->ch->block_size, blocks = REGION / bs;
	unsigned kind = (unsigned)below(r, 100);

	if (kind < 45 || kind >= 97) { /* blocks written: a few, or more than a run holds */
		uint64_t count = kind < 45 ? 1 + below(r, below(r, 2) ? 2 : 16)
					   : (1u << 20) / bs + 1 + below(r, 64);
		uint64_t b = pick_block(r, blocks, count);
		fill(r, count * bs);
		assert_int_equal(io_channel_write_blk64(r->ch, b, (int)count, r->buf), 0);
		memcpy(r->want + b * bs, r->buf, count * bs);
	} else if (kind < 55) { /* bytes anywhere, of any length */
		uint64_t len = 1 + below(r, 3 * bs);
		uint64_t pos = pick_block(r, blocks, len / bs + 1) * bs + below(r, bs);
		len = pos + len > REGION ? REGION - pos : len;
		fill(r, len);
		assert_int_equal(io_channel_write_byte(r->ch, (unsigned long)pos, (int)len, r->buf),
				 0);
		memcpy(r->want + pos, r->buf, len);
	} else if (kind < 95) { /* blocks read, or bytes (a negative count) */
		uint64_t count = 1 + below(r, 24);
		uint64_t b = pick_block(r, blocks, count);
		int n = below(r, 5) ? (int)count : -(int)(count * bs - below(r, bs));
		size_t len = n > 0 ? count * bs : (size_t)-n;
		assert_int_equal(io_channel_read_blk64(r->ch, b, n, r->buf), 0);
		assert_memory_equal(r->buf, r->want + b * bs, len);
	} else { /* all passed on */
		assert_int_equal(io_channel_flush(r->ch), 0);
		if (below(r, 4) == 0)
			check_file(r);
	}
}

static void run_ops(uint64_t seed, int block_size, int ops)
{
	struct rig r;

	open_rig(&r, seed);
	assert_int_equal(io_channel_set_blksize(r.ch, block_size), 0);
	for (int i = 0; i < ops; i++)
		one_op(&r);
	close_rig(&r);
}

static void test_random_ops(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 4; seed++)
		run_ops(seed, seed % 2 ? 4096 : 1024, 4000);
}

/* The case that lost writes: a write that continues one run over a block a later run holds
 * older bytes of (and a flush passes the runs on in their order). */
static void test_append_over_older_run(void **state)
{
	struct rig r;
	char blk[2048];

	(void)state;
	open_rig(&r, 99);
	memset(blk, 'a', sizeof(blk));
	assert_int_equal(io_channel_write_blk64(r.ch, 4, 1, blk), 0); /* a run: [4] */
	assert_int_equal(io_channel_write_blk64(r.ch, 6, 1, blk), 0); /* another: [6] */
	assert_int_equal(io_channel_write_blk64(r.ch, 5, 1, blk), 0); /* the first: [4, 5] */
	memset(blk, 'b', sizeof(blk));
	assert_int_equal(io_channel_write_blk64(r.ch, 6, 2, blk), 0); /* [4, 7] over [6] */
	memset(r.want + 4 * 1024, 'a', 2048);
	memset(r.want + 6 * 1024, 'b', 2048);
	for (uint64_t b = 4; b < 8; b++) {
		assert_int_equal(io_channel_read_blk64(r.ch, b, 1, r.buf), 0);
		assert_memory_equal(r.buf, r.want + b * 1024, 1024);
	}
	close_rig(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_append_over_older_run),
		cmocka_unit_test(test_random_ops),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
