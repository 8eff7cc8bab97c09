/* SPDX-License-Identifier: MIT */
/*
 * names: the names of every folder a build touches, kept in memory, so that looking a name
 * up and adding one cost the same in a folder of 100,000 names as in one of ten (libext2fs's
 * ext2fs_lookup() and ext2fs_link() read the whole folder each time). A folder is read from
 * the volume once, when first touched; from then on its names are in a hash table, and the
 * room left at the end of each of its blocks is known. A name goes where ext2fs_link() would
 * put it, in the first block with room for it (the last entry of that block is cut to its
 * length and the new one takes the rest), so that the bytes are those libext2fs writes.
 * The block names go into is held in memory while they go on going there, and written
 * (with its checksum) once when they move on to another block, before the folders are
 * indexed and when the volume is closed: not read and written again for every name.
 * Once every name is in, a folder of more than one block is rewritten as a hashed tree
 * (dir_index), as the kernel keeps one (its Documentation/filesystems/ext4/directory.rst,
 * "Hash Tree Directories"): a root block with "." and "..", the hash's version and the
 * index of the leaves (through one level of index blocks when the root cannot hold them
 * all), and leaf blocks that hold the names in order of their hashes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ext4/ext4_priv.h"

/* The fewest bytes a directory entry takes (a name of one byte). */
#define MIN_REC_LEN EXT2_DIR_REC_LEN(1)

/* One name of one folder. */
struct entry {
	char *name;
	uint32_t dir, ino;
	uint32_t next; /* the folder's next entry: 1 + index, 0 at the end */
	uint8_t type;  /* EXT2_FT_... */
};

/* A folder read into memory. */
struct folder {
	uint32_t ino; /* 0: a free slot of the table */
	uint32_t n_blocks;
	uint32_t first_open;  /* the blocks before it have no room for any name */
	uint32_t first, last; /* its entries: 1 + index, 0 none */
	uint32_t n_entries;
	uint16_t *room; /* per block: the bytes a new entry can take at its end */
};

struct ext4_names {
	struct entry *entries;
	size_t n_entries, cap_entries;
	uint32_t *table; /* 1 + index into entries, 0 free; a power of two of them */
	size_t table_cap;
	struct folder *folders; /* open addressing by inode; a power of two of them */
	size_t n_folders, folder_cap;
	/* the block names were last added to, kept until names go to another block: it is
	 * read and written (checksummed) once for all the names it takes in a row */
	char *block;
	uint32_t block_dir;   /* its folder, 0: none held */
	uint32_t block_index; /* which block of its folder it is */
	blk64_t block_at;
	size_t block_last; /* the offset of the entry that ends it */
	bool block_dirty;  /* changed since it was read */
};

static uint32_t hash_name(uint32_t dir, const char *name, size_t len)
{
	uint32_t h = 2166136261u ^ dir;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 16777619u;
	return h;
}

static struct folder *folder_slot(struct ext4_names *n, uint32_t ino)
{
	size_t mask = n->folder_cap - 1, i = (ino * 2654435761u) & mask;

	while (n->folders[i].ino && n->folders[i].ino != ino)
		i = (i + 1) & mask;
	return &n->folders[i];
}

static errcode_t grow_folders(struct ext4_names *n)
{
	struct ext4_names bigger = *n;

	bigger.folder_cap = n->folder_cap ? n->folder_cap * 2 : 64;
	if (!(bigger.folders = calloc(bigger.folder_cap, sizeof(*bigger.folders))))
		return EXT2_ET_NO_MEMORY;
	for (size_t i = 0; i < n->folder_cap; i++)
		if (n->folders[i].ino)
			*folder_slot(&bigger, n->folders[i].ino) = n->folders[i];
	free(n->folders);
	n->folders = bigger.folders;
	n->folder_cap = bigger.folder_cap;
	return 0;
}

/* The slot of @name in @dir: the one holding it, or the free one where it would go. */
static uint32_t *name_slot(const struct ext4_names *n, uint32_t dir, const char *name, size_t len)
{
	size_t mask = n->table_cap - 1, i = hash_name(dir, name, len) & mask;

	for (;; i = (i + 1) & mask) {
		const struct entry *e = n->table[i] ? &n->entries[n->table[i] - 1] : NULL;
		if (!e || (e->dir == dir && strlen(e->name) == len && !memcmp(e->name, name, len)))
			return &n->table[i];
	}
}

