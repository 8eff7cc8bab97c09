/* SPDX-License-Identifier: MIT */
/* Unit tests: ext4/ — the entries a volume holds (large and sparse files, symbolic and hard
 * links, device nodes, fifos, sockets, extended attributes, times), each read back through
 * the module's reader, through libext2fs itself, and where e2fsprogs' programs are there
 * through debugfs and e2fsck on the image (the reader is no judge of its own writer). Every
 * image is a sparse file in the test's folder: its holes take no room. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "ext4/ext4_priv.h"
#include "tool_test_util.h"

#define IMAGE "e.img"

/* ---- the volume ---- */

struct vol {
	struct ext4_volume *v;
	struct diag d;
	int fd;
	uint64_t size;
};

static void vol_create(struct vol *t, uint64_t size, uint32_t block_size, uint32_t inode_size)
{
	struct ext4_params p = { .block_size = block_size,
				 .inode_size = inode_size,
				 .timestamp = 1700000000,
				 .uuid = { 7, 7, 7 } };

	diag_init(&t->d);
	t->size = size;
	t->fd = open(IMAGE, O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(t->fd >= 0);
	assert_int_equal(ftruncate(t->fd, (off_t)size), 0);
	assert_int_equal(ext4_create(t->fd, 0, size, &p, IMAGE, &t->d, &t->v), 0);
}

/* The volume written, and opened again with the module's reader. */
static void vol_finish_and_reopen(struct vol *t)
{
	assert_int_equal(ext4_finish(t->v), 0);
	assert_int_equal(ext4_open_read(t->fd, 0, t->size, &t->d, &t->v), 0);
}

static void vol_close(struct vol *t)
{
	ext4_discard(t->v);
	close(t->fd);
	diag_release(&t->d);
}

/* Whether a warning of @d holds @needle. */
static bool warned(const struct diag *d, const char *needle)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->msgs[i].level == DIAG_WARNING && strstr(d->msgs[i].text, needle))
			return true;
	return false;
}

static const struct ext4_meta file_meta = {
	.uid = 1000, .gid = 100, .perm = 0644, .mtime = 1700000000
};

/* ---- the outside judges: e2fsprogs' programs on the image ---- */

/* e2fsck finds nothing to fix in the image. */
static void expect_fsck_clean(void)
{
	if (!have_tool("e2fsck"))
		return;
	int rc = system(TOOL_PATH "e2fsck -fn " IMAGE " >fsck.log 2>&1");
	if (rc != 0)
		assert_int_equal(system("cat fsck.log >&2"), 0);
	assert_int_equal(rc, 0);
}

/* What `debugfs -R @request` prints about the image (in UTC), in @out; false when debugfs
 * is not there. */
static bool debugfs(const char *request, char *out, size_t n)
{
	char cmd[512];

	if (!have_tool("debugfs"))
		return false;
	snprintf(cmd, sizeof(cmd), TOOL_PATH "TZ=UTC debugfs -R '%s' " IMAGE " 2>/dev/null",
		 request);
	assert_int_equal(tool_output(cmd, out, n), 0);
	return true;
}

/* debugfs's answer to @request holds @want. */
static void expect_debugfs(const char *request, const char *want)
{
	char out[16384];

	if (!debugfs(request, out, sizeof(out)))
		return;
	if (!strstr(out, want))
		fprintf(stderr, "  debugfs -R '%s': no \"%s\" in:\n%s\n", request, want, out);
	assert_non_null(strstr(out, want));
}

/* ---- the module's reader ---- */

struct found {
	const char *name;
	struct ext4_dirent e;
	char target[4096];
	bool seen;
};

static int find_entry(void *ctx, const struct ext4_dirent *e)
{
	struct found *f = ctx;
	if (strcmp(e->name, f->name))
		return 0;
	f->e = *e;
	f->e.name = NULL;
	if (e->target)
		snprintf(f->target, sizeof(f->target), "%s", e->target);
	f->seen = true;
	return 0;
}

