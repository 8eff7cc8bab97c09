/* SPDX-License-Identifier: MIT */
/* fat/tree: building the tree of directories and files (see fat.h, tree_priv.h). */
#include "fat/name_priv.h"
#include "fat/ondisk.h"
#include "fat/tree_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static uint64_t index_hash(const struct fat_node *parent, const char *name, size_t len)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)(uintptr_t)parent;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 1099511628211ull;
	return h;
}

/* The slot a name of hash @h is first looked for in an index of @cap slots (any number),
 * and the slot after @i. The last bytes of a name reach only some bits of its hash: a
 * multiplication by 2^64 over the golden ratio (Knuth's multiplicative hashing) carries
 * them to the high half, which is then scaled to @cap. */
static size_t slot_first(uint64_t h, size_t cap)
{
	return (size_t)((((h * 0x9E3779B97F4A7C15ull) >> 32) * cap) >> 32);
}

static size_t slot_next(size_t i, size_t cap)
{
	return i + 1 < cap ? i + 1 : 0;
}

static struct fat_node **index_slot(struct fat_index *x, const struct fat_node *parent,
				    const char *name, size_t len)
{
	size_t i = slot_first(index_hash(parent, name, len), x->cap);

	for (;; i = slot_next(i, x->cap)) {
		struct fat_node *n = x->slots[i];
		if (!n ||
		    (n->parent == parent && strlen(n->name) == len && !memcmp(n->name, name, len)))
			return &x->slots[i];
	}
}

/* The index with @cap slots (more than it holds). */
static int index_grow(struct fat_index *x, size_t cap)
{
	struct fat_index bigger = { .cap = cap };

	bigger.slots = calloc(bigger.cap, sizeof(*bigger.slots));
	if (!bigger.slots)
		return -ENOMEM;
	for (size_t i = 0; i < x->cap; i++) {
		struct fat_node *n = x->slots[i];
		if (n)
			*index_slot(&bigger, n->parent, n->name, strlen(n->name)) = n;
	}
	bigger.used = x->used;
	free(x->slots);
	*x = bigger;
	return 0;
}

int fat_tree_expect(struct fat_tree *t, size_t nodes)
{
	/* kept at most half full, as node_add() keeps it */
	if (nodes > (SIZE_MAX / sizeof(struct fat_node *) - 1) / 2)
		return -ENOMEM;
	return nodes * 2 + 1 > t->index.cap ? index_grow(&t->index, nodes * 2 + 1) : 0;
}

struct fat_tree *fat_tree_new(int64_t timestamp)
{
	struct fat_tree *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->timestamp = timestamp;
	t->root.is_dir = true;
	t->root.mtime = timestamp;
	t->root.name = arena_strdup(&t->arena, "");
	if (!t->root.name || index_grow(&t->index, 64)) {
		fat_tree_free(t);
		return NULL;
	}
	return t;
}

/* Frees the lists of children below @n (the nodes themselves are the arena's). */
static void node_free(struct fat_node *n)
{
	for (size_t i = 0; i < n->n_kids; i++)
		if (n->kids[i]->is_dir)
			node_free(n->kids[i]);
	free(n->kids);
}

void fat_tree_free(struct fat_tree *t)
{
	if (!t)
		return;
	node_free(&t->root);
	arena_free(&t->arena);
	free(t->index.slots);
	for (size_t i = 0; i < t->folders.cap; i++)
		free(t->folders.slots[i]);
	free(t->folders.slots);
	free(t);
}

static char **folder_slot(struct fat_folders *f, const char *dir, size_t len)
{
	size_t i = index_hash(NULL, dir, len) & (f->cap - 1);

	for (;; i = (i + 1) & (f->cap - 1)) {
		char *s = f->slots[i];
		if (!s || (strlen(s) == len && !memcmp(s, dir, len)))
			return &f->slots[i];
	}
}