static errcode_t grow_table(struct ext4_names *n)
{
	size_t cap = n->table_cap ? n->table_cap * 2 : 1024;
	uint32_t *t = calloc(cap, sizeof(*t));

	if (!t)
		return EXT2_ET_NO_MEMORY;
	free(n->table);
	n->table = t;
	n->table_cap = cap;
	for (size_t i = 0; i < n->n_entries; i++) {
		const struct entry *e = &n->entries[i];
		*name_slot(n, e->dir, e->name, strlen(e->name)) = (uint32_t)i + 1;
	}
	return 0;
}

/* @name (@len bytes) -> @ino of the type @type remembered in the folder @f. */
static errcode_t remember(struct ext4_names *n, struct folder *f, const char *name, size_t len,
			  uint32_t ino, uint8_t type)
{
	errcode_t err = 0;

	if ((n->n_entries + 1) * 2 > n->table_cap && (err = grow_table(n)))
		return err;
	if (n->n_entries == n->cap_entries) {
		size_t cap = n->cap_entries ? n->cap_entries * 2 : 1024;
		struct entry *e = realloc(n->entries, cap * sizeof(*e));
		if (!e)
			return EXT2_ET_NO_MEMORY;
		n->entries = e;
		n->cap_entries = cap;
	}
	struct entry *e = &n->entries[n->n_entries];
	if (!(e->name = strndup(name, len)))
		return EXT2_ET_NO_MEMORY;
	e->dir = f->ino;
	e->ino = ino;
	e->type = type;
	e->next = 0;
	n->n_entries++;
	*name_slot(n, f->ino, name, len) = (uint32_t)n->n_entries;
	if (f->last)
		n->entries[f->last - 1].next = (uint32_t)n->n_entries;
	else
		f->first = (uint32_t)n->n_entries;
	f->last = (uint32_t)n->n_entries;
	f->n_entries++;
	return 0;
}

static size_t csum_size(ext2_filsys fs)
{
	return ext2fs_has_feature_metadata_csum(fs->super) ? sizeof(struct ext2_dir_entry_tail) : 0;
}

/* The room a new entry has in place of, or after, the entry @d of @rec_len bytes. */
static unsigned room_of(const struct ext2_dir_entry *d, unsigned rec_len)
{
	return d->inode ? rec_len - EXT2_DIR_REC_LEN(ext2fs_dirent_name_len(d)) : rec_len;
}

/* The block @buf of the folder @f read: its names remembered, and the room at its end. */
static errcode_t read_names(struct ext4_names *n, struct folder *f, ext2_filsys fs, char *buf,
			    uint16_t *room)
{
	size_t end = fs->blocksize - csum_size(fs);
	unsigned rec_len = 0;
	struct ext2_dir_entry *d = NULL;
	errcode_t err = 0;

	*room = 0;
	for (size_t off = 0; err == 0 && off < end; off += rec_len) {
		d = (struct ext2_dir_entry *)(buf + off);
		if ((err = ext2fs_get_rec_len(fs, d, &rec_len)))
			return err;
		if (rec_len < 8 || off + rec_len > end)
			return EXT2_ET_DIR_CORRUPTED;
		if (d->inode)
			err = remember(n, f, d->name, (size_t)ext2fs_dirent_name_len(d), d->inode,
				       (uint8_t)ext2fs_dirent_file_type(d));
		*room = (uint16_t)room_of(d, rec_len);
	}
	return err;
}

/* Block @i of the folder @ino: its place on the volume. */
static errcode_t block_of(ext2_filsys fs, uint32_t ino, uint32_t i, blk64_t *ret)
{
	return ext2fs_bmap2(fs, ino, NULL, NULL, 0, i, NULL, ret);
}

