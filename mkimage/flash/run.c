/* SPDX-License-Identifier: MIT */
/*
 * run: every target at once (flash.h). Each accepted target gets its own worker process
 * that reads the image from the page cache by itself, so a slow or dead card never holds
 * up the others; the jobs live in shared memory. The main process draws the progress and
 * gives up a target that makes no progress for o->timeout seconds: its result is fail, its
 * worker is killed, and since a process blocked in the kernel on a hung card dies only
 * when the card answers, the run ends without waiting for it (a thread could not be left
 * behind like that: the process would not end before it).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mkimage/flash/flash_priv.h"
#include "mkimage/reader/reader.h"

#define TICK_NS 200000000L /* how often the main process looks */

void flash_job_init_lock(pthread_mutex_t *m)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
}

/* Refuses @j: @fmt says why. */
__attribute__((format(printf, 2, 3))) static void refuse(struct flash_job *j, const char *fmt, ...)
{
	va_list ap;

	flash_job_release(j);
	j->result = FLASH_REFUSED;
	va_start(ap, fmt);
	vsnprintf(j->error, sizeof(j->error), fmt, ap);
	va_end(ap);
}

/* Whether the accepted targets @a and @b are a disk and one of its own partitions: the
 * kernel lets only one of them be held, and writing the disk destroys the partition. */
static bool disk_and_partition(const struct flash_target *a, const struct flash_target *b)
{
	return a->partition != b->partition && a->disk_major == b->disk_major &&
	       a->disk_minor == b->disk_minor;
}

/* The file behind the loop device @t (its disk's loop/backing_file in sysfs) into *@st:
 * whether there is one that can be found. */
static bool loop_backing(const struct flash_roots *r, const struct flash_target *t, struct stat *st)
{
	char dir[PATH_MAX], file[PATH_MAX];

	if (!t->loop)
		return false;
	if ((size_t)snprintf(dir, sizeof(dir), "%s/dev/block/%u:%u", r->sys, t->disk_major,
			     t->disk_minor) >= sizeof(dir))
		return false;
	return flash_attr(dir, "loop/backing_file", file, sizeof(file)) == 0 && file[0] &&
	       stat(file, st) == 0;
}

/* Whether @a and @b lie on two loop devices that serve the same file: two targets, one
 * medium. Two partitions of one loop disk, or a disk and its own partition, are not that:
 * they are told apart by what they are (disk_and_partition()). */
static bool same_backing(const struct flash_roots *r, const struct flash_target *a,
			 const struct flash_target *b)
{
	struct stat x, y;

	if (a->disk_major == b->disk_major && a->disk_minor == b->disk_minor)
		return false;
	return loop_backing(r, a, &x) && loop_backing(r, b, &y) && x.st_dev == y.st_dev &&
	       x.st_ino == y.st_ino;
}

/* The earlier targets (@index of @jobs) against @j: the same device twice is written
 * once, as are two loop devices over one file; a disk and its own partition, both
 * accepted, are both refused (and a disk's other partitions after it). Returns whether @j
 * may go on. */
static bool apart_from_earlier(struct flash_job *j, struct flash_job *jobs, size_t index)
{
	for (size_t i = 0; i < index; i++) {
		struct flash_job *e = &jobs[i];
		if (!e->info.name[0])
			continue;
		if (e->info.major == j->info.major && e->info.minor == j->info.minor) {
			refuse(j, "the same device as %s", e->path);
			return false;
		}
		if (same_backing(&j->o->roots, &e->info, &j->info)) {
			refuse(j, "the same backing file as %s", e->path);
			return false;
		}
		if (e->info.verdict != FLASH_ACCEPT || j->info.verdict != FLASH_ACCEPT ||
		    !disk_and_partition(&e->info, &j->info))
			continue;
		const char *as_disk = "%s, one of its partitions, is also a target: a disk and "
				      "its own partition are not written in one run";
		const char *as_part = "a partition of %s, also a target: a disk and its own "
				      "partition are not written in one run";
		if (e->result == FLASH_PASS) /* a reason it already has comes first */
			refuse(e, e->info.partition ? as_part : as_disk, j->path);
		refuse(j, j->info.partition ? as_part : as_disk, e->path);
		return false;
	}
	return true;
}

/* Checks @j: a block device that the classifier accepts, not given twice, neither the disk
 * nor a partition of another target, and held (j->fd) from here on. Its path is looked up
 * once: what is classified, held and written is what that lookup found. */
