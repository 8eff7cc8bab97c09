/* SPDX-License-Identifier: MIT */
/*
 * gcfg: genimage's configuration language as genimage documents it (the libconfuse syntax):
 * sections `NAME [TITLE] { ... }`, `key = value` where a value is a word, a quoted string or
 * a `{ a, b }` list, `#`, `//` and C comments, include("file") and ${VAR} references.
 * The parse gives a tree; what the keys mean is genimage.c's business.
 */
#ifndef SDIMG_IMPORTER_GCFG_H
#define SDIMG_IMPORTER_GCFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"
#include "mkimage/importer/importer.h"

struct gcfg_node {
	char *name;       /* key or section name */
	char *title;      /* a section's title, or NULL */
	const char *file; /* the file it was read from (owned by the tree's root) */
	unsigned line;
	bool section;
	char **values; /* a key's value(s): one, or a list's items */
	size_t n_values;
	bool list;              /* the value was a `{ }` list */
	struct gcfg_node *kids; /* a section's statements, in order */
	size_t n_kids;
	char **files; /* the root only: every file read, owned */
	size_t n_files;
};

/*
 * Parses @text (@len bytes, read from @path; includes are resolved against @path's folder)
 * into *@ret_root, a section without name holding the top-level statements. ${VAR} takes
 * its value from o->sets, then the environment; a variable set nowhere is an error.
 * Returns 0 or a negative errno with one line in @d naming FILE:LINE.
 */
int import_gcfg_parse_text(const char *path, const char *text, size_t len,
			   const struct import_options *o, struct diag *d,
			   struct gcfg_node **ret_root);

/* import_gcfg_parse_text() of the file @path. */
int import_gcfg_parse_file(const char *path, const struct import_options *o, struct diag *d,
			   struct gcfg_node **ret_root);

/* Frees a tree from import_gcfg_parse_*(); accepts NULL. */
void import_gcfg_free(struct gcfg_node *root);

/* The first key @name of section @s, or NULL. */
const struct gcfg_node *import_gcfg_key(const struct gcfg_node *s, const char *name);

/* The value of key @name of @s (its first value), or NULL when @s has no such key. */
const char *import_gcfg_str(const struct gcfg_node *s, const char *name);

/*
 * genimage's sizes: a number (decimal, 0x hex or 0 octal) with an optional suffix k/K
 * (KiB), M/m, G/g, T/t and s (512-byte sectors). Returns 0 with *@ret, or -EINVAL.
 */
int import_gcfg_size(const char *text, uint64_t *ret);

/* genimage's booleans: true/false, yes/no, on/off (any case). 0, or -EINVAL. */
int import_gcfg_bool(const char *text, bool *ret);

#endif
