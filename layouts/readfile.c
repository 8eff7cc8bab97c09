/* SPDX-License-Identifier: MIT */
/* readfile: a whole text file into memory (see readfile.h). */
#include "layouts/readfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/path.h"
#include "common/units.h"
#include "layouts/layouts.h"

int layout_read_text_file(const char *path, size_t max, char **ret_text)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = path_read_file(path, max, &buf, &len);

	if (rc < 0)
		return rc;
	if (memchr(buf, '\0', len)) {
		free(buf);
		return -EILSEQ;
	}
	*ret_text = buf;
	return 0;
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
		snprintf(buf, n,
			 "too large: a layout with its includes and its variables' values "
			 "holds at most %s of text",
			 limit);
		return buf;
	default:
		return strerror(-rc);
	}
}
