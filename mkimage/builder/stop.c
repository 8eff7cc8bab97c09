/* SPDX-License-Identifier: MIT */
/*
 * stop: what a build shows while it works, and the signals that stop it (stop.h; the
 * signal sets of builder.h, which `sdimg personalize` shares). Every step of the builder
 * asks here, and this file asks none of them.
 */
#include <signal.h>
#include <stdio.h>
#include <time.h>

#include "mkimage/builder/builder_priv.h"

double build_seconds(const struct build *b)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - b->t0.tv_sec) + (double)(t.tv_nsec - b->t0.tv_nsec) / 1e9;
}

void build_progress(struct build *b, const char *what, const char *name)
{
	if (!b->tty || build_seconds(b) < 1.0)
		return;
	fprintf(stderr, "\r\033[Ksdimg: %s %s ...", what, name);
	b->progress_shown = true;
}

void build_progress_done(struct build *b)
{
	if (b->progress_shown)
		fprintf(stderr, "\r\033[K");
}

static const int stop_signal_numbers[] = { SIGINT, SIGTERM, SIGHUP };
#define N_STOP_SIGNALS (sizeof(stop_signal_numbers) / sizeof(stop_signal_numbers[0]))

void build_stop_signals(sigset_t *set)
{
	struct sigaction sa;

	sigemptyset(set);
	for (size_t i = 0; i < N_STOP_SIGNALS; i++)
		if (sigaction(stop_signal_numbers[i], NULL, &sa) < 0 || sa.sa_handler != SIG_IGN)
			sigaddset(set, stop_signal_numbers[i]);
}

bool build_stop_pending(const sigset_t *set)
{
	sigset_t pending;

	if (sigpending(&pending) < 0)
		return false;
	for (size_t i = 0; i < N_STOP_SIGNALS; i++)
		if (sigismember(set, stop_signal_numbers[i]) &&
		    sigismember(&pending, stop_signal_numbers[i]))
			return true;
	return false;
}

void build_hold_signals(struct build *b)
{
	/* a blocked signal stays pending even when ignored: only those answered are held */
	sigprocmask(SIG_BLOCK, &b->stop_signals, &b->old_mask);
	b->signals_blocked = true;
}

void build_release_signals(struct build *b)
{
	b->signals_blocked = false;
	sigprocmask(SIG_SETMASK, &b->old_mask, NULL);
}

bool build_interrupted(struct build *b)
{
	if (!b->signals_blocked || !build_stop_pending(&b->stop_signals))
		return false;
	diag_error(b->d, "%s: interrupted", b->o->output);
	return true;
}

void build_wait_thread(struct build *b, pthread_mutex_t *lock, pthread_cond_t *cond,
		       const bool *done, atomic_bool *stop)
{
	while (!*done) {
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += 20 * 1000 * 1000;
		if (until.tv_nsec >= 1000 * 1000 * 1000)
			until.tv_sec++, until.tv_nsec -= 1000 * 1000 * 1000;
		pthread_cond_timedwait(cond, lock, &until);
		if (!*done && !atomic_load(stop) && build_interrupted(b)) {
			atomic_store(stop, true);
			pthread_cond_broadcast(cond);
		}
	}
}

int build_thread_sync_init(pthread_mutex_t *lock, pthread_cond_t *cond)
{
	pthread_condattr_t attr;
	int rc = pthread_condattr_init(&attr);

	if (rc == 0)
		rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	if (rc == 0)
		rc = pthread_mutex_init(lock, NULL);
	if (rc == 0 && (rc = pthread_cond_init(cond, &attr)) != 0)
		pthread_mutex_destroy(lock);
	pthread_condattr_destroy(&attr);
	return -rc;
}
