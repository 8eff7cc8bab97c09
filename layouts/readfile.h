/* SPDX-License-Identifier: MIT */
/* readfile: a whole text file into memory (private to layouts/). */
#ifndef SDIMG_LAYOUTS_READFILE_H
#define SDIMG_LAYOUTS_READFILE_H

#include <stddef.h>

/*
 * Reads @path, a regular file of at most @max bytes, into a new NUL-terminated buffer
 * *@ret_text (free() it). Returns 0, or a negative errno: -EFBIG for a file over @max
 * (refused by its size before it is read), -EILSEQ for a file holding a NUL byte (not a
 * text file), -EISDIR for a folder, -ESPIPE for a FIFO, a socket or a device (never waited
 * on: see path_open_regular()).
 */
int layout_read_text_file(const char *path, size_t max, char **ret_text);

/* The words for the error @rc of layout_read_text_file(): its own for -EILSEQ, -ESPIPE and
 * -EFBIG (which names the limit, written into @buf of @n bytes), strerror() otherwise. */
const char *layout_read_text_problem(int rc, char *buf, size_t n);

#endif
