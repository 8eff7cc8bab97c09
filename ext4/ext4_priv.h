/* The parts of ext4/ (private to the folder). */
#ifndef SDIMG_EXT4_PRIV_H
#define SDIMG_EXT4_PRIV_H

#include <ext2fs/ext2fs.h>

#include "ext4/ext4.h"

struct ext4_volume {
	ext2_filsys fs;
	struct diag *d;
	const char *image;      /* for messages */
	int64_t timestamp;
	void *zero_block;       /* one block of zeros, to find holes */
	bool measure;
};

/* io.c: the I/O manager over an open image; ext4_io_name() writes the name that tells
 * its open() the descriptor, offset and size ("fd:offset:size") into @buf. */
io_manager ext4_io_manager(void);
void ext4_io_name(int fd, uint64_t offset, uint64_t size, char *buf, size_t n);

/* libext2fs's error code as a negative errno (-ENOSPC for a volume too small) with a
 * message naming @what in v->d. */
int ext4_fail(struct ext4_volume *v, errcode_t err, const char *what);
int ext4_errno(errcode_t err);

/* meta.c: owner, permissions with the type bits @type (LINUX_S_IFREG, ...), and every time
 * of @inode; a new inode's creation time too. */
void ext4_meta_apply(struct ext4_volume *v, struct ext2_inode_large *inode, uint16_t type,
		     const struct ext4_meta *m);

#endif
