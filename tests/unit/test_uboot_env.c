/* SPDX-License-Identifier: MIT */
/* Unit tests: U-Boot environments (common/uboot_env): mkenvimage's text, the bytes of a copy
 * (against bytes mkenvimage wrote), reading a copy back, and which copy U-Boot boots with. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cmocka.h>

#include "common/uboot_env.h"

static void parse_ok(const char *text, struct uboot_env *e)
{
	struct diag d;

	diag_init(&d);
	assert_int_equal(uboot_env_parse_text(e, text, strlen(text), "env.txt", &d), 0);
	assert_int_equal(d.n, 0);
	diag_release(&d);
}

/* @text is refused with one message holding @want. */
static void parse_bad(const char *text, size_t len, const char *want)
{
	struct uboot_env e = { 0 };
	struct diag d;

	diag_init(&d);
	assert_int_equal(uboot_env_parse_text(&e, text, len, "env.txt", &d), -EINVAL);
	assert_int_equal(d.n, 1);
	if (!strstr(d.msgs[0].text, want))
		fail_msg("'%s' lacks '%s'", d.msgs[0].text, want);
	diag_release(&d);
	uboot_env_release(&e);
}

static void test_text(void **state)
{
	struct uboot_env e = { 0 };

	(void)state;
	parse_ok("# a comment\nbootdelay=3\n\n\nbootcmd=run a; \\\n run b\n#x=1\nempty=\nlast=a=b",
		 &e);
	assert_int_equal(e.n, 4);
	assert_string_equal(e.vars[0].name, "bootdelay");
	assert_int_equal(e.vars[0].line, 2);
	assert_string_equal(e.vars[1].value, "run a; \n run b");
	assert_int_equal(e.vars[1].line, 5);
	assert_string_equal(e.vars[2].value, "");
	assert_string_equal(e.vars[3].name, "last");
	assert_string_equal(e.vars[3].value, "a=b"); /* the name ends at the first '=' */
	uboot_env_release(&e);
	parse_bad("a=1\nnoequal\n", 12, "env.txt:2: 'noequal' is not name=value");
	parse_bad("a=1\n   \n", 8, "env.txt:2:");
	parse_bad("a=1\r\n", 5, "env.txt:1: a carriage return");
	parse_bad("a=1\nb=\0\n", 8, "env.txt:2: a NUL byte");
	parse_bad("=x\n", 3, "env.txt:1: the variable's name is empty");
	parse_bad("a=1\nb=2\na=3\n", 12, "env.txt:3: 'a' is set twice (line 1 and line 3)");
}

/* The bytes `printf 'a=1' | mkenvimage -s 16 -o - -` writes (u-boot-tools 2023.01). */
static const uint8_t mkenvimage_a1[16] = { 0x86, 0x0f, 0xc0, 0xce, 'a',  '=',  '1',  0,
					   0,    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

static void test_encode(void **state)
{
	struct uboot_env e = { 0 };
	uint8_t buf[64];

	(void)state;
	parse_ok("a=1", &e);
	assert_int_equal(uboot_env_data_bytes(&e), 5);
	assert_int_equal(uboot_env_encode(&e, buf, 16, false, 0, UBOOT_ENV_PAD), 0);
	assert_memory_equal(buf, mkenvimage_a1, 16);
	/* a copy just large enough, and one byte less (mkenvimage refuses 8 for "a=1") */
	assert_int_equal(uboot_env_encode(&e, buf, 9, false, 0, 0), 0);
	assert_int_equal(uboot_env_encode(&e, buf, 8, false, 0, 0), -ENOSPC);
	assert_int_equal(uboot_env_encode(&e, buf, 9, true, 1, 0), -ENOSPC);
	/* redundant: the flags byte after the CRC, the CRC over what follows it */
	assert_int_equal(uboot_env_encode(&e, buf, 32, true, 7, 0), 0);
	assert_int_equal(buf[4], 7);
	assert_memory_equal(buf + 5, "a=1\0\0", 5);
	uint32_t crc = (uint32_t)crc32(0, buf + 5, 27);
	assert_int_equal(buf[0] | buf[1] << 8 | buf[2] << 16 | (uint32_t)buf[3] << 24, crc);
	uboot_env_release(&e);
}

static void test_read_copy(void **state)
{
	struct uboot_env e = { 0 }, back = { 0 };
	struct uboot_env_copy c;
	struct diag d;
	uint8_t buf[64];

	(void)state;
	diag_init(&d);
	parse_ok("x=1\ny=2=3\n", &e);
	assert_int_equal(uboot_env_encode(&e, buf, sizeof(buf), true, 1, 0xff), 0);
	uboot_env_read_copy(buf, sizeof(buf), true, &c);
	assert_true(c.crc_ok);
	assert_true(c.ended);
	assert_int_equal(c.flags, 1);
	assert_int_equal(c.used, 11);
	assert_int_equal(uboot_env_copy_vars(&c, &back, &d), 0);
	assert_int_equal(back.n, 2);
	assert_string_equal(back.vars[1].value, "2=3");
	uboot_env_release(&back);
	buf[20] ^= 1; /* one bit of the padding: the CRC fails, the data still reads */
	uboot_env_read_copy(buf, sizeof(buf), true, &c);
	assert_false(c.crc_ok);
	/* no end: the data runs to the end of the copy */
	memset(buf + 4, 'z', sizeof(buf) - 4);
	uboot_env_read_copy(buf, sizeof(buf), false, &c);
	assert_false(c.ended);
	assert_int_equal(c.used, 60);
	assert_int_equal(uboot_env_copy_vars(&c, &back, &d), -EINVAL);
	assert_int_equal(d.n, 1);
	/* an entry without '=' is named by its byte in the copy and in the data */
	memcpy(buf + 4, "a=1\0noeq\0b=2\0\0", 15);
	uboot_env_read_copy(buf, sizeof(buf), false, &c);
	uboot_env_release(&back);
	assert_int_equal(uboot_env_copy_vars(&c, &back, &d), -EINVAL);
	assert_non_null(strstr(d.msgs[1].text, "the entry at byte 8 of the copy (4 of its data)"));
	/* a copy no larger than its header holds no data */
	uboot_env_read_copy(buf, 5, true, &c);
	assert_null(c.data);
	uboot_env_release(&back);
	uboot_env_release(&e);
	diag_release(&d);
}

static void test_active(void **state)
{
	struct uboot_env_copy a = { .crc_ok = true }, b = { .crc_ok = true };
	static const struct {
		uint8_t f1, f2;
		bool ok1, ok2;
		int want;
	} cases[] = {
		{ 1, 0, true, true, 0 },   { 0, 1, true, true, 1 },  { 255, 0, true, true, 1 },
		{ 0, 255, true, true, 0 }, { 5, 5, true, true, 0 },  { 9, 2, true, true, 0 },
		{ 1, 0, false, true, 1 },  { 0, 1, true, false, 0 }, { 1, 1, false, false, -1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		a.flags = cases[i].f1;
		b.flags = cases[i].f2;
		a.crc_ok = cases[i].ok1;
		b.crc_ok = cases[i].ok2;
		assert_int_equal(uboot_env_active(&a, &b), cases[i].want);
	}
}

static void test_names(void **state)
{
	(void)state;
	assert_null(uboot_env_name_problem("serial#"));
	assert_non_null(uboot_env_name_problem(""));
	assert_non_null(uboot_env_name_problem("a=b"));
	assert_non_null(uboot_env_name_problem("a\nb"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),      cmocka_unit_test(test_encode),
		cmocka_unit_test(test_read_copy), cmocka_unit_test(test_active),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