/* The tree's one copy of the folder @dir (@len bytes), made on first use; NULL: no memory. */
static const char *folder_of(struct fat_folders *f, const char *dir, size_t len)
{
	if (f->used * 2 >= f->cap) {
		struct fat_folders bigger = { .cap = f->cap ? f->cap * 2 : 64, .used = f->used };
		if (!(bigger.slots = calloc(bigger.cap, sizeof(*bigger.slots))))
			return NULL;
		for (size_t i = 0; i < f->cap; i++)
			if (f->slots[i])
				*folder_slot(&bigger, f->slots[i],
					     strlen(f->slots[i])) = f->slots[i];
		free(f->slots);
		*f = bigger;
	}
	char **slot = folder_slot(f, dir, len);
	if (!*slot) {
		if (!(*slot = strndup(dir, len)))
			return NULL;
		f->used++;
	}
	return *slot;
}

/* What @n keeps beside it, made on first use: NULL when out of memory. */
static struct fat_node_more *node_more(struct fat_tree *t, struct fat_node *n)
{
	if (!n->more)
		n->more = arena_alloc(&t->arena, sizeof(*n->more), _Alignof(struct fat_node_more));
	return n->more;
}

/* Names @n's host file @path as its folder (shared) and its name there. */
static int set_host_path(struct fat_tree *t, struct fat_node *n, const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;

	n->host_dir = folder_of(&t->folders, path, (size_t)(name - path));
	if (!n->host_dir)
		return -ENOMEM;
	if (strcmp(name, n->name) != 0 &&
	    (!node_more(t, n) || !(n->more->host_name = arena_strdup(&t->arena, name))))
		return -ENOMEM;
	return 0;
}

const char *fat_node_host_path(const struct fat_node *n, char *buf, size_t len)
{
	int w = snprintf(buf, len, "%s%s", n->host_dir ? n->host_dir : "",
			 n->host_dir ? fat_node_host_name(n) : "");

	return w >= 0 && (size_t)w < len ? buf : NULL;
}

const char *fat_node_path(const struct fat_node *n, char *buf, size_t len)
{
	size_t pos = len - 1;

	buf[pos] = 0;
	if (!n->parent)
		return pos > 0 ? (buf[--pos] = '/', buf + pos) : buf;
	for (; n && n->parent; n = n->parent) {
		size_t l = strlen(n->name);
		if (l + 1 > pos)
			return n->name; /* too deep for the buffer: the name alone */
		pos -= l;
		memcpy(buf + pos, n->name, l);
		buf[--pos] = '/';
	}
	return buf + pos;
}

const char *fat_node_where(const struct fat_node *n, char *buf, size_t len)
{
	/* "== buf", not "!= NULL": a static analyser would take the test for a sign that @buf
	 * itself may be NULL */
	if (n->origin_is_host && fat_node_host_path(n, buf, len) == buf)
		return buf;
	return n->more && n->more->origin ? n->more->origin : fat_node_path(n, buf, len);
}

/* Returns 0 or -ENOMEM. */
static int set_meta(struct fat_tree *t, struct fat_node *n, const struct fat_meta *m)
{
	n->mtime = m ? m->mtime : t->timestamp;
	n->mtime_ns = m ? m->mtime_ns : 0;
	n->attrs = m ? m->attrs & (FAT_ATTR_READONLY | FAT_ATTR_HIDDEN | FAT_ATTR_SYSTEM |
				   FAT_ATTR_ARCHIVE)
		     : 0;
	n->first = m && m->first;
	uint32_t reserve = m && !n->is_dir && m->reserve <= UINT32_MAX ? (uint32_t)m->reserve : 0;
	if (!reserve && !n->more)
		return 0; /* most nodes: nothing kept beside them */
	if (!node_more(t, n))
		return -ENOMEM;
	n->more->reserve = reserve;
	return 0;
}

/* How many children the list of a directory with @n of them has room for: none for none, 8
 * for up to 8, then half as many again each time it is full. */
static uint64_t kids_room(uint32_t n)
{
	uint64_t room = n ? 8 : 0;

	while (room < n)
		room += room / 2;
	return room;
}

/* Creates the child @name (@len bytes) of @parent. */
static int node_add(struct fat_tree *t, struct fat_node *parent, const char *name, size_t len,
		    struct fat_node **ret)
{
	struct fat_node *n;

