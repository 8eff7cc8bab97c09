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

/* Classifies @j: a block device that the classifier accepts, not given twice. */
static void check_target(struct flash_job *j, struct flash_job *jobs, size_t index,
			 dev_t root_dev, struct diag *d)
{
	const struct flash_options *o = j->o;
	struct stat st;

	j->result = FLASH_REFUSED;
	j->stage = FLASH_STAGE_CHECK;
	if (stat(j->path, &st) < 0) {
		snprintf(j->error, sizeof(j->error), "%s (nothing is created there)", strerror(errno));
		j->error_errno = errno;
		return;
	}
	if (!S_ISBLK(st.st_mode)) {
		snprintf(j->error, sizeof(j->error), "not a block device");
		return;
	}
	for (size_t i = 0; i < index; i++)
		if (jobs[i].info.major == major(st.st_rdev) && jobs[i].info.minor == minor(st.st_rdev) &&
		    jobs[i].info.name[0]) {
			snprintf(j->error, sizeof(j->error), "the same device as %s", jobs[i].path);
			return;
		}
	if (flash_classify(&o->roots, major(st.st_rdev), minor(st.st_rdev), root_dev, j->im->size,
			   o->allow_fixed, &j->info, d) < 0) {
		snprintf(j->error, sizeof(j->error), "its kind cannot be read from sysfs");
		return;
	}
	if (j->info.verdict != FLASH_ACCEPT) {
		snprintf(j->error, sizeof(j->error), "%s", j->info.why);
		return;
	}
	j->result = FLASH_PASS;
	j->error[0] = 0;
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

void flash_job_start(struct flash_job *j)
{
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
		flash_job_run(j);
		_exit(0);
	}
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
					 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
			j->result = FLASH_FAIL;
			j->finished = true;
			clock_gettime(CLOCK_MONOTONIC, &j->t_end);
		}
		flash_job_unlock(j);
	}
}

/* The card's number, its row and its values, as a line of the dry run; names and values
 * shown with their control characters escaped (a value may hold a newline). */
