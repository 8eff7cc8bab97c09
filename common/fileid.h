/* SPDX-License-Identifier: MIT */
/*
 * fileid: which file a path named when it was looked at (device, inode, size, modification
 * time), so that a file replaced or changed before its bytes are copied is found out.
 */
#ifndef SDIMG_FILEID_H
#define SDIMG_FILEID_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

struct fileid {
	uint64_t dev, ino, size; /* ino 0: not known */
	int64_t mtime_s;
	long mtime_ns;
};

static inline struct fileid fileid_of(const struct stat *st)
{
	return (struct fileid){ .dev = (uint64_t)st->st_dev,
				.ino = (uint64_t)st->st_ino,
				.size = (uint64_t)st->st_size,
				.mtime_s = st->st_mtim.tv_sec,
				.mtime_ns = st->st_mtim.tv_nsec };
}

/* Whether @st is the file @id describes (an unknown id matches anything). */
static inline bool fileid_same(const struct fileid *id, const struct stat *st)
{
	return !id->ino ||
	       (id->dev == (uint64_t)st->st_dev && id->ino == (uint64_t)st->st_ino &&
		id->size == (uint64_t)st->st_size && id->mtime_s == st->st_mtim.tv_sec &&
		id->mtime_ns == st->st_mtim.tv_nsec);
}

#endif