	if (t->index.used * 2 >= t->index.cap && index_grow(&t->index, t->index.cap * 2))
		return -ENOMEM;
	uint32_t had = parent->n_kids;
	if (had == kids_room(had)) {
		/* growing by half, not by twice: a folder's list wastes a sixth of itself on
		 * average, not a third (a tree of many files in a few folders is mostly lists) */
		uint64_t cap = had ? (uint64_t)had + had / 2 : 8;
		if (cap > UINT32_MAX || cap > SIZE_MAX / sizeof(struct fat_node *))
			return -ENOMEM;
		struct fat_node **kids = realloc(parent->kids, (size_t)cap * sizeof(*kids));
		if (!kids)
			return -ENOMEM;
		parent->kids = kids;
	}
	n = arena_alloc(&t->arena, sizeof(*n), _Alignof(struct fat_node));
	if (!n || !(n->name = arena_strndup(&t->arena, name, len)))
		return -ENOMEM;
	n->parent = parent;
	parent->kids[parent->n_kids++] = n;
	*index_slot(&t->index, parent, name, len) = n;
	t->index.used++;
	t->prepared = false;
	*ret = n;
	return 0;
}

/*
 * Walks @path, creating missing directories; *ret is the node of the last component (NULL
 * when it does not exist yet) and *ret_parent its directory, *ret_name its name.
 */
static int walk(struct fat_tree *t, const char *path, struct fat_node **ret_parent,
		struct fat_node **ret, const char **ret_name, size_t *ret_len, struct diag *d)
{
	struct fat_node *dir = &t->root, *n = NULL;
	const char *p = path;

