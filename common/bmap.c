/* SPDX-License-Identifier: MIT */
/*
 * bmap: reading the block map format (bmap.h). A small XML reader that knows exactly the
 * elements of the format: an XML declaration, comments, elements with attributes, text.
 * Anything else (entities, CDATA, unknown elements) is refused: a block map decides what is
 * written to a card, so it must say exactly one thing.
 */
#include "common/bmap.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/sha256.h"

#define MAX_RANGES (1u << 24) /* far beyond any real map: refuse larger */

struct reader {
	const char *p, *end;
	const char *name;
	const char *text; /* the whole file, for line numbers */
	struct diag *d;
	size_t checksum_at; /* where BmapFileChecksum's value starts */
	bool have_checksum;
	uint8_t file_sha[32];
};

static int line_of(const struct reader *r)
{
	int line = 1;

	for (const char *q = r->text; q < r->p; q++)
		line += *q == '\n';
	return line;
}

static int bad(struct reader *r, const char *why)
{
	return diag_error(r->d, "%s:%d: not a block map sdimg can trust: %s", r->name, line_of(r),
			  why);
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void skip_space(struct reader *r)
{
	while (r->p < r->end && is_space(*r->p))
		r->p++;
}

static bool starts(const struct reader *r, const char *s)
{
	size_t n = strlen(s);
	return (size_t)(r->end - r->p) >= n && memcmp(r->p, s, n) == 0;
}

/* Skips white space, comments and the XML declaration. */
static int skip_misc(struct reader *r)
{
	for (;;) {
		skip_space(r);
		const char *close = starts(r, "<!--") ? "-->" : starts(r, "<?") ? "?>" : NULL;
		if (!close)
			return 0;
		const char *e = memmem(r->p, (size_t)(r->end - r->p), close, strlen(close));
		if (!e)
			return bad(r, "a comment or declaration is never closed");
		r->p = e + strlen(close);
	}
}

/* A tag: "<Name attr="v">" or "</Name>". */
struct tag {
	char name[32];
	bool closing;
	char attr[16], value[80]; /* the one attribute this format uses, if any */
};

static int read_name(struct reader *r, char *out, size_t cap)
{
	size_t n = 0;

	while (r->p < r->end && (isalnum((unsigned char)*r->p) || *r->p == '_' || *r->p == '-')) {
		if (n + 1 >= cap)
			return bad(r, "a name is too long");
		out[n++] = *r->p++;
	}
	out[n] = 0;
	return n ? 0 : bad(r, "a name is expected");
}

static int read_attr(struct reader *r, struct tag *t)
{
	if (t->attr[0])
		return bad(r, "an element has more than one attribute");
	int rc = read_name(r, t->attr, sizeof(t->attr));
	if (rc < 0)
		return rc;
	skip_space(r);
	if (r->p >= r->end || *r->p != '=')
		return bad(r, "an attribute has no value");
	r->p++;
	skip_space(r);
	char quote = r->p < r->end ? *r->p : 0;
	if (quote != '"' && quote != '\'')
		return bad(r, "an attribute value is not quoted");
	const char *v = ++r->p;
	while (r->p < r->end && *r->p != quote)
		r->p++;
	if (r->p >= r->end || (size_t)(r->p - v) >= sizeof(t->value))
		return bad(r, "an attribute value is never closed or too long");
	memcpy(t->value, v, (size_t)(r->p - v));
	t->value[r->p - v] = 0;
	r->p++;
	return 0;
}

static int read_tag(struct reader *r, struct tag *t)
{
	int rc = skip_misc(r);

	memset(t, 0, sizeof(*t));
	if (rc < 0)
		return rc;
	if (r->p >= r->end || *r->p != '<')
		return bad(r, "an element is expected");
	r->p++;
	t->closing = r->p < r->end && *r->p == '/';
	r->p += t->closing;
	if ((rc = read_name(r, t->name, sizeof(t->name))) < 0)
		return rc;
	for (;;) {
		skip_space(r);
		if (r->p < r->end && *r->p == '>') {
			r->p++;
			return 0;
		}
		if (t->closing || r->p >= r->end)
			return bad(r, "a tag is never closed");
		if ((rc = read_attr(r, t)) < 0)
			return rc;
	}
}

/* The text up to the next '<', white space trimmed, into @out. */
static int read_text(struct reader *r, char *out, size_t cap)
{
	skip_space(r);
	const char *s = r->p;
	while (r->p < r->end && *r->p != '<' && *r->p != '&')
		r->p++;
	if (r->p >= r->end || *r->p == '&')
		return bad(r, "a value is never closed, or holds an entity");
	const char *e = r->p;
	while (e > s && is_space(e[-1]))
		e--;
	if ((size_t)(e - s) >= cap)
		return bad(r, "a value is too long");
	memcpy(out, s, (size_t)(e - s));
	out[e - s] = 0;
	return 0;
}

static int expect_close(struct reader *r, const char *name)
{
	struct tag t;
	int rc = read_tag(r, &t);

	if (rc == 0 && (!t.closing || strcmp(t.name, name) != 0))
		rc = bad(r, "an element is not closed where it should be");
	return rc;
}

static int parse_u64(struct reader *r, const char *s, uint64_t *ret)
{
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return bad(r, "a number is expected");
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (*end || errno)
		return bad(r, "a number is expected");
	*ret = v;
	return 0;
}

static int parse_hex(struct reader *r, const char *s, uint8_t out[32])
{
	if (strlen(s) != BMAP_HEX_LEN)
		return bad(r, "a checksum is not 64 hex digits");
	for (int i = 0; i < 32; i++) {
		int v = 0;
		for (int k = 0; k < 2; k++) {
			char c = s[2 * i + k];
			int x = c >= '0' && c <= '9'   ? c - '0'
				: c >= 'a' && c <= 'f' ? c - 'a' + 10
				: c >= 'A' && c <= 'F' ? c - 'A' + 10
						       : -1;
			if (x < 0)
				return bad(r, "a checksum is not 64 hex digits");
			v = v * 16 + x;
		}
		out[i] = (uint8_t)v;
	}
	return 0;
}

/* <Range chksum="HEX"> FIRST-LAST </Range> (the opening tag read). */
static int read_range(struct reader *r, const struct tag *t, struct bmap *b)
{
	char text[64], *dash;
	struct bmap_range v = { 0 };
	int rc = read_text(r, text, sizeof(text));

	if (rc < 0)
		return rc;
	if (t->attr[0] && strcmp(t->attr, "chksum") != 0)
		return bad(r, "a Range has an unknown attribute");
	if (t->attr[0] && (rc = parse_hex(r, t->value, v.sha256)) < 0)
		return rc;
	v.has_sha256 = t->attr[0] != 0;
	/* "FIRST-LAST", or "FIRST - LAST" as bmaptool also reads it, or "FIRST" */
	char *last = NULL;
	if ((dash = strchr(text, '-'))) {
		last = dash + 1 + strspn(dash + 1, " \t\r\n");
		while (dash > text && is_space(dash[-1]))
			dash--;
		*dash = 0;
	}
	rc = parse_u64(r, text, &v.first);
	if (rc == 0)
		rc = last ? parse_u64(r, last, &v.last) : (v.last = v.first, 0);
	if (rc < 0)
		return rc;
	if (v.last < v.first || (b->n && v.first <= b->ranges[b->n - 1].last))
		return bad(r, "the ranges do not ascend apart from each other");
	if (b->n >= MAX_RANGES ||
	    array_grow((void **)&b->ranges, &b->cap, b->n + 1, sizeof(*b->ranges)) < 0)
		return -ENOMEM;
	b->ranges[b->n++] = v;
	return expect_close(r, "Range");
}

static int read_block_map(struct reader *r, struct bmap *b)
{
	struct tag t;

	for (;;) {
		int rc = read_tag(r, &t);
		if (rc < 0)
			return rc;
		if (t.closing)
			return strcmp(t.name, "BlockMap") == 0 ? 0
							       : bad(r, "BlockMap is not closed");
		if (strcmp(t.name, "Range") != 0)
			return bad(r, "BlockMap holds something else than Range");
		if ((rc = read_range(r, &t, b)) < 0)
			return rc;
	}
}

/* One scalar element of <bmap>, by name. */
static int read_field(struct reader *r, const struct tag *t, struct bmap *b, unsigned *seen)
{
	const char *name = t->name;
	static const char *const names[] = {
		"ImageSize",         "BlockSize",    "BlocksCount",
		"MappedBlocksCount", "ChecksumType", "BmapFileChecksum"
	};
	char text[80];
	unsigned i = 0;
	int rc;

	while (i < 6 && strcmp(names[i], name) != 0)
		i++;
	if (i == 6)
		return bad(r, "an element this format does not have");
	if (*seen & (1u << i))
		return bad(r, "an element appears twice");
	if (t->attr[0])
		return bad(r, "an element has an attribute this format does not give it");
	*seen |= 1u << i;
	skip_space(r);
	size_t at = (size_t)(r->p - r->text);
	if ((rc = read_text(r, text, sizeof(text))) < 0)
		return rc;
	if (i == 0)
		rc = parse_u64(r, text, &b->image_size);
	else if (i == 1)
		rc = parse_u64(r, text, &b->block_size);
	else if (i == 2)
		rc = parse_u64(r, text, &b->blocks);
	else if (i == 3)
		rc = parse_u64(r, text, &b->mapped);
	else if (i == 4)
		rc = strcmp(text, "sha256") == 0 ? 0 : bad(r, "only sha256 checksums are read");
	else {
		r->checksum_at = at;
		r->have_checksum = true;
		rc = parse_hex(r, text, r->file_sha);
	}
	return rc ? rc : expect_close(r, name);
}

/*
 * The format's version, MAJOR.MINOR: 2.x is read, and 1.4, which is 2.0 under the number
 * it was first released with (the same elements, ChecksumType included). 1.3 checks with
 * SHA-1 and 1.0 to 1.2 not at all; a later major version may mean other things.
 */
static int check_version(struct reader *r, const char *v)
{
	char *end;
	unsigned long major = strtoul(v, &end, 10), minor;

	if (!isdigit((unsigned char)*v) || *end != '.' || !isdigit((unsigned char)end[1]))
		return bad(r, "the version is not MAJOR.MINOR");
	minor = strtoul(end + 1, &end, 10);
	if (*end)
		return bad(r, "the version is not MAJOR.MINOR");
	if (major == 2 || (major == 1 && minor == 4))
		return 0;
	if (major == 1 && minor == 3)
		return bad(r, "block map format 1.3 checks its ranges with SHA-1, which sdimg does "
			      "not trust: make the map again (format 2.0, sha256)");
	if (major < 2)
		return bad(r, "block map format 1.0 to 1.2 has no checksums: make the map again "
			      "(format 2.0, sha256)");
	return bad(r, "a block map format newer than sdimg reads (1.4 and 2.x)");
}

static int read_bmap_element(struct reader *r, struct bmap *b)
{
	struct tag t;
	unsigned seen = 0;
	bool have_map = false;
	int rc = read_tag(r, &t);

	if (rc < 0)
		return rc;
	if (t.closing || strcmp(t.name, "bmap") != 0 || strcmp(t.attr, "version") != 0)
		return bad(r, "the file does not start with <bmap version=...>");
	if ((rc = check_version(r, t.value)) < 0)
		return rc;
	for (;;) {
		if ((rc = read_tag(r, &t)) < 0)
			return rc;
		if (t.closing && strcmp(t.name, "bmap") == 0)
			break;
		if (t.closing)
			return bad(r, "an element is closed that was not open");
		if (strcmp(t.name, "BlockMap") == 0) {
			if (have_map)
				return bad(r, "an element appears twice");
			have_map = true;
			rc = read_block_map(r, b);
		} else {
			rc = read_field(r, &t, b, &seen);
		}
		if (rc < 0)
			return rc;
	}
	if (seen != 0x3F || !have_map)
		return bad(r, "an element of the format is missing");
	if (skip_misc(r) < 0 || r->p != r->end)
		return bad(r, "something follows </bmap>");
	return 0;
}

/* The counts agree with each other and every range lies inside the image. */
static int check_counts(struct reader *r, const struct bmap *b)
{
	uint64_t mapped = 0;

	if (b->block_size != BMAP_BLOCK_SIZE)
		return bad(r, "BlockSize is not 4096");
	if (b->image_size > (1ull << 60) ||
	    b->blocks != (b->image_size + b->block_size - 1) / b->block_size)
		return bad(r, "BlocksCount does not follow from ImageSize");
	for (size_t i = 0; i < b->n; i++) {
		if (b->ranges[i].last >= b->blocks)
			return bad(r, "a range lies past the end of the image");
		if (!b->ranges[i].has_sha256)
			return bad(r, "a range has no chksum");
		mapped += b->ranges[i].last - b->ranges[i].first + 1;
	}
	if (mapped != b->mapped)
		return bad(r, "MappedBlocksCount does not match the ranges");
	return 0;
}

int bmap_parse(const char *text, size_t len, const char *name, struct bmap *b, struct diag *d)
{
	struct reader r = { .p = text, .end = text + len, .name = name, .text = text, .d = d };
	struct sha256 *sha = NULL;
	uint8_t sum[32];
	int rc;

	memset(b, 0, sizeof(*b));
	/* a UTF-8 byte order mark, which XML readers (and so bmaptool) pass over */
	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		r.p += 3;
	if (memchr(text, 0, len))
		rc = bad(&r, "it holds a NUL byte");
	else
		rc = read_bmap_element(&r, b);
	if (rc == 0)
		rc = check_counts(&r, b);
	if (rc == 0)
		rc = sha256_new(&sha, d);
	/* -EIO is told by the hasher; the field was read at r.checksum_at, so it fits there */
	if (rc == 0 && (rc = bmap_file_checksum(sha, text, len, r.checksum_at, sum)) == -EINVAL)
		rc = diag_error(d, "%s: BmapFileChecksum is not where it was read", name);
	sha256_free(sha);
	if (rc == 0 && memcmp(sum, r.file_sha, 32) != 0)
		rc = diag_error(d,
				"%s: the block map's own checksum (BmapFileChecksum) does not "
				"match: the file is damaged",
				name);
	if (rc == -ENOMEM)
		diag_error(d, "%s: out of memory", name);
	if (rc < 0)
		bmap_release(b);
	return rc;
}

void bmap_release(struct bmap *b)
{
	free(b->ranges);
	memset(b, 0, sizeof(*b));
}

int bmap_file_checksum(struct sha256 *sha, const char *text, size_t len, size_t at, uint8_t out[32])
{
	static const char zeros[BMAP_HEX_LEN + 1] =
		"0000000000000000000000000000000000000000000000000000000000000000";

	if (at + BMAP_HEX_LEN > len)
		return -EINVAL;
	sha256_update(sha, text, at);
	sha256_update(sha, zeros, BMAP_HEX_LEN);
	sha256_update(sha, text + at + BMAP_HEX_LEN, len - at - BMAP_HEX_LEN);
	return sha256_final(sha, out);
}
