/* SPDX-License-Identifier: MIT */
/* Unit tests: fat_params() and fat_sd_format() (SD Part 2 File System Specification format
 * parameters and algorithms; fatgen103 "FAT Type Determination"). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fat/fat.h"

#define MIB (1024ull * 1024)

/* Checks a geometry against fatgen103's definitions, independently of how it was made. */
static void check_geom(const struct fat_geom *g)
{
	uint64_t sys = g->reserved + (uint64_t)g->fats * g->fat_sectors + g->root_sectors;
	uint64_t bits = (uint64_t)g->type * (g->clusters + 2);

	assert_int_equal(g->cluster_size, g->sec_per_clus * 512);
	assert_int_equal(g->root_sectors, (g->root_entries * 32 + 511) / 512);
	assert_int_equal(g->data_offset, sys * 512);
	assert_int_equal(g->clusters, (g->total_sectors - sys) / g->sec_per_clus);
	assert_true((uint64_t)g->fat_sectors * 512 * 8 >= bits);
	if (g->type == FAT_12)
		assert_true(g->clusters < 4085 - 15);
	else if (g->type == FAT_16)
		assert_true(g->clusters >= 4085 + 16 && g->clusters < 65525 - 15);
	else
		assert_true(g->clusters >= 65525 + 16);
}

static void params_ok(uint64_t sectors, const struct fat_opts *o, struct fat_geom *g)
{
	struct diag d;

	diag_init(&d);
	assert_int_equal(fat_params(o, sectors * 512, 0, g, &d), 0);
	assert_int_equal(d.errors, 0);
	diag_release(&d);
	check_geom(g);
}

/* Expects fat_params() to fail with a message containing @needle. */
static void params_fail(uint64_t sectors, uint64_t offset, const struct fat_opts *o,
			const char *needle)
{
	struct diag d;
	struct fat_geom g;

	diag_init(&d);
	assert_int_equal(fat_params(o, sectors * 512, offset, &g, &d), -EINVAL);
	if (!diag_has(&d, needle)) {
		diag_print(&d, stderr, "test");
		fail_msg("no error containing \"%s\"", needle);
	}
	diag_release(&d);
}

/* type = fat: FAT16 where it can exist, with the largest cluster size at or below the SD
 * table's (8K up to 8 MiB, 16K up to 1 GiB, 32K above) that gives a safe count; FAT32 above
 * 2 GiB and first for an EFI system partition; FAT12 only where nothing else fits. */
static void test_auto_rows(void **state)
{
	static const struct {
		uint64_t sectors;
		bool esp;
		enum fat_type type;
		uint32_t spc;
	} rows[] = {
		{ 4000, false, FAT_12, 16 },     /* 2 MiB: too small for FAT16 */
		{ 8000, false, FAT_16, 1 },      /* 512-byte clusters: 7935 */
		{ 16384, false, FAT_16, 2 },     /* 8 MiB: 1K clusters (2K would give 4094) */
		{ 100000, false, FAT_16, 16 },   /* <= 64 MiB: the table's FAT12 16K is not taken */
		{ 131072, false, FAT_16, 16 },   /* 64 MiB: 16K would give 4094 */
		{ 300000, false, FAT_16, 32 },   /* <= 256 MiB: the table's FAT16 16K */
		{ 1500000, false, FAT_16, 32 },  /* <= 1 GiB */
		{ 3000000, false, FAT_16, 64 },  /* <= 2 GiB */
		{ 20000000, false, FAT_32, 64 }, /* <= 32 GiB */
		{ 100000000, false, FAT_32, 64 }, /* larger: still FAT32, 32K clusters */
		{ 50000, true, FAT_16, 8 },       /* an ESP too small for FAT32 */
		{ 100000, true, FAT_32, 1 },      /* FAT32 from about 33 MiB */
		{ 1500000, true, FAT_32, 16 },    { 20000000, true, FAT_32, 64 },
	};
	struct fat_geom g;

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct fat_opts o = { .esp = rows[i].esp };
		params_ok(rows[i].sectors, &o, &g);
		if (g.type != rows[i].type || g.sec_per_clus != rows[i].spc)
			fail_msg("%llu sectors%s: FAT%d with %u sectors per cluster, expected "
				 "FAT%d "
				 "with %u",
				 (unsigned long long)rows[i].sectors, rows[i].esp ? " (ESP)" : "",
				 g.type, g.sec_per_clus, rows[i].type, rows[i].spc);
		assert_int_equal(g.fats, 2);
		assert_int_equal(g.reserved, g.type == FAT_32 ? 32 : 1);
		assert_int_equal(g.root_entries, g.type == FAT_32 ? 0 : 512);
		assert_int_equal(g.total_sectors, rows[i].sectors);
	}
}

