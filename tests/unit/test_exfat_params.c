/* SPDX-License-Identifier: MIT */
/* Unit tests: exfat_params() (the limits of §3.1 of the exFAT specification, the heap's
 * alignment from the disk's start) and exfat_sd_format() (SD Part 2 File System
 * Specification, the SDXC rows of its format parameter table). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "exfat/exfat.h"

#define MIB (1024ull * 1024)
#define GIB (1024 * MIB)

/* Checks a geometry against §3.1, independently of how it was made. */
static void check_geom(const struct exfat_geom *g)
{
	uint64_t spc = g->cluster_size / 512;

	assert_int_equal(spc, 1ull << g->cluster_shift);
	assert_true(g->cluster_shift + 9 <= 25);
	assert_true(g->fat_offset >= 24);
	assert_true((uint64_t)g->fat_length * 512 >= ((uint64_t)g->clusters + 2) * 4);
	assert_true((uint64_t)g->fat_offset + g->fat_length <= g->heap_offset);
	assert_true(g->clusters >= 1 && g->clusters <= 0xFFFFFFF5u);
	assert_true(g->heap_offset + (uint64_t)g->clusters * spc <= g->vol_sectors);
	/* the heap takes every whole cluster there is room for */
	assert_true(g->heap_offset + ((uint64_t)g->clusters + 1) * spc > g->vol_sectors);
}

static void params_ok(const struct exfat_opts *o, uint64_t bytes, uint64_t offset,
		      struct exfat_geom *g)
{
	struct diag d;

	diag_init(&d);
	assert_int_equal(exfat_params(o, bytes, offset, g, &d), 0);
	assert_int_equal(d.errors, 0);
	diag_release(&d);
	check_geom(g);
}

static void params_fail(const struct exfat_opts *o, uint64_t bytes, uint64_t offset,
			const char *needle)
{
	struct diag d;
	struct exfat_geom g;

	diag_init(&d);
	assert_int_equal(exfat_params(o, bytes, offset, &g, &d), -EINVAL);
	if (!diag_has(&d, needle)) {
		diag_print(&d, stderr, "test");
		fail_msg("no error containing \"%s\"", needle);
	}
	diag_release(&d);
}

/* 4K up to 256 MiB, 32K up to 32 GiB, 128K above (mkfs.exfat's and Windows' defaults). */
static void test_default_cluster(void **state)
{
	static const struct {
		uint64_t bytes;
		uint32_t cluster;
	} rows[] = {
		{ 1 * MIB, 4096 },   { 256 * MIB, 4096 },        { 256 * MIB + 512, 32768 },
		{ 32 * GIB, 32768 }, { 32 * GIB + 512, 131072 }, { 2048 * GIB, 131072 },
	};
	struct exfat_geom g;

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		params_ok(NULL, rows[i].bytes, 0, &g);
		assert_int_equal(g.cluster_size, rows[i].cluster);
		assert_int_equal(g.fat_offset, 24);
		assert_int_equal(g.vol_sectors, rows[i].bytes / 512);
	}
	/* 64 MiB by hand: 16,381 clusters at most after 24 sectors, a FAT of
	 * ceil(16,383 * 4 / 512) = 128 sectors, the heap at 152, (131,072 - 152) / 8 = 16,365 */
	params_ok(NULL, 64 * MIB, 0, &g);
	assert_int_equal(g.fat_length, 128);
	assert_int_equal(g.heap_offset, 152);
	assert_int_equal(g.clusters, 16365);
}

/* The heap lands on a multiple of heap_align counted from the DISK's start. */
static void test_heap_align(void **state)
{
	struct exfat_opts o = { .heap_align = 4 * MIB };
	struct exfat_geom g;

	(void)state;
	params_ok(&o, 100 * MIB, 1 * MIB + 512, &g);
	assert_int_equal((1 * MIB + 512 + (uint64_t)g.heap_offset * 512) % (4 * MIB), 0);
	assert_int_equal(g.part_offset, (1 * MIB + 512) / 512);
	params_ok(&o, 100 * MIB, 0, &g);
	assert_int_equal(g.heap_offset, 8192);
	o.cluster_size = 32 * 1024 * 1024;
	params_ok(&o, 1 * GIB, 4 * MIB, &g);
	assert_int_equal(g.cluster_shift, 16);
	assert_int_equal(((4 * MIB) / 512 + g.heap_offset) % 8192, 0);
	/* 1 MiB aligned to 4 MiB leaves no cluster: the error says the padding took it */
	params_fail(&(struct exfat_opts){ .heap_align = 4 * MIB }, 1 * MIB, 512,
		    "padding that aligns its cluster heap");
	params_fail(&(struct exfat_opts){ .heap_align = 1000 }, 100 * MIB, 0,
		    "a multiple of 512 bytes");
}

