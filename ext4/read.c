/* SPDX-License-Identifier: MIT */
/* read: an ext2/3/4 file system opened read-only through libext2fs, its folders listed and
 * its files read. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ext4/ext4_priv.h"

/* Where the bytes @v's file system claims end: the end of its region when not known yet. */
static uint64_t claimed_end(const struct ext4_volume *v)
{
	if (!v->fs)
		return v->offset + v->size;
	return v->offset + ext2fs_blocks_count(v->fs->super) * (uint64_t)v->fs->blocksize;
}

/* libext2fs's error code as a negative errno, with a message naming @what (a path, or what
 * was being done) in v->d. A read past the end of the image file (the io channel opened
 * read-only: EXT2_ET_SHORT_READ) or past the end of the region (EXT2_ET_LLSEEK_FAILED: the
 * file system claims more than its partition or image) is said in those words. */
static int read_fail(struct ext4_volume *v, errcode_t err, const char *what)
{
	struct stat st;
	uint64_t file = fstat(v->fd, &st) == 0 ? (uint64_t)st.st_size : 0;
	uint64_t region_end = v->offset + v->size;

	if (err == EXT2_ET_SHORT_READ || (err == EXT2_ET_LLSEEK_FAILED && region_end >= file))
		diag_error(v->d,
			   "%s: the image ends at byte %llu, the %s claims bytes up to %llu: "
			   "the image is cut short",
			   what, (unsigned long long)file,
			   err == EXT2_ET_SHORT_READ ? "partition" : "file system",
			   (unsigned long long)(err == EXT2_ET_SHORT_READ ? region_end
									  : claimed_end(v)));
	else if (err == EXT2_ET_LLSEEK_FAILED)
		diag_error(v->d,
			   "%s: the partition ends at byte %llu, its file system claims bytes "
			   "up to %llu",
			   what, (unsigned long long)region_end,
			   (unsigned long long)claimed_end(v));
	else
		diag_error(v->d, "%s: ext4: %s", what, error_message(err));
	return ext4_errno(err);
}

int ext4_open_read(int fd, uint64_t offset, uint64_t size, struct diag *d, struct ext4_volume **ret)
{
	struct ext4_volume *v = calloc(1, sizeof(*v));
	char name[64];

	if (!v)
		return -ENOMEM;
	initialize_ext2_error_table();
	v->d = d;
	v->fd = fd;
	v->offset = offset;
	v->size = size;
	ext4_io_name(fd, offset, size, name, sizeof(name));
	errcode_t err = ext2fs_open2(name, NULL, EXT2_FLAG_64BITS, 0, 0, ext4_io_manager(), &v->fs);
	if (err) {
		v->fs = NULL;
		int rc = read_fail(v, err, "opening the ext4 file system");
		ext4_discard(v);
		return rc;
	}
	*ret = v;
	return 0;
}

/* The inode at @path, with a message naming @path when there is none. */
static int resolve(struct ext4_volume *v, const char *path, ext2_ino_t *ret)
{
	errcode_t err = ext2fs_namei_follow(v->fs, EXT2_ROOT_INO, EXT2_ROOT_INO, path, ret);

	if (err == EXT2_ET_FILE_NOT_FOUND || err == EXT2_ET_NO_DIRECTORY)
		return diag_error(v->d, "%s: no such file or folder", path);
	return err ? read_fail(v, err, path) : 0;
}

static int64_t inode_mtime(const struct ext2_inode_large *inode, size_t isize)
{
	int64_t t = (int32_t)inode->i_mtime;
	if (isize > EXT2_GOOD_OLD_INODE_SIZE &&
	    inode->i_extra_isize >= offsetof(struct ext2_inode_large, i_mtime_extra) +
					    sizeof(inode->i_mtime_extra) - EXT2_GOOD_OLD_INODE_SIZE)
		t += (int64_t)(inode->i_mtime_extra & 3) << 32;
	return t;
}

struct list_ctx {
	struct ext4_volume *v;
	int (*each)(void *ctx, const struct ext4_dirent *e);
	void *ctx;
	int rc;
};

