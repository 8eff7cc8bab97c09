/* SPDX-License-Identifier: MIT */
/*
 * values: the value forms of the layout language (private to layouts/).
 * Each parser returns 0, or -EINVAL with a short reason in @why that the caller prefixes
 * with FILE:LINE, the section and the key.
 */
#ifndef SDIMG_LAYOUTS_VALUES_H
#define SDIMG_LAYOUTS_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layouts/layouts.h"

struct why {
	char text[160];
};

/* "512", "8K", "4M", "2G", "1T", "4MiB", "8192s": a byte count. */
int layout_value_size(const char *s, uint64_t *ret, struct why *why);

/* A whole number, decimal or 0x hex, within [min, max]. */
int layout_value_uint(const char *s, uint64_t min, uint64_t max, uint64_t *ret, struct why *why);

/* A count of seconds as `date +%s` prints it (SOURCE_DATE_EPOCH): decimal digits only, no
 * sign, space, 0x or leading zero, at most @max ("too large" above it). */
int layout_value_seconds(const char *s, uint64_t max, uint64_t *ret, struct why *why);

/* true/false, yes/no, on/off (any case). */
int layout_value_bool(const char *s, bool *ret, struct why *why);

/* "00112233-4455-6677-8899-aabbccddeeff" (any case). */
int layout_value_guid(const char *s, struct layout_guid *ret, struct why *why);

/* A GPT type: a GUID or one of the aliases (esp, linux, msdata, ..., U, L, ...). */
int layout_value_gpt_type(const char *s, struct layout_guid *ret, struct why *why);

/*
 * "440-512, 1K-2K": byte ranges START-END (sizes with units, END excluded), separated by
 * commas. With @ret not NULL, *@ret is a new array of them sorted by start (the caller
 * frees it) and *@ret_n their number. An empty range and two ranges that overlap are
 * errors.
 */
int layout_value_ranges(const char *s, struct layout_range **ret, size_t *ret_n, struct why *why);
/* An MBR type byte: 1 to 255 (decimal or 0x hex) or a word (L, S, U, R, V, linux, ...). */
int layout_value_mbr_type(const char *s, uint64_t *ret, struct why *why);

/* "readonly,hidden,system,archive" (any subset, spaces allowed) as enum layout_attr bits. */
int layout_value_attrs(const char *s, unsigned *ret, struct why *why);

/* Levenshtein distance of two short strings (capped at 64 characters each). */
unsigned layout_edit_distance(const char *a, const char *b);

#endif
