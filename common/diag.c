/* SPDX-License-Identifier: MIT */
/* diag: collected user-facing messages (see diag.h). */
#include "common/diag.h"

#include "common/array.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void diag_init(struct diag *d)
{
	memset(d, 0, sizeof(*d));
}

void diag_release(struct diag *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++)
		free(d->msgs[i].text);
	free(d->msgs);
	diag_init(d);
}

static void diag_add(struct diag *d, enum diag_level level, const char *fmt, va_list ap)
{
	char *text = NULL;

	if (vasprintf(&text, fmt, ap) < 0)
		text = strdup("out of memory while reporting an error");
	if (array_grow((void **)&d->msgs, &d->cap, d->n + 1, sizeof(*d->msgs)) < 0) {
		free(text);
		/* keep at least the count right: the caller still sees a failure */
		if (level == DIAG_ERROR)
			d->errors++;
		return;
	}
	d->msgs[d->n].level = level;
	d->msgs[d->n].text = text;
	d->n++;
	if (level == DIAG_ERROR)
		d->errors++;
}

int diag_post_error(struct diag *d, const char *fmt, ...)
{
	int saved = errno; /* diag_errno(d, -errno, ...) may read it after the line is posted */
	va_list ap;

	va_start(ap, fmt);
	diag_add(d, DIAG_ERROR, fmt, ap);
	va_end(ap);
	errno = saved;
	return 0;
}

void diag_warning(struct diag *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_add(d, DIAG_WARNING, fmt, ap);
	va_end(ap);
}

int diag_prefix(struct diag *d, size_t first, const char *prefix)
{
	size_t len = strlen(prefix);

	for (size_t i = first; i < d->n; i++) {
		struct diag_msg *m = &d->msgs[i];
		char *text = NULL;
		if (m->level != DIAG_ERROR || !m->text || strncmp(m->text, prefix, len) == 0)
			continue;
		if (asprintf(&text, "%s%s", prefix, m->text) < 0)
			return -ENOMEM;
		free(m->text);
		m->text = text;
	}
	return 0;
}

int diag_suffix(struct diag *d, size_t i, const char *suffix)
{
	struct diag_msg *m = i < d->n ? &d->msgs[i] : NULL;
	char *text = NULL;

	if (!m || !m->text)
		return 0; /* a line lost when memory ran out, or the fixed out-of-memory line */
	if (asprintf(&text, "%s%s", m->text, suffix) < 0)
		return -ENOMEM;
	free(m->text);
	m->text = text;
	return 0;
}

void diag_note(struct diag *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_add(d, DIAG_NOTE, fmt, ap);
	va_end(ap);
}

void diag_take(struct diag *to, struct diag *from)
{
	for (size_t i = 0; i < from->n; i++) {
		struct diag_msg *m = &from->msgs[i];
		if (array_grow((void **)&to->msgs, &to->cap, to->n + 1, sizeof(*to->msgs)) < 0) {
			free(m->text); /* as diag_add(): the count stays right */
		} else {
			to->msgs[to->n++] = *m;
		}
		to->errors += m->level == DIAG_ERROR;
		m->text = NULL;
	}
	from->n = 0;
	from->errors = 0;
	diag_release(from);
}

void diag_print(const struct diag *d, FILE *out, const char *prog)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct diag_msg *m = &d->msgs[i];
		if (!m->text)
			continue;
		fprintf(out, "%s: %s%s\n", prog,
			m->level == DIAG_WARNING ? "warning: "
			: m->level == DIAG_NOTE  ? "note: "
						 : "",
			m->text);
	}
}

void diag_drop_notes(struct diag *d)
{
	for (size_t i = 0; i < d->n; i++) {
		if (d->msgs[i].level != DIAG_NOTE)
			continue;
		free(d->msgs[i].text);
		d->msgs[i].text = NULL;
	}
}

int diag_has(const struct diag *d, const char *needle)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->msgs[i].level == DIAG_ERROR && d->msgs[i].text &&
		    strstr(d->msgs[i].text, needle))
			return 1;
	return 0;
}
