/* SPDX-License-Identifier: MIT */
/* Unit tests: host file bytes into an image file, zeros left out (common/sparse), and the
 * data extents of a file that it walks (common/extent: SEEK_DATA, SEEK_HOLE). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/extent.h"
#include "common/sparse.h"

#define MiB (1024u * 1024u)

/* An unnamed temporary file of @size bytes that reads as zeros. */
static int temp_file(uint64_t size)
{
	FILE *f = tmpfile();
	int fd = f ? dup(fileno(f)) : -1;

	if (f)
		fclose(f);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)size), 0);
	return fd;
}

static void put(int fd, const void *p, size_t len, uint64_t off)
{
	assert_int_equal(pwrite(fd, p, len, (off_t)off), (ssize_t)len);
}

static uint64_t allocated(int fd)
{
	struct stat st;

	assert_int_equal(fstat(fd, &st), 0);
	return (uint64_t)st.st_blocks * 512;
}

static void assert_same(int a, uint64_t a_off, int b, uint64_t b_off, uint64_t len)
{
	static uint8_t x[65536], y[65536];

	while (len) {
		size_t n = len < sizeof(x) ? (size_t)len : sizeof(x);
		assert_int_equal(pread(a, x, n, (off_t)a_off), (ssize_t)n);
		assert_int_equal(pread(b, y, n, (off_t)b_off), (ssize_t)n);
		assert_memory_equal(x, y, n);
		a_off += n, b_off += n, len -= n;
	}
}

/* Only the blocks that are not all zero are written. */
static void test_sparse_write(void **state)
{
	uint8_t *buf = calloc(1, 16 * SPARSE_BLOCK);
	int dst = temp_file(MiB);
	uint64_t failed_at = 0;

	(void)state;
	buf[0] = 1;                      /* block 0 */
	buf[5 * SPARSE_BLOCK + 100] = 2; /* block 5 */
	buf[16 * SPARSE_BLOCK - 1] = 3;  /* block 15, its last byte */
	assert_int_equal(sparse_write(dst, buf, 16 * SPARSE_BLOCK, 8192, &failed_at), 0);
	uint8_t back[16 * SPARSE_BLOCK];
	assert_int_equal(pread(dst, back, sizeof(back), 8192), (ssize_t)sizeof(back));
	assert_memory_equal(back, buf, sizeof(back));
	assert_true(allocated(dst) <= 5 * SPARSE_BLOCK); /* 3 blocks, unaligned by 8 KiB: <= 4 */
	close(dst);
	free(buf);
}

/* A sparse source with zeros written as data: the copy reads the same, allocates its data. */
static void test_sparse_copy_zeros(void **state)
{
	int src = temp_file(64 * MiB), dst = temp_file(80 * MiB);
	uint8_t *zeros = calloc(1, 4 * MiB), data[5000];
	struct sparse_fault fault;

	(void)state;
	memset(data, 0xA5, sizeof(data));
	put(src, data, sizeof(data), 3);                       /* data, then a hole */
	put(src, zeros, 4 * MiB, 16 * MiB);                    /* written zeros */
	put(src, data, sizeof(data), 20 * MiB + 4096);         /* data after the zeros */
	put(src, data, sizeof(data), 64 * MiB - sizeof(data)); /* the last bytes */
	struct sparse_copy c = { .src = src,
				 .src_off = 1,
				 .len = 64 * MiB - 1,
				 .dst = dst,
				 .dst_off = 7 * MiB,
				 .buf = malloc(SPARSE_CHUNK) };
	assert_int_equal(sparse_copy(&c, &fault), 0);
	assert_same(src, 1, dst, 7 * MiB, 64 * MiB - 1);
	assert_true(allocated(dst) <= 8 * SPARSE_BLOCK);
	close(src);
	close(dst);
	free(zeros);
	free(c.buf);
}

/* Into a file of another file system (tmpfs), where copy_file_range() may refuse to copy:
 * the bytes then go from the buffer, and are the same. */
static void test_sparse_copy_other_fs(void **state)
{
	int src = temp_file(8 * MiB), dst = open("/dev/shm", O_TMPFILE | O_RDWR, 0600);
	uint8_t data[9000];
	struct sparse_fault fault;

	(void)state;
	if (dst < 0) {
		close(src);
		skip();
	}
	assert_int_equal(ftruncate(dst, 10 * MiB), 0);
	memset(data, 0x5A, sizeof(data));
	put(src, data, sizeof(data), 100);
	put(src, data, sizeof(data), 6 * MiB);
	struct sparse_copy c = { .src = src,
				 .src_off = 3,
				 .len = 8 * MiB - 3,
				 .dst = dst,
				 .dst_off = MiB + 1,
				 .buf = malloc(SPARSE_CHUNK) };
	assert_int_equal(sparse_copy(&c, &fault), 0);
	assert_same(src, 3, dst, MiB + 1, 8 * MiB - 3);
	assert_true(allocated(dst) <= 8 * SPARSE_BLOCK);
	close(src);
	close(dst);
	free(c.buf);
}