static void test_limits(void **state)
{
	struct exfat_geom g;

	(void)state;
	params_fail(NULL, 1 * MIB - 512, 0, "at least 1 MiB");
	params_fail(&(struct exfat_opts){ .cluster_size = 3000 }, 64 * MIB, 0,
		    "a power of two from 512 bytes to 32 MiB");
	params_fail(&(struct exfat_opts){ .cluster_size = 64 * 1024 * 1024 }, 64 * MIB, 0,
		    "32 MiB");
	params_fail(NULL, 64 * MIB + 100, 0, "whole 512-byte sectors");
	/* 2^32 - 11 clusters at most: 4 TiB of 512-byte clusters is 2^33 */
	params_fail(&(struct exfat_opts){ .cluster_size = 512 }, 4096 * GIB, 0,
		    "a cluster size of 1K or more works");
	params_ok(&(struct exfat_opts){ .cluster_size = 1024 }, 4096 * GIB, 0, &g);
	params_fail(&(struct exfat_opts){ .label = "twelve chars" }, 64 * MIB, 0,
		    "longer than the 11 UTF-16 units");
	params_fail(&(struct exfat_opts){ .label = "a/b" }, 64 * MIB, 0, "label \"a/b\"");
	params_fail(&(struct exfat_opts){ .label = "\xff" }, 64 * MIB, 0, "not valid UTF-8");
	params_ok(&(struct exfat_opts){ .label = "Ünïcödé 😀", .volume_id = 7 }, 64 * MIB, 0, &g);
	assert_int_equal(g.label_len, 10); /* 8 units, then a surrogate pair */
	assert_int_equal(g.label[0], 0x00DC);
	assert_int_equal(g.label[8], 0xD83D);
	assert_int_equal(g.volume_id, 7);
}

/* Card sector counts as SDXC cards report them in their CSD (version 2.0: (C_SIZE + 1) *
 * 1,024 sectors): C_SIZE 121,811 (a "64 GB" card), 243,883 ("128 GB"), 488,031 ("256 GB")
 * and 1,953,087 ("1 TB"), the counts of SanDisk cards of those sizes. Expected values
 * worked by hand from SD Part 2's table: partition at BU, FAT at BU / 2 for BU / 2, heap at
 * BU, clusters = (card - 2 BU) / sectors per cluster. */
static void test_sd_format_capacities(void **state)
{
	static const struct {
		uint64_t card;
		uint32_t cluster, bu;
		uint64_t part_sectors;
		uint32_t clusters;
	} rows[] = {
		{ 124735488, 131072, 32768, 124702720, 486992 },
		{ 249737216, 131072, 32768, 249704448, 975280 },
		{ 499744768, 262144, 65536, 499679232, 975808 },
		{ 1999962112, 524288, 131072, 1999831040, 1952832 },
	};
	struct exfat_sd_layout l;
	struct diag d;

	(void)state;
	diag_init(&d);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		assert_int_equal(exfat_sd_format(NULL, rows[i].card, &l, &d), 0);
		assert_int_equal(l.boundary, rows[i].bu);
		assert_int_equal(l.part_start, rows[i].bu);
		assert_int_equal(l.part_sectors, rows[i].part_sectors);
		assert_int_equal(l.mbr_type, 0x07);
		assert_int_equal(l.geom.part_offset, rows[i].bu);
		assert_int_equal(l.geom.vol_sectors, rows[i].part_sectors);
		assert_int_equal(l.geom.fat_offset, rows[i].bu / 2);
		assert_int_equal(l.geom.fat_length, rows[i].bu / 2);
		assert_int_equal(l.geom.heap_offset, rows[i].bu);
		assert_int_equal(l.geom.cluster_size, rows[i].cluster);
		assert_int_equal(512u << l.geom.cluster_shift, rows[i].cluster);
		assert_int_equal(l.geom.clusters, rows[i].clusters);
		/* the heap on a multiple of BU from the card's start */
		assert_int_equal((l.part_start + l.geom.heap_offset) % rows[i].bu, 0);
		check_geom(&l.geom);
	}
	assert_int_equal(d.errors, 0);
	diag_release(&d);
}

static void test_sd_format_edges(void **state)
{
	struct exfat_sd_layout l;
	struct diag d;

	(void)state;
	diag_init(&d);
	/* 32 GiB and below is SDHC */
	assert_int_equal(exfat_sd_format(NULL, 1ull << 26, &l, &d), -EINVAL);
	assert_true(diag_has(&d, "is not SDXC"));
	assert_int_equal(exfat_sd_format(NULL, (1ull << 32) + 1, &l, &d), -EINVAL);
	assert_true(diag_has(&d, "at most 2 TiB"));
	assert_int_equal(exfat_sd_format(&(struct exfat_opts){ .cluster_size = 32768 }, 124735488,
					 &l, &d),
			 -EINVAL);
	assert_true(diag_has(&d, "uses 128K"));
	diag_release(&d);
	diag_init(&d);
	/* each row's upper edge belongs to it, the next sector to the next row */
	assert_int_equal(exfat_sd_format(NULL, (1ull << 26) + 1, &l, &d), 0);
	assert_int_equal(l.boundary, 32768);
	assert_int_equal(exfat_sd_format(NULL, 1ull << 28, &l, &d), 0);
	assert_int_equal(l.geom.cluster_size, 131072);
	assert_int_equal(exfat_sd_format(NULL, (1ull << 28) + 1, &l, &d), 0);
	assert_int_equal(l.geom.cluster_size, 262144);
	assert_int_equal(exfat_sd_format(NULL, 1ull << 32, &l, &d), 0);
	assert_int_equal(l.geom.cluster_size, 524288);
	assert_int_equal(exfat_sd_format(&(struct exfat_opts){ .label = "CARD",
							       .volume_id = 0xABCD },
					 124735488, &l, &d),
			 0);
	assert_int_equal(l.geom.label_len, 4);
	assert_int_equal(l.geom.volume_id, 0xABCD);
	assert_int_equal(d.errors, 0);
	diag_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_cluster), cmocka_unit_test(test_heap_align),
		cmocka_unit_test(test_limits),          cmocka_unit_test(test_sd_format_capacities),
		cmocka_unit_test(test_sd_format_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
