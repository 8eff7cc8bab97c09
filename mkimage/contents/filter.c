/* SPDX-License-Identifier: MIT */
/*
 * filter: a FAT tree's include and exclude patterns (LAYOUT.md, "Filters"). The tree is
 * gathered into a model of its own (links resolved, strip applied; a host folder's walk
 * judges each entry before it examines it and leaves out what cannot stay), the rest of its
 * entries are judged there (by patterns.c), and only those kept join the partition's model:
 * an entry left out never replaces what an earlier entry put at its path.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "mkimage/contents/contents_priv.h"

const char *content_relative(const char *path, const char *top)
{
	size_t n = strcmp(top, "/") ? strlen(top) : 0;

	if (n && (strncmp(path, top, n) || (path[n] && path[n] != '/')))
		return NULL;
	return path[n] == '/' ? path + n + 1 : path + n;
}

/* Marks the folder that holds node @i (found by its key) as kept. */
static int keep_parent(struct content *s, size_t i, bool *keep)
{
	char *key = content_key(s, s->nodes[i].path), *slash;
	struct content_node *parent = NULL;
	int rc = key ? 0 : -ENOMEM;

	if (rc == 0 && (slash = strrchr(key, '/')) && slash != key) {
		*slash = '\0';
		rc = content_find(s, key, &parent);
		if (parent)
			keep[parent - s->nodes] = true;
	}
	free(key);
	return rc;
}

/*
 * Which nodes of @s stay: those included (or all, without include) and not excluded, the
 * top and what lies above it, and every folder that holds something that stays. Parents
 * come before their children in @s, so one pass backwards carries a kept child up.
 */
static int decide(struct content *s, const struct layout_entry *e, struct content_filter *f,
		  bool *keep)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct content_node *n = &s->nodes[i];
		const char *rel = content_relative(n->path, e->path);
		if (n->removed)
			continue;
		if (!rel || !*rel) {
			keep[i] = true;
			continue;
		}
		keep[i] = n->judged ? !n->left_out : content_filter_takes(f, rel, n->is_dir);
	}
	for (size_t i = s->n; i-- > 0;)
		if (keep[i] && !s->nodes[i].removed && keep_parent(s, i, keep) < 0)
			return -ENOMEM;
	return 0;
}

/* The archives of @s become @c's (their ids shift by what @c had); returns the shift. */
static int take_archives(struct content *c, struct content *s, uint32_t *ret_base)
{
	if (array_grow((void **)&c->archives, &c->cap_archives, c->n_archives + s->n_archives,
		       sizeof(*c->archives)) < 0)
		return -ENOMEM;
	*ret_base = (uint32_t)c->n_archives;
	for (size_t i = 0; i < s->n_archives; i++) {
		c->archives[c->n_archives++] = s->archives[i];
		s->archives[i].path = NULL;
		s->archives[i].spooled = false;
	}
	return 0;
}

int content_merge_filtered(struct content *c, struct content *s, const struct layout_entry *e,
			   struct content_filter *f, const char *place, struct diag *d)
{
	bool *keep = calloc(s->n + 1, sizeof(*keep));
	uint32_t base = 0;
	int rc = keep ? 0 : -ENOMEM;

	if (rc == 0)
		rc = decide(s, e, f, keep);
	if (rc == 0)
		rc = take_archives(c, s, &base);
	for (size_t i = 0; rc == 0 && i < s->n; i++) {
		struct content_node n = s->nodes[i];
		/* a folder made only because a path needs it is made again by that path */
		if (n.removed || !keep[i] || n.implicit)
			continue;
		n.archive = n.archive ? n.archive + base : 0;
		rc = content_add(c, &n, d);
	}
	if (rc == 0)
		content_filter_warn(f, place, d);
	free(keep);
	return rc;
}
