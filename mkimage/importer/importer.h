/*
 * importer: `sdimg import` turns another tool's image description into an sdimg layout that
 * gives the same card: genimage's configuration (import_genimage) and wic's kickstart
 * (import_wks). Each writes the layout onto @out and its one summary line and any warning
 * into @d; on an error nothing is worth keeping of what @out received.
 */
#ifndef SDIMG_IMPORTER_H
#define SDIMG_IMPORTER_H

#include <stddef.h>
#include <stdio.h>

#include "common/diag.h"

/* What the command line gives every importer: the image to take (--image NAME, NULL for the
 * only or first one) and the --set VAR=VALUE words, in the order given (borrowed). */
struct import_options {
	const char *image;
	const char *const *sets;
	size_t n_sets;
};
int import_genimage(const char *path, const struct import_options *o, FILE *out, struct diag *d);
int import_wks(const char *path, const struct import_options *o, FILE *out, struct diag *d);

#endif
