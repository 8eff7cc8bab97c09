/* SPDX-License-Identifier: MIT */
/* Unit tests: fat_min_size() gives a size that holds the tree and none smaller nearby does. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "fat/tree_priv.h"

static int zeros(void *ctx, uint64_t off, void *buf, size_t len)
{
	(void)ctx;
	(void)off;
	(void)buf;
	(void)len;
	return 0;
}

/* Whether a volume of @bytes holds @t (parameters and cluster allocation both succeed). */
static int holds(struct fat_tree *t, const struct fat_opts *o, uint64_t bytes)
{
	struct fat_geom g;
	struct diag q;
	uint32_t next;
	int ok;

	diag_init(&q);
	ok = !fat_params_for_tree(t, o, bytes, 1048576, &g, &q) &&
	     !fat_tree_alloc(t, &g, &next, &q);
	/* type = fat: the smallest volume that is not FAT12 */
	if (o->type == FAT_AUTO && g.type == FAT_12)
		ok = 0;
	diag_release(&q);
	return ok;
}

static void check_min(enum fat_type type, uint64_t align, int files, uint32_t size)
{
	struct fat_opts o = { .type = type, .data_align = align, .label = "MIN" };
	struct fat_source src = { .fd = -1, .read = zeros };
	struct fat_tree *t = fat_tree_new(0);
	struct diag d;
	uint64_t min;
	char path[64];

	diag_init(&d);
	for (int i = 0; i < files; i++) {
		snprintf(path, sizeof(path), "/dir %d/a file with a long name %d", i % 5, i);
		assert_int_equal(fat_tree_add_file(t, path, size, &src, NULL, &d), 0);
	}
	assert_int_equal(fat_min_size(t, &o, 1048576, &min, &d), 0);
	assert_int_equal(min % 512, 0);
	assert_true(holds(t, &o, min));
	for (uint64_t k = 1; k <= 64 && k * 512 < min; k++)
		if (holds(t, &o, min - k * 512))
			fail_msg("FAT%d, %d files of %u: minimum %llu, but %llu holds them", type,
				 files, size, (unsigned long long)min,
				 (unsigned long long)(min - k * 512));
	fat_tree_free(t);
	diag_release(&d);
}

static void test_min_size(void **state)
{
	static const enum fat_type types[] = { FAT_AUTO, FAT_12, FAT_16, FAT_32 };

	(void)state;
	for (int i = 0; i < 4; i++) {
		check_min(types[i], 0, 0, 0);
		check_min(types[i], 0, 1, 1);
		check_min(types[i], 0, 40, 100000);
		check_min(types[i], 0, 300, 5000);
		check_min(types[i], 4194304, 10, 7000);
	}
}

/* fat_min_size() fails with @needle at once, for a cause no larger volume cures. */
static void min_fails(struct fat_tree *t, const struct fat_opts *o, uint64_t offset,
		      const char *needle)
{
	struct diag d;
	uint64_t min = 0;

	diag_init(&d);
	assert_int_equal(fat_min_size(t, o, offset, &min, &d), -EINVAL);
	assert_int_equal(min, 0);
	if (!diag_has(&d, needle)) {
		diag_print(&d, stderr, "test");
		fail_msg("no error containing \"%s\"", needle);
	}
	diag_release(&d);
}

static void test_min_size_stuck(void **state)
{
	struct fat_source src = { .fd = -1, .read = zeros };
	struct fat_tree *t = fat_tree_new(0);
	struct fat_opts o = { .data_align = 64ull << 20 };
	struct diag d;
	char path[64];

	(void)state;
	diag_init(&d);
	assert_int_equal(fat_tree_add_file(t, "/a", 1, &src, NULL, &d), 0);
	/* 64M data-align at 64M: more than 65535 reserved sectors (was: a 384 GiB minimum) */
	min_fails(t, &o, 64ull << 20, "data-align 64M would need");
	min_fails(t, &o, 64ull << 20, "use data-align = 32M or less");
	fat_tree_free(t);
	/* FAT12 with 512-byte clusters cannot hold 3 MB (was: "no FAT volume up to 2T") */
	t = fat_tree_new(0);
	assert_int_equal(fat_tree_add_file(t, "/big", 3000000, &src, NULL, &d), 0);
	o = (struct fat_opts){ .type = FAT_12, .cluster_size = 512 };
	min_fails(t, &o, 1048576, "FAT12 holds at most 4069 clusters");
	fat_tree_free(t);
	/* 280 long names: 1120 root entries; root-entries = 512 by hand is the cause */
	t = fat_tree_new(0);
	for (int i = 0; i < 280; i++) {
		snprintf(path, sizeof(path), "/a rather long file name number %d.txt", i + 1000);
		assert_int_equal(fat_tree_add_file(t, path, 1, &src, NULL, &d), 0);
	}
	o = (struct fat_opts){ .type = FAT_16, .root_entries = 512 };
	min_fails(t, &o, 1048576, "the root directory needs 1120 entries");
	min_fails(t, &o, 1048576, "raise it to 1120 or leave it unset");
	fat_tree_free(t);
	diag_release(&d);
}

