/* SPDX-License-Identifier: MIT */
/*
 * count: the blocks and inodes a tree's entries take in an ext4 volume, counted without
 * building one, for `size = auto`. What it counts is what the build takes (add.c, names.c):
 * an inode per folder, file, link and device node; a file's bytes in whole blocks (every one
 * of them: the build that follows finds which are zeros, and says whether there were any);
 * a block for a link's target of 60 bytes or more (ext2fs_symlink() keeps a shorter one in
 * the inode); and each folder's blocks as names.c fills them: a name in the first block with
 * room for it, a new block where none has, then, once every name is in, a folder of more than
 * one block rewritten as a hashed tree of the same shape as index_folder() gives it.
 * Attributes are not counted: a build that gives one of them a block says so in its usage.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ext4/ext4_priv.h"

/* One name of a counted folder, kept until the folder is indexed. */
struct cname {
	uint32_t off;  /* in the names' bytes */
	uint32_t next; /* the folder's next name: 1 + index, 0 at the end */
};

struct cfolder {
	uint32_t n_blocks, first_open;
	uint32_t first, last; /* its names: 1 + index, 0 none */
	uint32_t n_names;
	uint16_t *room; /* per block: the bytes a new entry can take at its end */
};

struct ext4_count {
	uint32_t block_size, tail; /* tail: the checksum entry of a folder block */
	int hash_alg;
	uint32_t hash_seed[4];
	bool indexes; /* dir_index */
	struct cfolder *folders;
	size_t n_folders, cap_folders;
	struct cname *names;
	size_t n_names, cap_names;
	char *bytes; /* every name, each ending in a NUL */
	size_t n_bytes, cap_bytes;
	uint64_t blocks, inodes;
};

/* The room of a new folder's one block: "." and ".." (12 bytes each) in it. */
static uint16_t new_folder_room(const struct ext4_count *c)
{
	return (uint16_t)(c->block_size - c->tail - 24);
}

static int add_folder(struct ext4_count *c, uint16_t room, uint32_t *ret)
{
	if (c->n_folders == c->cap_folders) {
		size_t cap = c->cap_folders ? c->cap_folders * 2 : 64;
		struct cfolder *f = realloc(c->folders, cap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		c->folders = f;
		c->cap_folders = cap;
	}
	struct cfolder *f = &c->folders[c->n_folders];
	*f = (struct cfolder){ .n_blocks = 1 };
	if (!(f->room = malloc(sizeof(*f->room))))
		return -ENOMEM;
	f->room[0] = room;
	*ret = (uint32_t)c->n_folders++;
	return 0;
}

static int add_name(struct ext4_count *c, uint32_t dir, const char *name);

int ext4_count_new(const struct ext4_params *p, struct ext4_count **ret)
{
	struct ext4_count *c = calloc(1, sizeof(*c));
	uint32_t words[3] = { EXT4_DEFAULT_COMPAT, EXT4_DEFAULT_INCOMPAT, EXT4_DEFAULT_RO_COMPAT };
	char why[256];
	uint32_t root;

	if (!c)
		return -ENOMEM;
	if (ext4_features_apply(p->features, words, why, sizeof(why)) < 0) {
		free(c);
		return -EINVAL;
	}
	c->block_size = p->block_size;
	c->tail = words[2] & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM
			  ? (uint32_t)sizeof(struct ext2_dir_entry_tail)
			  : 0;
	c->indexes = words[0] & EXT2_FEATURE_COMPAT_DIR_INDEX;
	/* the hash volume.c gives every volume (set_identity()) */
	c->hash_alg = EXT2_HASH_HALF_MD4 + EXT2_HASH_LEGACY_UNSIGNED - EXT2_HASH_LEGACY;
	memcpy(c->hash_seed, p->hash_seed, sizeof(c->hash_seed));
	/* the root as ext4_create() leaves it: ".", ".." and "lost+found" in one block */
	int rc = add_folder(c, new_folder_room(c), &root);
	if (rc == 0)
		rc = add_name(c, root, "lost+found");
	if (rc < 0) {
		ext4_count_free(c);
		return rc;
	}
	*ret = c;
	return 0;
}

void ext4_count_free(struct ext4_count *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n_folders; i++)
		free(c->folders[i].room);
	free(c->folders);
	free(c->names);
	free(c->bytes);
	free(c);
}

/* The block of @f that takes an entry of @need bytes, as ext4_names_link() finds it. */
static int place(struct ext4_count *c, struct cfolder *f, unsigned need)
{
	uint32_t i = f->first_open;

	while (i < f->n_blocks && f->room[i] < need)
		i++;
	if (i == f->n_blocks) {
		uint16_t *room = realloc(f->room, (f->n_blocks + 1) * sizeof(*room));
		if (!room)
			return -ENOMEM;
		f->room = room;
		f->room[f->n_blocks++] = (uint16_t)(c->block_size - c->tail);
	}
	f->room[i] = (uint16_t)(f->room[i] - need);
	while (f->first_open < f->n_blocks && f->room[f->first_open] < EXT2_DIR_REC_LEN(1))
		f->first_open++;
	return 0;
}

