/* SPDX-License-Identifier: MIT */
/* Unit tests: the up-case table (exfat/upcase.c) and the checksums and name hash
 * (exfat/checksum.c) against the exFAT specification (§7.2.5.1, §3.4, §6.3.3, §7.6.4,
 * §7.2.2), with values worked out by hand from the algorithms. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/bytes.h"
#include "exfat/exfat.h"

/* The recommended table: 5,836 bytes, TableChecksum 0xE619D30D (§7.2.5.1). */
static void test_table_checksum(void **state)
{
	uint8_t t[EXFAT_UPCASE_BYTES];

	(void)state;
	exfat_upcase_table(t);
	assert_int_equal(exfat_table_checksum(t, sizeof(t)), 0xE619D30Du);
	assert_int_equal(EXFAT_UPCASE_CHECKSUM, 0xE619D30Du);
	assert_int_equal(EXFAT_UPCASE_BYTES, 5836);
	/* it starts with the identity of 0x0000..0x0060, then 'a'..'z' map to 'A'..'Z' */
	for (unsigned c = 0; c < 0x61; c++)
		assert_int_equal(get_le16(t + 2 * c), c);
	for (unsigned c = 'a'; c <= 'z'; c++)
		assert_int_equal(get_le16(t + 2 * c), c - 'a' + 'A');
}

/* Decompressing the table (§7.2.5.1: 0xFFFF then a count of units that map to themselves)
 * gives exfat_upcase() for every unit. */
static void test_table_is_the_mapping(void **state)
{
	uint8_t t[EXFAT_UPCASE_BYTES];
	uint32_t c = 0;

	(void)state;
	exfat_upcase_table(t);
	for (size_t i = 0; i < sizeof(t); i += 2) {
		uint16_t v = get_le16(t + i);
		if (v == 0xFFFF && c != 0xFFFF) {
			uint16_t n = get_le16(t + i + 2);
			for (uint32_t k = 0; k < n; k++, c++)
				assert_int_equal(exfat_upcase((uint16_t)c), c);
			i += 2;
			continue;
		}
		assert_int_equal(exfat_upcase((uint16_t)c), v);
		c++;
	}
	assert_int_equal(c, 0x10000);
}

static void test_upcase_samples(void **state)
{
	static const uint16_t pairs[][2] = {
		{ 'a', 'A' },       { 'z', 'Z' },       { 'A', 'A' },
		{ '0', '0' },       { 0x00E9, 0x00C9 }, /* é É */
		{ 0x00FF, 0x0178 },                     /* ÿ Ÿ */
		{ 0x00F7, 0x00F7 },                     /* ÷ */
		{ 0x0101, 0x0100 },                     /* ā Ā */
		{ 0x0100, 0x0100 }, { 0x03C9, 0x03A9 }, /* ω Ω */
		{ 0x03C2, 0x03A3 },                     /* final ς Σ */
		{ 0x0436, 0x0416 },                     /* ж Ж */
		{ 0x0450, 0x0400 }, { 0x0561, 0x0531 }, /* Armenian */
		{ 0x1E01, 0x1E00 }, { 0x24D0, 0x24B6 }, /* ⓐ Ⓐ */
		{ 0xFF41, 0xFF21 },                     /* ａ Ａ */
		{ 0x00DF, 0x00DF },                     /* ß has no single upper case */
		{ 0x4E2D, 0x4E2D }, { 0xD83D, 0xD83D }, /* a surrogate stays */
		{ 0xFFFF, 0xFFFF },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		assert_int_equal(exfat_upcase(pairs[i][0]), pairs[i][1]);
}

/* §3.4: byte 0 set to 1, all else 0: the 1 is rotated right once for each of the other
 * 5,628 bytes counted (5,632 less the 3 skipped), 5,628 = 175 * 32 + 28: 1 >> 28 rotated is
 * 1 << 4. VolumeFlags (106, 107) and PercentInUse (112) do not count. */
static void test_boot_checksum(void **state)
{
	static uint8_t region[11 * 512];

	(void)state;
	memset(region, 0, sizeof(region));
	region[0] = 1;
	assert_int_equal(exfat_boot_checksum(region), 0x10u);
	region[106] = region[107] = region[112] = 0xFF;
	assert_int_equal(exfat_boot_checksum(region), 0x10u);
	region[113] = 1; /* counted: the sum changes */
	assert_int_not_equal(exfat_boot_checksum(region), 0x10u);
}

/* §6.3.3: over 32 * count bytes without bytes 2 and 3. A set of one entry whose byte 0 is
 * 0x85 and byte 31 is 1: 0x85 is rotated right 29 times (bytes 1 and 4..30, 28 of them, and
 * 31), 0x85 = 1000 0101b rotated right 29 in 16 bits = rotated left 3 (29 mod 16 = 13 =
 * 16 - 3): 0x0428, plus 1 = 0x0429. Bytes 2 and 3 do not count. */
static void test_set_checksum(void **state)
{
	uint8_t e[32] = { 0 };

	(void)state;
	e[0] = 0x85;
	e[31] = 1;
	assert_int_equal(exfat_set_checksum(e, 1), 0x0429);
	e[2] = e[3] = 0xAB;
	assert_int_equal(exfat_set_checksum(e, 1), 0x0429);
}

/* §7.6.4: "A" = 0x0041: 0x41, then rotated (odd: 0x8000 + 0x20) plus 0x00 = 0x8020. */
static void test_name_hash(void **state)
{
	const uint16_t a[] = { 'A' }, ab[] = { 'A', 'B' };

	(void)state;
	assert_int_equal(exfat_name_hash(a, 1), 0x8020);
	/* then 0x8020 rotated (even) 0x4010 + 0x42 = 0x4052, rotated 0x2029 + 0 = 0x2029 */
	assert_int_equal(exfat_name_hash(ab, 2), 0x2029);
}

/* §7.2.2: 1, 2: 1, then rotated (odd) 0x80000000 + 2. */
static void test_table_checksum_by_hand(void **state)
{
	const uint8_t b[] = { 1, 2 };

	(void)state;
	assert_int_equal(exfat_table_checksum(b, 2), 0x80000002u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_checksum),
		cmocka_unit_test(test_table_is_the_mapping),
		cmocka_unit_test(test_upcase_samples),
		cmocka_unit_test(test_boot_checksum),
		cmocka_unit_test(test_set_checksum),
		cmocka_unit_test(test_name_hash),
		cmocka_unit_test(test_table_checksum_by_hand),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
