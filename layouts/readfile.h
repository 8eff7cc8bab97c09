/* readfile: a whole text file into memory (private to layouts/). */
#ifndef SDIMG_LAYOUTS_READFILE_H
#define SDIMG_LAYOUTS_READFILE_H

#include <stddef.h>

/* Layout files larger than this are refused: no layout is anywhere near it. */
#define READFILE_MAX (16u << 20)

/*
 * Reads @path into a new NUL-terminated buffer *@ret_text (free() it).
 * Returns 0, or a negative errno: -EFBIG for a file over READFILE_MAX, -EILSEQ for a file
 * holding a NUL byte (not a text file), -EISDIR for a folder.
 */
int layout_read_text_file(const char *path, char **ret_text);

#endif
