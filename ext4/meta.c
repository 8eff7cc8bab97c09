/* meta: owner, mode and times of an inode (the ext4 inode layout, as the kernel's
 * Documentation/filesystems/ext4 describes it: 32-bit seconds, and in the large inode's
 * _extra fields two more epoch bits and the nanoseconds shifted left by two). */
#include "ext4/ext4_priv.h"

static uint32_t time_extra(int64_t t, uint32_t ns)
{
	uint32_t epoch = (uint32_t)(((t - (int64_t)(int32_t)(uint32_t)t) >> 32) & 3);
	return (ns << 2) | epoch;
}

void ext4_meta_apply(struct ext4_volume *v, struct ext2_inode_large *inode, uint16_t type,
		     const struct ext4_meta *m)
{
	uint32_t t = (uint32_t)m->mtime;

	inode->i_mode = (uint16_t)(type | (m->perm & 07777));
	inode->i_uid = (uint16_t)m->uid;
	inode->osd2.linux2.l_i_uid_high = (uint16_t)(m->uid >> 16);
	inode->i_gid = (uint16_t)m->gid;
	inode->osd2.linux2.l_i_gid_high = (uint16_t)(m->gid >> 16);
	inode->i_atime = inode->i_ctime = inode->i_mtime = t;
	if (EXT2_INODE_SIZE(v->fs->super) <= EXT2_GOOD_OLD_INODE_SIZE)
		return;
	if (inode->i_extra_isize < sizeof(*inode) - EXT2_GOOD_OLD_INODE_SIZE)
		inode->i_extra_isize = sizeof(*inode) - EXT2_GOOD_OLD_INODE_SIZE;
	inode->i_atime_extra = inode->i_ctime_extra = inode->i_mtime_extra =
		time_extra(m->mtime, m->mtime_ns);
	inode->i_crtime = (uint32_t)v->timestamp;
	inode->i_crtime_extra = time_extra(v->timestamp, 0);
}