static void check_target(struct flash_job *j, struct flash_job *jobs, size_t index, dev_t root_dev,
			 struct diag *d)
{
	const struct flash_options *o = j->o;
	struct stat st;
	int pfd = flash_target_lookup(j->path, &st);

	j->result = FLASH_REFUSED;
	j->stage = FLASH_STAGE_CHECK;
	if (pfd < 0) {
		snprintf(j->error, sizeof(j->error), "%s (nothing is created there)",
			 strerror(-pfd));
		j->error_errno = -pfd;
		return;
	}
	if (!S_ISBLK(st.st_mode)) {
		snprintf(j->error, sizeof(j->error), "not a block device");
	} else if (flash_classify(&o->roots, major(st.st_rdev), minor(st.st_rdev), root_dev,
				  j->im->size, o->allow_fixed, &j->info, d) < 0) {
		snprintf(j->error, sizeof(j->error), "its kind cannot be read from sysfs");
	} else if (apart_from_earlier(j, jobs, index)) {
		if (j->info.verdict != FLASH_ACCEPT) {
			snprintf(j->error, sizeof(j->error), "%s", j->info.why);
		} else if ((j->fd = flash_target_hold(pfd)) < 0) {
			j->error_errno = -j->fd;
			flash_target_hold_error(j->error, sizeof(j->error), -j->fd);
			j->fd = -1;
		} else {
			j->result = FLASH_PASS;
			j->error[0] = 0;
		}
	}
	close(pfd);
}

void flash_job_watchdog(struct flash_job *j, unsigned timeout)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	if (j->started) {
		flash_job_lock(j);
		if (!j->finished && !j->abandoned && flash_seconds(&j->t_progress, &t) > timeout) {
			if (j->result == FLASH_PASS) { /* a failure it already had is the news */
				snprintf(j->error, sizeof(j->error),
					 "no progress for %u s: the card hangs", timeout);
				j->error_errno = ETIMEDOUT;
				j->result = FLASH_FAIL;
			}
			j->abandoned = true;
			j->t_end = t;
		}
		flash_job_unlock(j);
	}
}

void flash_job_abort(struct flash_job *j, const char *why)
{
	flash_job_lock(j);
	if (j->started && !j->finished && !j->abandoned) {
		if (j->result == FLASH_PASS) { /* a failure it already had is the news */
			snprintf(j->error, sizeof(j->error), "aborted: %s", why);
			j->error_errno = ECANCELED;
			j->result = FLASH_FAIL;
		}
		j->abandoned = true;
		clock_gettime(CLOCK_MONOTONIC, &j->t_end);
	}
	flash_job_unlock(j);
	if (j->worker > 0)
		kill(j->worker, SIGKILL);
}

static bool all_done(struct flash_job *jobs, size_t n)
{
	bool done = true;

	for (size_t i = 0; i < n; i++) {
		flash_job_lock(&jobs[i]);
		done &= !jobs[i].started || jobs[i].finished || jobs[i].abandoned;
		flash_job_unlock(&jobs[i]);
	}
	return done;
}

void flash_job_release(struct flash_job *j)
{
	if (j->fd >= 0)
		close(j->fd);
	j->fd = -1;
}

void flash_job_start(struct flash_job *j, int *held, size_t n)
{
	int fd = j->fd; /* the worker's own from the fork on: j lives in shared memory */

	clock_gettime(CLOCK_MONOTONIC, &j->t_start);
	j->t_progress = j->t_start;
	j->stage = j->o->check_capacity ? FLASH_STAGE_CAPACITY : FLASH_STAGE_WRITE;
	fflush(NULL); /* nothing buffered is printed twice */
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid == 0) {
		/* a worker never writes on after the run that reports it has ended */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
			_exit(1);
		for (size_t i = 0; i < n; i++) /* the other targets are not this worker's */
			if (held[i] >= 0 && held[i] != fd)
				close(held[i]);
		flash_job_run(j, fd);
		_exit(0);
	}
	for (size_t i = 0; i < n; i++)
		if (held[i] == fd)
			held[i] = -1;
	flash_job_release(j); /* the worker holds it now, or nobody */
	j->worker = pid;
	j->started = pid > 0;
	if (!j->started) {
		j->result = FLASH_FAIL;
		j->error_errno = errno;
		snprintf(j->error, sizeof(j->error), "no worker could be started for it: %s",
			 strerror(errno));
	}
}

