/* SPDX-License-Identifier: MIT */
/* model: the files of a FAT or exFAT partition, overlaid in layout order (see contents.h). */
#include "mkimage/contents/contents.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/array.h"
#include "common/path.h"
#include "fat/fat.h"
#include "mkimage/contents/contents_priv.h"

const struct content_caps *content_caps_of(const struct content *c)
{
	return c->caps ? c->caps : &content_caps_fat;
}

/* FAT and exFAT compare names without regard to case, each by its own table. */
char *content_key(const struct content *c, const char *path)
{
	return content_caps_of(c)->path_key(path);
}

static uint32_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (uint32_t)(h ^ (h >> 32));
}

/* The slot a key of hash @h is first looked for in an index of @cap slots (any number),
 * and the slot after @i. The last bytes of a key reach only some bits of its hash: a
 * multiplication by 2^64 over the golden ratio (Knuth's multiplicative hashing) carries
 * them to the high half, which is then scaled to @cap. */
static size_t slot_first(uint32_t h, size_t cap)
{
	return (size_t)((((h * 0x9E3779B97F4A7C15ull) >> 32) * cap) >> 32);
}

static size_t slot_next(size_t i, size_t cap)
{
	return i + 1 < cap ? i + 1 : 0;
}

/* Puts node @node + 1 of key hash @h into @index (@cap slots, with room). */
static void index_put(struct content_slot *index, size_t cap, uint32_t node, uint32_t h)
{
	size_t i = slot_first(h, cap);

	while (index[i].node)
		i = slot_next(i, cap);
	index[i].node = node;
	index[i].hash = h;
}

/* An index half as large again, from the hashes the slots keep (no key is read again). It
 * is filled up to three quarters: a probe that meets another key compares its hash, kept in
 * the slot, and reads no node, so that a full index costs little time and many files less
 * memory than one kept half empty. */
static int index_grow(struct content *c)
{
	size_t cap = c->index_cap ? c->index_cap + c->index_cap / 2 : 1024;
	struct content_slot *index = calloc(cap, sizeof(*index));

	if (!index)
		return -ENOMEM;
	for (size_t i = 0; i < c->index_cap; i++)
		if (c->index[i].node)
			index_put(index, cap, c->index[i].node, c->index[i].hash);
	free(c->index);
	c->index = index;
	c->index_cap = cap;
	return 0;
}

/* Whether the path of @n folds to @key: 1, 0, or -ENOMEM. A node keeps no key of its own:
 * it is folded again here, for the few nodes whose key has the same hash. */
static int key_matches(const struct content *c, const struct content_node *n, const char *key)
{
	char *k = n->path ? content_key(c, n->path) : NULL;
	int same = k ? strcmp(k, key) == 0 : n->path ? -ENOMEM : 0;

	free(k);
	return same;
}

int content_find(struct content *c, const char *key, struct content_node **ret)
{
	uint32_t h = hash(key);

	*ret = NULL;
	if (!c->index_cap)
		return 0;
	for (size_t i = slot_first(h, c->index_cap); c->index[i].node;
	     i = slot_next(i, c->index_cap)) {
		struct content_node *n = &c->nodes[c->index[i].node - 1];
		int same = c->index[i].hash == h && !n->removed ? key_matches(c, n, key) : 0;
		if (same < 0)
			return same;
		if (same) {
			*ret = n;
			return 0;
		}
	}
	return 0;
}

size_t content_next_below(const struct content *c, size_t root, size_t k)
{
	if (c->nodes[k - 1].kids)
		return c->nodes[k - 1].kids;
	for (; k && k != root; k = c->nodes[k - 1].parent)
		if (c->nodes[k - 1].next)
			return c->nodes[k - 1].next;
	return 0;
}

/* Marks @n and, for a directory, everything below it as replaced. */
static void remove_subtree(struct content *c, struct content_node *n)
{
	size_t root = (size_t)(n - c->nodes) + 1;

	for (size_t k = n->kids; k; k = content_next_below(c, root, k))
		c->nodes[k - 1].removed = true;
	n->removed = true;
}