/* The entry @name of the root folder, as the module lists it. */
static struct found listed(struct vol *t, const char *name)
{
	struct found f = { .name = name };
	assert_int_equal(ext4_list(t->v, "/", find_entry, &f, &t->d), 0);
	assert_true(f.seen);
	return f;
}

static struct ext2_inode_large inode_of(struct vol *t, const char *name)
{
	struct ext2_inode_large inode;
	ext2_ino_t ino;

	assert_int_equal(ext2fs_namei(t->v->fs, EXT2_ROOT_INO, EXT2_ROOT_INO, name, &ino), 0);
	memset(&inode, 0, sizeof(inode));
	assert_int_equal(ext2fs_read_inode_full(t->v->fs, ino, (struct ext2_inode *)&inode,
						sizeof(inode)),
			 0);
	return inode;
}

/* ---- large and sparse files ---- */

/* A file's bytes: zeros but for @n marks, each one byte at an offset (in order). */
struct marks {
	const uint64_t *at;
	size_t n;
	uint64_t pos;
	void *clean; /* a buffer known to hold zeros, not to clear it again */
	size_t clean_len;
};

static char mark_byte(size_t i)
{
	return (char)('A' + i % 26);
}

static long read_marks(void *ctx, void *buf, size_t len)
{
	struct marks *m = ctx;
	bool dirty = false;

	if (buf != m->clean || len > m->clean_len)
		memset(buf, 0, len);
	for (size_t i = 0; i < m->n; i++)
		if (m->at[i] >= m->pos && m->at[i] < m->pos + len) {
			((char *)buf)[m->at[i] - m->pos] = mark_byte(i);
			dirty = true;
		}
	m->clean = dirty ? NULL : buf;
	m->clean_len = dirty ? 0 : len;
	m->pos += len;
	return (long)len;
}

/* The byte at @off of the file @name, read through libext2fs. */
static char byte_at(struct vol *t, const char *name, uint64_t off)
{
	ext2_ino_t ino;
	ext2_file_t f;
	unsigned int got;
	char c = '?';

	assert_int_equal(ext2fs_namei(t->v->fs, EXT2_ROOT_INO, EXT2_ROOT_INO, name, &ino), 0);
	assert_int_equal(ext2fs_file_open(t->v->fs, ino, 0, &f), 0);
	assert_int_equal(ext2fs_file_llseek(f, off, EXT2_SEEK_SET, NULL), 0);
	assert_int_equal(ext2fs_file_read(f, &c, 1, &got), 0);
	assert_int_equal(got, 1);
	ext2fs_file_close(f);
	return c;
}

/* A file of 4 GiB and more (its size past 32 bits, a byte on each side of 4 GiB) that is
 * almost all holes: its size, its bytes and its few blocks as written, the image small. */
static void test_large_file(void **state)
{
	static const uint64_t at[] = { 0, 3ull << 30, (4ull << 30) - 1, 4ull << 30,
				       (4ull << 30) + 9000 };
	const uint64_t size = (4ull << 30) + 9001;
	struct marks m = { at, 5, 0, NULL, 0 };
	struct vol t;
	struct stat st;
	char want[64];

	(void)state;
	vol_create(&t, 16 << 20, 4096, 256);
	assert_int_equal(ext4_add_file(t.v, EXT4_ROOT, "big", &file_meta, size, read_marks, &m,
				       "/big", NULL),
			 0);
	assert_int_equal(m.pos, size);
	vol_finish_and_reopen(&t);

	assert_int_equal(listed(&t, "big").e.size, size);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(byte_at(&t, "big", at[i]), mark_byte(i));
	assert_int_equal(byte_at(&t, "big", (4ull << 30) + 1), 0);
	assert_int_equal(byte_at(&t, "big", 1ull << 30), 0);
	/* five blocks hold bytes, the others are holes: the file takes those five (and
	 * perhaps a block of its extent tree), 8 sectors each */
	struct ext2_inode_large inode = inode_of(&t, "big");
	ext2_ino_t ino;
	assert_int_equal(ext2fs_namei(t.v->fs, EXT2_ROOT_INO, EXT2_ROOT_INO, "big", &ino), 0);
	for (size_t i = 0; i < 6; i++) {
		blk64_t phys = 1;
		uint64_t off = i < 5 ? at[i] : 2ull << 30;
		assert_int_equal(ext2fs_bmap2(t.v->fs, ino, (struct ext2_inode *)&inode, NULL, 0,
					      off / 4096, NULL, &phys),
				 0);
		assert_true(i < 5 ? phys != 0 : phys == 0);
	}
	blk64_t sectors = ext2fs_get_stat_i_blocks(t.v->fs, (struct ext2_inode *)&inode);
	assert_true(sectors == 40 || sectors == 48);
	assert_int_equal(EXT2_I_SIZE(&inode), size);
	assert_int_equal(fstat(t.fd, &st), 0);
	assert_true(st.st_blocks * 512 < 16 << 20);
	vol_close(&t);

	snprintf(want, sizeof(want), "Size: %" PRIu64 "\n", size);
	expect_debugfs("stat /big", want);
	expect_fsck_clean();
}

