/* SPDX-License-Identifier: MIT */
/* add: the entries of the file system, one name at a time, in the order they are given. */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ext4/ext4_priv.h"

/* The most names one inode has (the kernel's LINK_MAX_EXT4). */
#define LINK_MAX_EXT4 65000

/* The directory entry's file type of an inode of @mode. */
static int file_type(uint16_t mode)
{
	static const int file_types[] = {
		[LINUX_S_IFREG >> 12] = EXT2_FT_REG_FILE, [LINUX_S_IFLNK >> 12] = EXT2_FT_SYMLINK,
		[LINUX_S_IFCHR >> 12] = EXT2_FT_CHRDEV,   [LINUX_S_IFBLK >> 12] = EXT2_FT_BLKDEV,
		[LINUX_S_IFIFO >> 12] = EXT2_FT_FIFO,     [LINUX_S_IFSOCK >> 12] = EXT2_FT_SOCK,
	};
	return file_types[(mode & LINUX_S_IFMT) >> 12];
}

/* What went wrong in @doing @what; a volume that is full says whether inodes or blocks ran
 * out, and how many it has. */
static int fail_at(struct ext4_volume *v, errcode_t err, const char *what, const char *doing)
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
	int code = ext4_errno(err);
	assert(code <
	       0); /* err is not 0; for a static analyser, which does not see into volume.c */
	return code;
}

int ext4_lookup(struct ext4_volume *v, uint32_t dir, const char *name, uint32_t *ret_ino,
		bool *ret_is_dir)
{
	uint32_t ino;

	if (ext4_names_find(v, dir, name, &ino) < 0)
		return -ENOENT;
	*ret_ino = ino;
	if (ret_is_dir)
		*ret_is_dir = ext2fs_check_directory(v->fs, ino) == 0;
	return 0;
}

/* A name that fits a directory entry and is not there yet. */
static int check_new_name(struct ext4_volume *v, uint32_t dir, const char *name, const char *what)
{
	uint32_t ino;

	if (!*name || strlen(name) > EXT2_NAME_LEN || strchr(name, '/'))
		return diag_error(v->d, "%s: '%s' cannot be an ext4 name (1 to 255 bytes, no '/')",
				  what, name);
	if (ext4_lookup(v, dir, name, &ino, NULL) == 0)
		return diag_error(v->d, "%s: '%s' is there already", what, name);
	return 0;
}

static errcode_t read_large(struct ext4_volume *v, uint32_t ino, struct ext2_inode_large *inode)
{
	memset(inode, 0, sizeof(*inode));
	return ext2fs_read_inode_full(v->fs, ino, (struct ext2_inode *)inode, sizeof(*inode));
}

static errcode_t write_large(struct ext4_volume *v, uint32_t ino, struct ext2_inode_large *inode)
{
	return ext2fs_write_inode_full(v->fs, ino, (struct ext2_inode *)inode, sizeof(*inode));
}

/* Owner, mode and times of the inode @ino. */
static errcode_t set_meta(struct ext4_volume *v, uint32_t ino, uint16_t type,
			  const struct ext4_meta *m, const char *what)
{
	struct ext2_inode_large inode;
	errcode_t err = read_large(v, ino, &inode);

	ext4_meta_check_time(v, m, what);

	if (err == 0) {
		ext4_meta_apply(v, &inode, type, m);
		err = write_large(v, ino, &inode);
	}
	return err;
}

/* A folder's new subfolder @ino made and named in @dir. Each subfolder's ".." is a link of
 * @dir; past LINK_MAX_EXT4 links the count is 1, "more than can be counted", as the kernel
 * keeps it with the dir_nlink feature (fs/ext4/namei.c, ext4_inc_count) and e2fsck expects. */
