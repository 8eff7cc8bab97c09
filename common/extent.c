/* SPDX-License-Identifier: MIT */
/* extent: the data extents of a file (see extent.h). */
#include "common/extent.h"

#include <errno.h>
#include <unistd.h>

void extent_start(struct extent_walk *w, int fd, uint64_t from, uint64_t to)
{
	*w = (struct extent_walk){ .fd = fd, .pos = from, .to = to };
}

/* Whether lseek()'s @err says that SEEK_DATA/SEEK_HOLE are not offered here (a kernel or a
 * file system without them, lseek(2)), rather than that something failed. */
static bool no_seek_data(int err)
{
	return err == EINVAL || err == ENOTSUP || err == EOPNOTSUPP;
}

/* Ends the walk: with the failure @err (-errno), or with 0 when only holes are left. */
static bool end_walk(struct extent_walk *w, int err)
{
	w->pos = w->to;
	w->err = err;
	return false;
}

bool extent_next(struct extent_walk *w, uint64_t *start, uint64_t *end)
{
	if (w->pos >= w->to)
		return false;
	off_t data = lseek(w->fd, (off_t)w->pos, SEEK_DATA);
	if (data < 0 && errno == ENXIO) /* only a hole is left up to the end of the file */
		return end_walk(w, 0);
	if (data < 0 && !no_seek_data(errno))
		return end_walk(w, -errno);
	if (data < 0) /* no SEEK_DATA here: all of it is data */
		data = (off_t)w->pos;
	if ((uint64_t)data >= w->to)
		return end_walk(w, 0);
	off_t hole = lseek(w->fd, data, SEEK_HOLE);
	/* ENXIO: the file ended at @data since SEEK_DATA; its reader finds it shorter */
	if (hole < 0 && errno != ENXIO && !no_seek_data(errno))
		return end_walk(w, -errno);
	if (hole <= data || (uint64_t)hole > w->to) /* no SEEK_HOLE: data to the end */
		hole = (off_t)w->to;
	*start = (uint64_t)data;
	*end = (uint64_t)hole;
	w->pos = *end;
	return true;
}
