/* SPDX-License-Identifier: MIT */
/* read_filters: the include and exclude patterns of a `tree` (LAYOUT.md, "Filters"). */
#include "layouts/read_priv.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"

/* Adds the pattern at @p (@n bytes, white space around it already dropped). */
static int add_pattern(char ***v, size_t *n, size_t *cap, const char *p, size_t len)
{
	char *copy = strndup(p, len);

	if (!copy || array_grow((void **)v, cap, *n + 1, sizeof(**v)) < 0) {
		free(copy);
		return -ENOMEM;
	}
	(*v)[(*n)++] = copy;
	return 0;
}

/* The length of the pattern at @p: up to a comma that stands outside a [...] set. */
static size_t pattern_len(const char *p)
{
	bool in_set = false;
	size_t i = 0;

	for (; p[i] && (in_set || p[i] != ','); i++)
		if (p[i] == '[')
			in_set = true;
		else if (p[i] == ']')
			in_set = false;
	return i;
}

/* @key's comma list into *@v: each pattern trimmed; an empty one is an error. */
static int read_patterns(struct reader *r, const struct sect *s, const char *key, char ***v,
			 size_t *n)
{
	const char *text = layout_key_text(s, key);
	size_t cap = 0;

	for (const char *p = text; p; p = p[pattern_len(p)] ? p + pattern_len(p) + 1 : NULL) {
		size_t len = pattern_len(p);
		const char *start = p;
		while (len && (*start == ' ' || *start == '\t')) {
			start++;
			len--;
		}
		while (len && (start[len - 1] == ' ' || start[len - 1] == '\t'))
			len--;
		if (!len || (len == 1 && *start == '/'))
			return layout_key_error(r, s, key,
						"'%s' holds an empty pattern (a comma list "
						"of patterns such as \"*.dtb, overlays\")",
						text);
		if (add_pattern(v, n, &cap, start, len) < 0)
			return -ENOMEM;
	}
	return 0;
}

int layout_read_filters(struct reader *r, const struct sect *s, struct layout_entry *e)
{
	int rc = read_patterns(r, s, "include", &e->include, &e->n_include);
	int rc2 = rc == -ENOMEM ? rc : read_patterns(r, s, "exclude", &e->exclude, &e->n_exclude);

	return rc2 == -ENOMEM ? rc2 : rc < 0 ? rc : rc2;
}
