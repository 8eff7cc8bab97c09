/* SPDX-License-Identifier: MIT */
/* Unit tests: VFAT names (UTF-8/UTF-16, checks, basis and short names, LFN entries). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/utf8.h"
#include "fat/name_priv.h"
#include "fat/tree_priv.h"
#include "fat/write_priv.h"

static int u16(const char *s, uint16_t *out)
{
	return utf8_to_utf16(s, out, FAT_LFN_MAX + 1);
}

static void test_name_problems(void **state)
{
	static const char *bad[] = { "a*b",  "a?",        "x:y",  "a<b",    "a>b", "a|b", "a\\b",
				     "a\"b", "tab\there", "dot.", "space ", ".",   ".." };
	uint16_t u[FAT_LFN_MAX + 1];
	char name[600];
	int n;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n = u16(bad[i], u);
		assert_true(n >= 0);
		if (!fat_name_problem(u, (size_t)n))
			fail_msg("\"%s\" accepted", bad[i]);
	}
	n = u16("+,;=[] ok.name.txt", u);
	assert_null(fat_name_problem(u, (size_t)n));
	memset(name, 'a', 255);
	name[255] = 0;
	n = u16(name, u);
	assert_int_equal(n, 255);
	assert_null(fat_name_problem(u, (size_t)n));
	/* 128 emoji are 256 UTF-16 units: too long */
	name[0] = 0;
	for (int i = 0; i < 128; i++)
		strcat(name, "\xf0\x9f\x98\x80");
	n = u16(name, u);
	assert_int_equal(n, 256);
	assert_non_null(fat_name_problem(u, (size_t)n));
}

static void basis(const char *s, struct fat_basis *b, uint16_t *u, int *n)
{
	*n = u16(s, u);
	assert_true(*n > 0);
	fat_basis(u, (size_t)*n, b);
}

/* The @k-th candidate of @s must be @want (11 bytes). */
static void candidate(const char *s, unsigned k, const char *want)
{
	struct fat_basis b;
	uint16_t u[FAT_LFN_MAX + 1];
	uint8_t out[11];
	int n;

	basis(s, &b, u, &n);
	assert_int_equal(fat_sfn_candidate(&b, u, (size_t)n, k, out), 0);
	if (memcmp(out, want, 11))
		fail_msg("%s #%u: got \"%.11s\", want \"%s\"", s, k, (const char *)out, want);
}

static void test_basis_and_case(void **state)
{
	struct fat_basis b;
	uint16_t u[FAT_LFN_MAX + 1];
	int n;

	(void)state;
	basis("readme.txt", &b, u, &n);
	assert_true(b.fits && b.case_ok && !b.lossy);
	assert_int_equal(b.ntres, FAT_NTRES_LOWER_BASE | FAT_NTRES_LOWER_EXT);
	basis("README.TXT", &b, u, &n);
	assert_true(b.fits && b.case_ok);
	assert_int_equal(b.ntres, 0);
	basis("readme.TXT", &b, u, &n);
	assert_true(b.fits && b.case_ok);
	assert_int_equal(b.ntres, FAT_NTRES_LOWER_BASE);
	basis("README.txt", &b, u, &n);
	assert_int_equal(b.ntres, FAT_NTRES_LOWER_EXT);
	basis("Readme.txt", &b, u, &n); /* mixed case in a part: an LFN, no tail */
	assert_true(b.fits && !b.case_ok);
	candidate("Readme.txt", 0, "README  TXT");
	basis("a+b.c", &b, u, &n);
	assert_true(!b.fits && b.lossy);
	candidate("a+b.c", 1, "A_B~1   C  ");
	basis("longfilename.txt", &b, u, &n);
	assert_true(!b.fits && !b.lossy);
	basis("abc.defg", &b, u, &n);
	assert_false(b.fits);
	basis("two.dots.x", &b, u, &n);
	assert_false(b.fits);
	basis("with space", &b, u, &n);
	assert_false(b.fits);
	basis("\xc3\xa9t\xc3\xa9", &b, u, &n); /* non-ASCII never fits: one '_' per character */
	assert_true(!b.fits && b.lossy);
	candidate("\xc3\xa9t\xc3\xa9", 1, "_T_~1      ");
	candidate("\xf0\x9f\x98\x80.txt", 1, "_~1     TXT");
	candidate(".bashrc", 1, "BASHRC~1   ");
	candidate("my.file.name.txt", 1, "MYFILE~1TXT");
	candidate("a b.txt", 2, "AB~2    TXT");
}

