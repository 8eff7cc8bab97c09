/* SPDX-License-Identifier: MIT */
/* arena: pieces carved from large blocks (see arena.h). */
#include "common/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct arena_block {
	struct arena_block *prev; /* the block before it (NULL: the first) */
	size_t used, cap;         /* bytes of data carved, and held */
	_Alignas(16) unsigned char data[];
};

void *arena_alloc(struct arena *a, size_t len, size_t align)
{
	struct arena_block *b = a->last;
	size_t at = b ? (b->used + align - 1) & ~(align - 1) : 0;

	if (!b || at > b->cap || len > b->cap - at) {
		size_t cap = len > ARENA_BLOCK - sizeof(*b) ? len : ARENA_BLOCK - sizeof(*b);
		if (len > SIZE_MAX - sizeof(*b))
			return NULL;
		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->prev = a->last;
		b->used = 0;
		b->cap = cap;
		a->last = b;
		at = 0;
	}
	b->used = at + len;
	return memset(b->data + at, 0, len);
}

char *arena_strndup(struct arena *a, const char *s, size_t len)
{
	char *p = len < SIZE_MAX ? arena_alloc(a, len + 1, 1) : NULL;

	if (p)
		memcpy(p, s, len);
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

void arena_pop_to(struct arena *a, const void *p)
{
	const unsigned char *at = p;

	while (a->last) {
		struct arena_block *b = a->last;
		/* compared as addresses: @p lies in this block or in an older one */
		if ((uintptr_t)at >= (uintptr_t)b->data &&
		    (uintptr_t)at <= (uintptr_t)(b->data + b->used)) {
			b->used = (size_t)(at - b->data);
			return;
		}
		a->last = b->prev;
		free(b);
	}
}

void arena_free(struct arena *a)
{
	while (a->last) {
		struct arena_block *b = a->last;
		a->last = b->prev;
		free(b);
	}
}
