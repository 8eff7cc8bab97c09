/*
 * archive_gzip: libarchive 3.6.2 decompresses gzip without checking the CRC-32 and length in
 * each member's trailer, so a gzip archive whose stored (incompressible) bytes were damaged
 * would build an image with those damaged bytes. This reads a gzip file once more through
 * zlib, which checks both, before the archive is used. Other filters check themselves
 * (xz, bzip2; zstd and lz4 when the stream carries a checksum); legacy .lzma has none.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "mkimage/contents/contents_priv.h"

#define IN_BUF 65536u
#define OUT_BUF 262144u

/* Whether the file at @fd starts with the gzip magic bytes. */
static int is_gzip(int fd)
{
	unsigned char m[2];

	return pread(fd, m, 2, 0) == 2 && m[0] == 0x1f && m[1] == 0x8b;
}

/* Inflates every member of the gzip file @fd; returns a zlib error message or NULL. */
static const char *inflate_all(int fd, z_stream *zs, unsigned char *in, unsigned char *out)
{
	int z = Z_OK;

	for (;;) {
		if (!zs->avail_in) {
			ssize_t n = read(fd, in, IN_BUF);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return strerror(errno);
			if (n == 0)
				return z == Z_STREAM_END ? NULL : "the gzip stream is truncated";
			zs->next_in = in;
			zs->avail_in = (uInt)n;
		}
		if (z == Z_STREAM_END && zs->next_in[0] != 0x1f)
			return NULL; /* padding after the last member, which gzip ignores too */
		if (z == Z_STREAM_END && inflateReset(zs) != Z_OK) /* the next member */
			return "zlib failed";
		zs->next_out = out;
		zs->avail_out = OUT_BUF;
		z = inflate(zs, Z_NO_FLUSH);
		if (z == Z_DATA_ERROR || z == Z_NEED_DICT)
			return zs->msg ? zs->msg : "corrupt gzip data";
		if (z != Z_OK && z != Z_STREAM_END && z != Z_BUF_ERROR)
			return "zlib failed";
	}
}

int content_verify_gzip(const char *host, struct diag *d)
{
	int fd = open(host, O_RDONLY | O_CLOEXEC);
	z_stream zs = { 0 };
	unsigned char *in = malloc(IN_BUF), *out = malloc(OUT_BUF);
	const char *bad = NULL;
	int rc = 0;

	if (fd < 0)
		rc = diag_error(d, "%s: %s", host, strerror(errno));
	else if (!in || !out || inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
		rc = -ENOMEM;
	else if (is_gzip(fd) && (bad = inflate_all(fd, &zs, in, out)))
		rc = diag_error(d, "%s: a damaged gzip stream: %s", host, bad);
	if (fd >= 0 && rc != -ENOMEM)
		inflateEnd(&zs);
	if (fd >= 0)
		close(fd);
	free(in);
	free(out);
	return rc;
}
