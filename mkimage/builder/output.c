/* SPDX-License-Identifier: MIT */
/*
 * output: every file a build writes (the image, a compressed image, the bmap, the checksums)
 * is made where nobody else sees it and all appear at their names together, only when all
 * are complete. Where the file system offers O_TMPFILE a file has no name at all until the
 * end; elsewhere a hidden ".sdimg.HASH.PID-N" beside the target is used (HASH: of the
 * target's name, so that the temporary name has one length whatever the target's) and
 * removed on every failure the process survives. Each file is locked (flock) while its
 * build runs: the lock dies with the process, so a build finds the hidden names of dead
 * builds to its name (SIGKILL, a crash, a power cut) unlocked, and removes them. An older
 * file at a name is swapped out (RENAME_EXCHANGE), so that a failure while the set is put
 * in place swaps the older ones back: they are untouched whatever happens; the new file
 * takes the older one's permissions. While a set is put in place the folders of its files
 * are locked (flock), so that two builds to one set put theirs in place one after the other.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/path.h"
#include "mkimage/builder/output.h"

#define HIDDEN_PREFIX ".sdimg."

static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* ".sdimg.HASH." for @path: HASH is the 64-bit FNV-1a of its last component, in hex. */
static void hidden_stem(const char *path, char stem[32])
{
	uint64_t h = 0xcbf29ce484222325u;

	for (const unsigned char *p = (const unsigned char *)base_of(path); *p; p++)
		h = (h ^ *p) * 0x100000001b3u;
	snprintf(stem, 32, HIDDEN_PREFIX "%016" PRIx64 ".", h);
}

/* ".sdimg.HASH.SUFFIX" in the folder of @path. */
static char *hidden_name(const char *path, const char *suffix)
{
	int dirlen = (int)(base_of(path) - path);
	char stem[32], *name = NULL;

	hidden_stem(path, stem);
	if (asprintf(&name, "%.*s%s%s", dirlen, path, stem, suffix) < 0)
		return NULL;
	return name;
}

/* Whether the file open as @fd is still the one at @name. */
static bool still_named(int fd, int dirfd, const char *name)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && fstatat(dirfd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Removes @name in @dirfd when it is a regular file nobody holds the lock of: a build that
 * made it has died. */
static void remove_if_dead(int dirfd, const char *name)
{
	struct stat st;

	/* only a regular file is opened (opening a device may do something) */
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
		return;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0 && still_named(fd, dirfd, name))
		unlinkat(dirfd, name, 0);
	close(fd);
}

/* Removes the hidden names that dead builds to @path left in its folder. */
static void remove_dead_temporaries(const char *path)
{
	char *dir = path_dir(path);
	DIR *ds = dir ? opendir(dir) : NULL;
	char stem[32];
	struct dirent *e;

	free(dir);
	if (!ds)
		return;
	hidden_stem(path, stem);
	while ((e = readdir(ds)))
		if (strncmp(e->d_name, stem, strlen(stem)) == 0)
			remove_if_dead(dirfd(ds), e->d_name);
	closedir(ds);
}

/* Creates a new hidden ".sdimg.HASH.PID-N" (for the O_TMPFILE-less file systems, and to
 * give an unnamed file a name) by @make(name); returns the name in *@ret_name. */
static int hidden_create(struct build_file *f, int (*make)(struct build_file *, const char *),
			 char **ret_name)
{
	for (int attempt = 0; attempt < 1000; attempt++) {
		char suffix[32];
		snprintf(suffix, sizeof(suffix), "%d-%d", (int)getpid(), attempt);
		char *name = hidden_name(f->path, suffix);
		if (!name)
			return -ENOMEM;
		int rc = make(f, name);
		/* a build that cleaned up the folder took it before it was locked: another name */
		if (rc == 0 && !still_named(f->fd, AT_FDCWD, name))
			rc = -EEXIST;
		if (rc == 0) {
			*ret_name = name;
			return 0;
		}
		free(name);
		if (rc != -EEXIST)
			return rc;
	}
	return -EEXIST;
}

/* A new file, locked from the start: the lock tells other builds it is alive. */
static int make_file(struct build_file *f, const char *name)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = open(name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0666);
	if (f->fd < 0)
		return -errno;
	/* waits only while a build that cleans up the folder looks at it (then the name is
	 * gone and hidden_create() takes another); where there are no locks, no build removes
	 * a hidden name */
	flock(f->fd, LOCK_EX);
	return 0;
}

static int make_link(struct build_file *f, const char *name)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", f->fd);
	return linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW) < 0 ? -errno : 0;
}

