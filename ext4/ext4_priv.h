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

/* The largest inode a layout gives (inode-size): what a buffer for a whole one holds. */
#define INODE_MAX 1024

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

/* fail.c: libext2fs's error code as a negative errno (-ENOSPC for a volume too small) with a
 * message naming @what in v->d. */
int ext4_fail(struct ext4_volume *v, errcode_t err, const char *what);
int ext4_errno(errcode_t err);

/* fail.c: what went wrong in @doing @what (a message in v->d): a volume that is full says
 * whether inodes or blocks ran out, and how many it has. */
int ext4_fail_at(struct ext4_volume *v, errcode_t err, const char *what, const char *doing);

/* The last block of a file its extents can map: an extent's first block is 32 bits
 * (ee_block, ext4 disk layout, "Extent Tree"), and libext2fs maps up to 2^32 - 2 as the
 * kernel does (ext2fs_bmap2() refuses 2^32 - 1 and past); the kernel's largest file is the
 * size of the blocks up to it (Linux fs/ext4/super.c, ext4_max_size()). */
#define EXT4_LAST_FILE_BLOCK ((uint64_t)UINT32_MAX - 1)

/* data.c: @want bytes of a file read from @read into @buf: @want, or a negative errno (with a
 * message: a file that ends sooner shrank). */
long ext4_read_chunk(struct ext4_volume *v, ext4_read_fn read, void *ctx, char *buf, size_t want,
		     const char *what);
/* data.c: the bytes of the new file @ino, all its size of them, written in a build, in the
 * blocks libext2fs's ext2fs_file_write() gives them (zero blocks are holes). */
int ext4_data_write(struct ext4_volume *v, uint32_t ino, ext4_read_fn read, void *ctx,
		    const char *what);

/* csum.c: CRC32C of @n bytes at @p from @crc, as libext2fs's ext2fs_crc32c_le() gives it
 * (with the CPU's instruction where there is one). */
uint32_t ext4_crc32c(uint32_t crc, const void *p, size_t n);
/* csum.c: the inode @ino written whole (@inode: all its EXT2_INODE_SIZE() bytes, @size) with
 * its checksum. */
errcode_t ext4_write_whole_inode(struct ext4_volume *v, uint32_t ino,
				 struct ext2_inode_large *inode, size_t size);

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