/* The folder of a node is not known yet: link_to_parent() looks it up by key. */
#define PARENT_BY_KEY SIZE_MAX

/* The folder of the node of key @key (1 + its index, 0: the root) into *@parent: 0 or
 * -ENOMEM. */
static int parent_by_key(struct content *c, char *key, size_t *parent)
{
	char *slash = strrchr(key, '/');
	struct content_node *dir = NULL;
	int rc = 0;

	if (slash && slash != key) {
		*slash = '\0';
		rc = content_find(c, key, &dir);
		*slash = '/';
	}
	*parent = dir ? (size_t)(dir - c->nodes) + 1 : 0;
	return rc;
}

/* Links node @i to the list of children of folder @parent (1 + its index, 0: the root). */
static void link_to_parent(struct content *c, size_t i, size_t parent)
{
	struct content_node *n = &c->nodes[i];
	struct content_node *dir = parent ? &c->nodes[parent - 1] : NULL;
	n->parent = parent;
	n->next = dir ? dir->kids : c->root_kids;
	*(dir ? &dir->kids : &c->root_kids) = i + 1;
}

/* Forgets the strings of @n (the model's arena holds them). */
static void node_release(struct content_node *n)
{
	n->path = n->origin = n->host_path = n->link = NULL;
}

/* A copy of @s (may be NULL) in the model's arena, into *@ret: false when out of memory. */
static bool intern(struct content *c, const char *s, char **ret)
{
	*ret = s ? arena_strdup(&c->arena, s) : NULL;
	return !s || *ret;
}

const char *content_host_path(const struct content_node *n, char *buf, size_t len)
{
	if (!n->host_in_folder || !n->host_path || !n->path)
		return n->host_path;
	int w = snprintf(buf, len, "%s/%s", n->host_path, strrchr(n->path, '/') + 1);
	return w >= 0 && (size_t)w < len ? buf : NULL;
}

const char *content_origin(const struct content_node *n, char *buf, size_t len)
{
	return n->origin ? n->origin : content_host_path(n, buf, len);
}

/* The host file @host of node @n (at @path, already in the arena): its folder, shared
 * with the files before it from there, when its name there is the last name of @path;
 * else the whole path. False when out of memory. */
static bool intern_host_path(struct content *c, const char *host, struct content_node *n)
{
	const char *slash = strrchr(host, '/'), *name = strrchr(n->path, '/');
	size_t dir_len = slash ? (size_t)(slash - host) : 0;

	n->host_in_folder = slash && name && strcmp(slash + 1, name + 1) == 0 &&
			    strlen(host) < CONTENT_HOST_PATH_MAX;
	if (!n->host_in_folder)
		return intern(c, host, &n->host_path);
	if (!c->host_dir || c->host_dir_len != dir_len || memcmp(c->host_dir, host, dir_len)) {
		c->host_dir = arena_strndup(&c->arena, host, dir_len);
		c->host_dir_len = dir_len;
	}
	n->host_path = (char *)c->host_dir;
	return c->host_dir != NULL;
}

/* The strings of @in, path @path, copied into the model's arena for @n, path first: false
 * when out of memory. */
static bool intern_strings(struct content *c, const struct content_node *in, const char *path,
			   struct content_node *n)
{
	n->host_path = NULL;
	n->host_in_folder = false;
	if (!intern(c, path, &n->path) || (in->host_path && !intern_host_path(c, in->host_path, n)))
		return false;
	/* a host file is named by its path: its origin is not stored */
	if (in->origin == in->host_path && n->host_path)
		n->origin = NULL;
	else if (!intern(c, in->origin, &n->origin))
		return false;
	return intern(c, in->link, &n->link);
}

/* Appends a copy of @in (path and key already decided; freed here) into folder @parent
 * (see link_to_parent) and indexes it under @key. Its strings go to the model's arena, its
 * path first: content_drop_last() gives back the arena from there. */
