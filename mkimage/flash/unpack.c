/* SPDX-License-Identifier: MIT */
/*
 * unpack: what an image file holds, raw or compressed, and its decompressed copy
 * (flash_priv.h). The bytes tell the compression, never the name alone: a name that says
 * compressed over bytes that are not, bytes of a compression that cannot be read here, and
 * an archive of files are all refused before any card is touched, so that what reaches a
 * card is the decompressed image or nothing.
 * zstd, xz, legacy lzma and gzip are read by the libraries the program links; bzip2 and lz4
 * by libarchive's filters (its "raw" format: the decompressed stream as one entry), loaded
 * only for them.
 */
#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "common/bytes.h"
#include "mkimage/contents/contents.h"
#include "mkimage/flash/flash_priv.h"

#define CHUNK (1u << 20)
#define ZERO_CHECK 65536u /* the decompressed copy keeps all-zero pieces as holes */
#define MAGIC_BYTES 13u   /* a legacy lzma header, the longest looked at */

struct unpack {
	const char *path;
	const struct codec *codec;
	int out; /* the decompressed copy */
	uint64_t pos;
	struct diag *d;
};

/* A compression: how its bytes start, the names it goes by, and its decompressor (NULL:
 * known, but not read here). */
struct codec {
	const char *name;              /* as messages and the report say it */
	const char *const suffixes[3]; /* the endings of its names, NULL-ended */
	bool (*is)(const uint8_t *m, size_t n);
	int (*unpack)(struct unpack *u, int in, uint8_t *ibuf, uint8_t *obuf);
};

/* ------------------------------------------------------------------ the copy */

