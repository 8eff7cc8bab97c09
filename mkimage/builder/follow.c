/* SPDX-License-Identifier: MIT */
/*
 * follow: the image's SHA-256 and the bmap ranges' taken while the image is written
 * (builder_priv.h), on threads of their own, which the build's thread leaves idle (one for
 * the image's digest, one for the ranges'): each reads a byte once the build says that no
 * writer will write it again, in the image's order.
 *
 * The build's thread tells how far that is with build_follow_advance(): nothing until the
 * table and the raw regions are written (they may overlap, and a raw region may lie anywhere),
 * then the start of the lowest partition not yet written, or a point inside it that its
 * writer gives (fat/: the folders first, then the files in the order of their clusters).
 * With that point it hands over the map records made so far: every record that starts below
 * it is known then, so a range that ends before it can end no later. A thread hashes up to
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
/* Each worker's reads: a FAT writer's step (a smaller buffer than the build's pass, as each
 * worker has its own, and the build its own beside them) */
#define FOLLOW_CHUNK (256u << 10)

struct build_follow;

/* One thread and what it hashes: the image's digest, or the bmap ranges' (two threads, so
 * that neither waits for the other on a machine with cores to spare: the image's digest is
 * one sequential pass over every byte, the ranges' another over the mapped ones). */
struct follow_worker {
	struct build_feed f;    /* its own hasher and buffer; f.stop = &t->stop, f.d = &diag */
	struct diag diag;       /* its failures: the build's pass meets them again and tells */
	struct build_follow *t; /* whose it is */
	pthread_t thread;
	bool started;
	int rc; /* its result, under t->lock once it has ended */
};

struct build_follow {
	struct follow_worker image;  /* with --sha256 of the raw image (f.image_sha) */
	struct follow_worker ranges; /* with --bmap (f.range_sha; f.map = &map) */
	struct build_map map;        /* made of @known at each step, the digests of those done */
	uint64_t size;               /* the image's */
	uint8_t *zeros;              /* FOLLOW_CHUNK zero bytes, the workers' both */
	atomic_bool stop;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	/* under the lock: */
	uint64_t below;                   /* what is written below this is final */
	struct build_map known;           /* the map's records the build handed over */
	bool lost;                        /* a step's ranges do not continue the last: no digests */
	unsigned running;                 /* workers not ended yet */
	bool done;                        /* every worker has ended */
	uint8_t image_digest[SHA256_LEN]; /* once the image's worker has ended with 0 */
	/* the build's thread's own: */
	size_t handed;      /* map records handed over */
	bool *part_written; /* each partition's */
};

/* Where a worker may hash up to with @below final (see the top of the file). */
static uint64_t safe_end(const struct build_follow *t, uint64_t below)
{
	uint64_t whole = below / BMAP_BLOCK_SIZE * BMAP_BLOCK_SIZE;

	if (below >= t->size)
		return t->size;
	return whole ? whole - 1 : 0;
}

/* The ranges of the records in @known, with the digests of those already taken. */
static int next_ranges(struct follow_worker *w, const struct build_map *known, bool *lost)
{
	struct build_follow *t = w->t;
	struct build_map m = { 0 };

	if (known->n && array_grow((void **)&m.v, &m.cap, known->n, sizeof(*m.v)) < 0)
		return -ENOMEM;
	if (known->n)
		memcpy(m.v, known->v, known->n * sizeof(*m.v));
	m.n = known->n;
	build_map_to_blocks(&m, BMAP_BLOCK_SIZE, t->size);
	for (size_t i = 0; i < w->f.range && !*lost; i++) {
		if (i >= m.n || m.v[i].start != t->map.v[i].start || m.v[i].end != t->map.v[i].end)
			*lost = true;
		else
			memcpy(m.v[i].sha256, t->map.v[i].sha256, sizeof(m.v[i].sha256));
	}
	build_map_release(&t->map);
	t->map = m;
	return 0;
}

/* Waits until more is final than @pos; with @known (the ranges' worker), the map records so
 * far into it (when there is no room for them, *@lost: the ranges are left to the build's
 * pass). Returns the end of what may be hashed, or @pos when told to stop. */
