/*
 * image: the image a run writes, and what of it must reach every card (flash_priv.h).
 * Everything is checked before any card is touched: the bmap's own checksum and every
 * mapped range of the image against its checksum (bmaptool checks a range only while it
 * writes it, after the earlier ranges reached the card).
 */
#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "common/array.h"
#include "common/bmap.h"
#include "common/sha256.h"
#include "mkimage/flash/flash_priv.h"

#define CHUNK (1u << 20)
#define ZERO_CHECK 65536u       /* the decompressed copy keeps all-zero pieces as holes */
#define BMAP_MAX_BYTES (64u << 20)

/* ------------------------------------------------------------------ decompression */

struct unpack {
	const char *path;
	int out;                /* the decompressed copy */
	uint64_t pos;
	struct diag *d;
};

static int put_nonzero(struct unpack *u, const uint8_t *p, size_t len)
{
	while (len) {
		size_t piece = len < ZERO_CHECK ? len : ZERO_CHECK;
		if (p[0] || memcmp(p, p + 1, piece - 1)) {
			ssize_t w = pwrite(u->out, p, piece, (off_t)u->pos);
			if (w != (ssize_t)piece)
				return diag_error(u->d, "%s: writing its decompressed copy: %s", u->path,
						  w < 0 ? strerror(errno) : "short write");
		}
		u->pos += piece;
		p += piece;
		len -= piece;
	}
	return 0;
}

static ssize_t read_some(int fd, uint8_t *buf, size_t n)
{
	ssize_t r;

	do
		r = read(fd, buf, n);
	while (r < 0 && errno == EINTR);
	return r;
}

static int unpack_zstd(struct unpack *u, int in, uint8_t *ibuf, uint8_t *obuf)
{
	ZSTD_DStream *z = ZSTD_createDStream();
	size_t ret = 1;
	ssize_t n;
	int rc = z ? 0 : -ENOMEM;

	while (rc == 0 && (n = read_some(in, ibuf, CHUNK)) > 0) {
		ZSTD_inBuffer ib = { ibuf, (size_t)n, 0 };
		while (rc == 0 && ib.pos < ib.size) {
			ZSTD_outBuffer ob = { obuf, CHUNK, 0 };
			ret = ZSTD_decompressStream(z, &ob, &ib);
			if (ZSTD_isError(ret))
				rc = diag_error(u->d, "%s: not a valid zstd stream: %s", u->path,
						ZSTD_getErrorName(ret));
			else
				rc = put_nonzero(u, obuf, ob.pos);
		}
	}
	if (rc == 0 && n < 0)
		rc = diag_error(u->d, "%s: %s", u->path, strerror(errno));
	if (rc == 0 && ret != 0)
		rc = diag_error(u->d, "%s: the zstd stream is cut short", u->path);
	ZSTD_freeDStream(z);
	return rc;
}

static int unpack_xz(struct unpack *u, int in, uint8_t *ibuf, uint8_t *obuf)
{
	lzma_stream z = LZMA_STREAM_INIT;
	lzma_ret r = lzma_stream_decoder(&z, UINT64_MAX, LZMA_CONCATENATED);
	lzma_action action = LZMA_RUN;
	int rc = r == LZMA_OK ? 0 : -ENOMEM;

	while (rc == 0 && r != LZMA_STREAM_END) {
		if (z.avail_in == 0 && action == LZMA_RUN) {
			ssize_t n = read_some(in, ibuf, CHUNK);
			if (n < 0)
				rc = diag_error(u->d, "%s: %s", u->path, strerror(errno));
			z.next_in = ibuf;
			z.avail_in = n > 0 ? (size_t)n : 0;
			action = n > 0 ? LZMA_RUN : LZMA_FINISH;
		}
		z.next_out = obuf;
		z.avail_out = CHUNK;
		r = rc ? r : lzma_code(&z, action);
		if (rc == 0 && r != LZMA_OK && r != LZMA_STREAM_END)
			rc = diag_error(u->d, "%s: not a valid xz stream%s", u->path,
					r == LZMA_BUF_ERROR ? " (cut short)" : "");
		if (rc == 0)
			rc = put_nonzero(u, obuf, CHUNK - z.avail_out);
	}
	lzma_end(&z);
	return rc;
}