void flash_job_reap(struct flash_job *j)
{
	int status;

	if (j->started && j->worker > 0 && waitpid(j->worker, &status, WNOHANG) == j->worker) {
		j->worker = 0; /* reaped */
		flash_job_lock(j);
		if (!j->finished && !j->abandoned) {
			if (j->result == FLASH_PASS) /* a failure it already had is the news */
				snprintf(j->error, sizeof(j->error),
					 "its worker ended unexpectedly (%s %d)",
					 WIFSIGNALED(status) ? "signal" : "status",
					 WIFSIGNALED(status) ? WTERMSIG(status)
							     : WEXITSTATUS(status));
			j->result = FLASH_FAIL;
			j->finished = true;
			clock_gettime(CLOCK_MONOTONIC, &j->t_end);
		}
		flash_job_unlock(j);
	}
}

/* The card's number, its row and its values, as a line of the dry run; names shown with
 * their control characters escaped, values in double quotes as C strings (a value may hold
 * a comma, a quote or a newline). */
static void dry_run_card(FILE *out, const struct flash_card_set *c)
{
	fprintf(out, "  card %" PRIu64, c->index);
	if (c->row)
		fprintf(out, " (row %zu)", c->row);
	for (size_t i = 0; i < c->n_vars; i++) {
		fputs(i ? ", " : ": ", out);
		reader_fputs_visible(c->vars[i].name, out);
		fputs("=", out);
		reader_fputs_quoted(c->vars[i].value, out);
	}
	fputs("\n", out);
}

static void dry_run(FILE *out, const struct flash_image *im, struct flash_job *jobs, size_t n)
{
	fprintf(out, "%s: %llu bytes, %llu mapped in %zu range%s%s%s\n", im->path,
		(unsigned long long)im->size, (unsigned long long)im->mapped_bytes, im->n_ranges,
		im->n_ranges == 1 ? "" : "s", im->bmap_path ? ", bmap " : ", no bmap",
		im->bmap_path ? im->bmap_path : "");
	for (size_t i = 0; i < n; i++) {
		const struct flash_job *j = &jobs[i];
		/* --gaps zero writes the stretches between the ranges too (a device whose
		 * blocks are larger than 4 KiB may leave a part block at the end unwritten) */
		uint64_t zeros = j->o->gaps == FLASH_GAPS_ZERO ? im->size - im->mapped_bytes : 0;
		if (j->result == FLASH_REFUSED) {
			fprintf(out, "%s: refused: %s\n", j->path, j->error);
			continue;
		}
		fprintf(out, "%s: would write %llu bytes", j->path,
			(unsigned long long)(im->mapped_bytes + zeros));
		if (zeros)
			fprintf(out, " (%llu mapped, %llu zeros over the gaps: --gaps zero)",
				(unsigned long long)im->mapped_bytes, (unsigned long long)zeros);
		fprintf(out, "%s: %s\n", j->o->verify ? " and read them back" : "", j->info.why);
		if (j->card)
			dry_run_card(out, j->card);
	}
}

/* ---- --report FILE: written whole, by rename, or not at all ---------------------------- */

/* The folder of @path into @dir (@n bytes), and its last name into *@base. */
static void report_folder(const char *path, char *dir, size_t n, const char **base)
{
	const char *slash = strrchr(path, '/');

	*base = slash ? slash + 1 : path;
	if (!slash)
		snprintf(dir, n, ".");
	else if (slash == path)
		snprintf(dir, n, "/");
	else
		snprintf(dir, n, "%.*s", (int)(slash - path), path);
}

/* A new file beside @path, for its next report: its descriptor (name in @tmp, @n bytes), or
 * -1 with errno. */
static int report_temp(const char *path, char *tmp, size_t n)
{
	char dir[PATH_MAX];
	const char *base;

	report_folder(path, dir, sizeof(dir), &base);
	if ((size_t)snprintf(tmp, n, "%s/.%s.XXXXXX", dir, base) >= n) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return mkostemp(tmp, O_CLOEXEC);
}