/* A file of 1K blocks with holes at its start, between its 300 runs of data and at its end:
 * more extents than the inode holds, so a tree of depth 1; every byte read back. */
static void test_sparse_file(void **state)
{
	enum { RUNS = 300 };
	static uint64_t at[RUNS];
	const uint64_t size = 2048 * (RUNS + 1) + 5000;
	struct marks m = { at, RUNS, 0, NULL, 0 };
	struct vol t;
	ext2_extent_handle_t h;
	struct ext2_extent_info info;
	struct ext2fs_extent e;
	ext2_ino_t ino;
	size_t extents = 0;

	(void)state;
	for (size_t i = 0; i < RUNS; i++) /* block 1, 3, 5, ...: the first block a hole */
		at[i] = 2048 * i + 1024 + i % 1000;
	vol_create(&t, 8 << 20, 1024, 256);
	assert_int_equal(ext4_add_file(t.v, EXT4_ROOT, "holes", &file_meta, size, read_marks, &m,
				       "/holes", &ino),
			 0);
	vol_finish_and_reopen(&t);

	assert_int_equal(ext2fs_extent_open(t.v->fs, ino, &h), 0);
	assert_int_equal(ext2fs_extent_get_info(h, &info), 0);
	assert_int_equal(info.max_depth, 1);
	for (errcode_t err = ext2fs_extent_get(h, EXT2_EXTENT_ROOT, &e); !err;
	     err = ext2fs_extent_get(h, EXT2_EXTENT_NEXT_LEAF, &e)) {
		if (!(e.e_flags & EXT2_EXTENT_FLAGS_LEAF))
			continue;
		assert_int_equal(e.e_lblk, 2 * extents + 1);
		assert_int_equal(e.e_len, 1);
		extents++;
	}
	ext2fs_extent_free(h);
	assert_int_equal(extents, RUNS);

	/* the module's reader: each byte as written, the holes zeros, the size whole */
	struct found f = listed(&t, "holes");
	assert_int_equal(f.e.size, size);
	for (size_t i = 0; i < RUNS; i += 37)
		assert_int_equal(byte_at(&t, "holes", at[i]), mark_byte(i));
	assert_int_equal(byte_at(&t, "holes", 0), 0);
	assert_int_equal(byte_at(&t, "holes", size - 1), 0);
	vol_close(&t);

	expect_debugfs("stat /holes", "(ETB0)");
	expect_debugfs("dump_extents /holes", " 1/ 1 ");
	expect_fsck_clean();
}

/* Each byte of the file read by the module's reader. */
struct bytes {
	char *p;
	size_t len, cap;
};

static int collect(void *ctx, const void *buf, size_t len)
{
	struct bytes *b = ctx;
	assert_true(b->len + len <= b->cap);
	memcpy(b->p + b->len, buf, len);
	b->len += len;
	return 0;
}

