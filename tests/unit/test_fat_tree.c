/* SPDX-License-Identifier: MIT */
/* Unit tests: building the tree (implicit parents, replacing by FAT name, removal). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fat/tree_priv.h"

static int collect(void *ctx, const struct fat_dirent *e)
{
	char *all = ctx;

	strcat(all, e->name);
	strcat(all, ";");
	return 0;
}

/* Writes @t to a small FAT16 volume and returns the listing of @dir ("a;b;"). */
static void listing(struct fat_tree *t, const char *dir, char *out)
{
	struct fat_opts o = { .type = FAT_16 };
	struct fat_geom g;
	struct fat_vol *v;
	struct diag d;
	int fd = open("t.img", O_RDWR | O_CREAT | O_TRUNC, 0644);

	diag_init(&d);
	out[0] = 0;
	assert_int_equal(ftruncate(fd, 8 << 20), 0);
	assert_int_equal(fat_params(&o, 8 << 20, 0, &g, &d), 0);
	assert_int_equal(fat_write(t, &g, fd, 0, &d), 0);
	assert_int_equal(fat_vol_open(fd, 0, 0, &v, &d), 0);
	assert_int_equal(fat_vol_list(v, dir, collect, out, &d), 0);
	fat_vol_close(v);
	diag_release(&d);
	close(fd);
}

static void test_implicit_parents_and_first(void **state)
{
	struct fat_tree *t = fat_tree_new(0);
	struct fat_meta first = { .first = true };
	struct diag d;
	char out[4096];

	(void)state;
	diag_init(&d);
	assert_int_equal(fat_tree_add_file(t, "/a/b/c.txt", 0, NULL, NULL, &d), 0);
	assert_int_equal(fat_tree_add_file(t, "//a//b/Z.txt", 0, NULL, NULL, &d), 0);
	assert_int_equal(fat_tree_add_file(t, "/a/b/zz-mlo", 0, NULL, &first, &d), 0);
	assert_int_equal(fat_tree_add_dir(t, "/a/b", NULL, &d), 0); /* already there: fine */
	assert_int_equal(fat_tree_add_dir(t, "/", NULL, &d), 0);
	listing(t, "/a/b", out);
	assert_string_equal(out, "zz-mlo;Z.txt;c.txt;"); /* first, then UTF-8 byte order */
	fat_tree_free(t);
	diag_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_implicit_parents_and_first),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