static errcode_t make_subfolder(struct ext4_volume *v, uint32_t dir, const char *name, uint32_t ino,
				const char *what, int *rc)
{
	struct ext2_inode_large parent;
	errcode_t err = read_large(v, dir, &parent);
	bool uncounted = parent.i_links_count == 1 || parent.i_links_count >= LINK_MAX_EXT4;

	if (err == 0 && uncounted && !ext2fs_has_feature_dir_nlink(v->fs->super)) {
		*rc = diag_error(v->d,
				 "%s: more than %d folders in one folder need the dir_nlink "
				 "feature",
				 what, LINK_MAX_EXT4 - 2);
		return 0;
	}
	if (err == 0 && !(err = ext2fs_mkdir(v->fs, dir, ino, NULL)))
		err = ext4_names_link(v, dir, name, ino, EXT2_FT_DIR);
	if (err == 0 && uncounted && !(err = read_large(v, dir, &parent))) {
		parent.i_links_count = 1;
		err = write_large(v, dir, &parent);
	}
	return err;
}

int ext4_add_dir(struct ext4_volume *v, uint32_t dir, const char *name, const struct ext4_meta *m,
		 const char *what, uint32_t *ret_ino)
{
	uint32_t ino = dir;
	bool is_dir = true;
	errcode_t err = 0;

	if (name && ext4_lookup(v, dir, name, &ino, &is_dir) == 0 && !is_dir)
		return diag_error(v->d, "%s: '%s' is there already, and is not a folder", what,
				  name);
	if (name && ino == dir) { /* a new folder: made unnamed, then named (grows @dir) */
		int rc = check_new_name(v, dir, name, what);
		if (rc < 0)
			return rc;
		ext2_ino_t new_ino;
		if (!(err = ext2fs_new_inode(v->fs, dir, LINUX_S_IFDIR | 0755, NULL, &new_ino)))
			err = make_subfolder(v, dir, name, new_ino, what, &rc);
		if (rc < 0)
			return rc;
		ino = new_ino;
	}
	if (err == 0)
		err = set_meta(v, ino, LINUX_S_IFDIR, m, what);
	if (err)
		return fail_at(v, err, what, "making the folder");
	if (ret_ino)
		*ret_ino = ino;
	return 0;
}

/* A new inode of @type for @name in @dir: taken, written with @m and @fill's fields, named. */
static int new_inode(struct ext4_volume *v, uint32_t dir, const char *name, uint16_t type,
		     const struct ext4_meta *m, struct ext2_inode_large *inode, const char *what,
		     uint32_t *ret_ino)
{
	ext2_ino_t ino;
	int rc = check_new_name(v, dir, name, what);

	if (rc < 0)
		return rc;
	errcode_t err = ext2fs_new_inode(v->fs, dir, type | 0644, NULL, &ino);
	if (err == 0) {
		ext4_meta_check_time(v, m, what);
		ext4_meta_apply(v, inode, type, m);
		inode->i_links_count = 1;
		err = write_large(v, ino, inode);
	}
	if (err == 0) {
		ext2fs_inode_alloc_stats2(v->fs, ino, +1, 0);
		err = ext4_names_link(v, dir, name, ino, file_type(type));
	}
	if (err)
		return fail_at(v, err, what, "adding");
	*ret_ino = ino;
	return 0;
}

static bool all_zeros(const struct ext4_volume *v, const void *p, size_t n)
{
	return memcmp(p, v->zero_block, n) == 0;
}

/* A trial's run of blocks that hold bytes, taken when it ends: the blocks the build writes,
 * without their bytes. */
struct taken {
	uint32_t ino;
	struct ext2_inode_large inode;
	blk64_t start, len;
	unsigned runs;    /* the runs taken so far */
	bool last;        /* the run now taken is the file's last */
	bool inode_dirty; /* the inode changed (its extents): to be written */
};

/* The most extents an inode holds in itself, without a block of the extent tree. */
#define INODE_EXTENTS 4

