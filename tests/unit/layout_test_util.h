/* SPDX-License-Identifier: MIT */
/* Helpers shared by the layouts/ unit tests (included by each test file). */
#ifndef SDIMG_TESTS_LAYOUT_TEST_UTIL_H
#define SDIMG_TESTS_LAYOUT_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "layouts/layouts.h"

static const struct layout_var test_vars[] = { { "BOARD", "rpi4" }, { "EMPTY", "" } };
static const struct layout_options test_opts = {
	.vars = test_vars,
	.n_vars = 2,
	.use_environment = false,
};

static inline void dump_diag(const struct diag *d)
{
	diag_print(d, stderr, "  diag");
}

/* Loads @text as "t.layout"; fails the test if it does not load. */
static inline struct layout *load_ok(const char *text)
{
	struct diag d;
	struct layout *l = NULL;

	diag_init(&d);
	if (layout_load_text("t.layout", text, &test_opts, &d, &l) != 0)
		dump_diag(&d);
	assert_non_null(l);
	assert_int_equal(d.errors, 0);
	diag_release(&d);
	return l;
}

/* Loads @text as "t.layout" with its inputs looked up in the folder "in"; fails the test if
 * it does not load. */
static inline struct layout *load_in(const char *text)
{
	static const char *const in_dir[] = { "in" };
	struct layout_options o = { .input_dirs = in_dir, .n_input_dirs = 1 };
	struct layout *l = NULL;
	struct diag d;

	diag_init(&d);
	if (layout_load_text("t.layout", text, &o, &d, &l) != 0)
		dump_diag(&d);
	diag_release(&d);
	assert_non_null(l);
	return l;
}

/* Loads @text and expects it to fail with an error line containing @needle. */
static inline void expect_error(const char *text, const char *needle)
{
	struct diag d;
	struct layout *l = NULL;

	diag_init(&d);
	int rc = layout_load_text("t.layout", text, &test_opts, &d, &l);
	if (rc == 0 || !diag_has(&d, needle)) {
		fprintf(stderr, "  expected an error containing: %s\n  got:\n", needle);
		dump_diag(&d);
	}
	assert_int_not_equal(rc, 0);
	assert_null(l);
	assert_true(diag_has(&d, needle));
	diag_release(&d);
}

#endif
