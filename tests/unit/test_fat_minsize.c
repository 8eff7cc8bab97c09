/* Unit tests: fat_min_size() gives a size that holds the tree and none smaller nearby does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_min_size),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
