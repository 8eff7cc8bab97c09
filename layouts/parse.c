/* SPDX-License-Identifier: MIT */
/* parse: the layout grammar, from tokens to the section tree in one pass (see parse.h). */
#include "layouts/parse.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/array.h"
#include "common/path.h"
#include "layouts/parse_priv.h"
#include "layouts/readfile.h"

static const char *find_var(const struct layout_options *o, const char *name)
{
	for (size_t i = 0; o && i < o->n_vars; i++)
		if (strcmp(o->vars[i].name, name) == 0)
			return o->vars[i].value;
	if (!o || o->use_environment)
		return getenv(name);
	return NULL;
}

/* ${NAME}: its value, recorded for the default seed (two builds with other values are
 * other layouts, and must not share ids). */
static const char *lookup_var(void *ctx, const char *name)
{
	struct parser *p = ctx;
	const char *value = find_var(p->opts, name);
	char len[24];

	if (!value)
		return NULL;
	snprintf(len, sizeof(len), "%zu:", strlen(name));
	if (strbuf_puts(&p->doc->values, len) < 0 || strbuf_puts(&p->doc->values, name) < 0)
		p->out_of_memory = true;
	snprintf(len, sizeof(len), " %zu:", strlen(value));
	if (strbuf_puts(&p->doc->values, len) < 0 || strbuf_puts(&p->doc->values, value) < 0)
		p->out_of_memory = true;
	return value;
}

/* ------------------------------------------------------------ keys and sections */

static int parse_body(struct parser *p, struct cursor *c, struct tree_section *s, bool braced);

/* key = value, its tokens at the cursor: checked against the table, added to @s. */
static int add_key(struct parser *p, struct cursor *c, struct tree_section *s,
		   const struct key_spec *k)
{
	struct layout_loc loc = loc_of(p, c, peek(c, 0));
	const char *text = peek(c, 2)->text;
	const struct tree_key *first = layout_tree_key(s, k->name);
	struct key_value value;
	struct why why;
	char label[300];

	c->i += 3;
	if (first) {
		layout_parse_label(s, label, sizeof(label));
		diag_error(p->d, "%s:%d: key '%s' appears twice in %s (first on %s:%d)", loc.file,
			   loc.line, k->name, label, first->loc.file, first->loc.line);
		return 0;
	}
	if (layout_schema_value(k, text, &value, &why) < 0)
		layout_parse_error(p, loc, s, "%s: %s", k->name, why.text);
	return layout_tree_add_key(s, k, text, &value, loc);
}

static int parse_key(struct parser *p, struct cursor *c, struct tree_section *s,
		     const struct key_spec *k)
{
	struct layout_loc loc = loc_of(p, c, peek(c, 0));
	const struct tok *op = peek(c, 1), *value = peek(c, 2);

	if (is(op, TOK_PLUSEQ))
		return layout_parse_error(p, loc, s,
					  "%s: '+=' is not supported: write '%s = ...' "
					  "(every key takes one value)",
					  k->name, k->name);
	if (is(op, TOK_LBRACE))
		return layout_parse_error(p, loc, s, "%s is a key, not a section: write '%s = ...'",
					  k->name, k->name);
	if (!is(op, TOK_EQ))
		return layout_parse_error(p, loc, s, "missing '=' after key '%s'", k->name);
	if (is(value, TOK_LBRACE))
		return layout_parse_error(p, loc, s, "%s: takes one value, not a { } list",
					  k->name);
	if (!is_name(value))
		return layout_parse_error(p, loc, s, "%s: a value must follow '='%s%s%s", k->name,
					  value ? " (found '" : " (the file ends)",
					  value ? value->text : "", value ? "')" : "");
	if (layout_parse_cut_unit(p, c, s))
		return 0;
	return add_key(p, c, s, k);
}

/* name [title] { ... }: a sub-section of kind @spec in @s, with all its contents. */
static int parse_section(struct parser *p, struct cursor *c, struct tree_section *s,
			 const struct section_spec *spec)
{
	struct layout_loc loc = loc_of(p, c, peek(c, 0));
	const struct tok *t1 = peek(c, 1), *t2 = peek(c, 2);
	const struct tree_section *first = spec->repeats ? NULL : layout_tree_sub(s, spec->name);
	char label[300];

	if (spec->titled && !is_name(t1))
		return layout_parse_error(p, loc, s, "missing title for section '%s'", spec->name);
	if (!spec->titled && is_name(t1) && is(t2, TOK_LBRACE))
		return layout_parse_error(p, loc, s, "section '%s' takes no title", spec->name);
	if (!is(spec->titled ? t2 : t1, TOK_LBRACE))
		return layout_parse_error(p, loc, s, "missing opening brace for section '%s'",
					  spec->name);
	c->i += spec->titled ? 3 : 2;
	if (first) {
		layout_parse_label(s, label, sizeof(label));
		diag_error(p->d, "%s:%d: section '%s' appears twice in %s (first on %s:%d)",
			   loc.file, loc.line, spec->name, label, first->loc.file, first->loc.line);
	}
	struct tree_section *sub = layout_tree_new(spec, spec->titled ? t1->text : NULL, loc, s);
	if (!sub || layout_tree_add_section(s, sub) < 0) {
		layout_tree_free(sub);
		return -ENOMEM;
	}
	return parse_body(p, c, sub, true);
}

