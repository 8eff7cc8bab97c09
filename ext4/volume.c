/* SPDX-License-Identifier: MIT */
/* volume: the empty ext4 file system, and its end (journal, tables, superblocks). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ext4/ext4_priv.h"

bool ext4_measuring(const struct ext4_volume *v)
{
	return v->measure;
}

static int log2_of(uint32_t n)
{
	int l = 0;
	while ((1u << l) < n)
		l++;
	return l;
}

static int fill_super(struct ext2_super_block *s, uint64_t size, const struct ext4_params *p,
		      struct diag *d, const char *image)
{
	uint64_t blocks = size / p->block_size;
	uint64_t inodes = p->inodes ? p->inodes : size / 16384;

	memset(s, 0, sizeof(*s));
	s->s_rev_level = EXT2_DYNAMIC_REV;
	s->s_log_block_size = (uint32_t)(log2_of(p->block_size) - EXT2_MIN_BLOCK_LOG_SIZE);
	ext2fs_blocks_count_set(s, blocks);
	ext2fs_r_blocks_count_set(s, blocks * p->reserved_percent / 100);
	s->s_inodes_count = (uint32_t)(inodes < 16           ? 16
				       : inodes > UINT32_MAX ? UINT32_MAX
							     : inodes);
	s->s_inode_size = (uint16_t)p->inode_size;
	uint32_t words[3] = { EXT4_DEFAULT_COMPAT, EXT4_DEFAULT_INCOMPAT, EXT4_DEFAULT_RO_COMPAT };
	char why[256];
	if (ext4_features_apply(p->features, words, why, sizeof(why)) < 0)
		return diag_error(d, "%s: ext4: features: %s", image, why);
	s->s_feature_compat = words[0];
	s->s_feature_incompat = words[1];
	s->s_feature_ro_compat = words[2];
	if (words[1] & EXT4_FEATURE_INCOMPAT_FLEX_BG)
		s->s_log_groups_per_flex = 4;
	if (words[1] & EXT4_FEATURE_INCOMPAT_64BIT)
		s->s_desc_size = EXT2_MIN_DESC_SIZE_64BIT;
	if (p->inode_size > EXT2_GOOD_OLD_INODE_SIZE)
		s->s_min_extra_isize = s->s_want_extra_isize = sizeof(struct ext2_inode_large) -
							       EXT2_GOOD_OLD_INODE_SIZE;
	else
		s->s_feature_ro_compat &= ~(uint32_t)EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE;
	return 0;
}

/* The identifiers, times and names libext2fs leaves to its caller. */
static void set_identity(ext2_filsys fs, const struct ext4_params *p)
{
	struct ext2_super_block *s = fs->super;

	memcpy(s->s_uuid, p->uuid, 16);
	memcpy(s->s_hash_seed, p->hash_seed, 16);
	s->s_def_hash_version = EXT2_HASH_HALF_MD4;
	/* one hash flavour whatever the build host's char (libext2fs asks the compiler) */
	s->s_flags &= ~(uint32_t)EXT2_FLAGS_SIGNED_HASH;
	s->s_flags |= EXT2_FLAGS_UNSIGNED_HASH;
	if (ext2fs_has_feature_metadata_csum(s))
		s->s_checksum_type = EXT2_CRC32C_CHKSUM;
	/* -1: no mount-count check (the field is signed in ext2_fs.h) */
	s->s_max_mnt_count = -1;
	s->s_mkfs_time = s->s_lastcheck = s->s_wtime = (uint32_t)p->timestamp;
	s->s_mkfs_time_hi = s->s_lastcheck_hi = s->s_wtime_hi = (uint8_t)(p->timestamp >> 32);
	memset(s->s_volume_name, 0, sizeof(s->s_volume_name));
	if (p->label)
		memcpy(s->s_volume_name, p->label, strnlen(p->label, sizeof(s->s_volume_name)));
	ext2fs_init_csum_seed(fs);
}

/* Every inode table said to be zeros, so that no kernel thread initialises it later: the
 * region reads as zeros already (ext4_create()), and is not written again. */