/* The stop checks of a copy so far, and the bytes each said were copied. */
struct stops {
	int asked;
	uint64_t done[2];
};

static bool stop_now(void *ctx, uint64_t done)
{
	struct stops *s = ctx;

	s->done[s->asked] = done;
	return ++s->asked > 1;
}

/* A source shorter than the copy is -ENODATA (its end a hole or not); stop() ends a copy. */
static void test_sparse_copy_ends(void **state)
{
	int src = temp_file(4 * MiB), dst = temp_file(16 * MiB);
	struct stops asked = { 0 };
	uint8_t data[100];
	struct sparse_fault fault;

	(void)state;
	memset(data, 1, sizeof(data));
	put(src, data, sizeof(data), 0);
	struct sparse_copy c = { .src = src,
				 .len = 8 * MiB,
				 .dst = dst,
				 .buf = malloc(SPARSE_CHUNK) };
	assert_int_equal(sparse_copy(&c, &fault), -ENODATA);
	assert_false(fault.in_dst);
	c.len = 100;
	assert_int_equal(sparse_copy(&c, &fault), 0);
	c.len = 200 * 1024; /* one piece, read whole: the file ends at 4 MiB */
	assert_int_equal(ftruncate(src, 100 * 1024), 0);
	assert_int_equal(sparse_copy(&c, &fault), -ENODATA);
	assert_int_equal(ftruncate(src, 4 * MiB), 0);
	for (uint64_t off = 0; off < 4 * MiB; off += SPARSE_CHUNK)
		put(src, "x", 1, off); /* data all along */
	c.len = 4 * MiB;
	c.stop = stop_now;
	c.stop_ctx = &asked;
	assert_int_equal(sparse_copy(&c, &fault), -EINTR);
	assert_int_equal(asked.asked, 2); /* each check after a chunk, the copied bytes growing */
	assert_true(asked.done[0] > 0 && asked.done[0] < asked.done[1] && asked.done[1] < c.len);
	close(src);
	close(dst);
	free(c.buf);
}

/* ------------------------------------------------------------------ the extent walk */

/* Whether the file system of @fd tells holes (else each test here is skipped: no walk can
 * be told from "all of it is data" there). */
static bool tells_holes(int fd)
{
	return lseek(fd, 0, SEEK_DATA) > 0;
}

/* Walks [@from, @to) of @fd and checks that the extents are the @n of @want (start, end). */
static void assert_extents(int fd, uint64_t from, uint64_t to, const uint64_t (*want)[2], size_t n)
{
	struct extent_walk w;
	uint64_t start, end;
	size_t i = 0;

	extent_start(&w, fd, from, to);
	while (extent_next(&w, &start, &end)) {
		assert_true(i < n);
		assert_int_equal(start, want[i][0]);
		assert_int_equal(end, want[i][1]);
		i++;
	}
	assert_int_equal(i, n);
	assert_false(extent_next(&w, &start, &end)); /* and stays done */
}

/* A file of 4 MiB with a block of data at 1 MiB and two at 2 MiB, holes around them; skips
 * the test where the file system does not tell holes. */
static int holey_file(void)
{
	static const uint8_t data[2 * SPARSE_BLOCK] = { 0xA5 };
	int fd = temp_file(4 * MiB);

	put(fd, data, SPARSE_BLOCK, MiB);
	put(fd, data, 2 * SPARSE_BLOCK, 2 * MiB);
	if (!tells_holes(fd)) {
		close(fd);
		skip();
	}
	return fd;
}

/* Holes at the start, in the middle and at the end: the two data extents between them. */
static void test_extent_holes(void **state)
{
	int fd = holey_file();
	const uint64_t want[][2] = { { MiB, MiB + SPARSE_BLOCK },
				     { 2 * MiB, 2 * MiB + 2 * SPARSE_BLOCK } };

	(void)state;
	assert_extents(fd, 0, 4 * MiB, want, 2);
	/* a range past the end of the file: the hole at its end stops the walk */
	assert_extents(fd, 0, 64 * MiB, want, 2);
	close(fd);
}

