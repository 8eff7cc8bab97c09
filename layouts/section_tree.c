/* SPDX-License-Identifier: MIT */
/* section_tree: sections and keys of a layout as written (see section_tree.h). */
#include "layouts/section_tree.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/utf8.h"

struct tree_section *layout_tree_new(const struct section_spec *spec, const char *title,
				     struct layout_loc loc, const struct tree_section *parent)
{
	struct tree_section *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	*s = (struct tree_section){ .spec = spec, .loc = loc, .parent = parent };
	if (title && !(s->title = strdup(title))) {
		free(s);
		return NULL;
	}
	return s;
}

int layout_tree_add_section(struct tree_section *s, struct tree_section *sub)
{
	if (array_grow((void **)&s->subs, &s->subs_cap, s->n_subs + 1, sizeof(*s->subs)) < 0)
		return -ENOMEM;
	s->subs[s->n_subs++] = sub;
	return 0;
}

int layout_tree_add_key(struct tree_section *s, const struct key_spec *spec, const char *text,
			const struct key_value *value, struct layout_loc loc)
{
	char *copy = strdup(text);

	if (!copy ||
	    array_grow((void **)&s->keys, &s->keys_cap, s->n_keys + 1, sizeof(*s->keys)) < 0) {
		free(copy);
		return -ENOMEM;
	}
	s->keys[s->n_keys++] = (struct tree_key){
		.spec = spec,
		.text = copy,
		.value = *value,
		.loc = loc,
	};
	return 0;
}

const struct tree_key *layout_tree_key(const struct tree_section *s, const char *name)
{
	for (size_t i = 0; s && i < s->n_keys; i++)
		if (strcmp(s->keys[i].spec->name, name) == 0)
			return &s->keys[i];
	return NULL;
}

const struct tree_section *layout_tree_sub(const struct tree_section *s, const char *name)
{
	for (size_t i = 0; s && i < s->n_subs; i++)
		if (strcmp(s->subs[i]->spec->name, name) == 0)
			return s->subs[i];
	return NULL;
}

void layout_tree_what(const struct tree_section *s, char *buf, size_t n)
{
	char parent[300] = "", title[200];

	if (!s->parent) {
		snprintf(buf, n, "%s", "");
		return;
	}
	layout_tree_what(s->parent, parent, sizeof(parent));
	snprintf(buf, n, "%.200s%s%s%s%.180s%s", parent, *parent ? ": " : "", s->spec->name,
		 s->title ? " '" : "", s->title ? utf8_shown(s->title, title, sizeof(title)) : "",
		 s->title ? "'" : "");
}

void layout_tree_free(struct tree_section *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_keys; i++)
		free(s->keys[i].text);
	free(s->keys);
	for (size_t i = 0; i < s->n_subs; i++)
		layout_tree_free(s->subs[i]);
	free(s->subs);
	free(s->title);
	free(s);
}
