/* SPDX-License-Identifier: MIT */
/*
 * gcfg: the parser of genimage's configuration language (see gcfg.h). A hand-written lexer
 * and a recursive descent over its tokens; every error names FILE:LINE and what was found.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/array.h"
#include "common/path.h"
#include "common/strbuf.h"
#include "mkimage/importer/gcfg.h"

/* Bounds against a hostile or mistaken config: include depth, file size, nesting. */
#define GCFG_MAX_INCLUDES 16
#define GCFG_MAX_FILE (1u << 20)
#define GCFG_MAX_DEPTH 32
#define GCFG_MAX_VAR_DEPTH 8

/* What a failed read of a config file says. */
static const char *read_error(int rc)
{
	return rc == -EFBIG ? "too large: a genimage config holds at most 1 MiB" : strerror(-rc);
}

enum gcfg_tok {
	T_EOF,
	T_WORD,
	T_STRING,
	T_LBRACE,
	T_RBRACE,
	T_LPAREN,
	T_RPAREN,
	T_EQ,
	T_PLUSEQ,
	T_COMMA,
	T_ERROR
};

struct gcfg_lexer {
	const char *file; /* owned by the root */
	const char *s, *end;
	unsigned line;
	unsigned tok_line;
	enum gcfg_tok tok;
	struct strbuf text; /* the word's or string's text, variables expanded */
	const struct import_options *o;
	struct diag *d;
};

struct gcfg_parser {
	struct gcfg_node *root;
	const struct import_options *o;
	struct diag *d;
	unsigned includes;
	size_t files_cap;
};

static int lex_error(struct gcfg_lexer *lx, unsigned line, const char *what)
{
	diag_error(lx->d, "%s:%u: %s", lx->file, line, what);
	lx->tok = T_ERROR;
	return -EINVAL;
}

/* Skips white space and comments; counts lines. */
static int skip_blank(struct gcfg_lexer *lx)
{
	while (lx->s < lx->end) {
		char c = *lx->s;
		if (c == '\n') {
			lx->line++;
			lx->s++;
		} else if (isspace((unsigned char)c)) {
			lx->s++;
		} else if (c == '#' || (c == '/' && lx->s + 1 < lx->end && lx->s[1] == '/')) {
			while (lx->s < lx->end && *lx->s != '\n')
				lx->s++;
		} else if (c == '/' && lx->s + 1 < lx->end && lx->s[1] == '*') {
			unsigned start = lx->line;
			lx->s += 2;
			while (lx->s + 1 < lx->end && !(lx->s[0] == '*' && lx->s[1] == '/')) {
				if (*lx->s == '\n')
					lx->line++;
				lx->s++;
			}
			if (lx->s + 1 >= lx->end)
				return lex_error(lx, start, "'/*' comment without its '*/'");
			lx->s += 2;
		} else {
			break;
		}
	}
	return 0;
}

/* The value of variable @name (@n bytes): --set first, then the environment; or NULL. */
static const char *var_value(const struct import_options *o, const char *name, size_t n)
{
	for (size_t i = o->n_sets; i-- > 0;) {
		const char *eq = strchr(o->sets[i], '=');
		if (eq && (size_t)(eq - o->sets[i]) == n && !strncmp(o->sets[i], name, n))
			return eq + 1;
	}
	char *key = strndup(name, n);
	const char *v = key ? getenv(key) : NULL;
	free(key);
	return v;
}

static int expand_var(struct gcfg_lexer *lx, struct strbuf *out, const char **p, const char *end,
		      unsigned depth);

/* Appends text from *@p up to @stop (exclusive, or @end), expanding ${...}. */
static int expand_until(struct gcfg_lexer *lx, struct strbuf *out, const char **p, const char *end,
			char stop, unsigned depth)
{
	while (*p < end && **p != stop) {
		if (**p == '$' && *p + 1 < end && (*p)[1] == '{') {
			int r = expand_var(lx, out, p, end, depth);
			if (r)
				return r;
			continue;
		}
		if (strbuf_putc(out, **p))
			return -ENOMEM;
		(*p)++;
	}
	return 0;
}