/* The folder @ino read from the volume, once. */
static errcode_t load_folder(struct ext4_volume *v, uint32_t ino, struct folder **ret)
{
	struct ext4_names *n = v->names;
	ext2_filsys fs = v->fs;
	struct ext2_inode inode;
	errcode_t err = 0;

	if ((n->n_folders + 1) * 2 > n->folder_cap && (err = grow_folders(n)))
		return err;
	struct folder *f = folder_slot(n, ino);
	if (f->ino) {
		*ret = f;
		return 0;
	}
	if ((err = ext2fs_read_inode(fs, ino, &inode)))
		return err;
	if (!LINUX_S_ISDIR(inode.i_mode))
		return EXT2_ET_NO_DIRECTORY;
	uint64_t blocks = EXT2_I_SIZE(&inode) / fs->blocksize;
	char *buf = malloc(fs->blocksize);
	struct folder fresh = { .ino = ino, .n_blocks = (uint32_t)blocks };
	if (!buf || !(fresh.room = calloc(blocks ? blocks : 1, sizeof(*fresh.room)))) {
		free(buf);
		return EXT2_ET_NO_MEMORY;
	}
	*f = fresh;
	n->n_folders++;
	for (uint32_t i = 0; err == 0 && i < blocks; i++) {
		blk64_t blk;
		if (!(err = block_of(fs, ino, i, &blk)) &&
		    !(err = ext2fs_read_dir_block4(fs, blk, buf, 0, ino)))
			err = read_names(n, f, fs, buf, &f->room[i]);
	}
	free(buf);
	*ret = f;
	return err;
}

int ext4_names_find(struct ext4_volume *v, uint32_t dir, const char *name, uint32_t *ret_ino)
{
	struct folder *f;

	if (!v->names && !(v->names = calloc(1, sizeof(*v->names))))
		return -ENOMEM;
	if (load_folder(v, dir, &f) || !v->names->table_cap)
		return -ENOENT;
	uint32_t at = *name_slot(v->names, dir, name, strlen(name));
	if (!at)
		return -ENOENT;
	*ret_ino = v->names->entries[at - 1].ino;
	return 0;
}

/* The offset of the entry that ends the folder block @buf (read_names() checked them). */
static size_t last_entry(ext2_filsys fs, char *buf)
{
	size_t end = fs->blocksize - csum_size(fs), off = 0;
	unsigned rec_len;

	for (;; off += rec_len) {
		ext2fs_get_rec_len(fs, (struct ext2_dir_entry *)(buf + off), &rec_len);
		if (off + rec_len >= end)
			return off;
	}
}

/* The entry @name -> @ino written over the entry at *@last that ends block @buf, or after it:
 * *@last is then the new entry's offset. */
static void put_entry(ext2_filsys fs, char *buf, size_t *last, const char *name, size_t len,
		      uint32_t ino, int type)
{
	struct ext2_dir_entry *d = (struct ext2_dir_entry *)(buf + *last);
	unsigned rec_len;

	ext2fs_get_rec_len(fs, d, &rec_len);
	if (d->inode) { /* cut to its length; the new entry takes the rest */
		unsigned used = EXT2_DIR_REC_LEN(ext2fs_dirent_name_len(d));
		ext2fs_set_rec_len(fs, used, d);
		*last += used;
		d = (struct ext2_dir_entry *)(buf + *last);
		rec_len -= used;
		ext2fs_set_rec_len(fs, rec_len, d);
	}
	d->inode = ino;
	ext2fs_dirent_set_name_len(d, (int)len);
	ext2fs_dirent_set_file_type(d, type);
	memcpy(d->name, name, len);
}

/* The folder @f one block longer (an empty block at its end). */
static errcode_t grow_folder(struct ext4_volume *v, struct folder *f)
{
	uint16_t *room = realloc(f->room, (f->n_blocks + 1) * sizeof(*room));
	errcode_t err;

	if (!room)
		return EXT2_ET_NO_MEMORY;
	f->room = room;
	if ((err = ext2fs_expand_dir(v->fs, f->ino)))
		return err;
	f->room[f->n_blocks++] = (uint16_t)(v->fs->blocksize - csum_size(v->fs));
	if (f->n_blocks > v->most_folder_blocks)
		v->most_folder_blocks = f->n_blocks;
	return 0;
}

