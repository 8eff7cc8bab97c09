/* SPDX-License-Identifier: MIT */
/* Unit tests: the UTF-8 codec every module uses (common/utf8). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <jansson.h>

#include "common/utf8.h"

static int u16(const char *s, uint16_t *out)
{
	return utf8_to_utf16(s, out, 256);
}

static void test_utf8_to_utf16(void **state)
{
	uint16_t u[256];
	char back[1024];

	(void)state;
	assert_int_equal(u16("a\xc3\xa9\xe2\x82\xac", u), 3); /* a, e-acute, euro */
	assert_int_equal(u[1], 0xE9);
	assert_int_equal(u[2], 0x20AC);
	assert_int_equal(u16("\xf0\x9f\x98\x80", u), 2); /* U+1F600: a surrogate pair */
	assert_int_equal(u[0], 0xD83D);
	assert_int_equal(u[1], 0xDE00);
	assert_int_equal(utf8_from_utf16(u, 2, back, sizeof(back)), 4);
	assert_string_equal(back, "\xf0\x9f\x98\x80");
	assert_int_equal(u16("\xc0\xaf", u), -EILSEQ);         /* overlong '/' */
	assert_int_equal(u16("\xed\xa0\x80", u), -EILSEQ);     /* encoded surrogate */
	assert_int_equal(u16("\xe2\x82", u), -EILSEQ);         /* truncated */
	assert_int_equal(u16("\xf4\x90\x80\x80", u), -EILSEQ); /* above U+10FFFF */
	assert_int_equal(u16("\xff", u), -EILSEQ);
	assert_int_equal(utf8_to_utf16("abc", u, 2), -ENAMETOOLONG);
	u[0] = 0xD800; /* a lone surrogate reads back as U+FFFD */
	assert_int_equal(utf8_from_utf16(u, 1, back, sizeof(back)), 3);
	assert_string_equal(back, "\xef\xbf\xbd");
}

static void test_utf16_units(void **state)
{
	(void)state;
	assert_int_equal(utf8_utf16_units(""), 0);
	assert_int_equal(utf8_utf16_units("boot"), 4);
	assert_int_equal(utf8_utf16_units("a\xc3\xa9\xf0\x9f\x98\x80"), 4); /* 1 + 1 + a pair */
	assert_int_equal(utf8_utf16_units("x\xed\xa0\x80y"), -EILSEQ);      /* encoded surrogate */
	assert_int_equal(utf8_utf16_units("\xc0\xaf"), -EILSEQ);            /* overlong */
	assert_int_equal(utf8_utf16_units("\xe0\x80\xaf"), -EILSEQ);        /* overlong, 3 bytes */
	assert_int_equal(utf8_utf16_units("\x80"), -EILSEQ); /* a lone continuation */
}

static void test_decode_leaves_bad_input(void **state)
{
	const char *s = "\xe2\x82";
	uint32_t cp = 7;

	(void)state;
	assert_int_equal(utf8_decode(&s, &cp), -EILSEQ);
	assert_string_equal(s, "\xe2\x82");
	assert_int_equal(cp, 7);
	s = "\xe2\x82\xacz";
	assert_int_equal(utf8_decode(&s, &cp), 0);
	assert_int_equal(cp, 0x20AC);
	assert_string_equal(s, "z");
}

/* jansson refuses invalid UTF-8: the JSON text keeps every valid character, and each byte
 * that is no UTF-8 becomes U+FFFD, so that no key of a report goes missing. */
static void test_json_string(void **state)
{
	json_t *j;

	(void)state;
	j = utf8_json_string("a\xc3\xa9\n");
	assert_non_null(j);
	assert_string_equal(json_string_value(j), "a\xc3\xa9\n");
	json_decref(j);
	j = utf8_json_string("/dev/x\xff\xe2\x82y\xc3\xa9");
	assert_non_null(j);
	assert_string_equal(json_string_value(j),
			    "/dev/x\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdy\xc3\xa9");
	json_decref(j);
	j = utf8_json_string("");
	assert_non_null(j);
	assert_string_equal(json_string_value(j), "");
	json_decref(j);
}

/* A message quotes text on one line: printable UTF-8 as is, control characters and bytes
 * that are no UTF-8 escaped, invisible characters by number, a long text cut with "...". */
static void test_shown(void **state)
{
	static const struct {
		const char *in, *shown; /* shown in 16 bytes */
	} cases[] = {
		{ "boot \xc3\xa9", "boot \xc3\xa9" },
		{ "5\n\t\r", "5\\n\\t\\r" },
		{ "\x1b\x7f\xef", "\\x1B\\x7F\\xEF" },
		{ "\xef\xbb\xbfimage", "<U+FEFF>image" },
		{ "\xc2\x85", "<U+0085>" },
		{ "a\xe2\x80\xae", "a<U+202E>" },
		{ "0123456789abcde", "0123456789abcde" },
		{ "0123456789abcdef", "0123456789ab..." },
		{ "0123456789\n", "0123456789\\n" },
		{ "0123456789\nxy\n", "0123456789\\n..." },
		{ "0123456789ab\xff", "0123456789ab..." },
		{ "", "" },
	};
	char buf[16];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(utf8_shown(cases[i].in, buf, sizeof(buf)), cases[i].shown);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8_to_utf16),
		cmocka_unit_test(test_utf16_units),
		cmocka_unit_test(test_decode_leaves_bad_input),
		cmocka_unit_test(test_json_string),
		cmocka_unit_test(test_shown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
