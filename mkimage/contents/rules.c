/* SPDX-License-Identifier: MIT */
/*
 * rules: what the content of every file system shares, whatever gathers it (a host folder's
 * walk or an archive's listing, for FAT, ext4 and the next): the one rule of stored times.
 */
#include "mkimage/contents/contents.h"

int64_t content_mtime(const struct layout_image *im, const struct timespec *ts, uint32_t *ret_ns)
{
	*ret_ns = 0;
	if (im->mtime == LAYOUT_MTIME_FIXED || !ts)
		return im->timestamp;
	if (im->timestamp_from_env && ts->tv_sec >= im->timestamp)
		return im->timestamp; /* clamped to SOURCE_DATE_EPOCH */
	*ret_ns = (uint32_t)ts->tv_nsec;
	return ts->tv_sec;
}
