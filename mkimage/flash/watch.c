/* SPDX-License-Identifier: MIT */
/*
 * watch: the station (flash.h, `sdimg flash IMAGE --watch`). It keeps a list of the whole
 * disks sysfs shows, with their sizes, and looks again whenever the kernel sends a block
 * disk's uevent (and once a second all the same, which is all it does where the uevent
 * socket cannot be opened). A disk whose size goes from 0 to more, or that appears with a
 * size, is a card that arrived: a card reader keeps its disk and changes its size with the
 * medium, a loop device does when a file is attached; a disk whose size drops to 0, or that
 * goes away, has lost its card. A new medium also has a new sequence number (diskseq): a
 * card swapped for another between two looks is a card that left and one that arrived.
 *
 * A card that arrived is the station's when --match names its slot, or, without --match,
 * when it is a removable, hot-pluggable, USB or SD disk; any other is left alone. The
 * station's cards get the verdict of `flash` (with --allow-fixed as given): accepted ones
 * are written and read back at once, each by its own worker (run.c), several at once;
 * refused ones are reported. Either way the card is done: its disk must lose it before
 * the station takes a card there again, so no card is written twice. Cards present when
 * the station starts are not written (they did not arrive).
 *
 * SIGINT, SIGTERM and SIGHUP (the terminal closed, an SSH session dropped; not under
 * nohup) arrive through a signalfd (they stay blocked, in the workers too, so a ^C on the
 * terminal does not kill them): the first stops the station taking cards and lets the
 * cards in flight finish; a second aborts them (they fail).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/array.h"
#include "mkimage/flash/flash_priv.h"

#define MAX_IN_FLIGHT 64 /* cards written at once; more wait for a worker */
#define TICK_MS 100      /* how often the station looks at its workers */
#define RESCAN_MS 1000   /* how often it looks at the disks without a uevent */

enum disk_state {
	DISK_EMPTY, /* no card, or one not yet looked at */
	DISK_BUSY,  /* its card is being written */
	DISK_DONE,  /* its card was written, refused or left alone: waits for its removal */
};

/* A whole disk the station knows. */
struct disk {
	char name[32];
	unsigned major, minor;
	uint64_t size;    /* bytes; 0: no card */
	uint64_t diskseq; /* its medium's sequence number (0: unknown) */
	bool seen;        /* in the last look */
	enum disk_state state;
	struct flash_card *card; /* while busy */
	bool left;               /* its card went away while busy */
};

struct station {
	const struct flash_options *o; /* the effective options */
	struct flash_image *im;
	struct flash_card *cards; /* MAX_IN_FLIGHT of them, shared with the workers */
	struct disk *disks;
	size_t n_disks, cap_disks;
	dev_t root_dev;
	int log_fd;
	bool stopping, aborted, log_failed;
	unsigned passed, failed, refused;
	FILE *out; /* the cards' lines */
	struct diag *d;
	struct flash_card_values *cv; /* --card-values, or NULL */
};

static void now(struct timespec *t)
{
	clock_gettime(CLOCK_MONOTONIC, t);
}

static long ms_since(const struct timespec *t)
{
	struct timespec n;

	now(&n);
	return (long)(flash_seconds(t, &n) * 1000.0);
}

/* ---------------------------------------------------------------- the cards' records */

static unsigned in_flight(const struct station *s)
{
	unsigned n = 0;

	for (size_t i = 0; i < MAX_IN_FLIGHT; i++)
		n += s->cards[i].in_use;
	return n;
}

/* The card's log record, then its line; the counts. A card whose record cannot be logged
 * fails (it is not announced as pass), and the station takes no more cards. */