static void test_tails_and_hash(void **state)
{
	uint16_t u[FAT_LFN_MAX + 1];
	int n;

	(void)state;
	n = u16("SomeStuff.aspx", u);
	/* Windows names it SOBC84~1.ASP */
	assert_int_equal(fat_sfn_hash(u, (size_t)n), 0xBC84);
	candidate("SomeStuff.aspx", 5, "SOBC84~1ASP");
	candidate("SomeStuff.aspx", 6, "SOBC84~2ASP");
	candidate("longfilename.txt", 1, "LONGFI~1TXT");
	candidate("longfilename.txt", 4, "LONGFI~4TXT");
	candidate("longfilename.txt", 14, "LONGF~10TXT");
	candidate("longfilename.txt", 1004, "LON~1000TXT");
	candidate("longfilename.txt", 999999 + 4, "L~999999TXT");
	candidate("x.txt", 999999 + 4, "X~999999TXT");
}

/* Six names with one basis in one directory: ~1..~4, then the hash form. */
static void test_collisions_in_tree(void **state)
{
	struct fat_tree *t = fat_tree_new(0);
	struct diag d;
	char path[64];

	(void)state;
	diag_init(&d);
	for (int i = 1; i <= 6; i++) {
		snprintf(path, sizeof(path), "/longfilename%d.txt", i);
		assert_int_equal(fat_tree_add_file(t, path, 0, NULL, NULL, &d), 0);
	}
	assert_int_equal(fat_tree_add_file(t, "/LONGFI~1.TXT", 0, NULL, NULL, &d), 0);
	assert_int_equal(fat_tree_prepare(t, &d), 0);
	/* sorted: LONGFI~1.TXT (a plain 8.3 name, kept) first, then longfilename1..6 */
	assert_memory_equal(t->root.kids[0]->sfn, "LONGFI~1TXT", 11);
	assert_int_equal(t->root.kids[0]->n_lfn, 0);
	assert_memory_equal(t->root.kids[1]->sfn, "LONGFI~2TXT", 11);
	assert_memory_equal(t->root.kids[3]->sfn, "LONGFI~4TXT", 11);
	assert_memory_equal(t->root.kids[4]->sfn, "LO", 2);
	assert_memory_equal(t->root.kids[4]->sfn + 6, "~1TXT", 5);
	assert_memory_equal(t->root.kids[5]->sfn + 6, "~1TXT", 5);
	assert_memory_not_equal(t->root.kids[4]->sfn, t->root.kids[5]->sfn, 11);
	assert_int_equal(t->root.kids[1]->n_lfn, 2);
	fat_tree_free(t);
	diag_release(&d);
}

static void expect_prepare_error(struct fat_tree *t, const char *needle)
{
	struct diag d;

	diag_init(&d);
	assert_int_equal(fat_tree_prepare(t, &d), -EINVAL);
	if (!diag_has(&d, needle)) {
		diag_print(&d, stderr, "test");
		fail_msg("no error containing \"%s\"", needle);
	}
	diag_release(&d);
	fat_tree_free(t);
}

static struct fat_tree *tree_with(const char *a, const char *b)
{
	struct fat_tree *t = fat_tree_new(0);
	struct fat_meta m = { .origin = "host/b" };
	struct diag d;

	diag_init(&d);
	assert_int_equal(fat_tree_add_file(t, a, 0, NULL, NULL, &d), 0);
	if (b)
		assert_int_equal(fat_tree_add_file(t, b, 0, NULL, &m, &d), 0);
	diag_release(&d);
	return t;
}

static void test_rejections(void **state)
{
	struct fat_tree *t = fat_tree_new(0);
	struct fat_source src = { .fd = -1 };
	struct diag d;

	(void)state;
	expect_prepare_error(tree_with("/dir/README", "/dir/readme"), "/dir/README and host/b");
	expect_prepare_error(tree_with("/x/\xc3\xa9.txt", "/x/\xc3\x89.TXT"), "as equal");
	expect_prepare_error(tree_with("/a/b*c", NULL), "/a/b*c: the name contains");
	expect_prepare_error(tree_with("/a/trailing.", NULL), "ends with a dot");
	expect_prepare_error(tree_with("/a/trailing ", NULL), "ends with a space");
	expect_prepare_error(tree_with("/bad\xff", NULL), "not valid UTF-8");
	diag_init(&d);
	assert_int_equal(fat_tree_add_file(t, "/big", 1ull << 32, &src, NULL, &d), -EFBIG);
	assert_true(diag_has(&d, "/big"));
	assert_int_equal(fat_tree_add_file(t, "/f", 0, NULL, NULL, &d), 0);
	assert_int_equal(fat_tree_add_file(t, "/f", 0, NULL, NULL, &d), -EEXIST);
	assert_int_equal(fat_tree_add_file(t, "/f/g", 0, NULL, NULL, &d), -EINVAL);
	assert_int_equal(fat_tree_add_dir(t, "/f", NULL, &d), -EINVAL);
	assert_int_equal(fat_tree_add_file(t, "/a/../b", 0, NULL, NULL, &d), -EINVAL);
	diag_release(&d);
	fat_tree_free(t);
}

