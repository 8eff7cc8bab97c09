/* SPDX-License-Identifier: MIT */
/*
 * read: from the section tree to a struct layout, section by section (private to layouts/).
 *
 * The parser has already checked every name and the form of every value against the key
 * table; the readers copy the values into the layout, fill in the defaults, and check
 * what depends on more than one value's form (a FAT label's characters, a key that only
 * one table type has, ...), each problem one line naming FILE:LINE. validate.c then checks
 * the rules that span sections.
 */
#ifndef SDIMG_LAYOUTS_READ_PRIV_H
#define SDIMG_LAYOUTS_READ_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "common/diag.h"
#include "layouts/layouts.h"
#include "layouts/parse.h"

struct reader {
	const struct doc *doc;
	struct diag *d;
	struct layout *l;
	const struct layout_options *opts;
};

/* One section being read, and how messages name it. */
struct sect {
	const struct tree_section *node; /* NULL: the layout does not have the section */
	char what[300];                  /* "image", "partition 'boot': fat", ... */
};

/* @s for @node (not NULL), named as layout_tree_what() names it. */
void layout_sect_init(struct sect *s, const struct tree_section *node);

/*
 * Typed access to the keys of a section (read_keys.c). Each tells whether the key is set
 * and then gives its value, as its type in the key table read it: layout_key_u64() for
 * sizes, numbers, choices (the index) and attributes, layout_key_bool() for booleans.
 */
const struct key_value *layout_key_value(const struct sect *s, const char *key);
const char *layout_key_text(const struct sect *s, const char *key); /* NULL: not set */
bool layout_key_u64(const struct sect *s, const char *key, uint64_t *ret);
bool layout_key_bool(const struct sect *s, const char *key, bool *ret);

/* A new copy of the key's text in *@ret (the old one freed): 1, 0 when not set, -ENOMEM. */
int layout_key_strdup(const struct sect *s, const char *key, char **ret);

/* Where the key was set, or where its section is when it was not. */
struct layout_loc layout_key_loc(const struct sect *s, const char *key);
struct layout_loc layout_sect_loc(const struct sect *s);

/* "FILE:LINE: WHAT: KEY: MSG" and "FILE:LINE: WHAT: MSG". Both return -EINVAL. */
int layout_key_error(struct reader *r, const struct sect *s, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int layout_sect_error(struct reader *r, const struct sect *s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Each reads one section kind of the top level into r->l (read_image.c, read_part.c). */
int layout_read_image(struct reader *r);
int layout_read_raws(struct reader *r);
int layout_read_partitions(struct reader *r);

/* The contents of a FAT partition: fat { } and the tree, file and dir entries
 * (read_fat.c). */
int layout_read_fat(struct reader *r, const struct sect *ps, struct layout_partition *p);
/* An ext4 partition's `ext4 { }` section (read_ext4.c). */
int layout_read_ext4(struct reader *r, const struct sect *ps, struct layout_partition *p);
/* An exFAT partition's `exfat { }` section (read_exfat.c). */
int layout_read_exfat(struct reader *r, const struct sect *ps, struct layout_partition *p);
int layout_read_entries(struct reader *r, const struct sect *ps, struct layout_partition *p);

/* A tree's include and exclude patterns (read_filters.c). */
int layout_read_filters(struct reader *r, const struct sect *s, struct layout_entry *e);

/* A raw region's `uboot-env { }` into raw->env (left NULL without one), its size the
 * region's (read_env.c); layout_uboot_env_free() frees it (accepts NULL). */
int layout_read_uboot_env(struct reader *r, const struct sect *rs, struct layout_raw *raw);
void layout_uboot_env_free(struct layout_uboot_env *e);

/* Cross-checks over the whole layout (validate.c). */
int layout_validate(struct reader *r);

#endif
