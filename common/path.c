/* path: folder of a path, and relative paths resolved against a folder (see path.h). */
#include "common/path.h"

#include <errno.h>
#include <fcntl.h>
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

int path_open_regular(const char *path)
{
	struct stat st;
	int fd, rc = 0;

	/* judged before the open too: opening a device can act on it (a serial line's open
	 * raises its modem lines, a tape's rewinds) */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return S_ISDIR(st.st_mode) ? -EISDIR : -ESPIPE;
	/* O_NONBLOCK: opening a FIFO for reading otherwise waits for a writer that may never
	 * come (POSIX open(), "O_NONBLOCK"): a FIFO put at the name after the stat(); a
	 * regular file ignores it, and it is cleared below for the reads */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
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
