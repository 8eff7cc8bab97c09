/* SPDX-License-Identifier: MIT */
/* Unit tests: ext4/count.c — what entries take, counted without a volume, against what a
 * volume given the same entries takes (ext4_get_usage(): the most blocks past the empty
 * volume's, after the last entry or after the folders are indexed, and the inodes); and
 * ext4_usage_holds(), which says when a build's count holds for a volume of any size. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ext4/ext4_priv.h"

#define IMAGE "c.img"

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A file's bytes: none of its blocks all zeros. */
static long read_letters(void *ctx, void *buf, size_t len)
{
	(void)ctx;
	memset(buf, 'a', len);
	return (long)len;
}

/* A file's bytes: a block of zeros, then letters (@ctx: the bytes read so far). */
static long read_zeros_first(void *ctx, void *buf, size_t len)
{
	size_t *at = ctx;
	for (size_t i = 0; i < len; i++, (*at)++)
		((char *)buf)[i] = *at < 4096 ? 0 : 'a';
	return (long)len;
}

/* A file's bytes: blocks of letters and of zeros in turn, from letters (@ctx: the bytes read
 * so far). */
static long read_striped(void *ctx, void *buf, size_t len)
{
	size_t *at = ctx;
	for (size_t i = 0; i < len; i++, (*at)++)
		((char *)buf)[i] = (*at / 4096) % 2 ? 0 : 'a';
	return (long)len;
}

/* The same entries into a volume and into a count. */
struct both {
	struct ext4_volume *v;
	struct ext4_count *c;
	struct diag d;
	struct ext4_usage empty;
	int fd;
	uint32_t ino[64], dir[64]; /* folders: the volume's inode, the count's number */
	size_t n_dirs;
	uint32_t files[64]; /* files named so far (for hard links) */
	size_t n_files;
};

