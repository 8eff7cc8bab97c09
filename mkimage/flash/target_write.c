/* SPDX-License-Identifier: MIT */
/*
 * target_write: one target, from open to the re-read partition table (flash_priv.h).
 * The device is opened O_DIRECT and O_EXCL at its check, through the descriptor its name
 * was looked up by (flash_target_hold); the worker inherits it and holds it until its
 * verify ends: nobody mounts it meanwhile, and neither the writes nor the read-back go
 * through the page cache, which could otherwise answer the verify with what was written
 * rather than what the card holds.
 * Writes are whole logical blocks from aligned buffers, up to 4 MiB, in ascending order.
 * The read-back runs beside the writes, in a thread of its own that follows them at a
 * distance: a stretch is read back once an fsync has put it on the card (every 64 MiB
 * written), so a card that reads while it writes is verified in little more than the time
 * its writes take.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "common/sha256.h"
#include "mkimage/flash/flash_priv.h"

#define IO_SIZE (4u << 20)
#define IO_ALIGN 4096u
#define DISCARD_PIECE (256ull << 20)
#define SYNC_EVERY (64ull << 20) /* written bytes between two fsyncs the read-back waits for */

struct worker {
	struct flash_job *j;
	int fd;
	unsigned lbs;  /* the device's logical block size */
	uint64_t size; /* the device's size in bytes */
	bool wrote;    /* a write was issued (t_first_write is set) */
	uint8_t *buf;  /* IO_SIZE bytes, IO_ALIGN-aligned: the writes' */
	/* the read-back, in its own thread */
	uint8_t *vbuf; /* IO_SIZE bytes, IO_ALIGN-aligned: the read-back's */
	uint8_t *ibuf; /* IO_SIZE bytes: the card's own bytes the read-back expects
				(--card-values), or NULL */
	pthread_t verifier;
	bool verifying;
	pthread_mutex_t mu; /* guards durable and writes_over */
	pthread_cond_t cv;
	uint64_t durable; /* the bytes below it are written and flushed to the card */
	bool writes_over; /* no more writes come (done or failed) */
	int verify_rc;
};

double flash_seconds(const struct timespec *from, const struct timespec *to)
{
	return (double)(to->tv_sec - from->tv_sec) + (double)(to->tv_nsec - from->tv_nsec) / 1e9;
}

static void now(struct timespec *t)
{
	clock_gettime(CLOCK_MONOTONIC, t);
}

void flash_job_lock(struct flash_job *j)
{
	if (pthread_mutex_lock(&j->lock) == EOWNERDEAD)
		pthread_mutex_consistent(&j->lock);
}

void flash_job_unlock(struct flash_job *j)
{
	pthread_mutex_unlock(&j->lock);
}

bool flash_job_stopped(struct flash_job *j)
{
	flash_job_lock(j);
	bool stopped = j->result != FLASH_PASS || j->abandoned;
	flash_job_unlock(j);
	return stopped;
}

/* The job's first failure, at @stage (or the stage it is in, for a negative one). */
static void fail_at(struct flash_job *j, int stage, int err, const char *fmt, va_list ap)
{
	flash_job_lock(j);
	if (j->result == FLASH_PASS && !j->abandoned) {
		vsnprintf(j->error, sizeof(j->error), fmt, ap);
		j->error_errno = err;
		if (stage >= 0)
			j->stage = (enum flash_stage)stage;
		j->result = FLASH_FAIL;
	}
	flash_job_unlock(j);
}

void flash_job_fail(struct flash_job *j, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fail_at(j, -1, err, fmt, ap);
	va_end(ap);
}

/* The stage a job is in; a failed job keeps the stage it failed at. Only the writer passes
 * @writes_over: the time its writes ended. */
static void set_stage(struct flash_job *j, enum flash_stage s, bool writes_over)
{
	flash_job_lock(j);
	if (j->result == FLASH_PASS) {
		j->stage = s;
		now(&j->t_progress);
		if (writes_over && !j->t_write_end.tv_sec)
			j->t_write_end = j->t_progress;
	}
	flash_job_unlock(j);
}

/* The read-back failed: the job fails at verify, whatever stage the writer is in. */
__attribute__((format(printf, 3, 4))) static void fail_verify(struct flash_job *j, int err,
							      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fail_at(j, FLASH_STAGE_VERIFY, err, fmt, ap);
	va_end(ap);
}

static void count(struct flash_job *j, uint64_t *field, uint64_t n)
{
	flash_job_lock(j);
	*field += n;
	now(&j->t_progress);
	flash_job_unlock(j);
}

