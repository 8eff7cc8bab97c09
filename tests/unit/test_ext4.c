/* SPDX-License-Identifier: MIT */
/* Unit tests: ext4/ — feature names, and a volume built in memory and read back. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "ext4/ext4_priv.h"

static void test_features(void **state)
{
	uint32_t w[3] = { 0, 0x80, 0x400 }; /* 64bit; metadata_csum */
	char why[256];

	(void)state;
	assert_int_equal(ext4_features_apply("^64bit, ^metadata_csum,uninit_bg", w, why,
					     sizeof(why)),
			 0);
	assert_int_equal(w[1], 0);
	assert_int_equal(w[2], 0x10); /* gdt_csum */
	assert_int_equal(ext4_features_apply(NULL, w, why, sizeof(why)), 0);
	assert_int_equal(ext4_features_apply("", w, why, sizeof(why)), 0);
	assert_int_equal(ext4_features_apply("resize_inode", w, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "'resize_inode' is not one of"));
	assert_int_equal(ext4_features_check("uninit_bg", why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "exclude each other"));
	assert_int_equal(ext4_features_check("^metadata_csum,uninit_bg", why, sizeof(why)), 0);
}

struct text {
	const char *p;
	size_t left;
};

static long read_text(void *ctx, void *buf, size_t len)
{
	struct text *t = ctx;
	size_t n = len < t->left ? len : t->left;
	memcpy(buf, t->p, n);
	t->p += n;
	t->left -= n;
	return (long)n;
}

struct seen {
	char names[8][32];
	uint32_t modes[8];
	size_t n;
};

static int on_entry(void *ctx, const struct ext4_dirent *e)
{
	struct seen *s = ctx;
	if (s->n < 8) {
		strncpy(s->names[s->n], e->name, 31);
		s->modes[s->n++] = e->mode;
	}
	return 0;
}

static int append(void *ctx, const void *buf, size_t len)
{
	strncat(ctx, buf, len);
	return 0;
}

static void test_build_and_read(void **state)
{
	struct ext4_params p = { .block_size = 1024,
				 .inode_size = 256,
				 .journal = true,
				 .timestamp = 1700000000,
				 .uuid = { 1, 2, 3 } };
	struct ext4_meta m = { .uid = 0, .gid = 0, .perm = 0755, .mtime = 1700000000 };
	struct ext4_volume *v;
	struct text t = { "hello", 5 };
	struct seen seen = { 0 };
	char out[64] = "";
	struct diag d;
	uint32_t etc, ino;
	int fd = memfd_create("test", 0);

	(void)state;
	diag_init(&d);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 8 << 20), 0);
	assert_int_equal(ext4_create(fd, 4096, 4 << 20, &p, "mem", &d, &v), 0);
	assert_int_equal(ext4_add_dir(v, EXT4_ROOT, "etc", &m, "/etc", &etc), 0);
	assert_int_equal(ext4_add_file(v, etc, "motd", &m, 5, read_text, &t, "/etc/motd", &ino), 0);
	assert_int_equal(ext4_add_hard_link(v, EXT4_ROOT, "motd", ino, "/motd"), 0);
	assert_int_equal(ext4_add_symlink(v, EXT4_ROOT, "link", &m, "etc/motd", "/link", NULL), 0);
	assert_int_equal(ext4_add_special(v, EXT4_ROOT, "null", &m, EXT4_CHAR, 1, 3, "/null", NULL),
			 0);
	assert_int_equal(ext4_set_xattr(v, ino, "user.x", "y", 1, "/etc/motd"), 0);
	/* a name twice is an error, a folder over a folder is not */
	assert_int_equal(ext4_add_file(v, etc, "motd", &m, 0, NULL, NULL, "/etc/motd", NULL),
			 -EINVAL);
	assert_non_null(strstr(d.msgs[0].text, "'motd' is there already"));
	assert_int_equal(ext4_add_dir(v, EXT4_ROOT, "etc", &m, "/etc", NULL), 0);
	assert_int_equal(ext4_finish(v), 0);

	assert_int_equal(ext4_open_read(fd, 4096, 4 << 20, &d, &v), 0);
	assert_int_equal(ext4_read_file(v, "/motd", append, out, &d), 0);
	assert_string_equal(out, "hello");
	assert_int_equal(ext4_list(v, "/", on_entry, &seen, &d), 0);
	assert_int_equal(seen.n, 5); /* lost+found, etc, motd, link, null */
	assert_string_equal(seen.names[1], "etc");
	assert_int_equal(seen.modes[4], 020755); /* a character device, rwxr-xr-x */
	assert_int_equal(ext4_read_file(v, "/nope", append, out, &d), -EINVAL);
	ext4_discard(v);
	close(fd);
	diag_release(&d);
}

/* A read past the end of the image file: the writer's channel reads zeros there (a sparse
 * image still short), the reader's is an error that says the image is cut short. */