static int put_nonzero(struct unpack *u, const uint8_t *p, size_t len)
{
	while (len) {
		size_t piece = len < ZERO_CHECK ? len : ZERO_CHECK;
		if (p[0] || memcmp(p, p + 1, piece - 1)) {
			ssize_t w = pwrite(u->out, p, piece, (off_t)u->pos);
			if (w != (ssize_t)piece)
				return diag_error(u->d, "%s: writing its decompressed copy: %s",
						  u->path, w < 0 ? strerror(errno) : "short write");
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

/* ------------------------------------------------------------------ the decompressors */

/* Every frame of the file; libzstd passes over skippable frames wherever they stand. */
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

/* An xz file (every stream of it), or a legacy .lzma one (@alone), through liblzma. */
static int unpack_liblzma(struct unpack *u, int in, uint8_t *ibuf, uint8_t *obuf, bool alone)
{
	lzma_stream z = LZMA_STREAM_INIT;
	lzma_ret r = alone ? lzma_alone_decoder(&z, UINT64_MAX)
			   : lzma_stream_decoder(&z, UINT64_MAX, LZMA_CONCATENATED);
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
			rc = diag_error(u->d, "%s: not a valid %s stream%s", u->path,
					u->codec->name, r == LZMA_BUF_ERROR ? " (cut short)" : "");
		if (rc == 0)
			rc = put_nonzero(u, obuf, CHUNK - z.avail_out);
	}
	lzma_end(&z);
	return rc;
}

static int unpack_xz(struct unpack *u, int in, uint8_t *ibuf, uint8_t *obuf)
{
	return unpack_liblzma(u, in, ibuf, obuf, false);
}

static int unpack_lzma(struct unpack *u, int in, uint8_t *ibuf, uint8_t *obuf)
{
	return unpack_liblzma(u, in, ibuf, obuf, true);
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
						n < 0 ? strerror(errno)
						      : "the gzip stream is cut short");
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

/* The stream through libarchive's @filter alone (its code @code): no other filter is
 * tried, so a stream inside the stream stays as it is. */
static int unpack_by_libarchive(struct unpack *u, int in, uint8_t *obuf, int code)
{
	struct content_archive_lib lib = { .dl = { NULL } };
	struct archive *a = NULL;
	struct archive_entry *ae;
	int rc = content_archive_lib_open(&lib, "bzip2 and lz4 images", u->d), r = ARCHIVE_OK;
	la_ssize_t n;

	if (rc == 0 && !(a = lib.archive_read_new()))
		rc = -ENOMEM;
	if (rc == 0)
		r = code == ARCHIVE_FILTER_BZIP2 ? lib.archive_read_support_filter_bzip2(a)
						 : lib.archive_read_support_filter_lz4(a);
	/* ARCHIVE_WARN: this libarchive would run an external program for it */
	if (rc == 0 && r != ARCHIVE_OK)
		rc = diag_error(u->d, "%s: this libarchive cannot decompress %s by itself", u->path,
				u->codec->name);
	if (rc == 0 && (lib.archive_read_support_format_raw(a) != ARCHIVE_OK ||
			lib.archive_read_open_fd(a, in, CHUNK) != ARCHIVE_OK ||
			lib.archive_read_next_header(a, &ae) != ARCHIVE_OK ||
			lib.archive_filter_code(a, 0) != code))
		rc = diag_error(u->d, "%s: not a valid %s stream: %s", u->path, u->codec->name,
				lib.archive_error_string(a) ? lib.archive_error_string(a)
							    : "libarchive does not read it as one");
	while (rc == 0 && (n = lib.archive_read_data(a, obuf, CHUNK)) != 0)
		rc = n < 0 ? diag_error(u->d, "%s: not a valid %s stream: %s", u->path,
					u->codec->name, lib.archive_error_string(a))
			   : put_nonzero(u, obuf, (size_t)n);
	if (a)
		lib.archive_read_free(a);
	content_archive_lib_close(&lib);
	return rc;
}

static int unpack_bzip2(struct unpack *u, int in, uint8_t *ibuf, uint8_t *obuf)
{
	(void)ibuf;
	return unpack_by_libarchive(u, in, obuf, ARCHIVE_FILTER_BZIP2);
}

static int unpack_lz4(struct unpack *u, int in, uint8_t *ibuf, uint8_t *obuf)
{
	(void)ibuf;
	return unpack_by_libarchive(u, in, obuf, ARCHIVE_FILTER_LZ4);
}

/* ------------------------------------------------------------------ the magics */

static bool starts(const uint8_t *m, size_t n, const char *magic, size_t len)
{
	return n >= len && memcmp(m, magic, len) == 0;
}

/* A zstd frame, or a skippable frame (magic 0x184D2A50 to 0x184D2A5F, RFC 8878 3.1.2), as
 * pzstd writes before its frames. */
static bool is_zstd(const uint8_t *m, size_t n)
{
	return n >= 4 && (get_le32(m) == 0xFD2FB528u || (get_le32(m) & 0xFFFFFFF0u) == 0x184D2A50u);
}

static bool is_xz(const uint8_t *m, size_t n)
{
	return starts(m, n,
		      "\xFD"
		      "7zXZ\0",
		      6);
}

static bool is_gzip(const uint8_t *m, size_t n)
{
	return starts(m, n, "\x1F\x8B", 2);
}

static bool is_bzip2(const uint8_t *m, size_t n)
{
	return starts(m, n, "BZh", 3) && n >= 4 && m[3] >= '1' && m[3] <= '9';
}

/* The frame format (0x184D2204), or the legacy one lz4 -l writes (0x184C2102). */
static bool is_lz4(const uint8_t *m, size_t n)
{
	return n >= 4 && (get_le32(m) == 0x184D2204u || get_le32(m) == 0x184C2102u);
}

/*
 * A legacy .lzma header, which has no magic: the properties byte ((pb * 5 + lp) * 9 + lc,
 * at most 224), a dictionary size of 2^n or 2^n + 2^(n-1) bytes (as every encoder writes)
 * from 4 KiB, and the uncompressed size, unknown (all ones) or below 2^48.
 */
static bool is_lzma(const uint8_t *m, size_t n)
{
	if (n < MAGIC_BYTES || m[0] > 224)
		return false;
	uint32_t dict = get_le32(m + 1);
	uint32_t top = dict ? 1u << (31 - __builtin_clz(dict)) : 0;
	bool unknown = get_le32(m + 5) == UINT32_MAX && get_le32(m + 9) == UINT32_MAX;
	return dict >= 4096 && (dict == top || dict == top + top / 2) &&
	       (unknown || (m[11] == 0 && m[12] == 0));
}

static bool is_lzip(const uint8_t *m, size_t n)
{
	return starts(m, n, "LZIP", 4);
}

static bool is_lzop(const uint8_t *m, size_t n)
{
	return starts(m, n, "\x89LZO\0\r\n\x1A\n", 9);
}

static bool is_compress(const uint8_t *m, size_t n)
{
	return starts(m, n, "\x1F\x9D", 2);
}

static const struct codec codecs[] = {
	{ "zstd", { ".zst", ".zstd", NULL }, is_zstd, unpack_zstd },
	{ "xz", { ".xz", NULL }, is_xz, unpack_xz },
	{ "gzip", { ".gz", NULL }, is_gzip, unpack_gzip },
	{ "bzip2", { ".bz2", NULL }, is_bzip2, unpack_bzip2 },
	{ "lz4", { ".lz4", NULL }, is_lz4, unpack_lz4 },
	{ "lzma", { ".lzma", NULL }, is_lzma, unpack_lzma },
	{ "lzip", { ".lz", NULL }, is_lzip, NULL },
	{ "lzop", { ".lzo", NULL }, is_lzop, NULL },
	{ "compress (.Z)", { ".Z", NULL }, is_compress, NULL },
};
#define N_CODECS (sizeof(codecs) / sizeof(codecs[0]))

/* The endings of archives of files, which hold an image rather than being one. */
static const char *const archive_suffixes[] = {
	".zip", ".7z", ".rar", ".cpio", ".tar", ".tgz", ".tbz", ".tbz2", ".txz", ".tzst", ".tlz",
};

/* Whether @s ends in @suffix, in any case but ".Z" (".z" was pack's, not compress's). */
static bool ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	if (ls <= lx)
		return false;
	return strcmp(suffix, ".Z") ? strcasecmp(s + ls - lx, suffix) == 0
				    : strcmp(s + ls - lx, suffix) == 0;
}

/* The codec whose suffix ends @path (with that suffix's length in *@len), or NULL. */
static const struct codec *codec_of_name(const char *path, size_t *len)
{
	for (size_t i = 0; i < N_CODECS; i++)
		for (const char *const *s = codecs[i].suffixes; *s; s++)
			if (ends_with(path, *s)) {
				*len = strlen(*s);
				return &codecs[i];
			}
	return NULL;
}

/* Whether @path is named as an archive of files: NAME.tar.*, NAME.zip, ... */
static bool archive_name(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const char *tar = NULL;

	for (const char *p = base; (p = strcasestr(p, ".tar.")); p++)
		tar = p;
	if (tar && !strchr(tar + 5, '.'))
		return true;
	for (size_t i = 0; i < sizeof(archive_suffixes) / sizeof(archive_suffixes[0]); i++)
		if (ends_with(base, archive_suffixes[i]))
			return true;
	return false;
}

static const struct codec *codec_of_bytes(const uint8_t *m, size_t n)
{
	for (size_t i = 0; i < N_CODECS; i++)
		if (codecs[i].is(m, n))
			return &codecs[i];
	return NULL;
}

/* ------------------------------------------------------------------ the image */

static int unpack_with(struct flash_image *im, const struct codec *c, int in, struct diag *d)
{
	const char *tmpdir = getenv("TMPDIR"), *dir = tmpdir && *tmpdir ? tmpdir : "/var/tmp";
	struct unpack u = { .path = im->path, .codec = c, .d = d };
	uint8_t *ibuf = malloc(CHUNK), *obuf = malloc(CHUNK);
	int rc = ibuf && obuf ? 0 : -ENOMEM;

	u.out = rc ? -1 : open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (rc == 0 && u.out < 0)
		rc = diag_error(d, "%s: no room for its decompressed copy in %s: %s", im->path, dir,
				strerror(errno));
	if (rc == 0)
		rc = c->unpack(&u, in, ibuf, obuf);
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

/* An Android sparse image: its image written out, the byte ranges of its RAW and FILL
 * chunks kept. */
static int unpack_sparse(struct flash_image *im, int fd, uint64_t size, struct diag *d)
{
	struct simg s;
	int out = -1, rc = simg_open_expanded(fd, size, im->path, &s, &out, d);

	close(fd);
	if (rc < 0)
		return rc;
	im->defined = calloc(s.n ? s.n : 1, sizeof(*im->defined));
	if (!im->defined) {
		close(out);
		simg_release(&s);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s.n; i++)
		im->defined[i] = (struct simg_range){ s.chunks[i].block * s.block_size,
						      (s.chunks[i].block + s.chunks[i].blocks) *
							      s.block_size };
	im->n_defined = s.n;
	im->fd = out;
	im->size = s.image_size;
	im->compression = FLASH_SPARSE;
	size_t len = strlen(im->path);
	im->suffix_len = len > 5 && strcasecmp(im->path + len - 5, ".simg") == 0 ? 5 : 0;
	simg_release(&s);
	return 0;
}

int flash_image_unpack(struct flash_image *im, int fd, uint64_t size, struct diag *d)
{
	uint8_t magic[MAGIC_BYTES];
	size_t suffix = 0;
	ssize_t n = pread(fd, magic, sizeof(magic), 0);
	const struct codec *by_bytes = codec_of_bytes(magic, n > 0 ? (size_t)n : 0);
	const struct codec *by_name = codec_of_name(im->path, &suffix);
	int rc;

	if (simg_is_sparse(magic, n > 0 ? (size_t)n : 0))
		return unpack_sparse(im, fd, size, d);
	if (archive_name(im->path) || starts(magic, n > 0 ? (size_t)n : 0, "PK\x03\x04", 4))
		rc = diag_error(d,
				"%s: an archive of files, not a disk image: extract the image "
				"from it first; no card was touched",
				im->path);
	else if (by_name && by_bytes != by_name)
		rc = diag_error(d, "%s: named as %s, but its bytes are %s%s; no card was touched",
				im->path, by_name->name, by_bytes ? "" : "not compressed",
				by_bytes ? by_bytes->name : "");
	else if (by_bytes && !by_bytes->unpack)
		rc = diag_error(d,
				"%s: %s-compressed, which flash cannot decompress: decompress it "
				"first; no card was touched",
				im->path, by_bytes->name);
	else if (by_bytes)
		rc = unpack_with(im, by_bytes, fd, d);
	else
		rc = 0;
	if (rc == 0 && !by_bytes) {
		im->fd = fd;
		im->size = size;
		return 0;
	}
	close(fd);
	if (rc == 0) {
		im->compression = by_bytes->name;
		im->suffix_len = suffix;
	}
	return rc;
}
