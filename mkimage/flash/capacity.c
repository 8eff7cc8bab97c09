/*
 * capacity: --check-capacity (flash_priv.h). A card that claims more than it holds keeps
 * only its real capacity and maps the rest onto it (the high address bits are not wired),
 * or loses what is written past it. Stamps of one block each, at every multiple of a
 * power-of-two stride and at the last block, written first and read back after: a stamp
 * that shows another stamp of this check names the wrap, one that shows other bytes the
 * loss. A wrap at a multiple of the stride lands every stamp past it on another stamp (a
 * wrap that divides the stride, on the first one), so one write and one read per stamp
 * find it: seconds, not the minutes a full write and read-back of the card would take.
 * Nothing is restored: the image is written over the card next, and its own ranges after.
 */
#include <errno.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <unistd.h>

#include "common/units.h"
#include "mkimage/flash/flash_priv.h"

#define STAMP_SIZE 4096u
static const char STAMP_MAGIC[16] = "sdimg capacity";

/* One check: its random id, and where its stamps go. */
struct stamps {
	uint8_t id[16];
	uint64_t stride, size, last; /* last: the last block's offset */
	size_t count;
};

static uint64_t stamp_offset(const struct stamps *s, size_t i)
{
	return i + 1 == s->count ? s->last : (uint64_t)i * s->stride;
}

static void put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* The stamp for byte @off: magic, the check's id, @off, then bytes that depend on both. */
static void make_stamp(const struct stamps *s, uint64_t off, uint8_t *buf)
{
	uint64_t x = get_u64(s->id) ^ get_u64(s->id + 8) ^ (off * 0x9e3779b97f4a7c15ull) ^ 1;

	memcpy(buf, STAMP_MAGIC, 16);
	memcpy(buf + 16, s->id, 16);
	put_u64(buf + 32, off);
	for (size_t i = 40; i + 8 <= STAMP_SIZE; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		put_u64(buf + i, x);
	}
}

/* The offset whose stamp @buf holds (a stamp of this check), or UINT64_MAX. */
static uint64_t stamp_of(const struct stamps *s, const uint8_t *buf, uint8_t *scratch)
{
	if (memcmp(buf, STAMP_MAGIC, 16) != 0 || memcmp(buf + 16, s->id, 16) != 0)
		return UINT64_MAX;
	uint64_t off = get_u64(buf + 32);
	make_stamp(s, off, scratch);
	return memcmp(buf, scratch, STAMP_SIZE) == 0 ? off : UINT64_MAX;
}

static void plan(struct stamps *s, uint64_t size, unsigned lbs)
{
	uint64_t want = (size + FLASH_CAPACITY_STAMPS - 2) / (FLASH_CAPACITY_STAMPS - 1);

	s->size = size;
	s->stride = STAMP_SIZE;
	while (s->stride < want)
		s->stride <<= 1;
	s->last = (size - STAMP_SIZE) / lbs * lbs;
	s->count = (size_t)((s->last + s->stride - 1) / s->stride) + 1; /* the last one too */
}

static void progress(struct flash_job *j, bool first_write)
{
	flash_job_lock(j);
	clock_gettime(CLOCK_MONOTONIC, &j->t_progress);
	if (first_write && !j->t_first_write.tv_sec && !j->t_first_write.tv_nsec)
		j->t_first_write = j->t_progress;
	flash_job_unlock(j);
}

static bool gone(struct flash_job *j)
{
	flash_job_lock(j);
	bool g = j->result != FLASH_PASS || j->abandoned;
	flash_job_unlock(j);
	return g;
}

static int write_stamps(struct flash_job *j, int fd, const struct stamps *s, uint8_t *buf)
{
	for (size_t i = 0; i < s->count; i++) {
		uint64_t off = stamp_offset(s, i);
		make_stamp(s, off, buf);
		if (gone(j))
			return -EIO;
		if (i == 0)
			progress(j, true);
		ssize_t n;
		do
			n = pwrite(fd, buf, STAMP_SIZE, (off_t)off);
		while (n < 0 && errno == EINTR);
		if (n != (ssize_t)STAMP_SIZE) {
			int e = n < 0 ? errno : ENOSPC;
			flash_job_fail(j, e, "writing the capacity stamp at byte %llu: %s",
				       (unsigned long long)off, strerror(e));
			return -EIO;
		}
		progress(j, false);
	}
	if (fsync(fd) < 0) {
		flash_job_fail(j, errno, "flushing the capacity stamps: %s", strerror(errno));
		return -EIO;
	}
	ioctl(fd, BLKFLSBUF, 0); /* nothing the kernel kept answers the reads */
	return 0;
}