static void mark_inode_tables_zeroed(ext2_filsys fs)
{
	for (dgrp_t g = 0; g < fs->group_desc_count; g++) {
		ext2fs_bg_flags_set(fs, g, EXT2_BG_INODE_ZEROED);
		ext2fs_group_desc_csum_set(fs, g);
	}
}

/* The reserved inodes (1 to s_first_ino - 1) taken, the bad-block inode written. */
static int reserve_inodes(struct ext4_volume *v)
{
	ext2_filsys fs = v->fs;

	for (ext2_ino_t i = EXT2_ROOT_INO + 1; i < EXT2_FIRST_INODE(fs->super); i++)
		ext2fs_inode_alloc_stats2(fs, i, +1, 0);
	ext2fs_mark_inode_bitmap2(fs->inode_map, EXT2_BAD_INO);
	ext2fs_inode_alloc_stats2(fs, EXT2_BAD_INO, +1, 0);
	errcode_t err = ext2fs_update_bb_inode(fs, NULL);
	return err ? ext4_fail(v, err, "writing the bad-block inode") : 0;
}

static int make_root(struct ext4_volume *v)
{
	static const struct ext4_meta root = { .perm = 0755 };
	struct ext4_meta lf = { .perm = 0700 };
	errcode_t err = ext2fs_mkdir(v->fs, EXT2_ROOT_INO, EXT2_ROOT_INO, NULL);
	uint32_t ino = 0;

	if (err)
		return ext4_fail(v, err, "making the root folder");
	struct ext4_meta m = root;
	m.mtime = lf.mtime = v->timestamp;
	int rc = ext4_add_dir(v, EXT4_ROOT, NULL, &m, "/", NULL);
	if (rc == 0)
		rc = ext4_add_dir(v, EXT4_ROOT, "lost+found", &lf, "/lost+found", &ino);
	/* e2fsck wants lost+found to have room for some names without growing */
	for (int i = 0; rc == 0 && i < 3; i++)
		if ((err = ext2fs_expand_dir(v->fs, ino)))
			rc = ext4_fail(v, err, "growing lost+found");
	return rc;
}

static int add_journal(struct ext4_volume *v)
{
	struct ext2fs_journal_params jp;
	errcode_t err = ext2fs_get_journal_params(&jp, v->fs);

	if (err == EXT2_ET_JOURNAL_TOO_SMALL) { /* libext2fs wants 2048 blocks for one */
		uint64_t blocks = ext2fs_blocks_count(v->fs->super);
		/* 1K blocks help only a volume that holds 2048 of them, and not one that has them */
		bool smaller = v->fs->blocksize > 1024 && blocks * (v->fs->blocksize / 1024) > 2048;
		return diag_errno(v->d, -ENOSPC,
				  "%s: ext4: %llu blocks of %u bytes are too few for a "
				  "journal (2048 or more): journal = false%s",
				  v->image, (unsigned long long)blocks, v->fs->blocksize,
				  smaller ? ", or block-size = 1K" : "");
	}
	if (err)
		return ext4_fail(v, err, "sizing the journal");
	/* its blocks are zeros already (ext4_create()): only its superblock is written */
	if ((err = ext2fs_add_journal_inode3(v->fs, &jp, ~0ULL, EXT2_MKJOURNAL_LAZYINIT)))
		return ext4_fail(v, err, "writing the journal");
	struct ext2_inode_large inode;
	ext2fs_read_inode_full(v->fs, EXT2_JOURNAL_INO, (struct ext2_inode *)&inode, sizeof(inode));
	struct ext4_meta m = { .perm = 0600, .mtime = v->timestamp };
	ext4_meta_apply(v, &inode, LINUX_S_IFREG, &m);
	err = ext2fs_write_inode_full(v->fs, EXT2_JOURNAL_INO, (struct ext2_inode *)&inode,
				      sizeof(inode));
	return err ? ext4_fail(v, err, "writing the journal inode") : 0;
}

/* Blocks given back, counted for ext4_usage_holds() (fs->priv_data is the volume). */
static void count_freed(ext2_filsys fs, blk64_t blk, int inuse)
{
	(void)blk;
	if (inuse < 0)
		((struct ext4_volume *)fs->priv_data)->freed++;
}