/* The block held in memory written to the volume, if it changed. */
static errcode_t write_held(ext2_filsys fs, struct ext4_names *n)
{
	errcode_t err = 0;

	if (n->block_dir && n->block_dirty)
		err = ext2fs_write_dir_block4(fs, n->block_at, n->block, 0, n->block_dir);
	n->block_dirty = false;
	return err;
}

/* Block @blk of the folder @dir held in memory, read when it is not the one held. */
static errcode_t hold_block(ext2_filsys fs, struct ext4_names *n, uint32_t dir, blk64_t blk)
{
	errcode_t err;

	if (n->block_dir == dir && n->block_at == blk)
		return 0;
	if ((err = write_held(fs, n)))
		return err;
	n->block_dir = 0;
	if (!n->block && !(n->block = malloc(fs->blocksize)))
		return EXT2_ET_NO_MEMORY;
	if ((err = ext2fs_read_dir_block4(fs, blk, n->block, 0, dir)))
		return err;
	n->block_dir = dir;
	n->block_at = blk;
	n->block_last = last_entry(fs, n->block);
	return 0;
}

errcode_t ext4_names_write(struct ext4_volume *v)
{
	if (!v->names)
		return 0;
	errcode_t err = write_held(v->fs, v->names);
	v->names->block_dir = 0;
	return err;
}

errcode_t ext4_names_link(struct ext4_volume *v, uint32_t dir, const char *name, uint32_t ino,
			  int type)
{
	ext2_filsys fs = v->fs;
	size_t len = strlen(name);
	unsigned need = EXT2_DIR_REC_LEN(len);
	struct folder *f;
	errcode_t err;

	if (!v->names && !(v->names = calloc(1, sizeof(*v->names))))
		return EXT2_ET_NO_MEMORY;
	if ((err = load_folder(v, dir, &f)))
		return err;
	uint32_t i = f->first_open;
	while (i < f->n_blocks && f->room[i] < need)
		i++;
	if (i == f->n_blocks && (err = grow_folder(v, f)))
		return err;
	blk64_t blk;
	struct ext4_names *n = v->names;
	/* the block held is where it was: a folder's blocks stay in place until indexed,
	 * and indexing lets go of it (ext4_names_write()) */
	bool held = n->block_dir == dir && n->block_index == i;
	if (!held && ((err = block_of(fs, dir, i, &blk)) || (err = hold_block(fs, n, dir, blk))))
		return err;
	n->block_index = i;
	put_entry(fs, n->block, &n->block_last, name, len, ino, type);
	n->block_dirty = true;
	f = folder_slot(v->names, dir); /* remember() does not move folders, but say so */
	f->room[i] = (uint16_t)(f->room[i] - need);
	while (f->first_open < f->n_blocks && f->room[f->first_open] < MIN_REC_LEN)
		f->first_open++;
	return remember(v->names, f, name, len, ino, (uint8_t)type);
}

/* One name of a folder to index, with its hash. */
struct hashed {
	const struct entry *e;
	ext2_dirhash_t hash, minor;
};

static int compare_hashed(const void *a, const void *b)
{
	const struct hashed *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	if (x->minor != y->minor)
		return x->minor < y->minor ? -1 : 1;
	return strcmp(x->e->name, y->e->name);
}

/* The shape of a folder's tree: its blocks are the root, @n_nodes index blocks, @n_leaves
 * leaves, in that order. */
struct tree {
	uint32_t n_leaves, n_nodes;
	uint32_t *first;     /* per leaf: index of its first name in the sorted array */
	uint32_t *hash;      /* per leaf: the hash the index gives it (low bit: the leaf
				 * goes on with the previous leaf's last hash) */
	uint32_t *node_hash; /* per index block: its first leaf's hash */
	uint32_t root_limit, node_limit;
};

