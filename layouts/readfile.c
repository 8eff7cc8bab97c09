/* readfile: a whole text file into memory (see readfile.h). */
#include "layouts/readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/array.h"

/* Reads all of @fd into *@buf (capacity *@cap), at most READFILE_MAX + 1 bytes. */
static int read_all(int fd, char **buf, size_t *cap, size_t *ret_len)
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
		if (len > READFILE_MAX)
			return -EFBIG;
	}
	(*buf)[len] = '\0';
	*ret_len = len;
	return 0;
}

int layout_read_text_file(const char *path, char **ret_text)
{
	struct stat st;
	char *buf = NULL;
	size_t cap = 0, len = 0;
	int rc = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		rc = -errno;
	else if (S_ISDIR(st.st_mode))
		rc = -EISDIR;
	else
		rc = read_all(fd, &buf, &cap, &len);
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