static int open_unnamed_or_hidden(struct build_file *f)
{
	char *dir = path_dir(f->path);

	if (!dir)
		return -ENOMEM;
	/* an unnamed file gets its name through /proc/self/fd: without /proc, use a named one */
	f->fd = access("/proc/self/fd", X_OK) == 0 ? open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0666)
						   : (errno = EOPNOTSUPP, -1);
	int saved = errno;
	free(dir);
	if (f->fd >= 0) {
		flock(f->fd, LOCK_EX); /* nobody else sees it yet: locked at once */
		return 0;
	}
	if (saved != EOPNOTSUPP && saved != EISDIR && saved != EINVAL && saved != ENOENT)
		return -saved;
	return hidden_create(f, make_file, &f->tmp_path);
}

int build_file_check_name(const char *path, const char *what, struct diag *d)
{
	char *dir = path_dir(path);
	long max = dir ? pathconf(dir, _PC_NAME_MAX) : -1;

	free(dir);
	if (max > 0 && strlen(base_of(path)) > (size_t)max)
		return diag_error(d, "%s: cannot create %s: %s", path, what,
				  strerror(ENAMETOOLONG));
	return 0;
}

/* @f gets the permissions of the file at its name, if there is one (a new file keeps those
 * its creation gave it: 0666 less the umask). A file system without permissions (vfat)
 * refuses: the file keeps what it has, as the older one did. */
static void keep_mode(struct build_file *f)
{
	struct stat st;

	if (lstat(f->path, &st) == 0 && S_ISREG(st.st_mode))
		(void)fchmod(f->fd, st.st_mode & 0777);
}

/* build_file_create() without the check of what is at @path; a @scratch file, never put
 * there, does not take the permissions of what is there either. */
static int create_at(struct build_file *f, const char *path, const char *what, uint64_t size,
		     bool scratch, struct diag *d)
{
	int rc;

	*f = (struct build_file)BUILD_FILE_INIT;
	if (!(f->path = strdup(path)))
		return diag_error(d, "%s: out of memory", path);
	remove_dead_temporaries(path);
	rc = open_unnamed_or_hidden(f);
	if (rc == 0 && !scratch) /* from the start: a hidden name is as private as the older file */
		keep_mode(f);
	if (rc < 0) {
		diag_error(d, "%s: cannot create %s: %s", path, what, strerror(-rc));
		build_file_abort(f);
		return rc;
	}
	if (size && ftruncate(f->fd, (off_t)size) < 0) {
		rc = -errno;
		diag_error(d, "%s: cannot make a %llu-byte image: %s", path,
			   (unsigned long long)size, strerror(-rc));
		build_file_abort(f);
		return rc;
	}
	return 0;
}

int build_file_create(struct build_file *f, const char *path, const char *what, uint64_t size,
		      struct diag *d)
{
	struct stat st;

	*f = (struct build_file)BUILD_FILE_INIT;
	/* rename() would replace a device node, a fifo or a link with the file: refuse */
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return diag_error(d,
				  "%s: exists and is not a regular file; sdimg writes image "
				  "files only",
				  path);
	return create_at(f, path, what, size, false, d);
}

int build_file_create_scratch(struct build_file *f, const char *path, const char *what,
			      uint64_t size, struct diag *d)
{
	return create_at(f, path, what, size, true, d);
}

void build_file_remove_dead(const char *path)
{
	remove_dead_temporaries(path);
}

/* ---- the lock of an output set: an flock on each of its folders ---- */

/* Adds the folder of @path to @lock, unless it holds it already (a second open of a
 * folder the process has locked would wait for itself). One that cannot be opened for
 * reading (a folder the user may write but not list) stays unlocked, as on a file system
 * without flock. */
static int lock_add_folder(struct build_lock *lock, const char *path)
{
	char *dir = path_dir(path);
	struct build_lock_folder *f = &lock->folders[lock->n];
	struct stat st;

	if (!dir)
		return -ENOMEM;
	f->fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (f->fd < 0 || fstat(f->fd, &st) < 0) {
		if (f->fd >= 0)
			close(f->fd);
		return 0;
	}
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	for (size_t i = 0; i < lock->n; i++)
		if (lock->folders[i].dev == f->dev && lock->folders[i].ino == f->ino) {
			close(f->fd);
			return 0;
		}
	lock->n++;
	return 0;
}

