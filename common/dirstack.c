/* SPDX-License-Identifier: MIT */
/* dirstack: the folders of a depth-first walk still to list (dirstack.h). */
#include "common/dirstack.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"

/* A folder being listed: its subfolders are the pushed ones from first up to the next
 * frame's first. */
struct dirstack_frame {
	size_t first, next; /* pushed folders */
	size_t names;       /* the names' length before its subfolders' names */
	size_t path_len;    /* length of its path in path */
};

int dirstack_init(struct dirstack *s, const char *path, size_t handle_size)
{
	*s = (struct dirstack){ .handle_size = handle_size };
	if (!(s->path = strdup(path)))
		return -ENOMEM;
	s->cap_path = strlen(path) + 1;
	return 0;
}

int dirstack_open(struct dirstack *s)
{
	if (array_grow((void **)&s->frames, &s->cap_frames, s->depth + 1, sizeof(*s->frames)) < 0)
		return -ENOMEM;
	s->frames[s->depth++] = (struct dirstack_frame){ s->n_pending, s->n_pending, s->n_names,
							 strlen(s->path) };
	return 0;
}

int dirstack_push(struct dirstack *s, const char *name, const void *handle)
{
	size_t len = strlen(name) + 1;

	if (array_grow((void **)&s->handles, &s->cap_handles, s->n_pending + 1, s->handle_size) <
		    0 ||
	    array_grow((void **)&s->name_at, &s->cap_name_at, s->n_pending + 1,
		       sizeof(*s->name_at)) < 0 ||
	    array_grow((void **)&s->names, &s->cap_names, s->n_names + len, 1) < 0)
		return -ENOMEM;
	memcpy(s->handles + s->n_pending * s->handle_size, handle, s->handle_size);
	s->name_at[s->n_pending++] = s->n_names;
	memcpy(s->names + s->n_names, name, len);
	s->n_names += len;
	return 0;
}

/* Sets s->path to the path of @name in the folder whose path is s->path[0..@len]. */
static int set_path(struct dirstack *s, size_t len, const char *name)
{
	bool slash = !len || s->path[len - 1] != '/';
	size_t n = strlen(name);

	if (array_grow((void **)&s->path, &s->cap_path, len + slash + n + 1, 1) < 0)
		return -ENOMEM;
	if (slash)
		s->path[len++] = '/';
	memcpy(s->path + len, name, n + 1);
	return 0;
}

int dirstack_next(struct dirstack *s, void *handle)
{
	struct dirstack_frame *f = &s->frames[s->depth - 1];
	size_t i;

	if (f->next == s->n_pending) { /* the top frame's subfolders end the stack */
		s->n_pending = f->first;
		s->n_names = f->names;
		s->depth--;
		return 0;
	}
	i = f->next++;
	memcpy(handle, s->handles + i * s->handle_size, s->handle_size);
	return set_path(s, f->path_len, s->names + s->name_at[i]) < 0 ? -ENOMEM : 1;
}

void dirstack_free(struct dirstack *s)
{
	free(s->handles);
	free(s->name_at);
	free(s->names);
	free(s->path);
	free(s->frames);
	*s = (struct dirstack){ 0 };
}