/* After a gzip member: whether input follows (read into @ibuf when none is buffered). */
static bool more_input(int in, z_stream *z, uint8_t *ibuf)
{
	if (z->avail_in)
		return true;
	ssize_t n = read_some(in, ibuf, CHUNK);
	z->next_in = ibuf;
	z->avail_in = n > 0 ? (uInt)n : 0;
	return n > 0;
}

static int unpack_gzip(struct unpack *u, int in, uint8_t *ibuf, uint8_t *obuf)
{
	z_stream z = { 0 };
	int r = inflateInit2(&z, 15 + 32) == Z_OK ? Z_OK : Z_MEM_ERROR;
	int rc = r == Z_OK ? 0 : -ENOMEM;
	ssize_t n = 0;

	while (rc == 0 && r != Z_STREAM_END) {
		if (z.avail_in == 0) {
			n = read_some(in, ibuf, CHUNK);
			if (n <= 0) {
				rc = diag_error(u->d, "%s: %s", u->path,
						n < 0 ? strerror(errno) : "the gzip stream is cut short");
				break;
			}
			z.next_in = ibuf;
			z.avail_in = (uInt)n;
		}
		z.next_out = obuf;
		z.avail_out = CHUNK;
		r = inflate(&z, Z_NO_FLUSH);
		if (r != Z_OK && r != Z_STREAM_END)
			rc = diag_error(u->d, "%s: not a valid gzip stream", u->path);
		else
			rc = put_nonzero(u, obuf, CHUNK - z.avail_out);
		/* gzip -dc reads every member of a file: so does this */
		if (rc == 0 && r == Z_STREAM_END && more_input(in, &z, ibuf)) {
			if (inflateReset(&z) != Z_OK)
				rc = -ENOMEM;
			r = Z_OK;
		}
	}
	inflateEnd(&z);
	return rc;
}

/* The compression @magic shows, or NULL for a raw image. */
static const char *compression_of(const uint8_t *magic, size_t n)
{
	if (n >= 4 && !memcmp(magic, "\x28\xB5\x2F\xFD", 4))
		return "zst";
	if (n >= 6 && !memcmp(magic, "\xFD" "7zXZ\0", 6))
		return "xz";
	if (n >= 2 && magic[0] == 0x1F && magic[1] == 0x8B)
		return "gz";
	return NULL;
}

static int unpack(struct flash_image *im, int in, struct diag *d)
{
	const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/var/tmp";
	struct unpack u = { .path = im->path, .d = d };
	uint8_t *ibuf = malloc(CHUNK), *obuf = malloc(CHUNK);
	int rc = ibuf && obuf ? 0 : -ENOMEM;

	u.out = rc ? -1 : open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (rc == 0 && u.out < 0)
		rc = diag_error(d, "%s: no room for its decompressed copy in %s: %s", im->path, dir,
				strerror(errno));
	if (rc == 0)
		rc = im->compression[0] == 'z' ? unpack_zstd(&u, in, ibuf, obuf)
		   : im->compression[0] == 'x' ? unpack_xz(&u, in, ibuf, obuf)
					       : unpack_gzip(&u, in, ibuf, obuf);
	if (rc == 0 && ftruncate(u.out, (off_t)u.pos) < 0)
		rc = diag_error(d, "%s: %s", im->path, strerror(errno));
	free(ibuf);
	free(obuf);
	if (rc < 0) {
		if (u.out >= 0)
			close(u.out);
		return rc;
	}
	im->fd = u.out;
	im->size = u.pos;
	return 0;
}

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
		return diag_error(d, "%s: the bmap describes an image of %llu bytes, but the image "
				     "has %llu", im->bmap_path, (unsigned long long)b->image_size,
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
static int ranges_from_extents(struct flash_image *im)
{
	size_t cap = 0;
	uint64_t pos = 0;

	while (pos < im->size) {
		off_t data = lseek(im->fd, (off_t)pos, SEEK_DATA);
		if (data < 0 && errno == ENXIO)
			break;
		uint64_t start = data < 0 ? pos : (uint64_t)data / BMAP_BLOCK_SIZE * BMAP_BLOCK_SIZE;
		off_t hole = data < 0 ? -1 : lseek(im->fd, data, SEEK_HOLE);
		uint64_t end = hole < 0 ? im->size : (uint64_t)hole;
		end = (end + BMAP_BLOCK_SIZE - 1) / BMAP_BLOCK_SIZE * BMAP_BLOCK_SIZE;
		if (end > im->size)
			end = im->size;
		if (start < pos)
			start = pos;
		if (im->n_ranges && im->ranges[im->n_ranges - 1].end == start) {
			im->mapped_bytes += end - start;
			im->ranges[im->n_ranges - 1].end = end;
		} else if (add_range(im, &cap, start, end) < 0) {
			return -ENOMEM;
		}
		pos = end;
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
						got < 0 ? strerror(errno) : "it is shorter than its bmap");
			} else {
				sha256_update(one, buf, n);
				sha256_update(all, buf, n);
			}
			pos += n;
		}
		if (rc == 0)
			rc = sha256_final(one, sum);
		if (rc == 0 && expected && memcmp(sum, r->sha256, 32) != 0)
			rc = diag_error(d, "%s: bytes %llu-%llu do not match their checksum in %s: the "
					   "image or its bmap is damaged; no card was touched", im->path,
					(unsigned long long)r->start, (unsigned long long)r->end - 1,
					im->bmap_path);
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

