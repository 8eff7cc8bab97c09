/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: any bytes as an exFAT volume, through exfat/'s reader: exfat_vol_open() (boot
 * region, checksum sector, the root's bitmap, up-case table, label and GUID entries), the
 * free-cluster count, a walk of the tree (exfat_vol_walk()) and, with a budget, a listing and a
 * read of every file and folder by path. Each input runs twice: as it is, and with its boot
 * checksum sector made to agree with the boot region, so that the fuzzer's changes to the
 * boot sector's fields reach past the checksum. Built with libFuzzer by `make fuzz`;
 * replay.c gives it a main() that runs the saved corpus in `make unit`.
 *
 * An input is the volume itself, or packed as tests/fuzz/fuzz_image.c describes (PACK_MAGIC,
 * the size in sectors, then records of sector, length and bytes): a 4 MiB volume of
 * mkfs.exfat fits in a few KiB. The seeds (tests/fuzz/exfat-seeds.sh) are such volumes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/bytes.h"
#include "exfat/exfat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PACK_MAGIC "sdimgpk1"
#define PACK_MAGIC_LEN 8
#define PACK_SECTORS_MAX (64u << 11) /* 64 MiB, a hole in memory */

struct walk {
	struct exfat_vol *v;
	char path[512];
	unsigned budget; /* entries and reads left: a hostile volume cannot run away */
	struct diag *d;
};

static int sink(void *ctx, const void *buf, size_t len)
{
	(void)ctx;
	(void)buf;
	(void)len;
	return 0;
}

static int visit(void *ctx, const struct exfat_dirent *e)
{
	struct walk *w = ctx;
	size_t len = strlen(w->path);

	if (!w->budget)
		return 1;
	w->budget--;
	if (len + strlen(e->name) + 2 > sizeof(w->path))
		return 0;
	strcat(w->path, "/");
	strcat(w->path, e->name);
	if (e->attrs & EXFAT_ATTR_DIRECTORY)
		exfat_vol_list(w->v, w->path, visit, w, w->d);
	else
		exfat_vol_read(w->v, w->path, sink, NULL, w->d);
	w->path[len] = '\0';
	return w->budget ? 0 : 1;
}

static int count(void *ctx, const struct exfat_dirent *e)
{
	(void)e;
	return ++*(unsigned *)ctx > 5000 ? 1 : 0;
}

static void run(int fd, uint64_t size)
{
	static const struct exfat_walk_fns fns = { .entry = count };
	struct walk w = { .budget = 200 };
	struct diag d;
	uint32_t free_clusters;
	unsigned seen = 0;

	diag_init(&d);
	w.d = &d;
	if (exfat_vol_open(fd, 0, size, &w.v, &d) == 0) {
		exfat_vol_free_clusters(w.v, &free_clusters, &d);
		exfat_vol_walk(w.v, "/", 64, &fns, &seen, &d);
		exfat_vol_list(w.v, "/", visit, &w, &d);
	}
	exfat_vol_close(w.v);
	diag_release(&d);
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

/* Writes the checksum of the boot region's first 11 sectors over its 12th (§3.4); whether
 * that changed anything. */
static int fix_checksum(int fd)
{
	uint8_t r[12 * EXFAT_SECTOR], sum[EXFAT_SECTOR];
	uint32_t want;

	if (pread(fd, r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return 0;
	want = exfat_boot_checksum(r);
	for (unsigned k = 0; k < EXFAT_SECTOR; k += 4)
		put_le32(sum + k, want);
	if (!memcmp(sum, r + 11 * EXFAT_SECTOR, EXFAT_SECTOR))
		return 0;
	return pwrite(fd, sum, sizeof(sum), 11 * EXFAT_SECTOR) == (ssize_t)sizeof(sum);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz-exfat", MFD_CLOEXEC);
	off_t end;
	int ok;

	if (fd < 0)
		return 0;
	if (size >= PACK_MAGIC_LEN && !memcmp(data, PACK_MAGIC, PACK_MAGIC_LEN))
		ok = unpack(fd, data + PACK_MAGIC_LEN, size - PACK_MAGIC_LEN) == 0;
	else
		ok = write(fd, data, size) == (ssize_t)size;
	end = lseek(fd, 0, SEEK_END);
	if (ok && end > 0) {
		run(fd, (uint64_t)end);
		if (fix_checksum(fd))
			run(fd, (uint64_t)end);
	}
	close(fd);
	return 0;
}
