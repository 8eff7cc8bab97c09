/* SPDX-License-Identifier: MIT */
/*
 * follow: the image's SHA-256 and the bmap ranges' taken while the image is written
 * (builder_priv.h), on a thread of its own, which the build's thread leaves idle: it reads
 * each byte once the build says that no writer will write it again, in the image's order.
 *
 * The build's thread tells how far that is with build_follow_advance(): nothing until the
 * table and the raw regions are written (they may overlap, and a raw region may lie anywhere),
 * then the start of the lowest partition not yet written, or a point inside it that its
 * writer gives (fat/: the folders first, then the files in the order of their clusters).
 * With that point it hands over the map records made so far: every record that starts below
 * it is known then, so a range that ends before it can end no later. The thread hashes up to
 * one byte short of the block the point is in, so that a range ending there, which a later
 * record may continue, stays open.
 *
 * Nothing depends on it for the result: build_follow_take() gives its digests only when its
 * ranges are the map's own in the end, and build_finish() takes the rest as before.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/array.h"
#include "common/bmap.h"
#include "common/sha256.h"
#include "mkimage/builder/builder_priv.h"

#define FOLLOW_STACK (256u << 10)

struct build_follow {
	struct build_feed f;     /* its own hashers and buffers; f.map = &ranges, f.stop = &stop */
	struct build_map ranges; /* made of @known at each step, the digests of those done */
	struct diag diag;        /* its failures, taken by the build once it has joined it */
	atomic_bool stop;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	/* under the lock: */
	uint64_t below;                   /* what is written below this is final */
	struct build_map known;           /* the map's records the build handed over */
	bool lost;                        /* a step's ranges do not continue the last: no digests */
	bool done;                        /* the thread has ended */
	int rc;                           /* its result, once it has */
	uint8_t image_digest[SHA256_LEN]; /* with f.image_sha, once the thread is done */
	/* the build's thread's own: */
	size_t handed;      /* map records handed over */
	bool *part_written; /* each partition's */
};

/* Where the thread may hash up to with @below final (see the top of the file). */
static uint64_t safe_end(const struct build_follow *t, uint64_t below)
{
	uint64_t whole = below / BMAP_BLOCK_SIZE * BMAP_BLOCK_SIZE;

	if (below >= t->f.size)
		return t->f.size;
	return whole ? whole - 1 : 0;
}

/* The ranges of the records in @known, with the digests of those already taken. */
static int next_ranges(struct build_follow *t, const struct build_map *known, bool *lost)
{
	struct build_map m = { 0 };

	if (known->n && array_grow((void **)&m.v, &m.cap, known->n, sizeof(*m.v)) < 0)
		return -ENOMEM;
	if (known->n)
		memcpy(m.v, known->v, known->n * sizeof(*m.v));
	m.n = known->n;
	build_map_to_blocks(&m, BMAP_BLOCK_SIZE, t->f.size);
	for (size_t i = 0; i < t->f.range && !*lost; i++) {
		if (i >= m.n || m.v[i].start != t->ranges.v[i].start ||
		    m.v[i].end != t->ranges.v[i].end)
			*lost = true;
		else
			memcpy(m.v[i].sha256, t->ranges.v[i].sha256, sizeof(m.v[i].sha256));
	}
	build_map_release(&t->ranges);
	t->ranges = m;
	return 0;
}

/* Waits until more is final than @pos; the map records so far into @known (when there is
 * no room for them, *@lost: the ranges are left to the build's pass). Returns the end of what
 * may be hashed, or @pos when told to stop. */
static uint64_t wait_step(struct build_follow *t, uint64_t pos, struct build_map *known, bool *lost)
{
	uint64_t end;

	pthread_mutex_lock(&t->lock);
	while ((end = safe_end(t, t->below)) <= pos && !atomic_load(&t->stop))
		pthread_cond_wait(&t->cond, &t->lock);
	if (atomic_load(&t->stop))
		end = pos;
	else if (*lost || t->lost)
		*lost = true;
	else if (t->known.n == known->n)
		; /* no record since the last step */
	else if (array_grow((void **)&known->v, &known->cap, t->known.n, sizeof(*known->v)) < 0)
		*lost = true;
	else
		known->n = t->known.n, memcpy(known->v, t->known.v, known->n * sizeof(*known->v));
	pthread_mutex_unlock(&t->lock);
	return end;
}