/* The root directory follows root_entries_min when root-entries is unset: whole sectors,
 * never below 512 entries. */
static void test_root_sized(void **state)
{
	struct fat_opts o = { .root_entries_min = 841 };
	struct fat_geom g;

	(void)state;
	params_ok(100000, &o, &g);
	assert_int_equal(g.root_entries, 848);
	o.root_entries_min = 10;
	params_ok(100000, &o, &g);
	assert_int_equal(g.root_entries, 512);
	o = (struct fat_opts){ .root_entries = 256, .root_entries_min = 841 };
	params_ok(100000, &o, &g);
	assert_int_equal(g.root_entries, 256);
}

/* With a cluster size set by hand, the count decides the type. */
static void test_fallback_type_follows_count(void **state)
{
	struct fat_opts o = { .cluster_size = 16384 };
	struct fat_geom g;

	(void)state;
	params_ok(4000000, &o, &g); /* table: FAT16; 16K clusters give ~125000 */
	assert_int_equal(g.type, FAT_32);
	assert_int_equal(g.sec_per_clus, 32);
	o.cluster_size = 512; /* 64 MiB card, FAT12 in the table */
	params_ok(131072, &o, &g);
	assert_int_equal(g.type, FAT_32);
}

/* Within 16 of an edge, the next smaller cluster size that gives a safe count. */
static void test_fallback_halve(void **state)
{
	static const struct {
		uint64_t sectors;
		enum fat_type type;
		uint32_t spc;
	} cases[] = {
		{ 131072, FAT_16, 16 },  /* FAT12 SC 32 would give 4093 */
		{ 2097152, FAT_32, 16 }, /* FAT16 SC 32 would give 65512 */
		{ 4194304, FAT_32, 32 }, /* FAT16 SC 64 would give 65524 */
		{ 4194305, FAT_32, 32 }, /* FAT32 SC 64 would give ~65500 */
	};
	struct fat_geom g;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		params_ok(cases[i].sectors, NULL, &g);
		assert_int_equal(g.type, cases[i].type);
		assert_int_equal(g.sec_per_clus, cases[i].spc);
	}
}

/* A forced type with a default cluster size takes the nearest working size (ties: larger). */
static void test_forced_type_nearest_cluster(void **state)
{
	struct fat_opts o = { .type = FAT_16 };
	struct fat_geom g;

	(void)state;
	params_ok(2097152, &o, &g);
	assert_int_equal(g.sec_per_clus, 64);
	o.type = FAT_32;
	params_ok(2097152, &o, &g);
	assert_int_equal(g.sec_per_clus, 16);
	o.type = FAT_12;
	params_ok(131072, &o, &g);
	assert_int_equal(g.sec_per_clus, 64);
	o.type = FAT_16;
	params_ok(16384, &o, &g); /* 8 MiB: FAT16 needs 1K clusters or less */
	assert_int_equal(g.sec_per_clus, 2);
}

static void test_explicit_settings_kept(void **state)
{
	struct fat_opts o = { .type = FAT_32, .cluster_size = 4096, .fats = 1, .reserved = 40 };
	struct fat_geom g;

	(void)state;
	params_ok(4194304, &o, &g);
	assert_int_equal(g.type, FAT_32);
	assert_int_equal(g.cluster_size, 4096);
	assert_int_equal(g.fats, 1);
	assert_int_equal(g.reserved, 40);
	o = (struct fat_opts){ .type = FAT_16, .root_entries = 1024, .reserved = 4 };
	params_ok(300000, &o, &g);
	assert_int_equal(g.root_entries, 1024);
	assert_int_equal(g.root_sectors, 64);
	assert_int_equal(g.reserved, 4);
	o = (struct fat_opts){ .cluster_size = 65536 };
	params_ok(20000000, &o, &g);
	assert_int_equal(g.sec_per_clus, 128);
}

