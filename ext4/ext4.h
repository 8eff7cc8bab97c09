/* SPDX-License-Identifier: MIT */
/*
 * ext4: an ext4 file system built in one pass into an image file at an offset, through
 * e2fsprogs' libext2fs, the same on every run for the same calls: every identifier comes from
 * the caller, every time stored is the caller's, inodes and blocks are taken in the order the
 * entries are added (callers add a folder's names sorted), and the inode tables and the
 * journal are zeros, said to be so (nothing is left for the kernel to initialise on first
 * mount): the image region reads as zeros before, and they are not written.
 *   io.c      libext2fs's block I/O onto the image file at the volume's offset
 *   volume.c  the empty file system: parameters, tables, root, lost+found, journal, close
 *   add.c     folders, files, symbolic links, device nodes, hard links, extended attributes
 *   acl.c     POSIX ACLs as the values of their extended attributes
 *   names.c   the names of each folder in memory while building; big folders made hashed trees
 *   meta.c    owner, mode and times of an inode
 *   features.c  the features a layout turns on or off
 *   read.c    the read side: folders listed and files read, for sdimg ls and cat
 * Errors are 0 or a negative errno with one message in the caller's struct diag.
 */
#ifndef SDIMG_EXT4_EXT4_H
#define SDIMG_EXT4_EXT4_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"

struct ext4_params {
	const char *label;         /* volume name, at most 16 bytes, or NULL */
	uint8_t uuid[16];          /* the file system's UUID, in text order */
	uint8_t hash_seed[16];     /* the seed of directory name hashes */
	uint32_t block_size;       /* 1024, 2048 or 4096 */
	uint32_t inode_size;       /* 128 to block_size, a power of two */
	uint64_t inodes;           /* 0: one per 16 KiB of the volume */
	unsigned reserved_percent; /* blocks kept for root, 0 to 50 */
	bool journal;              /* an internal journal of libext2fs's default size */
	const char *features;      /* changes to the default features, or NULL:
				     * ext4_features_apply() */
	int64_t timestamp;         /* creation, check and write times of the volume */
	bool measure;              /* a trial, to size a volume: files get the blocks the
				     * build gives them but no bytes (ext4_write_data() reads
				     * them to find their zero blocks, writes nothing); a
				     * volume too small fails with -ENOSPC */
};

/* Owner, permission bits (07777) and modification time of one entry. */
struct ext4_meta {
	uint32_t uid, gid;
	uint32_t perm;
	int64_t mtime;
	uint32_t mtime_ns;
};

/* What a non-regular, non-folder entry is. */
enum ext4_special { EXT4_CHAR, EXT4_BLOCK, EXT4_FIFO, EXT4_SOCKET };

struct ext4_volume;

/* The comma list @text of feature names, each turned on, or off with a leading '^', applied
 * to the superblock's feature words (compat, incompat, ro_compat): 0, or -EINVAL with the
 * reason in @why (features.c). */
int ext4_features_apply(const char *text, uint32_t words[3], char *why, size_t n);
/* The same, on the default features: whether @text can be used. */
int ext4_features_check(const char *text, char *why, size_t n);

/*
 * Makes an empty file system of @size bytes (whole blocks of it) at byte @offset of the
 * image @fd, named @image in messages: superblock, group tables, inode tables, the root
 * folder (0:0, 0755) and lost+found. The region must read as zeros (a new sparse file): the
 * inode tables and the journal are left as they are there, holes of the file, and
 * ext4_used_ranges() counts them. Returns 0 or a negative errno with a message.
 */
int ext4_create(int fd, uint64_t offset, uint64_t size, const struct ext4_params *p,
		const char *image, struct diag *d, struct ext4_volume **ret);

/*
 * Each adds the entry @name (one name, no '/') in the folder @dir (an inode number: 2 is the
 * root, or what an earlier call returned in @ret_ino, which may be NULL). A name that is there
 * already is an error, but for ext4_add_dir() over a folder, which sets its owner, mode and
 * time. @what names the entry's source in messages.
 */
#define EXT4_ROOT 2u
int ext4_add_dir(struct ext4_volume *v, uint32_t dir, const char *name, const struct ext4_meta *m,
		 const char *what, uint32_t *ret_ino);
/* A regular file of @size bytes, read from @read(@ctx, @buf, @len) in order: it returns the
 * bytes read (0 only at the end) or a negative errno with a message in the caller's diag.
 * Blocks that are all zeros are left as holes. With @read NULL the file has its size but no
 * blocks yet: ext4_write_data() gives them later. */
typedef long (*ext4_read_fn)(void *ctx, void *buf, size_t len);
int ext4_add_file(struct ext4_volume *v, uint32_t dir, const char *name, const struct ext4_meta *m,
		  uint64_t size, ext4_read_fn read, void *ctx, const char *what, uint32_t *ret_ino);
/* The bytes of the file @ino (made by ext4_add_file() without @read), all its size of them,
 * from @read(@ctx, ...). */
