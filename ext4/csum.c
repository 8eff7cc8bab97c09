/* SPDX-License-Identifier: MIT */
/*
 * csum: a whole inode written with its metadata_csum checksum computed here, with the CPU's
 * CRC32C instruction where it has one (libext2fs computes CRC32C from a table, a byte at a
 * time: two or three checksums of each new file cost more than the rest of adding it).
 * The checksum is the kernel's (Documentation/filesystems/ext4/inodes.rst, i_checksum_lo and
 * i_checksum_hi): the CRC32C of the volume's checksum seed, the inode's number and generation
 * (32 bits each, little-endian) and the whole inode with both checksum fields as zeros; its
 * low 16 bits in i_checksum_lo, its high 16 bits in i_checksum_hi where the inode's extra
 * fields reach that far.
 */
#include <string.h>

#include "ext4/ext4_priv.h"

#if defined(__x86_64__)
#include <nmmintrin.h>

__attribute__((target("sse4.2"))) static uint32_t crc32c_sse42(uint32_t crc, const char *p,
							       size_t n)
{
	uint64_t c = crc;

	for (; n >= 8; n -= 8, p += 8) {
		uint64_t word;
		memcpy(&word, p, sizeof(word));
		c = _mm_crc32_u64(c, word);
	}
	crc = (uint32_t)c;
	for (; n; n--, p++)
		crc = _mm_crc32_u8(crc, (unsigned char)*p);
	return crc;
}
#endif

/* CRC32C of @n bytes at @p from @crc, as libext2fs's ext2fs_crc32c_le() gives it. */
uint32_t ext4_crc32c(uint32_t crc, const void *p, size_t n)
{
#if defined(__x86_64__)
	if (__builtin_cpu_supports("sse4.2"))
		return crc32c_sse42(crc, p, n);
#endif
	return ext2fs_crc32c_le(crc, p, n);
}

/* The checksum set in @inode (@size bytes, in the volume's byte order) of the inode @ino. */
static void set_csum(ext2_filsys fs, uint32_t ino, struct ext2_inode_large *inode, size_t size)
{
	bool has_hi = size > EXT2_GOOD_OLD_INODE_SIZE &&
		      inode->i_extra_isize >= EXT4_INODE_CSUM_HI_EXTRA_END;
	uint32_t le_ino = ext2fs_cpu_to_le32(ino), crc;

	inode->i_checksum_lo = 0;
	if (has_hi)
		inode->i_checksum_hi = 0;
	crc = ext4_crc32c(fs->csum_seed, &le_ino, sizeof(le_ino));
	crc = ext4_crc32c(crc, &inode->i_generation, sizeof(inode->i_generation));
	crc = ext4_crc32c(crc, inode, size);
	inode->i_checksum_lo = ext2fs_cpu_to_le16((uint16_t)crc);
	if (has_hi)
		inode->i_checksum_hi = ext2fs_cpu_to_le16((uint16_t)(crc >> 16));
}

errcode_t ext4_write_whole_inode(struct ext4_volume *v, uint32_t ino,
				 struct ext2_inode_large *inode, size_t size)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* on a little-endian host the inode is in the volume's byte order already */
	if (ext2fs_has_feature_metadata_csum(v->fs->super)) {
		set_csum(v->fs, ino, inode, size);
		return ext2fs_write_inode2(v->fs, ino, (struct ext2_inode *)inode, (int)size,
					   WRITE_INODE_NOCSUM);
	}
#endif
	return ext2fs_write_inode2(v->fs, ino, (struct ext2_inode *)inode, (int)size, 0);
}
