/* SPDX-License-Identifier: MIT */
/* The parts of ext4/ (private to the folder). */
#ifndef SDIMG_EXT4_PRIV_H
#define SDIMG_EXT4_PRIV_H

#include <ext2fs/ext2fs.h>

#include "ext4/ext4.h"

struct ext4_volume {
	ext2_filsys fs;
	struct diag *d;
	const char *image; /* for messages */
	int64_t timestamp;
	void *zero_block; /* one block of zeros, to find holes */
	char *data_buf;   /* DATA_BLOCKS blocks: a file's bytes as they are read (add.c),
			   * allocated once for all files */
	bool measure;
	/* what ext4_usage_holds() asks: blocks given back (before the folders were indexed),
	 * runs of zero blocks left out of files before more of their bytes (file_zeros: the
	 * file being written has one so far), the most blocks of one file and of one folder */
	uint64_t freed, freed_unindexed, zeros_before_data, most_file_blocks;
	uint32_t most_folder_blocks;
	bool indexed, file_zeros;
	struct ext4_names *names; /* names.c: the folders touched, NULL until then */
	int fd;                   /* read.c: the image, and the region of the volume in it, */
	uint64_t offset, size;    /* which its messages on a cut image name */
};

/* The blocks of a file's bytes read at a time. */
#define DATA_BLOCKS 256

/* What `mke2fs -t ext4` gives by default (its configuration file's ext4 features), less the
 * resize inode (the volume is built for its partition) and the orphan file. */
#define EXT4_DEFAULT_COMPAT (EXT2_FEATURE_COMPAT_EXT_ATTR | EXT2_FEATURE_COMPAT_DIR_INDEX)
#define EXT4_DEFAULT_INCOMPAT                                             \
	(EXT2_FEATURE_INCOMPAT_FILETYPE | EXT3_FEATURE_INCOMPAT_EXTENTS | \
	 EXT4_FEATURE_INCOMPAT_64BIT | EXT4_FEATURE_INCOMPAT_FLEX_BG)
#define EXT4_DEFAULT_RO_COMPAT                                                     \
	(EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER | EXT2_FEATURE_RO_COMPAT_LARGE_FILE | \
	 EXT4_FEATURE_RO_COMPAT_HUGE_FILE | EXT4_FEATURE_RO_COMPAT_DIR_NLINK |     \
	 EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE | EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)

/* io.c: the I/O manager over an open image; ext4_io_name() writes the name that tells
 * its open() the descriptor, offset and size ("fd:offset:size") into @buf. */
io_manager ext4_io_manager(void);
void ext4_io_name(int fd, uint64_t offset, uint64_t size, char *buf, size_t n);

/* libext2fs's error code as a negative errno (-ENOSPC for a volume too small) with a
 * message naming @what in v->d. */
int ext4_fail(struct ext4_volume *v, errcode_t err, const char *what);
int ext4_errno(errcode_t err);

/* names.c: @name in the folder @dir, found in memory (the folder read from the volume the
 * first time): 0 with its inode, or -ENOENT (also when the folder cannot be read: linking
 * a name then says why). */
int ext4_names_find(struct ext4_volume *v, uint32_t dir, const char *name, uint32_t *ret_ino);
/* The entry @name -> @ino (of the EXT2_FT_ @type) added to the folder @dir where
 * ext2fs_link() would put it, the folder grown by a block when no block has room; for names
 * not there yet (ext4_names_find()). */
errcode_t ext4_names_link(struct ext4_volume *v, uint32_t dir, const char *name, uint32_t ino,
			  int type);
/* The folder block ext4_names_link() holds in memory written to the volume (before the
 * folders are read or rewritten by another way, and before the volume is closed). */
errcode_t ext4_names_write(struct ext4_volume *v);
void ext4_names_free(struct ext4_names *n);

/* meta.c: owner, permissions with the type bits @type (LINUX_S_IFREG, ...), and every time
 * of @inode (clamped to what it holds); a new inode's creation time too. */
void ext4_meta_apply(struct ext4_volume *v, struct ext2_inode_large *inode, uint16_t type,
		     const struct ext4_meta *m);
/* A warning naming @what when @m's time is outside what an inode of @v holds (it is then
 * stored as the nearest it holds). */
void ext4_meta_check_time(struct ext4_volume *v, const struct ext4_meta *m, const char *what);

#endif