static void test_read_cut_short(void **state)
{
	struct ext4_params p = { .block_size = 1024, .inode_size = 256, .timestamp = 1700000000 };
	struct ext4_meta m = { .perm = 0644, .mtime = 1700000000 };
	struct ext4_volume *v;
	struct text t = { "hello", 5 };
	char out[64] = "";
	struct diag d;
	int fd = memfd_create("test", 0);

	(void)state;
	diag_init(&d);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 4096), 0); /* the writer reads past this end as zeros */
	assert_int_equal(ext4_create(fd, 4096, 4 << 20, &p, "mem", &d, &v), 0);
	assert_int_equal(ext4_add_file(v, EXT4_ROOT, "motd", &m, 5, read_text, &t, "/motd", NULL),
			 0);
	assert_int_equal(ext4_finish(v), 0);
	assert_int_equal(ext4_open_read(fd, 4096, 4 << 20, &d, &v), 0);
	/* the superblock stays, the inode table goes */
	assert_int_equal(ftruncate(fd, 4096 + 2048), 0);
	assert_int_equal(ext4_read_file(v, "/motd", append, out, &d), -EIO);
	assert_int_equal(d.n, 1);
	assert_string_equal(d.msgs[0].text, "/motd: the image ends at byte 6144, the partition "
					    "claims bytes up to 4198400: the image is cut short");
	assert_string_equal(out, "");
	ext4_discard(v);
	close(fd);
	diag_release(&d);
}

/* An ACL as setxattr(2) takes it: version 2, then the entries sorted by tag and id, each
 * 2 + 2 + 4 bytes little-endian; the owner's, group's, mask's and other's id undefined. */
static void test_acl_xattr(void **state)
{
	struct ext4_acl_entry e[] = {
		{ EXT4_ACL_OTHER, 4, 0 }, { EXT4_ACL_USER, 7, 1000 },   { EXT4_ACL_MASK, 7, 0 },
		{ EXT4_ACL_USER, 5, 33 }, { EXT4_ACL_GROUP_OBJ, 4, 0 }, { EXT4_ACL_USER_OBJ, 6, 0 },
	};
	static const uint8_t want[] = {
		2, 0,    0,    0,    0x01, 0,    6,    0,    0xff, 0xff, 0xff, 0xff, 0x02,
		0, 5,    0,    33,   0,    0,    0,    0x02, 0,    7,    0,    0xe8, 0x03,
		0, 0,    0x04, 0,    4,    0,    0xff, 0xff, 0xff, 0xff, 0x10, 0,    7,
		0, 0xff, 0xff, 0xff, 0xff, 0x20, 0,    4,    0,    0xff, 0xff, 0xff, 0xff,
	};
	void *value;
	size_t len;

	(void)state;
	assert_int_equal(ext4_acl_xattr(e, 6, &value, &len), 0);
	assert_int_equal(len, sizeof(want));
	assert_memory_equal(value, want, sizeof(want));
	free(value);
	/* a named user without a mask, a user twice, the owner's entry missing: refused */
	struct ext4_acl_entry no_mask[] = { { EXT4_ACL_USER_OBJ, 6, 0 },
					    { EXT4_ACL_USER, 7, 1 },
					    { EXT4_ACL_GROUP_OBJ, 4, 0 },
					    { EXT4_ACL_OTHER, 4, 0 } };
	assert_int_equal(ext4_acl_xattr(no_mask, 4, &value, &len), -EINVAL);
	struct ext4_acl_entry twice[] = { { EXT4_ACL_USER_OBJ, 6, 0 }, { EXT4_ACL_USER, 7, 1 },
					  { EXT4_ACL_USER, 5, 1 },     { EXT4_ACL_GROUP_OBJ, 4, 0 },
					  { EXT4_ACL_MASK, 7, 0 },     { EXT4_ACL_OTHER, 4, 0 } };
	assert_int_equal(ext4_acl_xattr(twice, 6, &value, &len), -EINVAL);
	assert_int_equal(ext4_acl_xattr(no_mask + 1, 3, &value, &len), -EINVAL);
}

static int count_entry(void *ctx, const struct ext4_dirent *e)
{
	(void)e;
	++*(size_t *)ctx;
	return 0;
}

/* 8,000 names in one folder of 1K blocks: each found in memory, a second one refused, the
 * folder a hashed tree with a level of index blocks, each name read back. */
