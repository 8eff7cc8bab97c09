/* SPDX-License-Identifier: MIT */
/* Unit tests: ext4/data.c and csum.c — a file's bytes go to the blocks libext2fs's own
 * ext2fs_file_write() gives them, a block at a time with its zero blocks left as holes (what
 * a build did before it placed the blocks itself), whatever the block size, the holes, the
 * extents past the inode's four and a volume near full: two volumes, one made each way, are
 * the same to the byte. And the CRC32C of the inode checksums is libext2fs's. */
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

/* The files of a volume: their sizes, and the blocks of each that are zeros (holes). */
struct file_spec {
	const char *name;
	size_t blocks, tail;  /* whole blocks, then bytes of one more */
	unsigned data, zeros; /* runs of data blocks, then zero blocks, in turn (0: no holes) */
	size_t lead;          /* zero blocks first */
};

static const struct file_spec files[] = {
	{ "one-byte", 0, 1, 0, 0, 0 },
	{ "one-block", 1, 0, 0, 0, 0 },
	{ "partial", 3, 5, 0, 0, 0 },
	{ "zeros", 9, 100, 0, 9, 0 },
	{ "leading-hole", 6, 700, 0, 0, 4 },
	{ "alternating", 120, 33, 1, 1, 0 }, /* a block of data, a hole: many extents */
	{ "runs", 400, 0, 37, 11, 2 },       /* past four extents, through a tree */
	{ "long", 40000, 9, 0, 0, 0 },       /* more than one extent holds, and groups */
	{ "after", 20, 3000, 0, 0, 0 },      /* after a file with a tree */
	{ "second-runs", 300, 17, 50, 3, 0 },
	{ "huge", 70000, 1, 0, 0, 0 }, /* extents of 32767 blocks, where 4K groups allow */
};

/* Byte @i of block @b of a file: never a whole block of zeros. */
static char data_byte(size_t b, size_t i)
{
	uint32_t x = (uint32_t)(b * 2654435761u) ^ (uint32_t)(i * 40503u);
	return (char)(x >> 11 | 1);
}

static bool zero_block(const struct file_spec *f, size_t b)
{
	if (b < f->lead)
		return true;
	if (f->zeros && !f->data)
		return true;
	return f->zeros && (b - f->lead) % (f->data + f->zeros) >= f->data;
}

/* A file of @f's bytes in blocks of @bs, read from its start. */
struct gen_reader {
	const struct file_spec *f;
	size_t bs, size, pos;
};

static long read_gen(void *ctx, void *buf, size_t len)
{
	struct gen_reader *r = ctx;
	size_t n = r->size - r->pos < len ? r->size - r->pos : len;

	for (size_t i = 0; i < n; i++) {
		size_t at = r->pos + i, b = at / r->bs;
		((char *)buf)[i] = zero_block(r->f, b) ? 0 : data_byte(b, at % r->bs);
	}
	r->pos += n;
	return (long)n;
}

/* The file @ino written by libext2fs a block at a time, zero blocks skipped. */
static void write_by_libext2fs(struct ext4_volume *v, uint32_t ino, struct gen_reader *r)
{
	size_t bs = v->fs->blocksize;
	char *block = malloc(bs);
	ext2_file_t f;
	unsigned int written;

	assert_non_null(block);
	assert_int_equal(ext2fs_file_open(v->fs, ino, EXT2_FILE_WRITE, &f), 0);
	for (size_t off = 0; off < r->size; off += bs) {
		size_t n = (size_t)read_gen(r, block, bs);
		if (!memcmp(block, v->zero_block, n))
			assert_int_equal(ext2fs_file_llseek(f, off + n, EXT2_SEEK_SET, NULL), 0);
		else
			assert_int_equal(ext2fs_file_write(f, block, (unsigned)n, &written), 0);
	}
	assert_int_equal(ext2fs_file_close(f), 0);
	free(block);
}

/* A volume of @size bytes and blocks of @bs in @image holding the files, each written by
 * the module (@by_module) or by libext2fs. */
static void make_volume(const char *image, uint64_t size, uint32_t bs, bool by_module)
{
	struct ext4_params p = { .block_size = bs,
				 .inode_size = 256,
				 .timestamp = 1700000000,
				 .uuid = { 9, 8, 7 } };
	static const struct ext4_meta m = { .perm = 0644, .mtime = 1700000000 };
	struct ext4_volume *v;
	struct diag d;
	int fd = open(image, O_RDWR | O_CREAT | O_TRUNC, 0644);

	diag_init(&d);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)size), 0);
	assert_int_equal(ext4_create(fd, 0, size, &p, image, &d, &v), 0);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		const struct file_spec *f = &files[i];
		struct gen_reader r = { f, bs, f->blocks * bs + f->tail, 0 };
		uint32_t dir = EXT4_ROOT, ino;
		if (f->blocks * bs > size / 2) /* a file for larger volumes */
			continue;
		/* every other file in a folder of its own, whose blocks go where libext2fs
		 * puts a folder's, maybe before the files' */
		if (i % 2)
			assert_int_equal(ext4_add_dir(v, EXT4_ROOT, f->name, &m, f->name, &dir), 0);
		assert_int_equal(ext4_add_file(v, dir, f->name, &m, r.size,
					       by_module ? read_gen : NULL, &r, f->name, &ino),
				 0);
		if (!by_module)
			write_by_libext2fs(v, ino, &r);
	}
	assert_int_equal(ext4_finish(v), 0);
	close(fd);
	diag_release(&d);
}

static void expect_same_files(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	char x[65536], y[65536];
	size_t n, m;

	assert_non_null(fa);
	assert_non_null(fb);
	do {
		n = fread(x, 1, sizeof(x), fa);
		m = fread(y, 1, sizeof(y), fb);
		assert_int_equal(n, m);
		assert_memory_equal(x, y, n);
	} while (n);
	fclose(fa);
	fclose(fb);
}

static void same_as_libext2fs(uint64_t size, uint32_t bs)
{
	make_volume("module.img", size, bs, true);
	make_volume("libext2fs.img", size, bs, false);
	expect_same_files("module.img", "libext2fs.img");
	unlink("module.img");
	unlink("libext2fs.img");
}

static void test_blocks_1k(void **state)
{
	(void)state;
	same_as_libext2fs(64 << 20, 1024);
}

static void test_blocks_4k(void **state)
{
	(void)state;
	same_as_libext2fs(1024 << 20, 4096);
}

/* The files fill all but a few blocks of the volume (no journal): the last ones take what
 * is left between the others, wherever it is. */
static void test_blocks_full(void **state)
{
	(void)state;
	same_as_libext2fs(41 << 20, 1024);
}

static void test_crc32c(void **state)
{
	char buf[1000];

	(void)state;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(i * 7 + 3);
	for (size_t n = 0; n < sizeof(buf); n += 13)
		for (uint32_t seed = 0; seed < 3; seed++)
			assert_int_equal(ext4_crc32c(~seed, buf + n % 7, n),
					 ext2fs_crc32c_le(~seed, (unsigned char *)buf + n % 7, n));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blocks_1k),
		cmocka_unit_test(test_blocks_4k),
		cmocka_unit_test(test_blocks_full),
		cmocka_unit_test(test_crc32c),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
