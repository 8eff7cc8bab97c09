/* SPDX-License-Identifier: MIT */
/* fat/name: long and short names (see name_priv.h). */
#include "fat/name_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"
#include "fat/fat.h"

const char *fat_name_problem(const uint16_t *u, size_t n)
{
	static const char bad[] = "\"*/:<>?\\|";

	if (n == 0)
		return "is empty";
	if ((n == 1 && u[0] == '.') || (n == 2 && u[0] == '.' && u[1] == '.'))
		return "is a dot name";
	if (n > FAT_LFN_MAX)
		return "is longer than 255 UTF-16 units";
	for (size_t i = 0; i < n; i++) {
		if (u[i] < 0x20)
			return "contains a control character";
		if (u[i] < 0x80 && strchr(bad, u[i]))
			return "contains one of \" * / : < > ? \\ |";
	}
	if (u[n - 1] == '.')
		return "ends with a dot (FAT drivers strip it)";
	if (u[n - 1] == ' ')
		return "ends with a space (FAT drivers strip it)";
	return NULL;
}

uint16_t fat_upcase(uint16_t c)
{
	if (c >= 'a' && c <= 'z')
		return c - 32;
	if (c < 0xE0)
		return c;
	if (c <= 0xFE)
		return c == 0xF7 ? c : c - 32; /* Latin-1 */
	if (c == 0xFF)
		return 0x178;
	if (c >= 0x100 && c <= 0x17F) { /* Latin Extended-A: pairs */
		if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E))
			return (c & 1) ? c : c - 1;
		return (c == 0x131 || c == 0x138 || c == 0x149 || c == 0x17F || !(c & 1)) ? c
											  : c - 1;
	}
	if (c >= 0x3B1 && c <= 0x3CB && c != 0x3C2) /* Greek */
		return c - 32;
	if (c >= 0x430 && c <= 0x44F) /* Cyrillic */
		return c - 32;
	if (c >= 0x450 && c <= 0x45F)
		return c - 80;
	return c;
}

/* Characters a short name may hold besides A-Z and 0-9 (fatgen103 "FAT Directory Structure", DIR_Name). */
static int sfn_char_ok(uint16_t c)
{
	return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c < 0x80 && c && strchr("$%'-_@~`!(){}^#&", c));
}

/* Whether @u/@n is an 8.3 name as it is, with single-case parts; sets b->ntres. */
static bool name_fits(const uint16_t *u, size_t n, struct fat_basis *b)
{
	size_t dot = n, lower[2] = { 0, 0 }, upper[2] = { 0, 0 };

	for (size_t i = 0; i < n; i++)
		if (u[i] == '.') {
			if (dot != n)
				return false;
			dot = i;
		}
	if (dot == 0 || dot > 8 || (dot < n && (n - dot - 1 < 1 || n - dot - 1 > 3)))
		return false;
	for (size_t i = 0; i < n; i++) {
		int part = i > dot;
		if (i == dot)
			continue;
		if (!sfn_char_ok(fat_upcase(u[i])) || u[i] >= 0x80)
			return false;
		lower[part] += u[i] >= 'a' && u[i] <= 'z';
		upper[part] += u[i] >= 'A' && u[i] <= 'Z';
	}
	b->case_ok = !(lower[0] && upper[0]) && !(lower[1] && upper[1]);
	b->ntres = (lower[0] ? FAT_NTRES_LOWER_BASE : 0) | (lower[1] ? FAT_NTRES_LOWER_EXT : 0);
	return true;
}

/* One basis character for @c: upper case, '_' for what 8.3 cannot hold (sets lossy). */
static uint8_t basis_char(uint16_t c, bool *lossy)
{
	c = fat_upcase(c);
	if (sfn_char_ok(c))
		return (uint8_t)c;
	*lossy = true;
	return '_';
}

void fat_basis(const uint16_t *u, size_t n, struct fat_basis *b)
{
	size_t start = 0, last_dot = n;

	memset(b, 0, sizeof(*b));
	b->fits = name_fits(u, n, b);
	while (start < n && (u[start] == '.' || u[start] == ' '))
		start++;
	for (size_t i = start; i < n; i++)
		if (u[i] == '.')
			last_dot = i;
	for (size_t i = start; i < n; i++) {
		bool ext = last_dot < n && i > last_dot;
		if (u[i] == ' ' || (u[i] == '.' && !ext))
			continue; /* spaces and embedded periods are dropped */
		if (u[i] >= 0xDC00 && u[i] <= 0xDFFF)
			continue; /* second half of a pair: one '_' per code point */
		if (ext && b->ext_len < 3)
			b->ext[b->ext_len++] = basis_char(u[i], &b->lossy);
		else if (!ext && b->base_len < 8)
			b->base[b->base_len++] = basis_char(u[i], &b->lossy);
	}
	if (!b->base_len) {
		b->base[b->base_len++] = '_';
		b->lossy = true;
	}
}