static int append(struct content *c, const struct content_node *in, char *key, char *path,
		  size_t parent)
{
	struct content_node n = *in;
	uint32_t h = hash(key);
	int rc = parent == PARENT_BY_KEY ? parent_by_key(c, key, &parent) : 0;
	bool ok = rc == 0 && intern_strings(c, in, path, &n);

	free(key);
	free(path);
	/* a node's number must fit its index slot: beyond, memory would have run out long ago */
	if (!ok || c->n >= UINT32_MAX - 1 ||
	    array_grow((void **)&c->nodes, &c->cap, c->n + 1, sizeof(*c->nodes)) < 0)
		return -ENOMEM;
	assert(in->origin); /* every entry says where it comes from (its messages name it) */
	c->nodes[c->n++] = n;
	c->nodes[c->n - 1].kids = 0;
	link_to_parent(c, c->n - 1, parent);
	if (c->n * 4 > c->index_cap * 3 && index_grow(c) < 0)
		return -ENOMEM;
	index_put(c->index, c->index_cap, (uint32_t)c->n, h);
	return 0;
}

/*
 * Rewrites the folders of @path (all but its last component) in the case under which they
 * already exist, creating those that do not as implicit folders of @in's source.
 * Returns the new path in *@ret_path, or a negative errno (a message when a file is in the way).
 */
static int resolve_parents(struct content *c, const struct content_node *in, char **ret_path,
			   struct diag *d)
{
	char *path = strdup(in->path), where[CONTENT_HOST_PATH_MAX];
	size_t at = 1; /* the folder being resolved is path[0..end of the component at @at) */
	int rc = path ? 0 : -ENOMEM;

	while (rc == 0 && strchr(path + at, '/')) {
		char *slash = strchr(path + at, '/');
		*slash = '\0';
		char *key = content_key(c, path);
		struct content_node *dir = NULL;
		char *rest = strdup(slash + 1), *joined = NULL;
		if (!key || !rest || content_find(c, key, &dir) < 0) {
			rc = -ENOMEM;
		} else if (dir && !dir->is_dir) {
			rc = diag_error(d,
					"%s: %s needs %s to be a folder, but %s put a file there",
					in->origin, in->path, dir->path,
					content_origin(dir, where, sizeof(where)));
		} else if (dir && dir->source == in->source && strcmp(dir->path, path) != 0) {
			rc = diag_error(d,
					"%s: %s and %s (of %s): %s sees the two names as equal "
					"(it ignores case)",
					in->origin, path, dir->path,
					content_origin(dir, where, sizeof(where)),
					content_caps_of(c)->name);
		} else if (!dir) {
			struct content_node implicit = { .is_dir = true,
							 .implicit = true,
							 .mtime = c->implicit_mtime,
							 .source = in->source,
							 .origin = in->origin };
			char *copy = strdup(path);
			rc = copy ? append(c, &implicit, key, copy, PARENT_BY_KEY) : -ENOMEM;
			key = NULL;
		}
		/* continue in the case the folder already has */
		if (rc == 0 && asprintf(&joined, "%s/%s", dir ? dir->path : path, rest) < 0)
			rc = -ENOMEM;
		if (rc == 0) {
			at = strlen(dir ? dir->path : path) + 1;
			free(path);
			path = joined;
		}
		free(key);
		free(rest);
	}
	if (rc < 0) {
		free(path);
		return rc;
	}
	*ret_path = path;
	return 0;
}

/*
 * Adds @in (its strings are copied, except text) at in->path: replaces what an earlier
 * entry put there, merges with an existing directory, and refuses a clash within one source.
 */
/* A path within CONTENT_MAX_PATH bytes and CONTENT_MAX_DEPTH names, or an error. */
static int check_path_limits(const struct content_node *in, struct diag *d)
{
	size_t names = 0, len = strlen(in->path);

	if (len > CONTENT_MAX_PATH)
		return diag_error(d,
				  "%s: a path of %zu bytes in the partition; sdimg takes at "
				  "most %d",
				  in->origin, len, CONTENT_MAX_PATH);
	for (const char *p = in->path; *p; p++)
		names += p[0] == '/' && p[1] && p[1] != '/';
	if (names > CONTENT_MAX_DEPTH)
		return diag_error(d,
				  "%s: a path %zu names deep in the partition; sdimg takes at "
				  "most %d",
				  in->origin, names, CONTENT_MAX_DEPTH);
	return 0;
}

