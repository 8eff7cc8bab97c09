/* SPDX-License-Identifier: MIT */
/*
 * arena: many small pieces of memory (names, nodes) carved from a few large blocks, freed
 * all at once, or from the newest back (a stack): a model of many files then costs no
 * allocation, nor its overhead, per piece.
 */
#ifndef SDIMG_ARENA_H
#define SDIMG_ARENA_H

#include <stddef.h>

/* Each block holds this many bytes (a piece larger than that gets a block of its own). Every
 * arena's blocks are of one size, so that the blocks one arena gives back serve the next. */
#define ARENA_BLOCK (64u * 1024u - 64u)

struct arena_block;

struct arena {
	struct arena_block *last; /* the newest block (NULL: none) */
};

/* @len bytes aligned to @align (a power of two, at most 16), zeroed; NULL when out of memory. */
void *arena_alloc(struct arena *a, size_t len, size_t align);

/* A copy of the @len bytes at @s with a NUL after them; NULL when out of memory. */
char *arena_strndup(struct arena *a, const char *s, size_t len);

/* A copy of the string @s; NULL when out of memory. */
char *arena_strdup(struct arena *a, const char *s);

/*
 * Gives back @p, the oldest piece that is no longer needed, with every piece carved after it
 * (the blocks they fill are freed). @p must come from @a.
 */
void arena_pop_to(struct arena *a, const void *p);

/* Frees every block: the arena is empty again. */
void arena_free(struct arena *a);

#endif