/* Unset, root-entries follows the root; type = fat minimums are FAT16, FAT32 for an ESP. */
static void test_min_size_root_and_type(void **state)
{
	struct fat_source src = { .fd = -1, .read = zeros };
	struct fat_tree *t = fat_tree_new(0);
	struct fat_opts o = { .type = FAT_16 };
	struct fat_geom g;
	struct diag d;
	uint64_t min;
	char path[64];

	(void)state;
	diag_init(&d);
	for (int i = 0; i < 280; i++) {
		snprintf(path, sizeof(path), "/a rather long file name number %d.txt", i + 1000);
		assert_int_equal(fat_tree_add_file(t, path, 1, &src, NULL, &d), 0);
	}
	assert_int_equal(fat_min_size(t, &o, 1048576, &min, &d), 0);
	assert_int_equal(fat_params_for_tree(t, &o, min, 1048576, &g, &d), 0);
	assert_int_equal(g.root_entries, 1120);
	o = (struct fat_opts){ .esp = true };
	assert_int_equal(fat_min_size(t, &o, 1048576, &min, &d), 0);
	assert_int_equal(fat_params_for_tree(t, &o, min, 1048576, &g, &d), 0);
	assert_int_equal(g.type, FAT_32);
	assert_true(min < (34ull << 20));
	o = (struct fat_opts){ 0 };
	assert_int_equal(fat_min_size(t, &o, 1048576, &min, &d), 0);
	assert_int_equal(fat_params_for_tree(t, &o, min, 1048576, &g, &d), 0);
	assert_int_equal(g.type, FAT_16);
	assert_true(min < (3ull << 20));
	assert_int_equal(d.errors, 0);
	fat_tree_free(t);
	diag_release(&d);
}

/* The default cluster size is the largest at or below the table's that holds the files: many
 * small files get small clusters rather than a huge volume (20,000 one-byte files: 320M with
 * 16K clusters before, now FAT16 with 512-byte clusters in under 12 MiB). */
static void test_cluster_holds_files(void **state)
{
	struct fat_source src = { .fd = -1, .read = zeros };
	struct fat_tree *t = fat_tree_new(0);
	struct fat_opts o = { 0 };
	struct fat_geom g;
	struct diag d;
	uint64_t min;
	char path[64];

	(void)state;
	diag_init(&d);
	for (int i = 0; i < 10000; i++) {
		snprintf(path, sizeof(path), "/d/f%d", i);
		assert_int_equal(fat_tree_add_file(t, path, 1, &src, NULL, &d), 0);
	}
	/* 64 MiB: 8K clusters (the size alone) give about 8200, too few; 4K about 16400 */
	assert_int_equal(fat_params(&o, 64ull << 20, 1048576, &g, &d), 0);
	assert_int_equal(g.cluster_size, 8192);
	assert_int_equal(fat_params_for_tree(t, &o, 64ull << 20, 1048576, &g, &d), 0);
	assert_int_equal(g.type, FAT_16);
	assert_int_equal(g.cluster_size, 4096);
	for (int i = 10000; i < 20000; i++) {
		snprintf(path, sizeof(path), "/d/f%d", i);
		assert_int_equal(fat_tree_add_file(t, path, 1, &src, NULL, &d), 0);
	}
	assert_int_equal(fat_min_size(t, &o, 1048576, &min, &d), 0);
	assert_true(min < (12ull << 20));
	assert_int_equal(fat_params_for_tree(t, &o, min, 1048576, &g, &d), 0);
	assert_int_equal(g.type, FAT_16);
	assert_int_equal(g.cluster_size, 512);
	assert_int_equal(d.errors, 0);
	fat_tree_free(t);
	diag_release(&d);
}

/* A default data-align that leaves the files too little room is lowered to the largest that
 * works, not below the cluster size, with a note; one set by hand, or one that works, stays;
 * fat_min_size() seeks with the full alignment. */
