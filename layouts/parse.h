/* SPDX-License-Identifier: MIT */
/*
 * parse: a layout file and the files it includes into a section tree (private to layouts/).
 *
 * The grammar (LAYOUT.md, "Syntax details"), over the tokens of lex.h:
 *
 *   file      = { statement }
 *   statement = include | key | section
 *   include   = "include" "(" NAME ")"         the named file's statements, in place
 *   key       = NAME "=" NAME
 *   section   = NAME [ NAME ] "{" { statement } "}"   the second NAME is the title
 *   NAME      = a word or a string
 *
 * One pass reads it: names are looked up in the key table (schema.h) as they come, so the
 * tree holds only known keys and sections, each value checked against its key's type.
 * A syntax error (a stray symbol, a missing '=', value, title or brace, a '{ }' list or
 * '+=' where one value is expected, an unclosed '{' or string) stops the parse; an unknown
 * or repeated name, or a value of the wrong form, is reported and the parse goes on, so
 * that one run names them all (up to 20: a file that is no layout stops early). Every
 * message is one line "FILE:LINE: ...".
 *
 * ${VAR} comes from the --set variables, then (when allowed) the environment; an include
 * is resolved against the folder of the file that names it, and every '{' must be closed
 * in the file that opens it.
 */
#ifndef SDIMG_LAYOUTS_PARSE_H
#define SDIMG_LAYOUTS_PARSE_H

#include <stddef.h>

#include "common/diag.h"
#include "common/strbuf.h"
#include "layouts/layouts.h"
#include "layouts/section_tree.h"

/* A parsed layout: its tree and the files it was read from. */
struct doc {
	struct tree_section *top; /* the top level; owned */
	char **files;             /* every file read, in the order read, as messages name
				     them (files[0] is the layout itself); owned */
	char **texts;             /* the text of each file, for the default seed; owned */
	size_t n_files, files_cap, texts_cap;
	struct strbuf values; /* every ${VAR} substituted, "LEN:NAME LEN:VALUE" in order,
				     for the default seed */
};

/*
 * Parses the layout @name whose text is @text. Returns 0, or a negative errno with each
 * problem in @d. *@doc is filled either way and must be released with layout_doc_release().
 */
int layout_parse(const char *name, const char *text, const struct layout_options *opts,
		 struct diag *d, struct doc *doc);

/*
 * Hands the file names over to the caller (a struct layout, whose locations point into
 * them): returns the array and its length in *@ret_n; @doc no longer frees them.
 */
char **layout_doc_take_files(struct doc *doc, size_t *ret_n);

/* Frees everything @doc still owns and empties it. */
void layout_doc_release(struct doc *doc);

#endif
