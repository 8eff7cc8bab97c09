/* SPDX-License-Identifier: MIT */
/*
 * data: a new file's bytes in a build. libext2fs's ext2fs_file_write() gives a file its blocks
 * one at a time (e2fsprogs' lib/ext2fs/fileio.c, bmap.c and alloc.c), and for each one writes
 * a block of zeros, then the file's inode two or three times with its checksum. Here the same
 * blocks are taken a run at a time and the bytes written once, with the inode at the end:
 * - a block that holds bytes goes to the first free block from the one the block before it
 *   went to, or from the volume's first data block when the block before is a hole or there
 *   is none, wrapping round at the volume's end (ext2fs_new_block3(), with the goal
 *   ext2fs_bmap2() gives it);
 * - it joins the file's last extent when it follows it both in the file and on the volume,
 *   while that extent has fewer than EXT_INIT_MAX_LEN - 1 blocks (ext2fs_extent_set_bmap()
 *   grows one only below that), and starts an extent otherwise;
 * - zero blocks are holes, as ever.
 * That holds while the inode itself holds the extents (four): the block that would start a
 * fifth one, and every block after it, go through ext2fs_file_write() as before, which grows
 * the extent tree as it always has. The volume's bytes are the same either way.
 * These are the rules of e2fsprogs 1.47.0, read in its source; a library that placed blocks
 * otherwise would still get a sound volume from this, only not its own bytes, and
 * tests/unit/test_ext4_data.c, which builds the same files both ways against the library
 * installed, would say so.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ext4/ext4_priv.h"

/* The most extents an inode holds in itself, without a block of the extent tree. */
#define INODE_EXTENTS 4

/* The longest extent libext2fs makes a block at a time (see above). */
#define LONGEST_EXTENT (EXT_INIT_MAX_LEN - 1)

/* One extent of the file: @len blocks from @lblk in the file, from @pblk on the volume. */
struct span {
	blk64_t lblk, pblk, len;
};

/* A file being written. */
struct placing {
	struct ext4_volume *v;
	uint32_t ino;
	union { /* as read before its first block, all of it: written back whole, libext2fs
		 * does not read it again to fill in what a shorter copy leaves out */
		struct ext2_inode_large inode;
		char bytes[INODE_MAX];
	};
	unsigned inode_size; /* of those bytes */
	struct span x[INODE_EXTENTS];
	unsigned n;    /* extents in x */
	blk64_t taken; /* blocks taken for them */
	ext2_file_t f; /* libext2fs's writer, once the extents outgrow the inode (else NULL) */
};

long ext4_read_chunk(struct ext4_volume *v, ext4_read_fn read, void *ctx, char *buf, size_t want,
		     const char *what)
{
	size_t got = 0;

	while (got < want) {
		long n = read(ctx, buf + got, want - got);
		if (n < 0)
			return n;
		if (n == 0)
			return diag_error(v->d, "%s: shrank while the image was built", what);
		got += (size_t)n;
	}
	return (long)got;
}

/* The first free block from @goal on, wrapping round: ext2fs_new_block3()'s. */
static errcode_t first_free(ext2_filsys fs, blk64_t goal, blk64_t *ret)
{
	blk64_t first = fs->super->s_first_data_block, end = ext2fs_blocks_count(fs->super) - 1;

	if (!goal || goal > end)
		goal = first;
	errcode_t err = ext2fs_find_first_zero_block_bitmap2(fs->block_map, goal, end, ret);
	if (err == ENOENT && goal != first)
		err = ext2fs_find_first_zero_block_bitmap2(fs->block_map, first, goal - 1, ret);
	return err == ENOENT ? EXT2_ET_BLOCK_ALLOC_FAIL : err;
}

/* The free blocks from the free block @at on, at most @want of them. */
static blk64_t free_from(ext2_filsys fs, blk64_t at, blk64_t want)
{
	blk64_t end = ext2fs_blocks_count(fs->super) - 1, last = at + want - 1, used;

	if (last > end)
		last = end;
	if (ext2fs_find_first_set_block_bitmap2(fs->block_map, at, last, &used))
		return last - at + 1;
	return used - at;
}

