/* SPDX-License-Identifier: MIT */
/* Unit tests for common/arena: pieces from large blocks, given back at once or newest first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "common/arena.h"

/* Pieces are zeroed, aligned as asked, and hold what was copied into them, across blocks. */
static void test_alloc(void **state)
{
	struct arena a = { 0 };
	char *first = arena_strdup(&a, "first");

	(void)state;
	assert_non_null(first);
	for (int i = 0; i < 10000; i++) {
		uint64_t *v = arena_alloc(&a, 24, 8);
		assert_non_null(v);
		assert_int_equal((uintptr_t)v % 8, 0);
		assert_int_equal(v[0] | v[1] | v[2], 0);
		v[0] = (uint64_t)i;
	}
	char *s = arena_strndup(&a, "abcdef", 3);
	assert_string_equal(s, "abc");
	assert_string_equal(first, "first");
	/* a piece larger than a block gets one of its own */
	unsigned char *big = arena_alloc(&a, 3 * ARENA_BLOCK, 16);
	assert_non_null(big);
	assert_int_equal((uintptr_t)big % 16, 0);
	assert_int_equal(big[3 * ARENA_BLOCK - 1], 0);
	assert_string_equal(arena_strdup(&a, "after"), "after");
	arena_free(&a);
	assert_null(a.last);
}

/* Popping to a piece gives it back with all after it; older pieces stay, and the next piece
 * takes its place. */
static void test_pop(void **state)
{
	struct arena a = { 0 };
	char *keep[100], *mark = NULL;

	(void)state;
	for (int i = 0; i < 100; i++)
		keep[i] = arena_strdup(&a, "kept");
	for (int i = 0; i < 20000; i++) {
		char *p = arena_strdup(&a, "dropped later");
		assert_non_null(p);
		if (!mark)
			mark = p;
	}
	arena_pop_to(&a, mark);
	for (int i = 0; i < 100; i++)
		assert_string_equal(keep[i], "kept");
	assert_ptr_equal(arena_strdup(&a, "next"), mark);
	arena_pop_to(&a, keep[0]);
	assert_ptr_equal(arena_strdup(&a, "again"), keep[0]);
	arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alloc),
		cmocka_unit_test(test_pop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
