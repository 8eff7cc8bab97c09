/* extent: the data extents of a file (see extent.h). */
#include "common/extent.h"

#include <errno.h>
#include <unistd.h>

void extent_start(struct extent_walk *w, int fd, uint64_t from, uint64_t to)
{
	*w = (struct extent_walk){ .fd = fd, .pos = from, .to = to };
}

bool extent_next(struct extent_walk *w, uint64_t *start, uint64_t *end)
{
	if (w->pos >= w->to)
		return false;
	off_t data = lseek(w->fd, (off_t)w->pos, SEEK_DATA);
	if (data < 0 && errno == ENXIO) { /* only a hole is left up to the end of the file */
		w->pos = w->to;
		return false;
	}
	if (data < 0) /* no SEEK_DATA here: all of it is data */
		data = (off_t)w->pos;
	if ((uint64_t)data >= w->to) {
		w->pos = w->to;
		return false;
	}
	off_t hole = lseek(w->fd, data, SEEK_HOLE);
	if (hole <= data || (uint64_t)hole > w->to) /* no SEEK_HOLE: data to the end */
		hole = (off_t)w->to;
	*start = (uint64_t)data;
	*end = (uint64_t)hole;
	w->pos = *end;
	return true;
}
