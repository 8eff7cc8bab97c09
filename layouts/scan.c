/* scan: tokenize, expand, include, check and renumber a layout before libconfuse (scan.h). */
#include "layouts/scan.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/path.h"
#include "common/strbuf.h"
#include "layouts/lex.h"
#include "layouts/readfile.h"

#define MAX_INCLUDE_DEPTH 16

struct scope {
	size_t section;
	size_t first_key; /* keys of this section are keys[first_key..] of its own list */
};

struct scanner {
	struct scan *s;
	struct diag *d;
	const struct layout_options *opts;
	struct strbuf out; /* the clean text being written */
	unsigned cur_file;
	int cur_line;
	size_t lines_cap;
	/* open sections */
	size_t *stack;
	size_t depth, stack_cap;
	/* files being read (for include loops) */
	const char *include_chain[MAX_INCLUDE_DEPTH];
	size_t n_chain;
};

static const char *lookup_var(void *ctx, const char *name)
{
	const struct layout_options *o = ctx;

	for (size_t i = 0; o && i < o->n_vars; i++)
		if (strcmp(o->vars[i].name, name) == 0)
			return o->vars[i].value;
	if (!o || o->use_environment)
		return getenv(name);
	return NULL;
}

/* ------------------------------------------------------------ writing the clean text */

static int out_putc(struct scanner *sc, char c)
{
	return strbuf_putc(&sc->out, c);
}

static int out_puts(struct scanner *sc, const char *str)
{
	return strbuf_puts(&sc->out, str);
}

/* Starts a new line of clean text for a token of (file, line) when it is not the current. */
static int out_position(struct scanner *sc, unsigned file, int line)
{
	struct scan *s = sc->s;

	if (s->n_lines && file == sc->cur_file && line == sc->cur_line)
		return out_putc(sc, ' ');
	if (s->n_lines && out_putc(sc, '\n') < 0)
		return -ENOMEM;
	if (array_grow((void **)&s->lines, &sc->lines_cap, s->n_lines + 1, sizeof(*s->lines)) < 0)
		return -ENOMEM;
	s->lines[s->n_lines++] = (struct scan_line){ .file = file, .line = line };
	sc->cur_file = file;
	sc->cur_line = line;
	return 0;
}

/* A string value as a double-quoted libconfuse string that means exactly @v. */
static int out_quoted(struct scanner *sc, const char *v)
{
	char esc[8];
	int rc = out_putc(sc, '"');

	for (const unsigned char *p = (const unsigned char *)v; rc == 0 && *p; p++) {
		if (*p == '"' || *p == '\\' || *p == '$') {
			esc[0] = '\\';
			esc[1] = (char)*p;
			esc[2] = '\0';
		} else if (*p < 0x20 || *p == 0x7f) {
			snprintf(esc, sizeof(esc), "\\%03o", *p);
		} else {
			esc[0] = (char)*p;
			esc[1] = '\0';
		}
		rc = out_puts(sc, esc);
	}
	return rc ? rc : out_putc(sc, '"');
}

static int out_token(struct scanner *sc, unsigned file, const struct tok *t)
{
	int rc = out_position(sc, file, t->line);

	if (rc < 0)
		return rc;
	return t->type == TOK_STRING ? out_quoted(sc, t->text) : out_puts(sc, t->text);
}

/* ------------------------------------------------------------ tables */

static int add_file(struct scan *s, const char *name, unsigned *ret_index)
{
	if (array_grow((void **)&s->files, &s->files_cap, s->n_files + 1, sizeof(*s->files)) < 0)
		return -ENOMEM;
	if (!(s->files[s->n_files] = strdup(name)))
		return -ENOMEM;
	*ret_index = (unsigned)s->n_files++;
	return 0;
}

