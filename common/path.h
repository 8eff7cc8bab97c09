/* path: the path operations the modules share. */
#ifndef SDIMG_PATH_H
#define SDIMG_PATH_H

/* The folder of @path: "." when it has none, "/" for a file at the root.
 * Returns a new string (free() it), or NULL when out of memory. */
char *path_dir(const char *path);

/* @rel resolved against the folder @dir: @rel itself when it is absolute, else "DIR/REL".
 * Returns a new string (free() it), or NULL when out of memory. */
char *path_join(const char *dir, const char *rel);

/* "@dir/@name", whatever they hold (a hot path: no formatting).
 * Returns a new string (free() it), or NULL when out of memory. */
char *path_append(const char *dir, const char *name);

#endif
