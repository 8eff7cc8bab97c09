/* content: the files of a FAT partition, overlaid in layout order (see content.h). */
#include "mkimage/content.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "mkimage/content_priv.h"

/* FAT compares names without regard to case; sdimg folds ASCII letters (names are UTF-8). */
static char *fold(const char *path)
{
	char *k = strdup(path);

	for (char *p = k; p && *p; p++)
		if (*p >= 'a' && *p <= 'z')
			*p = (char)(*p - 'a' + 'A');
	return k;
}

static size_t hash(const char *s)
{
	size_t h = 1469598103934665603ull; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static int index_rebuild(struct content *c, size_t cap)
{
	size_t *index = calloc(cap, sizeof(*index));

	if (!index)
		return -ENOMEM;
	for (size_t i = 0; i < c->n; i++) {
		if (c->nodes[i].removed)
			continue;
		size_t h = hash(c->nodes[i].key) & (cap - 1);
		while (index[h])
			h = (h + 1) & (cap - 1);
		index[h] = i + 1;
	}
	free(c->index);
	c->index = index;
	c->index_cap = cap;
	return 0;
}

struct content_node *content_find(struct content *c, const char *key)
{
	if (!c->index_cap)
		return NULL;
	for (size_t h = hash(key) & (c->index_cap - 1); c->index[h]; h = (h + 1) & (c->index_cap - 1)) {
		struct content_node *n = &c->nodes[c->index[h] - 1];
		if (!n->removed && strcmp(n->key, key) == 0)
			return n;
	}
	return NULL;
}

/* Marks @n and, for a directory, everything below it as replaced. */
static void remove_subtree(struct content *c, struct content_node *n)
{
	size_t len = strlen(n->key);

	if (n->is_dir)
		for (size_t i = 0; i < c->n; i++)
			if (!c->nodes[i].removed && strncmp(c->nodes[i].key, n->key, len) == 0 &&
			    c->nodes[i].key[len] == '/')
				c->nodes[i].removed = true;
	n->removed = true;
}

static void node_release(struct content_node *n)
{
	free(n->path);
	free(n->key);
	free(n->host_path);
	free(n->origin);
}

/*
 * Adds @in (its strings are copied, except text) at in->path: replaces what an earlier
 * entry put there, merges with an existing directory, and refuses a clash within one source.
 */
int content_add(struct content *c, const struct content_node *in, struct diag *d)
{
	char *key = fold(in->path);
	struct content_node *old = key ? content_find(c, key) : NULL;

	if (!key)
		return -ENOMEM;
	if (old && old->source == in->source && strcmp(old->path, in->path) != 0) {
		free(key);
		return diag_error(d, "%s and %s: FAT sees the two names as equal (it ignores case)",
				  old->origin, in->origin);
	}
	if (old && old->is_dir && in->is_dir) { /* two directories merge */
		free(key);
		return 0;
	}
	if (old)
		remove_subtree(c, old);
	if (array_grow((void **)&c->nodes, &c->cap, c->n + 1, sizeof(*c->nodes)) < 0) {
		free(key);
		return -ENOMEM;
	}
	struct content_node *n = &c->nodes[c->n];
	*n = *in;
	n->key = key;
	n->path = strdup(in->path);
	n->origin = strdup(in->origin);
	n->host_path = in->host_path ? strdup(in->host_path) : NULL;
	c->n++;
	if (!n->path || !n->origin || (in->host_path && !n->host_path))
		return -ENOMEM;
	if (c->n * 2 > c->index_cap)
		return index_rebuild(c, c->index_cap ? c->index_cap * 2 : 1024);
	return index_rebuild_one(c, c->n - 1);
}

int index_rebuild_one(struct content *c, size_t i)
{
	size_t h = hash(c->nodes[i].key) & (c->index_cap - 1);

	while (c->index[h])
		h = (h + 1) & (c->index_cap - 1);
	c->index[h] = i + 1;
	return 0;
}

void content_release(struct content *c)
{
	for (size_t i = 0; i < c->n; i++)
		node_release(&c->nodes[i]);
	free(c->nodes);
	free(c->index);
	memset(c, 0, sizeof(*c));
}
