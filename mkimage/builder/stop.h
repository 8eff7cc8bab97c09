/* SPDX-License-Identifier: MIT */
/*
 * stop.c: what a build shows while it works, and the signals that stop it (private to
 * mkimage/builder/). Every step of a build calls in here; stop.c calls no step back.
 */
#ifndef SDIMG_MKIMAGE_BUILDER_STOP_H
#define SDIMG_MKIMAGE_BUILDER_STOP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

struct build;

/* Shows "sdimg: @what @name ..." on the terminal once the build has taken a second (never
 * when stderr is not one, or with --quiet). */
void build_progress(struct build *b, const char *what, const char *name);

/* Whether a stop signal held by build_hold_signals() is pending; then says so in the
 * build's diag ("OUTPUT: interrupted"), and the caller returns -EINTR. */
bool build_interrupted(struct build *b);

/* While a file has a hidden name, SIGINT, SIGTERM and SIGHUP (those not ignored when the
 * build began) wait, so that no signal leaves the file behind: build_interrupted() asks
 * for them between steps and inside every long loop (each MiB written or compressed, each
 * file of a FAT volume), so that a build stops within a fraction of a second. */
void build_hold_signals(struct build *b);
void build_release_signals(struct build *b);

/* Makes @lock and @cond, the condition timed by the monotonic clock (build_wait_thread()).
 * Returns 0 or a negative errno (neither is made then). */
int build_thread_sync_init(pthread_mutex_t *lock, pthread_cond_t *cond);

/* Waits, @lock held, until *@done (which a thread of the build's sets under @lock, and then
 * signals @cond), asking build_interrupted() every 20 ms: a signal sets *@stop, the thread's
 * word to end at once, and broadcasts @cond (where the thread may wait), so that a build
 * stops within moments whatever its thread is doing. */
void build_wait_thread(struct build *b, pthread_mutex_t *lock, pthread_cond_t *cond,
		       const bool *done, atomic_bool *stop);

/* The seconds since the build began. */
double build_seconds(const struct build *b);

/* Clears the progress line build_progress() left on the terminal, if any. */
void build_progress_done(struct build *b);

#endif
