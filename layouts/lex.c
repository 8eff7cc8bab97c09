/* SPDX-License-Identifier: MIT */
/* lex: the tokens of the layout language, with the line of each (see lex.h). */
#include "layouts/lex.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/strbuf.h"
#include "common/units.h"
#include "common/utf8.h"
#include "layouts/layouts.h"

struct lexer {
	const char *file;
	const char *p;
	int line;
	const struct lex_vars *vars;
	struct diag *d;
	struct tok_list *out;
	struct strbuf buf; /* the current string value */
	char quote;        /* '"' inside a double-quoted string, else '\0' */
};

static int emit(struct lexer *lx, enum tok_type type, const char *text, size_t n, int line)
{
	struct tok_list *l = lx->out;

	if (array_grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v)) < 0)
		return -ENOMEM;
	char *copy = strndup(text, n);
	if (!copy)
		return -ENOMEM;
	l->v[l->n++] = (struct tok){ .type = type, .text = copy, .line = line };
	return 0;
}

/* The characters that end an unquoted string (a word). */
static bool ends_word(const char *p)
{
	if (*p == '\0' || strchr(" #\"'\t\n\r={}()+,*", *p))
		return true;
	return p[0] == '/' && (p[1] == '/' || p[1] == '*');
}

static int unclosed_var(struct lexer *lx)
{
	return diag_error(lx->d, "%s:%d: '${' without a closing '}'", lx->file, lx->line);
}

/* The value of ${@name} into the string, within the limits of LAYOUT.md ("Limits"): each
 * is checked before the value is copied. */
static int put_value(struct lexer *lx, const char *name, const char *value)
{
	size_t n = strlen(value);
	char limit[32];

	if (n > LAYOUT_VALUE_MAX) {
		units_human(LAYOUT_VALUE_MAX, limit, sizeof(limit));
		return diag_error(lx->d,
				  "%s:%d: ${%s} is %zu bytes long: a variable's value "
				  "holds at most %s",
				  lx->file, lx->line, name, n, limit);
	}
	if (n > LAYOUT_TEXT_MAX - *lx->vars->text_used) {
		units_human(LAYOUT_TEXT_MAX, limit, sizeof(limit));
		return diag_error(lx->d,
				  "%s:%d: ${%s}: too large: a layout with its includes and "
				  "its variables' values holds at most %s of text",
				  lx->file, lx->line, name, limit);
	}
	*lx->vars->text_used += n;
	return strbuf_puts(&lx->buf, value);
}

static int expand_var(struct lexer *lx, unsigned depth, bool use);

/*
 * Whether the DEFAULT at @p has the '}' that closes it: on its line and, in a
 * double-quoted string, before the string's closing @quote (a \" is no closing quote);
 * each ${ in it opens one more '}'.
 */
static bool default_closed(const char *p, char quote)
{
	size_t open = 0;

	for (; *p && *p != '\n' && *p != quote; p++) {
		if (p[0] == '\\' && (p[1] == '$' || (quote && p[1] == quote))) {
			p++;
		} else if (p[0] == '$' && p[1] == '{') {
			open++;
			p++;
		} else if (*p == '}' && open-- == 0) {
			return true;
		}
	}
	return false;
}

/*
 * The DEFAULT of ${NAME:-DEFAULT}, lx->p at its first character, up to the '}' that
 * closes it (where lx->p is left): its text, with \$ for a '$' and each ${...} in it
 * expanded, goes into the string when @use, and is only read past otherwise (its
 * variables then need not be set).
 */
static int expand_default(struct lexer *lx, unsigned depth, bool use)
{
	int rc = 0;

	while (rc == 0 && *lx->p != '}') {
		if (*lx->p == '\0' || *lx->p == '\n')
			return unclosed_var(lx);
		if (lx->p[0] == '$' && lx->p[1] == '{') {
			rc = expand_var(lx, depth + 1, use);
			continue;
		}
		if (lx->p[0] == '\\' && lx->p[1] == '$')
			lx->p++;
		rc = use ? strbuf_putc(&lx->buf, *lx->p) : 0;
		lx->p++;
	}
	return rc;
}

/*
 * Expands the ${NAME} or ${NAME:-DEFAULT} at lx->p (which points at '$'), itself in
 * @depth defaults, into the string buffer when @use (else reads past it).
 */
