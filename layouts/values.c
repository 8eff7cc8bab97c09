/* values: sizes, numbers, booleans, GUIDs and attribute lists of the layout language. */
#include "layouts/values.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/utf8.h"

static int fail(struct why *why, const char *fmt, const char *arg)
{
	char shown[200];

	snprintf(why->text, sizeof(why->text), fmt, utf8_shown(arg, shown, sizeof(shown)));
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
		{ "", 0 },   { "s", 9 },    { "K", 10 },   { "M", 20 },   { "G", 30 },
		{ "T", 40 }, { "KiB", 10 }, { "MiB", 20 }, { "GiB", 30 }, { "TiB", 40 },
	};
	const char *p = s;
	uint64_t v;
	int n = parse_decimal(&p, &v);

	if (n < 0)
		return fail(why, "'%s' is too large", s);
	if (n == 0)
		return fail(why,
			    "'%s' is not a size (a whole number with an optional unit: 512, "
			    "8K, 4M, 2G, 1T, 4MiB, 8192s)",
			    s);
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
			v = v * 16 + (uint64_t)(isdigit((unsigned char)*p)
							? *p - '0'
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

int layout_value_seconds(const char *s, uint64_t max, uint64_t *ret, struct why *why)
{
	size_t digits = strspn(s, "0123456789");
	const char *p = s;
	uint64_t v;

	/* the Reproducible Builds specification of SOURCE_DATE_EPOCH: "an ASCII representation
	 * of an integer with no fractional component, identical to the output format of
	 * date +%s"; anything else (0x10, 010, +5, " 5") is a mistake, not another spelling */
	if (digits == 0 || s[digits] != '\0' || (s[0] == '0' && digits > 1))
		return fail(why,
			    "'%s' is not a whole number of seconds as date +%%s prints it "
			    "(decimal digits, no leading zero)",
			    s);
	if (parse_decimal(&p, &v) < 0 || v > max) {
		snprintf(why->text, sizeof(why->text), "'%.40s' is too large (at most %llu)", s,
			 (unsigned long long)max);
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
		return fail(why, "'%s' is not a GUID (like 0FC63DAF-8483-4772-8E79-3D69D8477DE4)",
			    s);
	for (int i = 0; i < 36; i++) {
		if (d < 4 && i == dashes[d]) {
			if (s[i] != '-')
				return fail(why,
					    "'%s' is not a GUID (like "
					    "0FC63DAF-8483-4772-8E79-3D69D8477DE4)",
					    s);
			d++;
			continue;
		}
		if (!isxdigit((unsigned char)s[i]))
			return fail(why,
				    "'%s' is not a GUID (like "
				    "0FC63DAF-8483-4772-8E79-3D69D8477DE4)",
				    s);
		unsigned nib = (unsigned)(isdigit((unsigned char)s[i])
						  ? s[i] - '0'
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

/*
 * GPT partition type aliases. The first name of a GUID is the one messages show.
 * UEFI 2.10, 5.3.3 (the EFI System Partition, C12A7328-...); Microsoft's basic data
 * partition (EBD0A0A2-...); the Discoverable Partitions Specification of the UAPI group
 * (uapi-group.org, "Defined Partition Type UUIDs": the generic Linux data, root and /usr
 * partitions of each architecture, home, srv, var, var/tmp, swap, XBOOTLDR; the architecture
 * names are systemd's); Linux RAID and LVM as sfdisk(8) lists them. Last, the one-letter
 * shortcuts of sfdisk(8) and genimage (L, S, H, U, R, V, F).
 */
static const struct {
	const char *alias;
	const char *guid;
} gpt_aliases[] = {
	{ "esp", "C12A7328-F81F-11D2-BA4B-00A0C93EC93B" },
	{ "msdata", "EBD0A0A2-B9E5-4433-87C0-68B6B72699C7" },
	{ "linux", "0FC63DAF-8483-4772-8E79-3D69D8477DE4" },
	{ "swap", "0657FD6D-A4AB-43C4-84E5-0933C84B4F4F" },
	{ "linux-home", "933AC7E1-2EB4-4F13-B844-0E14E2AEF915" },
	{ "linux-srv", "3B8F8425-20E0-4F3B-907F-1A25A76F98E8" },
	{ "linux-var", "4D21B016-B534-45C2-A9FB-5C16E091FD2D" },
	{ "linux-var-tmp", "7EC6F557-3BC5-4ACA-B293-16EF5DF639D1" },
	{ "xbootldr", "BC13C2FF-59E6-4262-A352-B275FD6F7172" },
	{ "raid", "A19D880F-05FC-4D3B-A006-743F0F84911E" },
	{ "lvm", "E6D6D379-F507-44C2-A23C-238F2A3DF928" },
	{ "linux-root-alpha", "6523F8AE-3EB1-4E2A-A05A-18B695AE656F" },
	{ "linux-root-arc", "D27F46ED-2919-4CB8-BD25-9531F3C16534" },
	{ "linux-root-arm", "69DAD710-2CE4-4E3C-B16C-21A1D49ABED3" },
	{ "linux-root-arm64", "B921B045-1DF0-41C3-AF44-4C6F280D3FAE" },
	{ "linux-root-ia64", "993D8D3D-F80E-4225-855A-9DAF8ED7EA97" },
	{ "linux-root-loongarch64", "77055800-792C-4F94-B39A-98C91B762BB6" },
	{ "linux-root-mips-le", "37C58C8A-D913-4156-A25F-48B1B64E07F0" },
	{ "linux-root-mips64-le", "700BDA43-7A34-4507-B179-EEB93D7A7CA3" },
	{ "linux-root-parisc", "1AACDB3B-5444-4138-BD9E-E5C2239B2346" },
	{ "linux-root-ppc", "1DE3F1EF-FA98-47B5-8DCD-4A860A654D78" },
	{ "linux-root-ppc64", "912ADE1D-A839-4913-8964-A10EEE08FBD2" },
	{ "linux-root-ppc64-le", "C31C45E6-3F39-412E-80FB-4809C4980599" },
	{ "linux-root-riscv32", "60D5A7FE-8E7D-435C-B714-3DD8162144E1" },
	{ "linux-root-riscv64", "72EC70A6-CF74-40E6-BD49-4BDA08E8F224" },
	{ "linux-root-s390", "08A7ACEA-624C-4A20-91E8-6E0FA67D23F9" },
	{ "linux-root-s390x", "5EEAD9A9-FE09-4A1E-A1D7-520D00531306" },
	{ "linux-root-tilegx", "C50CDD70-3862-4CC3-90E1-809A8C93EE2C" },
	{ "linux-root-x86", "44479540-F297-41B2-9AF7-D131D5F0458A" },
	{ "linux-root-x86-64", "4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709" },
	{ "linux-usr-alpha", "E18CF08C-33EC-4C0D-8246-C6C6FB3DA024" },
	{ "linux-usr-arc", "7978A683-6316-4922-BBEE-38BFF5A2FECC" },
	{ "linux-usr-arm", "7D0359A3-02B3-4F0A-865C-654403E70625" },
	{ "linux-usr-arm64", "B0E01050-EE5F-4390-949A-9101B17104E9" },
	{ "linux-usr-ia64", "4301D2A6-4E3B-4B2A-BB94-9E0B2C4225EA" },
	{ "linux-usr-loongarch64", "E611C702-575C-4CBE-9A46-434FA0BF7E3F" },
	{ "linux-usr-mips-le", "0F4868E9-9952-4706-979F-3ED3A473E947" },
	{ "linux-usr-mips64-le", "C97C1F32-BA06-40B4-9F22-236061B08AA8" },
	{ "linux-usr-parisc", "DC4A4480-6917-4262-A4EC-DB9384949F25" },
	{ "linux-usr-ppc", "7D14FEC5-CC71-415D-9D6C-06BF0B3C3EAF" },
	{ "linux-usr-ppc64", "2C9739E2-F068-46B3-9FD0-01C5A9AFBCCA" },
	{ "linux-usr-ppc64-le", "15BB03AF-77E7-4D4A-B12B-C0D084F7491C" },
	{ "linux-usr-riscv32", "B933FB22-5C3F-4F91-AF90-E2BB0FA50702" },
	{ "linux-usr-riscv64", "BEAEC34B-8442-439B-A40B-984381ED097D" },
	{ "linux-usr-s390", "CD0F869B-D0FB-4CA0-B141-9EA87CC78D66" },
	{ "linux-usr-s390x", "8A4F5770-50AA-4ED3-874A-99B710DB6FEA" },
	{ "linux-usr-tilegx", "55497029-C7C1-44CC-AA39-815ED1558630" },
	{ "linux-usr-x86", "75250D76-8CC6-458E-BD66-BD47CC81A812" },
	{ "linux-usr-x86-64", "8484680C-9521-48C6-9C11-B0720656F69E" },
	{ "linux-root-mipsel", "37C58C8A-D913-4156-A25F-48B1B64E07F0" },
	{ "linux-root-mips64el", "700BDA43-7A34-4507-B179-EEB93D7A7CA3" },
	{ "linux-root-ppc64le", "C31C45E6-3F39-412E-80FB-4809C4980599" },
	{ "linux-usr-mipsel", "0F4868E9-9952-4706-979F-3ED3A473E947" },
	{ "linux-usr-mips64el", "C97C1F32-BA06-40B4-9F22-236061B08AA8" },
	{ "linux-usr-ppc64le", "15BB03AF-77E7-4D4A-B12B-C0D084F7491C" },
	{ "U", "C12A7328-F81F-11D2-BA4B-00A0C93EC93B" },
	{ "L", "0FC63DAF-8483-4772-8E79-3D69D8477DE4" },
	{ "S", "0657FD6D-A4AB-43C4-84E5-0933C84B4F4F" },
	{ "H", "933AC7E1-2EB4-4F13-B844-0E14E2AEF915" },
	{ "R", "A19D880F-05FC-4D3B-A006-743F0F84911E" },
	{ "V", "E6D6D379-F507-44C2-A23C-238F2A3DF928" },
	{ "F", "EBD0A0A2-B9E5-4433-87C0-68B6B72699C7" },
};

#define N_GPT_ALIASES (sizeof(gpt_aliases) / sizeof(gpt_aliases[0]))

int layout_value_gpt_type(const char *s, struct layout_guid *ret, struct why *why)
{
	const char *near = NULL;
	unsigned best = 3; /* suggest an alias within two edits */

	for (size_t i = 0; i < N_GPT_ALIASES; i++)
		if (strcmp(s, gpt_aliases[i].alias) == 0)
			return layout_value_guid(gpt_aliases[i].guid, ret, why);
	if (strlen(s) == 36)
		return layout_value_guid(s, ret, why);
	for (size_t i = 0; i < N_GPT_ALIASES; i++) {
		unsigned d = layout_edit_distance(s, gpt_aliases[i].alias);
		if (strlen(gpt_aliases[i].alias) > 1 && d < best) {
			best = d;
			near = gpt_aliases[i].alias;
		}
	}
	snprintf(why->text, sizeof(why->text),
		 "'%.40s' is neither a GUID nor a type alias "
		 "(esp, linux, msdata, swap, linux-root-ARCH, U, L, ...)%s%s%s",
		 s, near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
	return -EINVAL;
}

const char *layout_gpt_type_alias(const struct layout_guid *g)
{
	struct layout_guid a;
	struct why why;

	for (size_t i = 0; i < N_GPT_ALIASES; i++)
		if (layout_value_guid(gpt_aliases[i].guid, &a, &why) == 0 &&
		    memcmp(&a, g, sizeof(a)) == 0)
			return gpt_aliases[i].alias;
	return NULL;
}

/*
 * MBR type words: sfdisk(8)'s shortcuts and aliases with their MBR meaning (L linux 0x83,
 * S swap 0x82, U uefi 0xef, R raid 0xfd, V lvm 0x8e; E, Ex, extended 0x05 and X 0x85, the
 * extended types, which the reader of the partition refuses).
 */
static const struct {
	const char *word;
	uint8_t type;
} mbr_words[] = {
	{ "L", 0x83 },    { "linux", 0x83 }, { "S", 0x82 },  { "swap", 0x82 },     { "U", 0xef },
	{ "uefi", 0xef }, { "esp", 0xef },   { "R", 0xfd },  { "raid", 0xfd },     { "V", 0x8e },
	{ "lvm", 0x8e },  { "E", 0x05 },     { "Ex", 0x05 }, { "extended", 0x05 }, { "X", 0x85 },
};

int layout_value_mbr_type(const char *s, uint64_t *ret, struct why *why)
{
	for (size_t i = 0; i < sizeof(mbr_words) / sizeof(mbr_words[0]); i++)
		if (strcmp(s, mbr_words[i].word) == 0) {
			*ret = mbr_words[i].type;
			return 0;
		}
	if (isdigit((unsigned char)s[0]))
		return layout_value_uint(s, 1, 255, ret, why);
	return fail(why,
		    "'%s' is not an MBR type (a number from 1 to 255, like 0x83, or one of "
		    "L, S, U, R, V, linux, swap, uefi, raid, lvm)",
		    s);
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

int layout_value_ranges(const char *s, struct layout_range **ret, size_t *ret_n, struct why *why)
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
			struct layout_range *bigger = realloc(v, (cap = cap ? 2 * cap : 4) *
									 sizeof(*v));
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
			snprintf(why->text, sizeof(why->text),
				 "the ranges %llu-%llu and %llu-%llu overlap",
				 (unsigned long long)v[i - 1].start,
				 (unsigned long long)v[i - 1].end, (unsigned long long)v[i].start,
				 (unsigned long long)v[i].end);
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