/* [@off, @off + @len) of the image into @buf; a failure fails the job (-EIO). */
static int pread_image(struct worker *w, void *buf, size_t len, uint64_t off)
{
	ssize_t got;

	do
		got = pread(w->j->im->fd, buf, len, (off_t)off);
	while (got < 0 && errno == EINTR);
	if (got == (ssize_t)len)
		return 0;
	flash_job_fail(w->j, got < 0 ? errno : EIO, "reading the image: %s",
		       got < 0 ? strerror(errno) : "it became shorter");
	return -EIO;
}

/* [@off, @off + @len) of the image into w->buf, padded with zeros to whole blocks. */
static int read_image(struct worker *w, uint64_t off, size_t len, size_t *ret_padded)
{
	size_t padded = (len + w->lbs - 1) / w->lbs * w->lbs;

	if (pread_image(w, w->buf, len, off) < 0)
		return -EIO;
	memset(w->buf + len, 0, padded - len);
	*ret_padded = padded;
	return 0;
}

static int put(struct worker *w, const uint8_t *p, size_t len, uint64_t off)
{
	if (!w->wrote) {
		w->wrote = true;
		flash_job_lock(w->j);
		if (!w->j->t_first_write.tv_sec && !w->j->t_first_write.tv_nsec)
			now(&w->j->t_first_write);
		flash_job_unlock(w->j);
	}
	while (len) {
		ssize_t n = pwrite(w->fd, p, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : ENOSPC;
			flash_job_fail(w->j, e, "writing bytes %llu-%llu: %s",
				       (unsigned long long)off, (unsigned long long)(off + len - 1),
				       strerror(e));
			return -e;
		}
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* Tells the read-back that everything below @upto is on the card (@over: no more writes). */
static void publish(struct worker *w, uint64_t upto, bool over)
{
	if (!w->verifying)
		return;
	pthread_mutex_lock(&w->mu);
	w->durable = upto;
	w->writes_over |= over;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

/* fsync, then what was written before it is on the card. */
static int flush(struct worker *w, uint64_t upto)
{
	if (fsync(w->fd) < 0) {
		flash_job_fail(w->j, errno, "flushing the writes: %s", strerror(errno));
		return -EIO;
	}
	publish(w, upto, false);
	return 0;
}

static int write_ranges(struct worker *w)
{
	const struct flash_image *im = w->j->im;
	uint64_t unsynced = 0;

	set_stage(w->j, FLASH_STAGE_WRITE, false);
	for (size_t i = 0; i < im->n_ranges; i++) {
		const struct flash_range *r = &im->ranges[i];
		for (uint64_t pos = r->start; pos < r->end;) {
			size_t n = r->end - pos < IO_SIZE ? (size_t)(r->end - pos) : IO_SIZE,
			       padded;
			if (flash_job_stopped(w->j) || read_image(w, pos, n, &padded) < 0)
				return -EIO;
			if (w->j->card) /* the card's own bytes where its values go */
				flash_patches_overlay(&w->j->card->patches, pos, w->buf, n);
			if (put(w, w->buf, padded, pos) < 0)
				return -EIO;
			count(w->j, &w->j->bytes_written, n);
			pos += n;
			if ((unsynced += n) >= SYNC_EVERY && w->verifying) {
				if (flush(w, pos) < 0)
					return -EIO;
				unsynced = 0;
			}
		}
	}
	return flush(w, UINT64_MAX);
}

/* ------------------------------------------------------------------ gaps */

/* Gap @i (0 to n_ranges: the stretch before range @i, the last one after every range up
 * to the image's end) on the device's block grid, into [*@start, *@end). Returns false
 * when it holds no whole block. */
static bool gap_of(const struct worker *w, size_t i, uint64_t *start, uint64_t *end)
{
	const struct flash_image *im = w->j->im;
	uint64_t from = i ? im->ranges[i - 1].end : 0;
	uint64_t to = i < im->n_ranges ? im->ranges[i].start : im->size;

	*start = (from + w->lbs - 1) / w->lbs * w->lbs;
	*end = to / w->lbs * w->lbs;
	return *start < *end;
}

/* Sets the job's warning, after the one it holds. */
static void add_warning(struct flash_job *j, const char *text)
{
	flash_job_lock(j);
	size_t len = strlen(j->warning);
	snprintf(j->warning + len, sizeof(j->warning) - len, "%s%s", len ? "; " : "", text);
	flash_job_unlock(j);
}

/* The stretch [@start, @end) between ranges, on the device's block grid. */
static int fill_gap(struct worker *w, uint64_t start, uint64_t end, bool *discard_ok)
{
	/* in pieces, so that a card discarding a large gap slowly still shows progress */
	for (uint64_t pos = start;
	     w->j->o->gaps == FLASH_GAPS_DISCARD && *discard_ok && pos < end;) {
		uint64_t range[2] = { pos, end - pos < DISCARD_PIECE ? end - pos : DISCARD_PIECE };
		if (flash_job_stopped(w->j))
			return -EIO;
		if (ioctl(w->fd, BLKDISCARD, range) < 0) {
			*discard_ok = false; /* unsupported here: the gaps keep what they hold */
			return 0;
		}
		count(w->j, &w->j->gap_bytes, range[1]);
		pos += range[1];
	}
	if (w->j->o->gaps == FLASH_GAPS_DISCARD)
		return 0;
	if (w->j->o->gaps != FLASH_GAPS_ZERO)
		return 0;
	memset(w->buf, 0, IO_SIZE);
	for (uint64_t pos = start; pos < end;) {
		size_t n = end - pos < IO_SIZE ? (size_t)(end - pos) : IO_SIZE;
		if (flash_job_stopped(w->j) || put(w, w->buf, n, pos) < 0)
			return -EIO;
		count(w->j, &w->j->gap_bytes, n);
		pos += n;
	}
	return 0;
}

static int fill_gaps(struct worker *w)
{
	const struct flash_image *im = w->j->im;
	bool discard_ok = true;
	uint64_t start, end;
	int rc = 0;

	if (w->j->o->gaps == FLASH_GAPS_KEEP)
		return 0;
	set_stage(w->j, FLASH_STAGE_GAPS, true);
	for (size_t i = 0; rc == 0 && i <= im->n_ranges; i++)
		if (gap_of(w, i, &start, &end))
			rc = fill_gap(w, start, end, &discard_ok);
	if (rc == 0 && w->j->o->gaps == FLASH_GAPS_ZERO && fsync(w->fd) < 0) {
		flash_job_fail(w->j, errno, "flushing the zeros of the gaps: %s", strerror(errno));
		rc = -EIO;
	}
	if (rc == 0 && !discard_ok)
		add_warning(w->j, "the device cannot discard: the gaps keep what they held");
	return rc;
}

/* ------------------------------------------------------------------ verify */

/* Waits until [.., @end) is on the card. Returns false when the writes ended short of it. */
static bool wait_durable(struct worker *w, uint64_t end)
{
	bool ok;

	pthread_mutex_lock(&w->mu);
	while (w->durable < end && !w->writes_over)
		pthread_cond_wait(&w->cv, &w->mu);
	ok = w->durable >= end;
	pthread_mutex_unlock(&w->mu);
	return ok;
}

/* Whether the card's own bytes (--card-values) differ from the image's in [@start, @end). */
static bool patched(const struct worker *w, uint64_t start, uint64_t end)
{
	const struct flash_patches *p = w->j->card ? &w->j->card->patches : NULL;

	for (size_t i = 0; p && i < p->n; i++)
		if (p->v[i].offset < end && p->v[i].offset + p->v[i].len > start)
			return true;
	return false;
}

/* The @n bytes counted as verified of a range whose checksum was not proven come off
 * bytes_verified, which counts only bytes that matched. Returns -EIO. */
static int unverified(struct worker *w, uint64_t n)
{
	flash_job_lock(w->j);
	w->j->bytes_verified -= n;
	flash_job_unlock(w->j);
	return -EIO;
}

/* Range @r read back differs from @what: the job fails, naming it. Returns -EIO. */
static int range_differs(struct worker *w, const struct flash_range *r, const char *what)
{
	flash_job_lock(w->j);
	w->j->has_bad_range = true;
	w->j->first_bad_start = r->start;
	w->j->first_bad_end = r->end;
	flash_job_unlock(w->j);
	fail_verify(w->j, 0, "bytes %llu-%llu read back differ from %s",
		    (unsigned long long)r->start, (unsigned long long)r->end - 1, what);
	return -EIO;
}

/* A range that holds the card's own bytes: its @n bytes at @pos read back (in w->vbuf)
 * compared with the image's, the card's values put in. Returns 0 or -EIO (job failed). */
static int compare_own(struct worker *w, const struct flash_range *r, uint64_t pos, size_t n)
{
	if (pread_image(w, w->ibuf, n, pos) < 0)
		return -EIO;
	flash_patches_overlay(&w->j->card->patches, pos, w->ibuf, n);
	if (memcmp(w->ibuf, w->vbuf, n) == 0)
		return 0;
	return range_differs(w, r, "the card's own");
}

/* [@pos, @pos + @n) of the card into w->vbuf (whole blocks). Returns 0 or -EIO with the
 * job failed at verify. */
static int read_back(struct worker *w, uint64_t pos, size_t n)
{
	size_t padded = (n + w->lbs - 1) / w->lbs * w->lbs;
	ssize_t got;

	do
		got = pread(w->fd, w->vbuf, padded, (off_t)pos);
	while (got < 0 && errno == EINTR);
	if (got >= (ssize_t)n)
		return 0;
	int e = got < 0 ? errno : EIO;
	fail_verify(w->j, e, "reading bytes %llu-%llu back: %s", (unsigned long long)pos,
		    (unsigned long long)(pos + n - 1),
		    got < 0 ? strerror(e) : "the card ends there");
	return -EIO;
}

static int verify_range(struct worker *w, const struct flash_range *r, struct sha256 *sha)
{
	uint8_t sum[SHA256_LEN];
	/* a range with the card's own values is compared byte for byte: its checksum is the
	 * image's (which was checked before any card was touched) */
	bool own = w->ibuf && patched(w, r->start, r->end);
	/* counted as the read-back goes (the progress shows it), taken back unless the
	 * range's checksum matches; a range compared byte for byte counts what matched */
	uint64_t counted = 0;

	for (uint64_t pos = r->start; pos < r->end;) {
		size_t n = r->end - pos < IO_SIZE ? (size_t)(r->end - pos) : IO_SIZE;
		if (!wait_durable(w, pos + n) || flash_job_stopped(w->j) ||
		    read_back(w, pos, n) < 0 || (own && compare_own(w, r, pos, n) < 0))
			return unverified(w, counted);
		if (!own)
			sha256_update(sha, w->vbuf, n);
		count(w->j, &w->j->bytes_verified, n);
		counted += own ? 0 : n;
		pos += n;
	}
	if (sha256_final(sha, sum) < 0) {
		fail_verify(w->j, EIO, "the SHA-256 of bytes %llu-%llu read back: libcrypto failed",
			    (unsigned long long)r->start, (unsigned long long)r->end - 1);
		return unverified(w, counted);
	}
	if (own || memcmp(sum, r->sha256, 32) == 0)
		return 0;
	unverified(w, counted);
	return range_differs(w, r, "the image");
}

/* The read-back thread: every mapped range, as the writes make it durable. */
static void *verify_ranges(void *arg)
{
	struct worker *w = arg;
	const struct flash_image *im = w->j->im;
	struct sha256 *sha = NULL;
	struct diag d; /* what the hasher tells: flash_job_fail() takes it on */
	int rc;

	diag_init(&d);
	rc = sha256_new(&sha, &d);
	if (rc < 0)
		flash_job_fail(w->j, -rc, "%s", d.n ? d.msgs[0].text : "out of memory");
	/* whatever a buffer of the kernel still holds for this device goes first */
	if (rc == 0)
		ioctl(w->fd, BLKFLSBUF, 0);
	for (size_t i = 0; rc == 0 && i < im->n_ranges; i++)
		rc = verify_range(w, &im->ranges[i], sha);
	sha256_free(sha);
	diag_release(&d);
	w->verify_rc = rc;
	return NULL;
}

/*
 * The zeros --gaps zero wrote, read back once the writes are over: they are the image's
 * as much as its data (without a bmap, the holes of a raw image and its zero blocks).
 * Each piece that reads back all zeros counts as verified.
 */
static int verify_gaps(struct worker *w)
{
	const struct flash_image *im = w->j->im;
	uint64_t start, end;

	for (size_t i = 0; i <= im->n_ranges; i++) {
		if (!gap_of(w, i, &start, &end))
			continue;
		for (uint64_t pos = start; pos < end;) {
			size_t n = end - pos < IO_SIZE ? (size_t)(end - pos) : IO_SIZE;
			struct flash_range piece = { .start = pos, .end = pos + n };
			if (flash_job_stopped(w->j) || read_back(w, pos, n) < 0)
				return -EIO;
			if (w->vbuf[0] || memcmp(w->vbuf, w->vbuf + 1, n - 1))
				return range_differs(w, &piece, "the zeros written there");
			count(w->j, &w->j->bytes_verified, n);
			pos += n;
		}
	}
	flash_job_lock(w->j);
	w->j->gaps_verified = true;
	flash_job_unlock(w->j);
	return 0;
}

/* A card that passes with the holes of a bmap-less image (the image's zeros) not read
 * back says so: --gaps keep left them as they were, discard to what the card makes of
 * them. With a bmap, what it does not map is no part of the image. */
static void warn_unverified(struct flash_job *j)
{
	const struct flash_image *im = j->im;
	char text[120];

	if (im->bmap_path || im->mapped_bytes == im->size || !j->o->verify)
		return;
	snprintf(text, sizeof(text),
		 "the image's holes (%llu bytes) were not read back "
		 "(--gaps %s)",
		 (unsigned long long)(im->size - im->mapped_bytes),
		 j->o->gaps == FLASH_GAPS_KEEP ? "keep" : "discard");
	add_warning(j, text);
}

/* Starts the read-back beside the writes. */
static int start_verify(struct worker *w)
{
	if (posix_memalign((void **)&w->vbuf, IO_ALIGN, IO_SIZE) != 0 ||
	    (w->j->card && !(w->ibuf = malloc(IO_SIZE)))) {
		flash_job_fail(w->j, ENOMEM, "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	if (pthread_create(&w->verifier, NULL, verify_ranges, w) != 0) {
		flash_job_fail(w->j, EAGAIN, "no thread could be started for its read-back");
		return -EAGAIN;
	}
	w->verifying = true;
	return 0;
}

/* Waits for the read-back to end (the writes are over, or failed). */
static int finish_verify(struct worker *w, int rc)
{
	if (!w->verifying)
		return rc;
	publish(w, w->durable, true);
	if (rc == 0)
		set_stage(w->j, FLASH_STAGE_VERIFY, true);
	pthread_join(w->verifier, NULL);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	return rc ? rc : w->verify_rc;
}

/* ------------------------------------------------------------------ the job */

int flash_target_lookup(const char *path, struct stat *st)
{
	int fd = open(path, O_PATH | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0) {
		int rc = -errno;
		close(fd);
		return rc;
	}
	return fd;
}

int flash_target_hold(int pfd)
{
	char self[40];

	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	int fd = open(self, O_RDWR | O_DIRECT | O_EXCL | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

void flash_target_hold_error(char *buf, size_t n, int err)
{
	snprintf(buf, n, "cannot open it for writing: %s%s", strerror(err),
		 err == EBUSY    ? " (mounted, or held by another program)"
		 : err == ENOENT ? " (/proc/self/fd, through which it is opened, is missing)"
				 : "");
}

/* The job's device, held since its check (w->fd): its block size and size. */
static int size_target(struct worker *w)
{
	struct flash_job *j = w->j;
	uint64_t size = 0;
	int lbs = 0;

	if (ioctl(w->fd, BLKSSZGET, &lbs) < 0 || lbs < 512 || lbs > (int)IO_ALIGN ||
	    ioctl(w->fd, BLKGETSIZE64, &size) < 0) {
		flash_job_fail(j, errno, "not a block device the kernel can size");
		return -EIO;
	}
	if (size < j->im->size) {
		flash_job_fail(j, ENOSPC, "the card holds %llu bytes, the image needs %llu",
			       (unsigned long long)size, (unsigned long long)j->im->size);
		return -EIO;
	}
	w->lbs = (unsigned)lbs;
	w->size = size;
	return 0;
}

void flash_job_run(struct flash_job *j, int fd)
{
	struct worker w = { .j = j, .fd = fd };
	int rc = size_target(&w);

	if (!j->o->verify) /* a pass then says the card took the writes, not what it holds */
		add_warning(j, "not read back (--no-verify)");
	if (j->im->bmap_path && j->im->mapped_bytes == 0)
		add_warning(j, "nothing to write: the bmap maps no block");

	if (rc == 0 && posix_memalign((void **)&w.buf, IO_ALIGN, IO_SIZE) != 0) {
		flash_job_fail(j, ENOMEM, "out of memory");
		rc = -ENOMEM;
	}
	if (rc == 0 && j->o->check_capacity)
		rc = flash_capacity_check(j, w.fd, w.lbs, w.size);
	if (rc == 0 && j->o->verify)
		rc = start_verify(&w);
	if (rc == 0)
		rc = write_ranges(&w);
	if (rc == 0)
		rc = fill_gaps(&w);
	rc = finish_verify(&w, rc);
	if (rc == 0 && j->o->verify && j->o->gaps == FLASH_GAPS_ZERO)
		rc = verify_gaps(&w);
	if (rc == 0 && !j->gaps_verified)
		warn_unverified(j);
	if (rc == 0) /* the kernel reads the new table; a device without partitions refuses */
		ioctl(w.fd, BLKRRPART, 0);
	if (w.fd >= 0)
		close(w.fd);
	free(w.buf);
	free(w.vbuf);
	free(w.ibuf);
	flash_job_lock(j);
	if (rc == 0 && j->result == FLASH_PASS)
		j->stage = FLASH_STAGE_DONE;
	now(&j->t_end);
	j->finished = true;
	flash_job_unlock(j);
}