static void count_freed_range(ext2_filsys fs, blk64_t blk, blk_t num, int inuse)
{
	(void)blk;
	if (inuse < 0)
		((struct ext4_volume *)fs->priv_data)->freed += num;
}

int ext4_create(int fd, uint64_t offset, uint64_t size, const struct ext4_params *p,
		const char *image, struct diag *d, struct ext4_volume **ret)
{
	struct ext4_volume *v = calloc(1, sizeof(*v));
	struct ext2_super_block param;
	char name[64];

	if (!v || !(v->zero_block = calloc(1, p->block_size))) {
		free(v);
		return -ENOMEM;
	}
	initialize_ext2_error_table(); /* error_message()'s texts; a second call adds nothing */
	v->d = d;
	v->image = image;
	v->timestamp = p->timestamp;
	v->measure = p->measure;
	if (fill_super(&param, size, p, d, image) < 0) {
		ext4_discard(v);
		return -EINVAL;
	}
	ext4_io_name(fd, offset, size - size % p->block_size, name, sizeof(name));
	errcode_t err = ext2fs_initialize(name, EXT2_FLAG_64BITS | EXT2_FLAG_RW, &param,
					  ext4_io_manager(), &v->fs);
	if (err) {
		int rc = ext4_fail(v, err, "making the file system");
		ext4_discard(v);
		return rc;
	}
	v->fs->now = (time_t)p->timestamp;
	v->fs->umask = 022;
	set_identity(v->fs, p);
	int rc = 0;
	if ((err = ext2fs_allocate_tables(v->fs)))
		rc = ext4_fail(v, err, "placing the group tables");
	if (rc == 0 && (err = ext2fs_convert_subcluster_bitmap(v->fs, &v->fs->block_map)))
		rc = ext4_fail(v, err, "the block bitmap");
	if (rc == 0)
		mark_inode_tables_zeroed(v->fs);
	if (rc == 0)
		rc = make_root(v);
	if (rc == 0)
		rc = reserve_inodes(v);
	if (rc == 0 && p->journal) /* first, as mke2fs does: the same place whatever follows */
		rc = add_journal(v);
	if (rc < 0) {
		ext4_discard(v);
		return rc;
	}
	v->fs->priv_data = v;
	ext2fs_set_block_alloc_stats_callback(v->fs, count_freed, NULL);
	ext2fs_set_block_alloc_stats_range_callback(v->fs, count_freed_range, NULL);
	*ret = v;
	return 0;
}

uint64_t ext4_free_stretch(const struct ext4_volume *v)
{
	ext2_filsys fs = v->fs;
	blk64_t end = ext2fs_blocks_count(fs->super) - 1, blk = fs->super->s_first_data_block;
	uint64_t fewest = EXT_UNINIT_MAX_LEN;

	while (blk <= end) {
		blk64_t free_at, used_at;
		if (ext2fs_find_first_zero_block_bitmap2(fs->block_map, blk, end, &free_at))
			break;
		if (ext2fs_find_first_set_block_bitmap2(fs->block_map, free_at, end, &used_at))
			break; /* the last stretch: nothing after it to cross */
		if (used_at - free_at < fewest)
			fewest = used_at - free_at;
		blk = used_at;
	}
	return fewest;
}

uint64_t ext4_flex_inodes(const struct ext4_volume *v)
{
	struct ext2_super_block *s = v->fs->super;

	return (uint64_t)s->s_inodes_per_group
	       << (ext2fs_has_feature_flex_bg(s) ? s->s_log_groups_per_flex : 0);
}

bool ext4_usage_holds(const struct ext4_volume *v, uint64_t longest)
{
	const struct ext2_super_block *s = v->fs->super;
	uint32_t leaf = (v->fs->blocksize - (uint32_t)sizeof(struct ext3_extent_header)) /
			(uint32_t)sizeof(struct ext3_extent);

	return (v->indexed ? v->freed_unindexed : v->freed) == 0 && v->zeros_before_data == 0 &&
	       v->most_file_blocks <= longest && v->most_folder_blocks <= leaf &&
	       s->s_inodes_count - s->s_free_inodes_count <= ext4_flex_inodes(v);
}