/* At "${": appends the variable's value (or its ":-" default) and moves past the '}'. */
static int expand_var(struct gcfg_lexer *lx, struct strbuf *out, const char **p, const char *end,
		      unsigned depth)
{
	const char *name = *p + 2, *q = name;
	const char *v;

	if (depth >= GCFG_MAX_VAR_DEPTH)
		return lex_error(lx, lx->tok_line, "variable defaults nest too deep");
	while (q < end && (isalnum((unsigned char)*q) || *q == '_'))
		q++;
	if (q == name || q >= end || (*q != '}' && *q != ':'))
		return lex_error(lx, lx->tok_line, "'${' without a variable name and '}'");
	v = var_value(lx->o, name, (size_t)(q - name));
	if (*q == '}') {
		if (!v) {
			diag_error(lx->d,
				   "%s:%u: variable ${%.*s} is not set (give --set %.*s=VALUE)",
				   lx->file, lx->tok_line, (int)(q - name), name, (int)(q - name),
				   name);
			lx->tok = T_ERROR;
			return -EINVAL;
		}
		*p = q + 1;
		return strbuf_puts(out, v) ? -ENOMEM : 0;
	}
	if (q + 1 >= end || q[1] != '-')
		return lex_error(lx, lx->tok_line,
				 "'${VAR:' is neither '${VAR}' nor '${VAR:-DEFAULT}'");
	*p = q + 2;
	if (v && *v) {
		struct strbuf skip = { 0 };
		int r = expand_until(lx, &skip, p, end, '}', depth + 1);
		strbuf_release(&skip);
		if (r)
			return r;
		if (strbuf_puts(out, v))
			return -ENOMEM;
	} else {
		int r = expand_until(lx, out, p, end, '}', depth + 1);
		if (r)
			return r;
	}
	if (*p >= end)
		return lex_error(lx, lx->tok_line, "'${VAR:-' without its closing '}'");
	(*p)++;
	return 0;
}

/* The '}' that closes the "${" at @s (defaults nest), or NULL when @stop or @end comes
 * first. */
static const char *closing_brace(const char *s, const char *end, char stop)
{
	unsigned open = 0;

	for (; s < end && *s != stop; s++) {
		if (*s == '$' && s + 1 < end && s[1] == '{') {
			open++;
			s++;
		} else if (*s == '}' && --open == 0) {
			return s;
		}
	}
	return NULL;
}

/* Where an unquoted word ends (libconfuse's unquoted strings). */
static bool word_char(char c)
{
	return !isspace((unsigned char)c) && !strchr("{}()=+,\"'#", c) && c != '\0';
}

/* The word at lx->s, with its ${VAR} expanded (a variable's text is not split again). */
static int lex_word(struct gcfg_lexer *lx)
{
	const char *start = lx->s;

	while (lx->s < lx->end && word_char(*lx->s)) {
		if (*lx->s == '/' && lx->s + 1 < lx->end && (lx->s[1] == '/' || lx->s[1] == '*'))
			break;
		if (*lx->s == '$' && lx->s + 1 < lx->end && lx->s[1] == '{') {
			/* the braces of ${...} belong to the word */
			const char *q = closing_brace(lx->s, lx->end, '\n');
			if (!q)
				return lex_error(lx, lx->line, "'${' without its closing '}'");
			lx->s = q + 1;
			continue;
		}
		lx->s++;
	}
	const char *p = start;
	int r = expand_until(lx, &lx->text, &p, lx->s, '\0', 0);
	if (r)
		return r;
	lx->tok = T_WORD;
	return 0;
}

static int escape_char(char c, char *ret)
{
	static const char from[] = "ntr\\\"'$abfv", to[] = "\n\t\r\\\"'$\a\b\f\v";
	const char *f = strchr(from, c);

	if (!f || !c)
		return -EINVAL;
	*ret = to[f - from];
	return 0;
}