/* ------------------------------------------------------------ files */

static int parse_file(struct parser *p, unsigned file, struct tree_section *s);

/* Adds a file read and its text (taken over) to the doc. 0 or -ENOMEM (@text freed). */
static int add_file(struct doc *doc, const char *name, char *text, unsigned *ret_index)
{
	char *copy = strdup(name);

	if (!copy ||
	    array_grow((void **)&doc->files, &doc->files_cap, doc->n_files + 1,
		       sizeof(*doc->files)) < 0 ||
	    array_grow((void **)&doc->texts, &doc->texts_cap, doc->n_files + 1,
		       sizeof(*doc->texts)) < 0) {
		free(copy);
		free(text);
		return -ENOMEM;
	}
	doc->files[doc->n_files] = copy;
	doc->texts[doc->n_files] = text;
	*ret_index = (unsigned)doc->n_files++;
	return 0;
}

/*
 * The file that include("@arg") in @loc.file names: @arg itself when absolute, else the
 * first of the including file's folder and the -I folders that holds it; without -I, the
 * path in the including file's folder, found or not. Returns 0 with a new string in
 * *@ret_path, -EINVAL (reported) when no folder holds it, or -ENOMEM.
 */
static int find_include(struct parser *p, struct layout_loc loc, const char *arg, char **ret_path)
{
	size_t n = p->opts ? p->opts->n_input_dirs : 0;
	char *dir = path_dir(loc.file);
	struct strbuf searched = { 0 };
	struct stat st;
	int rc = dir ? 0 : -ENOMEM;

	*ret_path = NULL;
	for (size_t i = 0; rc == 0 && i <= n && !*ret_path; i++) {
		const char *folder = i ? p->opts->input_dirs[i - 1] : dir;
		char *path = path_join(folder, arg);
		if (!path || (i && strbuf_puts(&searched, ", ") < 0) ||
		    strbuf_puts(&searched, folder) < 0)
			rc = -ENOMEM;
		else if (arg[0] == '/' || n == 0 || lstat(path, &st) == 0 ||
			 (errno != ENOENT && errno != ENOTDIR))
			*ret_path = path; /* a file there, or an error its reading reports */
		if (!*ret_path)
			free(path);
	}
	if (rc == 0 && !*ret_path)
		rc = diag_error(p->d, "%s:%d: include(\"%s\"): in none of the folders %s", loc.file,
				loc.line, arg, searched.s);
	strbuf_release(&searched);
	free(dir);
	return rc;
}

/* include("@arg") at the cursor's file: its statements go into @s. */
/* Whether paths @a and @b name one file ("card.layout" and "./card.layout", or a link). */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	return strcmp(a, b) == 0;
}

/* Whether one more include() stays within the limits of LAYOUT.md ("Limits"): 0, or
 * -EINVAL reported at @loc. The first file is the layout itself, not an include. */
static int check_include_limits(struct parser *p, struct layout_loc loc, const char *arg)
{
	if (p->n_chain > LAYOUT_INCLUDE_DEPTH_MAX)
		return diag_error(p->d, "%s:%d: include(\"%s\"): includes nested more than %d deep",
				  loc.file, loc.line, arg, LAYOUT_INCLUDE_DEPTH_MAX);
	if (p->n_includes >= LAYOUT_INCLUDES_MAX)
		return diag_error(p->d,
				  "%s:%d: include(\"%s\"): more than %d includes in one "
				  "layout (each time a file is included counts)",
				  loc.file, loc.line, arg, LAYOUT_INCLUDES_MAX);
	return 0;
}

static int include_file(struct parser *p, struct layout_loc loc, const char *arg,
			struct tree_section *s)
{
	char *path = NULL;
	char *text = NULL;
	char why[160];
	unsigned file;
	int rc = find_include(p, loc, arg, &path);

	for (size_t i = 0; rc == 0 && i < p->n_chain; i++)
		if (same_file(p->chain[i], path))
			rc = diag_error(p->d, "%s:%d: include(\"%s\") includes itself", loc.file,
					loc.line, arg);
	if (rc == 0)
		rc = check_include_limits(p, loc, arg);
	if (rc == 0 &&
	    (rc = layout_read_text_file(path, LAYOUT_TEXT_MAX - p->text_used, &text)) < 0 &&
	    rc != -ENOMEM)
		rc = diag_error(p->d, "%s:%d: include(\"%s\"): %s: %s", loc.file, loc.line, arg,
				path, layout_read_text_problem(rc, why, sizeof(why)));
	if (rc == 0) {
		p->n_includes++;
		p->text_used += strlen(text);
		rc = add_file(p->doc, path, text, &file);
	}
	if (rc == 0)
		rc = parse_file(p, file, s);
	free(path);
	return rc;
}