static int folder_order(const void *a, const void *b)
{
	const struct build_lock_folder *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

int build_files_lock(const char *const *paths, size_t n, struct build_lock *lock)
{
	int rc = n <= BUILD_MAX_FILES ? 0 : -E2BIG;

	lock->n = 0;
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = lock_add_folder(lock, paths[i]);
	if (rc < 0) {
		build_files_unlock(lock);
		return rc;
	}
	/* one order for every build (device, inode), so that two builds whose sets share
	 * folders never wait for each other crosswise; a file system without flock (EINVAL,
	 * ENOLCK) leaves the set unlocked, as it leaves the temporaries */
	qsort(lock->folders, lock->n, sizeof(lock->folders[0]), folder_order);
	for (size_t i = 0; i < lock->n; i++)
		while (flock(lock->folders[i].fd, LOCK_EX) < 0 && errno == EINTR)
			;
	return 0;
}

void build_files_unlock(struct build_lock *lock)
{
	for (size_t i = 0; i < lock->n; i++)
		close(lock->folders[i].fd); /* the lock goes with the descriptor */
	lock->n = 0;
}

static int sync_dir(const char *path)
{
	char *dir = path_dir(path);
	int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;

	free(dir);
	if (fd < 0)
		return -errno;
	int rc = fsync(fd) < 0 ? -errno : 0;
	close(fd);
	return rc;
}

/* Puts @f's temporary name at its path. *@swapped tells whether an older file was there
 * and now has the temporary name (to swap back, or to remove once all are in place). */
static int put_in_place(struct build_file *f, bool *swapped)
{
	struct stat st;

	*swapped = false;
	/* something else appeared at the name since the build began: leave it alone */
	if (lstat(f->path, &st) == 0 && !S_ISREG(st.st_mode))
		return S_ISDIR(st.st_mode) ? -EISDIR : -EEXIST;
	if (renameat2(AT_FDCWD, f->tmp_path, AT_FDCWD, f->path, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno == EEXIST) {
		/* under the hidden name the older file is locked: the clean-up of a build to
		 * the same name must not take it while a failure may still swap it back */
		f->old_fd = open(f->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (f->old_fd >= 0)
			flock(f->old_fd, LOCK_EX | LOCK_NB);
		if (renameat2(AT_FDCWD, f->tmp_path, AT_FDCWD, f->path, RENAME_EXCHANGE) == 0) {
			*swapped = true;
			return 0;
		}
	}
	if (errno != EINVAL && errno != ENOSYS && errno != EEXIST)
		return -errno;
	/* a file system without these flags: a plain rename (the older file goes at once) */
	return rename(f->tmp_path, f->path) < 0 ? -errno : 0;
}

/* Undoes put_in_place(): the older file back at the name, or the new one removed. */
static void take_back(struct build_file *f, bool swapped)
{
	if (swapped)
		renameat2(AT_FDCWD, f->tmp_path, AT_FDCWD, f->path, RENAME_EXCHANGE);
	else
		unlink(f->path);
}

/* Gives @f the older file's permissions, fsyncs it and gives it a temporary name if it has
 * none. */
static int prepare(struct build_file *f)
{
	keep_mode(f); /* again: the older file's may have changed meanwhile */
	if (fsync(f->fd) < 0)
		return -errno;
	if (!f->tmp_path) /* a name, so that rename() can put it in place */
		return hidden_create(f, make_link, &f->tmp_path);
	return 0;
}

int build_files_commit(struct build_file **files, size_t n, bool (*stop)(void *ctx), void *stop_ctx,
		       struct diag *d)
{
	bool swapped[BUILD_MAX_FILES] = { false }; /* put_in_place() sets each it is given */
	size_t placed = 0;
	int rc = n <= BUILD_MAX_FILES ? 0 : -E2BIG;

	for (size_t i = 0; rc == 0 && i < n; i++)
		if ((rc = prepare(files[i])) < 0)
			diag_error(d, "%s: cannot write it: %s", files[i]->path, strerror(-rc));
	if (rc == 0 && stop && stop(stop_ctx)) /* the last moment to stop: none is in place */
		rc = -EINTR;
	for (; rc == 0 && placed < n; placed++)
		if ((rc = put_in_place(files[placed], &swapped[placed])) < 0) {
			diag_error(d, "%s: cannot put it in place: %s", files[placed]->path,
				   strerror(-rc));
			break; /* this one was not placed: nothing of it to take back */
		}
	if (rc < 0) {
		while (placed-- > 0)
			take_back(files[placed], swapped[placed]);
		for (size_t i = 0; i < n; i++)
			build_file_abort(files[i]);
		return rc;
	}
	for (size_t i = 0; i < n; i++) {
		struct build_file *f = files[i];
		if (swapped[i]) /* the temporary name now holds the older file */
			unlink(f->tmp_path);
		if (f->old_fd >= 0)
			close(f->old_fd);
		f->old_fd = -1;
		free(f->tmp_path);
		f->tmp_path = NULL;
		sync_dir(f->path); /* durability of the name; the data is already safe */
		/* the file is in place and fsynced: a failing close() cannot undo that */
		if (close(f->fd) < 0)
			diag_warning(d, "%s: closing it: %s", f->path, strerror(errno));
		f->fd = -1;
		free(f->path);
		f->path = NULL;
	}
	return 0;
}

void build_file_abort(struct build_file *f)
{
	if (f->tmp_path)
		unlink(f->tmp_path);
	if (f->fd >= 0)
		close(f->fd);
	if (f->old_fd >= 0)
		close(f->old_fd);
	free(f->tmp_path);
	free(f->path);
	*f = (struct build_file)BUILD_FILE_INIT;
}