static uint64_t wait_step(struct build_follow *t, uint64_t pos, struct build_map *known, bool *lost)
{
	uint64_t end;

	pthread_mutex_lock(&t->lock);
	while ((end = safe_end(t, t->below)) <= pos && !atomic_load(&t->stop))
		pthread_cond_wait(&t->cond, &t->lock);
	if (atomic_load(&t->stop))
		end = pos;
	else if (!known)
		; /* the image's worker: every byte, whatever the map */
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

/* The ranges' worker's step from @pos to @end: the ranges known so far, then their bytes.
 * Returns 1 once the ranges are lost (nothing more to hash), else as build_feed_walk(). */
static int ranges_step(struct follow_worker *w, struct build_map *known, bool *lost, size_t had,
		       uint64_t pos, uint64_t end)
{
	if (!*lost && (known->n != had || !pos) && next_ranges(w, known, lost) < 0)
		*lost = true;
	return *lost ? 1 : build_feed_walk(&w->f, pos, end);
}

static void *follow_main(void *arg)
{
	struct follow_worker *w = arg;
	struct build_follow *t = w->t;
	bool of_ranges = w->f.range_sha != NULL;
	struct build_map known = { 0 };
	uint64_t pos = 0;
	bool lost = false;
	int rc = 0;

	while (rc == 0 && pos < t->size) {
		size_t had = known.n;
		uint64_t end = wait_step(t, pos, of_ranges ? &known : NULL, &lost);
		if (end == pos) {
			rc = -EINTR;
			break;
		}
		rc = of_ranges ? ranges_step(w, &known, &lost, had, pos, end)
			       : build_feed_walk(&w->f, pos, end);
		pos = end;
	}
	uint8_t digest[SHA256_LEN];
	if (rc == 0 && !of_ranges && sha256_final(w->f.image_sha, digest) < 0)
		rc = -EIO;
	build_map_release(&known);
	pthread_mutex_lock(&t->lock);
	if (rc == 0 && !of_ranges)
		memcpy(t->image_digest, digest, SHA256_LEN);
	t->lost = t->lost || lost;
	w->rc = rc > 0 ? 0 : rc;
	t->done = --t->running == 0;
	pthread_cond_broadcast(&t->cond);
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

static void worker_free(struct follow_worker *w)
{
	sha256_free(w->f.image_sha);
	sha256_free(w->f.range_sha);
	free(w->f.buf);
	diag_release(&w->diag);
}

static void follow_free(struct build_follow *t)
{
	worker_free(&t->image);
	worker_free(&t->ranges);
	free(t->zeros);
	build_map_release(&t->map);
	build_map_release(&t->known);
	free(t->part_written);
	free(t);
}

/* @w of @t, with the hasher @image or the ranges' (none when the libcrypto cannot be had:
 * the build's pass then tells why, as before). */
static int worker_init(struct build_follow *t, struct follow_worker *w, struct build *b, bool image)
{
	w->t = t;
	w->f = (struct build_feed){ .b = b,
				    .d = &w->diag,
				    .stop = &t->stop,
				    .size = t->size,
				    .map = image ? NULL : &t->map,
				    .buf = malloc(FOLLOW_CHUNK),
				    .chunk = FOLLOW_CHUNK,
				    .zeros = t->zeros };
	if (!w->f.buf)
		return -ENOMEM;
	return image ? sha256_new(&w->f.image_sha, &w->diag)
		     : sha256_new(&w->f.range_sha, &w->diag);
}

/* The follower of @b, its workers made. Returns it or NULL. */
static struct build_follow *follow_new(struct build *b, bool image, bool ranges)
{
	struct build_follow *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->size = b->plan->image_size;
	t->zeros = calloc(1, FOLLOW_CHUNK);
	t->part_written = calloc(b->l->n_parts + 1, sizeof(*t->part_written));
	if (!t->zeros || !t->part_written || (image && worker_init(t, &t->image, b, true) < 0) ||
	    (ranges && worker_init(t, &t->ranges, b, false) < 0)) {
		follow_free(t);
		return NULL;
	}
	return t;
}

/* Starts @w's thread with every signal blocked (the build's thread answers them all), on a
 * small stack: it only reads and hashes, and a build that is short of address space (ulimit
 * -v) is not to fail for it. */
static int worker_start(struct follow_worker *w)
{
	pthread_attr_t attr;
	sigset_t all, old;
	int rc = pthread_attr_init(&attr);

	if (rc == 0)
		rc = pthread_attr_setstacksize(&attr, FOLLOW_STACK);
	if (rc == 0) {
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		pthread_mutex_lock(&w->t->lock);
		rc = pthread_create(&w->thread, &attr, follow_main, w);
		w->started = rc == 0;
		w->t->running += w->started;
		pthread_mutex_unlock(&w->t->lock);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	pthread_attr_destroy(&attr);
	return rc;
}

/* Waits for the workers to end: at once with @stop, else once all is hashed, or a signal the
 * build holds arrives (they are told to stop then: the build stops within moments, not once
 * the rest of the image is hashed). */
static void follow_end(struct build *b, bool stop)
{
	struct build_follow *t = b->follow;

	if (stop)
		atomic_store(&t->stop, true);
	pthread_mutex_lock(&t->lock);
	t->done = t->running == 0;
	pthread_cond_broadcast(&t->cond);
	build_wait_thread(b, &t->lock, &t->cond, &t->done, &t->stop);
	pthread_mutex_unlock(&t->lock);
	if (t->image.started)
		pthread_join(t->image.thread, NULL);
	if (t->ranges.started)
		pthread_join(t->ranges.thread, NULL);
	pthread_cond_destroy(&t->cond);
	pthread_mutex_destroy(&t->lock);
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
	b->follow = t;
	if ((image && worker_start(&t->image) != 0) || (ranges && worker_start(&t->ranges) != 0))
		build_follow_stop(b); /* none: build_finish() takes it all, as it would */
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
		pthread_cond_broadcast(&t->cond);
	}
	pthread_mutex_unlock(&t->lock);
}

void build_follow_advance(struct build *b, size_t part, uint64_t written)
{
	struct build_follow *t = b->follow;
	uint64_t below = t ? t->size : 0;

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

/* Whether the ranges' worker's ranges are the map's, in the end. */
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
		advance_to(b, b->follow->size);
}

void build_follow_take(struct build *b, uint8_t image_digest[SHA256_LEN], bool *image, bool *ranges)
{
	struct build_follow *t = b->follow;

	*image = *ranges = false;
	if (!t)
		return;
	/* all is written; every map record was handed over with the last partition (b->map is
	 * in blocks now, and shorter: nothing of it is handed over here) */
	advance_to(b, t->size);
	follow_end(b, false);
	*image = t->image.f.image_sha && t->image.rc == 0;
	if (*image)
		memcpy(image_digest, t->image_digest, SHA256_LEN);
	*ranges = t->ranges.f.range_sha && t->ranges.rc == 0 && !t->lost &&
		  same_ranges(&t->map, &b->map);
	for (size_t i = 0; *ranges && i < b->map.n; i++)
		memcpy(b->map.v[i].sha256, t->map.v[i].sha256, SHA256_LEN);
	/* a failure of a worker (a read, libcrypto) is the build's pass's to meet and tell */
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