static void both_start(struct both *t, uint32_t block_size, uint64_t size)
{
	struct ext4_params p = { .block_size = block_size,
				 .inode_size = 256,
				 .inodes = 65536,
				 .journal = true,
				 .timestamp = 1700000000,
				 .uuid = { 1, 2, 3 },
				 .hash_seed = { 9, 8, 7, 6, 5 } };

	memset(t, 0, sizeof(*t));
	diag_init(&t->d);
	t->fd = open(IMAGE, O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(t->fd >= 0);
	assert_int_equal(ftruncate(t->fd, (off_t)size), 0);
	assert_int_equal(ext4_create(t->fd, 0, size, &p, IMAGE, &t->d, &t->v), 0);
	assert_int_equal(ext4_count_new(&p, &t->c), 0);
	ext4_get_usage(t->v, &t->empty);
	t->ino[0] = EXT4_ROOT;
	t->dir[0] = EXT4_COUNT_ROOT;
	t->n_dirs = 1;
}

static void both_end(struct both *t)
{
	ext4_discard(t->v);
	ext4_count_free(t->c);
	close(t->fd);
	unlink(IMAGE);
	diag_release(&t->d);
}

/* A name of @len bytes (1 to 255), different for each @k. */
static void name_of(char *buf, size_t len, uint64_t k)
{
	int n = snprintf(buf, len + 1, "%llu-", (unsigned long long)k);
	for (size_t i = n > 0 ? (size_t)n : 0; i < len; i++)
		buf[i] = (char)('a' + (k + i) % 26);
	buf[len] = '\0';
}

/* One random entry (@k its number) in a random folder. */
static void add_random(struct both *t, uint64_t *s, uint64_t k)
{
	static const struct ext4_meta m = { .perm = 0644, .mtime = 1700000000 };
	size_t d = next(s) % t->n_dirs, len = 1 + next(s) % (next(s) % 4 ? 40 : 255);
	char name[256];
	uint32_t ino;

	name_of(name, len < 24 ? 24 : len, k);
	switch (next(s) % 8) {
	case 0:
		if (t->n_dirs < 64) {
			assert_int_equal(ext4_add_dir(t->v, t->ino[d], name, &m, name, &ino), 0);
			assert_int_equal(ext4_count_dir(t->c, t->dir[d], name, &t->dir[t->n_dirs]),
					 0);
			t->ino[t->n_dirs++] = ino;
			break;
		}
		/* fall through */
	case 1: {
		char target[400];
		name_of(target, 10 + next(s) % 120, k);
		assert_int_equal(ext4_add_symlink(t->v, t->ino[d], name, &m, target, name, NULL),
				 0);
		assert_int_equal(ext4_count_symlink(t->c, t->dir[d], name, strlen(target)), 0);
		break;
	}
	case 2:
		if (t->n_files) {
			assert_int_equal(ext4_add_hard_link(t->v, t->ino[d], name,
							    t->files[next(s) % t->n_files], name),
					 0);
			assert_int_equal(ext4_count_link(t->c, t->dir[d], name), 0);
			break;
		}
		/* fall through */
	default: {
		uint64_t size = next(s) % 5 ? next(s) % 9000 : next(s) % 300000;
		assert_int_equal(ext4_add_file(t->v, t->ino[d], name, &m, size, read_letters, NULL,
					       name, &ino),
				 0);
		assert_int_equal(ext4_count_inode(t->c, t->dir[d], name, size), 0);
		if (t->n_files < 64)
			t->files[t->n_files++] = ino;
	}
	}
}

/* The blocks of extent trees in @v: what its inodes take past their data (files have no
 * zero blocks here). The count leaves them out, as only a volume's layout decides them
 * (ext4_usage_holds() is false where there are any). */
static uint64_t tree_blocks(const struct ext4_volume *v)
{
	ext2_filsys fs = v->fs;
	uint64_t n = 0;

	for (ext2_ino_t ino = EXT2_ROOT_INO; ino <= fs->super->s_inodes_count; ino++) {
		struct ext2_inode inode;
		if ((ino > EXT2_ROOT_INO && ino < EXT2_FIRST_INO(fs->super)) ||
		    !ext2fs_test_inode_bitmap2(fs->inode_map, ino))
			continue;
		assert_int_equal(ext2fs_read_inode(fs, ino, &inode), 0);
		uint64_t held = ext2fs_get_stat_i_blocks(fs, &inode) * 512 / fs->blocksize;
		uint64_t size = EXT2_I_SIZE(&inode),
			 data = (size + fs->blocksize - 1) / fs->blocksize;
		if (LINUX_S_ISLNK(inode.i_mode))
			data = held ? 1 : 0;
		n += held - data;
	}
	return n;
}

/* The volume's need against the count's, its folders indexed. */
static void expect_same(struct both *t)
{
	struct ext4_usage in, indexed;
	struct ext4_count_sum sum;

	ext4_get_usage(t->v, &in);
	uint64_t trees_in = tree_blocks(t->v);
	assert_int_equal(ext4_index_folders(t->v), 0);
	ext4_get_usage(t->v, &indexed);
	uint64_t trees_indexed = tree_blocks(t->v);
	assert_int_equal(ext4_count_total(t->c, &sum), 0);
	uint64_t most = in.used_blocks > indexed.used_blocks ? in.used_blocks : indexed.used_blocks;
	if (sum.sure) /* the trees too: those the count says, where it is sure of them */
		assert_int_equal(sum.blocks, most - t->empty.used_blocks);
	/* without the trees: the count's walk or indexed total, the larger one where sure */
	in.used_blocks -= trees_in;
	indexed.used_blocks -= trees_indexed;
	uint64_t got = sum.blocks - sum.tree_blocks + t->empty.used_blocks;
	assert_true(got == in.used_blocks || got == indexed.used_blocks);
	assert_true(!sum.sure ||
		    got >= (in.used_blocks < indexed.used_blocks ? in.used_blocks
								 : indexed.used_blocks));
	assert_int_equal(sum.inodes, indexed.used_inodes - t->empty.used_inodes);
}

/* Random trees, folders of one block to hashed trees with index blocks, at 4 KiB and 1 KiB
 * blocks: the count is what the volume took. */
static void test_random_trees(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 24; seed++) {
		struct both t;
		uint64_t s = seed * 0x9E3779B97F4A7C15ull,
			 n = 1 + next(&s) % (seed % 4 ? 400 : 3000);
		both_start(&t, seed % 3 ? 4096 : 1024, 256ull << 20);
		for (uint64_t k = 0; k < n; k++)
			add_random(&t, &s, k);
		expect_same(&t);
		both_end(&t);
	}
}

/* Many names in the root, and in a folder: at 1 KiB blocks, a hashed tree with index
 * blocks below its root. */