int ext4_used_ranges(struct ext4_volume *v, int (*each)(void *ctx, uint64_t start, uint64_t len),
		     void *ctx)
{
	ext2_filsys fs = v->fs;
	blk64_t end = ext2fs_blocks_count(fs->super) - 1, blk = fs->super->s_first_data_block;
	uint64_t bs = fs->blocksize;
	int rc = 0;

	/* the boot sector and superblock area before the first data block (1K blocks) */
	if (blk > 0)
		rc = each(ctx, 0, blk * bs);
	while (rc == 0 && blk <= end) {
		blk64_t first, last;
		if (ext2fs_find_first_set_block_bitmap2(fs->block_map, blk, end, &first))
			break;
		if (ext2fs_find_first_zero_block_bitmap2(fs->block_map, first, end, &last))
			last = end + 1;
		rc = each(ctx, first * bs, (last - first) * bs);
		blk = last;
	}
	return rc;
}

static int count_range(void *ctx, uint64_t start, uint64_t len)
{
	(void)start;
	*(uint64_t *)ctx += len;
	return 0;
}

void ext4_get_usage(struct ext4_volume *v, struct ext4_usage *ret)
{
	struct ext2_super_block *s = v->fs->super;
	uint64_t bytes = 0;

	ext4_used_ranges(v, count_range, &bytes);
	ret->blocks = ext2fs_blocks_count(s);
	ret->used_blocks = bytes / v->fs->blocksize;
	ret->inodes = s->s_inodes_count;
	ret->used_inodes = s->s_inodes_count - s->s_free_inodes_count;
}

int ext4_finish(struct ext4_volume *v)
{
	errcode_t err = ext4_names_write(v);

	if (err) {
		int rc = ext4_fail(v, err, "writing the folders");
		ext4_discard(v);
		return rc;
	}
	err = ext2fs_close_free(&v->fs);
	int rc = err ? ext4_fail(v, err, "writing the tables and superblocks") : 0;

	ext4_discard(v);
	return rc;
}

void ext4_discard(struct ext4_volume *v)
{
	if (!v)
		return;
	if (v->fs)
		ext2fs_free(v->fs);
	ext4_names_free(v->names);
	free(v->zero_block);
	free(v->data_buf);
	free(v);
}

/* The blocks of inode @ino's extent tree outside the inode, added to *@n: one per index
 * entry (each names a block of the tree below it; ext4 disk layout, "Extent Tree"). */
static errcode_t add_tree_blocks(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode *inode,
				 uint64_t *n)
{
	ext2_extent_handle_t h;
	struct ext2fs_extent e;
	errcode_t err = ext2fs_extent_open2(fs, ino, inode, &h);
	int op = EXT2_EXTENT_ROOT;

	while (err == 0 && (err = ext2fs_extent_get(h, op, &e)) == 0) {
		op = EXT2_EXTENT_NEXT;
		if (!(e.e_flags & (EXT2_EXTENT_FLAGS_LEAF | EXT2_EXTENT_FLAGS_SECOND_VISIT)))
			(*n)++;
	}
	if (err == EXT2_ET_EXTENT_NO_NEXT || err == EXT2_ET_EXTENT_NO_DOWN)
		err = 0;
	ext2fs_extent_free(h);
	return err;
}

int ext4_tree_blocks(struct ext4_volume *v, uint64_t *ret)
{
	ext2_inode_scan scan;
	ext2_ino_t ino = 0;
	struct ext2_inode inode;
	errcode_t err = ext2fs_open_inode_scan(v->fs, 0, &scan);

	*ret = 0;
	if (err)
		return ext4_fail(v, err, "counting the extent tree blocks");
	while ((err = ext2fs_get_next_inode(scan, &ino, &inode)) == 0 && ino) {
		const struct ext3_extent_header *h = (const struct ext3_extent_header *)
							     inode.i_block;
		if (inode.i_links_count && (inode.i_flags & EXT4_EXTENTS_FL) &&
		    ext2fs_le16_to_cpu(h->eh_magic) == EXT3_EXT_MAGIC && h->eh_depth &&
		    (err = add_tree_blocks(v->fs, ino, &inode, ret)))
			break;
	}
	ext2fs_close_inode_scan(scan);
	return err ? ext4_fail(v, err, "counting the extent tree blocks") : 0;
}
