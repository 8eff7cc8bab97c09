/* SPDX-License-Identifier: MIT */
/*
 * diag: the messages a piece of work produces for the user.
 *
 * Every module reports problems into a struct diag owned by its caller; the CLI prints the
 * collected lines once, on stderr. A message already names where it comes from
 * ("card.layout:12: partition 'boot': ..." or a source path); diag adds nothing to it.
 *
 * Ownership: diag_release() frees every message; the struct itself belongs to the caller.
 */
#ifndef SDIMG_DIAG_H
#define SDIMG_DIAG_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

enum diag_level {
	DIAG_ERROR,
	DIAG_WARNING,
	DIAG_NOTE, /* worth knowing, nothing to fix */
};

struct diag_msg {
	enum diag_level level;
	char *text; /* owned */
};

struct diag {
	struct diag_msg *msgs; /* owned array of n messages */
	size_t n;
	size_t cap;
	size_t errors; /* how many of them are errors */
};

/* A diag with no messages; equivalent to zero-initialising it. */
void diag_init(struct diag *d);

/* Frees every message and leaves @d empty and reusable. Accepts NULL. */
void diag_release(struct diag *d);

/*
 * Adds an error line formatted like printf; errno is left as it was. Returns 0. When memory
 * runs out the line is replaced by a fixed one. Called through diag_errno() and diag_error().
 */
int diag_post_error(struct diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The @code of diag_errno(), once its line is posted (@posted: diag_post_error()'s 0).
 * Inline and not variadic, so that a static analyser sees the value returned. */
static inline int diag_code(int posted, int code)
{
	(void)posted;
	return code;
}

/*
 * diag_errno(d, code, fmt, ...): adds an error line formatted like printf and returns
 * @code, a negative errno, so that a function can `return diag_errno(d, -ENOSPC, ...)` and
 * its caller still knows what went wrong. `diag_errno(d, -errno, "%s", strerror(errno))`
 * keeps the errno of the failure: posting the line leaves errno alone.
 */
#define diag_errno(d, code, ...) diag_code(diag_post_error((d), __VA_ARGS__), (code))

/* diag_error(d, fmt, ...): diag_errno() for -EINVAL, the code of bad input. */
#define diag_error(d, ...) diag_code(diag_post_error((d), __VA_ARGS__), -EINVAL)

/* Adds a warning line: something the user asked for that works but deserves a look. */
void diag_warning(struct diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Puts @prefix before every error line added since the first @first lines, unless the line
 * already starts with it: the caller names the place (a layout's FILE:LINE and key) that
 * the callee did not know. Returns 0 or -ENOMEM (the lines then stay as they were).
 */
int diag_prefix(struct diag *d, size_t first, const char *prefix);

/*
 * Puts @suffix after message @i (d->n when it was added): "(and 40 more ...)" once the
 * count is known; nothing when there is no such line (lost when memory ran out). Returns 0
 * or -ENOMEM (the line stays as it was).
 */
int diag_suffix(struct diag *d, size_t i, const char *suffix);

/* Adds a note: something the user may not expect, which is as it should be. */
void diag_note(struct diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Moves every message of @from, in order and at its level, to the end of @to; @from is left
 * empty (a scratch diag whose work turned out to matter). */
void diag_take(struct diag *to, struct diag *from);

/* Prints every message, one per line: errors as "PROG: MSG", warnings as
 * "PROG: warning: MSG", notes as "PROG: note: MSG". */
void diag_print(const struct diag *d, FILE *out, const char *prog);

/* Forgets every note of @d (what -q asks for: errors and warnings only). */
void diag_drop_notes(struct diag *d);

/* Returns 1 when @d holds an error line containing @needle (for tests), else 0. */
int diag_has(const struct diag *d, const char *needle);

#endif