/* The names @h (sorted) cut into leaves of @usable bytes each. */
static errcode_t cut_leaves(const struct hashed *h, size_t n, size_t usable, struct tree *t)
{
	size_t used = usable;

	if (!(t->first = malloc((n + 1) * sizeof(*t->first))) ||
	    !(t->hash = malloc((n + 1) * sizeof(*t->hash))))
		return EXT2_ET_NO_MEMORY;
	t->n_leaves = 0;
	for (size_t i = 0; i < n; i++) {
		size_t need = EXT2_DIR_REC_LEN(strlen(h[i].e->name));
		if (used + need > usable) {
			bool goes_on = i && h[i - 1].hash == h[i].hash;
			t->first[t->n_leaves] = (uint32_t)i;
			t->hash[t->n_leaves++] = h[i].hash | goes_on;
			used = 0;
		}
		used += need;
	}
	return 0;
}

static void put_dirent(ext2_filsys fs, char *at, uint32_t ino, const char *name, unsigned rec_len,
		       int type)
{
	struct ext2_dir_entry *d = (struct ext2_dir_entry *)at;
	size_t len = strlen(name);

	d->inode = ino;
	ext2fs_set_rec_len(fs, rec_len, d);
	ext2fs_dirent_set_name_len(d, (int)len);
	ext2fs_dirent_set_file_type(d, type);
	memcpy(d->name, name, len);
}

/* Leaf @k of the tree @t: its names, the last one taking the rest of the block. */
static void fill_leaf(ext2_filsys fs, const struct tree *t, const struct hashed *h, size_t n,
		      uint32_t k, char *buf)
{
	size_t end = fs->blocksize - csum_size(fs), off = 0;
	uint32_t last = k + 1 < t->n_leaves ? t->first[k + 1] : (uint32_t)n;

	memset(buf, 0, fs->blocksize);
	for (uint32_t i = t->first[k]; i < last; i++) {
		unsigned len = EXT2_DIR_REC_LEN(strlen(h[i].e->name));
		put_dirent(fs, buf + off, h[i].e->ino, h[i].e->name,
			   i + 1 < last ? len : (unsigned)(end - off), h[i].e->type);
		off += len;
	}
	if (csum_size(fs))
		ext2fs_initialize_dirent_tail(fs, EXT2_DIRENT_TAIL(buf, fs->blocksize));
}

/* The index entries at @at: @limit of them, the children from block @child on, whose hashes
 * are @hashes[0 .. @count) (the first one's is not stored). */
static void fill_index(char *at, uint32_t limit, uint32_t count, uint32_t child,
		       const uint32_t *hashes)
{
	struct ext2_dx_countlimit *cl = (struct ext2_dx_countlimit *)at;
	struct ext2_dx_entry *e = (struct ext2_dx_entry *)at;

	for (uint32_t i = 0; i < count; i++) {
		e[i].hash = ext2fs_cpu_to_le32(hashes[i]);
		e[i].block = ext2fs_cpu_to_le32(child + i);
	}
	cl->limit = ext2fs_cpu_to_le16((uint16_t)limit);
	cl->count = ext2fs_cpu_to_le16((uint16_t)count);
}

/* Block @b (logical) of the folder @f indexed as @t, into @buf. */
static void fill_block(ext2_filsys fs, const struct folder *f, const struct ext4_names *n,
		       const struct tree *t, const struct hashed *h, size_t count, uint32_t b,
		       char *buf)
{
	uint32_t leaves_at = 1 + t->n_nodes;

	if (b >= leaves_at)
		return fill_leaf(fs, t, h, count, b - leaves_at, buf);
	memset(buf, 0, fs->blocksize);
	if (b > 0) { /* an index block: an empty entry over the whole block, then the index */
		uint32_t from = (b - 1) * t->node_limit, left = t->n_leaves - from;
		put_dirent(fs, buf, 0, "", fs->blocksize, 0);
		fill_index(buf + 8, t->node_limit, left < t->node_limit ? left : t->node_limit,
			   leaves_at + from, t->hash + from);
		return;
	}
	uint32_t parent = f->ino;
	for (uint32_t i = f->first; i; i = n->entries[i - 1].next)
		if (!strcmp(n->entries[i - 1].name, ".."))
			parent = n->entries[i - 1].ino;
	put_dirent(fs, buf, f->ino, ".", 12, EXT2_FT_DIR);
	put_dirent(fs, buf + 12, parent, "..", fs->blocksize - 12, EXT2_FT_DIR);
	struct ext2_dx_root_info *info = (struct ext2_dx_root_info *)(buf + 24);
	info->hash_version = fs->super->s_def_hash_version;
	info->info_length = sizeof(*info);
	info->indirect_levels = t->n_nodes ? 1 : 0;
	if (!t->n_nodes) {
		fill_index(buf + 32, t->root_limit, t->n_leaves, 1, t->hash);
		return;
	}
	fill_index(buf + 32, t->root_limit, t->n_nodes, 1, t->node_hash);
}

