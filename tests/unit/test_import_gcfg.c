/* SPDX-License-Identifier: MIT */
/* Unit tests: the parser of genimage's configuration language (mkimage/importer/gcfg). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mkimage/importer/gcfg.h"

static const char *const sets[] = { "NAME=rootfs", "SIZE=64" };
static const struct import_options opts = { .sets = sets, .n_sets = 2 };

static struct gcfg_node *parse_ok(const char *text)
{
	struct gcfg_node *root = NULL;
	struct diag d;

	diag_init(&d);
	if (import_gcfg_parse_text("/nonexistent/g.cfg", text, strlen(text), &opts, &d, &root)) {
		for (size_t i = 0; i < d.n; i++)
			fprintf(stderr, "%s\n", d.msgs[i].text);
		fail_msg("refused: %s", text);
	}
	diag_release(&d);
	return root;
}

/* @text is refused with one error holding @msg. */
static void parse_refused(const char *text, const char *msg)
{
	struct gcfg_node *root = NULL;
	struct diag d;

	diag_init(&d);
	assert_int_not_equal(import_gcfg_parse_text("/nonexistent/g.cfg", text, strlen(text), &opts,
						    &d, &root),
			     0);
	assert_null(root);
	assert_int_equal(d.errors, 1);
	if (!strstr(d.msgs[0].text, msg))
		fail_msg("'%s' lacks '%s'", d.msgs[0].text, msg);
	diag_release(&d);
}

static void test_sections_keys_lists(void **state)
{
	(void)state;
	struct gcfg_node *root = parse_ok(
		"# a comment\n"
		"image boot.vfat { /* across\nlines */\n"
		"  vfat { files = { \"a\", b, 'c d' } label = BOOT }\n"
		"  size = 8M // to the end\n"
		"}\n"
		"image \"sd.img\" { hdimage {} partition p { offset = 0x2000 } }\n");
	assert_int_equal(root->n_kids, 2);
	const struct gcfg_node *img = &root->kids[0];
	assert_true(img->section);
	assert_string_equal(img->name, "image");
	assert_string_equal(img->title, "boot.vfat");
	assert_int_equal(img->line, 2);
	assert_string_equal(import_gcfg_str(img, "size"), "8M");
	assert_int_equal(import_gcfg_key(img, "size")->line, 5);
	const struct gcfg_node *files = import_gcfg_key(&img->kids[0], "files");
	assert_non_null(files);
	assert_true(files->list);
	assert_int_equal(files->n_values, 3);
	assert_string_equal(files->values[1], "b");
	assert_string_equal(files->values[2], "c d");
	assert_string_equal(import_gcfg_str(&img->kids[0], "label"), "BOOT");
	assert_string_equal(root->kids[1].title, "sd.img");
	assert_string_equal(root->kids[1].kids[1].title, "p");
	import_gcfg_free(root);
}

static void test_variables(void **state)
{
	(void)state;
	setenv("GCFG_TEST_ENV", "from-env", 1);
	setenv("NAME", "not-this", 1);
	struct gcfg_node *root = parse_ok("a = \"${NAME}.ext4\"\n"
					  "b = ${GCFG_TEST_ENV}\n"
					  "c = \"${UNSET_GCFG:-${SIZE}}M\"\n"
					  "d = '${NAME}'\n"
					  "e = \"\\${NAME}\"\n");
	assert_string_equal(import_gcfg_str(root, "a"), "rootfs.ext4");
	assert_string_equal(import_gcfg_str(root, "b"), "from-env");
	assert_string_equal(import_gcfg_str(root, "c"), "64M");
	assert_string_equal(import_gcfg_str(root, "d"), "${NAME}");
	assert_string_equal(import_gcfg_str(root, "e"), "${NAME}");
	import_gcfg_free(root);
}

static void test_refused(void **state)
{
	(void)state;
	parse_refused("a = \"${NOPE_GCFG}\"", "g.cfg:1: variable ${NOPE_GCFG} is not set");
	parse_refused("image x {\n  size = \n}", "g.cfg:3: expected a value or '{', found '}'");
	parse_refused("image x {\n", "g.cfg:2: expected a key, a section or '}', found the end");
	parse_refused("a = \"open\n\n", "g.cfg:1: a string without its closing quote");
	parse_refused("/* never\nclosed", "g.cfg:1: '/*' comment without its '*/'");
	parse_refused("a += b", "g.cfg:1: '+=' is not supported");
	parse_refused("\n\ninclude(\"none.cfg\")", "g.cfg:3: include(\"/nonexistent/none.cfg\")");
	parse_refused("a = \"\\q\"", "g.cfg:1: unknown escape");
	parse_refused("a = b c", "g.cfg:1: expected '=' or '{', found the end of the file");
}

static void test_sizes_and_bools(void **state)
{
	(void)state;
	uint64_t v;
	bool b;

	assert_int_equal(import_gcfg_size("32K", &v), 0);
	assert_int_equal(v, 32768);
	assert_int_equal(import_gcfg_size("1M", &v), 0);
	assert_int_equal(v, 1u << 20);
	assert_int_equal(import_gcfg_size("0x100", &v), 0);
	assert_int_equal(v, 256);
	assert_int_equal(import_gcfg_size("8s", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(import_gcfg_size("4g", &v), 0);
	assert_int_equal(v, 4ull << 30);
	assert_int_not_equal(import_gcfg_size("4X", &v), 0);
	assert_int_not_equal(import_gcfg_size("M", &v), 0);
	assert_int_not_equal(import_gcfg_size("99999999999999999999T", &v), 0);
	assert_int_equal(import_gcfg_bool("Yes", &b), 0);
	assert_true(b);
	assert_int_equal(import_gcfg_bool("off", &b), 0);
	assert_false(b);
	assert_int_not_equal(import_gcfg_bool("maybe", &b), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sections_keys_lists),
		cmocka_unit_test(test_variables),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_sizes_and_bools),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
