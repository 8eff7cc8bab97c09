/* SPDX-License-Identifier: MIT */
/*
 * archive_spool: a compressed archive is decompressed once (but for the fastest filters, see
 * slow_filter()). The listing pass reads it through a second libarchive handle fed by the
 * decompressed stream (gzip through zlib, which checks each member's CRC-32; every other
 * filter through libarchive's own, with no format), and copies that stream, as it goes by,
 * into a spool: an unnamed file in $TMPDIR (default /tmp) that disappears when it is closed.
 * The data pass then reads the plain archive from the spool, skipping by seeks, instead of
 * decompressing it again. When the spool cannot be made or does not fit (it takes the
 * archive's decompressed size), the data pass decompresses the archive again, as the listing
 * read it; nothing else changes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mkimage/contents/contents_priv.h"

struct content_unpack {
	const struct content_archive_lib *lib; /* borrowed */
	const char *host;
	struct content_gzip *gzip; /* the decompressed stream: gzip through zlib, or ... */
	struct archive *filtered;  /* ... libarchive's filters with the "raw" format */
	struct archive *a;         /* the archive read from that stream */
	int64_t size;              /* the size of the file u->host */
	bool slow;                 /* a slow filter decompresses it: the data pass reads a spool */
	int spool_fd;              /* the copy of the stream (owned; -1: none) */
	char bad[256];             /* why the stream failed ("" while it has not) */
};

/* An unnamed file for the spool in $TMPDIR (or /tmp), or -1. */
static int open_spool(void)
{
	const char *dir = secure_getenv("TMPDIR");
	char *name = NULL;
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd;
	if (asprintf(&name, "%s/sdimg-spool-XXXXXX", dir) < 0)
		return -1;
	fd = mkostemp(name, O_CLOEXEC); /* a file system without O_TMPFILE */
	if (fd >= 0)
		unlink(name);
	free(name);
	return fd;
}

/* Copies @len bytes of the stream to the spool; a spool that fails is dropped. */
static void spool(struct content_unpack *u, const char *p, size_t len)
{
	while (u->spool_fd >= 0 && len) {
		ssize_t w = write(u->spool_fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			close(u->spool_fd);
			u->spool_fd = -1;
			return;
		}
		p += w;
		len -= (size_t)w;
	}
}

/* The next piece of the decompressed stream: its length (0 at the end) or -1 (u->bad). */
static ssize_t next_piece(struct content_unpack *u, const void **buf)
{
	const char *bad = NULL;
	ssize_t n;

	if (u->bad[0])
		return -1;
	if (u->gzip) {
		n = content_gzip_read(u->gzip, buf, &bad);
		if (n < 0)
			snprintf(u->bad, sizeof(u->bad), "a damaged gzip stream: %s", bad);
		return n;
	}
	size_t len;
	la_int64_t at;
	int r = u->lib->archive_read_data_block(u->filtered, buf, &len, &at);
	if (r == ARCHIVE_EOF)
		return 0;
	if (!content_archive_ok(r)) {
		const char *why = u->lib->archive_error_string(u->filtered);
		if (u->lib->archive_filter_bytes(u->filtered, -1) >= u->size)
			snprintf(u->bad, sizeof(u->bad), "the compressed stream is truncated (%s)",
				 why ? why : "it ends early");
		else
			snprintf(u->bad, sizeof(u->bad), "%s", why ? why : "unreadable");
		return -1;
	}
	return (ssize_t)len;
}

/* libarchive's read callback of u->a. */
static la_ssize_t read_piece(struct archive *a, void *ctx, const void **buf)
{
	struct content_unpack *u = ctx;
	ssize_t n = next_piece(u, buf);

	if (n < 0) {
		u->lib->archive_set_error(a, EINVAL, "%s", u->bad);
		return ARCHIVE_FATAL;
	}
	spool(u, *buf, (size_t)n);
	return n;
}

/*
 * Whether decompressing with filter @code costs more than writing and reading back what
 * comes out: zstd and lz4 decompress about as fast as a spool goes (measured: a 1 GiB
 * tar.zst of random bytes built in 5.4 s decompressed twice, 7.6 s with a spool), so they
 * are decompressed twice and need no room in $TMPDIR.
 */
static bool slow_filter(int code)
{
	return code != ARCHIVE_FILTER_NONE && code != ARCHIVE_FILTER_ZSTD &&
	       code != ARCHIVE_FILTER_LZ4;
}

/* Opens u->filtered on u->host: 1 when a filter decompresses it (u->slow: a slow one), 0
 * when none does (or it cannot be read at all). */
static int open_filtered(struct content_unpack *u)
{
	struct archive_entry *ae;
	struct stat st;

	if (!(u->filtered = u->lib->archive_read_new()))
		return -ENOMEM;
	u->size = stat(u->host, &st) == 0 ? (int64_t)st.st_size : INT64_MAX;
	u->lib->archive_read_support_filter_all(u->filtered);
	u->lib->archive_read_support_format_raw(u->filtered);
	int r = u->lib->archive_read_open_filename(u->filtered, u->host, 65536);

	if (r == ARCHIVE_OK)
		r = u->lib->archive_read_next_header(u->filtered, &ae);
	if (r != ARCHIVE_OK && r != ARCHIVE_WARN)
		return 0; /* the listing reads it as it is, and says what is wrong */
	int n = u->lib->archive_filter_count(u->filtered);
	for (int i = 0; i + 1 < n; i++)
		u->slow |= slow_filter(u->lib->archive_filter_code(u->filtered, i));
	return n > 1;
}

