/* SPDX-License-Identifier: MIT */
/* Unit tests: Android sparse images (common/simg): the chunks planned from the ranges that
 * matter, the files written (one, or split under a size), read back and checked, and every
 * kind of bad header or chunk refused with one line naming the chunk. */
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

#include "common/bytes.h"
#include "common/simg.h"

#define BS 4096u
#define BLOCKS 64u
#define SIZE ((uint64_t)BS * BLOCKS)

static int memfile(uint64_t size)
{
	int fd = memfd_create("simg", MFD_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)size), 0);
	return fd;
}

static uint64_t file_size(int fd)
{
	off_t end = lseek(fd, 0, SEEK_END);

	assert_true(end >= 0);
	return (uint64_t)end;
}

/* An image of BLOCKS blocks: 0-3 random, 4-7 the word 0xdeadbeef, 8-9 zeros, 10 random,
 * 20-29 random, the rest zeros; and its ranges that matter: blocks 0-11 and 20-29 and the
 * last one. */
static int make_image(uint8_t *img)
{
	int fd = memfile(SIZE);

	memset(img, 0, SIZE);
	srand(7);
	for (uint64_t i = 0; i < 4 * BS; i++)
		img[i] = (uint8_t)rand();
	for (uint64_t i = 4 * BS; i < 8 * BS; i += 4)
		put_le32(img + i, 0xdeadbeefu);
	for (uint64_t i = 10 * BS; i < 11 * BS; i++)
		img[i] = (uint8_t)rand();
	for (uint64_t i = 20 * BS; i < 30 * BS; i++)
		img[i] = (uint8_t)rand();
	assert_int_equal(pwrite(fd, img, SIZE, 0), (ssize_t)SIZE);
	return fd;
}

static const struct simg_range ranges[] = {
	{ 20 * BS + 100, 30 * BS }, /* out of order, not on the grid */
	{ 0, 12 * BS },
	{ SIZE - 1, SIZE },
};

/* Writes piece @p of @s (from @img_fd) into a new memory file. */
static int write_piece(const struct simg *s, const struct simg_piece *p, int img_fd, bool crc)
{
	int out = memfile(0);
	struct diag d;
	struct simg_write w = { .image = { .fd = img_fd, .name = "img" },
				.out = out,
				.out_name = "out",
				.crc = crc };

	diag_init(&d);
	assert_int_equal(simg_write(s, p, &w, &d), 0);
	diag_release(&d);
	assert_int_equal(file_size(out), simg_piece_size(s, p, crc));
	return out;
}

/* Reads the sparse file @fd back into @back (SIZE bytes); returns simg_read()'s code. */
static int read_back(int fd, uint8_t *back, struct diag *d)
{
	struct simg s;
	int out = memfile(SIZE);
	int rc = simg_read(fd, file_size(fd), "in.simg", &s, d);

	if (rc == 0) {
		assert_int_equal(s.image_size, SIZE);
		rc = simg_expand(&s, fd, "in.simg", out, d);
		simg_release(&s);
	}
	if (rc == 0)
		assert_int_equal(pread(out, back, SIZE, 0), (ssize_t)SIZE);
	close(out);
	return rc;
}

