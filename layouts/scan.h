/*
 * scan: the pass that runs before libconfuse sees a layout (private to layouts/).
 *
 * libconfuse 3.3 counts lines wrongly after comments, resolves include() against the current
 * directory, expands an undefined ${VAR} to "", accepts a missing closing brace, lets a key
 * set twice win silently, merges two sections of the same title and forgets the order of
 * different section kinds. The scan fixes all of that before libconfuse parses:
 *   - it tokenizes every file itself (comments dropped), expands ${VAR} and ${VAR:-default}
 *     from --set variables and the environment (an undefined one is an error), splices
 *     include("x") in place, resolved against the including file's folder;
 *   - it checks that braces balance and that no key or untitled section appears twice in
 *     one section;
 *   - it gives every section a number, in file order, and replaces each section title by
 *     that number, so libconfuse keeps every section apart; the real titles, the lines of
 *     every section and key, and the order are kept in the tables below;
 *   - it writes one clean text for cfg_parse_buf() and a map from its lines to FILE:LINE.
 */
#ifndef SDIMG_LAYOUTS_SCAN_H
#define SDIMG_LAYOUTS_SCAN_H

#include <stddef.h>

#include "common/diag.h"
#include "layouts/layouts.h"

struct scan_line {
	unsigned file; /* index into scan.files */
	int line;
};

struct scan_section {
	char *name;     /* "partition", "fat", ... */
	char *title;    /* NULL for untitled sections */
	size_t parent;  /* section number of the enclosing section; 0 is the top level */
	struct scan_line where;
	int text_first, text_last; /* its lines in the clean text, head to closing brace */
};

struct scan_key {
	size_t section;
	char *name;
	struct scan_line where;
};

struct scan {
	char *text;                 /* the clean text for libconfuse, owned */
	struct scan_line *lines;    /* lines[i] is where line i+1 of text came from */
	size_t n_lines;
	char **files;               /* every file read, as named in messages, owned */
	size_t n_files;
	struct scan_section *sections; /* [0] is the top level */
	size_t n_sections;
	struct scan_key *keys;
	size_t n_keys;
	size_t files_cap, sections_cap, keys_cap; /* allocated lengths of the arrays */
};

/*
 * Scans the layout @name (read from disk when @text is NULL, else @text is its content).
 * Returns 0, or a negative errno with each problem in @d. *@s is filled either way and
 * must be released with scan_release().
 */
int scan_layout(const char *name, const char *text, const struct layout_options *opts,
		struct diag *d, struct scan *s);

void scan_release(struct scan *s);

/* The FILE:LINE of line @line of the clean text (a fallback when out of range). */
struct layout_loc scan_loc(const struct scan *s, int line);

/* The number of the untitled section @name directly inside section @parent, or 0. */
size_t scan_find_section(const struct scan *s, size_t parent, const char *name);

/* The innermost section @name whose clean-text lines hold @line, or 0. */
size_t scan_section_at(const struct scan *s, const char *name, int line);

/* The line where key @name of section @section was set, or the section's own line. */
struct layout_loc scan_key_loc(const struct scan *s, size_t section, const char *name);

/* The line of section @section's head. */
struct layout_loc scan_section_loc(const struct scan *s, size_t section);

#endif