/* The names of @f but "." and "..", with their hashes as the volume computes them, sorted. */
static errcode_t hash_names(ext2_filsys fs, const struct ext4_names *n, const struct folder *f,
			    struct hashed *h, size_t *ret_n)
{
	int alg = fs->super->s_def_hash_version;
	size_t count = 0;

	if (alg <= EXT2_HASH_TEA && (fs->super->s_flags & EXT2_FLAGS_UNSIGNED_HASH))
		alg += EXT2_HASH_LEGACY_UNSIGNED - EXT2_HASH_LEGACY;
	for (uint32_t i = f->first; i; i = n->entries[i - 1].next) {
		const struct entry *e = &n->entries[i - 1];
		if (!strcmp(e->name, ".") || !strcmp(e->name, ".."))
			continue;
		errcode_t err = ext2fs_dirhash2(alg, e->name, (int)strlen(e->name), NULL, 0,
						fs->super->s_hash_seed, &h[count].hash,
						&h[count].minor);
		if (err)
			return err;
		h[count++].e = e;
	}
	qsort(h, count, sizeof(*h), compare_hashed);
	*ret_n = count;
	return 0;
}

/* The tree of the sorted names @h: 0 with its shape, or 0 with no leaves when they fit in one
 * block or need more than one level of index blocks (the folder then stays as it is). */
static errcode_t plan_tree(ext2_filsys fs, const struct hashed *h, size_t count, struct tree *t)
{
	size_t dx_tail = csum_size(fs) ? sizeof(struct ext2_dx_tail) : 0;
	errcode_t err;

	t->root_limit = (uint32_t)((fs->blocksize - 32 - dx_tail) / sizeof(struct ext2_dx_entry));
	t->node_limit = (uint32_t)((fs->blocksize - 8 - dx_tail) / sizeof(struct ext2_dx_entry));
	if ((err = cut_leaves(h, count, fs->blocksize - csum_size(fs), t)))
		return err;
	if (t->n_leaves > t->root_limit)
		t->n_nodes = (t->n_leaves + t->node_limit - 1) / t->node_limit;
	if (t->n_leaves < 2 || t->n_nodes > t->root_limit) {
		t->n_leaves = 0;
		return 0;
	}
	if (!(t->node_hash = malloc((t->n_nodes + 1) * sizeof(*t->node_hash))))
		return EXT2_ET_NO_MEMORY;
	for (uint32_t k = 0; k < t->n_nodes; k++)
		t->node_hash[k] = t->hash[k * t->node_limit];
	return 0;
}

/* The path of the folder @ino into @buf (@size bytes), from the names in memory: each folder
 * a build adds is linked into a parent it has touched, so its name is there; "/" for the root. */
static void folder_path(const struct ext4_names *n, uint32_t ino, char *buf, size_t size)
{
	char tail[4096] = "";
	size_t len = 0;

	for (unsigned depth = 0; ino != EXT2_ROOT_INO && depth < 4096; depth++) {
		const struct entry *e = NULL;
		for (size_t i = 0; !e && i < n->n_entries; i++)
			if (n->entries[i].ino == ino && n->entries[i].type == EXT2_FT_DIR &&
			    strcmp(n->entries[i].name, ".") && strcmp(n->entries[i].name, ".."))
				e = &n->entries[i];
		if (!e) {
			snprintf(buf, size, "the folder of inode %u", ino);
			return;
		}
		size_t name_len = strlen(e->name);
		if (len + name_len + 1 >= sizeof(tail)) /* deeper than a path can say: its end */
			break;
		memmove(tail + name_len + 1, tail, len + 1); /* "/NAME" before what is there */
		tail[0] = '/';
		memcpy(tail + 1, e->name, name_len);
		len += name_len + 1;
		ino = e->dir;
	}
	snprintf(buf, size, "%s", tail[0] ? tail : "/");
}

