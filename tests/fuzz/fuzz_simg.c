/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: any bytes as an Android sparse image (common/simg): the header and every
 * chunk read and checked; an image that passes (of at most 4 MiB) is written out, then
 * written again as sparse files split under a small size, read back and written out
 * again: the same bytes must come back. Built with libFuzzer by `make fuzz`; replay.c gives
 * it a main() that runs the saved corpus (`make unit`).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/simg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_IMAGE (4u << 20)

static int memfile(const uint8_t *data, size_t size, uint64_t length)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);

	if (fd < 0)
		abort();
	if ((size && pwrite(fd, data, size, 0) != (ssize_t)size) ||
	    ftruncate(fd, (off_t)length) < 0)
		abort();
	return fd;
}

/* The image of the sparse file @fd into a new memory file of @s's size, or -1. */
static int expand(int fd, struct simg *s, struct diag *d)
{
	off_t end = lseek(fd, 0, SEEK_END);
	int out = -1;

	if (end < 0 || simg_read(fd, (uint64_t)end, "fuzz.simg", s, d) < 0)
		return -1;
	if (s->image_size <= MAX_IMAGE) {
		out = memfile(NULL, 0, s->image_size);
		if (simg_expand(s, fd, "fuzz.simg", out, d) < 0) {
			close(out);
			out = -1;
		}
	}
	return out;
}

/* Every range of @img (@s's image) written as sparse files of at most 64 blocks and read
 * back: each piece's image must agree with @img wherever it is not zero. */
static void round_trip(int img, const struct simg *s, struct diag *d)
{
	struct simg_range all = { 0, s->image_size };
	struct simg_piece *pieces = NULL;
	struct simg plan;
	size_t n = 0;
	uint64_t max = 64ull * s->block_size + 100;

	if (simg_plan(&(struct simg_image){ .fd = img, .name = "img" }, s->image_size,
		      s->block_size, &all, 1, &plan, d) < 0)
		abort(); /* a readable image is always planned */
	if (simg_split(&plan, max, true, &pieces, &n, d) < 0)
		abort();
	uint8_t *a = malloc(s->image_size ? s->image_size : 1);
	uint8_t *b = malloc(s->image_size ? s->image_size : 1);
	if (!a || !b || pread(img, a, s->image_size, 0) != (ssize_t)s->image_size)
		abort();
	for (size_t i = 0; i < n; i++) {
		int out = memfile(NULL, 0, 0);
		struct simg_write w = { .image = { .fd = img, .name = "img" },
					.out = out,
					.out_name = "out",
					.crc = true };
		struct simg back;
		if (simg_write(&plan, &pieces[i], &w, d) < 0)
			abort();
		if (lseek(out, 0, SEEK_END) > (off_t)max)
			abort();
		int again = expand(out, &back, d);
		if (again < 0 || pread(again, b, s->image_size, 0) != (ssize_t)s->image_size)
			abort();
		for (uint64_t k = 0; k < s->image_size; k++)
			if (b[k] && b[k] != a[k])
				abort();
		simg_release(&back);
		close(again);
		close(out);
	}
	free(a);
	free(b);
	free(pieces);
	simg_release(&plan);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfile(data, size, size);
	struct simg s;
	struct diag d;

	diag_init(&d);
	int img = expand(fd, &s, &d);
	if (img >= 0 && s.blocks <= 256 && s.image_size <= (1u << 20))
		round_trip(img, &s, &d);
	if (img >= 0)
		close(img);
	simg_release(&s);
	diag_release(&d);
	close(fd);
	return 0;
}