static void report_card(struct station *s, struct flash_card *c)
{
	/* the record is on disk before the operator is told: what was shown was kept */
	if (s->log_fd >= 0 && !s->log_failed) {
		struct diag why;
		diag_init(&why);
		if (flash_card_log(s->log_fd, s->o->log, c, &why) < 0) {
			s->log_failed = true;
			s->stopping = true;
			fprintf(stderr, "%s\n", why.msgs[0].text);
			diag_error(s->d, "%s", why.msgs[0].text);
		}
		diag_release(&why);
	}
	flash_job_lock(&c->job);
	if (s->log_failed && c->job.result == FLASH_PASS) {
		snprintf(c->job.error, sizeof(c->job.error),
			 "written and verified, but its record is not in the log: not to be "
			 "shipped");
		c->job.result = FLASH_FAIL;
	}
	enum flash_result r = c->job.result;
	flash_job_unlock(&c->job);

	if (r == FLASH_PASS)
		s->passed++;
	else if (r == FLASH_FAIL)
		s->failed++;
	else
		s->refused++;
	if (s->o->verbosity > 0)
		flash_card_print(s->out, c);
	else if (r != FLASH_PASS)
		flash_card_print(stderr, c);
}

static struct flash_card *free_card(struct station *s)
{
	for (size_t i = 0; i < MAX_IN_FLIGHT; i++)
		if (!s->cards[i].in_use)
			return &s->cards[i];
	return NULL;
}

/* A card whose worker has ended (or was given up): reported, its slot freed. */
static void finish_card(struct station *s, struct disk *k)
{
	struct flash_card *c = k->card;

	report_card(s, c);
	if (c->job.worker > 0 && c->job.abandoned) /* it dies when the card answers */
		kill(c->job.worker, SIGKILL);
	pthread_mutex_destroy(&c->job.lock);
	flash_card_release(c->job.card);
	c->job.card = NULL;
	c->in_use = false;
	k->card = NULL;
	/* a card that went away meanwhile leaves the disk free for the next one */
	k->state = k->left || k->size == 0 ? DISK_EMPTY : DISK_DONE;
	k->left = false;
}

static void check_workers(struct station *s)
{
	for (size_t i = 0; i < s->n_disks; i++) {
		struct disk *k = &s->disks[i];
		if (k->state != DISK_BUSY)
			continue;
		struct flash_job *j = &k->card->job;
		flash_job_reap(j);
		flash_job_watchdog(j, s->o->timeout);
		flash_job_lock(j);
		bool over = j->finished || j->abandoned;
		flash_job_unlock(j);
		if (over)
			finish_card(s, k);
	}
}

/* A second signal: every card in flight fails, its worker is killed. */
static void abort_cards(struct station *s)
{
	for (size_t i = 0; i < MAX_IN_FLIGHT; i++)
		if (s->cards[i].in_use)
			flash_job_abort(&s->cards[i].job, "a second signal stopped the station");
	s->aborted = true;
}

/* ---------------------------------------------------------------- arrivals */

/* Without --match: a card is a removable, hot-pluggable, USB or SD whole disk. */
static bool card_kind(const struct flash_target *t)
{
	return (t->removable || t->hotplug || t->usb || t->sd) && !t->emmc && !t->loop &&
	       !t->partition;
}

static bool ours(const struct station *s, const struct flash_target *t)
{
	return s->o->n_match ? flash_slot_matches(s->o->match, s->o->n_match, t) : card_kind(t);
}

/* The next card's values for @c; a card without them is refused, its number spent. */
static void take_values(struct station *s, struct flash_card *c)
{
	struct diag why;

	diag_init(&why);
	int rc = flash_card_values_next(s->cv, s->im->fd, s->im->path, &c->job.card, &why);
	if (rc == 0 && (rc = flash_card_mapped(c->job.card, s->im, &why)) < 0) {
		flash_card_release(c->job.card);
		c->job.card = NULL;
	}
	if (rc < 0) {
		c->job.result = FLASH_REFUSED;
		snprintf(c->job.error, sizeof(c->job.error), "no card values: %s",
			 why.n ? why.msgs[0].text : strerror(-rc));
	}
	diag_release(&why);
}

