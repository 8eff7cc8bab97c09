/* values: sizes, numbers, booleans, GUIDs and attribute lists of the layout language. */
#include "layouts/values.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int fail(struct why *why, const char *fmt, const char *arg)
{
	snprintf(why->text, sizeof(why->text), fmt, arg);
	return -EINVAL;
}

/* Decimal digits at *s into *ret; returns the number of digits, or -1 on overflow. */
static int parse_decimal(const char **s, uint64_t *ret)
{
	uint64_t v = 0;
	int n = 0;

	for (; isdigit((unsigned char)**s); (*s)++, n++) {
		unsigned d = (unsigned)(**s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*ret = v;
	return n;
}

int layout_value_size(const char *s, uint64_t *ret, struct why *why)
{
	static const struct {
		const char *unit;
		unsigned shift;
	} units[] = {
		{ "", 0 },     { "s", 9 },    { "K", 10 },   { "M", 20 },   { "G", 30 },
		{ "T", 40 },   { "KiB", 10 }, { "MiB", 20 }, { "GiB", 30 }, { "TiB", 40 },
	};
	const char *p = s;
	uint64_t v;
	int n = parse_decimal(&p, &v);

	if (n < 0)
		return fail(why, "'%s' is too large", s);
	if (n == 0)
		return fail(why, "'%s' is not a size (a whole number with an optional unit: 512, "
				 "8K, 4M, 2G, 1T, 4MiB, 8192s)", s);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(p, units[i].unit) != 0)
			continue;
		if (v > (LAYOUT_MAX_BYTES >> units[i].shift))
			return fail(why, "'%s' is too large (sdimg handles up to 1 EiB)", s);
		*ret = v << units[i].shift;
		return 0;
	}
	return fail(why, "unknown unit in '%s' (use K, M, G, T, KiB, MiB, GiB, TiB or s)", s);
}

int layout_value_uint(const char *s, uint64_t min, uint64_t max, uint64_t *ret, struct why *why)
{
	const char *p = s;
	uint64_t v = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && isxdigit((unsigned char)p[2])) {
		for (p += 2; isxdigit((unsigned char)*p); p++) {
			if (v >> 60)
				return fail(why, "'%s' is too large", s);
			v = v * 16 + (uint64_t)(isdigit((unsigned char)*p) ? *p - '0'
									 : tolower((unsigned char)*p) - 'a' + 10);
		}
	} else if (parse_decimal(&p, &v) <= 0) {
		return fail(why, "'%s' is not a whole number", s);
	}
	if (*p)
		return fail(why, "'%s' is not a whole number", s);
	if (v < min || v > max) {
		snprintf(why->text, sizeof(why->text), "%s is out of range (%llu to %llu)", s,
			 (unsigned long long)min, (unsigned long long)max);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

int layout_value_bool(const char *s, bool *ret, struct why *why)
{
	static const char *const yes[] = { "true", "yes", "on" };
	static const char *const no[] = { "false", "no", "off" };

	for (size_t i = 0; i < 3; i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*ret = true;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*ret = false;
			return 0;
		}
	}
	return fail(why, "'%s' is not a boolean (true or false)", s);
}

int layout_value_guid(const char *s, struct layout_guid *ret, struct why *why)
{
	static const int dashes[] = { 8, 13, 18, 23 };
	struct layout_guid g;
	size_t k = 0, d = 0;

	if (strlen(s) != 36)
		return fail(why, "'%s' is not a GUID (like 0FC63DAF-8483-4772-8E79-3D69D8477DE4)", s);
	for (int i = 0; i < 36; i++) {
		if (d < 4 && i == dashes[d]) {
			if (s[i] != '-')
				return fail(why, "'%s' is not a GUID (like "
						 "0FC63DAF-8483-4772-8E79-3D69D8477DE4)", s);
			d++;
			continue;
		}
		if (!isxdigit((unsigned char)s[i]))
			return fail(why, "'%s' is not a GUID (like 0FC63DAF-8483-4772-8E79-3D69D8477DE4)",
				    s);
		unsigned nib = (unsigned)(isdigit((unsigned char)s[i]) ? s[i] - '0'
								       : tolower((unsigned char)s[i]) - 'a' + 10);
		if (k % 2 == 0)
			g.b[k / 2] = (uint8_t)(nib << 4);
		else
			g.b[k / 2] |= (uint8_t)nib;
		k++;
	}
	*ret = g;
	return 0;
}

/* GPT partition type aliases (UEFI spec; Discoverable Partitions Specification). */
static const struct {
	const char *alias;
	const char *guid;
} gpt_aliases[] = {
	{ "esp", "C12A7328-F81F-11D2-BA4B-00A0C93EC93B" },
	{ "msdata", "EBD0A0A2-B9E5-4433-87C0-68B6B72699C7" },
	{ "linux", "0FC63DAF-8483-4772-8E79-3D69D8477DE4" },
	{ "linux-root-arm", "69DAD710-2CE4-4E3C-B16C-21A1D49ABED3" },
	{ "linux-root-arm64", "B921B045-1DF0-41C3-AF44-4C6F280D3FAE" },
	{ "linux-root-x86-64", "4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709" },
	{ "linux-root-riscv64", "72EC70A6-CF74-40E6-BD49-4BDA08E8F224" },
	{ "swap", "0657FD6D-A4AB-43C4-84E5-0933C84B4F4F" },
	{ "linux-home", "933AC7E1-2EB4-4F13-B844-0E14E2AEF915" },
};

