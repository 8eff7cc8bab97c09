/* SPDX-License-Identifier: MIT */
/* inputs: where a layout's input files are found (see layouts.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/path.h"
#include "common/strbuf.h"
#include "layouts/layouts.h"

/* Whether something is at @path for the purpose of finding it: anything lstat() sees, or
 * an error other than "not there" (which whoever opens it then reports). */
static bool is_there(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 || (errno != ENOENT && errno != ENOTDIR);
}

static int report_missing(const struct layout *l, const char *from, const char *place,
			  struct diag *d)
{
	struct strbuf list = { 0 };
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < l->n_input_dirs; i++)
		if ((i && strbuf_puts(&list, ", ") < 0) || strbuf_puts(&list, l->input_dirs[i]) < 0)
			rc = -ENOMEM;
	if (rc == 0)
		rc = diag_error(d, "%s%s: in none of the input folders: %s", place, from,
				list.s ? list.s : "");
	strbuf_release(&list);
	return rc;
}

int layout_input_path(const struct layout *l, const char *from, const char *place, struct diag *d,
		      char **ret_path)
{
	*ret_path = NULL;
	if (from[0] == '/' || l->n_input_dirs == 1) {
		*ret_path = path_join(from[0] == '/' ? "/" : l->input_dirs[0], from);
		return *ret_path ? 0 : -ENOMEM;
	}
	for (size_t i = 0; i < l->n_input_dirs; i++) {
		char *path = path_join(l->input_dirs[i], from);
		if (!path)
			return -ENOMEM;
		if (is_there(path)) {
			*ret_path = path;
			return 0;
		}
		free(path);
	}
	return report_missing(l, from, place, d);
}