static int fill_dirent(struct ext4_volume *v, ext2_ino_t ino, struct ext4_dirent *e, char *target,
		       size_t n)
{
	struct ext2_inode_large inode;

	memset(&inode, 0, sizeof(inode));
	errcode_t err = ext2fs_read_inode_full(v->fs, ino, (struct ext2_inode *)&inode,
					       sizeof(inode));
	if (err)
		return read_fail(v, err, e->name);
	e->mode = inode.i_mode;
	e->uid = inode_uid(inode);
	e->gid = inode_gid(inode);
	e->size = EXT2_I_SIZE(&inode);
	e->mtime = inode_mtime(&inode, EXT2_INODE_SIZE(v->fs->super));
	if (LINUX_S_ISCHR(inode.i_mode) || LINUX_S_ISBLK(inode.i_mode)) {
		uint32_t w0 = inode.i_block[0], w1 = inode.i_block[1];
		e->major = w0 ? (w0 >> 8) & 0xff : (w1 >> 8) & 0xfff;
		e->minor = w0 ? w0 & 0xff : (w1 & 0xff) | ((w1 >> 12) & 0xfff00);
	}
	if (LINUX_S_ISLNK(inode.i_mode)) {
		unsigned got = 0;
		ext2_file_t f;
		size_t len = e->size < n - 1 ? (size_t)e->size : n - 1;
		if (ext2fs_is_fast_symlink((struct ext2_inode *)&inode)) {
			memcpy(target, inode.i_block, len);
			got = (unsigned)len;
		} else if (!(err = ext2fs_file_open(v->fs, ino, 0, &f))) {
			err = ext2fs_file_read(f, target, (unsigned)len, &got);
			ext2fs_file_close(f);
		}
		if (err)
			return read_fail(v, err, e->name);
		target[got] = '\0';
		e->target = target;
	}
	return 0;
}

static int on_dirent(struct ext2_dir_entry *dirent, int offset, int blocksize, char *buf,
		     void *priv)
{
	struct list_ctx *c = priv;
	char name[EXT2_NAME_LEN + 1], target[4096];
	int len = ext2fs_dirent_name_len(dirent);

	(void)offset, (void)blocksize, (void)buf;
	memcpy(name, dirent->name, (size_t)len);
	name[len] = '\0';
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return 0;
	struct ext4_dirent e = { .name = name };
	c->rc = fill_dirent(c->v, dirent->inode, &e, target, sizeof(target));
	if (c->rc == 0)
		c->rc = c->each(c->ctx, &e);
	return c->rc ? DIRENT_ABORT : 0;
}

int ext4_list(struct ext4_volume *v, const char *path,
	      int (*each)(void *ctx, const struct ext4_dirent *e), void *ctx, struct diag *d)
{
	struct list_ctx c = { v, each, ctx, 0 };
	ext2_ino_t ino;
	int rc;

	v->d = d;
	if ((rc = resolve(v, path, &ino)) < 0)
		return rc;
	errcode_t err = ext2fs_check_directory(v->fs, ino);
	if (err == EXT2_ET_NO_DIRECTORY)
		return diag_error(v->d, "%s: not a folder", path);
	if (err)
		return read_fail(v, err, path);
	err = ext2fs_dir_iterate(v->fs, ino, 0, NULL, on_dirent, &c);
	if (c.rc)
		return c.rc;
	return err ? read_fail(v, err, path) : 0;
}

int ext4_read_file(struct ext4_volume *v, const char *path,
		   int (*out)(void *ctx, const void *buf, size_t len), void *ctx, struct diag *d)
{
	ext2_ino_t ino;
	ext2_file_t f;
	struct ext2_inode inode;
	int rc;

	v->d = d;
	rc = resolve(v, path, &ino);
	if (rc < 0)
		return rc;
	errcode_t err = ext2fs_read_inode(v->fs, ino, &inode);
	if (err)
		return read_fail(v, err, path);
	if (!LINUX_S_ISREG(inode.i_mode))
		return diag_error(v->d, "%s: not a regular file", path);
	if ((err = ext2fs_file_open(v->fs, ino, 0, &f)))
		return read_fail(v, err, path);
	char *buf = malloc(65536);
	unsigned got = 0;
	rc = buf ? 0 : -ENOMEM;
	while (rc == 0 && !(err = ext2fs_file_read(f, buf, 65536, &got)) && got)
		rc = out(ctx, buf, got);
	if (rc == 0 && err)
		rc = read_fail(v, err, path);
	free(buf);
	ext2fs_file_close(f);
	return rc;
}