/* A "..." string (escapes, ${VAR}) or a '...' one (taken as written). */
static int lex_string(struct gcfg_lexer *lx)
{
	char quote = *lx->s++;

	while (lx->s < lx->end && *lx->s != quote) {
		char c = *lx->s;
		if (c == '\n')
			lx->line++;
		if (c == '\0')
			return lex_error(lx, lx->line, "a NUL character in a string");
		if (c == '\\' && lx->s + 1 < lx->end) {
			char e;
			if (quote == '\'' && lx->s[1] != '\'' && lx->s[1] != '\\') {
				e = '\\';
				lx->s++;
			} else if (escape_char(lx->s[1], &e) == 0) {
				lx->s += 2;
			} else {
				return lex_error(lx, lx->line, "unknown escape in a string");
			}
			if (strbuf_putc(&lx->text, e))
				return -ENOMEM;
			continue;
		}
		if (quote == '"' && c == '$' && lx->s + 1 < lx->end && lx->s[1] == '{') {
			const char *q = closing_brace(lx->s, lx->end, quote);
			if (!q)
				return lex_error(lx, lx->tok_line, "'${' without its closing '}'");
			const char *p = lx->s;
			int r = expand_var(lx, &lx->text, &p, q + 1, 0);
			if (r)
				return r;
			lx->s = p;
			continue;
		}
		if (strbuf_putc(&lx->text, c))
			return -ENOMEM;
		lx->s++;
	}
	if (lx->s >= lx->end)
		return lex_error(lx, lx->tok_line, "a string without its closing quote");
	lx->s++;
	lx->tok = T_STRING;
	return 0;
}

/* Reads the next token into lx->tok (and lx->text). */
static int lex_next(struct gcfg_lexer *lx)
{
	static const char singles[] = "{}()=,";
	static const enum gcfg_tok single_toks[] = { T_LBRACE, T_RBRACE, T_LPAREN,
						     T_RPAREN, T_EQ,     T_COMMA };
	int r = skip_blank(lx);
	const char *c;

	if (r)
		return r;
	if (strbuf_reset(&lx->text))
		return -ENOMEM;
	lx->tok_line = lx->line;
	if (lx->s >= lx->end) {
		lx->tok = T_EOF;
		return 0;
	}
	if (*lx->s == '+' && lx->s + 1 < lx->end && lx->s[1] == '=') {
		lx->s += 2;
		lx->tok = T_PLUSEQ;
		return 0;
	}
	c = strchr(singles, *lx->s);
	if (c && *lx->s) {
		lx->s++;
		lx->tok = single_toks[c - singles];
		return 0;
	}
	if (*lx->s == '"' || *lx->s == '\'')
		return lex_string(lx);
	if (!word_char(*lx->s)) {
		char what[64];
		snprintf(what, sizeof(what), "unexpected character '%c'",
			 isprint((unsigned char)*lx->s) ? *lx->s : '?');
		return lex_error(lx, lx->line, what);
	}
	return lex_word(lx);
}

static const char *tok_name(enum gcfg_tok t)
{
	static const char *const names[] = { "the end of the file",
					     "a word",
					     "a string",
					     "'{'",
					     "'}'",
					     "'('",
					     "')'",
					     "'='",
					     "'+='",
					     "','",
					     "an error" };
	return names[t];
}

static int unexpected(struct gcfg_lexer *lx, const char *wanted)
{
	char what[160];

	if (lx->tok == T_ERROR)
		return -EINVAL;
	snprintf(what, sizeof(what), "expected %s, found %s", wanted, tok_name(lx->tok));
	return lex_error(lx, lx->tok_line, what);
}

static struct gcfg_node *add_kid(struct gcfg_node *s, size_t *cap)
{
	if (array_grow((void **)&s->kids, cap, s->n_kids + 1, sizeof(*s->kids)))
		return NULL;
	struct gcfg_node *n = &s->kids[s->n_kids++];
	memset(n, 0, sizeof(*n));
	return n;
}

static int add_value(struct gcfg_node *k, size_t *cap, const char *text)
{
	char *v = strdup(text);

	if (!v || array_grow((void **)&k->values, cap, k->n_values + 1, sizeof(*k->values))) {
		free(v);
		return -ENOMEM;
	}
	k->values[k->n_values++] = v;
	return 0;
}

static bool is_value(enum gcfg_tok t)
{
	return t == T_WORD || t == T_STRING;
}

/* After `key =` (or `+=`): a value or a `{ a, b, ... }` list. */
static int parse_value(struct gcfg_lexer *lx, struct gcfg_node *k)
{
	size_t cap = 0;
	int r = lex_next(lx);

	if (r)
		return r;
	if (is_value(lx->tok))
		return add_value(k, &cap, lx->text.s);
	if (lx->tok != T_LBRACE)
		return unexpected(lx, "a value or '{'");
	k->list = true;
	if ((r = lex_next(lx)))
		return r;
	while (lx->tok != T_RBRACE) {
		if (!is_value(lx->tok))
			return unexpected(lx, "a list item or '}'");
		if ((r = add_value(k, &cap, lx->text.s)))
			return r;
		if ((r = lex_next(lx)))
			return r;
		if (lx->tok == T_COMMA && (r = lex_next(lx)))
			return r;
	}
	return 0;
}