/* A range that starts and ends inside extents is clipped to them; one inside a hole has none. */
static void test_extent_clipped(void **state)
{
	int fd = holey_file();
	const uint64_t want[][2] = { { MiB + 100, MiB + SPARSE_BLOCK }, { 2 * MiB, 2 * MiB + 10 } };

	(void)state;
	assert_extents(fd, MiB + 100, 2 * MiB + 10, want, 2);
	assert_extents(fd, MiB + SPARSE_BLOCK, 2 * MiB, NULL, 0);
	assert_extents(fd, 3 * MiB, 4 * MiB, NULL, 0);
	assert_extents(fd, 5, 5, NULL, 0);
	close(fd);
}

/* A file without holes is one extent, and so is a range of it; an empty file has none. */
static void test_extent_no_holes(void **state)
{
	int fd = temp_file(0);
	const uint64_t all[][2] = { { 0, 4 * SPARSE_BLOCK } },
		       part[][2] = { { 7, 3 * SPARSE_BLOCK } };
	static const uint8_t data[4 * SPARSE_BLOCK] = { 1 };

	(void)state;
	assert_extents(fd, 0, MiB, NULL, 0);
	put(fd, data, sizeof(data), 0);
	assert_extents(fd, 0, 4 * SPARSE_BLOCK, all, 1);
	assert_extents(fd, 0, MiB, all, 1);
	assert_extents(fd, 7, 3 * SPARSE_BLOCK, part, 1);
	close(fd);
}

/* Where the file system has no SEEK_DATA (EINVAL: /proc's files seek only SEEK_SET and
 * SEEK_CUR), all of the range is one extent, and no failure is kept. */
static void test_extent_no_seek_data(void **state)
{
	int fd = open("/proc/self/mounts", O_RDONLY | O_CLOEXEC);
	const uint64_t want[][2] = { { 10, 1000 } };
	struct extent_walk w;
	uint64_t start, end;

	(void)state;
	if (fd < 0)
		skip(); /* no /proc mounted */
	if (lseek(fd, 0, SEEK_DATA) >= 0 || errno != EINVAL) {
		close(fd);
		skip(); /* this kernel gives SEEK_DATA there */
	}
	assert_extents(fd, 10, 1000, want, 1);
	extent_start(&w, fd, 10, 1000);
	while (extent_next(&w, &start, &end))
		;
	assert_int_equal(w.err, 0);
	close(fd);
}

/* Where lseek() fails for real (a pipe cannot seek: ESPIPE), the walk ends at once and keeps
 * the failure, rather than calling the range data or holes; it stays ended. */
static void test_extent_failure_kept(void **state)
{
	int p[2];
	struct extent_walk w;
	uint64_t start = 7, end = 7;

	(void)state;
	assert_int_equal(pipe(p), 0);
	extent_start(&w, p[0], 10, 1000);
	assert_false(extent_next(&w, &start, &end));
	assert_int_equal(w.err, -ESPIPE);
	assert_false(extent_next(&w, &start, &end));
	assert_int_equal(w.err, -ESPIPE);
	assert_int_equal(start, 7); /* nothing handed out */
	/* an empty range asks nothing and keeps no failure */
	extent_start(&w, p[1], 0, 0);
	assert_false(extent_next(&w, &start, &end));
	assert_int_equal(w.err, 0);
	close(p[0]);
	close(p[1]);
}

/* A copy whose source's extents cannot be told fails with that failure, a read fault. */
static void test_sparse_copy_extent_failure(void **state)
{
	int p[2], dst = temp_file(2 * SPARSE_CHUNK);
	struct sparse_copy c = { .len = 2 * SPARSE_CHUNK, .dst = dst, .buf = malloc(SPARSE_CHUNK) };
	struct sparse_fault fault;

	(void)state;
	assert_int_equal(pipe(p), 0);
	assert_non_null(c.buf);
	c.src = p[0];
	assert_int_equal(sparse_copy(&c, &fault), -ESPIPE);
	assert_false(fault.in_dst);
	close(p[0]);
	close(p[1]);
	close(dst);
	free(c.buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sparse_write),
		cmocka_unit_test(test_sparse_copy_zeros),
		cmocka_unit_test(test_sparse_copy_other_fs),
		cmocka_unit_test(test_sparse_copy_ends),
		cmocka_unit_test(test_extent_holes),
		cmocka_unit_test(test_extent_clipped),
		cmocka_unit_test(test_extent_no_holes),
		cmocka_unit_test(test_extent_no_seek_data),
		cmocka_unit_test(test_extent_failure_kept),
		cmocka_unit_test(test_sparse_copy_extent_failure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
