/* copy: a host file into the image, holes kept as holes (see builder_priv.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mkimage/builder/builder_priv.h"

#define COPY_CHUNK (1u << 20)

/* Copies [off, off + len) of @src to @dst at @dst_off + off. */
static int copy_range(int src, uint64_t off, uint64_t len, int dst, uint64_t dst_off)
{
	char *buf = NULL;
	bool use_cfr = true;
	int rc = 0;

	while (len > 0) {
		size_t n = len > COPY_CHUNK ? COPY_CHUNK : (size_t)len;
		ssize_t done = -1;
		if (use_cfr) {
			loff_t in = (loff_t)off, out = (loff_t)(dst_off + off);
			done = copy_file_range(src, &in, dst, &out, n, 0);
			if (done < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS ||
					 errno == EOPNOTSUPP || errno == EBADF))
				use_cfr = false;
		}
		if (!use_cfr) {
			if (!buf && !(buf = malloc(COPY_CHUNK)))
				return -ENOMEM;
			done = pread(src, buf, n, (off_t)off);
			if (done > 0 && pwrite(dst, buf, (size_t)done, (off_t)(dst_off + off)) != done)
				done = -1;
		}
		if (done < 0 && errno == EINTR)
			continue;
		if (done < 0) {
			rc = -errno;
			break;
		}
		if (done == 0) {
			rc = -ENODATA; /* the file shrank while we read it */
			break;
		}
		off += (uint64_t)done;
		len -= (uint64_t)done;
	}
	free(buf);
	return rc;
}

int build_copy_file(int src_fd, uint64_t size, int dst_fd, uint64_t dst_offset, const char *what,
		    struct build_map *map, struct diag *d)
{
	uint64_t pos = 0;

	while (pos < size) {
		off_t data = lseek(src_fd, (off_t)pos, SEEK_DATA);
		if (data < 0 && errno == ENXIO)
			break; /* only a hole is left */
		if (data < 0) /* no SEEK_DATA here: copy everything */
			data = (off_t)pos;
		off_t hole = lseek(src_fd, data, SEEK_HOLE);
		if (hole < 0 || (uint64_t)hole > size)
			hole = (off_t)size;
		int rc = map ? build_map_add(map, dst_offset + (uint64_t)data, (uint64_t)(hole - data))
			     : 0;
		if (rc == 0)
			rc = copy_range(src_fd, (uint64_t)data, (uint64_t)(hole - data), dst_fd,
					dst_offset);
		if (rc < 0)
			return diag_error(d, "%s: %s", what,
					  rc == -ENODATA ? "the file shrank while it was copied"
							 : strerror(-rc));
		pos = (uint64_t)hole;
	}
	return 0;
}
