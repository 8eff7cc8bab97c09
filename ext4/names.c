/*
 * names: the names of every folder a build touches, kept in memory, so that looking a name
 * up and adding one cost the same in a folder of 100,000 names as in one of ten (libext2fs's
 * ext2fs_lookup() and ext2fs_link() read the whole folder each time). A folder is read from
 * the volume once, when first touched; from then on its names are in a hash table, and the
 * room left at the end of each of its blocks is known. A name goes where ext2fs_link() would
 * put it, in the first block with room for it (the last entry of that block is cut to its
 * length and the new one takes the rest), so that the bytes are those libext2fs writes.
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
	uint32_t next;          /* the folder's next entry: 1 + index, 0 at the end */
	uint8_t type;           /* EXT2_FT_... */
};

/* A folder read into memory. */
struct folder {
	uint32_t ino;           /* 0: a free slot of the table */
	uint32_t n_blocks;
	uint32_t first_open;    /* the blocks before it have no room for any name */
	uint32_t first, last;   /* its entries: 1 + index, 0 none */
	uint32_t n_entries;
	uint16_t *room;         /* per block: the bytes a new entry can take at its end */
};

struct ext4_names {
	struct entry *entries;
	size_t n_entries, cap_entries;
	uint32_t *table;        /* 1 + index into entries, 0 free; a power of two of them */
	size_t table_cap;
	struct folder *folders; /* open addressing by inode; a power of two of them */
	size_t n_folders, folder_cap;
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
			err = remember(n, f, d->name, ext2fs_dirent_name_len(d), d->inode,
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

/* The entry @name -> @ino written over the entry that ends block @buf of @f, or after it. */
static void put_entry(ext2_filsys fs, char *buf, const char *name, size_t len, uint32_t ino,
		      int type)
{
	size_t end = fs->blocksize - csum_size(fs), off = 0;
	unsigned rec_len;
	struct ext2_dir_entry *d;

	for (;; off += rec_len) { /* the last entry before the end (read_names() checked them) */
		d = (struct ext2_dir_entry *)(buf + off);
		ext2fs_get_rec_len(fs, d, &rec_len);
		if (off + rec_len >= end)
			break;
	}
	if (d->inode) { /* cut to its length; the new entry takes the rest */
		unsigned used = EXT2_DIR_REC_LEN(ext2fs_dirent_name_len(d));
		ext2fs_set_rec_len(fs, used, d);
		d = (struct ext2_dir_entry *)(buf + off + used);
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
	return 0;
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
	char *buf = malloc(fs->blocksize);
	if (!buf)
		return EXT2_ET_NO_MEMORY;
	if (!(err = block_of(fs, dir, i, &blk)) &&
	    !(err = ext2fs_read_dir_block4(fs, blk, buf, 0, dir))) {
		put_entry(fs, buf, name, len, ino, type);
		err = ext2fs_write_dir_block4(fs, blk, buf, 0, dir);
	}
	free(buf);
	if (err)
		return err;
	f = folder_slot(v->names, dir); /* remember() does not move folders, but say so */
	f->room[i] = (uint16_t)(f->room[i] - need);
	while (f->first_open < f->n_blocks && f->room[f->first_open] < MIN_REC_LEN)
		f->first_open++;
	return remember(v->names, f, name, len, ino, (uint8_t)type);
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
	free(n);
}
