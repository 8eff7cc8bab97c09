/* SPDX-License-Identifier: MIT */
/* meta: owner, mode and times of an inode (the ext4 inode layout, as the kernel's
 * Documentation/filesystems/ext4 describes it: 32-bit seconds, and in the large inode's
 * _extra fields two more epoch bits and the nanoseconds shifted left by two). */
#include "ext4/ext4_priv.h"

static uint32_t time_extra(int64_t t, uint32_t ns)
{
	uint32_t epoch = (uint32_t)(((t - (int64_t)(int32_t)(uint32_t)t) >> 32) & 3);
	return (ns << 2) | epoch;
}

/* The seconds an inode holds: 32 signed bits, from 1901-12-13T20:45:52Z; with the large
 * inode's two epoch bits 2^34 seconds from there, to 2446-05-10T22:38:55Z (the kernel's
 * Documentation/filesystems/ext4/inodes.rst, "Inode Timestamps"). */
static bool large_times(const struct ext4_volume *v)
{
	return EXT2_INODE_SIZE(v->fs->super) > EXT2_GOOD_OLD_INODE_SIZE;
}

static int64_t latest(const struct ext4_volume *v)
{
	return large_times(v) ? INT32_MIN + (1ll << 34) - 1 : INT32_MAX;
}

static int64_t clamp_time(const struct ext4_volume *v, int64_t t)
{
	return t < INT32_MIN ? INT32_MIN : t > latest(v) ? latest(v) : t;
}

void ext4_meta_check_time(struct ext4_volume *v, const struct ext4_meta *m, const char *what)
{
	if (clamp_time(v, m->mtime) == m->mtime)
		return;
	if (large_times(v) || m->mtime < INT32_MIN)
		diag_warning(v->d,
			     "%s: its time (%lld s from 1970) is outside what ext4 holds "
			     "(1901-12-13 to 2446-05-10): it gets the nearest",
			     what, (long long)m->mtime);
	else
		diag_warning(v->d,
			     "%s: its time (%lld s from 1970) is past 2038-01-19, the last "
			     "an inode of 128 bytes holds (inode-size = 128): it gets that one",
			     what, (long long)m->mtime);
}

void ext4_meta_apply(struct ext4_volume *v, struct ext2_inode_large *inode, uint16_t type,
		     const struct ext4_meta *m)
{
	int64_t mtime = clamp_time(v, m->mtime);
	uint32_t t = (uint32_t)mtime;

	inode->i_mode = (uint16_t)(type | (m->perm & 07777));
	inode->i_uid = (uint16_t)m->uid;
	inode->osd2.linux2.l_i_uid_high = (uint16_t)(m->uid >> 16);
	inode->i_gid = (uint16_t)m->gid;
	inode->osd2.linux2.l_i_gid_high = (uint16_t)(m->gid >> 16);
	inode->i_atime = inode->i_ctime = inode->i_mtime = t;
	if (!large_times(v))
		return;
	if (inode->i_extra_isize < sizeof(*inode) - EXT2_GOOD_OLD_INODE_SIZE)
		inode->i_extra_isize = sizeof(*inode) - EXT2_GOOD_OLD_INODE_SIZE;
	inode->i_atime_extra = inode->i_ctime_extra = inode->i_mtime_extra =
		time_extra(mtime, m->mtime_ns);
	inode->i_crtime = (uint32_t)v->timestamp;
	inode->i_crtime_extra = time_extra(v->timestamp, 0);
}