static int add_section(struct scanner *sc, const char *name, const char *title, unsigned file,
		       int line)
{
	struct scan *s = sc->s;
	if (array_grow((void **)&s->sections, &s->sections_cap, s->n_sections + 1,
		       sizeof(*s->sections)) < 0)
		return -ENOMEM;
	struct scan_section *v = s->sections;
	v[s->n_sections] = (struct scan_section){
		.name = strdup(name),
		.title = title ? strdup(title) : NULL,
		.parent = sc->depth ? sc->stack[sc->depth - 1] : 0,
		.where = { file, line },
	};
	if (!v[s->n_sections].name || (title && !v[s->n_sections].title))
		return -ENOMEM;
	s->n_sections++;
	if (array_grow((void **)&sc->stack, &sc->stack_cap, sc->depth + 1, sizeof(*sc->stack)) < 0)
		return -ENOMEM;
	sc->stack[sc->depth++] = s->n_sections - 1;
	return 0;
}

static size_t current_section(const struct scanner *sc)
{
	return sc->depth ? sc->stack[sc->depth - 1] : 0;
}

static const char *section_label(const struct scan *s, size_t i, char *buf, size_t n)
{
	const struct scan_section *sec = &s->sections[i];

	if (i == 0)
		snprintf(buf, n, "the top level");
	else if (sec->title)
		snprintf(buf, n, "%s '%s'", sec->name, sec->title);
	else
		snprintf(buf, n, "section '%s'", sec->name);
	return buf;
}

/* Records key (or untitled section) @name in the current section; a repeat is an error. */
static int add_key(struct scanner *sc, const char *name, unsigned file, int line, bool is_section)
{
	struct scan *s = sc->s;
	size_t sec = current_section(sc);
	char label[300];

	for (size_t i = s->n_keys; i-- > 0;) {
		const struct scan_key *k = &s->keys[i];
		if (k->section != sec || strcmp(k->name, name) != 0)
			continue;
		return diag_error(sc->d, "%s:%d: %s '%s' appears twice in %s (first on %s:%d)",
				  s->files[file], line, is_section ? "section" : "key", name,
				  section_label(s, sec, label, sizeof(label)),
				  s->files[k->where.file], k->where.line);
	}
	if (array_grow((void **)&s->keys, &s->keys_cap, s->n_keys + 1, sizeof(*s->keys)) < 0)
		return -ENOMEM;
	struct scan_key *v = s->keys;
	v[s->n_keys] = (struct scan_key){ .section = sec, .name = strdup(name), .where = { file, line } };
	if (!v[s->n_keys].name)
		return -ENOMEM;
	s->n_keys++;
	return 0;
}

/* ------------------------------------------------------------ the walk */

static int scan_file(struct scanner *sc, const char *name, const char *text);

static bool is_name(const struct tok *t)
{
	return t->type == TOK_WORD || t->type == TOK_STRING;
}

static int include_file(struct scanner *sc, unsigned file, const struct tok *t, const char *arg)
{
	const char *from = sc->s->files[file];
	char *path = NULL, *text = NULL;
	int rc;

	char *dir = path_dir(from);
	path = dir ? path_join(dir, arg) : NULL;
	free(dir);
	if (!path)
		return -ENOMEM;
	for (size_t i = 0; i < sc->n_chain; i++)
		if (strcmp(sc->include_chain[i], path) == 0) {
			rc = diag_error(sc->d, "%s:%d: include(\"%s\") includes itself", from,
					t->line, arg);
			goto out;
		}
	if (sc->n_chain >= MAX_INCLUDE_DEPTH) {
		rc = diag_error(sc->d, "%s:%d: includes nested more than %d deep", from, t->line,
				MAX_INCLUDE_DEPTH);
		goto out;
	}
	rc = read_text_file(path, &text);
	if (rc < 0) {
		rc = diag_error(sc->d, "%s:%d: include(\"%s\"): %s: %s", from, t->line, arg, path,
				strerror(-rc));
		goto out;
	}
	rc = scan_file(sc, path, text);
out:
	free(text);
	free(path);
	return rc;
}

/* include ( "file" ) at tokens v[i..i+3] */
static int walk_include(struct scanner *sc, unsigned file, const struct tok *v, size_t n, size_t *i)
{
	const struct tok *t = &v[*i];

	if (*i + 3 >= n || !is_name(&v[*i + 2]) || v[*i + 3].type != TOK_RPAREN)
		return diag_error(sc->d, "%s:%d: include() takes one file name: include(\"x.layout\")",
				  sc->s->files[file], t->line);
	*i += 4;
	return include_file(sc, file, t, v[*i - 2].text);
}

