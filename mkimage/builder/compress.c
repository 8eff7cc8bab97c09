/* SPDX-License-Identifier: MIT */
/*
 * compress: the image streamed through zstd, xz or gzip into a file (builder_priv.h).
 * The output depends on the input and the level only, never on the machine, the number of
 * threads or their timing: zstd always runs its multithreaded streaming mode (the same
 * frames for any number of workers from 1 up) with a job size fixed by the level, and the
 * frame ends on the call that hands it the image's last byte (zstd_write); xz always its
 * multithreaded encoder with a fixed block size (the blocks, not the threads, decide the
 * output); gzip writes no name and no time.
 */
#include <errno.h>
#include <lzma.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "common/sha256.h"
#include "mkimage/builder/builder_priv.h"

#define OUT_BUF (1u << 20)
#define MAX_THREADS 4 /* more adds memory, and the input is read at disk speed anyway */

struct build_compressor {
	enum build_compression kind;
	int fd;
	const char *path;
	struct sha256 *sha; /* the compressed bytes' SHA-256, as they are written (may be NULL) */
	uint8_t *out;       /* OUT_BUF bytes */
	ZSTD_CCtx *zstd;
	uint64_t zstd_left; /* image bytes zstd is still to get */
	bool zstd_ended;    /* the frame is complete */
	lzma_stream xz;
	z_stream gz;
	gz_header gz_header; /* zlib keeps a pointer to it until deflateEnd */
	bool xz_open, gz_open;
};

/* Worker threads for zstd and xz: the CPUs this process may run on, 1 to MAX_THREADS. */
static unsigned threads(void)
{
	cpu_set_t set;
	int n = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;

	return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (unsigned)n;
}

