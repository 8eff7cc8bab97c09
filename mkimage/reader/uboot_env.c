/* SPDX-License-Identifier: MIT */
/* uboot_env: a U-Boot environment at a place the user names, for `inspect --uboot-env` and
 * `cat --uboot-env` (reader.h; the format: common/uboot_env.h). Nothing read is trusted. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "layouts/layouts.h"
#include "mkimage/reader/reader.h"

/* The copy sizes tried when none is given: the CONFIG_ENV_SIZE values boards use. */
#define ENV_TRY_MIN (4u << 10)
#define ENV_TRY_MAX (1u << 20)

/* One number of --uboot-env: hexadecimal after 0x (as U-Boot's CONFIG_ENV_OFFSET and
 * fw_env.config write it), else a size with an optional unit. */
static int place_number(const char *t, uint64_t *ret, char *why, size_t n)
{
	if ((t[0] == '0' && (t[1] == 'x' || t[1] == 'X'))) {
		char *end = NULL;
		errno = 0;
		unsigned long long v = strtoull(t + 2, &end, 16);
		if (!isxdigit((unsigned char)t[2]) || *end || errno) {
			snprintf(why, n, "'%s' is no hexadecimal number of bytes", t);
			return -EINVAL;
		}
		*ret = v;
		return 0;
	}
	return layout_parse_size(t, ret, why, n);
}

int reader_env_place_parse(const char *text, struct reader_env_place *ret, char *why, size_t n)
{
	char *copy = strdup(text), *parts[3] = { NULL, NULL, NULL };
	uint64_t *fields[3] = { &ret->offset, &ret->size, &ret->offset_redund };
	unsigned k = 0;
	int rc = 0;

	*ret = (struct reader_env_place){ 0 };
	if (!copy) {
		snprintf(why, n, "out of memory");
		return -ENOMEM;
	}
	/* every field given: an empty one (1M,,2M) would shift the next into its place */
	for (char *t = copy, *c; rc == 0 && t; t = c ? c + 1 : NULL, k++) {
		if ((c = strchr(t, ',')))
			*c = '\0';
		if (k == 3 || !*t)
			rc = -EINVAL;
		else
			parts[k] = t;
	}
	if (rc < 0)
		snprintf(why, n, "'%s' is not OFFSET[,SIZE[,OFFSET2]]", text);
	for (unsigned i = 0; rc == 0 && i < k; i++)
		rc = place_number(parts[i], fields[i], why, n);
	if (rc == 0 && k > 1 && ret->size <= uboot_env_header_bytes(true)) {
		snprintf(why, n, "a copy of %" PRIu64 " bytes holds no environment", ret->size);
		rc = -EINVAL;
	}
	if (rc == 0 && ret->size > UBOOT_ENV_MAX_SIZE) {
		snprintf(why, n, "a copy of more than 16 MiB is no environment");
		rc = -EINVAL;
	}
	/* the second copy apart from the first, as the layout's offset-redund must be */
	if (rc == 0 && k > 2 &&
	    (ret->offset_redund >= ret->offset ? ret->offset_redund - ret->offset
					       : ret->offset - ret->offset_redund) < ret->size) {
		snprintf(why, n,
			 "'%s': the second copy at byte %" PRIu64
			 " overlaps the first (bytes %" PRIu64 " to %" PRIu64 ")",
			 text, ret->offset_redund, ret->offset, ret->offset + ret->size);
		rc = -EINVAL;
	}
	ret->size_set = k > 1;
	ret->redund_set = k > 2;
	free(copy);
	return rc;
}

void reader_env_release(struct reader_env *e)
{
	free(e->bytes[0]);
	free(e->bytes[1]);
	*e = (struct reader_env){ 0 };
}

