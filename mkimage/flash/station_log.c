/* SPDX-License-Identifier: MIT */
/*
 * station_log: what a station says of each card (flash_priv.h): one line on the terminal,
 * and one JSON line appended to the --log file and fsynced before the next card's, so
 * that a power cut loses no record that was announced.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/utf8.h"
#include "mkimage/flash/flash_priv.h"

static struct flash_job snapshot(struct flash_card *c)
{
	struct flash_job s;

	flash_job_lock(&c->job);
	s = c->job;
	flash_job_unlock(&c->job);
	return s;
}

static double job_seconds(const struct flash_job *s)
{
	return s->started ? flash_seconds(&s->t_start, &s->t_end) : 0.0;
}

void flash_card_print(FILE *out, struct flash_card *c)
{
	struct flash_job s = snapshot(c);

	char card[48] = "";

	if (s.card && s.card->row)
		snprintf(card, sizeof(card), "  card %" PRIu64 " (row %zu)", s.card->index,
			 s.card->row);
	else if (s.card)
		snprintf(card, sizeof(card), "  card %" PRIu64, s.card->index);
	fprintf(out, "%-24s %-7s %6.1f s  serial %-16s %s%s%s%s%s%s\n", c->slot,
		flash_result_name(s.result), job_seconds(&s),
		s.info.serial[0] ? s.info.serial : "-", c->path, card, s.error[0] ? "  " : "",
		s.error, s.warning[0] ? "  " : "", s.warning);
	fflush(out);
}

/* "2026-11-30T12:41:07.123Z" */
static json_t *iso_time(const struct timespec *t)
{
	struct tm tm;
	char buf[40];

	gmtime_r(&t->tv_sec, &tm);
	size_t n = strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, sizeof(buf) - n, ".%03ldZ", t->tv_nsec / 1000000);
	return json_string(buf);
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int flash_card_log(int fd, const char *log, struct flash_card *c, struct diag *d)
{
	struct flash_job s = snapshot(c);
	struct timespec wall;
	json_t *o = json_object();
	bool wrote = s.t_first_write.tv_sec || s.t_first_write.tv_nsec;

	clock_gettime(CLOCK_REALTIME, &wall);
	json_object_set_new(o, "slot", utf8_json_string(c->slot));
	json_object_set_new(o, "location", utf8_json_string(s.info.location));
	json_object_set_new(o, "image", utf8_json_string(s.im->path));
	json_object_set_new(o, "image_size", json_integer((json_int_t)s.im->size));
	json_object_set_new(o, "mapped_bytes", json_integer((json_int_t)s.im->mapped_bytes));
	json_object_set_new(o, "arrived", iso_time(&c->arrived_wall));
	json_object_set_new(o, "finished", iso_time(&wall));
	json_object_set_new(o, "first_write_s",
			    wrote ? json_real(flash_seconds(&c->arrived, &s.t_first_write))
				  : json_null());
	json_object_set_new(o, "time_s", json_real(job_seconds(&s)));
	json_object_set_new(o, "check_capacity", json_boolean(s.o->check_capacity));
	json_t *job = flash_job_json(&s, s.im);
	json_object_update(o, job);
	json_decref(job);
	char *line = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
	json_decref(o);
	if (!line)
		return diag_error(d, "%s: out of memory", log);
	size_t len = strlen(line);
	line[len] = '\n'; /* json_dumps ends it with a NUL: it becomes the line's end */
	struct stat st;   /* where the record begins: the log's end (O_APPEND) */
	if (fstat(fd, &st) < 0) {
		free(line);
		return diag_error(d, "%s: the card's record cannot be written: %s", log,
				  strerror(errno));
	}
	int rc = write_all(fd, line, len + 1);
	free(line);
	if (rc == 0 && fsync(fd) < 0)
		rc = -errno;
	if (rc < 0 && ftruncate(fd, st.st_size) == 0 && fsync(fd) == 0)
		return diag_error(d,
				  "%s: the card's record cannot be written: %s (the log ends "
				  "with the record before it)",
				  log, strerror(-rc));
	if (rc < 0)
		return diag_error(d,
				  "%s: the card's record cannot be written: %s, and what was "
				  "written of it cannot be cut off",
				  log, strerror(-rc));
	return 0;
}