static void *follow_main(void *arg)
{
	struct build_follow *t = arg;
	struct build_map known = { 0 };
	uint64_t pos = 0;
	bool lost = false;
	int rc = 0;

	while (rc == 0 && pos < t->f.size) {
		size_t had = known.n;
		uint64_t end = wait_step(t, pos, &known, &lost);
		if (end == pos) {
			rc = -EINTR;
			break;
		}
		if (t->f.range_sha && !lost && (known.n != had || !pos) &&
		    next_ranges(t, &known, &lost) < 0)
			lost = true;
		if (lost && t->f.range_sha) { /* the ranges are left to the build's pass */
			sha256_free(t->f.range_sha);
			t->f.range_sha = NULL;
		}
		rc = build_feed_walk(&t->f, pos, end);
		pos = end;
	}
	if (rc == 0 && t->f.image_sha && sha256_final(t->f.image_sha, t->image_digest) < 0)
		rc = -EIO;
	build_map_release(&known);
	pthread_mutex_lock(&t->lock);
	t->lost = t->lost || lost;
	t->rc = rc;
	t->done = true;
	pthread_cond_broadcast(&t->cond);
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

static void follow_free(struct build_follow *t)
{
	sha256_free(t->f.image_sha);
	sha256_free(t->f.range_sha);
	free(t->f.buf);
	free(t->f.zeros);
	build_map_release(&t->ranges);
	build_map_release(&t->known);
	free(t->part_written);
	diag_release(&t->diag);
	free(t);
}

/* The follower of @b, its hashers made (none when the libcrypto cannot be had: the build's
 * pass then tells why, as before). Returns it or NULL. */
static struct build_follow *follow_new(struct build *b, bool image, bool ranges)
{
	struct build_follow *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->f = (struct build_feed){ .b = b,
				    .d = &t->diag,
				    .stop = &t->stop,
				    .size = b->plan->image_size,
				    .map = &t->ranges,
				    .buf = malloc(BUILD_FEED_CHUNK),
				    .zeros = calloc(1, BUILD_FEED_CHUNK) };
	t->part_written = calloc(b->l->n_parts + 1, sizeof(*t->part_written));
	if (!t->f.buf || !t->f.zeros || !t->part_written ||
	    (image && sha256_new(&t->f.image_sha, &t->diag) < 0) ||
	    (ranges && sha256_new(&t->f.range_sha, &t->diag) < 0)) {
		follow_free(t);
		return NULL;
	}
	return t;
}

/* Starts the thread with every signal blocked (the build's thread answers them all), on a
 * small stack: it only reads and hashes, and a build that is short of address space (ulimit
 * -v) is not to fail for it. */
static int follow_thread_start(struct build_follow *t)
{
	pthread_attr_t attr;
	sigset_t all, old;
	int rc = pthread_attr_init(&attr);

	if (rc == 0)
		rc = pthread_attr_setstacksize(&attr, FOLLOW_STACK);
	if (rc == 0) {
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		rc = pthread_create(&t->thread, &attr, follow_main, t);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	pthread_attr_destroy(&attr);
	return rc;
}

void build_follow_start(struct build *b)
{
	const struct build_options *o = b->o;
	bool image = o->sha256 && o->write_raw, ranges = o->bmap;

	if ((!image && !ranges) || b->direct.on)
		return;
	struct build_follow *t = follow_new(b, image, ranges);
	if (!t)
		return;
	if (build_thread_sync_init(&t->lock, &t->cond) < 0) {
		follow_free(t);
		return;
	}
	if (follow_thread_start(t) != 0) {
		pthread_cond_destroy(&t->cond);
		pthread_mutex_destroy(&t->lock);
		follow_free(t);
		return;
	}
	b->follow = t;
}

/* Hands the map records made since the last call over, and moves the point to @below. */
static void advance_to(struct build *b, uint64_t below)
{
	struct build_follow *t = b->follow;
	const struct build_map *m = &b->map;

	pthread_mutex_lock(&t->lock);
	if (m->n > t->handed) {
		if (array_grow((void **)&t->known.v, &t->known.cap, m->n, sizeof(*m->v)) < 0)
			t->lost = true; /* no room: no digests of the ranges from it */
		else
			memcpy(t->known.v + t->handed, m->v + t->handed,
			       (m->n - t->handed) * sizeof(*m->v));
		t->known.n = t->lost ? t->known.n : m->n;
		t->handed = m->n;
	}
	if (below > t->below) {
		t->below = below;
		pthread_cond_signal(&t->cond);
	}
	pthread_mutex_unlock(&t->lock);
}

void build_follow_advance(struct build *b, size_t part, uint64_t written)
{
	struct build_follow *t = b->follow;
	uint64_t below = t ? t->f.size : 0;

	if (!t)
		return;
	if (part < b->l->n_parts && written == UINT64_MAX)
		t->part_written[part] = true;
	for (size_t i = 0; i < b->l->n_parts; i++) {
		const struct plan_region *r = build_region_of(b, i);
		if (!r || t->part_written[i])
			continue;
		uint64_t at = r->start + (i == part && written != UINT64_MAX ? written : 0);
		below = at < below ? at : below;
	}
	advance_to(b, below);
}

/* Waits for the thread to end: at once with @stop, else once all is hashed, or a signal the
 * build holds arrives (it is told to stop then: the build stops within moments, not once the
 * rest of the image is hashed). Returns its result. */
static int follow_end(struct build *b, bool stop)
{
	struct build_follow *t = b->follow;

	if (stop)
		atomic_store(&t->stop, true);
	pthread_mutex_lock(&t->lock);
	pthread_cond_broadcast(&t->cond);
	build_wait_thread(b, &t->lock, &t->cond, &t->done, &t->stop);
	pthread_mutex_unlock(&t->lock);
	pthread_join(t->thread, NULL);
	pthread_cond_destroy(&t->cond);
	pthread_mutex_destroy(&t->lock);
	return t->rc;
}

/* Whether the thread's ranges are the map's, in the end. */
static bool same_ranges(const struct build_map *a, const struct build_map *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (a->v[i].start != b->v[i].start || a->v[i].end != b->v[i].end)
			return false;
	return true;
}

void build_follow_written(struct build *b)
{
	if (b->follow)
		advance_to(b, b->follow->f.size);
}

void build_follow_take(struct build *b, uint8_t image_digest[SHA256_LEN], bool *image, bool *ranges)
{
	struct build_follow *t = b->follow;

	*image = *ranges = false;
	if (!t)
		return;
	/* all is written; every map record was handed over with the last partition (b->map is
	 * in blocks now, and shorter: nothing of it is handed over here) */
	advance_to(b, t->f.size);
	if (follow_end(b, false) == 0) {
		*image = t->f.image_sha != NULL;
		if (*image)
			memcpy(image_digest, t->image_digest, SHA256_LEN);
		*ranges = t->f.range_sha && !t->lost && same_ranges(&t->ranges, &b->map);
		for (size_t i = 0; *ranges && i < b->map.n; i++)
			memcpy(b->map.v[i].sha256, t->ranges.v[i].sha256, SHA256_LEN);
	}
	/* a failure of the thread (a read, libcrypto) is the build's pass's to meet and tell */
	follow_free(t);
	b->follow = NULL;
}

void build_follow_stop(struct build *b)
{
	if (!b->follow)
		return;
	follow_end(b, true);
	follow_free(b->follow);
	b->follow = NULL;
}