void content_unpack_free(struct content_unpack *u)
{
	if (!u)
		return;
	if (u->a)
		u->lib->archive_read_free(u->a);
	if (u->filtered)
		u->lib->archive_read_free(u->filtered);
	content_gzip_close(u->gzip);
	if (u->spool_fd >= 0)
		close(u->spool_fd);
	free(u);
}

int content_unpack_open(const struct content_archive_lib *lib, const char *host,
			struct content_unpack **ret, struct diag *d)
{
	struct content_unpack *u = calloc(1, sizeof(*u));
	int rc;

	if (!u)
		return -ENOMEM;
	u->lib = lib;
	u->host = host;
	u->spool_fd = -1;
	rc = content_gzip_open(host, &u->gzip, d);
	if (rc == 0)
		rc = open_filtered(u);
	if (rc == 1 && !(u->a = u->lib->archive_read_new()))
		rc = -ENOMEM;
	if (rc == 1) {
		u->spool_fd = u->slow || u->gzip ? open_spool() : -1;
		/* filters again: an archive compressed twice */
		content_archive_support(u->lib, u->a);
		int r = u->lib->archive_read_open(u->a, u, NULL, read_piece, NULL);
		if (r != ARCHIVE_OK && u->bad[0])
			rc = diag_error(d, "%s: %s", host, u->bad);
		else if (r != ARCHIVE_OK)
			rc = content_archive_unreadable(u->lib, u->a, host, d);
	}
	if (rc == 1)
		*ret = u;
	else
		content_unpack_free(u);
	return rc;
}

struct archive *content_unpack_archive(struct content_unpack *u)
{
	return u->a;
}

const char *content_unpack_error(const struct content_unpack *u)
{
	return u->bad[0] ? u->bad : NULL;
}

int content_unpack_finish(struct content_unpack *u, int *ret_spool, struct diag *d)
{
	const void *buf;
	ssize_t n;

	/* the rest of the stream after the archive's end: a compression checks its data at its
	 * end (gzip's CRC-32 and length of each member, RFC 1952; xz's block check, index and
	 * footer; bzip2's stream CRC; zstd's and lz4's frame ends), which reading stopped short
	 * of, so a stream cut or damaged there would go unseen */
	while ((n = next_piece(u, &buf)) > 0)
		spool(u, buf, (size_t)n);
	if (u->bad[0])
		return diag_error(d, "%s: %s", u->host, u->bad);
	*ret_spool = u->spool_fd;
	u->spool_fd = -1;
	return 0;
}

/* The spool read back by the data pass: forward only, as the listing read the stream. */
struct spool_reader {
	const struct content_archive_lib *lib; /* borrowed */
	int fd;                                /* borrowed */
	char buf[65536];
};

static la_ssize_t spool_read(struct archive *a, void *ctx, const void **buf)
{
	struct spool_reader *r = ctx;
	ssize_t n;

	while ((n = read(r->fd, r->buf, sizeof(r->buf))) < 0 && errno == EINTR)
		;
	if (n < 0) {
		r->lib->archive_set_error(a, errno, "%s", strerror(errno));
		return ARCHIVE_FATAL;
	}
	*buf = r->buf;
	return n;
}

/* Skips forward by a seek (0 when it cannot: libarchive then reads through). */
static la_int64_t spool_skip(struct archive *a, void *ctx, la_int64_t request)
{
	struct spool_reader *r = ctx;

	(void)a;
	return lseek(r->fd, (off_t)request, SEEK_CUR) < 0 ? 0 : request;
}

static int spool_close(struct archive *a, void *ctx)
{
	(void)a;
	free(ctx);
	return ARCHIVE_OK;
}

/*
 * The spool is a seekable file, but libarchive is given no seek callback: with one, it
 * would read a zip by its central directory instead of entry by entry as the listing did
 * through the stream, and the two passes would not meet the same entries in the same
 * order (a zip may hold entries its directory does not list).
 */
struct archive *content_archive_reopen(const struct content_archive_lib *lib, const char *host,
				       int spool_fd, struct diag *d)
{
	struct spool_reader *r;
	struct archive *a;

	if (spool_fd < 0)
		return content_archive_open(lib, host, d);
	if (lseek(spool_fd, 0, SEEK_SET) < 0) {
		diag_error(d, "%s: reading its decompressed copy: %s", host, strerror(errno));
		return NULL;
	}
	r = malloc(sizeof(*r));
	a = r ? lib->archive_read_new() : NULL;
	if (!a) {
		free(r);
		diag_error(d, "%s: out of memory", host);
		return NULL;
	}
	r->lib = lib;
	r->fd = spool_fd;
	content_archive_support(lib, a);
	/* libarchive calls spool_close, which frees r, whether or not the open succeeds */
	if (lib->archive_read_open2(a, r, NULL, spool_read, spool_skip, spool_close) !=
	    ARCHIVE_OK) {
		diag_error(d, "%s: reading its decompressed copy: %s", host,
			   lib->archive_error_string(a));
		lib->archive_read_free(a);
		return NULL;
	}
	return a;
}
