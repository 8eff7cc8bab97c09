/* SPDX-License-Identifier: MIT */
/* Unit tests of mkimage/reader/ parts: names made visible, MBR records judged plausible, a
 * BPB judged valid (which together tell a bare FAT volume from an MBR). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/bytes.h"
#include "mkimage/reader/reader_priv.h"

static void expect_visible(const char *in, const char *want)
{
	char *got = reader_visible_dup(in);

	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_visible_escapes_controls(void **state)
{
	(void)state;
	expect_visible("plain name.txt", "plain name.txt");
	expect_visible("a\033[2Jb\007c\nd", "a\\x1b[2Jb\\x07c\\nd");
	expect_visible("tab\there\r\x7f", "tab\\there\\r\\x7f");
	expect_visible("back\\slash", "back\\\\slash");
	/* U+009B (CSI as one C1 character) escaped; U+00E9 and U+20AC kept */
	expect_visible("x\xc2\x9by \xc3\xa9 \xe2\x82\xac", "x\\u009by \xc3\xa9 \xe2\x82\xac");
	expect_visible("", "");
}

/* One MBR record at index @i of @s. */
static void record(uint8_t *s, unsigned i, uint8_t status, uint8_t type, uint32_t start,
		   uint32_t sectors)
{
	uint8_t *e = s + MBR_ENTRIES + i * MBR_ENTRY_SIZE;

	memset(e, 0, MBR_ENTRY_SIZE);
	e[MBR_ENT_BOOT] = status;
	e[MBR_ENT_TYPE] = type;
	put_le32(e + MBR_ENT_START_LBA, start);
	put_le32(e + MBR_ENT_SIZE_LBA, sectors);
}

static void test_mbr_plausible(void **state)
{
	uint8_t s[512] = { 0 };

	(void)state;
	s[510] = 0x55;
	s[511] = 0xAA;
	assert_false(reader_mbr_plausible(s, 1000)); /* no record at all */
	record(s, 0, 0x80, 0x0c, 8, 100);
	record(s, 1, 0x00, 0x83, 108, 892);
	assert_true(reader_mbr_plausible(s, 1000));
	assert_false(reader_mbr_plausible(s, 999)); /* the second ends past the disk */
	record(s, 1, 0x00, 0x83, 100, 100);
	assert_false(reader_mbr_plausible(s, 1000)); /* overlap */
	record(s, 1, 0x01, 0x83, 108, 100);
	assert_false(reader_mbr_plausible(s, 1000)); /* status neither 0x00 nor 0x80 */
	record(s, 1, 0x00, 0x83, 0, 100);
	assert_false(reader_mbr_plausible(s, 1000)); /* starts at sector 0 (mkfs.fat --mbr) */
	record(s, 1, 0x00, 0x00, 108, 100);
	assert_false(reader_mbr_plausible(s, 1000)); /* no type */
	record(s, 1, 0, 0, 0, 0);
	assert_true(reader_mbr_plausible(s, 1000)); /* unused records do not count */
	s[511] = 0;
	assert_false(reader_mbr_plausible(s, 1000)); /* no signature */
}

static void test_bpb_valid(void **state)
{
	uint8_t s[512] = { 0 };

	(void)state;
	/* a FAT12 boot sector as fatgen103 lays it out */
	s[0] = 0xEB, s[1] = 0x3C, s[2] = 0x90;
	put_le16(s + 11, 512);
	s[13] = 4;
	put_le16(s + 14, 1);
	s[16] = 2;
	put_le16(s + 17, 512);
	put_le16(s + 19, 16384);
	s[21] = 0xF8;
	put_le16(s + 22, 12);
	s[510] = 0x55, s[511] = 0xAA;
	assert_true(fat_boot_sector_valid(s));
	s[13] = 3; /* sectors per cluster not a power of two */
	assert_false(fat_boot_sector_valid(s));
	s[13] = 4, s[21] = 0x12; /* no media descriptor */
	assert_false(fat_boot_sector_valid(s));
	s[21] = 0xF0, s[0] = 0xFA; /* no jump: x86 MBR boot code starts with cli */
	assert_false(fat_boot_sector_valid(s));
	s[0] = 0xEB, s[14] = 0; /* no reserved sector */
	assert_false(fat_boot_sector_valid(s));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_visible_escapes_controls),
		cmocka_unit_test(test_mbr_plausible),
		cmocka_unit_test(test_bpb_valid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
