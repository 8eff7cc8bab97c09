/* content internals shared by content.c and gather.c (private to mkimage/). */
#ifndef SDIMG_MKIMAGE_CONTENT_PRIV_H
#define SDIMG_MKIMAGE_CONTENT_PRIV_H

#include "mkimage/content.h"

/* The live node at folded path @key, or NULL. */
struct content_node *content_find(struct content *c, const char *key);

/* Adds a node (see content.c); returns 0 or a negative errno (message in @d). */
int content_add(struct content *c, const struct content_node *in, struct diag *d);

/* Puts node @i into the hash index (which has room). */
int index_rebuild_one(struct content *c, size_t i);

#endif
