/* SPDX-License-Identifier: MIT */
/*
 * The output files of a build beyond what builder.h declares (private to mkimage/builder/):
 * a scratch image, the clean-up of dead builds' hidden names, the lock of an output set.
 */
#ifndef SDIMG_MKIMAGE_BUILDER_OUTPUT_H
#define SDIMG_MKIMAGE_BUILDER_OUTPUT_H

#include <stdint.h>
#include <sys/types.h>

#include "common/diag.h"
#include "mkimage/builder/builder.h"

/* ---- output.c (beside what builder.h declares) ---------------------------------------- */

/* build_file_create() for a file that is never put at @path (the raw image of a build that
 * writes only its compressed copy): whatever is at @path (a link, a folder) is no matter;
 * the file is made in @path's folder, hidden names as for @path. */
int build_file_create_scratch(struct build_file *f, const char *path, const char *what,
			      uint64_t size, struct diag *d);

/* Removes the hidden names that dead builds to @path left in its folder (as
 * build_file_create() does), for a name this build does not write. */
void build_file_remove_dead(const char *path);

/*
 * The lock of an output set: an flock on the folder of each of its files, held while the
 * set is put in place, so that two builds to one set put theirs in place one after the
 * other, never files of both. Taken in one order for every build (so two never wait for
 * each other), waiting as long as another build holds one.
 */
struct build_lock {
	struct build_lock_folder {
		int fd;
		dev_t dev;
		ino_t ino;
	} folders[BUILD_MAX_FILES];
	size_t n; /* folders locked */
};

/* Locks the folders of the @n (at most BUILD_MAX_FILES) @paths. Returns 0 (also where a
 * folder cannot be opened for reading or its file system has no flock: that one is not
 * locked) or -ENOMEM (nothing locked; the caller says so). */
int build_files_lock(const char *const *paths, size_t n, struct build_lock *lock);

/* Releases build_files_lock()'s lock. */
void build_files_unlock(struct build_lock *lock);

#endif