static void test_data_align_lowered(void **state)
{
	enum { VOL_AT = 4 << 20 }; /* the partition at 4M, as align puts it */
	struct fat_source src = { .fd = -1, .read = zeros };
	struct fat_tree *t = fat_tree_new(0);
	struct fat_opts o = { .data_align = 4u << 20, .data_align_lower = true };
	struct fat_geom g;
	struct diag d;
	uint64_t min;

	(void)state;
	diag_init(&d);
	/* 20.5 MiB in 24M: 4K clusters, 5248 needed; the 4M padding leaves 5120 */
	assert_int_equal(fat_tree_add_file(t, "/big.bin", 21495808, &src, NULL, &d), 0);
	assert_int_equal(fat_params_for_tree(t, &o, 24ull << 20, VOL_AT, &g, &d), 0);
	assert_int_equal(d.errors, 0);
	assert_int_equal(d.n, 1);
	assert_int_equal(d.msgs[0].level, DIAG_NOTE);
	assert_non_null(strstr(d.msgs[0].text, "a multiple of 2M instead"));
	uint64_t data = VOL_AT +
			((uint64_t)g.reserved + (uint64_t)g.fats * g.fat_sectors + g.root_sectors) *
				512;
	assert_int_equal(data % (2u << 20), 0);
	assert_true(g.cluster_size <= (2u << 20));
	diag_release(&d);

	/* a volume that works with 4M keeps it, quietly */
	diag_init(&d);
	assert_int_equal(fat_params_for_tree(t, &o, 32ull << 20, VOL_AT, &g, &d), 0);
	assert_int_equal(d.n, 0);
	data = VOL_AT +
	       ((uint64_t)g.reserved + (uint64_t)g.fats * g.fat_sectors + g.root_sectors) * 512;
	assert_int_equal(data % (4u << 20), 0);
	/* fat_min_size() does not lower it: 24M is too small at 4M */
	assert_int_equal(fat_min_size(t, &o, VOL_AT, &min, &d), 0);
	assert_true(min > (24ull << 20));
	/* set by hand: an error */
	o.data_align_lower = false;
	assert_int_not_equal(fat_params_for_tree(t, &o, 24ull << 20, VOL_AT, &g, &d), 0);
	assert_true(diag_has(&d, "has 5120"));
	fat_tree_free(t);
	diag_release(&d);
}

/* size = auto with a default data-align no size reaches (64M: its padding needs more than
 * 65535 reserved sectors) is lowered by the rule of a fixed size: the volume gets 32M, the
 * fixed-size build of the size found agrees, and so does fat_reached_data_align(), what
 * inspect judges it by. A data-align the layout sets is never lowered. */
static void test_min_size_lowers_unreachable_align(void **state)
{
	struct fat_source src = { .fd = -1, .read = zeros };
	struct fat_tree *t = fat_tree_new(0);
	struct fat_opts o = { .data_align = 64ull << 20, .data_align_lower = true };
	const uint64_t offset = 128ull << 20;
	struct fat_geom g;
	struct diag d;
	uint64_t min = 0;

	(void)state;
	diag_init(&d);
	assert_int_equal(fat_tree_add_file(t, "/a", 1, &src, NULL, &d), 0);
	assert_int_equal(fat_min_size(t, &o, offset, &min, &d), 0);
	assert_int_equal(fat_params_for_tree(t, &o, min, offset, &g, &d), 0);
	assert_int_equal((offset + g.data_offset) % (32ull << 20), 0);
	assert_int_not_equal((offset + g.data_offset) % (64ull << 20), 0);
	struct fat_opts bare = { .type = g.type,
				 .cluster_size = g.cluster_size,
				 .data_align = 64ull << 20,
				 .data_align_lower = true };
	assert_int_equal(fat_reached_data_align(&bare, min, offset, 0), 32ull << 20);
	bare.data_align_lower = false;
	assert_int_equal(fat_reached_data_align(&bare, min, offset, 0), 0);
	o.data_align_lower = false;
	min_fails(t, &o, offset, "data-align 64M would need");
	fat_tree_free(t);
	diag_release(&d);
}

/* A fixed volume its files fill too much to keep a 16M data-align's padding: the builder
 * lowers the alignment, and fat_reached_data_align() given the clusters the files use finds
 * an alignment the build has (without them, the full 16M: what inspect used to judge by). */
static void test_reached_with_clusters_in_use(void **state)
{
	struct fat_source src = { .fd = -1, .read = zeros };
	struct fat_tree *t = fat_tree_new(0);
	struct fat_opts o = { .data_align = 16ull << 20, .data_align_lower = true };
	const uint64_t offset = 16ull << 20, vol = 64ull << 20, files = 55ull << 20;
	struct fat_geom g;
	struct diag d;

	(void)state;
	diag_init(&d);
	assert_int_equal(fat_tree_add_file(t, "/a", files, &src, NULL, &d), 0);
	assert_int_equal(fat_params_for_tree(t, &o, vol, offset, &g, &d), 0);
	uint64_t data = offset + g.data_offset;
	assert_int_not_equal(data % (16ull << 20), 0);
	struct fat_opts bare = { .type = g.type,
				 .cluster_size = g.cluster_size,
				 .root_entries = g.type == FAT_32 ? 0 : g.root_entries,
				 .data_align = 16ull << 20,
				 .data_align_lower = true };
	uint64_t need = (files + g.cluster_size - 1) / g.cluster_size + (g.type == FAT_32);
	uint64_t reached = fat_reached_data_align(&bare, vol, offset, need);
	assert_true(reached >= g.cluster_size && reached < (16ull << 20));
	assert_int_equal(data % reached, 0);
	assert_int_equal(fat_reached_data_align(&bare, vol, offset, 0), 16ull << 20);
	fat_tree_free(t);
	diag_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_min_size),
		cmocka_unit_test(test_min_size_stuck),
		cmocka_unit_test(test_min_size_lowers_unreachable_align),
		cmocka_unit_test(test_min_size_root_and_type),
		cmocka_unit_test(test_cluster_holds_files),
		cmocka_unit_test(test_data_align_lowered),
		cmocka_unit_test(test_reached_with_clusters_in_use),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
