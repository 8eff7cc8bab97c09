/* SPDX-License-Identifier: MIT */
/* Unit tests for common/diag: the lines a piece of work leaves for the user. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "common/diag.h"

#include <errno.h>
#include <wchar.h>

/* diag_take: a scratch diag's messages move to the end of another, in order, each at its
 * level, with the error count; the scratch is left empty and reusable. */
static void test_take(void **state)
{
	struct diag to, from;

	(void)state;
	diag_init(&to);
	diag_init(&from);
	diag_warning(&to, "first");
	diag_error(&from, "second %d", 2);
	diag_note(&from, "third");
	diag_error(&from, "fourth");
	diag_take(&to, &from);
	assert_int_equal(to.n, 4);
	assert_int_equal(to.errors, 2);
	assert_int_equal(to.msgs[1].level, DIAG_ERROR);
	assert_string_equal(to.msgs[1].text, "second 2");
	assert_int_equal(to.msgs[2].level, DIAG_NOTE);
	assert_string_equal(to.msgs[3].text, "fourth");
	assert_int_equal(from.n, 0);
	assert_int_equal(from.errors, 0);
	diag_error(&from, "again");
	assert_int_equal(from.n, 1);
	diag_release(&from);
	diag_release(&to);
}

/* diag_suffix: a count known later ends the line it belongs to; a line that is not there
 * (lost when memory ran out) is no error. */
static void test_suffix(void **state)
{
	struct diag d;

	(void)state;
	diag_init(&d);
	diag_error(&d, "a: dangling symbolic link");
	diag_error(&d, "b");
	assert_int_equal(diag_suffix(&d, 0, " (and 3 more)"), 0);
	assert_string_equal(d.msgs[0].text, "a: dangling symbolic link (and 3 more)");
	assert_string_equal(d.msgs[1].text, "b");
	assert_int_equal(diag_suffix(&d, 2, " (and 1 more)"), 0);
	assert_int_equal(d.n, 2);
	diag_release(&d);
}

/* diag_errno() returns the code it is given, diag_error() -EINVAL; both post one error line,
 * and errno is as it was, so that `-errno` after the line still names the failure. */
static void test_errno(void **state)
{
	struct diag d;

	(void)state;
	diag_init(&d);
	errno = ENOSPC;
	assert_int_equal(diag_errno(&d, -errno, "x: %s", strerror(errno)), -ENOSPC);
	assert_int_equal(errno, ENOSPC);
	/* a line that cannot be formatted (a lone surrogate: EILSEQ) leaves errno alone too */
	static const wchar_t lone[] = { 0xD800, 0 };
	assert_int_equal(diag_errno(&d, -errno, "%ls", lone), -ENOSPC);
	assert_int_equal(errno, ENOSPC);
	assert_int_equal(diag_errno(&d, -EIO, "y"), -EIO);
	assert_int_equal(diag_error(&d, "z %d", 1), -EINVAL);
	assert_int_equal(d.errors, 4);
	assert_true(diag_has(&d, "x: No space left on device"));
	assert_true(diag_has(&d, "z 1"));
	diag_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_take),
		cmocka_unit_test(test_suffix),
		cmocka_unit_test(test_errno),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
