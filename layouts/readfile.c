/* readfile: a whole text file into memory (see readfile.h). */
#include "layouts/readfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/array.h"
#include "common/path.h"
#include "common/units.h"
#include "layouts/layouts.h"

/* Reads all of @fd into *@buf (capacity *@cap), at most @max + 1 bytes (a file that grew
 * after its size was checked is still caught). */
static int read_all(int fd, size_t max, char **buf, size_t *cap, size_t *ret_len)
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

int layout_read_text_file(const char *path, size_t max, char **ret_text)
{
	struct stat st;
	char *buf = NULL;
	size_t cap = 0, len = 0;
	int rc = 0;
	int fd = path_open_regular(path);

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		rc = -errno;
	else if ((uint64_t)st.st_size > max)
		rc = -EFBIG;
	else
		rc = read_all(fd, max, &buf, &cap, &len);
	if (rc == 0 && memchr(buf, '\0', len))
		rc = -EILSEQ;
	if (rc == 0) {
		*ret_text = buf;
		buf = NULL;
	}
	free(buf);
	close(fd);
	return rc;
}

const char *layout_read_text_problem(int rc, char *buf, size_t n)
{
	char limit[32];

	switch (rc) {
	case -EILSEQ:
		return "not a text file (it holds a NUL byte)";
	case -ESPIPE:
		return "not a regular file (a FIFO, a socket or a device): a layout is read only "
		       "from a file";
	case -EFBIG:
		units_human(LAYOUT_TEXT_MAX, limit, sizeof(limit));
		snprintf(buf, n, "too large: a layout with its includes and its variables' values "
				 "holds at most %s of text", limit);
		return buf;
	default:
		return strerror(-rc);
	}
}