/* 65,535 files with 8.3 names plus "." and "..": one entry too many for a directory. */
static void test_too_many_entries(void **state)
{
	struct fat_tree *t = fat_tree_new(0);
	struct diag d;
	char path[32];

	(void)state;
	diag_init(&d);
	for (int i = 0; i < 65535; i++) {
		snprintf(path, sizeof(path), "/d/F%05d", i);
		assert_int_equal(fat_tree_add_file(t, path, 0, NULL, NULL, &d), 0);
	}
	expect_prepare_error(t, "/d: 65537 directory entries");
	diag_release(&d);
}

static void test_root_entries_limit(void **state)
{
	struct fat_tree *t = fat_tree_new(0);
	struct fat_geom g;
	struct fat_opts o = { .type = FAT_16, .root_entries = 16, .label = "L" };
	struct diag d;
	uint32_t next;
	char path[32];

	(void)state;
	diag_init(&d);
	assert_int_equal(fat_params(&o, 300000 * 512ull, 0, &g, &d), 0);
	for (int i = 0; i < 15; i++) {
		snprintf(path, sizeof(path), "/F%d", i);
		assert_int_equal(fat_tree_add_file(t, path, 0, NULL, NULL, &d), 0);
	}
	assert_int_equal(fat_tree_alloc(t, &g, &next, &d), 0); /* 15 + the label = 16 */
	assert_int_equal(fat_tree_add_file(t, "/F15", 0, NULL, NULL, &d), 0);
	assert_int_equal(fat_tree_alloc(t, &g, &next, &d), -EINVAL);
	assert_true(diag_has(&d, "raise root-entries to 32"));
	fat_tree_free(t);
	diag_release(&d);
}

/* LFN entries as mtools writes them for "longfilename.txt" (checksum 0xD4). */
static void test_lfn_entries(void **state)
{
	static const uint8_t want[64] = {
		0x42, 0x74, 0,    0x78, 0,    0x74, 0,    0,    0,    0xff, 0xff, 0x0f, 0,
		0xd4, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0,    0,    0xff, 0xff, 0xff, 0xff, 0x01, 0x6c, 0,    0x6f, 0,    0x6e, 0,
		0x67, 0,    0x66, 0,    0x0f, 0,    0xd4, 0x69, 0,    0x6c, 0,    0x65, 0,
		0x6e, 0,    0x61, 0,    0x6d, 0,    0,    0,    0x65, 0,    0x2e, 0,
	};
	uint16_t u[FAT_LFN_MAX + 1];
	uint8_t e[64];
	int n = u16("longfilename.txt", u);

	(void)state;
	assert_int_equal(fat_lfn_checksum((const uint8_t *)"LONGFI~1TXT"), 0xD4);
	fat_put_lfn_entries(e, u, (size_t)n, (const uint8_t *)"LONGFI~1TXT");
	assert_memory_equal(e, want, 64);
	/* exactly 13 units: one entry, neither terminator nor padding */
	n = u16("abcdefghijklm", u);
	fat_put_lfn_entries(e, u, (size_t)n, (const uint8_t *)"ABCDEF~1   ");
	assert_int_equal(e[0], 0x41);
	assert_int_equal(e[30], 'm');
	/* an emoji keeps its surrogate pair */
	n = u16("\xf0\x9f\x98\x80", u);
	fat_put_lfn_entries(e, u, (size_t)n, (const uint8_t *)"_~1        ");
	assert_int_equal(e[1] | e[2] << 8, 0xD83D);
	assert_int_equal(e[3] | e[4] << 8, 0xDE00);
	assert_int_equal(e[5] | e[6] << 8, 0);
	assert_int_equal(e[7] | e[8] << 8, 0xFFFF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_problems),
		cmocka_unit_test(test_basis_and_case),
		cmocka_unit_test(test_tails_and_hash),
		cmocka_unit_test(test_collisions_in_tree),
		cmocka_unit_test(test_rejections),
		cmocka_unit_test(test_too_many_entries),
		cmocka_unit_test(test_root_entries_limit),
		cmocka_unit_test(test_lfn_entries),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
