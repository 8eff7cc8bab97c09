/* SPDX-License-Identifier: MIT */
/* path: the path operations the modules share. */
#ifndef SDIMG_PATH_H
#define SDIMG_PATH_H

#include <stddef.h>
#include <stdint.h>

/* The folder of @path: "." when it has none, "/" for a file at the root.
 * Returns a new string (free() it), or NULL when out of memory. */
char *path_dir(const char *path);

/* @rel resolved against the folder @dir: @rel itself when it is absolute, else "DIR/REL".
 * Returns a new string (free() it), or NULL when out of memory. */
char *path_join(const char *dir, const char *rel);

/* "@dir/@name", whatever they hold (a hot path: no formatting).
 * Returns a new string (free() it), or NULL when out of memory. */
char *path_append(const char *dir, const char *name);

/*
 * Opens @path for reading when it is a regular file (a symlink to one is followed).
 * Returns the descriptor (close-on-exec, blocking), -EISDIR for a folder, -ESPIPE for
 * anything else that is no regular file (a FIFO, a socket, a device: judged by stat()
 * before any open, so that nothing hangs on one or is acted on by its opening), or
 * another negative errno.
 */
int path_open_regular(const char *path);

/*
 * Opens @name in the folder @dirfd (AT_FDCWD: the working one) to read, with open(2)'s
 * @flags added (O_NOFOLLOW...), without waiting for a FIFO's writer (a FIFO put at the name
 * after it was listed opens at once, and reads as empty); a file under a lease that another
 * process holds (a file server's) is waited for, as any open waits. Returns the descriptor
 * (close-on-exec; O_NONBLOCK but after a lease, which a regular file's reads ignore) or a
 * negative errno.
 */
int path_open_at(int dirfd, const char *name, int flags);

/*
 * Reads all of @fd, a regular file of at most @max bytes (SIZE_MAX: as much as memory holds),
 * from where it stands into a new buffer *@ret_buf (free() it), with a NUL after its
 * *@ret_len bytes. Returns 0, or a negative errno: -EFBIG for a file over @max (refused by
 * its size before any read, or caught while read when it grew), -ENOMEM, or read()'s.
 * Nothing is returned on failure.
 */
int path_read_fd(int fd, size_t max, char **ret_buf, size_t *ret_len);

/* path_open_regular() then path_read_fd(): all of the file @path, with the errors of both. */
int path_read_file(const char *path, size_t max, char **ret_buf, size_t *ret_len);

/*
 * Reads @len bytes at @off of @fd into @buf, through short reads and EINTR. Returns 0,
 * pread()'s negative errno, or -ENODATA when the file ends first (what was read is then in
 * @buf).
 */
int path_pread_full(int fd, void *buf, size_t len, uint64_t off);

#endif
