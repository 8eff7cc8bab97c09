/* SPDX-License-Identifier: MIT */
/*
 * capacity: --check-capacity (flash_priv.h). A card that claims more than it holds keeps
 * only its real capacity W and maps the rest onto it (byte x lands on byte x mod W: its
 * high address bits are not wired, or its controller wraps at the size of its flash), or
 * loses what is written past it. Every 512-byte sector the check writes is a stamp that
 * names its own offset and this check's random id. It writes one 4 KiB block of stamps at
 * every multiple of S and the card's last block, then reads its first S bytes (the window)
 * and every block back, where S, a power of two, is about the square root of 256 KiB times
 * the size (8 MiB on a 256 MiB card, 128 MiB on a 64 GiB one): one sequential read and a
 * few hundred seeks, seconds on a card.
 * Why any W (a multiple of the 512-byte sector, below the size claimed) is caught: for
 * S <= W the first block at or past W, at k*S < W + S, lands at k*S - W < S, inside the
 * window; below S the block at S lands at S mod W, inside it too; the last block does so
 * when no multiple of S lies between W and the card's end. Nothing of this check is ever
 * written into the window at its own offset, so a stamp of this check read there names
 * where it was written, a multiple of W away (W itself for that first block past a W of S
 * or more): the report gives the wrap. A card that loses what lies past W reads back
 * something other than the blocks past it (the last one at least). Nothing is restored:
 * the image is written over the card next, and its own ranges after.
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

#define SECTOR 512u      /* one stamp */
#define BLOCK 4096u      /* a sparse stamp's block: whole blocks for any sector size */
#define PIECE (1u << 20) /* the window is read in pieces of so much */
static const char STAMP_MAGIC[16] = "sdimg capacity";

/* One check: its random id, and where its stamps go. */
struct stamps {
	uint8_t id[16];
	uint64_t size;   /* the size the card claims */
	uint64_t stride; /* S: the window's length and the blocks' stride */
	uint64_t window; /* the window's end: S, or less on a card smaller than S */
	uint64_t last;   /* the last block's offset */
	bool has_last;   /* whether it is a block of its own (not the last multiple of S) */
	size_t blocks;   /* blocks, the last one's included */
	size_t count;    /* stamps (sectors) in all */
};

