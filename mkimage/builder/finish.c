/* SPDX-License-Identifier: MIT */
/*
 * finish: what ships beside the image, once it is written (builder_priv.h). The image's
 * SHA-256 and the bmap ranges' are mostly taken already, while it was written (follow.c);
 * what is left, and the compressed copy, come from one pass over the image (feed.c) that
 * feeds the compressor and the image's SHA-256, while the SHA-256 of each bmap range is taken
 * meanwhile on another thread, which reads the mapped ranges back itself (with only a bmap
 * asked for, the build's thread reads and hashes them). The image's write-back to its disk is
 * started first, from that other thread: the fsync that puts it in place then finds most of
 * it done.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bytes.h"
#include "common/extent.h"
#include "common/sha256.h"
#include "common/strbuf.h"
#include "mkimage/builder/builder_priv.h"

/* The thread beside the build's: it starts the image's write-back, then with @ranges takes
 * the SHA-256 of each bmap range while the build's thread feeds the compressor and the
 * image's SHA-256. It blocks every signal, so the build's thread answers them all; it
 * tells nothing in the build's diag, only in its own, which the build takes once it has
 * joined it. */
struct ranges_thread {
	struct build_feed f; /* its own buffer and hasher; f.d = &diag, f.stop = &stop */
	struct diag diag;
	atomic_bool stop; /* the build's word to stop */
	bool ranges;      /* it hashes the ranges (else only the write-back) */
	bool writeback;   /* it starts the image's write-back */
	bool started;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond; /* signalled with @done */
	bool done;
	int rc; /* its result, once @done */
};