int layout_value_gpt_type(const char *s, struct layout_guid *ret, struct why *why)
{
	for (size_t i = 0; i < sizeof(gpt_aliases) / sizeof(gpt_aliases[0]); i++)
		if (strcmp(s, gpt_aliases[i].alias) == 0)
			return layout_value_guid(gpt_aliases[i].guid, ret, why);
	if (strlen(s) == 36)
		return layout_value_guid(s, ret, why);
	return fail(why, "'%s' is neither a GUID nor a type alias (esp, msdata, linux, "
			 "linux-root-arm, linux-root-arm64, linux-root-x86-64, "
			 "linux-root-riscv64, swap, linux-home)", s);
}

const char *layout_gpt_type_alias(const struct layout_guid *g)
{
	struct layout_guid a;
	struct why why;

	for (size_t i = 0; i < sizeof(gpt_aliases) / sizeof(gpt_aliases[0]); i++)
		if (layout_value_guid(gpt_aliases[i].guid, &a, &why) == 0 && memcmp(&a, g, sizeof(a)) == 0)
			return gpt_aliases[i].alias;
	return NULL;
}

void layout_guid_text(const struct layout_guid *g, char out[37])
{
	const uint8_t *b = g->b;

	snprintf(out, 37, "%02X%02X%02X%02X-%02X%02X-%02X%02X-%02X%02X-%02X%02X%02X%02X%02X%02X",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
		 b[13], b[14], b[15]);
}

/* One "START-END" of @n bytes at @p. */
static int parse_range(const char *p, size_t n, struct layout_range *ret, struct why *why)
{
	char text[80], *dash;
	struct why inner;

	snprintf(text, sizeof(text), "%.*s", (int)(n < sizeof(text) - 1 ? n : sizeof(text) - 1), p);
	dash = strchr(text, '-');
	if (!dash || n >= sizeof(text))
		return fail(why, "'%.60s' is not a range START-END in bytes (like 440-512)", text);
	*dash = '\0';
	if (layout_value_size(text, &ret->start, &inner) < 0 ||
	    layout_value_size(dash + 1, &ret->end, &inner) < 0) {
		*dash = '-';
		snprintf(why->text, sizeof(why->text), "in '%.40s': %.100s", text, inner.text);
		return -EINVAL;
	}
	*dash = '-';
	if (ret->end <= ret->start)
		return fail(why, "'%.60s' is empty: END (excluded) must be after START", text);
	return 0;
}

static int range_order(const void *a, const void *b)
{
	const struct layout_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int layout_value_ranges(const char *s, struct layout_range **ret, size_t *ret_n,
			struct why *why)
{
	struct layout_range *v = NULL;
	size_t n = 0, cap = 0;
	const char *p = s;
	int rc = 0;

	while (rc == 0 && *p) {
		while (*p == ' ' || *p == ',')
			p++;
		size_t len = strcspn(p, " ,");
		if (len == 0)
			break;
		if (n == cap) {
			struct layout_range *bigger = realloc(v, (cap = cap ? 2 * cap : 4) * sizeof(*v));
			if (!bigger) {
				free(v);
				snprintf(why->text, sizeof(why->text), "out of memory");
				return -ENOMEM;
			}
			v = bigger;
		}
		rc = parse_range(p, len, &v[n++], why);
		p += len;
	}
	if (rc == 0 && n == 0)
		rc = fail(why, "'%.60s' holds no range START-END (like 440-512)", s);
	if (rc == 0)
		qsort(v, n, sizeof(*v), range_order);
	for (size_t i = 1; rc == 0 && i < n; i++)
		if (v[i].start < v[i - 1].end) {
			snprintf(why->text, sizeof(why->text), "the ranges %llu-%llu and %llu-%llu overlap",
				 (unsigned long long)v[i - 1].start, (unsigned long long)v[i - 1].end,
				 (unsigned long long)v[i].start, (unsigned long long)v[i].end);
			rc = -EINVAL;
		}
	if (rc == 0 && ret) {
		*ret = v;
		*ret_n = n;
		return 0;
	}
	free(v);
	return rc;
}

int layout_value_attrs(const char *s, unsigned *ret, struct why *why)
{
	static const struct {
		const char *name;
		unsigned bit;
	} attrs[] = {
		{ "readonly", LAYOUT_ATTR_READONLY },
		{ "hidden", LAYOUT_ATTR_HIDDEN },
		{ "system", LAYOUT_ATTR_SYSTEM },
		{ "archive", LAYOUT_ATTR_ARCHIVE },
	};
	unsigned bits = 0;
	const char *p = s;

	while (*p) {
		while (*p == ' ' || *p == ',')
			p++;
		size_t n = strcspn(p, " ,");
		if (n == 0)
			break;
		size_t i;
		for (i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++)
			if (strlen(attrs[i].name) == n && strncmp(p, attrs[i].name, n) == 0)
				break;
		if (i == sizeof(attrs) / sizeof(attrs[0])) {
			snprintf(why->text, sizeof(why->text),
				 "'%.*s' is not an attribute (readonly, hidden, system, archive)",
				 (int)(n > 40 ? 40 : n), p);
			return -EINVAL;
		}
		bits |= attrs[i].bit;
		p += n;
	}
	*ret = bits;
	return 0;
}

unsigned layout_edit_distance(const char *a, const char *b)
{
	unsigned row[65];
	size_t la = strlen(a), lb = strlen(b);

	if (la > 64)
		la = 64;
	if (lb > 64)
		lb = 64;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = row[0];
		row[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned up = row[j];
			unsigned best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

int layout_parse_size(const char *text, uint64_t *ret, char *why, size_t n)
{
	struct why w;
	int rc = layout_value_size(text, ret, &w);

	if (rc < 0)
		snprintf(why, n, "%s", w.text);
	return rc;
}