static void test_big_folders(void **state)
{
	static const struct ext4_meta m = { .perm = 0755, .mtime = 1700000000 };
	char name[256];

	(void)state;
	for (uint32_t bs = 1024; bs <= 4096; bs *= 4) {
		struct both t;
		uint32_t ino, dir;
		both_start(&t, bs, 256ull << 20);
		assert_int_equal(ext4_add_dir(t.v, EXT4_ROOT, "usr", &m, "usr", &ino), 0);
		assert_int_equal(ext4_count_dir(t.c, EXT4_COUNT_ROOT, "usr", &dir), 0);
		for (uint64_t k = 0; k < 20000; k++) {
			name_of(name, 20 + k % 50, k);
			bool root = k % 5 == 0;
			assert_int_equal(ext4_add_special(t.v, root ? EXT4_ROOT : ino, name, &m,
							  EXT4_FIFO, 0, 0, name, NULL),
					 0);
			assert_int_equal(ext4_count_inode(t.c, root ? EXT4_COUNT_ROOT : dir, name,
							  0),
					 0);
		}
		expect_same(&t);
		both_end(&t);
	}
}

/* What ext4_usage_holds() says of a build: a plain one holds; a file with a block of
 * zeros before more bytes, a folder of more blocks than an extent tree block holds extents (1 KiB blocks: 84)
 * or a file longer than the stretch given does not. */
static void test_holds(void **state)
{
	static const struct ext4_meta m = { .perm = 0644, .mtime = 1700000000 };
	char name[64];

	(void)state;
	for (int kind = 0; kind < 4; kind++) {
		struct both t;
		both_start(&t, kind == 2 ? 1024 : 4096, 64ull << 20);
		uint64_t stretch = ext4_free_stretch(t.v);
		assert_true(stretch > 1000 && stretch <= 32767);
		for (int k = 0; k < 40; k++) {
			snprintf(name, sizeof(name), "f%d", k);
			assert_int_equal(ext4_add_file(t.v, EXT4_ROOT, name, &m, 5000, read_letters,
						       NULL, name, NULL),
					 0);
		}
		if (kind == 1) { /* a block of zeros before bytes: a hole, the file two runs */
			size_t at = 0;
			assert_int_equal(ext4_add_file(t.v, EXT4_ROOT, "zeros", &m, 8192,
						       read_zeros_first, &at, "zeros", NULL),
					 0);
		}
		for (int k = 0; kind == 2 && k < 3000; k++) {
			snprintf(name, sizeof(name), "a-long-name-of-a-fifo-%d", k);
			assert_int_equal(ext4_add_special(t.v, EXT4_ROOT, name, &m, EXT4_FIFO, 0, 0,
							  name, NULL),
					 0);
		}
		assert_int_equal(ext4_index_folders(t.v), 0);
		assert_int_equal(ext4_usage_holds(t.v, kind == 3 ? 1 : stretch), kind == 0);
		both_end(&t);
	}
}

/* ext4_tree_blocks() counts the blocks of the extent trees a build made: none for files of
 * one run, one for a file of ten runs (holes between them: ten extents, more than an inode
 * holds); ext4_tree_blocks_for() the most a number of extents takes. */
static void test_tree_blocks(void **state)
{
	static const struct ext4_meta m = { .perm = 0644, .mtime = 1700000000 };
	uint64_t n = 99;
	size_t at = 0;
	struct both t;

	(void)state;
	both_start(&t, 4096, 64ull << 20);
	assert_int_equal(ext4_add_file(t.v, EXT4_ROOT, "plain", &m, 500000, read_letters, NULL,
				       "plain", NULL),
			 0);
	assert_int_equal(ext4_tree_blocks(t.v, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(ext4_add_file(t.v, EXT4_ROOT, "striped", &m, 19 * 4096, read_striped, &at,
				       "striped", NULL),
			 0);
	assert_int_equal(ext4_index_folders(t.v), 0);
	assert_int_equal(ext4_tree_blocks(t.v, &n), 0);
	assert_int_equal(n, 1);
	assert_false(ext4_usage_holds(t.v, ext4_free_stretch(t.v)));
	both_end(&t);
	/* 4,096-byte blocks hold 340 extents */
	assert_int_equal(ext4_tree_blocks_for(4, 4096), 0);
	assert_int_equal(ext4_tree_blocks_for(5, 4096), 1);
	assert_int_equal(ext4_tree_blocks_for(4 * 340, 4096), 4);
	assert_int_equal(ext4_tree_blocks_for(4 * 340 + 1, 4096), 6);
	assert_int_equal(ext4_tree_blocks_for(85, 1024), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_trees),
		cmocka_unit_test(test_big_folders),
		cmocka_unit_test(test_holds),
		cmocka_unit_test(test_tree_blocks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
