/* SPDX-License-Identifier: MIT */
/*
 * Unit tests: the bytes fat_write() puts on disk, checked field by field against fatgen103
 * (boot sector, FSInfo, backups, FAT[0]/FAT[1], chains, label entry, dot entries, times).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/bytes.h"
#include "fat/fat.h"

#define OFF (1024 * 1024) /* the volume sits 1 MiB into the file */
#define T0 1700000000     /* 2023-11-14 22:13:20 UTC */

static int fill(void *ctx, uint64_t off, void *buf, size_t len)
{
	(void)ctx;
	for (size_t i = 0; i < len; i++)
		((uint8_t *)buf)[i] = (uint8_t)((off + i) % 251 + 1);
	return 0;
}

struct vol {
	int fd;
	struct fat_geom g;
	uint8_t *img; /* the whole file */
	size_t len;
};

static void build(struct vol *v, enum fat_type type, uint64_t size)
{
	struct fat_opts o = { .type = type,
			      .cluster_size = 512,
			      .label = "Boot",
			      .volume_id = 0x12345678 };
	struct fat_source src = { .fd = -1, .read = fill };
	struct fat_meta m = { .mtime = T0, .mtime_ns = 500000000 };
	struct fat_tree *t = fat_tree_new(T0);
	struct diag d;

	diag_init(&d);
	v->fd = open("w.img", O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(v->fd >= 0);
	assert_int_equal(ftruncate(v->fd, OFF + (off_t)size), 0);
	assert_int_equal(fat_params(&o, size, OFF, &v->g, &d), 0);
	assert_int_equal(fat_tree_add_file(t, "/A.BIN", 1500, &src, &m, &d), 0); /* 3 clusters */
	assert_int_equal(fat_tree_add_dir(t, "/D", &m, &d), 0);
	assert_int_equal(fat_tree_add_dir(t, "/D/E", &m, &d), 0);
	assert_int_equal(fat_write(t, &v->g, v->fd, OFF, &d), 0);
	fat_tree_free(t);
	diag_release(&d);
	v->len = OFF + size;
	v->img = malloc(v->len);
	assert_non_null(v->img);
	assert_int_equal(pread(v->fd, v->img, v->len, 0), (ssize_t)v->len);
}

static void release(struct vol *v)
{
	close(v->fd);
	free(v->img);
}

static void check_boot(const struct vol *v, const uint8_t *s, uint64_t size)
{
	bool fat32 = v->g.type == FAT_32;
	const uint8_t *e = s + (fat32 ? 64 : 36);

	assert_int_equal(s[0], 0xEB);
	assert_int_equal(s[1], fat32 ? 0x58 : 0x3C);
	assert_int_equal(s[2], 0x90);
	assert_memory_equal(s + 3, "MSWIN4.1", 8);
	assert_int_equal(get_le16(s + 11), 512);
	assert_int_equal(s[13], 1);
	assert_int_equal(get_le16(s + 14), v->g.reserved);
	assert_int_equal(s[16], 2);
	assert_int_equal(get_le16(s + 17), fat32 ? 0 : 512);
	assert_int_equal(s[21], 0xF8);
	assert_int_equal(get_le32(s + 28), OFF / 512); /* hidden = partition start */
	if (get_le16(s + 19))                          /* total = partition size, exactly */
		assert_int_equal(get_le16(s + 19), size / 512);
	else
		assert_int_equal(get_le32(s + 32), size / 512);
	assert_int_equal(e[0], 0x80);
	assert_int_equal(e[2], 0x29);
	assert_int_equal(get_le32(e + 3), 0x12345678);
	assert_memory_equal(e + 7, "Boot       ", 11);
	assert_memory_equal(e + 18, fat32 ? "FAT32   " : "FAT16   ", 8);
	assert_true(s[fat32 ? 90 : 62] != 0); /* the stub the jump lands on */
	assert_int_equal(s[510], 0x55);
	assert_int_equal(s[511], 0xAA);
}

/* FAT entry @c of FAT copy @k. */
static uint32_t ent(const struct vol *v, int k, uint32_t c)
{
	const uint8_t *fat = v->img + OFF + (v->g.reserved + (size_t)k * v->g.fat_sectors) * 512;

	return v->g.type == FAT_32 ? get_le32(fat + 4 * c) : get_le16(fat + 2 * c);
}

static const uint8_t *cluster(const struct vol *v, uint32_t c)
{
	return v->img + OFF + v->g.data_offset + (size_t)(c - 2) * 512;
}

static void check_entries(const struct vol *v, const uint8_t *root)
{
	uint32_t eoc = v->g.type == FAT_32 ? 0x0FFFFFFF : 0xFFFF, a, dcl, ecl;
	bool fat32 = v->g.type == FAT_32;
	const uint8_t *dir;

	assert_memory_equal(root, "Boot       ", 11); /* the label entry comes first */
	assert_int_equal(root[11], 0x08);
	assert_memory_equal(root + 32, "A       BIN", 11);
	assert_int_equal(root[32 + 11], 0);
	assert_int_equal(get_le16(root + 32 + 24), (43 << 9) | (11 << 5) | 14);  /* 2023-11-14 */
	assert_int_equal(get_le16(root + 32 + 22), (22 << 11) | (13 << 5) | 10); /* 22:13:20 */
	assert_int_equal(root[32 + 13], 50); /* 0.5 s in 10 ms units */
	assert_int_equal(get_le32(root + 32 + 28), 1500);
	a = get_le16(root + 32 + 26) | (uint32_t)get_le16(root + 32 + 20) << 16;
	assert_int_equal(ent(v, 0, a), a + 1); /* contiguous: a, a+1, a+2 */
	assert_int_equal(ent(v, 0, a + 1), a + 2);
	assert_int_equal(ent(v, 0, a + 2), eoc);
	assert_int_equal(cluster(v, a)[0], 1);
	assert_int_equal(cluster(v, a + 2)[1500 - 1024 - 1], (1499 % 251) + 1);
	assert_memory_equal(root + 64, "D          ", 11);
	assert_int_equal(root[64 + 11], 0x10);
	dcl = get_le16(root + 64 + 26) | (uint32_t)get_le16(root + 64 + 20) << 16;
	dir = cluster(v, dcl);
	assert_memory_equal(dir, ".          ", 11);
	assert_int_equal(get_le16(dir + 26), dcl & 0xFFFF);
	assert_memory_equal(dir + 32, "..         ", 11);
	assert_int_equal(get_le16(dir + 32 + 26), 0); /* parent is the root: 0, even on FAT32 */
	assert_int_equal(get_le16(dir + 32 + 20), 0);
	ecl = get_le16(dir + 64 + 26);
	assert_int_equal(get_le16(cluster(v, ecl) + 32 + 26), dcl); /* /D/E's ".." is /D */
	assert_int_equal(ent(v, 0, 0), fat32 ? 0x0FFFFFF8 : 0xFFF8);
	assert_int_equal(ent(v, 0, 1), eoc);
	for (uint32_t c = 0; c < ecl + 4; c++)
		assert_int_equal(ent(v, 0, c), ent(v, 1, c)); /* the FATs are mirrors */
}

static void test_fat16_bytes(void **state)
{
	struct vol v;
	uint64_t size = 8 * 1024 * 1024;

	(void)state;
	build(&v, FAT_16, size);
	for (size_t i = 0; i < OFF; i++)
		assert_int_equal(v.img[i], 0); /* nothing outside the volume */
	check_boot(&v, v.img + OFF, size);
	check_entries(&v, v.img + OFF + (v.g.reserved + 2 * v.g.fat_sectors) * 512);
	release(&v);
}

static void test_fat32_bytes(void **state)
{
	struct vol v;
	uint64_t size = 40 * 1024 * 1024;
	const uint8_t *b, *fsi;

	(void)state;
	build(&v, FAT_32, size);
	b = v.img + OFF;
	fsi = b + 512;
	check_boot(&v, b, size);
	assert_int_equal(get_le32(b + 36), v.g.fat_sectors);
	assert_int_equal(get_le32(b + 44), 2); /* root cluster */
	assert_int_equal(get_le16(b + 48), 1); /* FSInfo sector */
	assert_int_equal(get_le16(b + 50), 6); /* backup boot sector */
	assert_int_equal(get_le32(fsi), 0x41615252);
	assert_int_equal(get_le32(fsi + 484), 0x61417272);
	/* used: root (2), A.BIN (3..5), D (6), E (7) */
	assert_int_equal(get_le32(fsi + 488), v.g.clusters - 6);
	assert_int_equal(get_le32(fsi + 492), 8);
	assert_int_equal(get_le32(fsi + 508), 0xAA550000);
	assert_int_equal(b[1024 + 510], 0x55);
	assert_int_equal(b[1024 + 511], 0xAA);
	assert_memory_equal(b + 6 * 512, b, 3 * 512); /* backups of sectors 0..2 at 6..8 */
	assert_int_equal(ent(&v, 0, 2), 0x0FFFFFFF);
	check_entries(&v, cluster(&v, 2));
	release(&v);
}

/* A deferred file: fat_write() leaves its clusters zero and tells where they are. */
static void test_deferred_file_offset(void **state)
{
	struct fat_opts o = { .type = FAT_16, .cluster_size = 512 };
	struct fat_source src = { .fd = -1, .read = fill }, later = { .fd = -1, .deferred = true };
	struct fat_tree *t = fat_tree_new(T0);
	struct fat_geom g;
	struct diag d;
	uint64_t a, b, size = 16 * 1024 * 1024;
	uint8_t buf[1500];

	(void)state;
	diag_init(&d);
	int fd = open("w.img", O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, OFF + (off_t)size), 0);
	assert_int_equal(fat_params(&o, size, OFF, &g, &d), 0);
	assert_int_equal(fat_tree_add_file(t, "/A.BIN", 1500, &src, NULL, &d), 0);
	assert_int_equal(fat_tree_add_file(t, "/d/B.BIN", 1500, &later, NULL, &d), 0);
	assert_int_equal(fat_tree_file_offset(t, "/A.BIN", &a), -EINVAL); /* not written yet */
	assert_int_equal(fat_write(t, &g, fd, OFF, &d), 0);
	assert_int_equal(fat_tree_file_offset(t, "/A.BIN", &a), 0);
	assert_int_equal(fat_tree_file_offset(t, "/d/B.BIN", &b), 0);
	assert_int_equal(fat_tree_file_offset(t, "/d/C.BIN", &b), -ENOENT);
	assert_int_equal(fat_tree_file_offset(t, "/d", &b), -ENOENT);
	assert_int_equal(fat_tree_file_offset(t, "/d/B.BIN", &b), 0);
	assert_int_equal(a, g.data_offset);           /* cluster 2: the root's first child */
	assert_int_equal(b, g.data_offset + 4 * 512); /* after A's 3 clusters and /d's one */
	fat_tree_free(t);
	/* A's bytes are there, B's clusters are still zero */
	assert_int_equal(pread(fd, buf, sizeof(buf), (off_t)(OFF + a)), (ssize_t)sizeof(buf));
	assert_int_equal(buf[0], 1);
	assert_int_equal(buf[1499], (uint8_t)(1499 % 251 + 1));
	assert_int_equal(pread(fd, buf, sizeof(buf), (off_t)(OFF + b)), (ssize_t)sizeof(buf));
	for (size_t i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0);
	close(fd);
	diag_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fat16_bytes),
		cmocka_unit_test(test_fat32_bytes),
		cmocka_unit_test(test_deferred_file_offset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
