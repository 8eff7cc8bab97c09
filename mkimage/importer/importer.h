/* SPDX-License-Identifier: MIT */
/*
 * importer: `sdimg import`, the translation of another tool's image description into a
 * layout. One function per source language; each reads @path, writes the whole layout onto
 * @out only when the translation succeeded, and reports problems into @d naming the source's
 * FILE:LINE. Returns 0 or a negative errno.
 */
#ifndef SDIMG_IMPORTER_H
#define SDIMG_IMPORTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>

#include "common/diag.h"

/*
 * The files an import read or measured (its source, the files it includes, the inputs whose
 * sizes placed a partition), by identity, so that the command can refuse to write its layout
 * over one of them. Zero-initialised; import_inputs_release() frees it.
 */
struct import_inputs {
	struct stat *files; /* as stat() saw them */
	size_t n, cap;
};

/* Records the file at @path in @in (NULL: nothing is recorded). A path that cannot be looked
 * at is not recorded. Returns 0 or -ENOMEM. */
int import_inputs_note(struct import_inputs *in, const char *path);

/* Whether @st is one of the files of @in (the same device and inode). */
bool import_inputs_holds(const struct import_inputs *in, const struct stat *st);

void import_inputs_release(struct import_inputs *in);

/* The 4 MiB erase-block grid sdimg puts partitions on; a start the source gives off it is
 * the SoC's (`off-grid` in the layout). */
#define IMPORT_SD_GRID (4u << 20)

struct import_options {
	const char *image;       /* the image to translate (genimage: an image's name) or NULL */
	const char *const *sets; /* "VAR=VALUE" strings of --set, in the order given */
	size_t n_sets;
	/* folders where the source's input files are looked for (their sizes decide the
	 * placement the import pins), in order; none: the source file's own folder */
	const char *const *input_dirs;
	size_t n_input_dirs;
	struct import_inputs *inputs; /* where the files read are recorded (NULL: nowhere) */
};

/* genimage's configuration language: the hdimage image (the only one, or o->image). */
int import_genimage(const char *path, const struct import_options *o, FILE *out, struct diag *d);

/* oe-core's wic kickstart (.wks): its `part` and `bootloader` lines. */
int import_wks(const char *path, const struct import_options *o, FILE *out, struct diag *d);

#endif
