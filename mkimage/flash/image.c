/* SPDX-License-Identifier: MIT */
/*
 * image: the image a run writes, and what of it must reach every card (flash_priv.h).
 * Everything is checked before any card is touched: the bmap's own checksum and every
 * mapped range of the image against its checksum (bmaptool checks a range only while it
 * writes it, after the earlier ranges reached the card).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/array.h"
#include "common/bmap.h"
#include "common/extent.h"
#include "common/path.h"
#include "common/sha256.h"
#include "mkimage/flash/flash_priv.h"

#define CHUNK (1u << 20)
#define BMAP_MAX_BYTES (64u << 20)

/* ------------------------------------------------------------------ the ranges */

static int add_range(struct flash_image *im, size_t *cap, uint64_t start, uint64_t end)
{
	if (array_grow((void **)&im->ranges, cap, im->n_ranges + 1, sizeof(*im->ranges)) < 0)
		return -ENOMEM;
	im->ranges[im->n_ranges++] = (struct flash_range){ .start = start, .end = end };
	im->mapped_bytes += end - start;
	return 0;
}

static int ranges_from_bmap(struct flash_image *im, const struct bmap *b, struct diag *d)
{
	size_t cap = 0;

	if (b->image_size != im->size)
		return diag_error(d,
				  "%s: the bmap describes an image of %llu bytes, but the image "
				  "has %llu",
				  im->bmap_path, (unsigned long long)b->image_size,
				  (unsigned long long)im->size);
	for (size_t i = 0; i < b->n; i++) {
		uint64_t start = b->ranges[i].first * BMAP_BLOCK_SIZE;
		uint64_t end = (b->ranges[i].last + 1) * BMAP_BLOCK_SIZE;
		if (add_range(im, &cap, start, end < im->size ? end : im->size) < 0)
			return -ENOMEM;
		memcpy(im->ranges[im->n_ranges - 1].sha256, b->ranges[i].sha256, 32);
	}
	return 0;
}

/* Without a bmap: the data extents of the image, on the 4 KiB grid. */
static int ranges_from_extents(struct flash_image *im, struct diag *d)
{
	size_t cap = 0;
	struct extent_walk w;
	uint64_t pos = 0, start, end;

	extent_start(&w, im->fd, 0, im->size);
	while (extent_next(&w, &start, &end)) {
		start = start / BMAP_BLOCK_SIZE * BMAP_BLOCK_SIZE;
		end = (end + BMAP_BLOCK_SIZE - 1) / BMAP_BLOCK_SIZE * BMAP_BLOCK_SIZE;
		if (end > im->size)
			end = im->size;
		if (start < pos)
			start = pos;
		if (start >= end) /* within the block the last extent ended in */
			continue;
		if (im->n_ranges && im->ranges[im->n_ranges - 1].end == start) {
			im->mapped_bytes += end - start;
			im->ranges[im->n_ranges - 1].end = end;
		} else if (add_range(im, &cap, start, end) < 0) {
			return -ENOMEM;
		}
		pos = end;
	}
	return w.err ? diag_errno(d, w.err, "%s: %s", im->path, strerror(-w.err)) : 0;
}

/* An Android sparse image without a bmap: its RAW and FILL chunks, widened to the 4 KiB
 * grid (a block size under 4 KiB: the DONT_CARE bytes around are then written, as zeros). */
