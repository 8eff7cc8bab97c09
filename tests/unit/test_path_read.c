/* SPDX-License-Identifier: MIT */
/* Unit tests: a whole file into memory (common/path: path_read_file, path_read_fd). */
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

#include "common/path.h"

/* A fresh folder for one test's files, in @dir, and the path of its file @name in @path. */
static void temp_dir(char (*dir)[64], char (*path)[96], const char *name)
{
	snprintf(*dir, sizeof(*dir), "/tmp/sdimg-test-path-XXXXXX");
	assert_non_null(mkdtemp(*dir));
	snprintf(*path, sizeof(*path), "%s/%s", *dir, name);
}

static void write_file(const char *path, const void *p, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, p, len), (ssize_t)len);
	close(fd);
}

/* The file whole, NUL after it; a file of exactly the cap is read, one byte more is -EFBIG. */
static void test_path_read_cap(void **state)
{
	char dir[64], path[96], data[10000], *buf = NULL;
	size_t len = 0;

	(void)state;
	temp_dir(&dir, &path, "f");
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (char)('a' + i % 26);
	write_file(path, data, sizeof(data));
	assert_int_equal(path_read_file(path, sizeof(data), &buf, &len), 0);
	assert_int_equal(len, sizeof(data));
	assert_memory_equal(buf, data, sizeof(data));
	assert_int_equal(buf[len], '\0');
	free(buf);
	buf = NULL;
	assert_int_equal(path_read_file(path, sizeof(data) - 1, &buf, &len), -EFBIG);
	assert_null(buf);
	/* SIZE_MAX: no cap but memory */
	assert_int_equal(path_read_file(path, SIZE_MAX, &buf, &len), 0);
	assert_int_equal(len, sizeof(data));
	free(buf);
	unlink(path);
	rmdir(dir);
}

/* An empty file is an empty string, not NULL. */
static void test_path_read_empty(void **state)
{
	char dir[64], path[96], *buf = NULL;
	size_t len = 1;

	(void)state;
	temp_dir(&dir, &path, "empty");
	write_file(path, "", 0);
	assert_int_equal(path_read_file(path, 0, &buf, &len), 0);
	assert_non_null(buf);
	assert_int_equal(len, 0);
	assert_string_equal(buf, "");
	free(buf);
	unlink(path);
	rmdir(dir);
}

/* What is no regular file, or not there, is its errno, and nothing is returned. */
static void test_path_read_errors(void **state)
{
	char dir[64], path[96], *buf = NULL;
	size_t len = 0;

	(void)state;
	temp_dir(&dir, &path, "missing");
	assert_int_equal(path_read_file(path, 100, &buf, &len), -ENOENT);
	assert_int_equal(path_read_file(dir, 100, &buf, &len), -EISDIR);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(path_read_file(path, 100, &buf, &len), -ESPIPE); /* never waited on */
	assert_null(buf);
	unlink(path);
	rmdir(dir);
}

/* path_read_fd() reads from where the descriptor stands, and a read error is its errno. */
static void test_path_read_fd(void **state)
{
	char dir[64], path[96], *buf = NULL;
	size_t len = 0;

	(void)state;
	temp_dir(&dir, &path, "f");
	write_file(path, "0123456789", 10);
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(lseek(fd, 4, SEEK_SET), 4);
	assert_int_equal(path_read_fd(fd, 10, &buf, &len), 0);
	assert_int_equal(len, 6);
	assert_string_equal(buf, "456789");
	free(buf);
	buf = NULL;
	close(fd);
	fd = open(path, O_WRONLY); /* not open for reading: read() fails with EBADF */
	assert_true(fd >= 0);
	assert_int_equal(path_read_fd(fd, 10, &buf, &len), -EBADF);
	assert_null(buf);
	close(fd);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_read_cap),
		cmocka_unit_test(test_path_read_empty),
		cmocka_unit_test(test_path_read_errors),
		cmocka_unit_test(test_path_read_fd),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