uint16_t fat_sfn_hash(const uint16_t *u, size_t n)
{
	uint16_t h = 0;
	int64_t t;

	for (size_t i = 0; i < n; i++)
		h = (uint16_t)(h * 37u + u[i]);
	t = (int32_t)(uint32_t)((uint64_t)h * 314159269u);
	if (t < 0)
		t = -t;
	t %= 1000000007;
	h = (uint16_t)t;
	/* the four hex digits come out in reverse order */
	return (uint16_t)(((h & 0xF) << 12) | ((h & 0xF0) << 4) | ((h >> 4) & 0xF0) | (h >> 12));
}

/* Writes "~K", after the four hex digits of @hash when @with_hash, at @tail; returns its
 * length (at most 11). Formatted by hand: every name that needs a tail passes here. */
static size_t put_tail(char *tail, bool with_hash, uint16_t hash, unsigned k)
{
	static const char hex[] = "0123456789ABCDEF";
	char digits[10];
	size_t len = 0, n = 0;

	if (with_hash)
		for (int shift = 12; shift >= 0; shift -= 4)
			tail[len++] = hex[(hash >> shift) & 0xF];
	tail[len++] = '~';
	do
		digits[n++] = (char)('0' + k % 10);
	while ((k /= 10) && n < sizeof(digits));
	while (n)
		tail[len++] = digits[--n];
	return len;
}

int fat_sfn_candidate(const struct fat_basis *b, const uint16_t *u, size_t n, unsigned k,
		      uint8_t out[11])
{
	char tail[16];
	size_t keep = b->base_len, tail_len;

	memset(out, ' ', 11);
	memcpy(out + 8, b->ext, b->ext_len);
	if (k == 0) {
		memcpy(out, b->base, b->base_len);
		return 0;
	}
	if (k >= 5 && k <= 13) {
		keep = keep < 2 ? keep : 2;
		tail_len = put_tail(tail, true, fat_sfn_hash(u, n), k - 4);
	} else if (k <= 4) {
		tail_len = put_tail(tail, false, 0, k);
	} else {
		if (k - 4 > 999999)
			return -ERANGE;
		tail_len = put_tail(tail, false, 0, k - 4);
	}
	if (keep > 8 - tail_len)
		keep = 8 - tail_len;
	memcpy(out, b->base, keep);
	memcpy(out + keep, tail, tail_len);
	return 0;
}

uint8_t fat_lfn_checksum(const uint8_t sfn[11])
{
	uint8_t sum = 0;

	for (int i = 0; i < 11; i++)
		sum = (uint8_t)(((sum & 1) << 7) + (sum >> 1) + sfn[i]);
	return sum;
}

char *fat_path_key(const char *path)
{
	size_t len = strlen(path), cap = 3 * len + 1; /* a UTF-16 unit is at most 3 UTF-8 bytes */
	char *key = malloc(cap);
	size_t o = 0;

	if (!key)
		return NULL;
	/* component by component, so that invalid UTF-8 in one does not spoil the others */
	for (size_t i = 0; i <= len;) {
		size_t n = strcspn(path + i, "/");
		uint16_t u[FAT_LFN_MAX * 2];
		char *comp = strndup(path + i, n);
		int units = comp ? utf8_to_utf16(comp, u, sizeof(u) / sizeof(u[0])) : -ENOMEM;
		free(comp);
		if (units == -ENOMEM) {
			free(key);
			return NULL;
		}
		for (int k = 0; k < units; k++)
			u[k] = fat_upcase(u[k]);
		int w = units < 0 ? -1 : utf8_from_utf16(u, (size_t)units, key + o, cap - o);
		if (w < 0) { /* not UTF-8 (or too long): the bytes as they are */
			memcpy(key + o, path + i, n);
			w = (int)n;
		}
		o += (size_t)w;
		if (i + n < len)
			key[o++] = '/';
		i += n + 1;
	}
	key[o] = '\0';
	return key;
}
