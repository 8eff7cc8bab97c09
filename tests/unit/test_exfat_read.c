/* SPDX-License-Identifier: MIT */
/*
 * Unit tests: exfat/'s reader on the volume of exfat_volume_util.h: its parameters, its
 * listing and the bytes of its files read back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tests/unit/exfat_volume_util.h"

/* The clean volume: its parameters as dump.exfat prints them, and fsck.exfat's word. */
static void test_params(void **state)
{
	struct geo g;
	int fd = make_volume(&g);
	struct exfat_vol *v;
	struct diag d;
	uint32_t free_clusters;
	char out[4096];

	(void)state;
	diag_init(&d);
	assert_int_equal(exfat_vol_open(fd, 0, VOL_BYTES, &v, &d), 0);
	const struct exfat_info *i = exfat_vol_info(v);
	assert_int_equal(i->cluster_size, CS);
	assert_int_equal(i->volume_id, 0xcafe1234);
	assert_string_equal(i->label, "Reader");
	assert_int_equal(exfat_vol_free_clusters(v, &free_clusters, &d), 0);
	if (have_tool("dump.exfat")) {
		char want[128];
		assert_int_equal(tool_output(TOOL_PATH "dump.exfat " VOL " 2>&1", out, sizeof(out)),
				 0);
		snprintf(want, sizeof(want), "Cluster Heap Offset (sector offset): \t%u\n",
			 i->heap_offset);
		assert_non_null(strstr(out, want));
		snprintf(want, sizeof(want), "FAT Offset(sector offset): \t\t%u\n", i->fat_offset);
		assert_non_null(strstr(out, want));
		snprintf(want, sizeof(want), "Cluster Count: \t\t\t\t%u\n", i->clusters);
		assert_non_null(strstr(out, want));
		snprintf(want, sizeof(want), "Free Clusters: \t\t\t\t%u\n", free_clusters);
		assert_non_null(strstr(out, want));
		snprintf(want, sizeof(want), "Upcase table size: \t\t\t%llu\n",
			 (unsigned long long)i->upcase_bytes);
		assert_non_null(strstr(out, want));
	}
	if (have_tool("fsck.exfat"))
		assert_int_equal(tool_output(TOOL_PATH "fsck.exfat -n " VOL " 2>&1", out,
					     sizeof(out)),
				 0);
	exfat_vol_close(v);
	diag_release(&d);
	close(fd);
}

static void test_list_read(void **state)
{
	static const struct exfat_walk_fns fns = { .entry = collect };
	struct geo g;
	int fd = make_volume(&g);
	struct exfat_vol *v;
	struct collect c = { .n = 0 };
	struct bytes *o = calloc(1, sizeof(*o));
	uint8_t want[3 * CS];
	struct diag d;

	(void)state;
	diag_init(&d);
	assert_int_equal(exfat_vol_open(fd, 0, VOL_BYTES, &v, &d), 0);
	assert_int_equal(exfat_vol_list(v, "/", collect, &c, &d), 0);
	assert_int_equal(c.n, 4);
	assert_string_equal(c.names[0], "dir");
	assert_string_equal(c.names[3], "sparse.bin");
	assert_true(c.e[0].attrs & EXFAT_ATTR_DIRECTORY);
	assert_int_equal(c.e[2].size, CHAIN_BYTES);
	assert_false(c.e[2].contiguous);
	assert_int_equal(c.e[1].mtime, 1700000000);
	c.n = 0;
	assert_int_equal(exfat_vol_list(v, "/DIR", collect, &c, &d), 0);
	assert_int_equal(c.n, 2);
	assert_string_equal(c.names[0], "caf\xc3\xa9.txt");
	c.n = 0;
	assert_int_equal(exfat_vol_walk(v, "/", 8, &fns, &c, &d), 0);
	assert_int_equal(c.n, 6);
	/* the up-case table folds é to É */
	assert_int_equal(exfat_vol_read(v, "/dir/CAF\xc3\x89.TXT", gather, o, &d), 0);
	assert_int_equal(o->n, 5);
	assert_memory_equal(o->b, "hello", 5);
	o->n = 0;
	assert_int_equal(exfat_vol_read(v, "/readme.txt", gather, o, &d), 0);
	assert_int_equal(o->n, 10);
	o->n = 0;
	fill(want, sizeof(want), 1);
	assert_int_equal(exfat_vol_read(v, "/chain.bin", gather, o, &d), 0);
	assert_int_equal(o->n, CHAIN_BYTES);
	assert_memory_equal(o->b, want, CHAIN_BYTES);
	o->n = 0;
	assert_int_equal(exfat_vol_read(v, "/sparse.bin", gather, o, &d), 0);
	assert_int_equal(o->n, SPARSE_BYTES);
	assert_memory_equal(o->b, want, SPARSE_VALID);
	for (size_t k = SPARSE_VALID; k < SPARSE_BYTES; k++)
		assert_int_equal(o->b[k], 0);
	assert_int_equal(exfat_vol_read(v, "/nothing", gather, o, &d), -ENOENT);
	assert_int_equal(exfat_vol_read(v, "/dir", gather, o, &d), -EISDIR);
	assert_int_equal(exfat_vol_list(v, "/readme.txt", collect, &c, &d), -ENOTDIR);
	exfat_vol_close(v);
	diag_release(&d);
	free(o);
	close(fd);
}

/* ---- damage */

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_list_read),
	};

	if (!have_tool("mkfs.exfat") || !have_tool("tune.exfat")) {
		printf("test_exfat_read: mkfs.exfat not found: skipped\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
