/*
 * lex: tokens of the libconfuse syntax, read the way libconfuse 3.3's lexer reads them
 * (private to layouts/). Comments are dropped; quoted strings are unescaped; ${VAR} is
 * expanded through a callback, in double-quoted strings and as a bare token.
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

/*
 * Tokenizes @text of file @file into @out (appending). Problems are reported in @d as
 * "FILE:LINE: ...". Returns 0 or -EINVAL.
 */
int lex_text(const char *file, const char *text, lex_lookup_fn lookup, void *ctx,
	     struct diag *d, struct tok_list *out);

void tok_list_release(struct tok_list *l);

#endif
