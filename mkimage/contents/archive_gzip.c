/* SPDX-License-Identifier: MIT */
/*
 * archive_gzip: libarchive 3.6.2 decompresses gzip without checking the CRC-32 and length in
 * each member's trailer, so a gzip archive whose stored (incompressible) bytes were damaged
 * would build an image with those damaged bytes. A gzip archive is therefore decompressed
 * here, through zlib, which checks both (RFC 1952, 2.3.1), and libarchive reads what comes
 * out (archive_spool.c). Other filters check themselves (xz, bzip2; zstd and lz4 when the
 * stream carries a checksum); legacy .lzma has none.
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

struct content_gzip {
	int fd;
	z_stream zs;
	int z;     /* the last inflate() result */
	bool done; /* the last member ended (and what follows is padding, or nothing) */
	unsigned char *in, *out;
};

int content_gzip_open(const char *host, struct content_gzip **ret, struct diag *d)
{
	struct content_gzip *g = calloc(1, sizeof(*g));
	unsigned char m[2];
	ssize_t n;

	if (!g)
		return -ENOMEM;
	g->fd = open(host, O_RDONLY | O_CLOEXEC);
	if (g->fd < 0) {
		int rc = diag_error(d, "%s: %s", host, strerror(errno));
		free(g);
		return rc;
	}
	n = pread(g->fd, m, 2, 0);
	if (n != 2 || m[0] != 0x1f || m[1] != 0x8b) {
		close(g->fd);
		free(g);
		return 0;
	}
	g->in = malloc(IN_BUF);
	g->out = malloc(OUT_BUF);
	g->z = Z_OK;
	if (!g->in || !g->out || inflateInit2(&g->zs, 16 + MAX_WBITS) != Z_OK) {
		free(g->in);
		free(g->out);
		close(g->fd);
		free(g);
		return -ENOMEM;
	}
	*ret = g;
	return 1;
}

/* Makes input available; returns NULL, or a message (*@eof set at the end of the file). */
static const char *fill(struct content_gzip *g, bool *eof)
{
	ssize_t n;

	*eof = false;
	if (g->zs.avail_in)
		return NULL;
	do
		n = read(g->fd, g->in, IN_BUF);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return strerror(errno);
	*eof = n == 0;
	g->zs.next_in = g->in;
	g->zs.avail_in = (uInt)n;
	return NULL;
}

ssize_t content_gzip_read(struct content_gzip *g, const void **buf, const char **bad)
{
	*bad = NULL;
	while (!g->done) {
		bool eof;
		if ((*bad = fill(g, &eof)))
			return -1;
		if (eof && g->z == Z_STREAM_END)
			g->done = true;
		else if (eof)
			*bad = "the gzip stream is truncated";
		else if (g->z == Z_STREAM_END && g->zs.next_in[0] != 0x1f)
			g->done = true; /* padding after the last member, which gzip ignores too */
		else if (g->z == Z_STREAM_END && inflateReset(&g->zs) != Z_OK) /* the next member */
			*bad = "zlib failed";
		if (*bad)
			return -1;
		if (g->done)
			break;
		g->zs.next_out = g->out;
		g->zs.avail_out = OUT_BUF;
		g->z = inflate(&g->zs, Z_NO_FLUSH);
		if (g->z == Z_DATA_ERROR || g->z == Z_NEED_DICT)
			*bad = g->zs.msg ? g->zs.msg : "corrupt gzip data";
		else if (g->z != Z_OK && g->z != Z_STREAM_END && g->z != Z_BUF_ERROR)
			*bad = "zlib failed";
		if (*bad)
			return -1;
		if (g->zs.avail_out < OUT_BUF) {
			*buf = g->out;
			return (ssize_t)(OUT_BUF - g->zs.avail_out);
		}
	}
	return 0;
}

void content_gzip_close(struct content_gzip *g)
{
	if (!g)
		return;
	inflateEnd(&g->zs);
	close(g->fd);
	free(g->in);
	free(g->out);
	free(g);
}