/* Looks up the card's device node once and holds what it found (c->job.fd), when that is
 * the disk @k that was classified; else the card is refused. */
static void hold_card(struct flash_card *c, const struct disk *k)
{
	struct stat st;
	int pfd = flash_target_lookup(c->path, &st);

	if (pfd < 0 || !S_ISBLK(st.st_mode) || major(st.st_rdev) != k->major ||
	    minor(st.st_rdev) != k->minor) {
		snprintf(c->job.error, sizeof(c->job.error),
			 "%s is not the block device %u:%u (no device node for %s)", c->path,
			 k->major, k->minor, k->name);
	} else if ((c->job.fd = flash_target_hold(pfd)) < 0) {
		c->job.error_errno = -c->job.fd;
		flash_target_hold_error(c->job.error, sizeof(c->job.error), -c->job.fd);
		c->job.fd = -1;
	} else {
		c->job.result = FLASH_PASS;
	}
	if (pfd >= 0)
		close(pfd);
}

/* Sets up @c for the disk @k classified as @t; a refused card's job is only a record. */
static void prepare(struct station *s, struct flash_card *c, const struct disk *k,
		    const struct flash_target *t, const struct timespec *arrived,
		    const struct timespec *arrived_wall)
{
	memset(c, 0, sizeof(*c));
	c->in_use = true;
	c->arrived = *arrived;
	c->arrived_wall = *arrived_wall;
	snprintf(c->slot, sizeof(c->slot), "%s", flash_slot_name(t));
	snprintf(c->path, sizeof(c->path), "/dev/%s", k->name);
	for (char *p = c->path; *p; p++) /* the kernel's "cciss!c0d0" is /dev/cciss/c0d0 */
		if (*p == '!')
			*p = '/';
	c->job = (struct flash_job){ .path = c->path,
				     .fd = -1,
				     .info = *t,
				     .im = s->im,
				     .o = s->o };
	flash_job_init_lock(&c->job.lock);
	c->job.stage = FLASH_STAGE_CHECK;
	c->job.result = FLASH_REFUSED;
	if (t->verdict != FLASH_ACCEPT)
		snprintf(c->job.error, sizeof(c->job.error), "%s", t->why);
	else
		hold_card(c, k);
	if (c->job.result == FLASH_PASS && s->cv)
		take_values(s, c);
	if (c->job.result != FLASH_PASS) /* a refused card is let go at once */
		flash_job_release(&c->job);
}

/* A card arrived on @k: written, refused, or not the station's. */
static void arrive(struct station *s, struct disk *k)
{
	struct flash_target t;
	struct timespec arrived, arrived_wall;
	struct diag quiet;

	now(&arrived);
	clock_gettime(CLOCK_REALTIME, &arrived_wall);
	diag_init(&quiet);
	int rc = flash_classify(&s->o->roots, k->major, k->minor, s->root_dev, s->im->size,
				s->o->allow_fixed, &t, &quiet);
	diag_release(&quiet);
	if (rc < 0) /* gone again already, or sysfs cannot tell: looked at on the next event */
		return;
	if (!ours(s, &t)) {
		if (s->o->verbosity > 1) {
			fprintf(s->out, "%-24s left alone: %s (%s)\n", flash_slot_name(&t),
				s->o->n_match ? "no --match names it" : "not a card", t.why);
			fflush(s->out);
		}
		k->state = DISK_DONE;
		return;
	}
	struct flash_card *c = free_card(s);
	if (!c) /* every worker busy: it waits for one */
		return;
	prepare(s, c, k, &t, &arrived, &arrived_wall);
	if (c->job.result != FLASH_PASS) {
		report_card(s, c);
		pthread_mutex_destroy(&c->job.lock);
		flash_card_release(c->job.card);
		c->job.card = NULL;
		c->in_use = false;
		k->state = DISK_DONE;
		return;
	}
	if (s->o->verbosity > 1)
		fprintf(s->out, "%-24s arrived: %s\n", c->slot, t.why);
	flash_job_start(&c->job, NULL, 0); /* it flushes what was printed; the station holds
					       no other card: each went to its worker */
	k->card = c;
	k->state = DISK_BUSY;
	if (!c->job.started) /* no worker: failed at once */
		finish_card(s, k);
}