/* The @i-th block's offset: S, 2S, ..., then the last block. */
static uint64_t block_offset(const struct stamps *s, size_t i)
{
	return s->has_last && i + 1 == s->blocks ? s->last : (uint64_t)(i + 1) * s->stride;
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

/* The stamp of the sector at byte @off: magic, the check's id, @off, then bytes that
 * depend on both. */
static void make_stamp(const struct stamps *s, uint64_t off, uint8_t *buf)
{
	uint64_t x = get_u64(s->id) ^ get_u64(s->id + 8) ^ (off * 0x9e3779b97f4a7c15ull) ^ 1;

	memcpy(buf, STAMP_MAGIC, 16);
	memcpy(buf + 16, s->id, 16);
	put_u64(buf + 32, off);
	for (size_t i = 40; i + 8 <= SECTOR; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		put_u64(buf + i, x);
	}
}

/* The stamps of the @len bytes at @off (whole sectors) into @buf. */
static void make_stamps(const struct stamps *s, uint64_t off, size_t len, uint8_t *buf)
{
	for (size_t i = 0; i < len; i += SECTOR)
		make_stamp(s, off + i, buf + i);
}

/* The offset whose stamp the sector @buf holds (a stamp of this check), or UINT64_MAX. */
static uint64_t stamp_of(const struct stamps *s, const uint8_t *buf, uint8_t *scratch)
{
	if (memcmp(buf, STAMP_MAGIC, 16) != 0 || memcmp(buf + 16, s->id, 16) != 0)
		return UINT64_MAX;
	uint64_t off = get_u64(buf + 32);
	make_stamp(s, off, scratch);
	return memcmp(buf, scratch, SECTOR) == 0 ? off : UINT64_MAX;
}

/* S: the power of two (a block at least) nearest above the square root of 256 KiB times
 * @size, where the window's sequential read and the blocks' seeks cost about the same on
 * a card; then where the stamps go. */
static void plan(struct stamps *s, uint64_t size, unsigned lbs)
{
	s->size = size;
	s->stride = BLOCK;
	while (s->stride < (1ull << 40) && (s->stride >> 9) * (s->stride >> 9) < size)
		s->stride <<= 1; /* 1 TiB is the square root's for every size a device can have */
	uint64_t whole = size / BLOCK * BLOCK;
	s->window = s->stride < whole ? s->stride : whole;
	s->blocks = (size_t)((size - BLOCK) /
			     s->stride); /* S, 2S, ... with a block before the end */
	s->last = (size - BLOCK) / lbs * lbs;
	/* the last block, unless it is the last multiple of S (inside the window, on a card
	 * smaller than S, it shows there at its own offset: no sign of a wrap) */
	s->has_last = s->last != (uint64_t)s->blocks * s->stride;
	s->blocks += s->has_last;
	s->count = s->blocks * (BLOCK / SECTOR);
}

static void progress(struct flash_job *j, bool first_write)
{
	flash_job_lock(j);
	clock_gettime(CLOCK_MONOTONIC, &j->t_progress);
	if (first_write && !j->t_first_write.tv_sec && !j->t_first_write.tv_nsec)
		j->t_first_write = j->t_progress;
	flash_job_unlock(j);
}

/* Writes (@write) or reads the @len bytes at @off from or into @buf. Returns 0 or -EIO
 * (job failed). */
static int stamp_io(struct flash_job *j, int fd, bool write, uint64_t off, size_t len, uint8_t *buf)
{
	ssize_t n;

	do
		n = write ? pwrite(fd, buf, len, (off_t)off) : pread(fd, buf, len, (off_t)off);
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)len) {
		progress(j, false);
		return 0;
	}
	int e = n < 0 ? errno : write ? ENOSPC : EIO;
	if (write)
		flash_job_fail(j, e, "writing the capacity stamps at byte %llu: %s",
			       (unsigned long long)off, strerror(e));
	else
		flash_job_fail(j, e, "reading the capacity stamps at byte %llu back: %s",
			       (unsigned long long)off,
			       n < 0 ? strerror(e) : "the card ends there");
	return -EIO;
}

/* Every block, in ascending order. */
static int write_stamps(struct flash_job *j, int fd, const struct stamps *s, uint8_t *buf)
{
	progress(j, true);
	for (size_t i = 0; i < s->blocks; i++) {
		make_stamps(s, block_offset(s, i), BLOCK, buf);
		if (flash_job_stopped(j) ||
		    stamp_io(j, fd, true, block_offset(s, i), BLOCK, buf) < 0)
			return -EIO;
	}
	if (fsync(fd) < 0) {
		flash_job_fail(j, errno, "flushing the capacity stamps: %s", strerror(errno));
		return -EIO;
	}
	ioctl(fd, BLKFLSBUF, 0); /* nothing the kernel kept answers the reads */
	return 0;
}

/* What the stamps showed: the first wrong one, and the greatest common divisor of the
 * distances between where a stamp was read and where it was written (the card wraps at a
 * divisor of each: at most that many bytes are real). */