static void test_simg_one_file(void **state)
{
	(void)state;
	uint8_t *img = malloc(SIZE), *back = malloc(SIZE);
	int fd = make_image(img);
	struct simg_piece *pieces;
	size_t n;
	struct simg s;
	struct diag d;

	diag_init(&d);
	assert_int_equal(simg_plan(&(struct simg_image){ .fd = fd, .name = "img" }, SIZE, BS,
				   ranges, 3, &s, &d),
			 0);
	/* RAW 0-3, FILL 4-7 (0xdeadbeef), FILL 8-9 (0), RAW 10, FILL 11 (0), RAW 20-29,
	 * FILL 63 (0) */
	assert_int_equal(s.n, 7);
	assert_int_equal(s.chunks[0].type, SIMG_CHUNK_RAW);
	assert_int_equal(s.chunks[0].blocks, 4);
	assert_int_equal(s.chunks[1].type, SIMG_CHUNK_FILL);
	assert_int_equal(s.chunks[1].fill, 0xdeadbeefu);
	assert_int_equal(s.chunks[2].fill, 0);
	assert_int_equal(s.chunks[5].block, 20);
	assert_int_equal(s.chunks[6].block, 63);
	assert_int_equal(simg_split(&s, 0, true, &pieces, &n, &d), 0);
	assert_int_equal(n, 1);
	int out = write_piece(&s, &pieces[0], fd, true);

	uint8_t h[SIMG_FILE_HEADER_SIZE];
	struct simg_file_header fh;
	assert_int_equal(pread(out, h, sizeof(h), 0), (ssize_t)sizeof(h));
	simg_get_file_header(h, &fh);
	assert_int_equal(fh.magic, SIMG_MAGIC);
	assert_int_equal(fh.blk_sz, BS);
	assert_int_equal(fh.total_blks, BLOCKS);
	/* 7 chunks, 2 DONT_CARE between them (12-19, 30-62), one CRC32 */
	assert_int_equal(fh.total_chunks, 10);
	assert_int_equal(read_back(out, back, &d), 0);
	assert_memory_equal(back, img, SIZE);

	/* a byte of RAW data changed: the CRC32 chunk says so */
	uint8_t byte = 0x5a;
	assert_int_equal(pwrite(out, &byte, 1, SIMG_FILE_HEADER_SIZE + SIMG_CHUNK_HEADER_SIZE + 5),
			 1);
	assert_int_equal(read_back(out, back, &d), -EINVAL);
	assert_true(diag_has(&d, "chunk 10 of 10: its CRC-32 is"));
	close(out);
	close(fd);
	free(pieces);
	simg_release(&s);
	diag_release(&d);
	free(img);
	free(back);
}

static void test_simg_split(void **state)
{
	(void)state;
	uint8_t *img = malloc(SIZE), *back = malloc(SIZE), *all = calloc(1, SIZE);
	int fd = make_image(img);
	struct simg_piece *pieces;
	size_t n;
	struct simg s;
	struct diag d;
	const uint64_t max = 3 * BS + 200; /* three blocks of RAW data and the headers */

	diag_init(&d);
	assert_int_equal(simg_plan(&(struct simg_image){ .fd = fd, .name = "img" }, SIZE, BS,
				   ranges, 3, &s, &d),
			 0);
	assert_int_equal(simg_split(&s, 100, false, &pieces, &n, &d), -EINVAL);
	assert_true(diag_has(&d, "needs at least"));
	assert_int_equal(simg_split(&s, max, true, &pieces, &n, &d), 0);
	assert_true(n >= 5); /* 15 blocks of RAW data, at most 3 in each file */
	for (size_t i = 0; i < n; i++) {
		int out = write_piece(&s, &pieces[i], fd, true);
		assert_true(file_size(out) <= max);
		assert_int_equal(read_back(out, back, &d), 0);
		/* each piece alone: the image where it defines bytes, zeros elsewhere */
		for (uint64_t k = 0; k < SIZE; k++) {
			assert_true(back[k] == 0 || back[k] == img[k]);
			all[k] |= back[k];
		}
		close(out);
	}
	assert_memory_equal(all, img, SIZE);
	free(pieces);
	/* a size that holds the whole file gives one piece, a byte less two */
	assert_int_equal(simg_split(&s, 0, true, &pieces, &n, &d), 0);
	uint64_t whole = simg_piece_size(&s, &pieces[0], true);
	free(pieces);
	assert_int_equal(simg_split(&s, whole, true, &pieces, &n, &d), 0);
	assert_int_equal(n, 1);
	free(pieces);
	assert_int_equal(simg_split(&s, whole - 1, true, &pieces, &n, &d), 0);
	assert_int_equal(n, 2);
	free(pieces);
	simg_release(&s);

	/* an image of no range: one file, one DONT_CARE chunk */
	assert_int_equal(simg_plan(&(struct simg_image){ .fd = fd, .name = "img" }, SIZE, BS, NULL,
				   0, &s, &d),
			 0);
	assert_int_equal(simg_split(&s, 0, false, &pieces, &n, &d), 0);
	assert_int_equal(n, 1);
	int out = write_piece(&s, &pieces[0], fd, false);
	assert_int_equal(file_size(out), SIMG_FILE_HEADER_SIZE + SIMG_CHUNK_HEADER_SIZE);
	assert_int_equal(read_back(out, back, &d), 0);
	close(out);
	free(pieces);
	simg_release(&s);
	close(fd);
	diag_release(&d);
	free(img);
	free(back);
	free(all);
}

