/* SPDX-License-Identifier: MIT */
/*
 * lex: the tokens of the layout language (private to layouts/; LAYOUT.md, "Syntax details").
 *
 *   - words: unquoted strings, ended by white space, by one of # " ' = { } ( ) + , * and
 *     by the start of a comment;
 *   - strings: "..." with C-like escapes (\n \t \\ \" \$ \ooo \xhh ..., backslash-newline
 *     continues the line) and ${VAR} expanded; '...' literal but for \' and \\;
 *   - a bare ${VAR} or ${VAR:-default}: a string holding the variable's value (a default
 *     may hold ${...} itself, up to LAYOUT_DEFAULT_DEPTH_MAX deep, and \$ for a '$'),
 *     followed by the word characters right after it (`${SIZE:-40}M` is "40M");
 *   - the symbols { } ( ) = += and ,;
 *   - comments (# and // to the end of the line, and slash-star to star-slash across
 *     lines) and white space are dropped.
 * Every token carries the line it starts on, counted in the file it comes from.
 */
#ifndef SDIMG_LAYOUTS_LEX_H
#define SDIMG_LAYOUTS_LEX_H

#include <stddef.h>

#include "common/diag.h"

enum tok_type {
	TOK_WORD,   /* an unquoted string */
	TOK_STRING, /* a quoted string, or an expanded bare ${VAR} */
	TOK_LBRACE,
	TOK_RBRACE,
	TOK_LPAREN,
	TOK_RPAREN,
	TOK_EQ,
	TOK_PLUSEQ,
	TOK_COMMA,
};

struct tok {
	enum tok_type type;
	char *text; /* owned: the value for words and strings, the symbol otherwise */
	int line;
};

struct tok_list {
	struct tok *v;
	size_t n, cap;
};

/*
 * Looks up ${NAME}: returns the value (borrowed), or NULL when NAME is not defined.
 */
typedef const char *(*lex_lookup_fn)(void *ctx, const char *name);

/* Where ${NAME} finds its value, and the text the layout holds so far. */
struct lex_vars {
	lex_lookup_fn lookup;
	void *ctx;
	size_t *text_used; /* bytes of the layout's text so far: each value put in adds to it,
			      up to LAYOUT_TEXT_MAX */
};

/*
 * Tokenizes @text of file @file into @out (appending); a UTF-8 byte order mark at its
 * start is skipped. Returns 0, -EINVAL with the problem in @d as "FILE:LINE: ...", or
 * -ENOMEM (for the caller to report).
 */
int layout_lex(const char *file, const char *text, const struct lex_vars *vars, struct diag *d,
	       struct tok_list *out);

/* Frees the tokens and their texts; @l is left empty. */
void layout_tokens_release(struct tok_list *l);

#endif
