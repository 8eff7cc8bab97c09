/* SPDX-License-Identifier: MIT */
/*
 * fuzz_pack: an image in the packed form tests/fuzz/fuzz_image.c reads (its comment says
 * the format): the image's size, then each run of sectors that are not all zeros. A FAT32
 * volume of 33 MiB with a few files packs into a few KiB, a seed the fuzzer can take whole.
 *
 *   fuzz_pack IMG > SEED
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SECTOR 512u
#define RUN_MAX 127u /* sectors in one record: its length is a u16 */

static void put_le(FILE *out, uint32_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		fputc((int)(v >> (8 * i) & 0xFF), out);
}

static int zeros(const uint8_t *s)
{
	for (unsigned i = 0; i < SECTOR; i++)
		if (s[i])
			return 0;
	return 1;
}

int main(int argc, char **argv)
{
	FILE *in = argc == 2 ? fopen(argv[1], "rb") : NULL;
	uint8_t *img = NULL;
	size_t n = 0, sectors;

	if (!in) {
		fprintf(stderr,
			argc == 2 ? "fuzz_pack: cannot open %s\n" : "usage: fuzz_pack IMG\n",
			argv[1]);
		return 2;
	}
	for (size_t cap = 0, got = 1; got;) {
		if (n == cap && !(img = realloc(img, cap = cap ? 2 * cap : 1u << 20))) {
			fprintf(stderr, "fuzz_pack: out of memory\n");
			return 1;
		}
		n += got = fread(img + n, 1, cap - n, in);
	}
	fclose(in);
	sectors = (n + SECTOR - 1) / SECTOR;
	img = realloc(img, sectors * SECTOR + 1); /* the last sector filled up with zeros */
	if (!img || sectors > UINT32_MAX) {
		fprintf(stderr, "fuzz_pack: %s: too large\n", argv[1]);
		return 1;
	}
	memset(img + n, 0, sectors * SECTOR - n);
	fwrite("sdimgpk1", 1, 8, stdout);
	put_le(stdout, (uint32_t)sectors, 4);
	for (size_t s = 0; s < sectors;) {
		size_t run = 0;
		if (zeros(img + s * SECTOR)) {
			s++;
			continue;
		}
		while (s + run < sectors && run < RUN_MAX && !zeros(img + (s + run) * SECTOR))
			run++;
		put_le(stdout, (uint32_t)s, 4);
		put_le(stdout, (uint32_t)(run * SECTOR), 2);
		fwrite(img + s * SECTOR, 1, run * SECTOR, stdout);
		s += run;
	}
	free(img);
	return fflush(stdout) == 0 ? 0 : 1;
}
