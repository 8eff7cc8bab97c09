/* SPDX-License-Identifier: MIT */
/* utf8: the UTF-8 codec (see utf8.h). */
#include "common/utf8.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of the UTF-8 sequence led by @c and the smallest code point it may encode
 * (RFC 3629 §3), or 0 when @c cannot lead a sequence. */
static int lead_length(unsigned char c, uint32_t *cp, uint32_t *min)
{
	static const struct {
		unsigned char mask, value, bits;
		uint32_t min;
	} leads[] = {
		{ 0x80, 0x00, 0x7F, 0 },
		{ 0xE0, 0xC0, 0x1F, 0x80 },
		{ 0xF0, 0xE0, 0x0F, 0x800 },
		{ 0xF8, 0xF0, 0x07, 0x10000 },
	};

	for (int i = 0; i < 4; i++)
		if ((c & leads[i].mask) == leads[i].value) {
			*cp = c & leads[i].bits;
			*min = leads[i].min;
			return i + 1;
		}
	return 0;
}

int utf8_decode(const char **s, uint32_t *ret_cp)
{
	const unsigned char *p = (const unsigned char *)*s;
	uint32_t cp, min;
	int len = lead_length(*p, &cp, &min);

	if (!len)
		return -EILSEQ;
	for (int i = 1; i < len; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return -EILSEQ;
		cp = (cp << 6) | (p[i] & 0x3F);
	}
	if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return -EILSEQ;
	*s += len;
	*ret_cp = cp;
	return 0;
}

int utf8_to_utf16(const char *s, uint16_t *out, size_t cap)
{
	size_t n = 0;

	while (*s) {
		uint32_t cp;
		if (utf8_decode(&s, &cp) < 0)
			return -EILSEQ;
		if (n + (cp > 0xFFFF ? 2 : 1) > cap)
			return -ENAMETOOLONG;
		if (cp > 0xFFFF) {
			cp -= 0x10000;
			out[n++] = (uint16_t)(0xD800 | (cp >> 10));
			out[n++] = (uint16_t)(0xDC00 | (cp & 0x3FF));
		} else {
			out[n++] = (uint16_t)cp;
		}
	}
	return (int)n;
}

long utf8_utf16_units(const char *s)
{
	long units = 0;

	while (*s) {
		uint32_t cp;
		if (utf8_decode(&s, &cp) < 0)
			return -EILSEQ;
		units += cp > 0xFFFF ? 2 : 1;
	}
	return units;
}

/* The code point at @in[*i] (advancing *i past it); a lone surrogate gives U+FFFD. */
static uint32_t utf16_next(const uint16_t *in, size_t n, size_t *i)
{
	uint32_t c = in[(*i)++];

	if (c >= 0xD800 && c <= 0xDBFF && *i < n && in[*i] >= 0xDC00 && in[*i] <= 0xDFFF)
		return 0x10000 + ((c - 0xD800) << 10) + (in[(*i)++] - 0xDC00);
	if (c >= 0xD800 && c <= 0xDFFF)
		return 0xFFFD;
	return c;
}

int utf8_from_utf16(const uint16_t *in, size_t n, char *out, size_t cap)
{
	static const uint8_t lead[] = { 0, 0, 0xC0, 0xE0, 0xF0 };
	size_t o = 0, i = 0;

	while (i < n) {
		uint32_t cp = utf16_next(in, n, &i);
		size_t len = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
		if (o + len + 1 > cap)
			return -ENAMETOOLONG;
		for (size_t k = len - 1; k > 0; k--, cp >>= 6)
			out[o + k] = (char)(0x80 | (cp & 0x3F));
		out[o] = (char)(len == 1 ? cp : (lead[len] | cp));
		o += len;
	}
	if (cap == 0)
		return -ENAMETOOLONG;
	out[o] = 0;
	return (int)o;
}

json_t *utf8_json_string(const char *s)
{
	json_t *j = json_string(s);

	if (j)
		return j;
	size_t len = strlen(s), n = 0;
	char *clean = malloc(len * 3 + 1);
	if (!clean)
		return NULL;
	while (*s) {
		const char *at = s;
		uint32_t cp;
		if (utf8_decode(&s, &cp) == 0) {
			memcpy(clean + n, at, (size_t)(s - at));
			n += (size_t)(s - at);
		} else {
			memcpy(clean + n, "\xEF\xBF\xBD", 3);
			n += 3;
			s++;
		}
	}
	clean[n] = '\0';
	j = json_string(clean);
	free(clean);
	return j;
}

/* Characters that print nothing or change the order of what follows (Unicode's C1
 * controls, zero-width and direction marks, the byte order mark): shown by number. */
static int invisible(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9F) || (cp >= 0x200B && cp <= 0x200F) ||
	       (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2060 && cp <= 0x206F) || cp == 0xFEFF;
}

/* The escape of code point @cp led by byte @c, or of the byte @c alone when it is no UTF-8
 * (!@valid), into @out: "" when it shows as itself. */
static void escape_one(unsigned char c, int valid, uint32_t cp, char out[16])
{
	static const char named[] = { '\n', 'n', '\r', 'r', '\t', 't' };

	out[0] = '\0';
	if (!valid) {
		snprintf(out, 16, "\\x%02X", c);
		return;
	}
	if (cp < 0x20 || cp == 0x7F) {
		for (size_t i = 0; i < sizeof(named); i += 2)
			if (named[i] == (char)cp) {
				snprintf(out, 16, "\\%c", named[i + 1]);
				return;
			}
		snprintf(out, 16, "\\x%02X", c);
	} else if (invisible(cp)) {
		snprintf(out, 16, "<U+%04X>", (unsigned)cp);
	}
}

const char *utf8_shown(const char *s, char *buf, size_t cap)
{
	static const char cut[] = "...";
	size_t n = 0, fit = 0; /* fit: the end of the last piece the cut mark may follow */

	if (cap < sizeof(cut))
		return cap ? memset(buf, 0, 1) : buf;
	while (*s) {
		const char *next = s;
		uint32_t cp = 0;
		char esc[16];
		int valid = utf8_decode(&next, &cp) == 0;

		if (!valid)
			next = s + 1;
		escape_one((unsigned char)*s, valid, cp, esc);
		size_t len = *esc ? strlen(esc) : (size_t)(next - s);
		if (n + len + 1 > cap) {
			memcpy(buf + fit, cut, sizeof(cut));
			return buf;
		}
		memcpy(buf + n, *esc ? esc : s, len);
		n += len;
		fit = n + sizeof(cut) <= cap ? n : fit;
		s = next;
	}
	buf[n] = '\0';
	return buf;
}
