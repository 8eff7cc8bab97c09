/* SPDX-License-Identifier: MIT */
/* Unit tests: libraries loaded when first needed (common/dynlib). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/dynlib.h"
#include "mkimage/contents/contents.h"

/* zlib is one of the libraries sdimg links, so it is there wherever this test runs. */
#define PRESENT "libz.so.1"
#define ABSENT "libsdimg-absent.so.0"

static void test_dynlib_open_and_symbol(void **state)
{
	struct dynlib lib = { 0 };
	struct diag d;

	(void)state;
	diag_init(&d);
	assert_int_equal(dynlib_open(&lib, PRESENT, "compressed output", &d), 0);
	assert_non_null(dynlib_symbol(&lib, PRESENT, "zlibVersion", &d));
	assert_int_equal(d.n, 0);
	dynlib_close(&lib);
	assert_null(lib.handle);
	dynlib_close(&lib); /* twice is harmless */
	diag_release(&d);
}

static void test_dynlib_missing_library(void **state)
{
	struct dynlib lib = { 0 };
	struct diag d;

	(void)state;
	diag_init(&d);
	assert_int_equal(dynlib_open(&lib, ABSENT, "archive trees", &d), -ELIBACC);
	assert_null(lib.handle);
	assert_int_equal(d.n, 1);
	/* one line: the feature, the library, the loader's reason without the name again */
	assert_string_equal(d.msgs[0].text,
			    "archive trees need " ABSENT ", which cannot be loaded: cannot open "
			    "shared object file: No such file or directory");
	dynlib_close(&lib);
	diag_release(&d);
}

static void test_dynlib_missing_symbol(void **state)
{
	struct dynlib lib = { 0 };
	struct diag d;

	(void)state;
	diag_init(&d);
	assert_int_equal(dynlib_open(&lib, PRESENT, "compressed output", &d), 0);
	assert_null(dynlib_symbol(&lib, PRESENT, "sdimg_no_such_symbol", &d));
	assert_int_equal(d.n, 1);
	assert_string_equal(d.msgs[0].text, PRESENT " has no sdimg_no_such_symbol: a version "
						    "this sdimg was not built for");
	dynlib_close(&lib);
	diag_release(&d);
}

/* The note a packaging tool reads: owner, type, sizes and JSON as the specification has them. */
DYNLIB_NOTE(test_note, "archives", "reading trees from archives", "recommended", "libx.so.1");

static void test_dynlib_note(void **state)
{
	static const char json[] = "[{\"feature\":\"archives\",\"description\":\"reading trees "
				   "from archives\",\"priority\":\"recommended\",\"soname\":"
				   "[\"libx.so.1\"]}]";

	(void)state;
	assert_int_equal(test_note.namesz, 4);
	assert_string_equal(test_note.owner, "FDO");
	assert_int_equal(test_note.type, 0x407c0c0a);
	assert_int_equal(test_note.descsz, sizeof(json));
	assert_string_equal(test_note.desc, json);
	assert_int_equal(sizeof(test_note.desc) % 4, 0);
	assert_int_equal((uintptr_t)&test_note % 4, 0);
}

/* libarchive's table: every member resolved from the library the program was built with. */
static void test_content_archive_lib(void **state)
{
	struct content_archive_lib lib = { .dl = { NULL } };
	struct archive *a;
	struct diag d;

	(void)state;
	diag_init(&d);
	assert_int_equal(content_archive_lib_open(&lib, "archive trees", &d), 0);
	assert_int_equal(d.n, 0);
#define CHECK_MEMBER(name) assert_non_null(lib.name);
	CONTENT_ARCHIVE_FUNCS(CHECK_MEMBER)
#undef CHECK_MEMBER
	assert_non_null(a = lib.archive_read_new());
	content_archive_support(&lib, a);
	assert_int_equal(lib.archive_read_free(a), ARCHIVE_OK);
	content_archive_lib_close(&lib);
	assert_null(lib.dl.handle);
	assert_null(lib.archive_read_new);
	content_archive_lib_close(&lib); /* twice is harmless */
	diag_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dynlib_open_and_symbol),
		cmocka_unit_test(test_dynlib_missing_library),
		cmocka_unit_test(test_dynlib_missing_symbol),
		cmocka_unit_test(test_dynlib_note),
		cmocka_unit_test(test_content_archive_lib),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
