/* SPDX-License-Identifier: MIT */
/* read_keys: typed access to the keys of a section, and messages that name them. */
#include "layouts/read_priv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void layout_sect_init(struct sect *s, const struct tree_section *node)
{
	s->node = node;
	layout_tree_what(node, s->what, sizeof(s->what));
}

const struct key_value *layout_key_value(const struct sect *s, const char *key)
{
	const struct tree_key *k = layout_tree_key(s->node, key);

	return k ? &k->value : NULL;
}

const char *layout_key_text(const struct sect *s, const char *key)
{
	const struct tree_key *k = layout_tree_key(s->node, key);

	return k ? k->text : NULL;
}

bool layout_key_u64(const struct sect *s, const char *key, uint64_t *ret)
{
	const struct key_value *v = layout_key_value(s, key);

	if (v)
		*ret = v->n;
	return v != NULL;
}

bool layout_key_bool(const struct sect *s, const char *key, bool *ret)
{
	const struct key_value *v = layout_key_value(s, key);

	if (v)
		*ret = v->n != 0;
	return v != NULL;
}

int layout_key_strdup(const struct sect *s, const char *key, char **ret)
{
	const char *text = layout_key_text(s, key);
	char *copy;

	if (!text)
		return 0;
	if (!(copy = strdup(text)))
		return -ENOMEM;
	free(*ret);
	*ret = copy;
	return 1;
}

struct layout_loc layout_sect_loc(const struct sect *s)
{
	return s->node->loc;
}

struct layout_loc layout_key_loc(const struct sect *s, const char *key)
{
	const struct tree_key *k = layout_tree_key(s->node, key);

	return k ? k->loc : s->node->loc;
}

int layout_key_error(struct reader *r, const struct sect *s, const char *key, const char *fmt, ...)
{
	struct layout_loc loc = layout_key_loc(s, key);
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return diag_error(r->d, "%s:%d: %s: %s: %s", loc.file, loc.line, s->what, key, msg);
}

int layout_sect_error(struct reader *r, const struct sect *s, const char *fmt, ...)
{
	struct layout_loc loc = layout_sect_loc(s);
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return diag_error(r->d, "%s:%d: %s: %s", loc.file, loc.line, s->what, msg);
}
