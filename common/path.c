/* SPDX-License-Identifier: MIT */
/* path: folder of a path, and relative paths resolved against a folder (see path.h). */
#include "common/path.h"

#include "common/array.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *path_dir(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

char *path_join(const char *dir, const char *rel)
{
	return rel[0] == '/' ? strdup(rel) : path_append(dir, rel);
}

char *path_append(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	char *p = malloc(a + b + 2);

	if (!p)
		return NULL;
	memcpy(p, dir, a);
	p[a] = '/';
	memcpy(p + a + 1, name, b + 1);
	return p;
}

int path_open_at(int dirfd, const char *name, int flags)
{
	/* O_NONBLOCK: opening a FIFO for reading otherwise waits for a writer that may never
	 * come (POSIX open(), "O_NONBLOCK"); a regular file ignores it, but for a lease held
	 * by another process, whose open then fails with EWOULDBLOCK instead of waiting for
	 * the lease to be broken (fcntl(2), "Leases"): opened again, waiting as open(2) does */
	int fd = openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | flags);

	if (fd < 0 && errno == EWOULDBLOCK)
		fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | flags);
	return fd < 0 ? -errno : fd;
}

int path_open_regular(const char *path)
{
	struct stat st;
	int fd, rc = 0;

	/* judged before the open too: opening a device can act on it (a serial line's open
	 * raises its modem lines, a tape's rewinds) */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return S_ISDIR(st.st_mode) ? -EISDIR : -ESPIPE;
	/* a FIFO put at the name after the stat() does not hold the open; O_NONBLOCK is
	 * cleared below for the reads */
	fd = path_open_at(AT_FDCWD, path, 0);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		rc = -errno;
	else if (S_ISDIR(st.st_mode))
		rc = -EISDIR;
	else if (!S_ISREG(st.st_mode))
		rc = -ESPIPE;
	else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0)
		rc = -errno;
	if (rc < 0) {
		close(fd);
		return rc;
	}
	return fd;
}

/* Reads @fd to its end into *@buf (capacity *@cap, grown as needed), at most @max + 1
 * bytes: one more than @max says that the file is over it. */
static int read_to_end(int fd, size_t max, char **buf, size_t *cap, size_t *ret_len)
{
	size_t len = 0;

	for (;;) {
		if (array_grow((void **)buf, cap, len + 4096 + 1, 1) < 0)
			return -ENOMEM;
		ssize_t n = read(fd, *buf + len, *cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > max)
			return -EFBIG;
	}
	(*buf)[len] = '\0';
	*ret_len = len;
	return 0;
}

int path_read_fd(int fd, size_t max, char **ret_buf, size_t *ret_len)
{
	struct stat st;
	char *buf = NULL;
	size_t cap = 0;
	int rc = 0;

	if (fstat(fd, &st) < 0)
		return -errno;
	if ((uint64_t)st.st_size > max)
		return -EFBIG;
	/* the size stat() gives read at once, and its end seen without another grow */
	if ((uint64_t)st.st_size < SIZE_MAX - 4096 - 1) {
		cap = (size_t)st.st_size + 4096 + 1;
		if (!(buf = malloc(cap)))
			return -ENOMEM;
	}
	rc = read_to_end(fd, max, &buf, &cap, ret_len);
	if (rc < 0) {
		free(buf);
		return rc;
	}
	*ret_buf = buf;
	return 0;
}

int path_read_file(const char *path, size_t max, char **ret_buf, size_t *ret_len)
{
	int fd = path_open_regular(path);

	if (fd < 0)
		return fd;
	int rc = path_read_fd(fd, max, ret_buf, ret_len);
	close(fd);
	return rc;
}

int path_pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ENODATA;
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}