/* fsync of @path's folder: the rename or the unlink in it survives a power cut. */
static void report_sync_folder(const char *path)
{
	char dir[PATH_MAX];
	const char *base;

	report_folder(path, dir, sizeof(dir), &base);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* Whether the regular file @path (@st) is a report a run of flash wrote (a JSON object with
 * "targets"): one that could claim a verdict for a card. */
static bool is_report(const char *path, const struct stat *st)
{
	if (st->st_size > 64 << 20) /* no report is that large */
		return false;
	json_t *j = json_load_file(path, 0, NULL);
	bool report = json_is_object(j) && json_is_array(json_object_get(j, "targets"));
	json_decref(j);
	return report;
}

/*
 * Before anything else: the folder of --report must take a new file (a path that cannot be
 * written is told before any card is), and the report of an earlier run at the path is
 * removed, so that no run that ends early (a signal, SIGKILL, a bad bmap, a missing CSV)
 * leaves a report that speaks of other cards. Any other file there stays until the report
 * replaces it.
 */
static int report_prepare(const char *path, struct diag *d)
{
	char tmp[PATH_MAX];
	struct stat st;
	int fd = report_temp(path, tmp, sizeof(tmp));

	if (fd < 0)
		return diag_error(d, "%s: the report cannot be written there: %s", path,
				  strerror(errno));
	close(fd);
	unlink(tmp);
	if (stat(path, &st) < 0)
		return 0; /* a new path: nothing is made there before the report is whole */
	if (!S_ISREG(st.st_mode))
		return diag_error(d, "%s: the report must be a regular file", path);
	if (is_report(path, &st)) {
		if (unlink(path) < 0)
			return diag_error(d, "%s: the earlier report cannot be removed: %s", path,
					  strerror(errno));
		report_sync_folder(path);
	}
	return 0;
}

/* --report naming an input of the run (flash_run_input()) is refused before any card. */
static int report_apart_from_inputs(const struct flash_options *o, const struct flash_image *im,
				    struct diag *d)
{
	struct stat r;
	const char *input = stat(o->report, &r) == 0 ? flash_run_input(&r, o, im) : NULL;

	return input ? diag_error(d, "%s: the report would overwrite %s", o->report, input) : 0;
}

/* The JSON report: on the standard output with --json; with --report into a new file
 * beside FILE, on disk, then renamed to FILE, so that FILE is a whole report or none. */
static int finish_report(const struct flash_options *o, const struct flash_image *im,
			 struct flash_job *jobs, size_t n, struct diag *d)
{
	if (o->json)
		return flash_write_json(stdout, im, jobs, n, o->dry_run, d);
	if (!o->report)
		return 0;
	char tmp[PATH_MAX];
	int fd = report_temp(o->report, tmp, sizeof(tmp));
	if (fd < 0)
		return diag_error(d, "%s: %s", o->report, strerror(errno));
	mode_t mask = umask(0); /* the mode a file made by open(0666) would have */
	umask(mask);
	FILE *out = fchmod(fd, 0666 & ~mask) == 0 ? fdopen(fd, "w") : NULL;
	int rc = out ? flash_write_json(out, im, jobs, n, o->dry_run, d)
		     : diag_error(d, "%s: %s", o->report, strerror(errno));
	if (rc == 0 && (fflush(out) != 0 || fsync(fd) < 0))
		rc = diag_error(d, "%s: %s", o->report, strerror(errno));
	if (out ? fclose(out) != 0 : close(fd) < 0) {
		if (rc == 0)
			rc = diag_error(d, "%s: %s", o->report, strerror(errno));
	}
	if (rc == 0 && rename(tmp, o->report) < 0)
		rc = diag_error(d, "%s: %s", o->report, strerror(errno));
	if (rc < 0)
		unlink(tmp);
	else
		report_sync_folder(o->report);
	return rc;
}

void flash_stop_signals(sigset_t *set)
{
	struct sigaction hup;

	sigemptyset(set);
	/* asked for, by a person or a program: taken even where the parent ignored them (a
	 * script's background job ignores SIGINT, lest the terminal's ^C reach it) */
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	/* a signal blocked is queued even where it was ignored: nohup's stays ignored */
	if (sigaction(SIGHUP, NULL, &hup) < 0 || hup.sa_handler != SIG_IGN)
		sigaddset(set, SIGHUP);
}

/* "SIGINT", "SIGTERM", "SIGHUP": the name a script sends it by. */
static const char *stop_signal_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP";
}

/* A signal of @stop that came before any card was touched: the run ends there, with one
 * line, and no report (an earlier one is gone: report_prepare). */