/* Holes at the start, middle and end of a file the module's reader returns as zeros. */
static void test_sparse_read_back(void **state)
{
	static const uint64_t at[] = { 70000, 70001, 200000 };
	const size_t size = 300000;
	struct marks m = { at, 3, 0, NULL, 0 };
	struct bytes b = { malloc(size), 0, size };
	struct vol t;

	(void)state;
	assert_non_null(b.p);
	vol_create(&t, 4 << 20, 4096, 256);
	assert_int_equal(ext4_add_file(t.v, EXT4_ROOT, "f", &file_meta, size, read_marks, &m, "/f",
				       NULL),
			 0);
	vol_finish_and_reopen(&t);
	assert_int_equal(ext4_read_file(t.v, "/f", collect, &b, &t.d), 0);
	assert_int_equal(b.len, size);
	for (size_t i = 0; i < size; i++)
		if (b.p[i] != (i == 70000 ? 'A' : i == 70001 ? 'B' : i == 200000 ? 'C' : 0))
			fail_msg("byte %zu is %d", i, b.p[i]);
	struct ext2_inode_large inode = inode_of(&t, "f");
	/* two blocks of bytes, 8 sectors each */
	assert_int_equal(ext2fs_get_stat_i_blocks(t.v->fs, (struct ext2_inode *)&inode), 16);
	free(b.p);
	vol_close(&t);
	expect_fsck_clean();
}

/* ---- links ---- */

/* Targets below 60 bytes live in the inode (fast), longer ones in a block (slow), up to a
 * block less one byte; a block's worth is refused. */