/* ---------------------------------------------------------------- looking at the disks */

/* The disk's card went away (its size dropped to 0, or the disk did). */
static void lose_card(struct disk *k)
{
	if (k->state == DISK_BUSY)
		k->left = true;
	else
		k->state = DISK_EMPTY;
}

/* A card in one of the station's slots at its start: not written, and said so. */
static void present_at_start(struct station *s, struct disk *k)
{
	struct flash_target t;
	struct diag quiet;

	k->state = DISK_DONE;
	diag_init(&quiet);
	int rc = flash_classify(&s->o->roots, k->major, k->minor, s->root_dev, s->im->size,
				s->o->allow_fixed, &t, &quiet);
	diag_release(&quiet);
	if (rc == 0 && ours(s, &t) && s->o->verbosity > 0)
		fprintf(s->out,
			"%-24s present at the start, not written: take the card out and "
			"put it back to write it (/dev/%s)\n",
			flash_slot_name(&t), k->name);
}

static struct disk *find_disk(struct station *s, const struct flash_seen *v)
{
	for (size_t i = 0; i < s->n_disks; i++)
		if (!strcmp(s->disks[i].name, v->name) && s->disks[i].major == v->major &&
		    s->disks[i].minor == v->minor)
			return &s->disks[i];
	return NULL;
}

/* Looks at the disks: new sizes, new disks, disks gone. @first: the station's start,
 * when the cards present are not the station's to write. */
static int look(struct station *s, bool first)
{
	struct flash_seen *v;
	size_t n;
	int rc = flash_disks_scan(&s->o->roots, &v, &n, s->d);

	if (rc < 0)
		return rc;
	for (size_t i = 0; i < s->n_disks; i++)
		s->disks[i].seen = false;
	for (size_t i = 0; i < n; i++) {
		struct disk *k = find_disk(s, &v[i]);
		if (!k) {
			if (array_grow((void **)&s->disks, &s->cap_disks, s->n_disks + 1,
				       sizeof(*s->disks)) < 0) {
				free(v);
				return diag_error(s->d, "out of memory");
			}
			k = &s->disks[s->n_disks++];
			*k = (struct disk){ .major = v[i].major, .minor = v[i].minor };
			snprintf(k->name, sizeof(k->name), "%s", v[i].name);
			k->size = v[i].size;
			k->diskseq = v[i].diskseq;
			k->state = DISK_EMPTY;
			if (first && v[i].size)
				present_at_start(s, k);
		}
		k->seen = true;
		/* the card went away, or another took its place between two looks */
		if ((v[i].size == 0 && k->size != 0) ||
		    (k->diskseq && v[i].diskseq && v[i].diskseq != k->diskseq))
			lose_card(k);
		k->size = v[i].size;
		k->diskseq = v[i].diskseq;
	}
	free(v);
	/* disks gone from sysfs: forgotten, unless their worker still runs */
	size_t kept = 0;
	for (size_t i = 0; i < s->n_disks; i++) {
		struct disk *k = &s->disks[i];
		if (!k->seen) {
			k->size = 0;
			lose_card(k);
		}
		if (k->seen || k->state == DISK_BUSY)
			s->disks[kept++] = *k;
	}
	s->n_disks = kept;
	return 0;
}

/* Every disk that holds a card not yet looked at. */
static void take_cards(struct station *s)
{
	for (size_t i = 0; i < s->n_disks && !s->stopping; i++)
		if (s->disks[i].state == DISK_EMPTY && s->disks[i].size > 0)
			arrive(s, &s->disks[i]);
}

/* ---------------------------------------------------------------- signals */

