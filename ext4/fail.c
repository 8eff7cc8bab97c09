/* SPDX-License-Identifier: MIT */
/* fail: libext2fs's error codes as errnos, and the messages that name them. */
#include <errno.h>

#include "ext4/ext4_priv.h"

int ext4_errno(errcode_t err)
{
	if (err == EXT2_ET_BLOCK_ALLOC_FAIL || err == EXT2_ET_INODE_ALLOC_FAIL ||
	    err == EXT2_ET_DIR_NO_SPACE || err == EXT2_ET_TOOSMALL ||
	    err == EXT2_ET_JOURNAL_TOO_SMALL || err == EXT2_ET_DIR_NO_SPACE_FOR_CSUM ||
	    err == EXT2_ET_RES_GDT_BLOCKS || err == EXT2_ET_TOO_MANY_INODES || err == ENOSPC)
		return -ENOSPC;
	return err > 0 && err < 4096 ? -(int)err : -EIO;
}

int ext4_fail(struct ext4_volume *v, errcode_t err, const char *what)
{
	diag_error(v->d, "%s: ext4: %s: %s", v->image, what, error_message(err));
	return ext4_errno(err);
}

/* What went wrong in @doing @what; a volume that is full says whether inodes or blocks ran
 * out, and how many it has. */
int ext4_fail_at(struct ext4_volume *v, errcode_t err, const char *what, const char *doing)
{
	struct ext2_super_block *s = v->fs->super;

	if (err == EXT2_ET_INODE_ALLOC_FAIL)
		diag_error(v->d, "%s: ext4: %s %s: all %u inodes are used (ext4 { inodes })",
			   v->image, doing, what, s->s_inodes_count);
	else if (ext4_errno(err) == -ENOSPC)
		diag_error(v->d, "%s: ext4: %s %s: all %llu blocks of %u bytes are used", v->image,
			   doing, what, (unsigned long long)ext2fs_blocks_count(s),
			   v->fs->blocksize);
	else
		diag_error(v->d, "%s: ext4: %s %s: %s", v->image, doing, what, error_message(err));
	return ext4_errno(err);
}
