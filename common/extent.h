/* SPDX-License-Identifier: MIT */
/*
 * extent: the data extents of a file, as the file system tells them (lseek(2) with SEEK_DATA
 * and SEEK_HOLE): what a copy must read, what it may leave out (the holes, which read as
 * zeros). Where the file system cannot tell (no SEEK_DATA), all of the range is one extent.
 * Any other failure of lseek() (an I/O error, a descriptor that cannot seek) ends the walk
 * and is kept for the caller to report: the rest of the range is not holes, it is unknown.
 */
#ifndef SDIMG_EXTENT_H
#define SDIMG_EXTENT_H

#include <stdbool.h>
#include <stdint.h>

/* A walk over the data extents of [from, to) of a file; extent_start() sets it up. */
struct extent_walk {
	int fd;
	uint64_t pos; /* where the next extent is looked for */
	uint64_t to;
	int err; /* 0, or the lseek() failure (-errno) that ended the walk */
};

/* Starts a walk over the data extents of @fd's bytes [@from, @to). */
void extent_start(struct extent_walk *w, int fd, uint64_t from, uint64_t to);

/*
 * The next data extent, [*@start, *@end), clipped to the walk's range and in ascending order;
 * the bytes between two extents (and before the first, after the last) are holes. Returns
 * true when there is one, false when only holes are left or when lseek() failed: then
 * @w->err tells why (0 for "only holes"), and every later call returns false too.
 */
bool extent_next(struct extent_walk *w, uint64_t *start, uint64_t *end);

#endif