/*
 * The file's one and only run taken as ext2fs_fallocate() takes it in an inode without
 * extents (e2fsprogs' lib/ext2fs/fallocate.c: the goal of the inode's group, then the free
 * ranges from there, at most EXT_UNINIT_MAX_LEN blocks each), the same blocks, but without
 * building the extents: where they are INODE_EXTENTS or fewer, the inode holds them and
 * they take no block, which is all a trial counts. More of them (a volume that is full
 * around the goal) are given back, for ext2fs_fallocate() to take with its extent tree.
 * Returns whether it took them (a failure to, ext2fs_fallocate() meets and says as well).
 */
static bool take_only_run(struct ext4_volume *v, struct taken *t)
{
	ext2_filsys fs = v->fs;
	blk64_t max = ext2fs_blocks_count(fs->super), goal, left = t->len;
	blk64_t at[INODE_EXTENTS], len[INODE_EXTENTS];
	unsigned n = 0;
	errcode_t err = 0;

	if (EXT2FS_CLUSTER_RATIO(fs) != 1)
		return false;
	goal = ext2fs_find_inode_goal(fs, t->ino, (struct ext2_inode *)&t->inode, t->start);
	ext2fs_find_first_zero_block_bitmap2(fs->block_map, goal, max - 1, &goal);
	goal += t->start;
	while (err == 0 && left && n < INODE_EXTENTS) {
		blk64_t want = left < EXT_UNINIT_MAX_LEN ? left : EXT_UNINIT_MAX_LEN;
		if ((err = ext2fs_new_range(fs, 0, goal, want, NULL, &at[n], &len[n])))
			break;
		ext2fs_block_alloc_stats_range(fs, at[n], len[n], +1);
		left -= len[n];
		goal = at[n] + len[n];
		if (goal >= max)
			goal = fs->super->s_first_data_block;
		n++;
	}
	if (err == 0 && !left)
		return true;
	while (n--) /* given back as they were taken: the bitmap and counts as before */
		ext2fs_block_alloc_stats_range(fs, at[n], len[n], -1);
	return false;
}

static errcode_t take_run(struct ext4_volume *v, struct taken *t)
{
	errcode_t err = 0;

	if (t->len && !(!t->runs && t->last && take_only_run(v, t))) {
		err = ext2fs_fallocate(v->fs, EXT2_FALLOCATE_FORCE_UNINIT, t->ino,
				       (struct ext2_inode *)&t->inode, ~0ULL, t->start, t->len);
		t->runs++;
		t->inode_dirty = true;
	}
	t->len = 0;
	return err;
}

/* One block of @n bytes at @pos: written to @f or, in a trial, taken in @t; one of zeros
 * is a hole either way. */
static errcode_t put_block(struct ext4_volume *v, ext2_file_t f, struct taken *t, uint64_t pos,
			   const char *buf, size_t n)
{
	bool zeros = all_zeros(v, buf, n);
	unsigned int written;

	if (t && zeros)
		return take_run(v, t);
	if (t) {
		if (!t->len)
			t->start = pos / v->fs->blocksize;
		t->len++;
		return 0;
	}
	if (zeros) {
		v->file_zeros = true;
		return ext2fs_file_llseek(f, pos + n, EXT2_SEEK_SET, NULL);
	}
	v->zeros_before_data += v->file_zeros;
	v->file_zeros = false;
	return ext2fs_file_write(f, buf, (unsigned int)n, &written);
}

/* The file's bytes, a block at a time, into @f (or @t in a trial); zero blocks are skipped
 * (holes). */
static int write_data(struct ext4_volume *v, ext2_file_t f, struct taken *t, uint64_t size,
		      ext4_read_fn read, void *ctx, const char *what)
{
	size_t bs = v->fs->blocksize, cap = DATA_BLOCKS * bs;
	uint64_t pos = 0;
	int rc = 0;

	if (!v->data_buf && !(v->data_buf = malloc(cap)))
		return -ENOMEM;
	v->file_zeros = false;
	if ((size + bs - 1) / bs > v->most_file_blocks)
		v->most_file_blocks = (size + bs - 1) / bs;
	char *buf = v->data_buf;
	while (rc == 0 && pos < size) {
		size_t want = size - pos < cap ? (size_t)(size - pos) : cap, got = 0;
		while (rc == 0 && got < want) {
			long n = read(ctx, buf + got, want - got);
			if (n < 0)
				rc = (int)n;
			else if (n == 0)
				rc = diag_error(v->d, "%s: shrank while the image was built", what);
			else
				got += (size_t)n;
		}
		for (size_t off = 0; rc == 0 && off < got; off += bs) {
			size_t n = got - off < bs ? got - off : bs;
			errcode_t err = put_block(v, f, t, pos + off, buf + off, n);
			if (err)
				rc = fail_at(v, err, what, "writing");
		}
		pos += got;
	}
	if (t)
		t->last = true;
	errcode_t err = rc == 0 && t ? take_run(v, t) : 0;
	if (err)
		rc = fail_at(v, err, what, "adding");
	return rc;
}