static int expand_var(struct lexer *lx, unsigned depth, bool use)
{
	const char *name = lx->p + 2;
	size_t n = strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
	const char *after = name + n;
	bool has_default = after[0] == ':' && after[1] == '-';
	int rc = 0;

	if (n == 0 || isdigit((unsigned char)*name) || (*after != '}' && !has_default)) {
		if (name[strcspn(name, "}\n")] != '}')
			return unclosed_var(lx);
		return diag_error(lx->d,
				  "%s:%d: '${' must be followed by a variable name "
				  "(letters, digits, _) and '}'",
				  lx->file, lx->line);
	}
	if (depth > LAYOUT_DEFAULT_DEPTH_MAX)
		return diag_error(lx->d,
				  "%s:%d: defaults nested more than %d deep "
				  "(${A:-${B:-...}})",
				  lx->file, lx->line, LAYOUT_DEFAULT_DEPTH_MAX);
	char *var = strndup(name, n);
	if (!var)
		return -ENOMEM;
	const char *value = use ? lx->vars->lookup(lx->vars->ctx, var) : NULL;
	lx->p = after;
	if (has_default && !default_closed(after + 2, lx->quote)) {
		/* named before any variable of the default is looked up: the '}' missing here
		 * is the mistake, whatever the rest holds */
		rc = diag_error(lx->d, "%s:%d: '${%s:-' without a closing '}'%s", lx->file,
				lx->line, var,
				lx->quote ? " before the string's closing '\"'" : "");
	} else if (has_default) {
		lx->p += 2;
		rc = expand_default(lx, depth, use && !value);
	} else if (use && !value) {
		rc = diag_error(lx->d,
				"%s:%d: variable ${%s} is not set (set it in the environment or "
				"with --set %s=VALUE, or write ${%s:-DEFAULT}; a per-card file "
				"leaves it to each card with \\${%s})",
				lx->file, lx->line, var, var, var, var);
	}
	if (rc == 0 && value)
		rc = put_value(lx, var, value);
	free(var);
	if (rc == 0)
		lx->p++; /* the closing '}' */
	return rc;
}

/* A string is a C string all the way through sdimg: a NUL would cut it short silently. */
static int nul_error(struct lexer *lx)
{
	return diag_error(lx->d, "%s:%d: a NUL character cannot stand in a string", lx->file,
			  lx->line);
}

