/* SPDX-License-Identifier: MIT */
/* inputs: the files an import read or measured, by identity (see importer.h). */
#include "mkimage/importer/importer.h"

#include <errno.h>
#include <stdlib.h>

#include "common/array.h"

int import_inputs_note(struct import_inputs *in, const char *path)
{
	struct stat st;

	if (!in || stat(path, &st) < 0)
		return 0;
	if (array_grow((void **)&in->files, &in->cap, in->n + 1, sizeof(*in->files)) < 0)
		return -ENOMEM;
	in->files[in->n++] = st;
	return 0;
}

bool import_inputs_holds(const struct import_inputs *in, const struct stat *st)
{
	for (size_t i = 0; i < in->n; i++)
		if (in->files[i].st_dev == st->st_dev && in->files[i].st_ino == st->st_ino)
			return true;
	return false;
}

void import_inputs_release(struct import_inputs *in)
{
	free(in->files);
	*in = (struct import_inputs){ 0 };
}