static int stopped_before_cards(const sigset_t *stop, struct diag *d)
{
	int sig = sigtimedwait(stop, NULL, &(struct timespec){ 0, 0 });

	return sig > 0 ? diag_error(d, "stopped by %s before any card was touched",
				    stop_signal_name(sig))
		       : 0;
}

/* SIGINT, SIGTERM or SIGHUP (a closed terminal, a dropped SSH session): every card in
 * flight is aborted (it fails, its worker killed), and the run ends as any other does, with
 * its lines, summary and report. */
static void stop_jobs(const struct flash_options *o, int sig, struct flash_job *jobs, size_t n)
{
	char why[80];
	unsigned in_flight = 0;

	for (size_t i = 0; i < n; i++) {
		flash_job_lock(&jobs[i]);
		in_flight += jobs[i].started && !jobs[i].finished && !jobs[i].abandoned;
		flash_job_unlock(&jobs[i]);
	}
	if (o->verbosity > 0)
		fprintf(stderr, "%s: stopping: %u in flight aborted (they fail)\n", strsignal(sig),
			in_flight);
	snprintf(why, sizeof(why), "%s stopped the run", strsignal(sig));
	for (size_t i = 0; i < n; i++)
		flash_job_abort(&jobs[i], why);
}

/* The run itself, with the signals of @stop blocked since it began (flash_run): a ^C on
 * the terminal reaches the main process alone, which stops the workers and says what became
 * of each card. */
static int run_jobs(const struct flash_options *o, struct flash_image *im, struct flash_job *jobs,
		    size_t n, const sigset_t *stop, struct diag *d)
{
	struct flash_progress p = { .tty = isatty(STDERR_FILENO) && o->verbosity > 0 };
	int status = 0;

	p.last_stage = calloc(n, sizeof(*p.last_stage));
	p.last_finished = calloc(n, sizeof(*p.last_finished));
	int *held = malloc(n * sizeof(*held)); /* this process's memory: see flash_job_start */
	if (!p.last_stage || !p.last_finished || !held) {
		free(p.last_stage);
		free(p.last_finished);
		free(held);
		return diag_error(d, "%s: out of memory", o->image);
	}
	for (size_t i = 0; i < n; i++)
		held[i] = jobs[i].fd;
	for (size_t i = 0; i < n; i++)
		if (jobs[i].result == FLASH_PASS)
			flash_job_start(&jobs[i], held, n);
	free(held);
	while (!all_done(jobs, n)) {
		int sig = sigtimedwait(stop, NULL, &(struct timespec){ 0, TICK_NS });
		if (sig > 0)
			stop_jobs(o, sig, jobs, n);
		for (size_t i = 0; i < n; i++) {
			flash_job_reap(&jobs[i]);
			flash_job_watchdog(&jobs[i], o->timeout);
		}
		if (o->verbosity > 0)
			flash_progress_update(&p, jobs, n, false);
	}
	for (size_t i = 0; i < n; i++) {
		if (jobs[i].worker > 0 && jobs[i].abandoned) /* it dies when the card answers */
			kill(jobs[i].worker, SIGKILL);
		else if (jobs[i].worker > 0)
			waitpid(jobs[i].worker, NULL, 0);
		status |= jobs[i].result != FLASH_PASS;
	}
	if (o->verbosity > 0) {
		flash_progress_update(&p, jobs, n, true);
		flash_print_summary(o->json ? stderr : stdout, jobs, n);
	} else { /* quiet: nothing but errors, one line for each target that did not pass */
		for (size_t i = 0; i < n; i++) {
			flash_job_lock(&jobs[i]);
			if (jobs[i].result == FLASH_REFUSED)
				diag_error(d, "%s: refused: %s", jobs[i].path, jobs[i].error);
			else if (jobs[i].result == FLASH_FAIL)
				diag_error(d, "%s: failed at %s: %s", jobs[i].path,
					   flash_stage_name(jobs[i].stage), jobs[i].error);
			flash_job_unlock(&jobs[i]);
		}
	}
	free(p.last_stage);
	free(p.last_finished);
	if (finish_report(o, im, jobs, n, d) < 0)
		status = 1;
	return status;
}

/* --card-values: each target that is to be written takes the next card's values, in the
 * order the targets were given. */
static int assign_card_values(const struct flash_options *o, const struct flash_image *im,
			      struct flash_job *jobs, struct flash_card_values *cv, struct diag *d)
{
	int rc = flash_card_values_open(cv, o->card_values, o->n_card_values, o->first_index, im,
					d);

