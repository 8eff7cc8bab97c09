/* SPDX-License-Identifier: MIT */
/* parse_errors: the parser's messages, and how it steps over what it does not know. */
#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/utf8.h"
#include "layouts/parse_priv.h"

void layout_parse_label(const struct tree_section *s, char *buf, size_t n)
{
	if (!s->parent)
		snprintf(buf, n, "the top level");
	else
		layout_tree_what(s, buf, n);
}

int layout_parse_error(struct parser *p, struct layout_loc loc, const struct tree_section *s,
		       const char *fmt, ...)
{
	char what[300], msg[400];
	va_list ap;

	layout_tree_what(s, what, sizeof(what));
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return diag_error(p->d, "%s:%d: %s%s%s", loc.file, loc.line, what, *what ? ": " : "", msg);
}

int layout_parse_never_closed(struct parser *p, struct layout_loc loc, const char *name,
			      const char *title)
{
	char shown[200], shown_title[200];

	return diag_error(p->d, "%s:%d: '{' of %s%s%s%s is never closed (a '}' is missing)",
			  loc.file, loc.line, utf8_shown(name, shown, sizeof(shown)),
			  title ? " '" : "",
			  title ? utf8_shown(title, shown_title, sizeof(shown_title)) : "",
			  title ? "'" : "");
}

int layout_parse_stray(struct parser *p, struct cursor *c, const struct tree_section *s)
{
	const struct tok *t = peek(c, 0);
	const char *hint = "";
	char shown[200];

	switch (t->type) {
	case TOK_COMMA:
		hint = " (keys are separated by spaces or line breaks, not commas)";
		break;
	case TOK_EQ:
	case TOK_PLUSEQ:
		hint = " (a key name must come before it)";
		break;
	case TOK_LBRACE:
		hint = " (a section name must come before it)";
		break;
	case TOK_LPAREN:
	case TOK_RPAREN:
		hint = " (only include(\"file\") takes parentheses)";
		break;
	case TOK_WORD:
	case TOK_STRING:
	case TOK_RBRACE:
		break;
	}
	return layout_parse_error(p, loc_of(p, c, t), s, "unexpected '%s'%s",
				  utf8_shown(t->text, shown, sizeof(shown)), hint);
}

/* "unknown key 'sise' in partition 'boot' (did you mean 'size'?)"; "unknown section 'x'"
 * at the top level, which holds sections only. The suggestion is sdimg's word for another
 * tool's (genimage, wic), else the nearest name of the same kind. */
static void report_unknown(struct parser *p, struct layout_loc loc, const struct tree_section *s,
			   const char *name, bool section)
{
	char what[300], shown[200];

	layout_tree_what(s, what, sizeof(what));
	utf8_shown(name, shown, sizeof(shown));
	section |= !*what;
	const char *foreign = layout_foreign_hint(s->spec->name, name);
	const char *near = foreign ? NULL : layout_schema_suggest(s->spec, name, section);
	if (foreign) {
		diag_error(p->d, "%s:%d: unknown %s '%s'%s%s (did you mean %s?)", loc.file,
			   loc.line, section ? "section" : "key", shown, *what ? " in " : "", what,
			   foreign);
		return;
	}
	diag_error(p->d, "%s:%d: unknown %s '%s'%s%s%s%s%s", loc.file, loc.line,
		   section ? "section" : "key", shown, *what ? " in " : "", what,
		   near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
}

/* Past the value after '=' of an unknown key: one name, or a { } list. */
static void skip_value(struct cursor *c)
{
	if (is(peek(c, 0), TOK_LBRACE)) {
		while (c->i < c->n && c->v[c->i].type != TOK_RBRACE)
			c->i++;
		c->i += c->i < c->n;
	} else if (is_name(peek(c, 0))) {
		c->i++;
	}
}

/* Past the body of an unknown section, its '{' already read, to the matching '}'. */
static int skip_body(struct parser *p, struct cursor *c, const struct tok *name,
		     const struct tok *title)
{
	size_t depth = 1;

	for (; c->i < c->n; c->i++) {
		enum tok_type t = c->v[c->i].type;
		depth += t == TOK_LBRACE;
		depth -= t == TOK_RBRACE;
		if (depth == 0) {
			c->i++;
			return 0;
		}
	}
	return layout_parse_never_closed(p, loc_of(p, c, name), name->text,
					 title ? title->text : NULL);
}

int layout_parse_cut_unit(struct parser *p, struct cursor *c, const struct tree_section *s)
{
	static const char *const units[] = { "K",   "M", "G", "T", "KiB", "MiB", "GiB",
					     "TiB", "s", "k", "m", "g",   "t" };
	const struct tok *key = peek(c, 0), *number = peek(c, 2), *unit = peek(c, 3);
	bool cut = false;

	if (!is(number, TOK_WORD) || !is(unit, TOK_WORD) || unit->line != number->line ||
	    is(peek(c, 4), TOK_EQ) || strspn(number->text, "0123456789") != strlen(number->text))
		return 0;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		cut |= strcmp(unit->text, units[i]) == 0;
	if (!cut)
		return 0;
	layout_parse_error(p, loc_of(p, c, key), s,
			   "%s = %s %s: a number and its unit go "
			   "without a space between them (%s%s)",
			   key->text, number->text, unit->text, number->text, unit->text);
	c->i += 4;
	return 1;
}

int layout_parse_unknown(struct parser *p, struct cursor *c, const struct tree_section *s)
{
	const struct tok *name = peek(c, 0), *next = peek(c, 1);
	bool titled = is_name(next) && is(peek(c, 2), TOK_LBRACE);

	assert(name); /* called at the unknown word's own token */

	report_unknown(p, loc_of(p, c, name), s, name->text, titled || is(next, TOK_LBRACE));
	c->i++;
	if (is(next, TOK_EQ) || is(next, TOK_PLUSEQ)) {
		c->i++;
		skip_value(c);
	} else if (titled || is(next, TOK_LBRACE)) {
		c->i += titled ? 2 : 1;
		return skip_body(p, c, name, titled ? next : NULL);
	}
	return 0;
}