/* The offset of the byte after the last newline of the first @size bytes of @fd (0: none),
 * or a negative errno. */
static off_t after_last_newline(int fd, off_t size)
{
	char buf[4096];

	while (size > 0) {
		size_t n = size < (off_t)sizeof(buf) ? (size_t)size : sizeof(buf);
		ssize_t got = pread(fd, buf, n, size - (off_t)n);
		if (got != (ssize_t)n)
			return got < 0 ? -errno : -EIO;
		for (size_t i = n; i > 0; i--)
			if (buf[i - 1] == '\n')
				return size - (off_t)n + (off_t)i;
		size -= (off_t)n;
	}
	return 0;
}

/* How a station's record begins (flash_card_log: "slot" first, the order kept). */
#define RECORD_START "{\"slot\":"

/* Whether the @len bytes at @line are a station's record: a JSON object with a "slot" and a
 * "result". */
static bool station_record(const char *line, size_t len)
{
	json_t *o = json_loadb(line, len, 0, NULL);
	bool record = json_is_object(o) && json_is_string(json_object_get(o, "slot")) &&
		      json_is_string(json_object_get(o, "result"));

	json_decref(o);
	return record;
}

/* Whether the first @end bytes of @fd, which end in a newline, end in a station's record
 * (1), not (0), or a negative errno. */
static int ends_in_record(int fd, off_t end)
{
	enum { MAX_RECORD = 64 << 10 }; /* far more than a record takes */
	off_t from = end > MAX_RECORD ? end - MAX_RECORD : 0;
	size_t n = (size_t)(end - from);
	char *buf = malloc(n);

	if (!buf)
		return -ENOMEM;
	ssize_t got = pread(fd, buf, n, from);
	int rc = got < 0 ? -errno : got != (ssize_t)n ? -EIO : 0;
	if (rc == 0) {
		char *nl = memrchr(buf, '\n', n - 1); /* the line before the last newline */
		char *line = nl ? nl + 1 : buf;
		rc = (nl || from == 0) && station_record(line, (size_t)(buf + n - 1 - line));
	}
	free(buf);
	return rc;
}

/* Whether the @size bytes of @fd, the first @end of them whole lines, are a station's log
 * (1), not (0), or a negative errno: with no whole line, its bytes begin a record. */
static int station_log(int fd, off_t end, off_t size)
{
	char head[sizeof(RECORD_START) - 1];

	if (end > 0)
		return ends_in_record(fd, end);
	if (size < (off_t)sizeof(head))
		return 0;
	ssize_t got = pread(fd, head, sizeof(head), 0);
	if (got < 0)
		return -errno;
	return got == (ssize_t)sizeof(head) && memcmp(head, RECORD_START, sizeof(head)) == 0;
}

int flash_log_cut_partial(int fd, const char *log, struct diag *d)
{
	struct stat st;
	off_t end;
	int rc;

	if (fstat(fd, &st) < 0)
		return diag_error(d, "%s: %s", log, strerror(errno));
	if (st.st_size == 0)
		return 0;
	if ((end = after_last_newline(fd, st.st_size)) < 0)
		return diag_error(d, "%s: %s", log, strerror((int)-end));
	if ((rc = station_log(fd, end, st.st_size)) < 0)
		return diag_error(d, "%s: %s", log, strerror(-rc));
	if (rc == 0)
		return diag_error(d,
				  "%s: not a station log (its last line is no station's record): "
				  "left as it is; give --log a new file or a station's log",
				  log);
	if (end == st.st_size)
		return 0;
	if (ftruncate(fd, end) < 0 || fsync(fd) < 0)
		return diag_error(d,
				  "%s: ends in %lld bytes of a record not written whole, which "
				  "cannot be cut off: %s",
				  log, (long long)(st.st_size - end), strerror(errno));
	diag_warning(d,
		     "%s: ended in %lld bytes of a record not written whole (a full disk, a "
		     "power cut): cut off, the log ends with its last whole record",
		     log, (long long)(st.st_size - end));
	return 0;
}