static int ranges_from_sparse(struct flash_image *im)
{
	size_t cap = 0;

	for (size_t i = 0; i < im->n_defined; i++) {
		uint64_t start = im->defined[i].start / BMAP_BLOCK_SIZE * BMAP_BLOCK_SIZE;
		uint64_t end = (im->defined[i].end + BMAP_BLOCK_SIZE - 1) / BMAP_BLOCK_SIZE *
			       BMAP_BLOCK_SIZE;
		if (end > im->size)
			end = im->size;
		if (im->n_ranges && im->ranges[im->n_ranges - 1].end >= start) {
			struct flash_range *last = &im->ranges[im->n_ranges - 1];
			if (end > last->end) {
				im->mapped_bytes += end - last->end;
				last->end = end;
			}
		} else if (add_range(im, &cap, start, end) < 0) {
			return -ENOMEM;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ the checks */

/* Hashes every range: against the bmap's checksum, or to record it (no bmap). */
static int check_ranges(struct flash_image *im, bool expected, struct diag *d)
{
	struct sha256 *all = NULL, *one = NULL;
	uint8_t *buf = malloc(CHUNK), sum[SHA256_LEN];
	int rc = buf ? sha256_new(&all, d) : -ENOMEM;

	if (rc == 0)
		rc = sha256_new(&one, d);
	for (size_t i = 0; rc == 0 && i < im->n_ranges; i++) {
		struct flash_range *r = &im->ranges[i];
		for (uint64_t pos = r->start; rc == 0 && pos < r->end;) {
			size_t n = r->end - pos < CHUNK ? (size_t)(r->end - pos) : CHUNK;
			ssize_t got = pread(im->fd, buf, n, (off_t)pos);
			if (got != (ssize_t)n) {
				rc = diag_error(d, "%s: reading it: %s", im->path,
						got < 0 ? strerror(errno)
							: "it is shorter than its bmap");
			} else {
				sha256_update(one, buf, n);
				sha256_update(all, buf, n);
			}
			pos += n;
		}
		if (rc == 0)
			rc = sha256_final(one, sum);
		if (rc == 0 && expected && memcmp(sum, r->sha256, 32) != 0)
			rc = diag_error(d,
					"%s: bytes %llu-%llu do not match their checksum in %s: "
					"the "
					"image or its bmap is damaged; no card was touched",
					im->path, (unsigned long long)r->start,
					(unsigned long long)r->end - 1, im->bmap_path);
		if (rc == 0 && !expected)
			memcpy(r->sha256, sum, 32);
	}
	if (rc == 0)
		rc = sha256_final(all, im->mapped_sha256);
	sha256_free(all);
	sha256_free(one);
	free(buf);
	return rc;
}

/* The bmap beside the image: IMAGE.bmap, or the name without its compression suffix
 * (@suffix_len bytes, 0: none). */
static char *find_bmap(const char *path, size_t suffix_len)
{
	char *name = NULL;

	if (asprintf(&name, "%s.bmap", path) >= 0 && access(name, F_OK) == 0)
		return name;
	free(name);
	name = NULL;
	size_t len = strlen(path);
	if (suffix_len && len > suffix_len &&
	    asprintf(&name, "%.*s.bmap", (int)(len - suffix_len), path) >= 0 &&
	    access(name, F_OK) == 0)
		return name;
	free(name);
	return NULL;
}

int flash_open_image_file(const char *path, struct diag *d)
{
	int fd = path_open_regular(path);

	/* ENXIO: open() of a socket, or of a device without its driver */
	if (fd == -ESPIPE || fd == -ENXIO)
		return diag_error(d,
				  "%s: not a regular file (a FIFO, a socket or a device): an "
				  "image and its bmap are read only from a file",
				  path);
	if (fd < 0)
		return diag_error(d, "%s: %s", path, strerror(-fd));
	return fd;
}

static int read_bmap(const char *path, struct bmap *b, struct diag *d)
{
	int fd = flash_open_image_file(path, d);
	char *text = NULL;
	size_t len = 0;
	int rc;

	if (fd < 0)
		return fd;
	rc = path_read_fd(fd, BMAP_MAX_BYTES, &text, &len);
	close(fd);
	if (rc == -EFBIG)
		return diag_error(d, "%s: not a block map (over 64 MiB)", path);
	if (rc < 0)
		return rc == -ENOMEM ? rc : diag_errno(d, rc, "%s: %s", path, strerror(-rc));
	rc = bmap_parse(text, len, path, b, d);
	free(text);
	return rc;
}

static int open_raw_or_unpack(struct flash_image *im, struct diag *d)
{
	struct stat st;
	int fd = flash_open_image_file(im->path, d);

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return diag_error(d, "%s: %s", im->path, strerror(errno));
	}
	return flash_image_unpack(im, fd, (uint64_t)st.st_size, d);
}

int flash_image_open(struct flash_image *im, const char *path, const char *bmap_path,
		     struct diag *d)
{
	struct bmap b = { 0 };
	int rc;

	*im = (struct flash_image){ .path = path, .fd = -1 };
	rc = open_raw_or_unpack(im, d);
	if (rc == 0 && im->size == 0)
		rc = diag_error(d, "%s: the image is empty", path);
	if (rc == 0) {
		im->bmap_path = bmap_path ? strdup(bmap_path) : find_bmap(path, im->suffix_len);
		if (bmap_path && !im->bmap_path)
			rc = -ENOMEM;
	}
	if (rc == 0 && im->bmap_path)
		rc = read_bmap(im->bmap_path, &b, d);
	if (rc == 0 && im->bmap_path)
		rc = ranges_from_bmap(im, &b, d);
	else if (rc == 0 && im->defined)
		rc = ranges_from_sparse(im);
	else if (rc == 0 && im->compression)
		rc = add_range(im, &(size_t){ 0 }, 0, im->size); /* nothing tells its holes */
	else if (rc == 0)
		rc = ranges_from_extents(im, d);
	if (rc == 0 && !im->bmap_path && !im->defined)
		diag_warning(d, "%s: no bmap found (%s.bmap): %s", path, path,
			     im->compression ? "the image is written whole"
					     : "its data extents are written, and its holes are "
					       "zeros on the cards unless --gaps says otherwise");
	if (rc == 0 && im->bmap_path && !im->mapped_bytes)
		diag_warning(d, "%s: nothing to write: its bmap %s maps no block", path,
			     im->bmap_path);
	if (rc == 0)
		rc = check_ranges(im, im->bmap_path != NULL, d);
	bmap_release(&b);
	if (rc == -ENOMEM)
		diag_error(d, "%s: out of memory", path);
	if (rc < 0)
		flash_image_close(im);
	return rc;
}

void flash_image_close(struct flash_image *im)
{
	if (im->fd >= 0)
		close(im->fd);
	free(im->ranges);
	free(im->bmap_path);
	free(im->defined);
	*im = (struct flash_image){ .fd = -1 };
}