/* A value after '=': one token, or a { list } passed through for libconfuse to judge. */
static int walk_value(struct scanner *sc, unsigned file, const struct tok *v, size_t n, size_t *i)
{
	int rc = 0;

	if (*i < n && v[*i].type == TOK_LBRACE) {
		while (rc == 0 && *i < n && v[*i].type != TOK_RBRACE)
			rc = out_token(sc, file, &v[(*i)++]);
		if (rc == 0 && *i < n)
			rc = out_token(sc, file, &v[(*i)++]);
		return rc;
	}
	if (*i < n && is_name(&v[*i]))
		rc = out_token(sc, file, &v[(*i)++]);
	return rc;
}

static int walk_section_head(struct scanner *sc, unsigned file, const struct tok *v, size_t *i,
			     bool titled)
{
	const struct tok *t = &v[*i];
	char number[32];
	int rc;

	if (titled) {
		rc = add_section(sc, t->text, v[*i + 1].text, file, t->line);
		snprintf(number, sizeof(number), "%zu", sc->s->n_sections - 1);
	} else {
		rc = add_key(sc, t->text, file, t->line, true);
		if (rc == 0)
			rc = add_section(sc, t->text, NULL, file, t->line);
	}
	if (rc == 0)
		rc = out_token(sc, file, t);
	if (rc == 0 && titled) {
		rc = out_puts(sc, " ");
		if (rc == 0)
			rc = out_quoted(sc, number);
	}
	if (rc == 0)
		rc = out_token(sc, file, &v[*i + (titled ? 2 : 1)]);
	sc->s->sections[sc->s->n_sections - 1].text_first = (int)sc->s->n_lines;
	*i += titled ? 3 : 2;
	return rc;
}

static int walk_close(struct scanner *sc, unsigned file, const struct tok *t, size_t floor)
{
	if (sc->depth <= floor)
		return diag_error(sc->d, "%s:%d: unexpected '}' (no section is open here)",
				  sc->s->files[file], t->line);
	int rc = out_token(sc, file, t);
	sc->s->sections[sc->stack[--sc->depth]].text_last = (int)sc->s->n_lines;
	return rc;
}

static int walk_statement(struct scanner *sc, unsigned file, const struct tok *v, size_t n,
			  size_t *i, size_t floor)
{
	const struct tok *t = &v[*i];
	enum tok_type next = *i + 1 < n ? v[*i + 1].type : TOK_COMMA;
	int rc;

	if (t->type == TOK_RBRACE) {
		(*i)++;
		return walk_close(sc, file, t, floor);
	}
	if (!is_name(t)) {
		(*i)++;
		return out_token(sc, file, t); /* libconfuse reports the stray symbol */
	}
	if (next == TOK_EQ || next == TOK_PLUSEQ) {
		rc = add_key(sc, t->text, file, t->line, false);
		if (rc == 0)
			rc = out_token(sc, file, t);
		if (rc == 0)
			rc = out_token(sc, file, &v[*i + 1]);
		*i += 2;
		return rc ? rc : walk_value(sc, file, v, n, i);
	}
	if (next == TOK_LPAREN && strcmp(t->text, "include") == 0)
		return walk_include(sc, file, v, n, i);
	if (next == TOK_LBRACE)
		return walk_section_head(sc, file, v, i, false);
	if (*i + 2 < n && is_name(&v[*i + 1]) && v[*i + 2].type == TOK_LBRACE)
		return walk_section_head(sc, file, v, i, true);
	(*i)++;
	return out_token(sc, file, t);
}

