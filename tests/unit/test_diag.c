/* Unit tests for common/diag: the lines a piece of work leaves for the user. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "common/diag.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_take),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
