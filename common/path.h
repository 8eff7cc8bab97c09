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

/*
 * Opens @path for reading when it is a regular file (a symlink to one is followed).
 * Returns the descriptor (close-on-exec, blocking), -EISDIR for a folder, -ESPIPE for
 * anything else that is no regular file (a FIFO, a socket, a device: judged by stat()
 * before any open, so that nothing hangs on one or is acted on by its opening), or
 * another negative errno.
 */
int path_open_regular(const char *path);

#endif
