/* path: folder of a path, and relative paths resolved against a folder (see path.h). */
#include "common/path.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	char *p = NULL;

	if (rel[0] == '/')
		return strdup(rel);
	return asprintf(&p, "%s/%s", dir, rel) < 0 ? NULL : p;
}