static void test_symlinks(void **state)
{
	char t59[60], t60[61], t1023[1024], t1024[1025];
	struct vol t;

	(void)state;
	memset(t59, 'a', 59), t59[59] = 0;
	memset(t60, 'b', 60), t60[60] = 0;
	memset(t1023, 'c', 1023), t1023[1023] = 0;
	memset(t1024, 'd', 1024), t1024[1024] = 0;
	vol_create(&t, 4 << 20, 1024, 256);
	assert_int_equal(ext4_add_symlink(t.v, EXT4_ROOT, "fast", &file_meta, t59, "/fast", NULL),
			 0);
	assert_int_equal(ext4_add_symlink(t.v, EXT4_ROOT, "slow", &file_meta, t60, "/slow", NULL),
			 0);
	assert_int_equal(ext4_add_symlink(t.v, EXT4_ROOT, "longest", &file_meta, t1023, "/longest",
					  NULL),
			 0);
	assert_int_equal(ext4_add_symlink(t.v, EXT4_ROOT, "over", &file_meta, t1024, "/over", NULL),
			 -EINVAL);
	assert_true(diag_has(&t.d, "longer than a block"));
	assert_int_equal(ext4_add_symlink(t.v, EXT4_ROOT, "empty", &file_meta, "", "/empty", NULL),
			 -EINVAL);
	vol_finish_and_reopen(&t);

	struct found f = listed(&t, "fast");
	assert_string_equal(f.target, t59);
	assert_int_equal(f.e.size, 59);
	assert_int_equal(f.e.mode, 0120644);
	assert_string_equal(listed(&t, "slow").target, t60);
	assert_string_equal(listed(&t, "longest").target, t1023);
	struct ext2_inode_large fast = inode_of(&t, "fast"), slow = inode_of(&t, "slow");
	assert_true(ext2fs_is_fast_symlink((struct ext2_inode *)&fast));
	assert_false(ext2fs_is_fast_symlink((struct ext2_inode *)&slow));
	assert_int_equal(memcmp(fast.i_block, t59, 59), 0);
	assert_int_equal(EXT2_I_SIZE(&slow), 60);
	vol_close(&t);

	expect_debugfs("stat /fast", "Fast link dest: \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	expect_debugfs("stat /slow", "Size: 60\n");
	expect_debugfs("stat /slow", "EXTENTS:");
	expect_fsck_clean();
}

/* Hard links: each name counted in the inode, a folder and the 65,001st link refused. */
static void test_hard_links(void **state)
{
	struct ext2_inode_large inode;
	struct vol t;
	uint32_t ino, dir, dev;

	(void)state;
	vol_create(&t, 4 << 20, 1024, 256);
	assert_int_equal(ext4_add_dir(t.v, EXT4_ROOT, "d", &file_meta, "/d", &dir), 0);
	assert_int_equal(ext4_add_file(t.v, dir, "f", &file_meta, 0, NULL, NULL, "/d/f", &ino), 0);
	assert_int_equal(ext4_add_hard_link(t.v, EXT4_ROOT, "f1", ino, "/f1"), 0);
	assert_int_equal(ext4_add_hard_link(t.v, EXT4_ROOT, "f2", ino, "/f2"), 0);
	assert_int_equal(ext4_add_special(t.v, EXT4_ROOT, "fifo", &file_meta, EXT4_FIFO, 0, 0,
					  "/fifo", &dev),
			 0);
	assert_int_equal(ext4_add_hard_link(t.v, dir, "fifo2", dev, "/d/fifo2"), 0);
	assert_int_equal(ext4_add_hard_link(t.v, EXT4_ROOT, "d2", dir, "/d2"), -EINVAL);
	assert_true(diag_has(&t.d, "/d2: a hard link to a folder"));
	assert_int_equal(ext4_add_hard_link(t.v, EXT4_ROOT, "f1", ino, "/f1"), -EINVAL);
	/* as if 64,997 more names were there */
	assert_int_equal(ext2fs_read_inode_full(t.v->fs, ino, (struct ext2_inode *)&inode,
						sizeof(inode)),
			 0);
	assert_int_equal(inode.i_links_count, 3);
	inode.i_links_count = 65000;
	assert_int_equal(ext2fs_write_inode_full(t.v->fs, ino, (struct ext2_inode *)&inode,
						 sizeof(inode)),
			 0);
	assert_int_equal(ext4_add_hard_link(t.v, EXT4_ROOT, "f3", ino, "/f3"), -EINVAL);
	assert_true(diag_has(&t.d, "/f3: more than 65000 links to one file"));
	inode.i_links_count = 3;
	assert_int_equal(ext2fs_write_inode_full(t.v->fs, ino, (struct ext2_inode *)&inode,
						 sizeof(inode)),
			 0);
	vol_finish_and_reopen(&t);

	assert_int_equal(inode_of(&t, "f1").i_links_count, 3);
	assert_int_equal(inode_of(&t, "fifo").i_links_count, 2);
	assert_int_equal(inode_of(&t, "d").i_links_count, 2);
	assert_int_equal(listed(&t, "f2").e.mode, 0100644);
	vol_close(&t);

	expect_debugfs("stat /d/f", "Links: 3 ");
	expect_debugfs("stat /d/fifo2", "Links: 2 ");
	expect_debugfs("ls -l /", "f2");
	expect_fsck_clean();
}

/* ---- device nodes, fifos, sockets ---- */

struct device {
	const char *name;
	enum ext4_special kind;
	uint32_t major, minor;
	uint32_t mode;
	const char *debugfs; /* what debugfs says of its number */
};

/* Device numbers in the old 8:8 form while both fit a byte, in the new one past that, up
 * to Linux's 12-bit major and 20-bit minor; larger ones refused. */
static void test_devices(void **state)
{
	static const struct device devs[] = {
		{ "null", EXT4_CHAR, 1, 3, 020644, "Device major/minor number: 01:03 (hex 01:03)" },
		{ "sda", EXT4_BLOCK, 8, 0, 060644, "Device major/minor number: 08:00 (hex 08:00)" },
		{ "b255", EXT4_BLOCK, 255, 255, 060644, "number: 255:255 (hex ff:ff)" },
		{ "m256", EXT4_CHAR, 256, 0, 020644,
		  "(New-style) Device major/minor number: 256:00" },
		{ "n256", EXT4_CHAR, 0, 256, 020644,
		  "(New-style) Device major/minor number: 00:256" },
		{ "top", EXT4_BLOCK, 4095, 1048575, 060644,
		  "(New-style) Device major/minor number: 4095:1048575 (hex fff:fffff)" },
		{ "mix", EXT4_CHAR, 300, 70000, 020644,
		  "(New-style) Device major/minor number: 300:70000" },
		{ "pipe", EXT4_FIFO, 0, 0, 010644, "Type: FIFO" },
		{ "sock", EXT4_SOCKET, 0, 0, 0140644, "Type: socket" },
	};
	enum { N = sizeof(devs) / sizeof(devs[0]) };
	struct vol t;
	char req[64];

	(void)state;
	vol_create(&t, 4 << 20, 1024, 256);
	for (size_t i = 0; i < N; i++)
		assert_int_equal(ext4_add_special(t.v, EXT4_ROOT, devs[i].name, &file_meta,
						  devs[i].kind, devs[i].major, devs[i].minor,
						  devs[i].name, NULL),
				 0);
	assert_int_equal(ext4_add_special(t.v, EXT4_ROOT, "x", &file_meta, EXT4_CHAR, 4096, 0, "/x",
					  NULL),
			 -EINVAL);
	assert_true(diag_has(&t.d, "/x: device 4096,0: Linux holds majors below 4096"));
	assert_int_equal(ext4_add_special(t.v, EXT4_ROOT, "y", &file_meta, EXT4_BLOCK, 0, 1u << 20,
					  "/y", NULL),
			 -EINVAL);
	vol_finish_and_reopen(&t);

	for (size_t i = 0; i < N; i++) {
		struct found f = listed(&t, devs[i].name);
		assert_int_equal(f.e.mode, devs[i].mode);
		assert_int_equal(f.e.major, devs[i].major);
		assert_int_equal(f.e.minor, devs[i].minor);
		assert_int_equal(f.e.size, 0);
	}
	/* the old form in the first word only; the new one in the second, the first 0 */
	struct ext2_inode_large old = inode_of(&t, "null"), new = inode_of(&t, "m256");
	assert_int_equal(old.i_block[0], 0x103);
	assert_int_equal(old.i_block[1], 0);
	assert_int_equal(new.i_block[0], 0);
	assert_int_not_equal(new.i_block[1], 0);
	vol_close(&t);

	for (size_t i = 0; i < N; i++) {
		snprintf(req, sizeof(req), "stat /%s", devs[i].name);
		expect_debugfs(req, devs[i].debugfs);
	}
	expect_fsck_clean();
}

/* ---- extended attributes ---- */

static void value_of(char *buf, size_t len, int seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (char)('a' + (i * 7 + (size_t)seed) % 26);
}

/* The value of @name on @path, as libext2fs reads it; its length, or -1. */
static long xattr_get(struct vol *t, const char *path, const char *name, char *buf, size_t n)
{
	struct ext2_xattr_handle *h;
	ext2_ino_t ino;
	void *value;
	size_t len;
	long rc = -1;

	assert_int_equal(ext2fs_namei(t->v->fs, EXT2_ROOT_INO, EXT2_ROOT_INO, path, &ino), 0);
	assert_int_equal(ext2fs_xattrs_open(t->v->fs, ino, &h), 0);
	assert_int_equal(ext2fs_xattrs_read(h), 0);
	if (ext2fs_xattr_get(h, name, &value, &len) == 0) {
		assert_true(len <= n);
		memcpy(buf, value, len);
		ext2fs_free_mem(&value);
		rc = (long)len;
	}
	ext2fs_xattrs_close(&h);
	return rc;
}

/* One small attribute stays in the inode; many, and a large one, go to a block of their
 * own; more than a block holds is refused naming the attribute; each read back. */
static void test_xattrs(void **state)
{
	enum { MANY = 40 };
	char name[64], value[4096], got[4096];
	struct vol t;
	uint32_t small, many, large, over;

	(void)state;
	vol_create(&t, 8 << 20, 4096, 256);
	assert_int_equal(ext4_add_file(t.v, EXT4_ROOT, "small", &file_meta, 0, NULL, NULL, "/small",
				       &small),
			 0);
	assert_int_equal(ext4_add_file(t.v, EXT4_ROOT, "many", &file_meta, 0, NULL, NULL, "/many",
				       &many),
			 0);
	assert_int_equal(ext4_add_file(t.v, EXT4_ROOT, "large", &file_meta, 0, NULL, NULL, "/large",
				       &large),
			 0);
	assert_int_equal(ext4_add_file(t.v, EXT4_ROOT, "over", &file_meta, 0, NULL, NULL, "/over",
				       &over),
			 0);
	assert_int_equal(ext4_set_xattr(t.v, small, "user.one", "1", 1, "/small"), 0);
	for (int i = 0; i < MANY; i++) {
		snprintf(name, sizeof(name), "user.attribute-%02d", i);
		value_of(value, 50, i);
		assert_int_equal(ext4_set_xattr(t.v, many, name, value, 50, "/many"), 0);
	}
	value_of(value, 3000, 1);
	assert_int_equal(ext4_set_xattr(t.v, large, "trusted.big", value, 3000, "/large"), 0);
	assert_int_equal(ext4_set_xattr(t.v, large, "security.selinux", "system_u:object_r:x", 19,
					"/large"),
			 0);
	value_of(value, 4096, 2);
	assert_int_equal(ext4_set_xattr(t.v, over, "user.huge", value, 4096, "/over"), -EINVAL);
	assert_true(diag_has(&t.d, "/over: extended attribute 'user.huge' (4096 bytes): the "
				   "inode's attributes do not fit in it and one block"));
	assert_int_equal(ext4_set_xattr(t.v, small, "bogus.x", "1", 1, "/small"), -EINVAL);
	vol_finish_and_reopen(&t);

	assert_int_equal(xattr_get(&t, "small", "user.one", got, sizeof(got)), 1);
	assert_int_equal(got[0], '1');
	assert_int_equal(inode_of(&t, "small").i_file_acl, 0);    /* in the inode */
	assert_int_not_equal(inode_of(&t, "many").i_file_acl, 0); /* in a block */
	for (int i = 0; i < MANY; i++) {
		snprintf(name, sizeof(name), "user.attribute-%02d", i);
		value_of(value, 50, i);
		assert_int_equal(xattr_get(&t, "many", name, got, sizeof(got)), 50);
		assert_memory_equal(got, value, 50);
	}
	value_of(value, 3000, 1);
	assert_int_equal(xattr_get(&t, "large", "trusted.big", got, sizeof(got)), 3000);
	assert_memory_equal(got, value, 3000);
	assert_int_equal(xattr_get(&t, "large", "security.selinux", got, sizeof(got)), 19);
	assert_int_equal(xattr_get(&t, "over", "user.huge", got, sizeof(got)), -1);
	vol_close(&t);

	expect_debugfs("ea_list /small", "user.one (1) = \"1\"");
	expect_debugfs("ea_list /many", "user.attribute-39 (50)");
	expect_debugfs("ea_list /many", "user.attribute-00 (50)");
	expect_debugfs("ea_get /large security.selinux", "system_u:object_r:x");
	expect_fsck_clean();
}

/* ---- times ---- */

struct when {
	const char *name;
	int64_t mtime;
	uint32_t ns;
	int64_t stored;      /* what the inode holds (clamped) */
	const char *debugfs; /* the mtime line debugfs prints */
};

/* Times before 1970, past 2038 (the extra epoch bits) and their nanoseconds, read back as
 * stored; those outside what an inode holds clamped with a warning. */
static void test_times(void **state)
{
	static const struct when times[] = {
		{ "epoch", 0, 0, 0, "mtime: 0x00000000:00000000 -- Thu Jan  1 00:00:00 1970" },
		{ "before", -1, 5, -1, "mtime: 0xffffffff:00000014 -- Wed Dec 31 23:59:59 1969" },
		{ "first", INT32_MIN, 0, INT32_MIN,
		  "mtime: 0x80000000:00000000 -- Fri Dec 13 20:45:52 1901" },
		{ "y2038", 1ll << 31, 999999999, 1ll << 31,
		  "mtime: 0x80000000:ee6b27fd -- Tue Jan 19 03:14:08 2038" },
		{ "y2106", 1ll << 32, 1, 1ll << 32,
		  "mtime: 0x00000000:00000005 -- Sun Feb  7 06:28:16 2106" },
		{ "last", INT32_MIN + (1ll << 34) - 1, 0, INT32_MIN + (1ll << 34) - 1,
		  "mtime: 0x7fffffff:00000003 -- " },
		{ "past", 1ll << 40, 0, INT32_MIN + (1ll << 34) - 1, "mtime: 0x7fffffff:00000003" },
		{ "early", -(1ll << 40), 0, INT32_MIN, "mtime: 0x80000000:00000000" },
	};
	enum { N = sizeof(times) / sizeof(times[0]) };
	struct vol t;
	char req[64];

	(void)state;
	vol_create(&t, 4 << 20, 1024, 256);
	for (size_t i = 0; i < N; i++) {
		struct ext4_meta m = { .perm = 0644,
				       .mtime = times[i].mtime,
				       .mtime_ns = times[i].ns };
		assert_int_equal(ext4_add_file(t.v, EXT4_ROOT, times[i].name, &m, 0, NULL, NULL,
					       times[i].name, NULL),
				 0);
	}
	assert_int_equal(t.d.errors, 0);
	assert_true(warned(&t.d, "past: its time (1099511627776 s from 1970) is outside"));
	assert_true(warned(&t.d, "early: its time (-1099511627776 s from 1970) is outside"));
	vol_finish_and_reopen(&t);
	for (size_t i = 0; i < N; i++) {
		assert_int_equal(listed(&t, times[i].name).e.mtime, times[i].stored);
		struct ext2_inode_large inode = inode_of(&t, times[i].name);
		assert_int_equal(inode.i_mtime_extra >> 2, times[i].ns);
		assert_int_equal(inode.i_atime_extra, inode.i_mtime_extra);
		assert_int_equal(inode.i_crtime, 1700000000);
	}
	vol_close(&t);
	for (size_t i = 0; i < N; i++) {
		snprintf(req, sizeof(req), "stat /%s", times[i].name);
		expect_debugfs(req, times[i].debugfs);
	}
	expect_fsck_clean();

	/* an inode of 128 bytes: 32 bits of seconds, no nanoseconds; past 2038 clamped */
	vol_create(&t, 4 << 20, 1024, 128);
	struct ext4_meta m = { .perm = 0644, .mtime = -5, .mtime_ns = 7 };
	assert_int_equal(ext4_add_file(t.v, EXT4_ROOT, "old", &m, 0, NULL, NULL, "old", NULL), 0);
	m.mtime = 1ll << 31;
	assert_int_equal(ext4_add_file(t.v, EXT4_ROOT, "new", &m, 0, NULL, NULL, "new", NULL), 0);
	assert_true(warned(&t.d, "new: its time (2147483648 s from 1970) is past 2038-01-19"));
	vol_finish_and_reopen(&t);
	assert_int_equal(listed(&t, "old").e.mtime, -5);
	assert_int_equal(listed(&t, "new").e.mtime, INT32_MAX);
	vol_close(&t);
	expect_debugfs("stat /new", "mtime: 0x7fffffff -- Tue Jan 19 03:14:07 2038");
	expect_debugfs("stat /old", "mtime: 0xfffffffb -- Wed Dec 31 23:59:55 1969");
	expect_fsck_clean();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_large_file),       cmocka_unit_test(test_sparse_file),
		cmocka_unit_test(test_sparse_read_back), cmocka_unit_test(test_symlinks),
		cmocka_unit_test(test_hard_links),       cmocka_unit_test(test_devices),
		cmocka_unit_test(test_xattrs),           cmocka_unit_test(test_times),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
