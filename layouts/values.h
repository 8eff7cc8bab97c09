/*
 * values: the value forms of the layout language (private to layouts/).
 * Each parser returns 0, or -EINVAL with a short reason in *ret_why (a static string or
 * one written into the caller's buffer) that the caller prefixes with FILE:LINE and key.
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
int value_size(const char *s, uint64_t *ret, struct why *why);

/* A whole number, decimal or 0x hex, within [min, max]. */
int value_uint(const char *s, uint64_t min, uint64_t max, uint64_t *ret, struct why *why);

/* true/false, yes/no, on/off (any case), as libconfuse reads booleans. */
int value_bool(const char *s, bool *ret, struct why *why);

/* "00112233-4455-6677-8899-aabbccddeeff" (any case). */
int value_guid(const char *s, struct layout_guid *ret, struct why *why);

/* A GPT type: a GUID or one of the aliases (esp, linux, msdata, ...). */
int value_gpt_type(const char *s, struct layout_guid *ret, struct why *why);

/* "readonly,hidden,system,archive" (any subset, spaces allowed) as enum layout_attr bits. */
int value_attrs(const char *s, unsigned *ret, struct why *why);

/* Writes a GUID as upper-case text (37 bytes with the NUL). */
void guid_format(const struct layout_guid *g, char out[37]);

/* The alias of a GPT type GUID, or NULL. */
const char *gpt_type_alias(const struct layout_guid *g);

/* Levenshtein distance of two short strings (capped at 64 characters each). */
unsigned edit_distance(const char *a, const char *b);

#endif