/* @name added to the folder @dir, and kept for its index. */
static int add_name(struct ext4_count *c, uint32_t dir, const char *name)
{
	size_t len = strlen(name);

	if (!len || len > EXT2_NAME_LEN || dir >= c->n_folders)
		return -EINVAL;
	if (c->n_bytes + len + 1 > c->cap_bytes) {
		size_t cap = c->cap_bytes ? c->cap_bytes * 2 : 65536;
		while (cap < c->n_bytes + len + 1)
			cap *= 2;
		char *b = realloc(c->bytes, cap);
		if (!b)
			return -ENOMEM;
		c->bytes = b;
		c->cap_bytes = cap;
	}
	if (c->n_names == c->cap_names) {
		size_t cap = c->cap_names ? c->cap_names * 2 : 1024;
		struct cname *n = realloc(c->names, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		c->names = n;
		c->cap_names = cap;
	}
	if (c->n_bytes + len + 1 > UINT32_MAX || c->n_names + 1 > UINT32_MAX)
		return -E2BIG;
	struct cfolder *f = &c->folders[dir];
	int rc = place(c, f, EXT2_DIR_REC_LEN(len));
	if (rc < 0)
		return rc;
	memcpy(c->bytes + c->n_bytes, name, len + 1);
	c->names[c->n_names] = (struct cname){ (uint32_t)c->n_bytes, 0 };
	c->n_bytes += len + 1;
	c->n_names++;
	if (f->last)
		c->names[f->last - 1].next = (uint32_t)c->n_names;
	else
		f->first = (uint32_t)c->n_names;
	f->last = (uint32_t)c->n_names;
	f->n_names++;
	return 0;
}

int ext4_count_dir(struct ext4_count *c, uint32_t dir, const char *name, uint32_t *ret)
{
	int rc = dir < c->n_folders ? add_folder(c, new_folder_room(c), ret) : -EINVAL;

	if (rc == 0)
		rc = add_name(c, dir, name);
	if (rc == 0) {
		c->inodes++;
		c->blocks++; /* its first block, from ext2fs_mkdir() */
	}
	return rc;
}

int ext4_count_inode(struct ext4_count *c, uint32_t dir, const char *name, uint64_t bytes)
{
	int rc = add_name(c, dir, name);

	if (rc == 0) {
		c->inodes++;
		c->blocks += (bytes + c->block_size - 1) / c->block_size;
	}
	return rc;
}

int ext4_count_symlink(struct ext4_count *c, uint32_t dir, const char *name, size_t target_len)
{
	int rc = add_name(c, dir, name);

	if (rc == 0) {
		c->inodes++;
		/* a target shorter than the inode's block map is kept in it (a fast link) */
		c->blocks += target_len >= sizeof(((struct ext2_inode *)0)->i_block);
	}
	return rc;
}

int ext4_count_link(struct ext4_count *c, uint32_t dir, const char *name)
{
	return add_name(c, dir, name);
}

/* One name of a folder to index, with its hash (names.c sorts them the same way). */
struct chashed {
	const char *name;
	ext2_dirhash_t hash, minor;
};

static int compare_chashed(const void *a, const void *b)
{
	const struct chashed *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	if (x->minor != y->minor)
		return x->minor < y->minor ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The blocks of the folder @f once indexed, as index_folder() shapes it (plan_tree(),
 * cut_leaves()): a root, its index blocks and the leaves; or as it is, when its names fit
 * one leaf or need more than one level of index blocks. */
static int indexed_blocks(const struct ext4_count *c, const struct cfolder *f, uint32_t *ret)
{
	size_t dx_tail = c->tail ? sizeof(struct ext2_dx_tail) : 0, usable = c->block_size - c->tail;
	uint32_t root_limit = (uint32_t)((c->block_size - 32 - dx_tail) / 8);
	uint32_t node_limit = (uint32_t)((c->block_size - 8 - dx_tail) / 8);
	struct chashed *h = malloc((f->n_names + 1) * sizeof(*h));
	size_t n = 0, used = usable;
	uint32_t leaves = 0, nodes = 0;

	if (!h)
		return -ENOMEM;
	for (uint32_t i = f->first; i; i = c->names[i - 1].next) {
		const char *name = c->bytes + c->names[i - 1].off;
		if (ext2fs_dirhash2(c->hash_alg, name, (int)strlen(name), NULL, 0, c->hash_seed,
				    &h[n].hash, &h[n].minor)) {
			free(h);
			return -EINVAL;
		}
		h[n++].name = name;
	}
	qsort(h, n, sizeof(*h), compare_chashed);
	for (size_t i = 0; i < n; i++) {
		size_t need = EXT2_DIR_REC_LEN(strlen(h[i].name));
		if (used + need > usable) {
			leaves++;
			used = 0;
		}
		used += need;
	}
	free(h);
	if (leaves > root_limit)
		nodes = (leaves + node_limit - 1) / node_limit;
	*ret = leaves < 2 || nodes > root_limit ? f->n_blocks : 1 + nodes + leaves;
	return 0;
}

int ext4_count_total(struct ext4_count *c, struct ext4_count_sum *ret)
{
	uint64_t linear = 0, indexed = 0;
	uint32_t most = 0;

	for (size_t i = 0; i < c->n_folders; i++) {
		const struct cfolder *f = &c->folders[i];
		uint32_t blocks = f->n_blocks;
		int rc = c->indexes && f->n_blocks > 1 ? indexed_blocks(c, f, &blocks) : 0;
		if (rc < 0)
			return rc;
		linear += f->n_blocks - 1; /* the first blocks are counted with their folders */
		indexed += blocks - 1;
		most = f->n_blocks > most ? f->n_blocks : most;
		most = blocks > most ? blocks : most;
	}
	ret->blocks = c->blocks + (linear > indexed ? linear : indexed);
	ret->inodes = c->inodes;
	ret->most_folder_blocks = most;
	return 0;
}