static void dry_run_card(FILE *out, const struct flash_card_set *c)
{
	fprintf(out, "  card %" PRIu64, c->index);
	if (c->row)
		fprintf(out, " (row %zu)", c->row);
	for (size_t i = 0; i < c->n_vars; i++) {
		fputs(i ? ", " : ": ", out);
		reader_fputs_visible(c->vars[i].name, out);
		fputs("=", out);
		reader_fputs_visible(c->vars[i].value, out);
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

/* The JSON report into @out (stdout with --json, the --report file, or NULL: none). */
static int finish_report(const struct flash_options *o, FILE *out, const struct flash_image *im,
			 struct flash_job *jobs, size_t n, struct diag *d)
{
	/* the report file was opened, not emptied, before anything was known */
	if (o->report && out && ftruncate(fileno(out), 0) < 0)
		return diag_error(d, "%s: %s", o->report, strerror(errno));
	int rc = out ? flash_write_json(out, im, jobs, n, o->dry_run, d) : 0;

	if (o->report && out && fflush(out) != 0 && rc == 0)
		rc = diag_error(d, "%s: %s", o->report, strerror(errno));
	return rc;
}

static int run_jobs(const struct flash_options *o, FILE *report, struct flash_image *im,
		    struct flash_job *jobs, size_t n, struct diag *d)
{
	struct flash_progress p = { .tty = isatty(STDERR_FILENO) && o->verbosity > 0 };
	int status = 0;

	p.last_stage = calloc(n, sizeof(*p.last_stage));
	p.last_finished = calloc(n, sizeof(*p.last_finished));
	if (!p.last_stage || !p.last_finished) {
		free(p.last_stage);
		free(p.last_finished);
		return diag_error(d, "%s: out of memory", o->image);
	}
	for (size_t i = 0; i < n; i++)
		if (jobs[i].result == FLASH_PASS)
			flash_job_start(&jobs[i]);
	while (!all_done(jobs, n)) {
		nanosleep(&(struct timespec){ 0, TICK_NS }, NULL);
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
	if (finish_report(o, report, im, jobs, n, d) < 0)
		status = 1;
	return status;
}

/* Whether the open report file @fd is the image or its bmap. */
static bool report_names_input(int fd, const struct flash_image *im)
{
	struct stat r, x;

	if (fstat(fd, &r) < 0)
		return false;
	return (stat(im->path, &x) == 0 && x.st_dev == r.st_dev && x.st_ino == r.st_ino) ||
	       (im->bmap_path && stat(im->bmap_path, &x) == 0 && x.st_dev == r.st_dev &&
		x.st_ino == r.st_ino);
}

/* --card-values: each target that is to be written takes the next card's values, in the
 * order the targets were given. */
static int assign_card_values(const struct flash_options *o, const struct flash_image *im,
			      struct flash_job *jobs, struct flash_card_values *cv,
			      struct diag *d)
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

int flash_run(const struct flash_options *o, struct diag *d)
{
	struct flash_image im;
	struct flash_job *jobs;
	struct stat root;
	/* the report file first: a path that cannot be written is told before any card is; it
	 * is emptied only when the report is written (it might be the image, by a slip) */
	int report_fd = o->report ? open(o->report, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666) : -1;
	bool created = report_fd >= 0;
	if (o->report && report_fd < 0 && errno == EEXIST)
		report_fd = open(o->report, O_WRONLY | O_CLOEXEC);
	FILE *report = report_fd >= 0 ? fdopen(report_fd, "w") : o->json ? stdout : NULL;
	int rc;

	if (o->report && !report)
		return diag_error(d, "%s: the report cannot be written there: %s", o->report,
				  strerror(errno));
	rc = flash_image_open(&im, o->image, o->bmap, d);
	if (rc == 0 && o->report && report_names_input(report_fd, &im))
		rc = diag_error(d, "%s: the report would overwrite the image or its bmap", o->report);
	if (rc < 0) {
		if (rc == -EINVAL && im.fd >= 0)
			flash_image_close(&im);
		if (o->report)
			fclose(report);
		if (created) /* nothing was reported: no empty file is left */
			unlink(o->report);
		return rc;
	}
	if (stat("/", &root) < 0)
		root.st_dev = 0;
	jobs = mmap(NULL, o->n_targets * sizeof(*jobs), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (jobs == MAP_FAILED) {
		if (o->report)
			fclose(report);
		flash_image_close(&im);
		return diag_error(d, "%s: out of memory", o->image);
	}
	/* without a bmap the image's holes are zeros that matter: the gaps get them */
	struct flash_options eff = *o;
	if (!im.bmap_path && !o->gaps_set)
		eff.gaps = FLASH_GAPS_ZERO;
	else if (!im.bmap_path && o->gaps == FLASH_GAPS_KEEP)
		diag_warning(d, "%s: --gaps keep without a bmap: the image's holes keep what the "
			     "cards held there, which can break their file systems", o->image);
	for (size_t i = 0; i < o->n_targets; i++) {
		jobs[i] = (struct flash_job){ .path = o->targets[i], .im = &im, .o = &eff };
		flash_job_init_lock(&jobs[i].lock);
		check_target(&jobs[i], jobs, i, root.st_dev, d);
	}
	struct flash_card_values cv = { 0 };
	if (!o->n_card_values)
		flash_card_values_hint(o->image, d);
	rc = o->n_card_values ? assign_card_values(o, &im, jobs, &cv, d) : 0;
	if (rc < 0) {
		/* no card is written when one of them has no values */
	} else if (o->dry_run) {
		if (!o->json)
			dry_run(stdout, &im, jobs, o->n_targets);
		rc = 0;
		for (size_t i = 0; i < o->n_targets; i++)
			rc |= jobs[i].result != FLASH_PASS;
		if (finish_report(o, report, &im, jobs, o->n_targets, d) < 0)
			rc = 1;
	} else {
		rc = run_jobs(o, report, &im, jobs, o->n_targets, d);
	}
	if (o->report && fclose(report) != 0 && rc == 0) {
		diag_error(d, "%s: %s", o->report, strerror(errno));
		rc = 1;
	}
	if (rc < 0 && created) /* no card was written: nothing was reported */
		unlink(o->report);
	for (size_t i = 0; i < o->n_targets; i++) {
		pthread_mutex_destroy(&jobs[i].lock);
		flash_card_release(jobs[i].card);
	}
	flash_card_values_close(&cv);
	munmap(jobs, o->n_targets * sizeof(*jobs));
	flash_image_close(&im);
	return rc;
}
