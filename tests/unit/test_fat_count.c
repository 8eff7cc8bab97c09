/* SPDX-License-Identifier: MIT */
/* Unit tests: the FAT reader's count of free and chained clusters (fat/read.c), on volumes
 * the program's own writer made and whose FATs a test then changed entry by entry. */
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
#include "tests/unit/fat_volume_util.h"

/* A volume of each FAT type, of a size that type is made for. */
static const enum fat_type types[] = { FAT_12, FAT_16, FAT_32 };
static const uint64_t sizes[] = { 2 << 20, 32 << 20, 600ull << 20 };

/* FAT entry @c of a FAT of @bits-bit entries (fatgen103 §4), read and written here on their
 * own rather than with fat/'s accessors. */
static uint32_t get_entry(const uint8_t *fat, uint32_t bits, uint32_t c)
{
	if (bits == 12)
		return c & 1 ? get_le16(fat + c * 3 / 2) >> 4 : get_le16(fat + c * 3 / 2) & 0x0FFF;
	return bits == 16 ? get_le16(fat + 2 * c) : get_le32(fat + 4 * c) & 0x0FFFFFFF;
}

static void put_entry(uint8_t *fat, uint32_t bits, uint32_t c, uint16_t x)
{
	uint8_t *p = fat + (bits == 12 ? c * 3 / 2 : c * bits / 8);
	uint16_t old = get_le16(p);

	if (bits == 12)
		put_le16(p, c & 1 ? (uint16_t)((old & 0x000F) | x << 4)
				  : (uint16_t)((old & 0xF000) | (x & 0x0FFF)));
	else if (bits == 16)
		put_le16(p, x);
	else
		put_le32(p, x);
}

/* Free clusters counted in reads of 1 MiB of FAT match an entry-by-entry count, with used
 * entries on both sides of each read's edge, after a hole in the FAT (counted free, not read)
 * and at the last cluster. */
static void test_free_clusters(void **state)
{

	(void)state;
	for (int k = 0; k < 3; k++) {
		struct fat_geom g;
		struct fat_vol *v;
		struct diag d;
		uint32_t got, want = 0, bits = (uint32_t)types[k];
		uint64_t fat_bytes, at;
		int fd = make_volume(types[k], sizes[k], 512, &g);
		uint32_t per_read = (1u << 23) / bits & ~1u;
		uint32_t mark[] = { per_read - 1, per_read,         per_read + 1,
				    2 * per_read, 4 * per_read + 5, g.clusters + 1 };
		uint64_t hole = (uint64_t)3 * per_read * bits / 8; /* the 4th read's bytes */
		uint8_t *fat;

		fat_bytes = (uint64_t)g.fat_sectors * 512;
		fat = malloc(fat_bytes);
		assert_non_null(fat);
		at = (uint64_t)g.reserved * 512;
		assert_int_equal(pread(fd, fat, fat_bytes, (off_t)at), (ssize_t)fat_bytes);
		for (unsigned i = 0; i < 6; i++) {
			uint32_t c = mark[i];
			if (c < 2 || c > g.clusters + 1)
				continue;
			put_entry(fat, bits, c, 7);
		}
		assert_int_equal(pwrite(fd, fat, fat_bytes, (off_t)at), (ssize_t)fat_bytes);
		if (hole + (1u << 20) <= fat_bytes) { /* a hole there, where no file has clusters */
			memset(fat + hole, 0, 1u << 20);
			assert_int_equal(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
						   (off_t)(at + hole), 1 << 20),
					 0);
		}
		for (uint32_t c = 2; c < g.clusters + 2; c++)
			want += get_entry(fat, bits, c) == 0;
		free(fat);
		diag_init(&d);
		assert_int_equal(fat_vol_open(fd, 0, sizes[k], &v, &d), 0);
		assert_int_equal(fat_vol_free_clusters(v, &got, &d), 0);
		assert_int_equal(got, want);
		assert_true(want < g.clusters - 10); /* the marks and the files are counted used */
		fat_vol_close(v);
		diag_release(&d);
		close(fd);
	}
}

/* Sets the FAT entry of cluster @c to @x in both FATs of the volume @fd of @g. */
static void write_entry(int fd, const struct fat_geom *g, uint32_t c, uint32_t x)
{
	uint32_t bits = (uint32_t)g->type;
	uint64_t byte = bits == 12 ? c * 3ull / 2 : c * (uint64_t)bits / 8;
	uint8_t b[4];

	for (uint32_t n = 0; n < g->fats; n++) {
		off_t at = (off_t)((uint64_t)(g->reserved + n * g->fat_sectors) * 512 + byte);
		assert_int_equal(pread(fd, b, 4, at), 4);
		if (bits == 12)
			put_le16(b, c & 1 ? (uint16_t)((get_le16(b) & 0x000F) | (x & 0x0FFF) << 4)
					  : (uint16_t)((get_le16(b) & 0xF000) | (x & 0x0FFF)));
		else if (bits == 16)
			put_le16(b, (uint16_t)x);
		else
			put_le32(b, x);
		assert_int_equal(pwrite(fd, b, 4, at), 4);
	}
}

