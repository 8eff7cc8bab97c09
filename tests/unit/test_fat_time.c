/* SPDX-License-Identifier: MIT */
/* Unit tests: DOS date/time encoding in UTC, whatever TZ says, with clamping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include <cmocka.h>

#include "fat/fat.h"

struct dos {
	uint16_t date, time;
	uint8_t tenth;
	int clamped;
};

static struct dos enc(int64_t t, uint32_t ns)
{
	struct dos r;

	r.clamped = fat_dos_time(t, ns, &r.date, &r.time, &r.tenth);
	return r;
}

static uint16_t date(int y, int m, int d)
{
	return (uint16_t)(((y - 1980) << 9) | (m << 5) | d);
}

static uint16_t hms(int h, int m, int s)
{
	return (uint16_t)((h << 11) | (m << 5) | (s / 2));
}

static void check_known(void)
{
	struct dos r = enc(315532800, 0); /* 1980-01-01 00:00:00 UTC */

	assert_int_equal(r.date, date(1980, 1, 1));
	assert_int_equal(r.time, 0);
	assert_int_equal(r.clamped, 0);
	r = enc(951827696, 780000000); /* 2000-02-29 12:34:56.78 UTC */
	assert_int_equal(r.date, date(2000, 2, 29));
	assert_int_equal(r.time, hms(12, 34, 56));
	assert_int_equal(r.tenth, 78);
	r = enc(951827697, 5000000); /* odd second: the tenths field carries it */
	assert_int_equal(r.time, hms(12, 34, 56));
	assert_int_equal(r.tenth, 100);
	r = enc(1700000000, 0); /* 2023-11-14 22:13:20 UTC */
	assert_int_equal(r.date, date(2023, 11, 14));
	assert_int_equal(r.time, hms(22, 13, 20));
	r = enc(4354819199, 0); /* 2107-12-31 23:59:59: the last DOS second */
	assert_int_equal(r.date, date(2107, 12, 31));
	assert_int_equal(r.time, hms(23, 59, 58));
	assert_int_equal(r.tenth, 100);
	assert_int_equal(r.clamped, 0);
}

static void test_known_values_in_time_zones(void **state)
{
	static const char *zones[] = { "UTC",          "America/New_York",
				       "Asia/Kolkata", "Pacific/Chatham",
				       "EST5EDT",      "<+14>-14" };

	(void)state;
	for (size_t i = 0; i < sizeof(zones) / sizeof(zones[0]); i++) {
		setenv("TZ", zones[i], 1);
		tzset();
		check_known();
	}
	unsetenv("TZ");
	tzset();
}

static void test_clamping(void **state)
{
	struct dos r;

	(void)state;
	r = enc(0, 0); /* 1970: before FAT's epoch */
	assert_int_equal(r.clamped, 1);
	assert_int_equal(r.date, date(1980, 1, 1));
	assert_int_equal(r.time, 0);
	assert_int_equal(r.tenth, 0);
	r = enc(-1000000000, 0);
	assert_int_equal(r.clamped, 1);
	assert_int_equal(r.date, date(1980, 1, 1));
	r = enc(315532799, 999999999);
	assert_int_equal(r.clamped, 1);
	r = enc(4354819200, 0); /* 2108-01-01 */
	assert_int_equal(r.clamped, 1);
	assert_int_equal(r.date, date(2107, 12, 31));
	assert_int_equal(r.time, hms(23, 59, 58));
}

static void test_decode(void **state)
{
	(void)state;
	assert_int_equal(fat_dos_time_decode(date(1980, 1, 1), 0), 315532800);
	assert_int_equal(fat_dos_time_decode(date(2000, 2, 29), hms(12, 34, 56)), 951827696);
	assert_int_equal(fat_dos_time_decode(date(2023, 11, 14), hms(22, 13, 20)), 1700000000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_values_in_time_zones),
		cmocka_unit_test(test_clamping),
		cmocka_unit_test(test_decode),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