/* What the stamps showed instead of themselves: the first misplaced or lost one, and the
 * greatest common divisor of the distances of every misplaced one (the card wraps at a
 * divisor of each: at most that many bytes are real). */
struct findings {
	uint64_t first_at, first_shows; /* shows: the offset whose stamp it holds, or MAX */
	uint64_t wrap;                  /* 0: no stamp shows at a lower offset */
	size_t bad;
};

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

static void note(struct findings *f, const struct stamps *s, uint64_t off, const uint8_t *got,
		 uint8_t *scratch)
{
	uint64_t other = stamp_of(s, got, scratch);

	if (f->bad++ == 0) {
		f->first_at = off;
		f->first_shows = other;
	}
	if (other != UINT64_MAX && other > off)
		f->wrap = gcd(f->wrap, other - off);
}

static void fail_findings(struct flash_job *j, const struct stamps *s, const struct findings *f)
{
	char claims[32], holds[32], first[96];

	units_human(s->size, claims, sizeof(claims));
	if (f->first_shows != UINT64_MAX)
		snprintf(first, sizeof(first), "byte %llu holds the stamp written at byte %llu",
			 (unsigned long long)f->first_at, (unsigned long long)f->first_shows);
	else
		snprintf(first, sizeof(first), "the first at byte %llu",
			 (unsigned long long)f->first_at);
	if (f->wrap) {
		units_human(f->wrap, holds, sizeof(holds));
		flash_job_fail(j, 0, "a fake capacity: %zu of %zu stamps read back wrong (%s): the "
			       "card wraps, it holds at most %s, not the %s it claims", f->bad,
			       s->count, first, holds, claims);
	} else {
		flash_job_fail(j, 0, "a fake capacity: %zu of %zu stamps read back wrong (%s): the "
			       "card does not keep what is written there, not the %s it claims",
			       f->bad, s->count, first, claims);
	}
}

static int read_stamps(struct flash_job *j, int fd, const struct stamps *s, uint8_t *buf,
		       uint8_t *want)
{
	struct findings f = { 0 };

	for (size_t i = 0; i < s->count; i++) {
		uint64_t off = stamp_offset(s, i);
		ssize_t n;
		if (gone(j))
			return -EIO;
		do
			n = pread(fd, buf, STAMP_SIZE, (off_t)off);
		while (n < 0 && errno == EINTR);
		if (n != (ssize_t)STAMP_SIZE) {
			int e = n < 0 ? errno : EIO;
			flash_job_fail(j, e, "reading the capacity stamp at byte %llu back: %s",
				       (unsigned long long)off, n < 0 ? strerror(e) : "the card ends there");
			return -EIO;
		}
		make_stamp(s, off, want);
		if (memcmp(buf, want, STAMP_SIZE) != 0)
			note(&f, s, off, buf, want);
		progress(j, false);
	}
	if (f.bad == 0)
		return 0;
	fail_findings(j, s, &f);
	return -EIO;
}

int flash_capacity_check(struct flash_job *j, int fd, unsigned lbs, uint64_t size)
{
	struct stamps s;
	uint8_t *buf = NULL, *want = NULL;
	int rc = -EIO;

	if (size < STAMP_SIZE || lbs > STAMP_SIZE) {
		flash_job_fail(j, EINVAL, "too small for the capacity check (%llu bytes)",
			       (unsigned long long)size);
		return -EIO;
	}
	plan(&s, size, lbs);
	if (getrandom(s.id, sizeof(s.id), 0) != (ssize_t)sizeof(s.id)) {
		flash_job_fail(j, errno, "no random id for the capacity stamps: %s", strerror(errno));
		return -EIO;
	}
	if (posix_memalign((void **)&buf, STAMP_SIZE, STAMP_SIZE) != 0 ||
	    posix_memalign((void **)&want, STAMP_SIZE, STAMP_SIZE) != 0)
		flash_job_fail(j, ENOMEM, "out of memory");
	else if (write_stamps(j, fd, &s, buf) == 0 && read_stamps(j, fd, &s, buf, want) == 0)
		rc = 0;
	free(buf);
	free(want);
	return rc;
}
