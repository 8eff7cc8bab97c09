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
