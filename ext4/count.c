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

#include "common/array.h"
#include "ext4/ext4_priv.h"

/* The extents an inode holds in itself; a fifth takes a block of an extent tree. */
#define INODE_EXTENTS 4

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
	/* its runs of blocks taken one after the other (extents, but for the used ranges
	 * of a volume's layout a run may cross), and the block that would go on its last */
	uint32_t runs;
	uint64_t next_at;
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
	/* the blocks the walk has taken so far, in the order a build takes them: each folder's
	 * first and each new one, each long link's target, each extent tree's block */
	uint64_t taken;
};

/* The room of a new folder's one block: "." and ".." (12 bytes each) in it. */
static uint16_t new_folder_room(const struct ext4_count *c)
{
	return (uint16_t)(c->block_size - c->tail - 24);
}

static int add_folder(struct ext4_count *c, uint16_t room, uint32_t *ret)
{
	if (array_grow((void **)&c->folders, &c->cap_folders, c->n_folders + 1,
		       sizeof(*c->folders)) < 0)
		return -ENOMEM;
	struct cfolder *f = &c->folders[c->n_folders];
	/* a new folder's block is the next one taken; the root's lies before lost+found's,
	 * never next to what the walk takes */
	*f = (struct cfolder){ .n_blocks = 1, .runs = 1, .next_at = UINT64_MAX };
	if (c->n_folders)
		f->next_at = ++c->taken;
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
		/* the block after the folder's last when nothing was taken since (libext2fs's
		 * goal), else a new run; its fifth needs an extent tree block, taken next */
		f->runs += f->next_at != c->taken;
		f->next_at = ++c->taken;
		c->taken += f->runs == INODE_EXTENTS + 1;
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
	if (array_grow((void **)&c->bytes, &c->cap_bytes, c->n_bytes + len + 1, 1) < 0 ||
	    array_grow((void **)&c->names, &c->cap_names, c->n_names + 1, sizeof(*c->names)) < 0)
		return -ENOMEM;
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
		bool slow = target_len >= sizeof(((struct ext2_inode *)0)->i_block);
		c->blocks += slow;
		c->taken += slow;
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
	size_t dx_tail = c->tail ? sizeof(struct ext2_dx_tail) : 0,
	       usable = c->block_size - c->tail;
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

/* The extent tree blocks a folder may have in a volume of any layout, after the walk
 * (1) and once indexed (2): lo to hi. */
struct tree_range {
	uint64_t lo1, hi1, lo2, hi2;
};

/*
 * The range of the extent tree blocks of the folder @f (@blocks once indexed) in any volume,
 * whatever its layout, into @r. Its runs are extents, but for a used range of the layout
 * that a run crosses (one at most: a folder's run is far shorter than the free blocks
 * between two of them, ext4_free_stretch()), which splits it in two: after the walk it has
 * runs to twice as many extents. Indexing adds one more where it adds blocks and the block
 * after the folder's last is taken (two, a used range crossed), and more where a folder
 * gave blocks back before (holes a new run may be cut by: @shrinks); a folder given blocks
 * back may hold fewer. A fifth extent takes a tree block, one while it holds them all
 * (more, and the count is not sure: @r's hi as for an extent a block).
 */
static void folder_trees(const struct ext4_count *c, const struct cfolder *f, uint32_t blocks,
			 bool shrinks, struct tree_range *r)
{
	uint32_t most = f->n_blocks > blocks ? f->n_blocks : blocks;
	uint32_t leaf = (c->block_size - (uint32_t)sizeof(struct ext3_extent_header)) /
			(uint32_t)sizeof(struct ext3_extent);
	bool grows = blocks > f->n_blocks, gives_back = blocks < f->n_blocks;
	uint64_t lo = f->runs + (grows && f->next_at != c->taken), hi = 2ull * f->runs;

	*r = (struct tree_range){ 0, 0, 0, 0 };
	if (most <= INODE_EXTENTS)
		return;
	if (most > leaf) { /* as many extents as blocks, at worst */
		r->hi1 = r->hi2 = ext4_tree_blocks_for(most, c->block_size);
		return;
	}
	hi += grows ? (shrinks ? most : 2) : 0;
	r->lo1 = f->runs > INODE_EXTENTS;
	r->hi1 = hi - (grows ? (shrinks ? most : 2) : 0) > INODE_EXTENTS;
	r->lo2 = !gives_back && lo > INODE_EXTENTS;
	r->hi2 = hi > INODE_EXTENTS;
}

int ext4_count_total(struct ext4_count *c, struct ext4_count_sum *ret)
{
	uint32_t *blocks = malloc((c->n_folders + 1) * sizeof(*blocks));
	uint64_t linear = 0, indexed = 0;
	struct tree_range t = { 0, 0, 0, 0 };
	bool shrinks = false;

	if (!blocks)
		return -ENOMEM;
	for (size_t i = 0; i < c->n_folders; i++) {
		const struct cfolder *f = &c->folders[i];
		int rc = 0;
		blocks[i] = f->n_blocks;
		if (c->indexes && f->n_blocks > 1)
			rc = indexed_blocks(c, f, &blocks[i]);
		if (rc < 0) {
			free(blocks);
			return rc;
		}
		linear += f->n_blocks - 1; /* the first blocks are counted with their folders */
		indexed += blocks[i] - 1;
		shrinks |= blocks[i] < f->n_blocks;
	}
	for (size_t i = 0; i < c->n_folders; i++) {
		struct tree_range r;
		folder_trees(c, &c->folders[i], blocks[i], shrinks, &r);
		t.lo1 += r.lo1;
		t.hi1 += r.hi1;
		t.lo2 += r.lo2;
		t.hi2 += r.hi2;
	}
	free(blocks);
	/* the most blocks the volume holds, after the walk or once indexed: sure where one of
	 * the two is known and at least the other's most */
	bool walk_most = linear + t.lo1 > indexed + t.lo2;
	ret->sure = true;
	if (t.lo2 == t.hi2 && indexed + t.lo2 >= linear + t.hi1)
		walk_most = false;
	else if (t.lo1 == t.hi1 && linear + t.lo1 >= indexed + t.hi2)
		walk_most = true;
	else
		ret->sure = false;
	ret->tree_blocks = walk_most ? t.lo1 : t.lo2;
	ret->blocks = c->blocks + ret->tree_blocks + (walk_most ? linear : indexed);
	ret->most = c->blocks +
		    (linear + t.hi1 > indexed + t.hi2 ? linear + t.hi1 : indexed + t.hi2);
	if (ret->most < ret->blocks)
		ret->most = ret->blocks;
	ret->inodes = c->inodes;
	return 0;
}

uint64_t ext4_tree_blocks_for(uint64_t extents, uint32_t block_size)
{
	uint64_t per_block = (block_size - sizeof(struct ext3_extent_header)) /
			     sizeof(struct ext3_extent),
		 n = 0;

	while (extents > INODE_EXTENTS) {
		extents = (extents + per_block - 1) / per_block;
		n += extents;
	}
	return n;
}
