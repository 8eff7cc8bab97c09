/* SPDX-License-Identifier: MIT */
/*
 * fileid: which file a path named when it was looked at (device, inode, modification time),
 * so that a file replaced or changed before its bytes are copied is found out, with the
 * size it had then, which its holder keeps anyway (a model keeps many ids: 24 bytes each).
 */
#ifndef SDIMG_FILEID_H
#define SDIMG_FILEID_H

#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>

struct fileid {
	uint64_t dev, ino; /* ino 0: not known */
	uint64_t mtime;    /* the modification time in nanoseconds (see fileid_mtime()) */
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
				.mtime = fileid_mtime(st) };
}

/* Whether @st is the file @id describes, of @size bytes as it was then (an unknown id
 * matches any file of that size). */
static inline bool fileid_same(const struct fileid *id, uint64_t size, const struct stat *st)
{
	return size == (uint64_t)st->st_size &&
	       (!id->ino || (id->dev == (uint64_t)st->st_dev && id->ino == (uint64_t)st->st_ino &&
			     id->mtime == fileid_mtime(st)));
}

/* Whether the entry @name of the folder open at @dirfd is another file than the regular
 * file @id of @size bytes (a folder, a symbolic link, a socket put at its name since): false
 * where there is no entry, or it cannot be looked at. For a file that cannot be opened. */
static inline bool fileid_replaced_at(int dirfd, const char *name, const struct fileid *id,
				      uint64_t size)
{
	struct stat st;

	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       !(S_ISREG(st.st_mode) && fileid_same(id, size, &st));
}

#endif
