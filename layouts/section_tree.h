/* SPDX-License-Identifier: MIT */
/*
 * section_tree: a layout as written, one node per section (private to layouts/).
 *
 * The parser (parse.h) builds it; the readers (read_priv.h) turn it into a struct layout.
 * Every section and key carries its entry in the key table (schema.h) and where it was
 * written; every key's value has passed its type check.
 *
 * Ownership: a section owns its keys, their texts, its title and its sub-sections;
 * layout_tree_free() frees a section and everything under it. The file names in the
 * locations belong to the struct doc that holds the tree (parse.h).
 */
#ifndef SDIMG_LAYOUTS_TREE_H
#define SDIMG_LAYOUTS_TREE_H

#include <stddef.h>

#include "layouts/layouts.h"
#include "layouts/schema.h"

struct tree_key {
	const struct key_spec *spec;
	char *text;             /* the value as written (after escapes and ${VAR}s) */
	struct key_value value; /* the value as its type reads it */
	struct layout_loc loc;  /* the line of the key's name */
};

struct tree_section {
	const struct section_spec *spec;
	char *title;                       /* NULL for an untitled section */
	struct layout_loc loc;             /* the line of the section's name (top level: FILE:1) */
	const struct tree_section *parent; /* NULL for the top level */
	struct tree_key *keys;             /* in file order */
	size_t n_keys, keys_cap;
	struct tree_section **subs; /* sub-sections, in file order, owned */
	size_t n_subs, subs_cap;
};

/* A new empty section of kind @spec inside @parent (not yet listed there), or NULL. */
struct tree_section *layout_tree_new(const struct section_spec *spec, const char *title,
				     struct layout_loc loc, const struct tree_section *parent);

/* Appends @sub to @s's sub-sections; on success @s owns it. 0 or -ENOMEM. */
int layout_tree_add_section(struct tree_section *s, struct tree_section *sub);

/* Appends key @spec = @text; the value must have passed its check. 0 or -ENOMEM. */
int layout_tree_add_key(struct tree_section *s, const struct key_spec *spec, const char *text,
			const struct key_value *value, struct layout_loc loc);

/* The key @name of @s, or NULL (also when @s is NULL). */
const struct tree_key *layout_tree_key(const struct tree_section *s, const char *name);

/* The first sub-section @name of @s, or NULL (also when @s is NULL). */
const struct tree_section *layout_tree_sub(const struct tree_section *s, const char *name);

/*
 * How messages name @s: "image", "partition 'boot'", "partition 'boot': fat",
 * "partition 'boot': file '/a'"; "" for the top level.
 */
void layout_tree_what(const struct tree_section *s, char *buf, size_t n);

/* Frees @s and everything under it. Accepts NULL. */
void layout_tree_free(struct tree_section *s);

#endif