static int parse_file(struct gcfg_parser *ps, const char *path, const char *text, size_t len,
		      struct gcfg_node *into, size_t *cap, unsigned depth);

/* `include("file")`, resolved against the including file's folder, read into @into. */
static int parse_include(struct gcfg_parser *ps, struct gcfg_lexer *lx, struct gcfg_node *into,
			 size_t *cap, unsigned depth)
{
	char *dir, *path, *text = NULL;
	size_t len;
	unsigned line = lx->tok_line;
	int r;

	if ((r = lex_next(lx)))
		return r;
	if (lx->tok != T_LPAREN)
		return unexpected(lx, "'(' after include");
	if ((r = lex_next(lx)))
		return r;
	if (!is_value(lx->tok))
		return unexpected(lx, "a file name in include()");
	if (++ps->includes > GCFG_MAX_INCLUDES * 16 || depth >= GCFG_MAX_INCLUDES)
		return lex_error(lx, line, "include() nests too deep (an include of itself?)");
	dir = path_dir(lx->file);
	path = dir ? path_join(dir, lx->text.s) : NULL;
	free(dir);
	if (!path)
		return -ENOMEM;
	r = path_read_file(path, GCFG_MAX_FILE, &text, &len);
	if (!r && (r = import_inputs_note(ps->o->inputs, path)))
		free(text);
	if (r) {
		diag_error(ps->d, "%s:%u: include(\"%s\"): %s", lx->file, line, path,
			   read_error(r));
		free(path);
		lx->tok = T_ERROR;
		return r;
	}
	r = parse_file(ps, path, text, len, into, cap, depth + 1);
	free(path);
	free(text);
	if (r) {
		lx->tok = T_ERROR;
		return r;
	}
	if ((r = lex_next(lx)))
		return r;
	return lx->tok == T_RPAREN ? 0 : unexpected(lx, "')' after include(\"FILE\"");
}

/* Statements until '}' (or the end of the file when @top). */
static int parse_body(struct gcfg_parser *ps, struct gcfg_lexer *lx, struct gcfg_node *s,
		      size_t *cap, bool top, unsigned depth)
{
	int r;

	if (depth > GCFG_MAX_DEPTH)
		return lex_error(lx, lx->tok_line, "sections nest too deep");
	for (;;) {
		if ((r = lex_next(lx)))
			return r;
		if (lx->tok == (top ? T_EOF : T_RBRACE))
			return 0;
		if (lx->tok != T_WORD)
			return unexpected(lx,
					  top ? "a section or a key" : "a key, a section or '}'");
		if (!strcmp(lx->text.s, "include")) {
			if ((r = parse_include(ps, lx, s, cap, depth)))
				return r;
			continue;
		}
		struct gcfg_node *n = add_kid(s, cap);
		if (!n || !(n->name = strdup(lx->text.s)))
			return -ENOMEM;
		n->file = lx->file;
		n->line = lx->tok_line;
		if ((r = lex_next(lx)))
			return r;
		if (lx->tok == T_EQ || lx->tok == T_PLUSEQ) {
			if (lx->tok == T_PLUSEQ)
				return lex_error(lx, lx->tok_line,
						 "'+=' is not supported: give the whole list");
			if ((r = parse_value(lx, n)))
				return r;
			continue;
		}
		if (is_value(lx->tok)) {
			if (!(n->title = strdup(lx->text.s)))
				return -ENOMEM;
			if ((r = lex_next(lx)))
				return r;
		}
		if (lx->tok != T_LBRACE)
			return unexpected(lx, "'=' or '{'");
		n->section = true;
		size_t kcap = 0;
		/* @n may move while its kids are read: parse into a copy, then store it */
		struct gcfg_node sec = *n;
		r = parse_body(ps, lx, &sec, &kcap, false, depth + 1);
		s->kids[s->n_kids - 1] = sec;
		if (r)
			return r;
	}
}

static int parse_file(struct gcfg_parser *ps, const char *path, const char *text, size_t len,
		      struct gcfg_node *into, size_t *cap, unsigned depth)
{
	struct gcfg_node *root = ps->root;
	char *name = strdup(path);
	int r;