/*
 * @count blocks of bytes (@buf) from the block @lblk of the file given blocks and written:
 * into *@done, how many of them (fewer when the next one needs a fifth extent; 0 with an
 * error).
 */
static errcode_t place_run(struct placing *p, blk64_t lblk, blk64_t count, const char *buf,
			   blk64_t *done)
{
	ext2_filsys fs = p->v->fs;
	errcode_t err = 0;

	*done = 0;
	while (err == 0 && *done < count) {
		struct span *e = p->n ? &p->x[p->n - 1] : NULL;
		bool follows = e && e->lblk + e->len == lblk; /* the block before has its block */
		blk64_t at, want = count - *done;
		if ((err = first_free(fs, follows ? e->pblk + e->len - 1 : 0, &at)))
			break;
		blk64_t len = free_from(fs, at, want);
		if (follows && at == e->pblk + e->len && e->len < LONGEST_EXTENT) {
			len = len < LONGEST_EXTENT - e->len ? len : LONGEST_EXTENT - e->len;
			e->len += len;
		} else if (p->n == INODE_EXTENTS) {
			break;
		} else {
			len = len < LONGEST_EXTENT ? len : LONGEST_EXTENT;
			p->x[p->n++] = (struct span){ lblk, at, len };
		}
		ext2fs_block_alloc_stats_range(fs, at, (blk_t)len, +1);
		p->taken += len;
		err = io_channel_write_blk64(fs->io, at, (int)len, buf);
		buf += len * fs->blocksize;
		lblk += len;
		*done += len;
	}
	return err;
}

/* The inode with the extents placed so far and their blocks counted (when there are any). */
static errcode_t put_extents(struct placing *p)
{
	struct ext3_extent_header *h = (struct ext3_extent_header *)p->inode.i_block;
	struct ext3_extent *x = EXT_FIRST_EXTENT(h);

	if (!p->n)
		return 0;
	for (unsigned i = 0; i < p->n; i++) {
		x[i].ee_block = ext2fs_cpu_to_le32((uint32_t)p->x[i].lblk);
		x[i].ee_len = ext2fs_cpu_to_le16((uint16_t)p->x[i].len);
		x[i].ee_start_hi = ext2fs_cpu_to_le16((uint16_t)(p->x[i].pblk >> 32));
		x[i].ee_start = ext2fs_cpu_to_le32((uint32_t)p->x[i].pblk);
	}
	h->eh_entries = ext2fs_cpu_to_le16((uint16_t)p->n);
	errcode_t err = ext2fs_iblk_add_blocks(p->v->fs, (struct ext2_inode *)&p->inode, p->taken);
	p->n = 0;
	return err ? err : ext4_write_whole_inode(p->v, p->ino, &p->inode, p->inode_size);
}

/* From the byte @pos on, libext2fs writes the file (the inode has what was placed before). */
static errcode_t hand_over(struct placing *p, uint64_t pos)
{
	errcode_t err = put_extents(p);

	if (err == 0)
		err = ext2fs_file_open(p->v->fs, p->ino, EXT2_FILE_WRITE, &p->f);
	if (err == 0)
		err = ext2fs_file_llseek(p->f, pos, EXT2_SEEK_SET, NULL);
	return err;
}

static bool all_zeros(const struct ext4_volume *v, const char *buf, size_t n)
{
	return memcmp(buf, v->zero_block, n) == 0;
}

/* The bytes from @buf up to the first block of zeros (or @got), in whole blocks. */
static size_t bytes_run(const struct ext4_volume *v, const char *buf, size_t got)
{
	size_t bs = v->fs->blocksize, end = 0;

	while (end < got) {
		size_t n = got - end < bs ? got - end : bs;
		if (all_zeros(v, buf + end, n))
			break;
		end += n;
	}
	return end;
}

