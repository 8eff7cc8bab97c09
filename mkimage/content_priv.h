/* content internals shared by content.c and gather.c (private to mkimage/). */
#ifndef SDIMG_MKIMAGE_CONTENT_PRIV_H
#define SDIMG_MKIMAGE_CONTENT_PRIV_H

#include <time.h>

#include "mkimage/content.h"

/* The live node at folded path @key, or NULL. */
struct content_node *content_find(struct content *c, const char *key);

/* Adds a node (see content.c); returns 0 or a negative errno (message in @d). */
int content_add(struct content *c, const struct content_node *in, struct diag *d);

/* Puts node @i into the hash index (which has room). */
int index_rebuild_one(struct content *c, size_t i);

/* The time image.mtime @im gives a node whose own mtime is @ts (NULL: none). */
int64_t content_mtime(const struct layout_image *im, const struct timespec *ts, uint32_t *ret_ns);

/*
 * Adds the entries of archive @host (the `from` of tree entry @e, layout entry number
 * @source) to @c: files refer to their archive entry, whose bytes are written later by
 * archive_write_data(). Returns 0 or a negative errno (messages in @d).
 */
int gather_archive(const struct layout *l, const struct layout_entry *e, const char *host,
		   size_t source, struct content *c, struct diag *d);

#endif
