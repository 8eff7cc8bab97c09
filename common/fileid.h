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
	uint64_t mtime;          /* the modification time in nanoseconds (see fileid_mtime()) */
};

/* The modification time of @st in nanoseconds since the epoch, modulo 2^64: only ever
 * compared, and two times 584 years apart are never the same file's before and after. One
 * number instead of two keeps a model's many ids small. */
static inline uint64_t fileid_mtime(const struct stat *st)
{
	return (uint64_t)st->st_mtim.tv_sec * 1000000000u + (uint64_t)st->st_mtim.tv_nsec;
}

static inline struct fileid fileid_of(const struct stat *st)
{
	return (struct fileid){ .dev = (uint64_t)st->st_dev,
				.ino = (uint64_t)st->st_ino,
				.size = (uint64_t)st->st_size,
				.mtime = fileid_mtime(st) };
}

/* Whether @st is the file @id describes (an unknown id matches anything). */
static inline bool fileid_same(const struct fileid *id, const struct stat *st)
{
	return !id->ino || (id->dev == (uint64_t)st->st_dev && id->ino == (uint64_t)st->st_ino &&
			    id->size == (uint64_t)st->st_size && id->mtime == fileid_mtime(st));
}

#endif
