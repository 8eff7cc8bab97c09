/* SPDX-License-Identifier: MIT */
/* parse internals, shared by parse.c and parse_errors.c (private to layouts/). */
#ifndef SDIMG_LAYOUTS_PARSE_PRIV_H
#define SDIMG_LAYOUTS_PARSE_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "layouts/lex.h"
#include "layouts/parse.h"

#define MAX_ERRORS 20 /* the parse stops after this many (a file that is no layout at all) */

struct parser {
	struct doc *doc;
	struct diag *d;
	size_t errors_before; /* d->errors when the parse began */
	const struct layout_options *opts;
	bool out_of_memory; /* recording a ${VAR} ran out of memory */
	/* the files being read, outermost first: the layout and its nested includes */
	const char *chain[1 + LAYOUT_INCLUDE_DEPTH_MAX];
	size_t n_chain;
	size_t n_includes; /* include() calls read so far */
	size_t text_used;  /* bytes of text so far: files read and ${VAR} values put in */
};

/* The tokens of one file, and the next one to read. */
struct cursor {
	const struct tok *v;
	size_t n, i;
	unsigned file; /* index into doc->files */
};

/* The token @ahead places after the current one, or NULL past the end of the file. */
static inline const struct tok *peek(const struct cursor *c, size_t ahead)
{
	return c->i + ahead < c->n ? &c->v[c->i + ahead] : NULL;
}

static inline bool is(const struct tok *t, enum tok_type type)
{
	return t && t->type == type;
}

static inline bool is_name(const struct tok *t)
{
	return is(t, TOK_WORD) || is(t, TOK_STRING);
}

/* Where @t stands; NULL (the end of the file) is the line of the file's last token. */
static inline struct layout_loc loc_of(const struct parser *p, const struct cursor *c,
				       const struct tok *t)
{
	/* c->v tested for a static analyser, which takes peek()'s NULL for a sign of a NULL v */
	int line = t ? t->line : c->n && c->v ? c->v[c->n - 1].line : 1;

	return (struct layout_loc){ p->doc->files[c->file], line };
}

/* "FILE:LINE: WHAT: MSG" about the contents of @s ("FILE:LINE: MSG" at the top level).
 * Returns -EINVAL. */
int layout_parse_error(struct parser *p, struct layout_loc loc, const struct tree_section *s,
		       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* "partition 'boot'", or "the top level": @s as the place where something appears twice. */
void layout_parse_label(const struct tree_section *s, char *buf, size_t n);

/* "'{' of NAME 'TITLE' is never closed", at @loc. Returns -EINVAL. */
int layout_parse_never_closed(struct parser *p, struct layout_loc loc, const char *name,
			      const char *title);

/* A symbol where a statement should start: reported (a syntax error). Returns -EINVAL. */
int layout_parse_stray(struct parser *p, struct cursor *c, const struct tree_section *s);

/*
 * At `key = NUMBER UNIT` ("size = 8 M": a space cut the unit off): reports it, steps past
 * the four tokens and returns 1; else 0.
 */
int layout_parse_cut_unit(struct parser *p, struct cursor *c, const struct tree_section *s);

/*
 * A name the key table does not know in @s: reported with the nearest known name, and
 * its statement (a key and its value, or a section and its body) skipped. Returns 0 so
 * that the parse goes on, or -EINVAL when a skipped section is never closed.
 */
int layout_parse_unknown(struct parser *p, struct cursor *c, const struct tree_section *s);

#endif