	if (!name || array_grow((void **)&root->files, &ps->files_cap, root->n_files + 1,
				sizeof(*root->files))) {
		free(name);
		return -ENOMEM;
	}
	root->files[root->n_files++] = name;
	struct gcfg_lexer lx = { .file = name,
				 .s = text,
				 .end = text + len,
				 .line = 1,
				 .o = ps->o,
				 .d = ps->d };
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		lx.s += 3;
	r = parse_body(ps, &lx, into, cap, true, depth);
	strbuf_release(&lx.text);
	return r;
}

int import_gcfg_parse_text(const char *path, const char *text, size_t len,
			   const struct import_options *o, struct diag *d,
			   struct gcfg_node **ret_root)
{
	struct gcfg_parser ps = { .o = o, .d = d };
	size_t cap = 0;
	int r;

	*ret_root = NULL;
	if (!(ps.root = calloc(1, sizeof(*ps.root))))
		return -ENOMEM;
	ps.root->section = true;
	if (memchr(text, '\0', len)) {
		import_gcfg_free(ps.root);
		return diag_error(d, "%s: a NUL byte: this is no genimage configuration", path);
	}
	r = parse_file(&ps, path, text, len, ps.root, &cap, 0);
	if (r) {
		if (r == -ENOMEM)
			diag_errno(d, r, "%s: out of memory", path);
		import_gcfg_free(ps.root);
		return r;
	}
	*ret_root = ps.root;
	return 0;
}

int import_gcfg_parse_file(const char *path, const struct import_options *o, struct diag *d,
			   struct gcfg_node **ret_root)
{
	char *text = NULL;
	size_t len;
	int r = path_read_file(path, GCFG_MAX_FILE, &text, &len);

	*ret_root = NULL;
	if (!r && (r = import_inputs_note(o->inputs, path)))
		free(text);
	if (r)
		return diag_errno(d, r, "%s: %s", path, read_error(r));
	r = import_gcfg_parse_text(path, text, len, o, d, ret_root);
	free(text);
	return r;
}

static void free_node(struct gcfg_node *n)
{
	for (size_t i = 0; i < n->n_values; i++)
		free(n->values[i]);
	free(n->values);
	for (size_t i = 0; i < n->n_kids; i++)
		free_node(&n->kids[i]);
	free(n->kids);
	free(n->name);
	free(n->title);
}

void import_gcfg_free(struct gcfg_node *root)
{
	if (!root)
		return;
	free_node(root);
	for (size_t i = 0; i < root->n_files; i++)
		free(root->files[i]);
	free(root->files);
	free(root);
}

const struct gcfg_node *import_gcfg_key(const struct gcfg_node *s, const char *name)
{
	for (size_t i = 0; i < s->n_kids; i++)
		if (!s->kids[i].section && !strcmp(s->kids[i].name, name))
			return &s->kids[i];
	return NULL;
}

const char *import_gcfg_str(const struct gcfg_node *s, const char *name)
{
	const struct gcfg_node *k = import_gcfg_key(s, name);

	return k && k->n_values ? k->values[0] : NULL;
}

int import_gcfg_size(const char *text, uint64_t *ret)
{
	static const char units[] = "kKmMgGtTs";
	static const unsigned shifts[] = { 10, 10, 20, 20, 30, 30, 40, 40, 9 };
	char *end;
	unsigned long long v;
	const char *u;

	if (!isdigit((unsigned char)text[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(text, &end, 0);
	if (errno)
		return -EINVAL;
	if (*end) {
		if (!(u = strchr(units, *end)) || end[1])
			return -EINVAL;
		unsigned sh = shifts[u - units];
		if (v > (UINT64_MAX >> sh))
			return -EINVAL;
		v <<= sh;
	}
	*ret = v;
	return 0;
}

int import_gcfg_bool(const char *text, bool *ret)
{
	static const char *const yes[] = { "true", "yes", "on" }, *const no[] = { "false", "no",
										  "off" };
	for (size_t i = 0; i < 3; i++) {
		if (!strcasecmp(text, yes[i]))
			return *ret = true, 0;
		if (!strcasecmp(text, no[i]))
			return *ret = false, 0;
	}
	return -EINVAL;
}