static void test_simg_sizes(void **state)
{
	(void)state;
	struct simg s;
	struct diag d;
	int fd = memfile(SIZE + 512);

	diag_init(&d);
	assert_int_equal(simg_plan(&(struct simg_image){ .fd = fd, .name = "odd.img" }, SIZE + 512,
				   BS, NULL, 0, &s, &d),
			 -EINVAL);
	assert_true(diag_has(&d, "odd.img: its 262656 bytes are not a whole number of 4096-byte"));
	assert_int_equal(simg_plan(&(struct simg_image){ .fd = fd, .name = "odd.img" }, SIZE + 512,
				   512, NULL, 0, &s, &d),
			 0);
	assert_int_equal(s.blocks, BLOCKS * 8 + 1);
	simg_release(&s);
	assert_null(simg_block_size_problem(512));
	assert_null(simg_block_size_problem(64u << 20));
	assert_non_null(simg_block_size_problem(1000));
	assert_non_null(simg_block_size_problem(0));
	assert_non_null(simg_block_size_problem(128u << 20));
	close(fd);
	diag_release(&d);
}

/* A sparse file of @n bytes at @p; simg_read() of it must fail with @text in its one line. */
static void refused(const uint8_t *p, size_t n, const char *text)
{
	int fd = memfile(0);
	struct simg s;
	struct diag d;

	assert_int_equal(pwrite(fd, p, n, 0), (ssize_t)n);
	diag_init(&d);
	assert_int_equal(simg_read(fd, n, "bad.simg", &s, &d), -EINVAL);
	if (!diag_has(&d, text)) {
		diag_print(&d, stderr, "test");
		fail_msg("expected: %s", text);
	}
	assert_int_equal(d.errors, 1);
	diag_release(&d);
	close(fd);
}

static size_t header(uint8_t *p, uint32_t bs, uint32_t blocks, uint32_t chunks)
{
	simg_put_file_header(p, &(struct simg_file_header){
					.magic = SIMG_MAGIC,
					.major_version = 1,
					.file_hdr_sz = 28,
					.chunk_hdr_sz = 12,
					.blk_sz = bs,
					.total_blks = blocks,
					.total_chunks = chunks,
				});
	return SIMG_FILE_HEADER_SIZE;
}

static size_t chunk(uint8_t *p, uint16_t type, uint32_t blocks, uint32_t total)
{
	simg_put_chunk_header(p, &(struct simg_chunk_header){ .chunk_type = type,
							      .chunk_sz = blocks,
							      .total_sz = total });
	return SIMG_CHUNK_HEADER_SIZE;
}

static void test_simg_refused(void **state)
{
	(void)state;
	static uint8_t b[64 + 3 * 512];
	size_t n;

	n = header(b, 512, 2, 1);
	n += chunk(b + n, SIMG_CHUNK_RAW, 3, 12 + 3 * 512);
	refused(b, n + 3 * 512, "chunk 1 of 1: blocks 0 to 2, past the 2 blocks");
	n = header(b, 512, 4, 1);
	n += chunk(b + n, SIMG_CHUNK_DONT_CARE, 2, 12);
	refused(b, n, "its chunks (1) stand for 2 blocks, the header declares 4");
	n = header(b, 512, 4, 2);
	n += chunk(b + n, SIMG_CHUNK_DONT_CARE, 4, 12);
	refused(b, n, "the file ends after chunk 1 of the 2");
	n = header(b, 512, 4, 1);
	n += chunk(b + n, SIMG_CHUNK_FILL, 4, 12);
	refused(b, n, "a FILL chunk of 4 blocks has total_sz 12, not 16");
	n = header(b, 512, 4, 1);
	n += chunk(b + n, 0xcac5, 4, 12);
	refused(b, n, "unknown chunk type 0xcac5");
	n = header(b, 512, 4, 1);
	n += chunk(b + n, SIMG_CHUNK_CRC32, 4, 16);
	refused(b, n + 4, "a CRC32 chunk of 4 blocks, not 0");
	n = header(b, 512, 4, 1);
	n += chunk(b + n, SIMG_CHUNK_RAW, 4, 12 + 4 * 512);
	refused(b, n + 100, "chunk 1 of 1: the file ends inside its data");
	n = header(b, 512, 4, 1);
	n += chunk(b + n, SIMG_CHUNK_DONT_CARE, 4, 12);
	refused(b, n + 3, "3 bytes after chunk 1");
	n = header(b, 1001, 4, 0);
	refused(b, n, "block size 1001 is not a multiple of 4");
	n = header(b, 512, 4, 0);
	put_le16(b + 4, 2);
	refused(b, n, "version 2.0");
	n = header(b, 512, 0xffffffffu, 2);
	n += chunk(b + n, SIMG_CHUNK_DONT_CARE, 0xffffffffu, 12);
	n += chunk(b + n, SIMG_CHUNK_DONT_CARE, 0xffffffffu, 12);
	refused(b, n, "chunk 2 of 2: blocks 4294967295 to 8589934589, past");
	refused(b, 10, "ends inside its header");
}

