/*
 * build: from the libconfuse tree to a struct layout, value by value (private to layouts/).
 */
#ifndef SDIMG_LAYOUTS_BUILD_PRIV_H
#define SDIMG_LAYOUTS_BUILD_PRIV_H

#include <confuse.h>

#include "common/diag.h"
#include "layouts/layouts.h"
#include "layouts/scan.h"

/* One section being read: its libconfuse node, scan number, and how messages name it. */
struct sect {
	cfg_t *cfg;
	size_t no;
	char what[300]; /* "image", "partition 'boot'", "partition 'boot': fat", ... */
};

struct builder {
	const struct scan *scan;
	struct diag *d;
	struct layout *l;
	const struct layout_options *opts;
};

/* Typed getters: each returns 1 when the key is set and valid, 0 when it is not set, and
 * a negative errno (with the message in b->d) when its value is wrong. */
enum { SIZE_ANY = 0, SIZE_SECTORS = 1, SIZE_NONZERO = 2 };
int get_size(struct builder *b, struct sect *s, const char *key, unsigned flags, uint64_t *ret);
int get_uint(struct builder *b, struct sect *s, const char *key, uint64_t min, uint64_t max,
	     uint64_t *ret);
int get_bool(struct builder *b, struct sect *s, const char *key, bool *ret);
int get_string(struct builder *b, struct sect *s, const char *key, char **ret);
int get_choice(struct builder *b, struct sect *s, const char *key, const char *const *names,
	       unsigned *ret);
struct layout_loc key_loc(struct builder *b, struct sect *s, const char *key);
int key_error(struct builder *b, struct sect *s, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int sect_error(struct builder *b, struct sect *s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Reads one section kind into the layout (build_image.c, build_part.c). */
int build_image(struct builder *b, cfg_t *top, const char *layout_text);
int build_raws(struct builder *b, cfg_t *top);
int build_partitions(struct builder *b, cfg_t *top);

/* Cross-checks over the whole layout (validate.c). */
int validate_layout(struct builder *b);

#endif