/* Only links of a chain (a next cluster in range, end of chain) count as chained: not a
 * bad-cluster mark, a reserved value or a cluster past the last (Microsoft FAT
 * Specification, section 4); all of them count as not free. */
static void test_chained_clusters(void **state)
{

	(void)state;
	for (int k = 0; k < 3; k++) {
		struct fat_geom g;
		struct fat_vol *v;
		struct diag d;
		struct fat_cluster_count before, after;
		int fd = make_volume(types[k], sizes[k], 512, &g);
		uint32_t top = types[k] == FAT_12   ? 0xFFF
			       : types[k] == FAT_16 ? 0xFFFF
						    : 0x0FFFFFFF;
		uint32_t last = g.clusters + 1;

		diag_init(&d);
		assert_int_equal(fat_vol_open(fd, 0, sizes[k], &v, &d), 0);
		assert_int_equal(fat_vol_count_clusters(v, &before, &d), 0);
		fat_vol_close(v);
		write_entry(fd, &g, last, top - 8);      /* bad cluster */
		write_entry(fd, &g, last - 1, top - 15); /* reserved */
		write_entry(fd, &g, last - 2, last + 1); /* past the last cluster */
		write_entry(fd, &g, last - 3, top);      /* end of chain */
		write_entry(fd, &g, last - 4, last - 3); /* a link to it */
		assert_int_equal(fat_vol_open(fd, 0, sizes[k], &v, &d), 0);
		assert_int_equal(fat_vol_count_clusters(v, &after, &d), 0);
		assert_int_equal(after.free, before.free - 5);
		assert_int_equal(after.chained, before.chained + 2);
		assert_true(before.chained > 0); /* the root's and the files' clusters */
		fat_vol_close(v);
		diag_release(&d);
		close(fd);
	}
}

static int find_big(void *ctx, const struct fat_dirent *e)
{
	if (!strcmp(e->name, "big.bin"))
		*(uint32_t *)ctx = e->first_cluster;
	return 0;
}

/* The clusters @fd's tree holds (fat_vol_walk_held()), with the runs @keep; *@kept gets theirs. */
static uint64_t held_of(int fd, uint64_t size, const struct fat_run *keep, size_t n, uint64_t *kept)
{
	static const struct fat_walk_fns none = { 0 };
	struct fat_vol *v;
	struct diag d;
	uint64_t held = 0;

	diag_init(&d);
	assert_int_equal(fat_vol_open(fd, 0, size, &v, &d), 0);
	assert_int_equal(fat_vol_walk_held(v, 8, &none, NULL, keep, n, &held, kept, &d), 0);
	fat_vol_close(v);
	diag_release(&d);
	return held;
}

/* The clusters the tree holds are its chains' (FAT32's root's too), each once: as many as the
 * FAT chains on a healthy volume; a chain that loops back ends there (its tail no longer
 * held); one that breaks on a free entry holds what the file's size needs; a run kept beside
 * the chains counts its clusters inside the volume that no chain holds. */
static void test_walk_held(void **state)
{

	(void)state;
	for (int k = 0; k < 3; k++) {
		struct fat_geom g;
		struct fat_vol *v;
		struct diag d;
		struct fat_cluster_count n;
		static const struct fat_walk_fns find = { .entry = find_big };
		uint32_t big = 0, top = types[k] == FAT_12   ? 0xFFF
					: types[k] == FAT_16 ? 0xFFFF
							     : 0x0FFFFFFF;
		uint64_t kept = 99, chained;
		int fd = make_volume(types[k], sizes[k], 512, &g);
		struct fat_run keep[] = { { g.clusters - 8, 100 }, { big, 1 } };

		diag_init(&d);
		assert_int_equal(fat_vol_open(fd, 0, sizes[k], &v, &d), 0);
		assert_int_equal(fat_vol_count_clusters(v, &n, &d), 0);
		assert_int_equal(fat_vol_walk(v, "/", 8, &find, &big, &d), 0);
		fat_vol_close(v);
		chained = n.chained;
		assert_true(big >= 2);
		keep[1].first = big;
		/* root (FAT32), readme, long name, dir, empty: 1 each; big.bin 10 */
		assert_int_equal(chained, (types[k] == FAT_32) + 4 + (BIG + 511) / 512);
		assert_int_equal(held_of(fd, sizes[k], NULL, 0, &kept), chained);
		assert_int_equal(kept, 0);
		/* the last 10 clusters (the run goes past the volume) and big.bin's first (held) */
		assert_int_equal(held_of(fd, sizes[k], keep, 2, &kept), chained);
		assert_int_equal(kept, 10);
		write_entry(fd, &g, big + 2, big); /* a loop after 3 clusters */
		assert_int_equal(held_of(fd, sizes[k], NULL, 0, &kept), chained - 7);
		write_entry(fd, &g, big + 2, 0); /* broken on a free entry */
		assert_int_equal(held_of(fd, sizes[k], NULL, 0, &kept), chained);
		write_entry(fd, &g, big + 2, top - 8); /* broken on a bad-cluster mark */
		assert_int_equal(held_of(fd, sizes[k], NULL, 0, &kept), chained);
		diag_release(&d);
		close(fd);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_free_clusters),
		cmocka_unit_test(test_chained_clusters),
		cmocka_unit_test(test_walk_held),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