static void forget_last_folder(struct content_last_folder *f)
{
	free(f->given);
	free(f->path);
	free(f->key);
	memset(f, 0, sizeof(*f));
}

/* Remembers the folder of @in, resolved as @path and folded as @key. Returns 0 or -ENOMEM. */
static int remember_last_folder(struct content *c, const struct content_node *in, const char *path,
				const char *key)
{
	struct content_last_folder *f = &c->last;
	const char *given_end = strrchr(in->path, '/'), *path_end = strrchr(path, '/');
	const char *key_end = strrchr(key, '/');

	forget_last_folder(f);
	if (!given_end || !path_end || !key_end)
		return 0;
	f->source = in->source;
	f->given = strndup(in->path, (size_t)(given_end - in->path));
	f->path = strndup(path, (size_t)(path_end - path));
	f->key = strndup(key, (size_t)(key_end - key));
	if (!f->given || !f->path || !f->key) {
		forget_last_folder(f);
		return -ENOMEM;
	}
	struct content_node *dir = NULL;
	if (*f->key && content_find(c, f->key, &dir) < 0) {
		forget_last_folder(f);
		return -ENOMEM;
	}
	f->node = dir ? (size_t)(dir - c->nodes) + 1 : 0;
	if (*f->key && (!dir || !dir->is_dir))
		forget_last_folder(f);
	return 0;
}

/* Whether @in goes into the folder the last path went into, and that folder is still the
 * same node of the model (a node is never moved; a replaced one is marked removed, and so
 * is everything below it). Its folders then resolve as they did then. */
static bool in_last_folder(const struct content *c, const struct content_node *in)
{
	const struct content_last_folder *f = &c->last;
	const char *end = strrchr(in->path, '/');
	size_t len = end ? (size_t)(end - in->path) : 0;

	if (!f->given || !end || f->source != in->source || strlen(f->given) != len ||
	    memcmp(f->given, in->path, len) != 0)
		return false;
	if (!f->node)
		return true;
	const struct content_node *dir = f->node <= c->n ? &c->nodes[f->node - 1] : NULL;
	return dir && !dir->removed && dir->is_dir && dir->path && strcmp(dir->path, f->path) == 0;
}

/* @in's path as the model has it, and its key: from the last folder when it goes there,
 * else resolved folder by folder. */
static int place(struct content *c, const struct content_node *in, char **ret_path, char **ret_key,
		 struct diag *d)
{
	char *path = NULL, *key = NULL, *name_key = NULL;
	int rc;

	if (in_last_folder(c, in)) {
		const char *name = strrchr(in->path, '/') + 1;
		path = path_append(c->last.path, name);
		name_key = content_key(c, name);
		key = name_key ? path_append(c->last.key, name_key) : NULL;
		free(name_key);
		rc = path && key ? 0 : -ENOMEM;
	} else {
		rc = resolve_parents(c, in, &path, d);
		if (rc == 0)
			rc = (key = content_key(c, path)) ? remember_last_folder(c, in, path, key)
							  : -ENOMEM;
	}
	if (rc < 0) {
		free(path);
		free(key);
		return rc;
	}
	*ret_path = path;
	*ret_key = key;
	return 0;
}

