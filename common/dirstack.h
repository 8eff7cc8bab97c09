/* SPDX-License-Identifier: MIT */
/*
 * dirstack: the stack of a depth-first walk of a volume's folders without recursion, the
 * one the FAT and exFAT readers walk with. A listing pushes each subfolder it meets (its
 * name and a handle of the reader's own: a cluster, an entry); dirstack_next() then hands
 * them out depth first, each with its path, and drops a folder's frame once its subfolders
 * are done, so the stack holds only the folders on the way to the current one and their
 * unlisted siblings.
 */
#ifndef SDIMG_DIRSTACK_H
#define SDIMG_DIRSTACK_H

#include <stddef.h>

struct dirstack_frame;

struct dirstack {
	size_t handle_size;     /* bytes of a pushed folder's handle */
	unsigned char *handles; /* the pushed folders' handles, one after another */
	size_t *name_at;        /* per pushed folder: its name's offset in names */
	size_t n_pending, cap_handles, cap_name_at;
	char *names;
	size_t n_names, cap_names;
	char *path; /* the folder being listed, or last handed out */
	size_t cap_path;
	struct dirstack_frame *frames;
	size_t depth, cap_frames; /* depth: the frames on the stack */
};

/* Starts an empty stack at the folder @path, whose handles are @handle_size bytes.
 * Returns 0 or -ENOMEM. */
int dirstack_init(struct dirstack *s, const char *path, size_t handle_size);

/* Pushes the frame of the folder at s->path, which its listing fills. 0 or -ENOMEM. */
int dirstack_open(struct dirstack *s);

/* Pushes the subfolder @name, found by the listing of the top frame, with its @handle.
 * 0 or -ENOMEM. */
int dirstack_push(struct dirstack *s, const char *name, const void *handle);

/*
 * The next folder to list, depth first: 1 with its path in s->path and its handle copied to
 * @handle (s->depth is then the depth of its parent's frame), 0 when the top frame had no
 * subfolder left and was dropped (call again while s->depth), or -ENOMEM.
 */
int dirstack_next(struct dirstack *s, void *handle);

void dirstack_free(struct dirstack *s);

#endif