	for (size_t i = 0; rc == 0 && i < o->n_targets; i++) {
		if (jobs[i].result != FLASH_PASS)
			continue;
		rc = flash_card_values_next(cv, im->fd, o->image, &jobs[i].card, d);
		if (rc == 0)
			rc = flash_card_mapped(jobs[i].card, im, d);
	}
	return rc;
}

static int run_blocked(const struct flash_options *o, const sigset_t *stop, struct diag *d)
{
	struct flash_image im;
	struct flash_job *jobs;
	struct stat root;
	int rc = o->report ? report_prepare(o->report, d) : 0;

	if (rc < 0)
		return rc;
	rc = flash_image_open(&im, o->image, o->bmap, d);
	if (rc == 0 && o->report)
		rc = report_apart_from_inputs(o, &im, d);
	if (rc < 0) {
		if (rc == -EINVAL && im.fd >= 0)
			flash_image_close(&im);
		return rc;
	}
	if (stat("/", &root) < 0)
		root.st_dev = 0;
	jobs = mmap(NULL, o->n_targets * sizeof(*jobs), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (jobs == MAP_FAILED) {
		flash_image_close(&im);
		return diag_error(d, "%s: out of memory", o->image);
	}
	/* without a bmap the image's holes are zeros that matter: the gaps get them (a sparse
	 * image's DONT_CARE blocks are as a bmap's gaps) */
	struct flash_options eff = *o;
	bool mapped = im.bmap_path || im.defined;
	if (!mapped && !o->gaps_set)
		eff.gaps = FLASH_GAPS_ZERO;
	else if (!mapped && o->gaps == FLASH_GAPS_KEEP && im.mapped_bytes < im.size)
		diag_warning(d,
			     "%s: --gaps keep without a bmap: the image's holes keep what the "
			     "cards held there, which can break their file systems",
			     o->image);
	for (size_t i = 0; i < o->n_targets; i++) {
		jobs[i] = (struct flash_job){ .path = o->targets[i],
					      .fd = -1,
					      .im = &im,
					      .o = &eff };
		flash_job_init_lock(&jobs[i].lock);
		check_target(&jobs[i], jobs, i, root.st_dev, d);
	}
	struct flash_card_values cv = { 0 };
	if (!o->n_card_values)
		flash_card_values_hint(&im, d);
	rc = o->n_card_values ? assign_card_values(o, &im, jobs, &cv, d) : 0;
	if (rc == 0)
		rc = stopped_before_cards(stop, d);
	if (rc < 0) {
		/* no card is written when one of them has no values, or after a signal */
	} else if (o->dry_run) {
		if (!o->json)
			dry_run(stdout, &im, jobs, o->n_targets);
		rc = 0;
		for (size_t i = 0; i < o->n_targets; i++)
			rc |= jobs[i].result != FLASH_PASS;
		if (finish_report(o, &im, jobs, o->n_targets, d) < 0)
			rc = 1;
	} else {
		rc = run_jobs(o, &im, jobs, o->n_targets, stop, d);
	}
	for (size_t i = 0; i < o->n_targets; i++) {
		flash_job_release(&jobs[i]); /* not started: a dry run, or no card values */
		pthread_mutex_destroy(&jobs[i].lock);
		flash_card_release(jobs[i].card);
	}
	flash_card_values_close(&cv);
	munmap(jobs, o->n_targets * sizeof(*jobs));
	flash_image_close(&im);
	return rc;
}

int flash_blocking_stop_signals(const struct flash_options *o, struct diag *d,
				int (*body)(const struct flash_options *o, const sigset_t *stop,
					    struct diag *d))
{
	sigset_t stop, old;

	/* blocked first of all, and so in the workers too: a signal at any moment is taken by
	 * @body (before any card, or by its loop), never by the default action */
	flash_stop_signals(&stop);
	sigprocmask(SIG_BLOCK, &stop, &old);
	int rc = body(o, &stop, d);
	/* a run or station that ended before any card (a bad bmap, a missing CSV) has said why
	 * in its line: a signal that came meanwhile is taken, not left to kill it in silence;
	 * one that came after a run's last look is delivered now, after its report */
	while (rc < 0 && sigtimedwait(&stop, NULL, &(struct timespec){ 0, 0 }) > 0)
		;
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

int flash_run(const struct flash_options *o, struct diag *d)
{
	return flash_blocking_stop_signals(o, d, run_blocked);
}