int content_add(struct content *c, const struct content_node *in, struct diag *d)
{
	char *path = NULL, *key = NULL, host[CONTENT_HOST_PATH_MAX], where[CONTENT_HOST_PATH_MAX];
	struct content_node whole;

	/* a node of another model (a tree's, filtered) with its host path and origin whole */
	if (in->host_in_folder || !in->origin) {
		whole = *in;
		whole.host_path = (char *)content_host_path(in, host, sizeof(host));
		whole.host_in_folder = false;
		whole.origin = in->origin ? in->origin : whole.host_path;
		in = &whole;
	}
	int rc = check_path_limits(in, d);

	if (rc < 0)
		return rc;
	rc = place(c, in, &path, &key, d);
	if (rc < 0)
		return rc;
	struct content_node *old = NULL;
	if (content_find(c, key, &old) < 0) {
		rc = -ENOMEM;
	} else if (old && old->source == in->source && strcmp(old->path, path) != 0) {
		rc = diag_error(d, "%s and %s: %s sees the two names as equal (it ignores case)",
				content_origin(old, where, sizeof(where)), in->origin,
				content_caps_of(c)->name);
	} else if (old && old->source == in->source && old->is_dir != in->is_dir) {
		rc = diag_error(d, "%s and %s: a %s and a %s at one path",
				content_origin(old, where, sizeof(where)), in->origin,
				old->is_dir ? "folder" : "file", in->is_dir ? "folder" : "file");
	} else if (old && old->is_dir && in->is_dir) {            /* two directories merge */
		if (old->implicit && old->source == in->source) { /* an archive lists it late */
			old->mtime = in->mtime;
			old->mtime_ns = in->mtime_ns;
			old->implicit = false;
		}
		rc = 0;
	} else {
		if (old)
			remove_subtree(c, old);
		return append(c, in, key, path, c->last.given ? c->last.node : PARENT_BY_KEY);
	}
	free(key);
	free(path);
	return rc;
}

int content_count_copy(struct content_copies *cc, uint64_t size, const char *source, struct diag *d)
{
	uint64_t max_nodes = CONTENT_COPIES_FACTOR * cc->held_nodes + CONTENT_COPIES_NODES;
	uint64_t max_bytes = CONTENT_COPIES_FACTOR * cc->held_bytes + CONTENT_COPIES_BYTES;

	cc->nodes++;
	cc->bytes += size;
	if (cc->nodes > max_nodes)
		return diag_error(d,
				  "%s: its symbolic links copy more than %llu entries (%d times "
				  "the %llu it holds, plus %d); FAT has no links, so each "
				  "followed link is a full copy",
				  source, (unsigned long long)max_nodes, CONTENT_COPIES_FACTOR,
				  (unsigned long long)cc->held_nodes, CONTENT_COPIES_NODES);
	if (cc->bytes > max_bytes)
		return diag_error(d,
				  "%s: its symbolic links copy more than %llu bytes (%d times "
				  "the %llu bytes of its files, plus %llu); FAT has no links, "
				  "so each followed link is a full copy",
				  source, (unsigned long long)max_bytes, CONTENT_COPIES_FACTOR,
				  (unsigned long long)cc->held_bytes,
				  (unsigned long long)CONTENT_COPIES_BYTES);
	return 0;
}

void content_shed(struct content *c, size_t i)
{
	struct content_node *n = &c->nodes[i];
	/* content_write_archive_data() finds a file from an archive by its path */
	char *path = n->archive && !n->removed ? n->path : NULL;

	node_release(n);
	n->path = path;
}

void content_drop_index(struct content *c)
{
	free(c->index);
	c->index = NULL;
	c->index_cap = 0;
}

void content_drop_last(struct content *c)
{
	content_drop_index(c); /* the model can no longer be searched */
	struct content_node *n = &c->nodes[--c->n];
	if (n->path)
		arena_pop_to(&c->arena, n->path); /* its strings, the newest of the arena */
	c->host_dir = NULL;                       /* it may have gone with them */
	node_release(n);
	/* the array shrinks as it empties (each MiB), so that what takes its place need not
	 * come on top of it */
	if ((c->cap - c->n) * sizeof(*c->nodes) >= (1u << 20)) {
		struct content_node *smaller = realloc(c->nodes, (c->n + 1) * sizeof(*c->nodes));
		if (smaller) {
			c->nodes = smaller;
			c->cap = c->n + 1;
		}
	}
}

void content_release(struct content *c)
{
	for (size_t i = 0; i < c->n; i++)
		node_release(&c->nodes[i]);
	for (size_t i = 0; i < c->n_archives; i++) {
		free(c->archives[i].path);
		if (c->archives[i].spooled)
			close(c->archives[i].spool_fd);
	}
	free(c->archives);
	free(c->nodes);
	free(c->index);
	arena_free(&c->arena);
	forget_last_folder(&c->last);
	memset(c, 0, sizeof(*c));
}