int ext4_write_data(struct ext4_volume *v, uint32_t ino, ext4_read_fn read, void *ctx,
		    const char *what);
/* In a trial, instead of ext4_write_data() where reading the bytes costs too much: every
 * block of the file @ino's size taken (the build may take fewer: it leaves zero blocks out).
 * Does nothing in a build. */
int ext4_take_blocks(struct ext4_volume *v, uint32_t ino, const char *what);
int ext4_add_symlink(struct ext4_volume *v, uint32_t dir, const char *name,
		     const struct ext4_meta *m, const char *target, const char *what,
		     uint32_t *ret_ino);
int ext4_add_special(struct ext4_volume *v, uint32_t dir, const char *name,
		     const struct ext4_meta *m, enum ext4_special kind, uint32_t major,
		     uint32_t minor, const char *what, uint32_t *ret_ino);
/* Another name for the inode @ino (not a folder). */
int ext4_add_hard_link(struct ext4_volume *v, uint32_t dir, const char *name, uint32_t ino,
		       const char *what);
/* The extended attribute @name ("security.capability", "user.x") of inode @ino, refused when
 * the kernel would not take it there: a name it has no handler for, user.* beside a file or
 * folder, security.capability beside a file, an ACL on a symbolic link, a default ACL beside
 * a folder, an ACL's value it cannot read. @what names the entry in messages. */
int ext4_set_xattr(struct ext4_volume *v, uint32_t ino, const char *name, const void *value,
		   size_t len, const char *what);

/* One entry of a POSIX ACL (acl(5)): what it names, its rwx bits (0 to 7) and, for a named
 * user or group, the uid or gid. The tags are the kernel's (ACL_USER_OBJ, ...). */
enum ext4_acl_tag {
	EXT4_ACL_USER_OBJ = 0x01,
	EXT4_ACL_USER = 0x02,
	EXT4_ACL_GROUP_OBJ = 0x04,
	EXT4_ACL_GROUP = 0x08,
	EXT4_ACL_MASK = 0x10,
	EXT4_ACL_OTHER = 0x20,
};
struct ext4_acl_entry {
	uint16_t tag;
	uint16_t perm;
	uint32_t id;
};
/* The value of system.posix_acl_access or system.posix_acl_default (ext4_set_xattr()) that
 * holds the @n entries @e (sorted here), malloc'd in *@ret, *@ret_len bytes (acl.c). Returns
 * 0, -EINVAL for an ACL Linux would refuse (an entry twice, no mask beside a named user or
 * group, the owner's, group's or other's entry missing), or -ENOMEM. */
int ext4_acl_xattr(struct ext4_acl_entry *e, size_t n, void **ret, size_t *ret_len);
/* Why the value @value, @len bytes, of system.posix_acl_access or _default is not an ACL
 * the kernel reads (its form, its tags, its order, the entries it needs), written in @why
 * (@size bytes) and returned; NULL when it is one. */
const char *ext4_acl_check(const void *value, size_t len, char *why, size_t size);

/* Every folder whose names need more than one block rewritten as a hashed tree (dir_index),
 * as the kernel keeps them; after the last entry is added, before ext4_used_ranges() (a
 * trial too: the trees take blocks). Returns 0 or a negative errno with a message. */
int ext4_index_folders(struct ext4_volume *v);

/* Whether @v is a trial (ext4_params.measure). */
bool ext4_measuring(const struct ext4_volume *v);

/* The inode of @name in the folder @dir: 0, or -ENOENT (no message). @ret_is_dir may be
 * NULL. */
int ext4_lookup(struct ext4_volume *v, uint32_t dir, const char *name, uint32_t *ret_ino,
		bool *ret_is_dir);

/* Calls @each(@ctx, start, len) for each run of blocks in use, as byte offsets from the
 * volume's start, in order: the inode tables and the journal among them, whose zeros a card
 * must read though the image file has holes there. Returns 0 or what @each returned. */
int ext4_used_ranges(struct ext4_volume *v, int (*each)(void *ctx, uint64_t start, uint64_t len),
		     void *ctx);

/* What a volume has and what it has used so far: blocks (those before the first data block
 * counted as used) and inodes (the reserved ones among them). */
struct ext4_usage {
	uint64_t blocks, used_blocks;
	uint64_t inodes, used_inodes;
};
void ext4_get_usage(struct ext4_volume *v, struct ext4_usage *ret);

/* The journal (when asked for), the bitmaps, group descriptors and superblocks written, and
 * the volume closed. Frees @v whatever happens. Returns 0 or a negative errno. */
int ext4_finish(struct ext4_volume *v);

/* Frees @v without writing anything more (after an error, or a volume opened for reading).
 * NULL is a no-op. */
void ext4_discard(struct ext4_volume *v);

/* ---- count.c: what entries take, counted without a volume (size = auto) ---- */

/* The blocks and inodes entries take beyond an empty volume's, counted as a build of the
 * same parameters takes them (the most blocks it holds: after the last entry, or after its
 * folders are indexed), the blocks of folders' extent trees among them, and whether those
 * are the same in a volume of any size (true unless a folder's runs of blocks are so many
 * that a volume's layout may split them into a fifth extent, or into more than a tree
 * block holds). */
