/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: any bytes as a disk image, through what `sdimg inspect`, `ls` and `cat` do:
 * the partition table (libfdisk and our GPT checks), each partition's probe, the findings,
 * and for every FAT and exFAT volume a bounded walk that reads every file. Built with libFuzzer by
 * `make fuzz`; replay.c gives it a main() that runs the saved corpus in `make check`.
 *
 * An input is the image itself, or packed (tests/tools/fuzz_pack): PACK_MAGIC, the image's
 * size in 512-byte sectors (u32, little-endian, at most PACK_SECTORS_MAX), then records of a
 * sector number (u32), a length (u16) and that many bytes, each written there (cut at the
 * image's end); the rest reads as zeros. A FAT16 or FAT32 volume (at least 4085 and 65525
 * clusters: megabytes of mostly free space) so fits in a few KiB, under the -max_len that
 * `make fuzz` gives, and the fuzzer changes its boot sector, FATs and directories directly.
 * The seeds (tests/fuzz/image-seeds.sh) are images our build writes, most of them packed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mkimage/reader/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PACK_MAGIC "sdimgpk1"
#define PACK_MAGIC_LEN 8
#define PACK_SECTORS_MAX (128u << 11) /* 128 MiB: room for a FAT32 volume, a hole in memory */

struct walk {
	struct fat_vol *v;
	char path[512];
	unsigned
		budget; /* entries and reads left, never below 0: a hostile volume cannot run away */
	struct diag *d;
};

static int sink(void *ctx, const void *buf, size_t len)
{
	(void)ctx;
	(void)buf;
	(void)len;
	return 0;
}

static int visit(void *ctx, const struct fat_dirent *e)
{
	struct walk *w = ctx;
	size_t len = strlen(w->path);

	/* spent: stop this listing and, through the result checked below, every one above */
	if (!w->budget)
		return 1;
	w->budget--;
	if (len + strlen(e->name) + 2 > sizeof(w->path))
		return 0;
	strcat(w->path, "/");
	strcat(w->path, e->name);
	if (e->attrs & FAT_ATTR_DIR)
		fat_vol_list(w->v, w->path, visit, w, w->d);
	else
		fat_vol_read(w->v, w->path, sink, NULL, w->d);
	w->path[len] = '\0';
	return w->budget ? 0 : 1;
}

static void walk_fat(int fd, const struct disk_part *p, struct diag *d)
{
	struct walk w = { .budget = 200, .d = d };

	if (fat_vol_open(fd, p->start, p->size, &w.v, d) == 0)
		fat_vol_list(w.v, "/", visit, &w, d);
	fat_vol_close(w.v);
}

struct exwalk {
	struct exfat_vol *v;
	char path[512];
	unsigned budget;
	struct diag *d;
};

static int exvisit(void *ctx, const struct exfat_dirent *e)
{
	struct exwalk *w = ctx;
	size_t len = strlen(w->path);

	if (!w->budget)
		return 1;
	w->budget--;
	if (len + strlen(e->name) + 2 > sizeof(w->path))
		return 0;
	strcat(w->path, "/");
	strcat(w->path, e->name);
	if (e->attrs & EXFAT_ATTR_DIRECTORY)
		exfat_vol_list(w->v, w->path, exvisit, w, w->d);
	else
		exfat_vol_read(w->v, w->path, sink, NULL, w->d);
	w->path[len] = '\0';
	return w->budget ? 0 : 1;
}

static void walk_exfat(int fd, const struct disk_part *p, struct diag *d)
{
	struct exwalk w = { .budget = 200, .d = d };

	if (exfat_vol_open(fd, p->start, p->size, &w.v, d) == 0)
		exfat_vol_list(w.v, "/", exvisit, &w, d);
	exfat_vol_close(w.v);
}

static uint32_t le(const uint8_t *p, int bytes)
{
	uint32_t v = 0;

	for (int i = bytes - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* The packed input @data (after its magic) unpacked into @fd; 0 or -1. */
static int unpack(int fd, const uint8_t *data, size_t size)
{
	uint64_t end;

	if (size < 4)
		return -1;
	end = (uint64_t)(le(data, 4) < PACK_SECTORS_MAX ? le(data, 4) : PACK_SECTORS_MAX) * 512;
	if (ftruncate(fd, (off_t)end) < 0)
		return -1;
	for (size_t i = 4; i + 6 <= size;) {
		uint64_t at = (uint64_t)le(data + i, 4) * 512;
		size_t len = le(data + i + 4, 2);
		i += 6;
		if (len > size - i)
			len = size - i;
		if (at < end &&
		    pwrite(fd, data + i, at + len > end ? (size_t)(end - at) : len, (off_t)at) < 0)
			return -1;
		i += len;
	}
	return 0;
}

/* @data as the image in @fd: itself, or unpacked when it starts with PACK_MAGIC. */
static int load(int fd, const uint8_t *data, size_t size)
{
	if (size >= PACK_MAGIC_LEN && !memcmp(data, PACK_MAGIC, PACK_MAGIC_LEN))
		return unpack(fd, data + PACK_MAGIC_LEN, size - PACK_MAGIC_LEN);
	return write(fd, data, size) == (ssize_t)size ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz-image", MFD_CLOEXEC);
	struct disk k;
	struct findings f = { 0 };
	struct diag d;

	if (fd < 0)
		return 0;
	if (load(fd, data, size) < 0) {
		close(fd);
		return 0;
	}
	diag_init(&d);
	if (reader_read_disk(&k, "fuzz.img", fd, &d) == 0) {
		reader_compute_findings(&k, 4u << 20, &f);
		for (size_t i = 0; i < k.n_parts; i++)
			if (k.parts[i].content == CONTENT_FAT && !k.parts[i].content_error[0])
				walk_fat(fd, &k.parts[i], &d);
			else if (k.parts[i].content == CONTENT_EXFAT &&
				 !k.parts[i].content_error[0])
				walk_exfat(fd, &k.parts[i], &d);
		reader_release_disk(&k);
	}
	reader_release_findings(&f);
	diag_release(&d);
	close(fd);
	return 0;
}
