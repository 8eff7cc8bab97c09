/* readfile: a whole text file into memory (see readfile.h). */
#include "layouts/readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int read_all(int fd, char *buf, size_t size, size_t *ret_len)
{
	size_t len = 0;

	while (len < size) {
		ssize_t n = read(fd, buf + len, size - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	*ret_len = len;
	return 0;
}

int read_text_file(const char *path, char **ret_text)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	int rc = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		rc = -EISDIR;
		goto out;
	}
	/* one byte more than the limit tells a too large file (or a growing pipe) apart */
	buf = malloc(READFILE_MAX + 2);
	if (!buf) {
		rc = -ENOMEM;
		goto out;
	}
	rc = read_all(fd, buf, READFILE_MAX + 1, &len);
	if (rc == 0 && len > READFILE_MAX)
		rc = -EFBIG;
	if (rc == 0 && memchr(buf, '\0', len))
		rc = -EILSEQ;
	if (rc == 0) {
		buf[len] = '\0';
		char *shrunk = realloc(buf, len + 1);
		*ret_text = shrunk ? shrunk : buf;
		buf = NULL;
	}
out:
	free(buf);
	close(fd);
	return rc;
}