	for (;;) {
		size_t len;
		while (*p == '/')
			p++;
		len = strcspn(p, "/");
		if (!len)
			return diag_error(d, "%s: not a file or directory path", path);
		if ((len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
			return diag_error(d, "%s: \".\" and \"..\" are not names", path);
		n = *index_slot(&t->index, dir, p, len);
		if (!p[len + strspn(p + len, "/")]) {
			*ret_parent = dir;
			*ret = n;
			*ret_name = p;
			*ret_len = len;
			return 0;
		}
		if (n && !n->is_dir)
			return diag_error(d, "%s: %s is a file, not a directory", path, n->name);
		if (!n) {
			int r = node_add(t, dir, p, len, &n);
			if (r)
				return r;
			n->is_dir = true;
			if ((r = set_meta(t, n, NULL)) < 0)
				return r;
		}
		dir = n;
		p += len;
	}
}

static int set_origin(struct fat_tree *t, struct fat_node *n, const struct fat_meta *m)
{
	size_t dir_len = n->host_dir ? strlen(n->host_dir) : 0;

	if (!m || !m->origin)
		return 0;
	if (n->more)
		n->more->origin = NULL;
	/* a host file is usually named by its own path: that is not stored twice */
	n->origin_is_host = n->host_dir && !strncmp(m->origin, n->host_dir, dir_len) &&
			    !strcmp(m->origin + dir_len, fat_node_host_name(n));
	if (n->origin_is_host)
		return 0;
	return node_more(t, n) && (n->more->origin = arena_strdup(&t->arena, m->origin)) ? 0
											 : -ENOMEM;
}

int fat_tree_add_dir(struct fat_tree *t, const char *path, const struct fat_meta *m, struct diag *d)
{
	struct fat_node *parent, *n;
	const char *name;
	size_t len;
	int r;

	if (!path[strspn(path, "/")])
		return 0; /* the root: always there, and FAT stores nothing about it */
	r = walk(t, path, &parent, &n, &name, &len, d);
	if (r)
		return r;
	if (n && !n->is_dir)
		return diag_error(d, "%s: already a file", m && m->origin ? m->origin : path);
	if (!n) {
		r = node_add(t, parent, name, len, &n);
		if (r)
			return r;
		n->is_dir = true;
	}
	t->prepared = false;
	if ((r = set_meta(t, n, m)) < 0)
		return r;
	return set_origin(t, n, m);
}

int fat_tree_add_file(struct fat_tree *t, const char *path, uint64_t size,
		      const struct fat_source *src, const struct fat_meta *m, struct diag *d)
{
	if (size > UINT32_MAX) {
		return diag_errno(d, -EFBIG,
				  "%s: %" PRIu64 " bytes; a FAT file must be smaller "
				  "than 4 GiB",
				  m && m->origin ? m->origin : path, size);
	}
	return fat_tree_add_node(t, path, size, src, m, d);
}

int fat_tree_add_node(struct fat_tree *t, const char *path, uint64_t size,
		      const struct fat_source *src, const struct fat_meta *m, struct diag *d)
{
	const char *where = m && m->origin ? m->origin : path;
	struct fat_node *parent, *n;
	const char *name;
	size_t len;
	int r;

	if (size && !src)
		return diag_error(d, "%s: no source for its bytes", where);
	r = walk(t, path, &parent, &n, &name, &len, d);
	if (r)
		return r;
	if (n)
		return diag_errno(d, -EEXIST, "%s: %s already exists", where, path);
	r = node_add(t, parent, name, len, &n);
	if (r)
		return r;
	n->size = size;
	if (src)
		n->listed = src->listed;
	if (src && (src->read || src->ctx || src->fd >= 0 || src->offset || src->deferred)) {
		struct fat_source *copy = arena_alloc(&t->arena, sizeof(*copy),
						      _Alignof(struct fat_source));
		if (!copy)
			return -ENOMEM;
		*copy = *src;
		copy->path = NULL;
		if (!node_more(t, n))
			return -ENOMEM;
		n->more->src = copy;
	}
	if (src && src->path && (r = set_host_path(t, n, src->path)) < 0)
		return r;
	if ((r = set_meta(t, n, m)) < 0)
		return r;
	return set_origin(t, n, m);
}

int fat_tree_file_offset(const struct fat_tree *t, const char *path, uint64_t *ret_offset)
{
	const struct fat_node *n = &t->root;
	const char *p = path;

	if (!t->cluster_size)
		return -EINVAL;
	while (n && *(p += strspn(p, "/"))) {
		size_t len = strcspn(p, "/");
		if (!n->is_dir || !t->index.cap)
			return -ENOENT;
		n = *index_slot((struct fat_index *)&t->index, n, p, len);
		p += len;
	}
	if (!n || n->is_dir)
		return -ENOENT;
	*ret_offset = n->cluster ? t->data_offset + (uint64_t)(n->cluster - 2) * t->cluster_size
				 : 0;
	return 0;
}

int fat_node_set_u16(struct arena *a, struct fat_node *n, const uint16_t *buf, size_t len)
{
	n->u16 = arena_alloc(a, len * sizeof(*buf), _Alignof(uint16_t));
	if (!n->u16)
		return -ENOMEM;
	memcpy(n->u16, buf, len * sizeof(*buf));
	n->n16 = (uint16_t)len;
	return 0;
}

void fat_dir_drop_u16(struct fat_node *dir)
{
	for (size_t i = 0; i < dir->n_kids; i++)
		dir->kids[i]->u16 = NULL;
}

const struct fat_node *fat_tree_find(const struct fat_tree *t, const char *path)
{
	const struct fat_node *n = &t->root;
	const char *p = path;

	while (n && *(p += strspn(p, "/"))) {
		size_t len = strcspn(p, "/");
		if (!n->is_dir || !t->index.cap)
			return NULL;
		n = *index_slot((struct fat_index *)&t->index, n, p, len);
		p += len;
	}
	return n;
}

/* Byte offset of @n's short entry in its parent's entries (as write.c fills them). */
static uint64_t entry_index_offset(const struct fat_tree *t, const struct fat_node *n)
{
	const struct fat_node *dir = n->parent;
	uint64_t k = dir->parent ? 2 : t->root_label ? 1 : 0;

	for (size_t i = 0; i < dir->n_kids && dir->kids[i] != n; i++)
		k += 1u + dir->kids[i]->n_lfn;
	return (k + n->n_lfn) * FAT_DIRENT_SIZE;
}

int fat_tree_file_place(const struct fat_tree *t, const char *path, struct fat_place *ret)
{
	const struct fat_node *n;
	uint64_t dir;

	if (!t->cluster_size)
		return -EINVAL;
	n = fat_tree_find(t, path);
	if (!n || n->is_dir)
		return -ENOENT;
	dir = n->parent->cluster
		      ? t->data_offset + (uint64_t)(n->parent->cluster - 2) * t->cluster_size
		      : t->root_offset;
	ret->data = n->cluster ? t->data_offset + (uint64_t)(n->cluster - 2) * t->cluster_size : 0;
	ret->room = (uint64_t)n->n_clusters * t->cluster_size;
	ret->entry = dir + entry_index_offset(t, n);
	return 0;
}