/* The signals that stop the station (@set, blocked since it began: flash_watch), through
 * a descriptor; one that came while it started is read there first. */
static int open_signals(const sigset_t *set)
{
	int fd = signalfd(-1, set, SFD_NONBLOCK | SFD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static void on_signal(struct station *s, int fd)
{
	struct signalfd_siginfo si;

	while (read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (!s->stopping) {
			s->stopping = true;
			fflush(s->out);
			if (s->o->verbosity > 0)
				fprintf(stderr,
					"%s: stopping: no more cards; %u in flight finish (a "
					"second signal aborts them)\n",
					strsignal((int)si.ssi_signo), in_flight(s));
		} else if (!s->aborted) {
			abort_cards(s);
		}
	}
}

/* ---------------------------------------------------------------- the station */

/* Opens the log to append to it, or makes it (*@created). */
static int open_log(const char *path, bool *created, struct diag *d)
{
	/* read and written: a last line left unfinished is found and cut off */
	int fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0666);

	*created = fd >= 0;
	if (fd < 0 && errno == EEXIST)
		fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return diag_error(d, "%s: the log cannot be written there: %s", path,
				  strerror(errno));
	/* the file's name must survive a power cut as well as its lines */
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir] = '\0';
	int dfd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return fd;
}

/* A station that did not start leaves no log it made. */
static void drop_log(const char *path, int fd, bool created)
{
	if (fd < 0)
		return;
	close(fd);
	if (created)
		unlink(path);
}

/* The log is a file of its own: no input of the run (flash_run_input()), not a device. */
static int check_log(const struct flash_options *o, int fd, const struct flash_image *im,
		     struct diag *d)
{
	struct stat st;
	const char *input;