/* A trial's file: its bytes read, the blocks the build would write them to taken. */
static int take_data(struct ext4_volume *v, uint32_t ino, ext4_read_fn read, void *ctx,
		     const char *what)
{
	struct taken t = { .ino = ino };
	errcode_t err = read_large(v, ino, &t.inode);
	int rc = err ? fail_at(v, err, what, "adding") : 0;

	if (rc == 0)
		rc = write_data(v, NULL, &t, EXT2_I_SIZE(&t.inode), read, ctx, what);
	if (rc == 0 && t.inode_dirty && (err = write_large(v, ino, &t.inode)))
		rc = fail_at(v, err, what, "adding");
	return rc;
}

int ext4_take_blocks(struct ext4_volume *v, uint32_t ino, const char *what)
{
	struct taken t = { .ino = ino, .last = true };
	errcode_t err = read_large(v, ino, &t.inode);

	t.len = (EXT2_I_SIZE(&t.inode) + v->fs->blocksize - 1) / v->fs->blocksize;
	if (err == 0 && v->measure)
		err = take_run(v, &t);
	if (err == 0 && v->measure && t.inode_dirty)
		err = write_large(v, ino, &t.inode);
	return err ? fail_at(v, err, what, "adding") : 0;
}

int ext4_add_file(struct ext4_volume *v, uint32_t dir, const char *name, const struct ext4_meta *m,
		  uint64_t size, ext4_read_fn read, void *ctx, const char *what, uint32_t *ret_ino)
{
	struct ext2_inode_large inode;
	ext2_extent_handle_t h;
	uint32_t ino;

	memset(&inode, 0, sizeof(inode));
	inode.i_flags = EXT4_EXTENTS_FL;
	errcode_t err = ext2fs_extent_open2(v->fs, 0, (struct ext2_inode *)&inode, &h);
	if (err)
		return fail_at(v, err, what, "adding");
	ext2fs_extent_free(h);
	/* a regular file's size: libext2fs takes 2 GiB and more only for one */
	inode.i_mode = LINUX_S_IFREG;
	if ((err = ext2fs_inode_size_set(v->fs, (struct ext2_inode *)&inode, (ext2_off64_t)size)))
		return fail_at(v, err, what, "adding");
	int rc = new_inode(v, dir, name, LINUX_S_IFREG, m, &inode, what, &ino);
	if (rc == 0 && size && read)
		rc = ext4_write_data(v, ino, read, ctx, what);
	if (rc == 0 && ret_ino)
		*ret_ino = ino;
	return rc;
}

int ext4_write_data(struct ext4_volume *v, uint32_t ino, ext4_read_fn read, void *ctx,
		    const char *what)
{
	ext2_file_t f;
	__u64 size;

	if (v->measure)
		return take_data(v, ino, read, ctx, what);
	errcode_t err = ext2fs_file_open(v->fs, ino, EXT2_FILE_WRITE, &f);

	if (err)
		return fail_at(v, err, what, "writing");
	if ((err = ext2fs_file_get_lsize(f, &size))) { /* all 64 bits of it */
		ext2fs_file_close(f);
		return fail_at(v, err, what, "writing");
	}
	int rc = write_data(v, f, NULL, size, read, ctx, what);
	err = ext2fs_file_close(f);
	if (rc == 0 && err)
		rc = fail_at(v, err, what, "writing");
	return rc;
}