static void *ranges_thread_main(void *arg)
{
	struct ranges_thread *t = arg;
	int rc = 0;

	/* asynchronous: the pages written so far go to the disk while the pass hashes them
	 * (the fsync of the commit waits for the rest and tells any failure) */
	if (t->writeback)
		sync_file_range(t->f.b->image.fd, 0, 0, SYNC_FILE_RANGE_WRITE);
	if (t->ranges)
		rc = build_feed_walk_ranges(&t->f);
	pthread_mutex_lock(&t->lock);
	t->rc = rc;
	t->done = true;
	pthread_cond_signal(&t->cond);
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

/* Starts the thread with every signal blocked. A thread that cannot be made is no
 * failure: the build's thread then hashes the ranges after its own pass (started false). */
static void ranges_thread_start(struct ranges_thread *t)
{
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	t->started = pthread_create(&t->thread, NULL, ranges_thread_main, t) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Waits for the thread and joins it; with @stop_now (the build's pass failed), or when a
 * signal the build holds arrives meanwhile, it is told to stop first. Returns its result. */
static int ranges_thread_join(struct build *b, struct ranges_thread *t, bool stop_now)
{
	if (stop_now)
		atomic_store(&t->stop, true);
	pthread_mutex_lock(&t->lock);
	build_wait_thread(b, &t->lock, &t->cond, &t->done, &t->stop);
	pthread_mutex_unlock(&t->lock);
	pthread_join(t->thread, NULL);
	t->started = false;
	return t->rc;
}

/* The pass over the image: the build's thread feeds the compressor and the image's
 * SHA-256 (@f), the other thread (@t) the ranges' SHA-256 (@t->f); with only a bmap, the
 * build's thread walks the ranges itself. */
static int pass(struct build_feed *f, struct ranges_thread *t)
{
	const struct build_options *o = f->b->o;
	int rc = 0, trc = 0;

	if (t->ranges || t->writeback)
		ranges_thread_start(t);
	if (f->z || f->image_sha) {
		build_progress(f->b, o->compress ? "compressing into" : "checking",
			       o->compress ? o->compressed : o->output);
		rc = build_feed_walk(f, 0, f->size);
	} else if (f->range_sha) {
		build_progress(f->b, "mapping", o->bmap);
		rc = build_feed_walk_ranges(f);
	}
	if (t->started)
		trc = ranges_thread_join(f->b, t, rc < 0);
	else if (rc == 0 && t->ranges) /* no thread: its ranges here, after the image */
		t->f.stop = NULL, trc = build_feed_walk_ranges(&t->f);
	diag_take(f->b->d, &t->diag);
	return rc < 0 ? rc : trc;
}

static int write_all(struct build_file *out, const char *text, size_t len, struct diag *d)
{
	while (len) {
		ssize_t w = write(out->fd, text, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return diag_error(d, "%s: %s", out->path,
					  w < 0 ? strerror(errno) : "write failed");
		text += w;
		len -= (size_t)w;
	}
	return 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* @name as a checksum line holds it: a backslash, a newline and a carriage return escaped
 * as the two characters \\, \n and \r (a line that holds an escape starts with a backslash, which
 * tells `sha256sum -c` to undo them: GNU coreutils' format, which also takes a carriage
 * return at the end of a line for a DOS line end). */
static int put_name(struct strbuf *s, const char *name)
{
	int rc = 0;

	for (const char *p = name; rc == 0 && *p; p++)
		rc = *p == '\\'   ? strbuf_puts(s, "\\\\")
		     : *p == '\n' ? strbuf_puts(s, "\\n")
		     : *p == '\r' ? strbuf_puts(s, "\\r")
				  : strbuf_putc(s, *p);
	return rc;
}

/* One `sha256sum` line of @digest: "HEX  NAME", or "\HEX  NAME" with the name escaped
 * (put_name()). */
static int digest_line(struct strbuf *s, const uint8_t digest[SHA256_LEN], const char *path)
{
	const char *name = base_name(path);
	char line[70];
	int rc = 0;

	bytes_hex(digest, SHA256_LEN, line);
	memcpy(line + 64, "  ", 3);
	if (strpbrk(name, "\\\n\r"))
		rc = strbuf_putc(s, '\\');
	if (rc == 0)
		rc = strbuf_puts(s, line);
	if (rc == 0)
		rc = put_name(s, name);
	return rc ? rc : strbuf_putc(s, '\n');
}

/* digest_line() of the digest @sha has taken. */
static int checksum_line(struct strbuf *s, struct sha256 *sha, const char *path)
{
	uint8_t digest[SHA256_LEN];

	return sha256_final(sha, digest) < 0 ? -EIO : digest_line(s, digest, path);
}

static int write_bmap(struct build *b)
{
	struct strbuf s = { 0 };
	int rc = build_bmap_text(&b->map, b->plan->image_size, base_name(b->o->output), b->sha, &s);

	if (rc == 0)
		rc = write_all(&b->bmap, s.s, s.len, b->d);
	else if (rc != -EIO) /* -EIO: the hasher's diag says so */
		diag_error(b->d, "%s: %s", b->o->bmap, strerror(-rc));
	strbuf_release(&s);
	return rc;
}

/* The checksum file; the image's digest is @image_digest, or that @image_sha has taken. */
static int write_checksums(struct build *b, const uint8_t *image_digest, struct sha256 *image_sha,
			   struct sha256 *compressed_sha)
{
	struct strbuf s = { 0 };
	int rc = 0;

	if (b->o->write_raw)
		rc = image_digest ? digest_line(&s, image_digest, b->o->output)
				  : checksum_line(&s, image_sha, b->o->output);
	if (rc == 0 && b->o->compress)
		rc = checksum_line(&s, compressed_sha, b->o->compressed);
	for (size_t i = 0; rc == 0 && i < b->n_simg; i++)
		rc = digest_line(&s, b->simg_sha[i], b->simg[i].path);
	if (rc == 0)
		rc = write_all(&b->sha256, s.s, s.len, b->d);
	else if (rc != -EIO) /* -EIO: the hasher's diag says so */
		diag_error(b->d, "%s: %s", b->o->sha256, strerror(-rc));
	strbuf_release(&s);
	return rc;
}

/* The outputs, unnamed where their file system allows. One that gets a hidden name (its
 * file system has no O_TMPFILE, while the image's may have) must be removed before a
 * signal ends the process: SIGINT, SIGTERM and SIGHUP are held while they are created and,
 * when one has a name, from then on (build_interrupted() sees them, as for a named image). */
static int create_outputs(struct build *b)
{
	const struct build_options *o = b->o;
	bool held = !b->signals_blocked;
	int rc = 0;

	if (held)
		build_hold_signals(b);
	if (o->compress)
		rc = build_file_create(&b->compressed, o->compressed, "the compressed image", 0,
				       b->d);
	if (rc == 0 && o->bmap)
		rc = build_file_create(&b->bmap, o->bmap, "the bmap", 0, b->d);
	if (rc == 0 && o->sha256)
		rc = build_file_create(&b->sha256, o->sha256, "the checksum file", 0, b->d);
	/* nothing named: a signal may end the process at once */
	if (held && !b->compressed.tmp_path && !b->bmap.tmp_path && !b->sha256.tmp_path)
		build_release_signals(b);
	return rc;
}

static int digest_new(struct sha256 **ret, bool wanted, struct diag *d)
{
	*ret = NULL;
	return wanted ? sha256_new(ret, d) : 0;
}

/* The other thread's part, set up in @t: its hasher and buffer when it hashes the ranges
 * (the build's thread feeds the compressor or the image's SHA-256), and the write-back of
 * an image that will be put in place. */
static int ranges_thread_setup(struct build *b, struct build_feed *f, struct ranges_thread *t,
			       bool ranges_taken)
{
	const struct build_options *o = b->o;

	t->f = (struct build_feed){ .b = b,
				    .d = &t->diag,
				    .stop = &t->stop,
				    .size = f->size,
				    .map = f->map,
				    .zeros = f->zeros,
				    .chunk = f->chunk };
	t->ranges = o->bmap && !ranges_taken && (f->z || f->image_sha);
	t->writeback = o->write_raw;
	if (t->ranges && !(t->f.buf = malloc(BUILD_FEED_CHUNK)))
		return -ENOMEM;
	return t->ranges ? sha256_new(&t->f.range_sha, &t->diag) : 0;
}

/* While the digests' thread hashes what the writers left it, the image's bytes go to its
 * disk (they would with the commit's fsync, which then finds them there): the wait for its
 * last bytes is not added to the wait for the disk. The error is told here, as the commit
 * would; a second fsync would not tell it again. */
static int sync_followed_image(struct build *b)
{
	if (!b->follow || !b->o->write_raw || fdatasync(b->image.fd) == 0)
		return 0;
	int e = errno;
	return diag_errno(b->d, -e, "%s: cannot write it: %s", b->o->output, strerror(e));
}

/* The thread's digests (build_follow_take()), its last bytes hashed while the image's go to
 * its disk. */
static int take_followed(struct build *b, uint8_t digest[SHA256_LEN], bool *image, bool *ranges)
{
	int rc = sync_followed_image(b);

	if (rc == 0)
		build_follow_take(b, digest, image, ranges);
	return rc;
}

/* After a pass that only compressed: the ranges' digests the thread took, or where it took
 * none (a step of the map it could not follow), those of the pass's buffers @f read now. */
static int take_followed_late(struct build *b, struct build_feed *f)
{
	uint8_t unused[SHA256_LEN];
	bool image = false, ranges = false;
	int rc = take_followed(b, unused, &image, &ranges);

	if (rc < 0 || ranges || !b->o->bmap)
		return rc;
	struct build_feed r = { .b = b,
				.d = b->d,
				.size = f->size,
				.map = f->map,
				.buf = f->buf,
				.zeros = f->zeros,
				.chunk = f->chunk };
	rc = sha256_new(&r.range_sha, b->d);
	if (rc == 0) {
		build_progress(b, "mapping", b->o->bmap);
		rc = build_feed_walk_ranges(&r);
	}
	sha256_free(r.range_sha);
	return rc;
}

int build_finish(struct build *b)
{
	const struct build_options *o = b->o;
	struct build_feed f = { .b = b,
				.d = b->d,
				.size = b->plan->image_size,
				.map = &b->map,
				.chunk = BUILD_FEED_CHUNK };
	struct ranges_thread t = { .diag = { 0 } };
	struct sha256 *compressed_sha = NULL;
	uint8_t followed[SHA256_LEN];
	bool image_taken, ranges_taken;
	int rc;

	if (!o->compress && !o->bmap && !o->sha256 && !o->simg)
		return 0;
	build_follow_written(b);
	build_map_to_blocks(&b->map, BMAP_BLOCK_SIZE, f.size);
	/* a compressed copy, and no digest of the raw image: the pass only compresses, while the
	 * thread hashes what the writers left it (the ranges are taken after it, assumed meanwhile) */
	bool take_late = b->follow && o->compress && !(o->sha256 && o->write_raw);
	image_taken = false;
	ranges_taken = take_late;
	rc = take_late ? 0 : take_followed(b, followed, &image_taken, &ranges_taken);
	if (rc < 0)
		return rc;
	rc = build_thread_sync_init(&t.lock, &t.cond);
	if (rc < 0)
		return diag_errno(b->d, rc, "%s: %s", o->output, strerror(-rc));
	if (rc == 0)
		rc = create_outputs(b);
	if (rc == 0) {
		f.buf = malloc(BUILD_FEED_CHUNK);
		f.zeros = calloc(1, BUILD_FEED_CHUNK);
		rc = f.buf && f.zeros ? 0 : -ENOMEM;
	}
	if (rc == 0)
		rc = digest_new(&f.image_sha, o->sha256 && o->write_raw && !image_taken, b->d);
	if (rc == 0)
		rc = digest_new(&compressed_sha, o->sha256 && o->compress, b->d);
	if (rc == 0)
		rc = digest_new(&f.range_sha,
				o->bmap && !ranges_taken && !o->compress && !f.image_sha, b->d);
	if (rc == 0 && o->compress)
		rc = build_compressor_new(o->compress, o->level, f.size, b->compressed.fd,
					  o->compressed, compressed_sha, b->d, &f.z);
	if (rc == 0)
		rc = ranges_thread_setup(b, &f, &t, ranges_taken);
	diag_take(b->d, &t.diag);
	if (rc == 0 && (f.z || f.image_sha || f.range_sha))
		rc = pass(&f, &t);
	if (rc == 0 && take_late)
		rc = take_followed_late(b, &f);
	if (rc == 0 && o->simg)
		rc = build_write_simg(b);
	if (rc == 0 && f.z)
		rc = build_compressor_finish(f.z, b->d);
	if (rc == 0 && o->bmap)
		rc = write_bmap(b);
	if (rc == 0 && o->sha256)
		rc = write_checksums(b, image_taken ? followed : NULL, f.image_sha, compressed_sha);
	build_compressor_free(f.z);
	sha256_free(f.image_sha);
	sha256_free(compressed_sha);
	sha256_free(f.range_sha);
	sha256_free(t.f.range_sha);
	free(t.f.buf);
	free(f.buf);
	free(f.zeros);
	pthread_cond_destroy(&t.cond);
	pthread_mutex_destroy(&t.lock);
	diag_release(&t.diag);
	return rc;
}