	if (fstat(fd, &st) < 0)
		return diag_error(d, "%s: %s", o->log, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return diag_error(d, "%s: the log must be a regular file", o->log);
	if ((input = flash_run_input(&st, o, im)))
		return diag_error(d, "%s: the log would be written into %s", o->log, input);
	return 0;
}

static void banner(const struct station *s, bool events)
{
	const struct flash_options *o = s->o;

	if (o->verbosity == 0)
		return;
	fprintf(s->out, "%s: %llu bytes, %llu mapped; waiting for cards", o->image,
		(unsigned long long)s->im->size, (unsigned long long)s->im->mapped_bytes);
	if (o->n_match) {
		fprintf(s->out, " in the slots");
		for (size_t i = 0; i < o->n_match; i++)
			fprintf(s->out, " %s", o->match[i]);
	}
	fprintf(s->out, "%s%s (^C stops)\n", o->log ? "; log " : "", o->log ? o->log : "");
	if (!events)
		fprintf(s->out, "the kernel's uevents cannot be read here: looking at the disks "
				"once a second\n");
	fflush(s->out);
}

static int serve(struct station *s, int sig_fd, int ev_fd)
{
	struct timespec last_look;
	int rc = look(s, true);

	now(&last_look);
	banner(s, ev_fd >= 0);
	while (rc == 0 && !(s->stopping && in_flight(s) == 0)) {
		struct pollfd p[2] = { { sig_fd, POLLIN, 0 }, { ev_fd, POLLIN, 0 } };
		bool again = false;
		/* with no card in flight only the events and the next look wake it */
		int wait_ms = in_flight(s) ? TICK_MS : RESCAN_MS;
		if (poll(p, ev_fd >= 0 ? 2 : 1, wait_ms) < 0 && errno != EINTR)
			return diag_error(s->d, "waiting for cards: %s", strerror(errno));
		if (p[0].revents & POLLIN)
			on_signal(s, sig_fd);
		if (ev_fd >= 0 && (p[1].revents & POLLIN) && flash_uevent_drain(ev_fd) != 0)
			again = true;
		check_workers(s);
		if (s->aborted)
			break;
		if (again || ms_since(&last_look) >= RESCAN_MS) {
			rc = look(s, false);
			now(&last_look);
		}
		take_cards(s);
	}
	return rc;
}

static int watch_blocked(const struct flash_options *o, const sigset_t *stop, struct diag *d)
{
	struct flash_image im;
	struct station s = { .log_fd = -1, .out = stdout, .d = d };
	struct stat root;
	int rc, sig_fd, ev_fd;

	bool created = false;
	if (o->log && (s.log_fd = open_log(o->log, &created, d)) < 0)
		return s.log_fd;
	if ((rc = flash_image_open(&im, o->image, o->bmap, d)) < 0) {
		if (rc == -EINVAL && im.fd >= 0)
			flash_image_close(&im);
		drop_log(o->log, s.log_fd, created);
		return rc;
	}
	/* only a file of its own is cut back (check_log) */
	if (s.log_fd >= 0 && ((rc = check_log(o, s.log_fd, &im, d)) < 0 ||
			      (rc = flash_log_cut_partial(s.log_fd, o->log, d)) < 0)) {
		flash_image_close(&im);
		drop_log(o->log, s.log_fd, created);
		return rc;
	}
	struct flash_card_values cv = { 0 };
	if (o->n_card_values && (rc = flash_card_values_open(&cv, o->card_values, o->n_card_values,
							     o->first_index, &im, d)) < 0) {
		flash_card_values_close(&cv);
		flash_image_close(&im);
		drop_log(o->log, s.log_fd, created);
		return rc;
	}
	s.cv = o->n_card_values ? &cv : NULL;
	if (!o->n_card_values)
		flash_card_values_hint(&im, d);
	struct flash_options eff = *o; /* without a bmap the image's holes are zeros that matter */
	if (!im.bmap_path && !o->gaps_set)
		eff.gaps = FLASH_GAPS_ZERO;
	s.o = &eff;
	s.im = &im;
	s.root_dev = stat("/", &root) == 0 ? root.st_dev : 0;
	s.cards = mmap(NULL, MAX_IN_FLIGHT * sizeof(*s.cards), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	sig_fd = s.cards == MAP_FAILED ? -ENOMEM : open_signals(stop);
	if (sig_fd < 0) {
		rc = diag_error(d, "the station cannot start: %s", strerror(-sig_fd));
		if (s.cards != MAP_FAILED)
			munmap(s.cards, MAX_IN_FLIGHT * sizeof(*s.cards));
		flash_card_values_close(&cv);
		flash_image_close(&im);
		drop_log(o->log, s.log_fd, created);
		return rc;
	}
	memset(s.cards, 0, MAX_IN_FLIGHT * sizeof(*s.cards));
	ev_fd = flash_uevent_open();
	rc = serve(&s, sig_fd, ev_fd);
	/* cards still in flight (a second signal, or an error): reported, their workers gone */
	if (in_flight(&s) > 0 && !s.aborted)
		abort_cards(&s);
	check_workers(&s);
	if (s.o->verbosity > 0)
		fprintf(s.out, "station stopped: %u passed, %u failed, %u refused\n", s.passed,
			s.failed, s.refused);
	while (waitpid(-1, NULL, WNOHANG) > 0) /* workers that already ended */
		;
	if (ev_fd >= 0)
		close(ev_fd);
	close(sig_fd);
	munmap(s.cards, MAX_IN_FLIGHT * sizeof(*s.cards));
	free(s.disks);
	flash_card_values_close(&cv);
	flash_image_close(&im);
	if (s.log_fd >= 0 && close(s.log_fd) < 0 && rc == 0)
		rc = diag_error(d, "%s: %s", o->log, strerror(errno));
	if (rc < 0)
		return rc;
	return s.failed || s.refused || s.log_failed ? 1 : 0;
}

int flash_watch(const struct flash_options *o, struct diag *d)
{
	/* a signal while the station starts stops it once it has started, with its summary */
	return flash_blocking_stop_signals(o, d, watch_blocked);
}
