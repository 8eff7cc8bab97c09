/*
 * build: layout -> contents -> plan -> one image file (see builder.h).
 * The contents are gathered first, so `size = auto` is the exact smallest size that holds
 * them; then every byte range is planned, and each region is written once.
 */
#include "mkimage/builder/builder.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/units.h"
#include "mkimage/builder/builder_priv.h"

static double seconds_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

void build_progress(struct build *b, const char *what, const char *name)
{
	if (!b->tty || seconds_since(&b->t0) < 1.0)
		return;
	fprintf(stderr, "\r\033[Ksdimg: %s %s ...", what, name);
	b->progress_shown = true;
}

static void progress_done(struct build *b)
{
	if (b->progress_shown)
		fprintf(stderr, "\r\033[K");
}

/* With a named temporary file, SIGINT/SIGTERM/SIGHUP wait until it is removed. */
static void block_signals(struct build *b)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &b->old_mask);
	b->signals_blocked = true;
}

bool build_interrupted(struct build *b)
{
	sigset_t pending;

	if (!b->signals_blocked || sigpending(&pending) < 0)
		return false;
	if (sigismember(&pending, SIGINT) || sigismember(&pending, SIGTERM) ||
	    sigismember(&pending, SIGHUP)) {
		diag_error(b->d, "%s: interrupted", b->o->output);
		return true;
	}
	return false;
}

static int write_everything(struct build *b)
{
	int rc = build_output_create(&b->out, b->o->output, b->plan->image_size, b->d);

	if (rc < 0)
		return rc;
	if (b->out.tmp_path)
		block_signals(b);
	rc = build_write_table(b->l, b->plan, b->mbr_types, b->out.fd, b->o->output, b->d);
	if (rc == 0)
		rc = build_write_raw_regions(b);
	if (rc == 0)
		rc = build_write_partitions(b);
	if (rc == 0 && build_interrupted(b))
		rc = -EINTR;
	if (rc == 0)
		rc = build_output_commit(&b->out, b->d);
	if (rc < 0)
		build_output_abort(&b->out);
	return rc;
}

static void report(struct build *b, double secs)
{
	struct stat st;
	char size[32], written[32];
	size_t parts = 0;

	for (size_t i = 0; i < b->plan->n_regions; i++)
		parts += b->plan->regions[i].kind == PLAN_PARTITION;
	units_human(b->plan->image_size, size, sizeof(size));
	/* what the file holds on disk: the bytes that are not zero */
	if (stat(b->o->output, &st) == 0)
		units_human((uint64_t)st.st_blocks * 512, written, sizeof(written));
	else
		snprintf(written, sizeof(written), "?");
	fprintf(b->o->report, "%s: %s image, %zu partition%s, %s written in %.2f s\n",
		b->o->output, size, parts, parts == 1 ? "" : "s", written, secs);
}

int build_image_file(const struct layout *l, const struct build_options *o, struct diag *d)
{
	struct build b = { .l = l, .o = o, .d = d, .out = BUILD_OUTPUT_INIT };
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &b.t0);
	b.tty = isatty(STDERR_FILENO) && o->verbosity != BUILD_QUIET;
	rc = build_state_init(&b);
	if (rc == 0)
		rc = build_read_inputs(&b);
	if (rc == 0)
		rc = build_plan_with_contents(&b);
	if (rc == 0)
		rc = build_choose_geometries(&b);
	if (rc == 0 && o->verbosity == BUILD_VERBOSE)
		build_report_partitions(&b);
	if (rc == 0)
		rc = write_everything(&b);
	progress_done(&b);
	if (rc == 0 && o->verbosity != BUILD_QUIET)
		report(&b, seconds_since(&b.t0));
	build_state_release(&b);
	if (b.signals_blocked) /* a pending signal now ends the process, its file removed */
		sigprocmask(SIG_SETMASK, &b.old_mask, NULL);
	if (rc == -ENOMEM)
		diag_error(d, "%s: out of memory", o->output);
	return rc < 0 ? rc : d->errors ? -EINVAL : 0;
}