/* The @got bytes read into @buf (of whole blocks) from the byte @pos of the file written. */
static errcode_t put_chunk(struct placing *p, uint64_t pos, char *buf, size_t got)
{
	size_t bs = p->v->fs->blocksize;
	errcode_t err = 0;
	unsigned int written;

	for (size_t off = 0; err == 0 && off < got;) {
		size_t n = got - off < bs ? got - off : bs;
		if (all_zeros(p->v, buf + off, n)) { /* a hole */
			p->v->file_zeros = true;
			if (p->f)
				err = ext2fs_file_llseek(p->f, pos + off + n, EXT2_SEEK_SET, NULL);
			off += n;
			continue;
		}
		p->v->zeros_before_data += p->v->file_zeros;
		p->v->file_zeros = false;
		if (p->f) {
			err = ext2fs_file_write(p->f, buf + off, (unsigned int)n, &written);
			off += n;
			continue;
		}
		size_t len = bytes_run(p->v, buf + off, got - off);
		blk64_t blocks = (len + bs - 1) / bs, done;
		if (len % bs) /* the end of the last block: zeros, as libext2fs has them */
			memset(buf + off + len, 0, bs - len % bs);
		err = place_run(p, (pos + off) / bs, blocks, buf + off, &done);
		off += done < blocks ? done * bs : len;
		if (err == 0 && done < blocks)
			err = hand_over(p, pos + off);
	}
	return err;
}

/* Whether the inode's blocks can be placed here: it has none yet, and the volume allocates
 * blocks one by one (no bigalloc clusters). */
static bool placeable(const struct placing *p)
{
	const struct ext3_extent_header *h = (const struct ext3_extent_header *)p->inode.i_block;

	return (p->inode.i_flags & EXT4_EXTENTS_FL) && !(p->inode.i_flags & EXT4_INLINE_DATA_FL) &&
	       ext2fs_le16_to_cpu(h->eh_magic) == EXT3_EXT_MAGIC && !h->eh_entries &&
	       !h->eh_depth && EXT2FS_CLUSTER_RATIO(p->v->fs) == 1;
}

int ext4_data_write(struct ext4_volume *v, uint32_t ino, ext4_read_fn read, void *ctx,
		    const char *what)
{
	unsigned inode_size = EXT2_INODE_SIZE(v->fs->super);
	struct placing p = { .v = v,
			     .ino = ino,
			     .inode_size = inode_size < INODE_MAX ? inode_size : INODE_MAX };
	size_t cap = DATA_BLOCKS * (size_t)v->fs->blocksize;
	errcode_t err = ext2fs_read_inode2(v->fs, ino, (struct ext2_inode *)&p.inode,
					   (int)p.inode_size, 0);
	uint64_t size = EXT2_I_SIZE(&p.inode), pos = 0;
	int rc = 0;

	uint64_t blocks = (size + v->fs->blocksize - 1) / v->fs->blocksize;
	v->file_zeros = false;
	if (blocks > v->most_file_blocks)
		v->most_file_blocks = blocks;
	if (err == 0 && !placeable(&p))
		err = hand_over(&p, 0);
	if (err)
		return ext4_fail_at(v, err, what, "writing");
	if (!v->data_buf && !(v->data_buf = malloc(cap)))
		rc = -ENOMEM;
	while (rc == 0 && pos < size) {
		size_t want = size - pos < cap ? (size_t)(size - pos) : cap;
		long got = ext4_read_chunk(v, read, ctx, v->data_buf, want, what);
		if (got < 0)
			rc = (int)got;
		else if ((err = put_chunk(&p, pos, v->data_buf, (size_t)got)))
			rc = ext4_fail_at(v, err, what, "writing");
		pos += want;
	}
	err = p.f ? ext2fs_file_close(p.f) : rc == 0 ? put_extents(&p) : 0;
	if (rc == 0 && err)
		rc = ext4_fail_at(v, err, what, "writing");
	return rc;
}
