/* Unit tests: the data extents of a file (common/extent), the SEEK_DATA/SEEK_HOLE walk the
 * sparse copy, the builder's map and its last pass, and flash's ranges share. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/extent.h"

#define MiB (1024u * 1024u)
#define BLOCK 4096u

/* An unnamed temporary file of @size bytes that reads as zeros (all of it a hole). */
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

static void put(int fd, size_t len, uint64_t off)
{
	static uint8_t data[4 * BLOCK];

	memset(data, 0xA5, sizeof(data));
	assert_true(len <= sizeof(data));
	assert_int_equal(pwrite(fd, data, len, (off_t)off), (ssize_t)len);
}

/* Whether the file system of @fd tells holes (else each test here is skipped: no walk can
 * be told from "all of it is data" there). */
static bool tells_holes(int fd)
{
	return lseek(fd, 0, SEEK_DATA) > 0;
}

/* Walks [@from, @to) of @fd and checks that the extents are the @n of @want (start, end). */
static void assert_extents(int fd, uint64_t from, uint64_t to, const uint64_t (*want)[2],
			   size_t n)
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

/* Holes at the start, in the middle and at the end: the two data extents between them. */
static void test_extent_holes(void **state)
{
	int fd = temp_file(4 * MiB);
	const uint64_t want[][2] = { { MiB, MiB + BLOCK }, { 2 * MiB, 2 * MiB + 2 * BLOCK } };

	(void)state;
	put(fd, BLOCK, MiB);
	put(fd, 2 * BLOCK, 2 * MiB);
	if (!tells_holes(fd)) {
		close(fd);
		skip();
	}
	assert_extents(fd, 0, 4 * MiB, want, 2);
	/* a range past the end of the file: the hole at its end stops the walk */
	assert_extents(fd, 0, 64 * MiB, want, 2);
	close(fd);
}

/* A range that starts and ends inside extents is clipped to them; one inside a hole has none. */
static void test_extent_clipped(void **state)
{
	int fd = temp_file(4 * MiB);
	const uint64_t want[][2] = { { MiB + 100, MiB + BLOCK }, { 2 * MiB, 2 * MiB + 10 } };

	(void)state;
	put(fd, BLOCK, MiB);
	put(fd, 2 * BLOCK, 2 * MiB);
	if (!tells_holes(fd)) {
		close(fd);
		skip();
	}
	assert_extents(fd, MiB + 100, 2 * MiB + 10, want, 2);
	assert_extents(fd, MiB + BLOCK, 2 * MiB, NULL, 0);
	assert_extents(fd, 3 * MiB, 4 * MiB, NULL, 0);
	assert_extents(fd, 5, 5, NULL, 0);
	close(fd);
}

/* A file without holes is one extent, and so is a range of it; an empty file has none. */
static void test_extent_no_holes(void **state)
{
	int fd = temp_file(0);
	const uint64_t all[][2] = { { 0, 4 * BLOCK } }, part[][2] = { { 7, 3 * BLOCK } };

	(void)state;
	assert_extents(fd, 0, MiB, NULL, 0);
	put(fd, 4 * BLOCK, 0);
	assert_extents(fd, 0, 4 * BLOCK, all, 1);
	assert_extents(fd, 0, MiB, all, 1);
	assert_extents(fd, 7, 3 * BLOCK, part, 1);
	close(fd);
}

/* Where the descriptor cannot seek (a pipe: no SEEK_DATA), all of the range is one extent. */
static void test_extent_no_seek_data(void **state)
{
	int p[2];
	const uint64_t want[][2] = { { 10, 1000 } };

	(void)state;
	assert_int_equal(pipe(p), 0);
	assert_extents(p[0], 10, 1000, want, 1);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_extent_holes),
		cmocka_unit_test(test_extent_clipped),
		cmocka_unit_test(test_extent_no_holes),
		cmocka_unit_test(test_extent_no_seek_data),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
