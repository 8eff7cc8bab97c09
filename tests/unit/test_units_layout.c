/* SPDX-License-Identifier: MIT */
/* Unit tests: sizes as layouts write them (common/units: units_layout), read back by the
 * layout's own size parser. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/units.h"
#include "layouts/values.h"

/* The largest unit that holds the size whole, else bytes. */
static void test_units_layout_text(void **state)
{
	static const struct {
		uint64_t bytes;
		const char *text;
	} cases[] = {
		{ 0, "0" },
		{ 512, "512" },
		{ 1023, "1023" },
		{ 1024, "1K" },
		{ 1536, "1536" },
		{ 1536 * 1024, "1536K" },
		{ 4u << 20, "4M" },
		{ 3ull << 30, "3G" },
		{ 1ull << 40, "1T" },
		{ 1ull << 50, "1024T" },
		{ (5ull << 40) + 1024, "5368709121K" },
		{ UINT64_MAX, "18446744073709551615" },
	};
	char buf[32];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(units_layout(cases[i].bytes, buf, sizeof(buf)), cases[i].text);
}

/* What units_layout() writes, a layout reads as the same number of bytes. */
static void test_units_layout_round_trip(void **state)
{
	static const uint64_t sizes[] = {
		0,          1,
		511,        512,
		4096,       1 << 20,
		3u << 20,   (1 << 20) + 512,
		7ull << 30, (2ull << 40) + (3u << 20),
		123456789,  1ull << 59,
	};
	char buf[32];

	(void)state;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct why why = { "" };
		uint64_t back = 0;
		units_layout(sizes[i], buf, sizeof(buf));
		assert_int_equal(layout_value_size(buf, &back, &why), 0);
		assert_int_equal(back, sizes[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_units_layout_text),
		cmocka_unit_test(test_units_layout_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