/* @size bytes at @at of @fd (an image of @image_size bytes) into a new buffer in *@ret. */
static int read_copy(int fd, const char *path, uint64_t image_size, uint64_t at, uint64_t size,
		     uint8_t **ret, struct diag *d)
{
	if (at > image_size || size > image_size - at)
		return diag_error(d,
				  "%s: an environment of %" PRIu64 " bytes at byte %" PRIu64
				  " ends past its %" PRIu64 " bytes",
				  path, size, at, image_size);
	if (!(*ret = malloc(size)))
		return -ENOMEM;
	ssize_t got = pread(fd, *ret, size, (off_t)at);
	if (got < 0 || (uint64_t)got != size)
		return diag_error(d, "%s: cannot read %" PRIu64 " bytes at %" PRIu64 ": %s", path,
				  size, at, got < 0 ? strerror(errno) : "too short");
	return 0;
}

/* Reads the copies at @p with copies of @size bytes, @redundant or not, into @e. */
static int read_at_size(int fd, const char *path, uint64_t image_size,
			const struct reader_env_place *p, uint64_t size, bool redundant,
			struct reader_env *e, struct diag *d)
{
	reader_env_release(e);
	e->offsets[0] = p->offset;
	e->offsets[1] = p->redund_set ? p->offset_redund : p->offset + size;
	e->size = size;
	e->redundant = redundant;
	int rc = read_copy(fd, path, image_size, p->offset, size, &e->bytes[0], d);
	if (rc == 0 && redundant)
		rc = read_copy(fd, path, image_size, e->offsets[1], size, &e->bytes[1], d);
	for (unsigned k = 0; rc == 0 && k < (redundant ? 2u : 1u); k++)
		uboot_env_read_copy(e->bytes[k], size, redundant, &e->copies[k]);
	e->active = rc < 0                ? -1
		    : redundant           ? uboot_env_active(&e->copies[0], &e->copies[1])
		    : e->copies[0].crc_ok ? 0
					  : -1;
	return rc;
}

/* Whether the copy at @p of @size bytes has a valid CRC as a single or as a redundant copy:
 * 1 single, 2 redundant, 0 neither. */
static int crc_holds(int fd, uint64_t image_size, uint64_t offset, uint64_t size)
{
	uint8_t *buf = NULL;
	struct uboot_env_copy c;
	int found = 0;
	struct diag quiet;

	diag_init(&quiet);
	if (read_copy(fd, "", image_size, offset, size, &buf, &quiet) == 0) {
		uboot_env_read_copy(buf, size, false, &c);
		found = c.crc_ok ? 1 : 0;
		uboot_env_read_copy(buf, size, true, &c);
		found = found ? found : c.crc_ok ? 2 : 0;
	}
	free(buf);
	diag_release(&quiet);
	return found;
}

int reader_env_read(int fd, const char *path, const struct reader_env_place *p,
		    struct reader_env *ret, struct diag *d)
{
	uint64_t image_size;
	int rc = reader_size_of(fd, &image_size);

	*ret = (struct reader_env){ .active = -1 };
	if (rc < 0)
		return diag_errno(d, rc, "%s: %s", path, strerror(-rc));
	if (p->offset >= image_size)
		return diag_error(d, "%s: byte %" PRIu64 " is past its %" PRIu64 " bytes", path,
				  p->offset, image_size);
	for (uint64_t s = ENV_TRY_MIN; !p->size_set && s <= ENV_TRY_MAX; s *= 2) {
		int kind = crc_holds(fd, image_size, p->offset, s);
		/* a redundant one whose first copy is damaged: its second copy tells */
		if (!kind && crc_holds(fd, image_size,
				       p->redund_set ? p->offset_redund : p->offset + s, s) == 2)
			kind = 2;
		if (kind)
			return read_at_size(fd, path, image_size, p, s, kind == 2, ret, d);
	}
	if (!p->size_set)
		return diag_error(d,
				  "%s: no U-Boot environment at byte %" PRIu64
				  " (no copy of 4 KiB to 1 MiB whose CRC holds there or right "
				  "after it; "
				  "give its size: --uboot-env OFFSET,SIZE)",
				  path, p->offset);
	/* a size given: redundant when the flags-byte CRC holds, or a second copy is named */
	int kind = crc_holds(fd, image_size, p->offset, p->size);
	return read_at_size(fd, path, image_size, p, p->size, kind == 2 || p->redund_set, ret, d);
}

