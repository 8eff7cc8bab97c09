/* SPDX-License-Identifier: MIT */
/* run_report: what a run shows while it works, and its results (flash_priv.h). */
#include <errno.h>
#include <jansson.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "common/bytes.h"
#include "common/units.h"
#include "common/utf8.h"
#include "mkimage/flash/flash_priv.h"

const char *flash_stage_name(enum flash_stage s)
{
	static const char *const names[] = {
		"check", "capacity", "write", "gaps", "verify", "done"
	};
	return (unsigned)s < 6 ? names[s] : "?";
}

const char *flash_result_name(enum flash_result r)
{
	static const char *const names[] = { "pass", "fail", "refused" };
	return (unsigned)r < 3 ? names[r] : "?";
}

/* A copy of what the reporter needs of @j, taken under its lock. */
static struct flash_job snapshot(struct flash_job *j)
{
	struct flash_job s;

	flash_job_lock(j);
	s = *j;
	flash_job_unlock(j);
	return s;
}

static double elapsed(const struct flash_job *j)
{
	struct timespec t;

	if (j->finished || j->abandoned)
		return flash_seconds(&j->t_start, &j->t_end);
	clock_gettime(CLOCK_MONOTONIC, &t);
	return flash_seconds(&j->t_start, &t);
}

/* "write 120.5/512.0 MiB 18.2 MiB/s ETA 21 s" for a working job; its result at the end. */
static void describe(const struct flash_job *j, char *buf, size_t n)
{
	const struct flash_image *im = j->im;
	bool verifying = j->stage == FLASH_STAGE_VERIFY;
	uint64_t done = verifying ? j->bytes_verified : j->bytes_written;
	/* the zeros of --gaps zero are read back after the mapped bytes (the gaps are written
	 * by then) */
	uint64_t total = im->mapped_bytes +
			 (verifying && j->o->gaps == FLASH_GAPS_ZERO ? j->gap_bytes : 0);
	double secs = elapsed(j), mib = (double)done / 1048576.0;
	double rate = secs > 0 ? mib / secs : 0;
	double left = done < total ? (double)(total - done) / 1048576.0 : 0;

	if (j->result == FLASH_REFUSED)
		snprintf(buf, n, "refused: %s", j->error);
	else if (j->result == FLASH_FAIL)
		snprintf(buf, n, "FAIL at %s: %s", flash_stage_name(j->stage), j->error);
	else if (j->finished)
		snprintf(buf, n, "pass in %.1f s%s%s", secs, j->warning[0] ? "; " : "", j->warning);
	else
		snprintf(buf, n, "%s %.1f/%.1f MiB %.1f MiB/s ETA %.0f s",
			 flash_stage_name(j->stage), mib, (double)total / 1048576.0, rate,
			 rate > 0 ? left / rate : 0.0);
}

/* The terminal's width in columns (stderr's), or 0 where it does not say. */
static unsigned terminal_columns(void)
{
	struct winsize w;

	return ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 ? w.ws_col : 0;
}

/* Cuts @line to @columns - 1 characters (a UTF-8 sequence counts as one; a byte that leads
 * none as one): a line that wraps would take two rows, and the redraw, which moves up one
 * row per target, would leave the text of the rows it missed behind. */
static void clip(char *line, unsigned columns)
{
	unsigned shown = 0;

	if (columns < 2)
		return;
	for (char *c = line; *c; c++)
		if (((unsigned char)*c & 0xC0) != 0x80 && ++shown == columns) {
			*c = '\0';
			return;
		}
}

/* "TARGET WHAT" into @row (@n bytes), cut to the terminal's @columns (0: unknown, uncut);
 * a target path longer than a third of them keeps only its end, after "...", so that what
 * happens to the target stays in view. */
static void row_text(char *row, size_t n, const char *path, const char *what, unsigned columns)
{
	size_t len = strlen(path), keep = columns / 3 > 16 ? columns / 3 : 16;

	if (columns && len > keep) {
		const char *tail = path + len - (keep - 3);
		while (((unsigned char)*tail & 0xC0) == 0x80) /* not inside a UTF-8 sequence */
			tail++;
		snprintf(row, n, "...%s %s", tail, what);
	} else {
		snprintf(row, n, "%-16s %s", path, what);
	}
	clip(row, columns);
}

void flash_progress_update(struct flash_progress *p, struct flash_job *jobs, size_t n, bool force)
{
	struct timespec t;
	char line[400], row[440];

	clock_gettime(CLOCK_MONOTONIC, &t);
	if (p->tty) {
		if (!force && p->lines_drawn && flash_seconds(&p->last_draw, &t) < 1.0)
			return;
		unsigned columns = terminal_columns(); /* again each time: it may be resized */
		if (p->lines_drawn)
			fprintf(stderr, "\033[%dA", p->lines_drawn);
		for (size_t i = 0; i < n; i++) {
			struct flash_job s = snapshot(&jobs[i]);
			describe(&s, line, sizeof(line));
			row_text(row, sizeof(row), s.path, line, columns);
			fprintf(stderr, "\r\033[K%s\n", row);
		}
		p->lines_drawn = (int)n;
		p->last_draw = t;
		return;
	}
	for (size_t i = 0; i < n; i++) { /* plain lines: one when a target changes stage */
		struct flash_job s = snapshot(&jobs[i]);
		bool over = s.finished || s.abandoned || s.result != FLASH_PASS;
		if (s.stage == p->last_stage[i] && over == p->last_finished[i])
			continue;
		p->last_stage[i] = s.stage;
		p->last_finished[i] = over;
		if (s.result == FLASH_REFUSED && !force)
			continue;
		describe(&s, line, sizeof(line));
		fprintf(stderr, "%s: %s\n", s.path, line);
	}
}