/* include ( "file" ); `include "file"` is taken for a try at one. */
static int parse_include(struct parser *p, struct cursor *c, struct tree_section *s)
{
	struct layout_loc loc = loc_of(p, c, peek(c, 0));
	const struct tok *arg = peek(c, 2);

	if (!is(peek(c, 1), TOK_LPAREN) || !is_name(arg) || !is(peek(c, 3), TOK_RPAREN))
		return diag_error(p->d,
				  "%s:%d: include() takes one file name: "
				  "include(\"x.layout\")",
				  loc.file, loc.line);
	c->i += 4;
	return include_file(p, loc, arg->text, s);
}

static int parse_statement(struct parser *p, struct cursor *c, struct tree_section *s)
{
	const struct tok *t = peek(c, 0);
	const struct key_spec *k;
	const struct section_spec *spec;

	if (!is_name(t))
		return layout_parse_stray(p, c, s);
	if (is(t, TOK_WORD) && strcmp(t->text, "include") == 0 &&
	    (is(peek(c, 1), TOK_LPAREN) || is_name(peek(c, 1))))
		return parse_include(p, c, s);
	if ((k = layout_schema_key(s->spec, t->text)))
		return parse_key(p, c, s, k);
	if ((spec = layout_schema_section(s->spec, t->text)))
		return parse_section(p, c, s, spec);
	return layout_parse_unknown(p, c, s);
}

/*
 * Statements into @s: when @braced, up to the '}' that closes @s (its '{' already read),
 * else up to the end of the file, where a '}' has no section of this file to close.
 */
static int parse_body(struct parser *p, struct cursor *c, struct tree_section *s, bool braced)
{
	while (c->i < c->n) {
		const struct tok *t = peek(c, 0);
		if (is(t, TOK_RBRACE) && !braced)
			return diag_error(p->d, "%s:%d: unexpected '}' (no section is open here)",
					  p->doc->files[c->file], t->line);
		if (is(t, TOK_RBRACE)) {
			c->i++;
			return 0;
		}
		int rc = parse_statement(p, c, s);
		if (rc < 0)
			return rc;
		if (p->d->errors - p->errors_before >= MAX_ERRORS)
			return diag_error(p->d, "%s:%d: stopping after %d errors",
					  p->doc->files[c->file], t->line, MAX_ERRORS);
	}
	if (braced)
		return layout_parse_never_closed(p, s->loc, s->spec->name, s->title);
	return 0;
}

/* The statements of file @file (in the doc) into @s. */
static int parse_file(struct parser *p, unsigned file, struct tree_section *s)
{
	struct tok_list toks = { 0 };
	const char *name = p->doc->files[file];
	struct lex_vars vars = { .lookup = lookup_var, .ctx = p, .text_used = &p->text_used };
	int rc = layout_lex(name, p->doc->texts[file], &vars, p->d, &toks);

	if (rc == 0 && p->out_of_memory)
		rc = -ENOMEM;

	if (rc == 0) {
		struct cursor c = { .v = toks.v, .n = toks.n, .file = file };
		p->chain[p->n_chain++] = name;
		rc = parse_body(p, &c, s, false);
		p->n_chain--;
	}
	layout_tokens_release(&toks);
	return rc;
}

int layout_parse(const char *name, const char *text, const struct layout_options *opts,
		 struct diag *d, struct doc *doc)
{
	struct parser p = { .doc = doc, .d = d, .errors_before = d->errors, .opts = opts };
	size_t len = strlen(text);
	char *copy = NULL;
	unsigned file = 0;
	char why[160];
	int rc;

	memset(doc, 0, sizeof(*doc));
	if (len > LAYOUT_TEXT_MAX)
		return diag_error(d, "%s: %s", name,
				  layout_read_text_problem(-EFBIG, why, sizeof(why)));
	p.text_used = len;
	copy = strdup(text);
	rc = copy ? add_file(doc, name, copy, &file) : -ENOMEM;
	if (rc == 0) {
		struct layout_loc loc = { doc->files[0], 1 };
		doc->top = layout_tree_new(layout_schema_top(), NULL, loc, NULL);
		rc = doc->top ? parse_file(&p, file, doc->top) : -ENOMEM;
	}
	if (rc == -ENOMEM)
		diag_error(d, "%s: out of memory", name);
	if (rc == 0 && d->errors > p.errors_before)
		rc = -EINVAL;
	return rc;
}

char **layout_doc_take_files(struct doc *doc, size_t *ret_n)
{
	char **files = doc->files;

	*ret_n = files ? doc->n_files : 0;
	doc->files = NULL;
	return files;
}

void layout_doc_release(struct doc *doc)
{
	layout_tree_free(doc->top);
	for (size_t i = 0; i < doc->n_files; i++) {
		if (doc->files)
			free(doc->files[i]);
		free(doc->texts[i]);
	}
	free(doc->files);
	free(doc->texts);
	strbuf_release(&doc->values);
	memset(doc, 0, sizeof(*doc));
}