static int sink(struct build_compressor *z, size_t len, struct diag *d)
{
	const uint8_t *p = z->out;

	if (z->sha)
		sha256_update(z->sha, p, len);
	while (len) {
		ssize_t w = write(z->fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = w < 0 ? errno : EIO;
			return diag_errno(d, -e, "%s: %s", z->path, strerror(e));
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* ------------------------------------------------------------------ zstd */

/* The size of the jobs zstd's workers compress, set here so that it depends on the level
 * alone: never on the number of workers, nor on what a libzstd picks by default. From level
 * 6 it is what libzstd 1.5 picks for a large input, four windows (windows of 2 MiB up to
 * level 8, 4 MiB up to 16, 8 MiB beyond); where zstd would shrink the window to fit a small
 * image, that image is one job either way. Up to level 5 the window is at most 2 MiB: jobs
 * of one window rather than four hold a quarter of the memory per worker at the same ratio. */
static int zstd_job_size(int level)
{
	return level <= 5 ? 2 << 20 : level <= 8 ? 8 << 20 : level <= 16 ? 16 << 20 : 32 << 20;
}

static int zstd_open(struct build_compressor *z, int level, uint64_t size, struct diag *d)
{
	if (!(z->zstd = ZSTD_createCCtx()))
		return -ENOMEM;
	z->zstd_left = size;
	if (ZSTD_isError(ZSTD_CCtx_setParameter(z->zstd, ZSTD_c_compressionLevel, level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(z->zstd, ZSTD_c_checksumFlag, 1)) ||
	    ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(z->zstd, size)))
		return diag_error(d, "%s: zstd refuses level %d", z->path, level);
	if (ZSTD_isError(ZSTD_CCtx_setParameter(z->zstd, ZSTD_c_nbWorkers, (int)threads())))
		return diag_error(d,
				  "%s: this libzstd has no multithreading, which sdimg needs "
				  "for a .zst that is the same on every machine",
				  z->path);
	if (ZSTD_isError(ZSTD_CCtx_setParameter(z->zstd, ZSTD_c_jobSize, zstd_job_size(level))))
		return diag_error(d, "%s: zstd refuses its job size", z->path);
	return 0;
}

/* Hands zstd [@buf, @buf + @len) with ZSTD_e_continue, or with ZSTD_e_end until the frame is
 * complete; never ZSTD_e_flush, which would cut a job where the call happens to fall. */
static int zstd_step(struct build_compressor *z, const void *buf, size_t len, bool end,
		     struct diag *d)
{
	ZSTD_inBuffer in = { buf, len, 0 };

	for (;;) {
		ZSTD_outBuffer out = { z->out, OUT_BUF, 0 };
		size_t left = ZSTD_compressStream2(z->zstd, &out, &in,
						   end ? ZSTD_e_end : ZSTD_e_continue);
		if (ZSTD_isError(left))
			return diag_error(d, "%s: zstd: %s", z->path, ZSTD_getErrorName(left));
		int rc = sink(z, out.pos, d);
		if (rc < 0)
			return rc;
		if (end ? left == 0 : in.pos == in.size) {
			z->zstd_ended = end;
			return 0;
		}
	}
}

/*
 * Feeds @len bytes of the image: all with ZSTD_e_continue but the image's last byte, which
 * goes in alone with ZSTD_e_end. The multithreaded compressor cuts a job whenever its input
 * buffer is full, but when it finds its table of jobs full at that moment it keeps the full
 * buffer for a later call. Were the frame ended by a later call without input, such a
 * buffer would become the last job, while a buffer that a worker had taken in time would be
 * followed by an empty last block of 3 bytes: two frames for one image, chosen by thread
 * timing. With a byte still to come, every full buffer becomes a job that does not end the
 * frame, and the frame ends in the job that holds the last byte, whatever the timing. (Given
 * with ZSTD_e_end, the byte may wait while a full buffer waits for a place; zstd then
 * flushes that buffer as the full job it is, never a part of one.)
 */
static int zstd_write(struct build_compressor *z, const uint8_t *buf, size_t len, struct diag *d)
{
	int rc = 0;

	if (len < z->zstd_left) {
		z->zstd_left -= len;
		return zstd_step(z, buf, len, false, d);
	}
	/* the last write (more than the image holds would make zstd say the size is wrong) */
	if (len > 1)
		rc = zstd_step(z, buf, len - 1, false, d);
	if (rc == 0)
		rc = zstd_step(z, buf + len - 1, 1, true, d);
	z->zstd_left = 0;
	return rc;
}

/* The frame is complete after the image's last byte; only an image of no bytes, or one
 * shorter than announced (which zstd refuses), ends here. */
static int zstd_finish(struct build_compressor *z, struct diag *d)
{
	return z->zstd_ended ? 0 : zstd_step(z, NULL, 0, true, d);
}

/* ------------------------------------------------------------------ xz */

static int xz_open(struct build_compressor *z, int level, struct diag *d)
{
	lzma_options_lzma opt;
	lzma_mt mt = { .threads = threads(), .preset = (uint32_t)level, .check = LZMA_CHECK_CRC64 };

	if (lzma_lzma_preset(&opt, (uint32_t)level))
		return diag_error(d, "%s: xz has no level %d", z->path, level);
	/* the block size liblzma would choose, fixed here so that it never depends on anything
	 * but the level: three dictionaries, at least 1 MiB */
	mt.block_size = 3ull * opt.dict_size > (1u << 20) ? 3ull * opt.dict_size : (1u << 20);
	z->xz = (lzma_stream)LZMA_STREAM_INIT;
	if (lzma_stream_encoder_mt(&z->xz, &mt) != LZMA_OK)
		return diag_error(d, "%s: xz cannot start (level %d)", z->path, level);
	z->xz_open = true;
	return 0;
}

static int xz_step(struct build_compressor *z, const void *buf, size_t len, bool end,
		   struct diag *d)
{
	z->xz.next_in = buf;
	z->xz.avail_in = len;
	for (;;) {
		z->xz.next_out = z->out;
		z->xz.avail_out = OUT_BUF;
		lzma_ret r = lzma_code(&z->xz, end ? LZMA_FINISH : LZMA_RUN);
		if (r != LZMA_OK && r != LZMA_STREAM_END)
			return diag_error(d, "%s: xz failed (%s)", z->path,
					  r == LZMA_MEM_ERROR ? "out of memory" : "error");
		int rc = sink(z, OUT_BUF - z->xz.avail_out, d);
		if (rc < 0)
			return rc;
		if (end ? r == LZMA_STREAM_END : z->xz.avail_in == 0)
			return 0;
	}
}

/* ------------------------------------------------------------------ gzip */

static int gz_open(struct build_compressor *z, int level, struct diag *d)
{
	if (deflateInit2(&z->gz, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return diag_error(d, "%s: gzip has no level %d", z->path, level);
	z->gz_open = true;
	/* no name, no time; OS 3 (Unix) as gzip itself writes on every Unix */
	z->gz_header = (gz_header){ .os = 3 };
	if (deflateSetHeader(&z->gz, &z->gz_header) != Z_OK)
		return diag_error(d, "%s: gzip cannot start", z->path);
	return 0;
}

static int gz_step(struct build_compressor *z, const void *buf, size_t len, bool end,
		   struct diag *d)
{
	z->gz.next_in = (Bytef *)buf;
	z->gz.avail_in = (uInt)len;
	for (;;) {
		z->gz.next_out = z->out;
		z->gz.avail_out = OUT_BUF;
		int r = deflate(&z->gz, end ? Z_FINISH : Z_NO_FLUSH);
		if (r != Z_OK && r != Z_STREAM_END && r != Z_BUF_ERROR)
			return diag_error(d, "%s: gzip failed", z->path);
		int rc = sink(z, OUT_BUF - z->gz.avail_out, d);
		if (rc < 0)
			return rc;
		if (end ? r == Z_STREAM_END : z->gz.avail_in == 0)
			return 0;
	}
}

/* ------------------------------------------------------------------ the interface */

int build_compressor_new(enum build_compression kind, int level, uint64_t size, int fd,
			 const char *path, struct sha256 *sha, struct diag *d,
			 struct build_compressor **ret)
{
	struct build_compressor *z = calloc(1, sizeof(*z));
	int rc;

	if (!z || !(z->out = malloc(OUT_BUF))) {
		free(z);
		return -ENOMEM;
	}
	*z = (struct build_compressor){ .kind = kind,
					.fd = fd,
					.path = path,
					.sha = sha,
					.out = z->out };
	rc = kind == BUILD_COMPRESS_ZSTD ? zstd_open(z, level, size, d)
	     : kind == BUILD_COMPRESS_XZ ? xz_open(z, level, d)
					 : gz_open(z, level, d);
	if (rc < 0) {
		build_compressor_free(z);
		return rc;
	}
	*ret = z;
	return 0;
}

static int step(struct build_compressor *z, const void *buf, size_t len, bool end, struct diag *d)
{
	switch (z->kind) {
	case BUILD_COMPRESS_ZSTD:
		return end ? zstd_finish(z, d) : zstd_write(z, buf, len, d);
	case BUILD_COMPRESS_XZ:
		return xz_step(z, buf, len, end, d);
	default:
		return gz_step(z, buf, len, end, d);
	}
}

int build_compressor_write(struct build_compressor *z, const void *buf, size_t len, struct diag *d)
{
	return len ? step(z, buf, len, false, d) : 0;
}

int build_compressor_finish(struct build_compressor *z, struct diag *d)
{
	return step(z, NULL, 0, true, d);
}

void build_compressor_free(struct build_compressor *z)
{
	if (!z)
		return;
	ZSTD_freeCCtx(z->zstd);
	if (z->xz_open)
		lzma_end(&z->xz);
	if (z->gz_open)
		deflateEnd(&z->gz);
	free(z->out);
	free(z);
}

const char *build_compression_suffix(enum build_compression kind)
{
	static const char *const suffixes[] = { "", ".zst", ".xz", ".gz" };
	return (unsigned)kind < 4 ? suffixes[kind] : "";
}