/* The names of @f, @count of them, need a third level of index blocks, which the kernel
 * reads only with the largedir feature, which sdimg does not write: the folder stays linear
 * (still correct, its lookups only slower), and the build says so. */
static void warn_unindexed(struct ext4_volume *v, const struct folder *f, size_t count)
{
	char path[4096];

	folder_path(v->names, f->ino, path, sizeof(path));
	diag_warning(v->d,
		     "%s: ext4: %s: %zu names need more than two index levels of %u-byte "
		     "blocks: written unindexed (a larger block-size indexes more)",
		     v->image, path, count, v->fs->blocksize);
}

/* The folder @f made @blocks blocks long, and marked as indexed. */
static errcode_t resize_folder(struct ext4_volume *v, struct folder *f, uint32_t blocks)
{
	ext2_filsys fs = v->fs;
	struct ext2_inode inode;
	errcode_t err = 0;

	while (err == 0 && f->n_blocks < blocks)
		err = grow_folder(v, f);
	if (err == 0 && f->n_blocks > blocks)
		err = ext2fs_punch(fs, f->ino, NULL, NULL, blocks, ~0ULL);
	if (err == 0)
		err = ext2fs_read_inode(fs, f->ino, &inode);
	if (err)
		return err;
	f->n_blocks = blocks;
	inode.i_flags |= EXT2_INDEX_FL;
	if ((err = ext2fs_inode_size_set(fs, &inode,
					 (ext2_off64_t)((uint64_t)blocks * fs->blocksize))))
		return err;
	return ext2fs_write_inode(fs, f->ino, &inode);
}

/* The folder @f rewritten as a hashed tree, when its names need more than one block. */
static errcode_t index_folder(struct ext4_volume *v, struct folder *f)
{
	ext2_filsys fs = v->fs;
	struct hashed *h = malloc((f->n_entries + 1) * sizeof(*h));
	char *buf = malloc(fs->blocksize);
	struct tree t = { 0 };
	size_t count = 0;
	errcode_t err = h && buf ? 0 : EXT2_ET_NO_MEMORY;

	if (err == 0)
		err = hash_names(fs, v->names, f, h, &count);
	if (err == 0)
		err = plan_tree(fs, h, count, &t);
	if (err == 0 && t.n_nodes > t.root_limit)
		warn_unindexed(v, f, count);
	uint32_t blocks = 1 + t.n_nodes + t.n_leaves;
	if (err == 0 && t.n_leaves)
		err = resize_folder(v, f, blocks);
	for (uint32_t b = 0; err == 0 && t.n_leaves && b < blocks; b++) {
		blk64_t blk;
		fill_block(fs, f, v->names, &t, h, count, b, buf);
		if (!(err = block_of(fs, f->ino, b, &blk)))
			err = ext2fs_write_dir_block4(fs, blk, buf, 0, f->ino);
	}
	free(t.first);
	free(t.hash);
	free(t.node_hash);
	free(buf);
	free(h);
	return err;
}

int ext4_index_folders(struct ext4_volume *v)
{
	struct ext4_names *n = v->names;

	errcode_t err = ext4_names_write(v);

	v->indexed = true;
	v->freed_unindexed = v->freed;
	if (err)
		return ext4_fail(v, err, "writing the folders");
	if (!n || !ext2fs_has_feature_dir_index(v->fs->super))
		return 0;
	for (size_t i = 0; i < n->folder_cap; i++) {
		errcode_t err = n->folders[i].ino ? index_folder(v, &n->folders[i]) : 0;
		if (err)
			return ext4_fail(v, err, "indexing the folders");
	}
	return 0;
}

void ext4_names_free(struct ext4_names *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n_entries; i++)
		free(n->entries[i].name);
	for (size_t i = 0; i < n->folder_cap; i++)
		free(n->folders[i].room);
	free(n->entries);
	free(n->table);
	free(n->folders);
	free(n->block);
	free(n);
}