static int octal_escape(struct lexer *lx)
{
	unsigned v = 0;
	int n = 0;

	while (n < 3 && lx->p[n] >= '0' && lx->p[n] <= '7')
		v = v * 8 + (unsigned)(lx->p[n++] - '0');
	if (v > 0xff)
		return diag_error(lx->d, "%s:%d: invalid octal escape '\\%.*s'", lx->file, lx->line,
				  n, lx->p);
	if (v == 0)
		return nul_error(lx);
	lx->p += n;
	return strbuf_putc(&lx->buf, (char)v);
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* One escape in a double-quoted string; lx->p points after the backslash. */
static int dq_escape(struct lexer *lx)
{
	static const char from[] = "nrbfaetv";
	static const char to[] = "\n\r\b\f\a\033\t\v";
	char c = *lx->p;
	const char *k;

	if (c == '\0')
		return 0;
	if (c == '\n') { /* line continuation */
		lx->line++;
		lx->p++;
		return 0;
	}
	if (c >= '0' && c <= '7')
		return octal_escape(lx);
	if (c == 'x' && hex_value(lx->p[1]) >= 0) {
		int v = hex_value(lx->p[1]);
		lx->p += 2;
		if (hex_value(*lx->p) >= 0)
			v = v * 16 + hex_value(*lx->p++);
		return v ? strbuf_putc(&lx->buf, (char)v) : nul_error(lx);
	}
	if (c == '"' || c == '\\' || c == '$' || c == '\'') {
		lx->p++;
		return strbuf_putc(&lx->buf, c);
	}
	k = strchr(from, c);
	if (!k) {
		char one[2] = { c, '\0' }, shown[12];
		return diag_error(lx->d,
				  "%s:%d: unknown escape '\\%s' in a string (write '\\\\' "
				  "for a backslash, or use single quotes)",
				  lx->file, lx->line, utf8_shown(one, shown, sizeof(shown)));
	}
	lx->p++;
	return strbuf_putc(&lx->buf, to[k - from]);
}

/* A character taken as it is (a newline in a string counts as a line). */
static int plain_char(struct lexer *lx)
{
	if (*lx->p == '\n')
		lx->line++;
	return strbuf_putc(&lx->buf, *lx->p++);
}

/* One piece of a double-quoted string: an escape, a ${VAR}, or a character. */
static int dq_piece(struct lexer *lx)
{
	if (*lx->p == '\\') {
		lx->p++;
		return dq_escape(lx);
	}
	if (lx->p[0] == '$' && lx->p[1] == '{')
		return expand_var(lx, 0, true);
	return plain_char(lx);
}

/* One piece of a single-quoted string: only \' and \\ are escapes, and \ newline. */
static int sq_piece(struct lexer *lx)
{
	if (lx->p[0] == '\\' && lx->p[1] == '\n') {
		lx->line++;
		lx->p += 2;
		return 0;
	}
	if (lx->p[0] == '\\' && (lx->p[1] == '\\' || lx->p[1] == '\'')) {
		lx->p += 2;
		return strbuf_putc(&lx->buf, lx->p[-1]);
	}
	return plain_char(lx);
}

static int lex_quoted(struct lexer *lx, char quote, int (*piece)(struct lexer *))
{
	int line = lx->line;
	int rc = strbuf_reset(&lx->buf);

	lx->p++;
	lx->quote = quote == '"' ? quote : '\0';
	while (rc == 0 && *lx->p != quote) {
		if (*lx->p == '\0')
			return diag_error(lx->d, "%s:%d: string not closed (a %c is missing)",
					  lx->file, line, quote);
		rc = piece(lx);
	}
	lx->quote = '\0';
	if (rc < 0)
		return rc;
	lx->p++;
	return emit(lx, TOK_STRING, lx->buf.s, lx->buf.len, line);
}

/*
 * A bare ${VAR} and the word characters right after it, as one string: `${BOOT_SPACE:-40}M`
 * is "40M" (kickstart files write sizes so), each further ${...} in it expanded too.
 */
static int lex_bare_var(struct lexer *lx)
{
	int line = lx->line;
	int rc = strbuf_reset(&lx->buf);

	if (rc == 0)
		rc = expand_var(lx, 0, true);
	while (rc == 0 && !ends_word(lx->p)) {
		if (lx->p[0] == '$' && lx->p[1] == '{')
			rc = expand_var(lx, 0, true);
		else
			rc = strbuf_putc(&lx->buf, *lx->p++);
	}
	if (rc < 0)
		return rc;
	return emit(lx, TOK_STRING, lx->buf.s, lx->buf.len, line);
}

static void skip_line_comment(struct lexer *lx)
{
	while (*lx->p && *lx->p != '\n')
		lx->p++;
}

static int skip_block_comment(struct lexer *lx)
{
	int line = lx->line;
	const char *end = strstr(lx->p + 2, "*/");

	if (!end)
		return diag_error(lx->d, "%s:%d: comment not closed (a '*/' is missing)", lx->file,
				  line);
	for (const char *q = lx->p; q < end; q++)
		if (*q == '\n')
			lx->line++;
	lx->p = end + 2;
	return 0;
}

static int lex_symbol(struct lexer *lx)
{
	static const struct {
		const char *sym;
		enum tok_type type;
	} symbols[] = {
		{ "+=", TOK_PLUSEQ }, { "{", TOK_LBRACE }, { "}", TOK_RBRACE }, { "(", TOK_LPAREN },
		{ ")", TOK_RPAREN },  { "=", TOK_EQ },     { ",", TOK_COMMA },
	};

	for (size_t i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++) {
		size_t n = strlen(symbols[i].sym);
		if (strncmp(lx->p, symbols[i].sym, n) == 0) {
			lx->p += n;
			return emit(lx, symbols[i].type, symbols[i].sym, n, lx->line);
		}
	}
	return 1;
}

static int lex_one(struct lexer *lx)
{
	const char *p = lx->p;

	if (*p == ' ' || *p == '\t' || *p == '\r') {
		lx->p++;
		return 0;
	}
	if (*p == '\n') {
		lx->line++;
		lx->p++;
		return 0;
	}
	if (*p == '#' || (p[0] == '/' && p[1] == '/')) {
		skip_line_comment(lx);
		return 0;
	}
	if (p[0] == '/' && p[1] == '*')
		return skip_block_comment(lx);
	if (*p == '"')
		return lex_quoted(lx, '"', dq_piece);
	if (*p == '\'')
		return lex_quoted(lx, '\'', sq_piece);
	if (p[0] == '$' && p[1] == '{')
		return lex_bare_var(lx);
	int rc = lex_symbol(lx);
	if (rc <= 0)
		return rc;
	if (ends_word(p))
		return diag_error(lx->d, "%s:%d: unexpected character '%c'", lx->file, lx->line,
				  *p);
	while (!ends_word(lx->p))
		lx->p++;
	return emit(lx, TOK_WORD, p, (size_t)(lx->p - p), lx->line);
}

int layout_lex(const char *file, const char *text, const struct lex_vars *vars, struct diag *d,
	       struct tok_list *out)
{
	struct lexer lx = { .file = file, .p = text, .line = 1, .vars = vars, .d = d, .out = out };
	int rc = 0;

	/* a UTF-8 byte order mark, as some Windows editors write, is no part of the text
	 * (Unicode 15.0, 23.8: at the start of a UTF-8 stream it is only a signature) */
	if (strncmp(lx.p, "\xef\xbb\xbf", 3) == 0)
		lx.p += 3;
	while (rc == 0 && *lx.p)
		rc = lex_one(&lx);
	strbuf_release(&lx.buf);
	return rc;
}

void layout_tokens_release(struct tok_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].text);
	free(l->v);
	memset(l, 0, sizeof(*l));
}