/* The file of one pass (simg_plan_write()) is that of simg_plan() + simg_write(), byte
 * for byte: with and without a CRC32 chunk, blocks of 512 and 4096 bytes (RAW chunks cut
 * over the read buffer's end: the first range is 1 MiB + 3 blocks of random bytes), no
 * range at all; and it refuses a digest it could not give. */
static void same_as_planned(int fd, uint64_t size, uint32_t bs, const struct simg_range *r,
			    size_t n, bool crc)
{
	struct simg_piece *pieces;
	size_t n_pieces;
	struct simg s;
	struct diag d;

	diag_init(&d);
	assert_int_equal(simg_plan(&(struct simg_image){ .fd = fd, .name = "img" }, size, bs, r, n,
				   &s, &d),
			 0);
	assert_int_equal(simg_split(&s, 0, crc, &pieces, &n_pieces, &d), 0);
	int planned = memfile(0), once = memfile(0);
	struct simg_write w = { .image = { .fd = fd, .name = "img" },
				.out = planned,
				.out_name = "out",
				.crc = crc };
	assert_int_equal(simg_write(&s, &pieces[0], &w, &d), 0);
	w.out = once;
	assert_int_equal(simg_plan_write(size, bs, r, n, &w, &d), 0);
	uint64_t len = file_size(planned);
	assert_int_equal(file_size(once), len);
	uint8_t *a = malloc(len), *b = malloc(len);
	assert_int_equal(pread(planned, a, len, 0), (ssize_t)len);
	assert_int_equal(pread(once, b, len, 0), (ssize_t)len);
	assert_memory_equal(a, b, len);
	free(a);
	free(b);
	close(planned);
	close(once);
	free(pieces);
	simg_release(&s);
	diag_release(&d);
}

static void test_simg_one_pass(void **state)
{
	(void)state;
	uint64_t size = (4u << 20);
	uint8_t *img = malloc(size);
	int fd = memfile(size);
	const struct simg_range r[] = {
		{ 3u << 20, size },         /* zeros, a fill, random bytes to the end */
		{ 0, (1u << 20) + 3 * BS }, /* random bytes over the read buffer's end */
		{ (2u << 20) + 100, (2u << 20) + 200 },
	};

	memset(img, 0, size);
	srand(11);
	for (uint64_t i = 0; i < (1u << 20) + 3 * BS; i++)
		img[i] = (uint8_t)rand();
	for (uint64_t i = (2u << 20); i < (2u << 20) + 2 * BS; i += 4)
		put_le32(img + i, 0x01020304u);
	for (uint64_t i = (3u << 20) + 8 * BS; i < (3u << 20) + 12 * BS; i += 4)
		put_le32(img + i, 0xdeadbeefu);
	for (uint64_t i = (3u << 20) + 40 * BS; i < size; i++)
		img[i] = (uint8_t)rand();
	assert_int_equal(pwrite(fd, img, size, 0), (ssize_t)size);
	for (int crc = 0; crc < 2; crc++) {
		same_as_planned(fd, size, BS, r, 3, crc);
		same_as_planned(fd, size, 512, r, 3, crc);
		same_as_planned(fd, size, BS, r + 2, 1, crc);
		same_as_planned(fd, size, BS, NULL, 0, crc);
	}
	struct diag d;
	diag_init(&d);
	struct simg_write w = { .image = { .fd = fd, .name = "img" },
				.out = memfile(0),
				.out_name = "out",
				.sink = (void (*)(void *, const void *, size_t))abort };
	assert_int_equal(simg_plan_write(size, BS, r, 3, &w, &d), -EINVAL);
	close(w.out);
	diag_release(&d);
	close(fd);
	free(img);
}

/* simg_image.locate: bytes [LENT_AT, LENT_AT + LENT_LEN) of the image are in another file,
 * at LENT_OFF, and zeros in the image file itself. */