static void test_impossible(void **state)
{
	struct fat_opts o = { .type = FAT_12 };

	(void)state;
	params_fail(2097152, 0, &o, "FAT12 holds at most 4069 clusters (4085 less a margin of 16)");
	params_fail(2097152, 0, &o, "no cluster size up to 64K gives few enough");
	o = (struct fat_opts){ .type = FAT_16, .cluster_size = 4096 };
	params_fail(2097152, 0, &o, "FAT16 holds at most 65509 clusters");
	params_fail(2097152, 0, &o,
		    "gives 261884; use cluster-size = 32K or more, or size = 256M or less");
	o = (struct fat_opts){ .type = FAT_32, .cluster_size = 4096 };
	params_fail(70000, 0, &o, "FAT32 needs at least 65541 clusters (65525 and a margin of 16)");
	params_fail(70000, 0, &o,
		    "use cluster-size = 512 or less, or a larger volume (size = 257M or more "
		    "works)");
	o = (struct fat_opts){ .type = FAT_32, .cluster_size = 4096 };
	params_fail(524288, 0, &o,
		    "256M with cluster-size 4K gives 65404; use cluster-size = 2K or less");
	o = (struct fat_opts){ .type = FAT_32 };
	params_fail(50000, 0, &o, "no cluster size gives enough; size = 33M or more works");
	o = (struct fat_opts){ .cluster_size = 16384 }; /* 4094 clusters: on the edge */
	params_fail(131072, 0, &o, "FAT16 works with cluster-size 1K..8K");
	params_fail(8, 0, NULL, "too small");
	o = (struct fat_opts){ .cluster_size = 3000 };
	params_fail(100000, 0, &o, "power of two");
	o = (struct fat_opts){ .cluster_size = 131072 };
	params_fail(100000, 0, &o, "power of two");
	o = (struct fat_opts){ .fats = 3 };
	params_fail(100000, 0, &o, "use 1 or 2");
	o = (struct fat_opts){ .root_entries = 500 };
	params_fail(100000, 0, &o, "multiple of 16");
	o = (struct fat_opts){ .type = FAT_32, .root_entries = 512 };
	params_fail(4194304, 0, &o, "no fixed root");
	o = (struct fat_opts){ .root_entries = 1024 }; /* auto chooses FAT32 for 2 GiB */
	params_fail(4194304, 0, &o, "drop root-entries or choose fat12/fat16");
	o = (struct fat_opts){ .type = FAT_12, .data_align = 64 * MIB };
	params_fail(8192, 0, &o, "data-align 64M would need 131036 reserved sectors");
	params_fail(8192, 0, &o,
		    "more than the 65535 a FAT boot sector counts; use data-align = 32M or less");
	o = (struct fat_opts){ .data_align = 4 * MIB }; /* the padding eats the whole volume */
	params_fail(8192, 4 * MIB, &o,
		    "data-align 4M pads the reserved sectors to 8156, which leaves no room for "
		    "clusters in this 4M volume; size = 5M or more works, or data-align = 2M or "
		    "less");
	o = (struct fat_opts){ .data_align = 1000 };
	params_fail(100000, 0, &o, "not a multiple of 512");
	o = (struct fat_opts){ .type = FAT_32, .reserved = 8 };
	params_fail(4194304, 0, &o, "at least 9");
	o = (struct fat_opts){ .type = FAT_32, .reserved = 32, .data_align = 4 * MIB };
	params_fail(4194304, 0, &o, "would align it");
	o = (struct fat_opts){ .label = "TOO LONG LABEL" };
	params_fail(100000, 0, &o, "longer than 11");
	o = (struct fat_opts){ .label = "A*B" };
	params_fail(100000, 0, &o, "not allowed");
	o = (struct fat_opts){ .oem_name = "123456789" };
	params_fail(100000, 0, &o, "longer than 8");
	params_fail(0, 0, NULL, "multiple of 512");
	params_fail(100000, 100, NULL, "offset 100");
}

/* Reads the data-area disk sector back from the fields a boot sector would hold. */
static void check_aligned(const struct fat_geom *g, uint64_t offset, uint64_t align)
{
	uint64_t start = offset + g->data_offset;

	assert_int_equal(g->hidden_sectors, offset / 512);
	assert_int_equal(start % align, 0);
}

static void test_data_align(void **state)
{
	static const struct {
		uint64_t sectors, offset, align;
		enum fat_type type;
	} cases[] = {
		{ 2097152, 4 * MIB, 4 * MIB, FAT_16 }, { 2097152, 4 * MIB, 4 * MIB, FAT_32 },
		{ 40000, 1 * MIB, 1 * MIB, FAT_12 },   { 4194304, 63 * 512, 4 * MIB, FAT_32 },
		{ 300000, 63 * 512, 8192, FAT_16 },    { 300000, 0, 64 * 1024, FAT_AUTO },
	};
	struct diag d;
	struct fat_geom g;

	(void)state;
	diag_init(&d);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fat_opts o = { .type = cases[i].type, .data_align = cases[i].align };
		assert_int_equal(fat_params(&o, cases[i].sectors * 512, cases[i].offset, &g, &d),
				 0);
		check_geom(&g);
		check_aligned(&g, cases[i].offset, cases[i].align);
		/* FAT12/16: the root directory sits between the FATs and the data area */
		if (g.type != FAT_32)
			assert_int_equal(g.root_sectors, 32);
	}
	assert_int_equal(d.errors, 0);
	diag_release(&d);
}