void flash_print_summary(FILE *out, struct flash_job *jobs, size_t n)
{
	fprintf(out, "\n%-16s %-32s %-8s %8s\n", "TARGET", "CARD", "RESULT", "TIME");
	for (size_t i = 0; i < n; i++) {
		struct flash_job s = snapshot(&jobs[i]);
		char card[200];
		snprintf(card, sizeof(card), "%s%s%s%s%s", s.info.model[0] ? s.info.model : "-",
			 s.info.serial[0] ? " " : "", s.info.serial, s.info.usb_port[0] ? " @" : "",
			 s.info.usb_port);
		fprintf(out, "%-16s %-32.32s %-8s %7.1fs%s%s\n", s.path, card,
			flash_result_name(s.result), s.started ? elapsed(&s) : 0.0,
			s.error[0] || s.warning[0] ? "  " : "", s.error[0] ? s.error : s.warning);
	}
}

json_t *flash_job_json(const struct flash_job *s, const struct flash_image *im)
{
	json_t *o = json_object();
	char devno[24], hex[65];

	snprintf(devno, sizeof(devno), "%u:%u", s->info.major, s->info.minor);
	bytes_hex(im->mapped_sha256, 32, hex);
	json_object_set_new(o, "device", utf8_json_string(s->path));
	json_object_set_new(o, "major_minor", s->info.name[0] ? json_string(devno) : json_null());
	json_object_set_new(o, "model", utf8_json_string(s->info.model));
	json_object_set_new(o, "serial", utf8_json_string(s->info.serial));
	json_object_set_new(o, "usb_port", utf8_json_string(s->info.usb_port));
	json_object_set_new(o, "size", json_integer((json_int_t)s->info.size));
	json_object_set_new(o, "result", json_string(flash_result_name(s->result)));
	json_object_set_new(o, "stage", json_string(flash_stage_name(s->stage)));
	json_object_set_new(o, "error", s->error[0] ? utf8_json_string(s->error) : json_null());
	json_object_set_new(o, "errno",
			    s->error_errno ? json_integer(s->error_errno) : json_null());
	json_object_set_new(o, "bytes_written", json_integer((json_int_t)s->bytes_written));
	json_object_set_new(o, "verified", json_boolean(s->o->verify));
	json_object_set_new(o, "bytes_verified", json_integer((json_int_t)s->bytes_verified));
	json_object_set_new(o, "gap_bytes", json_integer((json_int_t)s->gap_bytes));
	json_object_set_new(o, "gaps_verified", json_boolean(s->gaps_verified));
	json_object_set_new(o, "mapped_sha256", json_string(hex));
	if (s->has_bad_range) {
		json_t *r = json_object();
		json_object_set_new(r, "start", json_integer((json_int_t)s->first_bad_start));
		json_object_set_new(r, "end", json_integer((json_int_t)s->first_bad_end));
		json_object_set_new(o, "first_bad_range", r);
	} else {
		json_object_set_new(o, "first_bad_range", json_null());
	}
	bool wrote = s->started && s->stage >= FLASH_STAGE_GAPS && s->t_write_end.tv_sec;
	json_object_set_new(o, "write_s",
			    s->started
				    ? json_real(wrote ? flash_seconds(&s->t_start, &s->t_write_end)
						      : elapsed(s))
				    : json_null());
	json_object_set_new(o, "verify_s",
			    wrote && (s->finished || s->abandoned)
				    ? json_real(flash_seconds(&s->t_write_end, &s->t_end))
				    : json_null());
	json_object_set_new(o, "warning",
			    s->warning[0] ? utf8_json_string(s->warning) : json_null());
	if (s->card) /* --card-values: which values went to this card */
		json_object_set_new(o, "card", flash_card_json(s->card));
	return o;
}

int flash_write_json(FILE *out, const struct flash_image *im, struct flash_job *jobs, size_t n,
		     bool dry_run, struct diag *d)
{
	json_t *root = json_object(), *image = json_object(), *targets = json_array();
	char hex[65];

	bytes_hex(im->mapped_sha256, 32, hex);
	json_object_set_new(image, "path", utf8_json_string(im->path));
	json_object_set_new(image, "size", json_integer((json_int_t)im->size));
	json_object_set_new(image, "mapped_bytes", json_integer((json_int_t)im->mapped_bytes));
	json_object_set_new(image, "mapped_sha256", json_string(hex));
	json_object_set_new(image, "bmap",
			    im->bmap_path ? utf8_json_string(im->bmap_path) : json_null());
	json_object_set_new(image, "warning",
			    im->bmap_path && !im->mapped_bytes
				    ? json_string("nothing to write: the bmap maps no block")
				    : json_null());
	for (size_t i = 0; i < n; i++) {
		struct flash_job s = snapshot(&jobs[i]);
		json_t *t = flash_job_json(&s, im);
		if (dry_run && s.result == FLASH_PASS) /* nothing was written: it would be */
			json_object_set_new(t, "result", json_string("accepted"));
		json_array_append_new(targets, t);
	}
	json_object_set_new(root, "dry_run", json_boolean(dry_run));
	json_object_set_new(root, "image", image);
	json_object_set_new(root, "targets", targets);
	int rc = json_dumpf(root, out,
			    JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
	fputc('\n', out);
	json_decref(root);
	if (rc != 0 || ferror(out))
		return diag_error(d, "the report could not be written");
	return 0;
}