static int scan_file(struct scanner *sc, const char *name, const char *text)
{
	struct tok_list toks = { 0 };
	unsigned file = 0;
	size_t floor = sc->depth;
	int rc = add_file(sc->s, name, &file);

	if (rc < 0)
		return diag_error(sc->d, "%s: out of memory", name);
	rc = lex_text(sc->s->files[file], text, lookup_var, (void *)sc->opts, sc->d, &toks);
	sc->include_chain[sc->n_chain++] = sc->s->files[file];
	for (size_t i = 0; rc == 0 && i < toks.n;)
		rc = walk_statement(sc, file, toks.v, toks.n, &i, floor);
	sc->n_chain--;
	if (rc == 0 && sc->depth > floor) {
		const struct scan_section *sec = &sc->s->sections[sc->stack[sc->depth - 1]];
		rc = diag_error(sc->d, "%s:%d: '{' of %s%s%s%s is never closed (a '}' is missing)",
				sc->s->files[sec->where.file], sec->where.line, sec->name,
				sec->title ? " '" : "", sec->title ? sec->title : "",
				sec->title ? "'" : "");
	}
	tok_list_release(&toks);
	if (rc == -ENOMEM)
		diag_error(sc->d, "%s: out of memory", name);
	return rc;
}

int scan_layout(const char *name, const char *text, const struct layout_options *opts,
		struct diag *d, struct scan *s)
{
	struct scanner sc = { .s = s, .d = d, .opts = opts };
	char *owned = NULL;
	int rc;

	memset(s, 0, sizeof(*s));
	/* section 0: the top level */
	if (array_grow((void **)&s->sections, &s->sections_cap, 1, sizeof(*s->sections)) < 0 ||
	    !(s->sections[0] = (struct scan_section){ .name = strdup("") }).name)
		return diag_error(d, "%s: out of memory", name);
	s->n_sections = 1;
	if (!text) {
		rc = read_text_file(name, &owned);
		if (rc < 0) {
			free(sc.stack);
			return diag_error(d, "%s: %s", name, strerror(-rc));
		}
		text = owned;
	}
	rc = scan_file(&sc, name, text);
	if (rc == 0) /* never empty: fmemopen() wants at least one byte */
		rc = out_putc(&sc, '\n');
	s->text = sc.out.s;
	free(sc.stack);
	free(owned);
	return rc;
}

void scan_release(struct scan *s)
{
	free(s->text);
	free(s->lines);
	for (size_t i = 0; i < s->n_files; i++)
		free(s->files[i]);
	free(s->files);
	for (size_t i = 0; i < s->n_sections; i++) {
		free(s->sections[i].name);
		free(s->sections[i].title);
	}
	free(s->sections);
	for (size_t i = 0; i < s->n_keys; i++)
		free(s->keys[i].name);
	free(s->keys);
	memset(s, 0, sizeof(*s));
}

struct layout_loc scan_loc(const struct scan *s, int line)
{
	if (line < 1 || (size_t)line > s->n_lines) {
		if (s->n_lines == 0)
			return (struct layout_loc){ s->n_files ? s->files[0] : "?", 1 };
		line = (int)s->n_lines;
	}
	const struct scan_line *l = &s->lines[line - 1];
	return (struct layout_loc){ s->files[l->file], l->line };
}

size_t scan_section_at(const struct scan *s, const char *name, int line)
{
	size_t best = 0;

	for (size_t i = 1; i < s->n_sections; i++) {
		const struct scan_section *sec = &s->sections[i];
		if (strcmp(sec->name, name) == 0 && sec->text_first <= line &&
		    (line <= sec->text_last || sec->text_last == 0))
			best = i; /* later sections are nested deeper */
	}
	return best;
}

size_t scan_find_section(const struct scan *s, size_t parent, const char *name)
{
	for (size_t i = 1; i < s->n_sections; i++)
		if (s->sections[i].parent == parent && !s->sections[i].title &&
		    strcmp(s->sections[i].name, name) == 0)
			return i;
	return 0;
}

struct layout_loc scan_section_loc(const struct scan *s, size_t section)
{
	const struct scan_section *sec = &s->sections[section];

	if (section == 0)
		return (struct layout_loc){ s->n_files ? s->files[0] : "?", 1 };
	return (struct layout_loc){ s->files[sec->where.file], sec->where.line };
}

struct layout_loc scan_key_loc(const struct scan *s, size_t section, const char *name)
{
	for (size_t i = 0; i < s->n_keys; i++)
		if (s->keys[i].section == section && strcmp(s->keys[i].name, name) == 0)
			return (struct layout_loc){ s->files[s->keys[i].where.file],
						    s->keys[i].where.line };
	return scan_section_loc(s, section);
}