struct findings {
	uint64_t first_at, first_shows; /* shows: the offset whose stamp it holds, or MAX */
	uint64_t wrap;                  /* 0: no stamp shows elsewhere */
	size_t bad;                     /* blocks' stamps read back wrong */
	size_t moved;                   /* stamps found in the window, away from their offset */
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

/* The sector read at @off is not its stamp: @got holds another's (@other), or other bytes. */
static void note(struct findings *f, uint64_t off, uint64_t other)
{
	if ((f->bad == 0 && f->moved == 0) ||
	    (f->first_shows == UINT64_MAX && other != UINT64_MAX)) {
		f->first_at = off; /* the first that names another stamp tells the most */
		f->first_shows = other;
	}
	if (other != UINT64_MAX && other != off)
		f->wrap = gcd(f->wrap, other > off ? other - off : off - other);
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
		if (strchr(holds, '.')) /* not whole units: "40.00 MiB" would round */
			snprintf(holds, sizeof(holds), "%llu bytes", (unsigned long long)f->wrap);
		flash_job_fail(j, 0,
			       "a fake capacity: %zu of %zu stamps read back wrong, %zu "
			       "found elsewhere (%s): the card wraps, it holds at most %s, not the "
			       "%s it claims (what is written at byte %llu lands on byte 0)",
			       f->bad, s->count, f->moved, first, holds, claims,
			       (unsigned long long)f->wrap);
	} else {
		flash_job_fail(j, 0,
			       "a fake capacity: %zu of %zu stamps read back wrong (%s): the "
			       "card does not keep what is written there, not the %s it claims",
			       f->bad, s->count, first, claims);
	}
}

/* The window: a stamp of this check there, away from its own offset, is one that landed
 * where it was not written. */
static int read_window(struct flash_job *j, int fd, const struct stamps *s, uint8_t *buf,
		       struct findings *f)
{
	uint8_t scratch[SECTOR];

	for (uint64_t off = 0; off < s->window; off += PIECE) {
		size_t len = s->window - off < PIECE ? (size_t)(s->window - off) : PIECE;
		if (flash_job_stopped(j) || stamp_io(j, fd, false, off, len, buf) < 0)
			return -EIO;
		for (size_t i = 0; i < len; i += SECTOR) {
			uint64_t other = stamp_of(s, buf + i, scratch);
			if (other != UINT64_MAX && other != off + i) {
				note(f, off + i, other);
				f->moved++;
			}
		}
	}
	return 0;
}

/* Every block: each sector must be its own stamp. */
static int read_blocks(struct flash_job *j, int fd, const struct stamps *s, uint8_t *buf,
		       struct findings *f)
{
	uint8_t want[SECTOR], scratch[SECTOR];

	for (size_t b = 0; b < s->blocks; b++) {
		uint64_t off = block_offset(s, b);
		if (flash_job_stopped(j) || stamp_io(j, fd, false, off, BLOCK, buf) < 0)
			return -EIO;
		for (size_t i = 0; i < BLOCK; i += SECTOR) {
			make_stamp(s, off + i, want);
			if (memcmp(buf + i, want, SECTOR) != 0) {
				note(f, off + i, stamp_of(s, buf + i, scratch));
				f->bad++;
			}
		}
	}
	return 0;
}

static int read_stamps(struct flash_job *j, int fd, const struct stamps *s, uint8_t *buf)
{
	struct findings f = { 0 };

	if (read_window(j, fd, s, buf, &f) < 0 || read_blocks(j, fd, s, buf, &f) < 0)
		return -EIO;
	if (f.bad == 0 && f.moved == 0)
		return 0;
	fail_findings(j, s, &f);
	return -EIO;
}

int flash_capacity_check(struct flash_job *j, int fd, unsigned lbs, uint64_t size)
{
	struct stamps s;
	uint8_t *buf = NULL;
	int rc = -EIO;

	if (size < BLOCK || lbs > BLOCK) {
		flash_job_fail(j, EINVAL, "too small for the capacity check (%llu bytes)",
			       (unsigned long long)size);
		return -EIO;
	}
	plan(&s, size, lbs);
	if (getrandom(s.id, sizeof(s.id), 0) != (ssize_t)sizeof(s.id)) {
		flash_job_fail(j, errno, "no random id for the capacity stamps: %s",
			       strerror(errno));
		return -EIO;
	}
	if (posix_memalign((void **)&buf, BLOCK, PIECE) != 0)
		flash_job_fail(j, ENOMEM, "out of memory");
	else if (write_stamps(j, fd, &s, buf) == 0 && read_stamps(j, fd, &s, buf) == 0)
		rc = 0;
	free(buf);
	return rc;
}