/* @v with each control character as \n, \t or \xHH, for a line of its own. */
static void print_shown(FILE *out, const char *v)
{
	for (; *v; v++) {
		unsigned char c = (unsigned char)*v;
		if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c < 0x20 || c == 0x7f || c == '\\')
			fprintf(out, c == '\\' ? "\\\\" : "\\x%02x", c);
		else
			fputc(c, out);
	}
}

int reader_env_print_text(const struct reader_env *e, FILE *out, struct diag *d)
{
	struct uboot_env vars = { 0 };
	int rc = 0;

	fprintf(out, "U-Boot environment at byte %" PRIu64 ": %" PRIu64 " bytes a copy, %s\n",
		e->offsets[0], e->size, e->redundant ? "redundant" : "single");
	for (unsigned k = 0; k < (e->redundant ? 2u : 1u); k++) {
		const struct uboot_env_copy *c = &e->copies[k];
		fprintf(out, "  copy %u at byte %" PRIu64 ": CRC %s (0x%08x", k + 1, e->offsets[k],
			c->crc_ok ? "ok" : "BAD", c->crc_stored);
		if (!c->crc_ok)
			fprintf(out, ", the data's is 0x%08x", c->crc_computed);
		fprintf(out, ")");
		if (e->redundant)
			fprintf(out, ", flags %u", c->flags);
		fprintf(out, "%s\n", e->active == (int)k ? ", active" : "");
	}
	if (e->active < 0) {
		fprintf(out,
			"  no copy U-Boot would read (it boots with its default environment)\n");
		return 0;
	}
	const struct uboot_env_copy *c = &e->copies[e->active];
	struct diag scratch;
	diag_init(&scratch);
	rc = uboot_env_copy_vars(c, &vars, &scratch);
	fprintf(out, "  variables of copy %d: %zu, %zu of %zu bytes used\n", e->active + 1, vars.n,
		c->used, c->data_size);
	for (size_t i = 0; i < vars.n; i++) {
		fputs("    ", out);
		print_shown(out, vars.vars[i].name);
		fputc('=', out);
		print_shown(out, vars.vars[i].value);
		fputc('\n', out);
	}
	if (rc == -EINVAL)
		fprintf(out, "  damaged: %s\n", scratch.msgs[0].text);
	if (!c->ended)
		fprintf(out,
			"  damaged: the data has no end (no empty entry before the copy ends)\n");
	diag_release(&scratch);
	uboot_env_release(&vars);
	return rc == -ENOMEM ? diag_errno(d, rc, "out of memory") : 0;
}

int reader_env_print_vars(const struct reader_env *e, const char *path, FILE *out, struct diag *d)
{
	struct uboot_env vars = { 0 };
	struct diag scratch;

	if (e->active < 0)
		return diag_error(d,
				  "%s: the U-Boot environment at byte %" PRIu64
				  " has no copy whose CRC holds",
				  path, e->offsets[0]);
	diag_init(&scratch);
	int rc = uboot_env_copy_vars(&e->copies[e->active], &vars, &scratch);
	for (size_t i = 0; rc == 0 && i < vars.n; i++)
		fprintf(out, "%s=%s\n", vars.vars[i].name, vars.vars[i].value);
	uboot_env_release(&vars);
	if (rc == -EINVAL)
		rc = diag_error(d, "%s: the U-Boot environment at byte %" PRIu64 ": %s", path,
				e->offsets[e->active], scratch.msgs[0].text);
	diag_release(&scratch);
	return rc;
}