int ext4_add_symlink(struct ext4_volume *v, uint32_t dir, const char *name,
		     const struct ext4_meta *m, const char *target, const char *what,
		     uint32_t *ret_ino)
{
	ext2_ino_t ino;
	int rc = check_new_name(v, dir, name, what);

	if (rc < 0)
		return rc;
	if (!*target || strlen(target) >= v->fs->blocksize)
		return diag_error(v->d, "%s: the link's target is empty or longer than a block",
				  what);
	errcode_t err = ext2fs_new_inode(v->fs, dir, LINUX_S_IFLNK | 0777, NULL, &ino);
	if (err == 0) /* made unnamed, then named as every entry is (names.c) */
		err = ext2fs_symlink(v->fs, dir, ino, NULL, target);
	if (err == 0)
		err = ext4_names_link(v, dir, name, ino, EXT2_FT_SYMLINK);
	if (err == 0)
		err = set_meta(v, ino, LINUX_S_IFLNK, m, what);
	if (err)
		return fail_at(v, err, what, "adding the link");
	if (ret_ino)
		*ret_ino = ino;
	return 0;
}

int ext4_add_special(struct ext4_volume *v, uint32_t dir, const char *name,
		     const struct ext4_meta *m, enum ext4_special kind, uint32_t major,
		     uint32_t minor, const char *what, uint32_t *ret_ino)
{
	static const uint16_t types[] = { [EXT4_CHAR] = LINUX_S_IFCHR,
					  [EXT4_BLOCK] = LINUX_S_IFBLK,
					  [EXT4_FIFO] = LINUX_S_IFIFO,
					  [EXT4_SOCKET] = LINUX_S_IFSOCK };
	struct ext2_inode_large inode;
	uint32_t ino;

	/* Linux's dev_t holds 12 bits of major and 20 of minor (include/linux/kdev_t.h): a
	 * larger number would be stored as another device */
	if ((kind == EXT4_CHAR || kind == EXT4_BLOCK) && (major >= 1u << 12 || minor >= 1u << 20))
		return diag_error(v->d,
				  "%s: device %u,%u: Linux holds majors below 4096 and minors "
				  "below 1048576",
				  what, major, minor);
	memset(&inode, 0, sizeof(inode));
	/* the device number as Linux stores it: the old 8:8 form when it fits, else the new
	 * form in the second word (fs/ext4/inode.c, old_encode_dev and new_encode_dev) */
	if (kind == EXT4_CHAR || kind == EXT4_BLOCK) {
		if (major < 256 && minor < 256)
			inode.i_block[0] = major << 8 | minor;
		else
			inode.i_block[1] = (minor & 0xff) | (major << 8) | ((minor & ~0xffu) << 12);
	}
	int rc = new_inode(v, dir, name, types[kind], m, &inode, what, &ino);
	if (rc == 0 && ret_ino)
		*ret_ino = ino;
	return rc;
}

int ext4_add_hard_link(struct ext4_volume *v, uint32_t dir, const char *name, uint32_t ino,
		       const char *what)
{
	struct ext2_inode_large inode;
	int rc = check_new_name(v, dir, name, what);

	if (rc < 0)
		return rc;
	errcode_t err = read_large(v, ino, &inode);
	if (err == 0 && LINUX_S_ISDIR(inode.i_mode))
		return diag_error(v->d, "%s: a hard link to a folder", what);
	if (err == 0 && inode.i_links_count >= LINK_MAX_EXT4)
		return diag_error(v->d, "%s: more than %d links to one file", what, LINK_MAX_EXT4);
	if (err == 0)
		err = ext4_names_link(v, dir, name, ino, file_type(inode.i_mode));
	if (err == 0) {
		inode.i_links_count++;
		err = write_large(v, ino, &inode);
	}
	return err ? fail_at(v, err, what, "adding the hard link") : 0;
}

