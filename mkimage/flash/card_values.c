/* SPDX-License-Identifier: MIT */
/* card_values: each card's own values (--card-values) and its bytes (see flash.h). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/path.h"
#include "common/strbuf.h"
#include "common/utf8.h"
#include "mkimage/flash/flash_priv.h"

static bool is_name(const char *s, size_t len)
{
	if (!len || !(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return false;
	return true;
}

/* ---------------------------------------------------------------- CSV (RFC 4180) */

/* One field at *@p (a line of the file), into @out; *@p moves past it and its comma.
 * Returns 1 when the line goes on, 0 at its end, -EINVAL for a broken quote. */
static int csv_field(const char **p, struct strbuf *out)
{
	const char *s = *p;
	int rc = strbuf_reset(out);

	if (*s == '"') {
		for (s++; rc == 0; s++) {
			if (*s == '\0')
				return -EINVAL;
			if (*s == '"' && s[1] == '"')
				rc = strbuf_putc(out, *s++);
			else if (*s == '"')
				break;
			else
				rc = strbuf_putc(out, *s);
		}
		s++;
		if (*s && *s != ',' && *s != '\n' && *s != '\r')
			return -EINVAL;
	} else {
		while (rc == 0 && *s && *s != ',' && *s != '\n' && *s != '\r')
			rc = strbuf_putc(out, *s++);
	}
	if (rc < 0)
		return rc;
	if (*s == ',') {
		*p = s + 1;
		return 1;
	}
	*p = s + strspn(s, "\r");
	if (**p == '\n')
		(*p)++;
	return 0;
}

/* The fields of the line at *@p into @ret (owned strings, *@n of them). */
static int csv_line(const char **p, char ***ret, size_t *n)
{
	struct strbuf f = { 0 };
	int more = 1;

	*ret = NULL;
	*n = 0;
	while (more == 1) {
		more = csv_field(p, &f);
		if (more < 0)
			break;
		char **v = realloc(*ret, (*n + 1) * sizeof(*v));
		if (!v) {
			more = -ENOMEM;
			break;
		}
		*ret = v;
		if (!((*ret)[(*n)++] = strdup(f.s ? f.s : ""))) {
			more = -ENOMEM;
			break;
		}
	}
	strbuf_release(&f);
	return more < 0 ? more : 0;
}

