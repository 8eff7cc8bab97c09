/* SPDX-License-Identifier: MIT */
/* uboot_env: U-Boot environments, their text form and their bytes (see uboot_env.h). */
#include "common/uboot_env.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/bytes.h"

int uboot_env_add(struct uboot_env *e, const char *name, const char *value, unsigned line)
{
	if (e->n == e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 16;
		struct uboot_env_var *v = realloc(e->vars, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		e->vars = v;
		e->cap = cap;
	}
	struct uboot_env_var *v = &e->vars[e->n];
	v->name = strdup(name);
	v->value = strdup(value);
	v->line = line;
	if (!v->name || !v->value) {
		free(v->name);
		free(v->value);
		return -ENOMEM;
	}
	e->n++;
	return 0;
}

const struct uboot_env_var *uboot_env_find(const struct uboot_env *e, const char *name)
{
	for (size_t i = 0; i < e->n; i++)
		if (strcmp(e->vars[i].name, name) == 0)
			return &e->vars[i];
	return NULL;
}

void uboot_env_release(struct uboot_env *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->n; i++) {
		free(e->vars[i].name);
		free(e->vars[i].value);
	}
	free(e->vars);
	*e = (struct uboot_env){ 0 };
}

const char *uboot_env_name_problem(const char *name)
{
	if (!*name)
		return "is empty";
	if (strchr(name, '='))
		return "holds '=' (the end of a name)";
	for (const char *p = name; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return "holds a control character";
	return NULL;
}

/* A piece of text growing by bytes. */
struct grow {
	char *buf;
	size_t len, cap;
};

static int grow_put(struct grow *g, char c)
{
	if (g->len + 1 >= g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 256;
		char *b = realloc(g->buf, cap);
		if (!b)
			return -ENOMEM;
		g->buf = b;
		g->cap = cap;
	}
	g->buf[g->len++] = c;
	g->buf[g->len] = '\0';
	return 0;
}

/* The entry in @g ("name=value") that started on @line, checked and appended to @e. */
static int take_entry(struct uboot_env *e, struct grow *g, const char *where, unsigned line,
		      struct diag *d)
{
	char *eq = g->buf ? strchr(g->buf, '=') : NULL;
	const char *why;

	if (!eq)
		return diag_error(d, "%s:%u: '%.40s' is not name=value", where, line,
				  g->buf ? g->buf : "");
	*eq = '\0';
	if ((why = uboot_env_name_problem(g->buf)))
		return diag_error(d, "%s:%u: the variable's name %s", where, line, why);
	const struct uboot_env_var *was = uboot_env_find(e, g->buf);
	if (was)
		return diag_error(d, "%s:%u: '%s' is set twice (line %u and line %u)", where, line,
				  g->buf, was->line, line);
	int rc = uboot_env_add(e, g->buf, eq + 1, line);
	g->len = 0;
	return rc;
}

/*
 * mkenvimage's reading, byte by byte: a newline ends the entry, unless the byte before it
 * is a backslash (which then becomes that newline: the value goes on) or a newline (a
 * blank line, skipped); a '#' right after a newline (or first) skips its line.
 */
int uboot_env_parse_text(struct uboot_env *e, const char *text, size_t len, const char *where,
			 struct diag *d)
{
	struct grow g = { 0 };
	unsigned line = 1, start = 1;
	int rc = 0;

	for (size_t i = 0; i < len && rc == 0; i++) {
		char c = text[i], prev = i ? text[i - 1] : '\n';
		if (c == '\0' || c == '\r') {
			rc = diag_error(d, "%s:%u: %s", where, line,
					c ? "a carriage return (a text with CRLF line ends?)"
					  : "a NUL byte (not a text?)");
		} else if (c == '\n') {
			line++;
			if (prev == '\\' && g.len)
				g.buf[g.len - 1] = '\n';
			else if (prev != '\n')
				rc = take_entry(e, &g, where, start, d);
		} else if (prev == '\n' && c == '#') {
			while (i + 1 < len && text[i + 1] != '\n')
				i++;
			if (i + 1 < len) { /* its newline too: no entry ends there */
				i++;
				line++;
			}
		} else {
			if (g.len == 0)
				start = line;
			rc = grow_put(&g, c);
		}
	}
	if (rc == 0 && g.len)
		rc = take_entry(e, &g, where, start, d);
	free(g.buf);
	return rc;
}

size_t uboot_env_data_bytes(const struct uboot_env *e)
{
	size_t n = 1;

	for (size_t i = 0; i < e->n; i++)
		n += strlen(e->vars[i].name) + 1 + strlen(e->vars[i].value) + 1;
	return n;
}

/* zlib's CRC-32 of @n bytes, fed in pieces that its uInt length holds. */
static uint32_t crc_of(const uint8_t *p, size_t n)
{
	uLong crc = crc32(0L, Z_NULL, 0);

	while (n) {
		uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;
		crc = crc32(crc, p, k);
		p += k;
		n -= k;
	}
	return (uint32_t)crc;
}

int uboot_env_encode(const struct uboot_env *e, uint8_t *buf, size_t size, bool redundant,
		     uint8_t flags, uint8_t pad)
{
	size_t head = uboot_env_header_bytes(redundant), pos;

	if (size <= head || uboot_env_data_bytes(e) > size - head)
		return -ENOSPC;
	pos = head;
	for (size_t i = 0; i < e->n; i++) {
		size_t nl = strlen(e->vars[i].name), vl = strlen(e->vars[i].value);
		memcpy(buf + pos, e->vars[i].name, nl);
		buf[pos + nl] = '=';
		memcpy(buf + pos + nl + 1, e->vars[i].value, vl);
		buf[pos + nl + 1 + vl] = '\0';
		pos += nl + vl + 2;
	}
	buf[pos++] = '\0';
	memset(buf + pos, pad, size - pos);
	if (redundant)
		buf[UBOOT_ENV_CRC_BYTES] = flags;
	put_le32(buf, crc_of(buf + head, size - head));
	return 0;
}

void uboot_env_read_copy(const uint8_t *buf, size_t size, bool redundant,
			 struct uboot_env_copy *ret)
{
	size_t head = uboot_env_header_bytes(redundant);

	*ret = (struct uboot_env_copy){ .redundant = redundant };
	if (size <= head)
		return;
	ret->crc_stored = get_le32(buf);
	ret->flags = redundant ? buf[UBOOT_ENV_CRC_BYTES] : 0;
	ret->data = buf + head;
	ret->data_size = size - head;
	ret->crc_computed = crc_of(ret->data, ret->data_size);
	ret->crc_ok = ret->crc_stored == ret->crc_computed;
	ret->used = ret->data_size;
	/* the data ends at the first empty entry: a NUL where an entry would start */
	for (size_t i = 0; i < ret->data_size;) {
		if (ret->data[i] == '\0') {
			ret->used = i + 1;
			ret->ended = true;
			break;
		}
		const uint8_t *nul = memchr(ret->data + i, 0, ret->data_size - i);
		if (!nul)
			break;
		i = (size_t)(nul - ret->data) + 1;
	}
}

int uboot_env_copy_vars(const struct uboot_env_copy *c, struct uboot_env *e, struct diag *d)
{
	size_t end = c->ended ? c->used - 1 : c->used;

	for (size_t i = 0; i < end;) {
		const uint8_t *p = c->data + i;
		const uint8_t *nul = memchr(p, 0, end - i);
		size_t n = nul ? (size_t)(nul - p) : end - i;
		char *entry = malloc(n + 1);
		if (!entry)
			return -ENOMEM;
		memcpy(entry, p, n);
		entry[n] = '\0';
		char *eq = strchr(entry, '=');
		int rc = 0;
		if (!eq) {
			rc = diag_error(d,
					"the entry at byte %zu of the copy (%zu of its data) is "
					"not name=value",
					i + uboot_env_header_bytes(c->redundant), i);
		} else {
			*eq = '\0';
			rc = uboot_env_add(e, entry, eq + 1, 0);
		}
		free(entry);
		if (rc < 0)
			return rc;
		i += n + 1;
	}
	return 0;
}

int uboot_env_active(const struct uboot_env_copy *first, const struct uboot_env_copy *second)
{
	uint8_t f1 = first->flags, f2 = second->flags;

	if (!first->crc_ok || !second->crc_ok)
		return first->crc_ok ? 0 : second->crc_ok ? 1 : -1;
	/* both hold: the flags as a counter that wraps, the higher the newer */
	if (f1 == 0xff && f2 == 0)
		return 1;
	if (f2 == 0xff && f1 == 0)
		return 0;
	return f2 > f1 ? 1 : 0;
}