struct ext4_count_sum {
	uint64_t blocks, inodes;
	uint64_t tree_blocks;
	bool sure;
	uint64_t most; /* the most blocks a volume of any layout takes (@blocks when @sure) */
};
struct ext4_count;
/* A count for a volume of @p (the root and lost+found as ext4_create() makes them): 0,
 * -EINVAL (features @p cannot have: ext4_features_check() says why) or -ENOMEM. */
int ext4_count_new(const struct ext4_params *p, struct ext4_count **ret);
void ext4_count_free(struct ext4_count *c);
/* Each names an entry @name in the counted folder @dir (EXT4_COUNT_ROOT, or what
 * ext4_count_dir() returned), in the order a build adds them: a new folder (its number in
 * *@ret), a regular file of @bytes bytes (all of its blocks counted), a symbolic link whose
 * target has @target_len bytes, a device node, fifo or socket (a file of 0 bytes), or another
 * name of an inode counted before (a hard link). 0, -EINVAL (a name ext4 cannot have) or
 * -ENOMEM. */
#define EXT4_COUNT_ROOT 0u
int ext4_count_dir(struct ext4_count *c, uint32_t dir, const char *name, uint32_t *ret);
int ext4_count_inode(struct ext4_count *c, uint32_t dir, const char *name, uint64_t bytes);
int ext4_count_symlink(struct ext4_count *c, uint32_t dir, const char *name, size_t target_len);
int ext4_count_link(struct ext4_count *c, uint32_t dir, const char *name);
/* The most extent tree blocks outside the inode that @extents extents take: an inode holds
 * four, a tree block (ext4 disk layout, "Extent Tree") as many 12-byte entries as follow
 * its 12-byte header, and the blocks that hold those are counted again as one level up. */
uint64_t ext4_tree_blocks_for(uint64_t extents, uint32_t block_size);
/* What the entries counted so far take, their folders indexed. */
int ext4_count_total(struct ext4_count *c, struct ext4_count_sum *ret);

/* Whether the blocks the entries of @v took (ext4_get_usage()) are what they take in any
 * volume of its parameters, whatever its size, where a count (ext4_count_total(), sure) says
 * the same: true when no block was given back before the folders were indexed, no file had
 * a block of zeros before more of its bytes (each is one run of blocks from its start, the
 * zeros at its end left out), no file took more than
 * @longest blocks (the fewest ext4_free_stretch() gives of this volume and of the others
 * compared: a run that long crosses one used range at most, so it lies in one or two
 * extents, held in the inode), no folder had more blocks than one extent tree block holds
 * extents, and every inode is in the first flex group (the blocks the walk takes then
 * follow each other, from one place). */
bool ext4_usage_holds(const struct ext4_volume *v, uint64_t longest);
/* The blocks of @v's extent trees outside their inodes, in *@ret: those of what @v took
 * that depend on where its layout put the files (a volume of another size may take more or
 * fewer), the rest being the same in any. 0 or a negative errno with a message. */
int ext4_tree_blocks(struct ext4_volume *v, uint64_t *ret);
/* The fewest free blocks between two used ranges of @v, made empty just now (at most 32767,
 * the longest extent ext2fs_fallocate() makes), for ext4_usage_holds(). */
uint64_t ext4_free_stretch(const struct ext4_volume *v);
/* The inodes of @v's first flex group (of its first group without flex_bg): a volume whose
 * inodes are all there takes the blocks of its walk from one place. */
uint64_t ext4_flex_inodes(const struct ext4_volume *v);

/* ---- read.c: the read side (sdimg ls, cat) ---- */

/* Opens the ext2/3/4 file system of @size bytes at @offset of @fd to read. Its messages (and
 * those of ext4_list() and ext4_read_file()) name the path or the step, not the image: the
 * caller says which image and partition; a read past the end of the image file or of the
 * region is an error that says so (the image is cut short), never zeros. */
int ext4_open_read(int fd, uint64_t offset, uint64_t size, struct diag *d,
		   struct ext4_volume **ret);

struct ext4_dirent {
	const char *name;
	uint32_t mode; /* type and permission bits, as stat's st_mode */
	uint32_t uid, gid;
	uint64_t size;
	int64_t mtime;
	uint32_t major, minor; /* device nodes */
	const char *target;    /* symbolic links: where they point, else NULL */
};

/* Calls @each for each entry of the folder at @path but "." and "..", in the folder's order.
 * Messages name @path. Returns 0, what @each returned, or a negative errno. */
int ext4_list(struct ext4_volume *v, const char *path,
	      int (*each)(void *ctx, const struct ext4_dirent *e), void *ctx, struct diag *d);

/* The bytes of the regular file at @path through @out, in order. Both take the diag their
 * messages go to. */
int ext4_read_file(struct ext4_volume *v, const char *path,
		   int (*out)(void *ctx, const void *buf, size_t len), void *ctx, struct diag *d);

#endif