/* The bmap beside the image: IMAGE.bmap, or the name without its compression suffix. */
static char *find_bmap(const char *path, const char *compression)
{
	char *name = NULL;

	if (asprintf(&name, "%s.bmap", path) >= 0 && access(name, F_OK) == 0)
		return name;
	free(name);
	name = NULL;
	size_t len = strlen(path), sfx = compression ? strlen(compression) + 1 : 0;
	if (sfx && len > sfx && asprintf(&name, "%.*s.bmap", (int)(len - sfx), path) >= 0 &&
	    access(name, F_OK) == 0)
		return name;
	free(name);
	return NULL;
}

static int read_bmap(const char *path, struct bmap *b, struct diag *d)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *text = NULL;
	int rc = 0;

	if (fd < 0 || fstat(fd, &st) < 0)
		rc = diag_error(d, "%s: %s", path, strerror(errno));
	else if (!S_ISREG(st.st_mode) || st.st_size > BMAP_MAX_BYTES)
		rc = diag_error(d, "%s: not a block map (not a file, or over 64 MiB)", path);
	else if (!(text = malloc((size_t)st.st_size + 1)))
		rc = -ENOMEM;
	else if (pread(fd, text, (size_t)st.st_size, 0) != st.st_size)
		rc = diag_error(d, "%s: %s", path, strerror(errno));
	else
		rc = bmap_parse(text, (size_t)st.st_size, path, b, d);
	if (fd >= 0)
		close(fd);
	free(text);
	return rc;
}

static int open_raw_or_unpack(struct flash_image *im, struct diag *d)
{
	uint8_t magic[6];
	struct stat st;
	int fd = open(im->path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return diag_error(d, "%s: %s", im->path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return diag_error(d, "%s: not an image file", im->path);
	}
	ssize_t n = pread(fd, magic, sizeof(magic), 0);
	im->compression = compression_of(magic, n > 0 ? (size_t)n : 0);
	if (!im->compression) {
		im->fd = fd;
		im->size = (uint64_t)st.st_size;
		return 0;
	}
	int rc = unpack(im, fd, d);
	close(fd);
	return rc;
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
		im->bmap_path = bmap_path ? strdup(bmap_path) : find_bmap(path, im->compression);
		if (bmap_path && !im->bmap_path)
			rc = -ENOMEM;
	}
	if (rc == 0 && im->bmap_path)
		rc = read_bmap(im->bmap_path, &b, d);
	if (rc == 0 && im->bmap_path)
		rc = ranges_from_bmap(im, &b, d);
	else if (rc == 0 && im->compression)
		rc = add_range(im, &(size_t){ 0 }, 0, im->size); /* nothing tells its holes */
	else if (rc == 0)
		rc = ranges_from_extents(im);
	if (rc == 0 && !im->bmap_path)
		diag_warning(d, "%s: no bmap found (%s.bmap): %s", path, path,
			     im->compression ? "the image is written whole"
					     : "its data extents are written, and its holes are "
					       "zeros on the cards unless --gaps says otherwise");
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
	*im = (struct flash_image){ .fd = -1 };
}