/*
 * Whether Linux reads and lists the attribute @name on ext4: a name in one of the namespaces
 * its ext4 driver has a handler for (fs/ext4/xattr.c, ext4_xattr_handlers), with something
 * after the prefix, at most XATTR_NAME_MAX (255) bytes; of "system.", only the two ACLs
 * (system.data is the driver's own, for inline data).
 */
static bool xattr_name_usable(const char *name)
{
	static const char *const prefixes[] = { "user.", "trusted.", "security." };
	size_t len = strlen(name);

	if (len > 255)
		return false;
	if (!strcmp(name, "system.posix_acl_access") || !strcmp(name, "system.posix_acl_default"))
		return true;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return len > strlen(prefixes[i]);
	return false;
}

/*
 * Why the kernel would not take the attribute @name on an inode of @mode, or NULL: user.* only
 * beside files and folders (xattr(7); fs/xattr.c, xattr_permission), security.capability only
 * beside files (capabilities(7)), no ACL on a symbolic link and a default ACL only beside a
 * folder (acl(5); fs/posix_acl.c, set_posix_acl).
 */
static const char *xattr_type_wrong(const char *name, uint16_t mode)
{
	bool file = LINUX_S_ISREG(mode), dir = LINUX_S_ISDIR(mode);

	if (!strncmp(name, "user.", 5) && !file && !dir)
		return "user.* attributes are only for files and folders (xattr(7))";
	if (!strcmp(name, "security.capability") && !file)
		return "capabilities are only for files (capabilities(7))";
	if (!strcmp(name, "system.posix_acl_default") && !dir)
		return "only folders have default ACLs (acl(5))";
	if (!strncmp(name, "system.posix_acl_", 17) && LINUX_S_ISLNK(mode))
		return "symbolic links have no ACLs (acl(5))";
	return NULL;
}

/* Whether the attribute @name of value @value, @len bytes, may be set on the inode @ino; a
 * message naming @what when not. */
static int xattr_check(struct ext4_volume *v, uint32_t ino, const char *name, const void *value,
		       size_t len, const char *what)
{
	struct ext2_inode_large inode;
	char why[160];
	const char *wrong;

	if (!xattr_name_usable(name))
		return diag_error(v->d,
				  "%s: extended attribute '%s': not a name Linux can use on "
				  "ext4 (user.*, trusted.*, security.*, system.posix_acl_access, "
				  "system.posix_acl_default; at most 255 bytes)",
				  what, name);
	errcode_t err = read_large(v, ino, &inode);
	if (err)
		return fail_at(v, err, what, "setting the attributes of");
	if ((wrong = xattr_type_wrong(name, inode.i_mode)))
		return diag_error(v->d, "%s: attribute %s: %s", what, name, wrong);
	if (!strncmp(name, "system.posix_acl_", 17) &&
	    (wrong = ext4_acl_check(value, len, why, sizeof(why))))
		return diag_error(v->d, "%s: attribute %s: not a POSIX ACL the kernel reads (%s)",
				  what, name, wrong);
	return 0;
}

int ext4_set_xattr(struct ext4_volume *v, uint32_t ino, const char *name, const void *value,
		   size_t len, const char *what)
{
	struct ext2_xattr_handle *h;
	int rc = xattr_check(v, ino, name, value, len, what);

	if (rc < 0)
		return rc;
	errcode_t err = ext2fs_xattrs_open(v->fs, ino, &h);

	if (err)
		return fail_at(v, err, what, "setting the attributes of");
	if (!(err = ext2fs_xattrs_read(h)))
		err = ext2fs_xattr_set(h, name, value, len);
	errcode_t err2 = ext2fs_xattrs_close(&h);
	err = err ? err : err2;
	if (err == EXT2_ET_EA_NO_SPACE)
		return diag_error(v->d,
				  "%s: extended attribute '%s' (%zu bytes): the inode's "
				  "attributes do not fit in it and one block",
				  what, name, len);
	return err ? fail_at(v, err, what, "setting the attributes of") : 0;
}
