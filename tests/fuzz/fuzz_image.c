/*
 * Fuzz target: any bytes as a disk image, through what `sdimg inspect`, `ls` and `cat` do:
 * the partition table (libfdisk and our GPT checks), each partition's probe, the findings,
 * and for every FAT volume a bounded walk that reads every file. Built with libFuzzer by
 * `make fuzz`; replay.c gives it a main() that runs the saved corpus in `make check`.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mkimage/reader/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct walk {
	struct fat_vol *v;
	char path[512];
	unsigned budget; /* entries and reads left, never below 0: a hostile volume cannot run away */
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz-image", MFD_CLOEXEC);
	struct disk k;
	struct findings f = { 0 };
	struct diag d;

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	diag_init(&d);
	if (reader_read_disk(&k, "fuzz.img", fd, &d) == 0) {
		reader_compute_findings(&k, 4u << 20, &f);
		for (size_t i = 0; i < k.n_parts; i++)
			if (k.parts[i].content == CONTENT_FAT && !k.parts[i].content_error[0])
				walk_fat(fd, &k.parts[i], &d);
		reader_release_disk(&k);
	}
	reader_release_findings(&f);
	diag_release(&d);
	close(fd);
	return 0;
}