#define LENT_AT ((1u << 20) + 1000)
#define LENT_LEN ((1u << 20) + 5000)
#define LENT_OFF 777u
struct lent {
	int fd;
};
static void locate_lent(void *ctx, uint64_t at, uint64_t len, struct simg_source *src)
{
	const struct lent *l = ctx;

	if (at >= LENT_AT + LENT_LEN)
		return;
	if (at < LENT_AT) {
		src->len = LENT_AT - at < len ? LENT_AT - at : len;
		return;
	}
	uint64_t left = LENT_AT + LENT_LEN - at;
	*src = (struct simg_source){ .fd = l->fd,
				     .off = LENT_OFF + (at - LENT_AT),
				     .len = left < len ? left : len,
				     .name = "lent" };
}

/* The sparse file of @im, planned then written (@planned) or in one pass. */
static uint8_t *sparse_of(const struct simg_image *im, uint64_t size, uint32_t bs,
			  const struct simg_range *r, size_t n, bool planned, uint64_t *len)
{
	int out = memfile(0);
	struct diag d;
	struct simg_write w = { .image = *im, .out = out, .out_name = "out", .crc = true };

	diag_init(&d);
	if (planned) {
		struct simg s;
		struct simg_piece *pieces;
		size_t n_pieces;
		assert_int_equal(simg_plan(im, size, bs, r, n, &s, &d), 0);
		assert_int_equal(simg_split(&s, 0, true, &pieces, &n_pieces, &d), 0);
		assert_int_equal(simg_write(&s, &pieces[0], &w, &d), 0);
		free(pieces);
		simg_release(&s);
	} else {
		assert_int_equal(simg_plan_write(size, bs, r, n, &w, &d), 0);
	}
	*len = file_size(out);
	uint8_t *p = malloc(*len);
	assert_int_equal(pread(out, p, *len, 0), (ssize_t)*len);
	close(out);
	diag_release(&d);
	return p;
}

/* An image read partly from another file gives the same sparse file as the whole image, for
 * blocks that fall across the border of the two, planned or in one pass; a file that ends
 * too soon is an error naming it. */
static void test_simg_located(void **state)
{
	(void)state;
	uint64_t size = 4u << 20;
	uint8_t *img = malloc(size);
	int whole = memfile(size), part = memfile(size), other = memfile(0);
	const struct simg_range r[] = { { 0, size } };

	srand(5);
	for (uint64_t i = 0; i < size; i++)
		img[i] = i >= (3u << 20) ? 0 : (uint8_t)rand();
	assert_int_equal(pwrite(whole, img, size, 0), (ssize_t)size);
	assert_int_equal(pwrite(part, img, LENT_AT, 0), (ssize_t)LENT_AT);
	assert_int_equal(pwrite(part, img + LENT_AT + LENT_LEN, size - LENT_AT - LENT_LEN,
				LENT_AT + LENT_LEN),
			 (ssize_t)(size - LENT_AT - LENT_LEN));
	assert_int_equal(pwrite(other, img + LENT_AT, LENT_LEN, LENT_OFF), (ssize_t)LENT_LEN);
	struct lent l = { other };
	struct simg_image a = { .fd = whole, .name = "whole" };
	struct simg_image b = { .fd = part,
				.name = "part",
				.locate = locate_lent,
				.locate_ctx = &l };
	for (int planned = 0; planned < 2; planned++) {
		for (uint32_t bs = 512; bs <= 65536; bs *= 128) {
			uint64_t la, lb;
			uint8_t *x = sparse_of(&a, size, bs, r, 1, planned, &la);
			uint8_t *y = sparse_of(&b, size, bs, r, 1, planned, &lb);
			assert_int_equal(la, lb);
			assert_memory_equal(x, y, la);
			free(x);
			free(y);
		}
	}
	assert_int_equal(ftruncate(other, LENT_OFF + 100), 0);
	struct diag d;
	diag_init(&d);
	struct simg s;
	assert_int_equal(simg_plan(&b, size, BS, r, 1, &s, &d), -EIO);
	assert_non_null(strstr(d.msgs[0].text, "lent: reading it: it ends before its byte 877"));
	diag_release(&d);
	close(whole);
	close(part);
	close(other);
	free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_simg_one_file), cmocka_unit_test(test_simg_split),
		cmocka_unit_test(test_simg_sizes),    cmocka_unit_test(test_simg_refused),
		cmocka_unit_test(test_simg_one_pass), cmocka_unit_test(test_simg_located),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