static void free_fields(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* A card-values file holds a line a card: 64 MiB is hundreds of thousands of cards, and a
 * card image given here by mistake is refused before it is read into memory. */
#define CARD_VALUES_MAX_BYTES (64u << 20)

/* The whole CSV text of @path, NUL-terminated (free() it), or NULL with the error in @d. */
static char *read_text(const char *path, struct diag *d)
{
	char *text = NULL;
	size_t len = 0;
	int rc = path_read_file(path, CARD_VALUES_MAX_BYTES, &text, &len);

	if (rc == -EFBIG)
		diag_error(d, "%s: over 64 MiB: not a card-values file", path);
	else if (rc == -ESPIPE)
		diag_error(d,
			   "%s: not a regular file (a FIFO, a socket or a device): the card "
			   "values are read only from a file",
			   path);
	else if (rc == -ENOMEM)
		diag_error(d, "%s: out of memory reading it", path);
	else if (rc < 0)
		diag_error(d, "%s: %s", path, strerror(-rc));
	else if (memchr(text, '\0', len))
		diag_error(d, "%s: a NUL byte: not a CSV text file", path);
	else
		return text;
	free(text);
	return NULL;
}

static int read_csv(struct flash_card_values *cv, const char *path, struct diag *d)
{
	char *text = read_text(path, d);
	const char *p = text;
	int line = 1, rc;

	if (!text)
		return -EINVAL;
	/* a UTF-8 byte order mark, as spreadsheets write "CSV UTF-8", is no part of the first
	 * name */
	if (strncmp(p, "\xEF\xBB\xBF", 3) == 0)
		p += 3;
	rc = csv_line(&p, &cv->names, &cv->n_names);
	for (size_t i = 0; rc == 0 && i < cv->n_names; i++)
		if (!is_name(cv->names[i], strlen(cv->names[i])))
			rc = diag_error(d, "%s:1: '%s' is not a variable name (letters, digits, _)",
					path, cv->names[i]);
	while (rc == 0 && *p) {
		char **f;
		size_t n;
		line++;
		if (*p == '\n' || (*p == '\r' && p[1] == '\n')) { /* a blank line */
			p += *p == '\r' ? 2 : 1;
			continue;
		}
		if ((rc = csv_line(&p, &f, &n)) == -EINVAL)
			rc = diag_error(d, "%s:%d: a quoted field that does not end", path, line);
		if (rc == 0 && n != cv->n_names)
			rc = diag_error(d, "%s:%d: %zu fields, the first line names %zu", path,
					line, n, cv->n_names);
		char ***rows = rc == 0 ? realloc(cv->rows, (cv->n_rows + 1) * sizeof(*rows)) : NULL;
		if (rows)
			cv->rows = rows;
		int *lines = rows ? realloc(cv->row_lines, (cv->n_rows + 1) * sizeof(*lines))
				  : NULL;
		if (lines)
			cv->row_lines = lines;
		if (rc == 0 && !lines)
			rc = -ENOMEM;
		if (rc == 0) {
			cv->row_lines[cv->n_rows] = line;
			cv->rows[cv->n_rows++] = f;
		} else {
			free_fields(f, n);
		}
	}
	if (rc == -EINVAL && !d->errors)
		rc = diag_error(d, "%s:1: a quoted field that does not end", path);
	free(text);
	return rc;
}

/* ---------------------------------------------------------------- counters */

#define INDEX_WIDTH_MAX 20 /* digits: 2^64 - 1 has 20 */
#define INDEX_HEX_MAX 16   /* hex digits of 2^64 - 1 */
#define INDEX_MAC_MAX 6    /* bytes of a MAC address (IEEE 802 EUI-48) */

/* How a counter writes the card's index: decimal ({index}, {index:N}, {index:0N}), N hex
 * digits ({index:hexN}) or N bytes of a MAC address, hex pairs joined by ':'
 * ({index:macN}). */
enum index_form { INDEX_DEC, INDEX_HEX, INDEX_MAC };

struct index_spec {
	enum index_form form;
	unsigned width; /* digits (0: none), or bytes of INDEX_MAC */
	bool zero;      /* INDEX_DEC: zero-padded */
	size_t used;    /* the bytes of the pattern it takes */
};

/* The number of @q up to '}', at most @max (else -ERANGE), into *@ret; *@end past it. */
static int width_at(const char *q, unsigned long max, unsigned *ret, const char **end)
{
	unsigned long w = 0;

	if (!isdigit((unsigned char)*q))
		return -EINVAL;
	for (; isdigit((unsigned char)*q); q++)
		w = w > max ? w : w * 10 + (unsigned long)(*q - '0');
	if (*q != '}')
		return -EINVAL;
	*end = q + 1;
	*ret = (unsigned)(w > max ? max + 1 : w);
	return w > max || w == 0 ? -ERANGE : 0;
}

/* The {index...} at @p into @ret. Returns 0, -EINVAL when @p starts no such thing, -ERANGE
 * for a width past its form's most. */
static int index_at(const char *p, struct index_spec *ret)
{
	const char *q = p + 7, *end = NULL;
	int rc;

	*ret = (struct index_spec){ .form = INDEX_DEC };
	if (strncmp(p, "{index}", 7) == 0) {
		ret->used = 7;
		return 0;
	}
	if (strncmp(p, "{index:", 7) != 0)
		return -EINVAL;
	if (strncmp(q, "hex", 3) == 0) {
		ret->form = INDEX_HEX;
		rc = width_at(q + 3, INDEX_HEX_MAX, &ret->width, &end);
	} else if (strncmp(q, "mac", 3) == 0) {
		ret->form = INDEX_MAC;
		rc = width_at(q + 3, INDEX_MAC_MAX, &ret->width, &end);
	} else {
		ret->zero = *q == '0';
		rc = width_at(q, INDEX_WIDTH_MAX, &ret->width, &end);
		if (rc == -ERANGE && ret->width == 0) /* {index:0}: no width */
			rc = 0;
	}
	if (rc == 0)
		ret->used = (size_t)(end - p);
	return rc;
}

/* NAME=PATTERN: PATTERN's {index...} is the card's index. */
static int add_counter(struct flash_card_values *cv, const char *spec, struct diag *d)
{
	int rc = flash_card_pattern_check(spec, d);

	if (rc < 0)
		return rc;
	char **v = realloc(cv->counters, (cv->n_counters + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	cv->counters = v;
	return (cv->counters[cv->n_counters++] = strdup(spec)) ? 0 : -ENOMEM;
}

/* @index as @is writes it into @out; -ERANGE when it has more hex digits or bytes than
 * the width (two cards would get one value). */
static int index_text(const struct index_spec *is, uint64_t index, char out[64])
{
	unsigned digits = is->form == INDEX_MAC ? 2 * is->width : is->width;

	if (is->form == INDEX_DEC) {
		snprintf(out, 64, is->zero ? "%0*" PRIu64 : "%*" PRIu64, (int)is->width, index);
		return 0;
	}
	if (digits < 16 && index >> (4 * digits))
		return -ERANGE;
	char *o = out;
	for (unsigned i = digits; i-- > 0;) {
		*o++ = "0123456789abcdef"[(index >> (4 * i)) & 15];
		if (is->form == INDEX_MAC && i && i % 2 == 0)
			*o++ = ':';
	}
	*o = '\0';
	return 0;
}

/* The value of counter @spec for card @index, in a new string in *@ret. Returns 0,
 * -ERANGE with a message in @d (the index does not fit its width), or -ENOMEM. */
static int counter_text(const char *spec, uint64_t index, char **ret, struct diag *d)
{
	struct strbuf s = { 0 };
	int rc = strbuf_puts(&s, "");

	for (const char *p = strchr(spec, '=') + 1; rc == 0 && *p;) {
		struct index_spec is;
		char num[64];
		if (*p == '{' && index_at(p, &is) == 0) {
			if ((rc = index_text(&is, index, num)) == -ERANGE)
				rc = diag_errno(d, -ERANGE,
						"--card-values: '%s': card %" PRIu64
						" does not fit "
						"%.*s: the card would get the value of an "
						"earlier one",
						spec, index, (int)is.used, p);
			if (rc == 0)
				rc = strbuf_puts(&s, num);
			p += is.used;
		} else {
			rc = strbuf_putc(&s, *p++);
		}
	}
	if (rc < 0) {
		strbuf_release(&s);
		return rc;
	}
	*ret = s.s;
	return 0;
}

/* ------------------------------------------------------------ MAC addresses */

/* @s is hex fields joined by ':', as a MAC address is written (at least three fields). */
static bool looks_like_mac(const char *s)
{
	size_t colons = 0;

	for (const char *p = s; *p; p++)
		if (*p == ':')
			colons++;
		else if (!isxdigit((unsigned char)*p))
			return false;
	return colons >= 2;
}

/* @s is six hex pairs joined by ':' (EUI-48 as IEEE 802 writes it, the form U-Boot's
 * string_to_enetaddr() reads), its bytes into @mac. */
static bool parse_mac(const char *s, uint8_t mac[6])
{
	for (int i = 0; i < 6; i++, s += 3) {
		if (!isxdigit((unsigned char)s[0]) || !isxdigit((unsigned char)s[1]) ||
		    s[2] != (i < 5 ? ':' : '\0'))
			return false;
		char pair[3] = { s[0], s[1], '\0' };
		mac[i] = (uint8_t)strtoul(pair, NULL, 16);
	}
	return true;
}

/* Why the address @mac is none a network interface can take, or NULL: IEEE 802 sets bit 0
 * of the first byte for group (multicast, broadcast) addresses, and U-Boot's
 * is_valid_ethaddr() refuses those and 00:00:00:00:00:00 (it then makes up a random one). */
static const char *mac_unfit(const uint8_t mac[6])
{
	if (mac[0] & 1)
		return "a multicast address (bit 0 of its first byte is set)";
	for (int i = 0; i < 6; i++)
		if (mac[i])
			return NULL;
	return "00:00:00:00:00:00, which U-Boot takes for no address";
}

/* Card @index's value @value of counter @spec, when it looks like a MAC address, is one a
 * card can take. Returns 0 or -EINVAL with a message in @d. */
static int check_mac_value(const char *spec, uint64_t index, const char *value, struct diag *d)
{
	uint8_t mac[6];
	const char *why;

	if (!parse_mac(value, mac) || !(why = mac_unfit(mac)))
		return 0;
	return diag_error(d, "--card-values: '%s': card %" PRIu64 " would get %s: %s", spec, index,
			  value, why);
}

/* counter_text(), and a value that is a MAC address one a card can take (-EINVAL). */
static int counter_value(const char *spec, uint64_t index, char **ret, struct diag *d)
{
	int rc = counter_text(spec, index, ret, d);

	if (rc == 0 && (rc = check_mac_value(spec, index, *ret, d)) < 0) {
		free(*ret);
		*ret = NULL;
	}
	return rc;
}

/* Each MAC address of the CSV (a field of six hex pairs) one a card can take, and none on
 * two rows of one column: two cards would get one address. */
static int check_csv_macs(const struct flash_card_values *cv, struct diag *d)
{
	for (size_t i = 0; i < cv->n_names; i++)
		for (size_t r = 0; r < cv->n_rows; r++) {
			uint8_t mac[6], other[6];
			const char *why;
			if (!parse_mac(cv->rows[r][i], mac))
				continue;
			if ((why = mac_unfit(mac)))
				return diag_error(d, "%s:%d: %s: %s is %s", cv->csv,
						  cv->row_lines[r], cv->names[i], cv->rows[r][i],
						  why);
			for (size_t q = 0; q < r; q++)
				if (parse_mac(cv->rows[q][i], other) &&
				    memcmp(mac, other, sizeof(mac)) == 0)
					return diag_error(d,
							  "%s:%d: %s: %s is on line %d too: two "
							  "cards would get one address",
							  cv->csv, cv->row_lines[r], cv->names[i],
							  cv->rows[r][i], cv->row_lines[q]);
		}
	return 0;
}

int flash_card_pattern_check(const char *spec, struct diag *d)
{
	const char *eq = strchr(spec, '=');
	bool mac_field = false, hex_field = false;

	if (!eq || !is_name(spec, (size_t)(eq - spec)))
		return diag_error(d, "--card-values: '%s' is neither NAME=PATTERN nor a CSV file",
				  spec);
	for (const char *b = strchr(eq, '{'); b; b = strchr(b + 1, '{')) {
		struct index_spec is;
		int rc = index_at(b, &is);
		if (rc == -ERANGE)
			return diag_error(d,
					  "--card-values: '%s': a width of at most %d digits "
					  "({index:0%d}), 1 to %d hex digits ({index:hex%d}) or "
					  "1 to %d bytes ({index:mac%d})",
					  spec, INDEX_WIDTH_MAX, INDEX_WIDTH_MAX, INDEX_HEX_MAX,
					  INDEX_HEX_MAX, INDEX_MAC_MAX, INDEX_MAC_MAX);
		if (rc < 0)
			return diag_error(d,
					  "--card-values: '%s': write {index}, {index:06}, "
					  "{index:hex6} or {index:mac3} for the card's number",
					  spec);
		mac_field |= is.form == INDEX_MAC;
		hex_field |= is.form == INDEX_HEX;
	}
	/* The form of a value does not change with the index: card 0's shows it. */
	char *value = NULL;
	uint8_t mac[6];
	int rc = counter_text(spec, 0, &value, d);
	if (rc < 0)
		return rc;
	if ((mac_field || (hex_field && looks_like_mac(value))) && !parse_mac(value, mac))
		rc = diag_error(d,
				"--card-values: '%s': gives %s, not a MAC address of six hex "
				"pairs joined by ':' (U-Boot would read another address); "
				"write the card's number as {index:macN}, the last N bytes",
				spec, value);
	else if (mac_field && mac[0] & 1)
		rc = diag_error(d, "--card-values: '%s': gives %s, %s", spec, value,
				"a multicast address (bit 0 of its first byte is set)");
	free(value);
	return rc;
}

/* Each variable's name once, none an id the card derives: the card would hold one value
 * and the report name another. */
static int check_names(const struct flash_card_values *cv, struct diag *d)
{
	size_t n = cv->n_names + cv->n_counters;

	for (size_t i = 0; i < n; i++) {
		bool col = i < cv->n_names;
		const char *name = col ? cv->names[i] : cv->counters[i - cv->n_names];
		int len = (int)(col ? strlen(name) : strcspn(name, "="));
		char *own = strndup(name, (size_t)len);
		const char *why = own ? cards_var_name_problem(own) : NULL;
		free(own);
		if (!own)
			return -ENOMEM;
		if (why)
			return col ? diag_error(d, "%s:1: '%.*s' %s", cv->csv, len, name, why)
				   : diag_error(d, "--card-values: '%.*s' %s", len, name, why);
		for (size_t k = 0; k < i; k++) {
			bool kcol = k < cv->n_names;
			const char *other = kcol ? cv->names[k] : cv->counters[k - cv->n_names];
			size_t olen = kcol ? strlen(other) : strcspn(other, "=");
			if (olen != (size_t)len || memcmp(other, name, olen) != 0)
				continue;
			if (col)
				return diag_error(d, "%s:1: '%.*s' names two columns", cv->csv, len,
						  name);
			return diag_error(d, "--card-values: '%.*s' %s", len, name,
					  kcol ? "is a column of the CSV file and a counter too"
					       : "has two counters");
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- the source */

/* IMAGE.cards.json, or beside the image without its compression suffix, into @path;
 * whether it exists. */
/* IMAGE.cards.json, or the name without its compression suffix (which unpack.c found:
 * card.img.zst -> card.img.cards.json) + .cards.json, into @path: whether it exists. */
static bool manifest_path(const struct flash_image *im, char *path, size_t n)
{
	size_t len = strlen(im->path);

	snprintf(path, n, "%s.cards.json", im->path);
	if (access(path, F_OK) != 0 && im->suffix_len && len > im->suffix_len)
		snprintf(path, n, "%.*s.cards.json", (int)(len - im->suffix_len), im->path);
	return access(path, F_OK) == 0;
}

/* Whether the file at @path is @st (the same device and inode). */
static bool same_file(const struct stat *st, const char *path)
{
	struct stat x;

	return path && stat(path, &x) == 0 && x.st_dev == st->st_dev && x.st_ino == st->st_ino;
}

const char *flash_run_input(const struct stat *st, const struct flash_options *o,
			    const struct flash_image *im)
{
	char path[4200];

	if (same_file(st, im->path))
		return "the image";
	if (same_file(st, im->bmap_path))
		return "its bmap";
	for (size_t i = 0; i < o->n_card_values; i++)
		if (!strchr(o->card_values[i], '=') && same_file(st, o->card_values[i]))
			return "the CSV of --card-values";
	if (manifest_path(im, path, sizeof(path)) && same_file(st, path))
		return "the image's per-card manifest";
	return NULL;
}

void flash_card_values_hint(const struct flash_image *im, struct diag *d)
{
	char path[4200];

	if (manifest_path(im, path, sizeof(path)))
		diag_warning(d,
			     "%s: the image has per-card values (%s): without --card-values "
			     "every card gets the image's own",
			     im->path, path);
}

static int read_manifest(struct flash_card_values *cv, const struct flash_image *im, struct diag *d)
{
	char path[4200];
	int rc;

	if (!manifest_path(im, path, sizeof(path)))
		return diag_error(d,
				  "%s: no per-card manifest beside it (%s.cards.json, which "
				  "sdimg build writes for a layout with per-card values)",
				  im->path, im->path);
	rc = cards_manifest_read(path, &cv->manifest, d);
	return rc < 0 ? rc : flash_cards_check(&cv->manifest, path, im->fd, im->path, im->size, d);
}

/* @rc, and a line that says so when it is -ENOMEM (which no callee has put into words). */
static int said_out_of_memory(int rc, const char *image, struct diag *d)
{
	return rc == -ENOMEM ? diag_errno(d, rc, "%s: out of memory for the cards' values", image)
			     : rc;
}

int flash_card_values_open(struct flash_card_values *cv, const char *const *specs, size_t n,
			   uint64_t first_index, const struct flash_image *im, struct diag *d)
{
	int rc = 0;

	*cv = (struct flash_card_values){ .next_index = first_index };
	for (size_t i = 0; rc == 0 && i < n; i++) {
		if (!strchr(specs[i], '=') && !cv->csv) {
			cv->csv = specs[i];
			rc = read_csv(cv, specs[i], d);
			if (rc == 0)
				rc = check_csv_macs(cv, d);
		} else if (!strchr(specs[i], '=')) {
			rc = diag_error(d, "--card-values: one CSV file only ('%s' and '%s')",
					cv->csv, specs[i]);
		} else {
			rc = add_counter(cv, specs[i], d);
		}
	}
	if (rc == 0)
		rc = check_names(cv, d);
	if (rc == 0)
		rc = read_manifest(cv, im, d);
	return said_out_of_memory(rc, im->path, d);
}

void flash_card_values_close(struct flash_card_values *cv)
{
	for (size_t i = 0; i < cv->n_rows; i++)
		free_fields(cv->rows[i], cv->n_names);
	free(cv->rows);
	free(cv->row_lines);
	free_fields(cv->names, cv->n_names);
	free_fields(cv->counters, cv->n_counters);
	cards_manifest_release(&cv->manifest);
	*cv = (struct flash_card_values){ 0 };
}

void flash_card_release(struct flash_card_set *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n_vars; i++) {
		free((char *)c->vars[i].name);
		free((char *)c->vars[i].value);
	}
	free(c->vars);
	flash_patches_release(&c->patches);
	free(c);
}

static int add_value(struct flash_card_set *c, const char *name, char *value)
{
	char *n = strdup(name);

	if (!n || !value) {
		free(n);
		free(value);
		return -ENOMEM;
	}
	c->vars[c->n_vars++] = (struct cards_var){ .name = n, .value = value };
	return 0;
}

int flash_card_values_next(struct flash_card_values *cv, int fd, const char *image,
			   struct flash_card_set **ret, struct diag *d)
{
	struct flash_card_set *c = calloc(1, sizeof(*c));
	int rc = 0;

	*ret = NULL;
	if (!c || !(c->vars = calloc(cv->n_names + cv->n_counters + 1, sizeof(*c->vars)))) {
		free(c);
		return said_out_of_memory(-ENOMEM, image, d);
	}
	c->index = cv->next_index++;
	if (cv->csv) {
		if (c->index < 1 || c->index > cv->n_rows)
			rc = diag_error(d, "%s: no row %" PRIu64 " for this card (it has %zu)",
					cv->csv, c->index, cv->n_rows);
		else
			c->row = (size_t)c->index;
	}
	for (size_t i = 0; rc == 0 && c->row && i < cv->n_names; i++)
		rc = add_value(c, cv->names[i], strdup(cv->rows[c->row - 1][i]));
	for (size_t i = 0; rc == 0 && i < cv->n_counters; i++) {
		char *name = strndup(cv->counters[i], strcspn(cv->counters[i], "=")), *value = NULL;
		rc = name ? counter_value(cv->counters[i], c->index, &value, d) : -ENOMEM;
		if (rc == 0)
			rc = add_value(c, name, value);
		free(name);
	}
	if (rc == 0)
		rc = flash_cards_patches(&cv->manifest, c->vars, c->n_vars, fd, image, &c->patches,
					 d);
	if (rc < 0) {
		flash_card_release(c);
		return said_out_of_memory(rc, image, d);
	}
	*ret = c;
	return 0;
}

json_t *flash_card_json(const struct flash_card_set *c)
{
	json_t *o = json_object(), *v = json_object();

	for (size_t i = 0; o && v && i < c->n_vars; i++)
		json_object_set_new(v, c->vars[i].name, utf8_json_string(c->vars[i].value));
	if (o) {
		json_object_set_new(o, "index", json_integer((json_int_t)c->index));
		json_object_set_new(o, "row",
				    c->row ? json_integer((json_int_t)c->row) : json_null());
		json_object_set_new(o, "values", v);
	}
	return o;
}

int flash_card_mapped(const struct flash_card_set *c, const struct flash_image *im, struct diag *d)
{
	for (size_t i = 0; i < c->patches.n; i++) {
		const struct flash_patch *p = &c->patches.v[i];
		size_t k = 0;
		while (k < im->n_ranges && im->ranges[k].end <= p->offset)
			k++;
		if (k == im->n_ranges || im->ranges[k].start > p->offset ||
		    im->ranges[k].end < p->offset + p->len)
			return diag_error(d,
					  "%s: bytes %" PRIu64 "-%" PRIu64 " hold per-card values "
					  "but are not mapped (flash with the bmap sdimg build "
					  "--bmap writes)",
					  im->path, p->offset, p->offset + p->len - 1);
	}
	return 0;
}
