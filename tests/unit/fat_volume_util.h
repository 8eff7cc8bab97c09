/* SPDX-License-Identifier: MIT */
/* A small FAT volume written by the program's own writer, for the unit tests that read one
 * back (test_fat_read, test_fat_count): a file of 10 bytes, one with a long name, a folder
 * with a file of BIG bytes in 512-byte clusters and an empty folder. */
#ifndef SDIMG_TESTS_FAT_VOLUME_UTIL_H
#define SDIMG_TESTS_FAT_VOLUME_UTIL_H

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <cmocka.h>

#include "fat/fat.h"

#define BIG 5000 /* bytes of /dir/big.bin: several 512-byte clusters */

static inline int fill(void *ctx, uint64_t off, void *buf, size_t len)
{
	(void)ctx;
	for (size_t i = 0; i < len; i++)
		((uint8_t *)buf)[i] = (uint8_t)((off + i) * 7 + 3);
	return 0;
}

/* Writes a small volume of @type to vol.img; returns its fd (read-write). */
static inline int make_volume(enum fat_type type, uint64_t size, uint32_t cs, struct fat_geom *g)
{
	struct fat_opts o = { .type = type,
			      .cluster_size = cs,
			      .label = "Reader",
			      .volume_id = 0xCAFE1234,
			      .oem_name = "SDIMG" };
	struct fat_source src = { .fd = -1, .read = fill };
	struct fat_tree *t = fat_tree_new(1700000000);
	struct fat_meta m = { .mtime = 1700000000 };
	struct diag d;
	int fd = open("vol.img", O_RDWR | O_CREAT | O_TRUNC, 0644);

	diag_init(&d);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)size), 0);
	assert_int_equal(fat_params(&o, size, 0, g, &d), 0);
	assert_int_equal(fat_tree_add_file(t, "/readme.txt", 10, &src, &m, &d), 0);
	assert_int_equal(fat_tree_add_file(t, "/A long name \xf0\x9f\x98\x80.txt", 3, &src, &m, &d),
			 0);
	assert_int_equal(fat_tree_add_file(t, "/dir/big.bin", BIG, &src, &m, &d), 0);
	assert_int_equal(fat_tree_add_dir(t, "/dir/empty", &m, &d), 0);
	assert_int_equal(fat_write(t, g, fd, 0, &d), 0);
	fat_tree_free(t);
	diag_release(&d);
	return fd;
}

#endif
