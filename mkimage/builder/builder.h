/*
 * build: the whole card image a layout describes (private to mkimage/; `sdimg build`).
 */
#ifndef SDIMG_MKIMAGE_BUILD_H
#define SDIMG_MKIMAGE_BUILD_H

#include <stdio.h>

#include "common/diag.h"
#include "layouts/layouts.h"

enum build_verbosity { BUILD_QUIET, BUILD_NORMAL, BUILD_VERBOSE };

struct build_options {
	const char *output;            /* the image to write */
	enum build_verbosity verbosity;
	FILE *report;                  /* where the summary goes (stdout) */
};

/*
 * Builds the image of @l at o->output: the partition table, raw regions and each
 * partition's contents, in one sparse file that appears only when complete.
 * Returns 0, or a negative errno with the problems in @d (nothing is left at o->output,
 * and an older file there is untouched).
 */
int build_image_file(const struct layout *l, const struct build_options *o, struct diag *d);

#endif