static void test_big_folder(void **state)
{
	struct ext4_params p = { .block_size = 1024,
				 .inode_size = 256,
				 .inodes = 10000,
				 .timestamp = 1700000000,
				 .uuid = { 1, 2, 3 } };
	struct ext4_meta m = { .perm = 0644, .mtime = 1700000000 };
	struct ext4_volume *v;
	struct diag d;
	uint32_t dir, ino, found;
	size_t listed = 0;
	char name[64], path[80], out[64];
	int fd = memfd_create("test", 0);

	(void)state;
	diag_init(&d);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 32 << 20), 0);
	assert_int_equal(ext4_create(fd, 0, 32 << 20, &p, "mem", &d, &v), 0);
	assert_int_equal(ext4_add_dir(v, EXT4_ROOT, "many", &m, "/many", &dir), 0);
	for (int i = 0; i < 8000; i++) {
		struct text t = { name, 0 };
		snprintf(name, sizeof(name), "a-rather-long-name-%05d", i);
		t.left = strlen(name);
		assert_int_equal(ext4_add_file(v, dir, name, &m, t.left, read_text, &t, name, &ino),
				 0);
		assert_int_equal(ext4_lookup(v, dir, name, &found, NULL), 0);
		assert_int_equal(found, ino);
	}
	assert_int_equal(ext4_add_file(v, dir, "a-rather-long-name-04321", &m, 0, NULL, NULL, "x",
				       NULL),
			 -EINVAL);
	assert_int_equal(ext4_lookup(v, dir, "a-rather-long-name-08000", &found, NULL), -ENOENT);
	assert_int_equal(ext4_index_folders(v), 0);
	assert_int_equal(ext4_finish(v), 0);

	assert_int_equal(ext4_open_read(fd, 0, 32 << 20, &d, &v), 0);
	assert_int_equal(ext4_list(v, "/many", count_entry, &listed, &d), 0);
	assert_int_equal(listed, 8000);
	for (int i = 0; i < 8000; i += 997) {
		snprintf(path, sizeof(path), "/many/a-rather-long-name-%05d", i);
		out[0] = 0;
		assert_int_equal(ext4_read_file(v, path, append, out, &d), 0);
		assert_string_equal(out, path + 6);
	}
	ext4_discard(v);
	close(fd);
	diag_release(&d);
}

static uint16_t links_of(struct ext4_volume *v, uint32_t ino)
{
	struct ext2_inode inode;
	assert_int_equal(ext2fs_read_inode(v->fs, ino, &inode), 0);
	return inode.i_links_count;
}

/* A folder of more than 65,000 links (subfolders' ".."): its count is 1 from there on, as
 * the kernel's dir_nlink keeps it, not a 16-bit count that wraps to 0. */
static void test_many_subfolders(void **state)
{
	struct ext4_params p = { .block_size = 1024, .inode_size = 256, .timestamp = 1700000000 };
	struct ext4_meta m = { .perm = 0755, .mtime = 1700000000 };
	struct ext4_volume *v;
	struct ext2_inode inode;
	struct diag d;
	uint32_t top;
	int fd = memfd_create("test", 0);

	(void)state;
	diag_init(&d);
	assert_int_equal(ftruncate(fd, 4 << 20), 0);
	assert_int_equal(ext4_create(fd, 0, 4 << 20, &p, "mem", &d, &v), 0);
	assert_int_equal(ext4_add_dir(v, EXT4_ROOT, "top", &m, "/top", &top), 0);
	assert_int_equal(ext4_add_dir(v, top, "a", &m, "/top/a", NULL), 0);
	assert_int_equal(links_of(v, top), 3);
	/* as if 64,997 subfolders were there */
	assert_int_equal(ext2fs_read_inode(v->fs, top, &inode), 0);
	inode.i_links_count = 64999;
	assert_int_equal(ext2fs_write_inode(v->fs, top, &inode), 0);
	assert_int_equal(ext4_add_dir(v, top, "b", &m, "/top/b", NULL), 0);
	assert_int_equal(links_of(v, top), 65000);
	assert_int_equal(ext4_add_dir(v, top, "c", &m, "/top/c", NULL), 0);
	assert_int_equal(links_of(v, top), 1);
	assert_int_equal(ext4_add_dir(v, top, "d", &m, "/top/d", NULL), 0);
	assert_int_equal(links_of(v, top), 1);
	ext4_discard(v);

	/* without dir_nlink, one too many is an error naming the entry */
	p.features = "^dir_nlink";
	assert_int_equal(ext4_create(fd, 0, 4 << 20, &p, "mem", &d, &v), 0);
	assert_int_equal(ext4_add_dir(v, EXT4_ROOT, "top", &m, "/top", &top), 0);
	assert_int_equal(ext2fs_read_inode(v->fs, top, &inode), 0);
	inode.i_links_count = 65000;
	assert_int_equal(ext2fs_write_inode(v->fs, top, &inode), 0);
	assert_int_equal(ext4_add_dir(v, top, "e", &m, "/top/e", NULL), -EINVAL);
	assert_non_null(
		strstr(d.msgs[d.n - 1].text, "/top/e: more than 64998 folders in one folder"));
	ext4_discard(v);
	close(fd);
	diag_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_features),       cmocka_unit_test(test_build_and_read),
		cmocka_unit_test(test_read_cut_short), cmocka_unit_test(test_acl_xattr),
		cmocka_unit_test(test_big_folder),     cmocka_unit_test(test_many_subfolders),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