static void sd_ok(uint64_t ts, enum fat_type type, uint32_t start, uint32_t rsc, uint32_t sf,
		  uint32_t data, uint32_t clusters)
{
	struct fat_sd_layout l;
	struct diag d;

	diag_init(&d);
	assert_int_equal(fat_sd_format(NULL, ts, &l, &d), 0);
	assert_int_equal(d.errors, 0);
	assert_int_equal(l.geom.type, type);
	assert_int_equal(l.part_start, start);
	assert_int_equal(l.geom.hidden_sectors, start);
	assert_int_equal(l.part_sectors, ts - start);
	assert_int_equal(l.geom.total_sectors, ts - start);
	assert_int_equal(l.geom.reserved, rsc);
	assert_int_equal(l.geom.fat_sectors, sf);
	assert_int_equal(l.geom.fats, 2);
	if (data)
		assert_int_equal(start + l.geom.data_offset / 512, data);
	assert_int_equal(l.geom.clusters, clusters);
	assert_int_equal((start + l.geom.data_offset / 512) % l.boundary, 0);
	diag_release(&d);
}

/* The SD formatter's numbers for three card sizes, worked by hand from its algorithms. */
static void test_sd_format_worked(void **state)
{
	(void)state;
	sd_ok(129792, FAT_12, 39, 1, 12, 96, 4053);
	sd_ok(1984000, FAT_16, 249, 1, 243, 768, 61976);
	sd_ok(2097152, FAT_16, 223, 1, 256, 0, 65512);
	sd_ok(4194304, FAT_16, 223, 1, 256, 0, 65524);
	sd_ok(7744512, FAT_32, 8192, 6304, 944, 16384, 120752);
	sd_ok(31116288, FAT_32, 8192, 598, 3797, 16384, 485936);
	sd_ok(62333952, FAT_32, 8192, 1170, 7607, 24576, 973584);
}

static void test_sd_format_edges(void **state)
{
	struct fat_sd_layout l;
	struct fat_opts o = { .cluster_size = 4096 };
	struct diag d;

	(void)state;
	diag_init(&d);
	/* 2^17 sectors: the table's FAT12 gives 4093 clusters, so FAT16, with a warning */
	assert_int_equal(fat_sd_format(NULL, 131072, &l, &d), 0);
	assert_int_equal(l.geom.type, FAT_16);
	assert_int_equal(l.mbr_type, 0x06);
	assert_int_equal(d.n, 1);
	assert_int_equal(fat_sd_format(NULL, 4194305, &l, &d), -EINVAL);
	assert_true(diag_has(&d, "too small"));
	assert_int_equal(fat_sd_format(NULL, (1ull << 26) + 1, &l, &d), -EINVAL);
	assert_true(diag_has(&d, "exFAT"));
	assert_int_equal(fat_sd_format(&o, 31116288, &l, &d), -EINVAL);
	assert_true(diag_has(&d, "cluster-size 32K"));
	o = (struct fat_opts){ .fats = 1 };
	assert_int_equal(fat_sd_format(&o, 31116288, &l, &d), -EINVAL);
	o = (struct fat_opts){ .type = FAT_16 };
	assert_int_equal(fat_sd_format(&o, 31116288, &l, &d), -EINVAL);
	assert_true(diag_has(&d, "uses FAT32"));
	o = (struct fat_opts){ .reserved = 32 };
	assert_int_equal(fat_sd_format(&o, 31116288, &l, &d), -EINVAL);
	o = (struct fat_opts){ .label = "boot", .volume_id = 0x1234abcd };
	assert_int_equal(fat_sd_format(&o, 31116288, &l, &d), 0);
	assert_memory_equal(l.geom.label, "boot       ", 11); /* as given */
	assert_int_equal(l.geom.volume_id, 0x1234abcd);
	assert_int_equal(l.mbr_type, 0x0C);
	assert_int_equal(fat_sd_format(NULL, 129792, &l, &d), 0);
	assert_int_equal(l.mbr_type, 0x01);
	diag_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_auto_rows),
		cmocka_unit_test(test_root_sized),
		cmocka_unit_test(test_fallback_type_follows_count),
		cmocka_unit_test(test_fallback_halve),
		cmocka_unit_test(test_forced_type_nearest_cluster),
		cmocka_unit_test(test_explicit_settings_kept),
		cmocka_unit_test(test_impossible),
		cmocka_unit_test(test_data_align),
		cmocka_unit_test(test_sd_format_worked),
		cmocka_unit_test(test_sd_format_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
