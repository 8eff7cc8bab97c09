/*
 * schema: the layout language's sections and keys, parsed by libconfuse from the scan's
 * clean text (private to layouts/). Every key is a string without a default, so that
 * "not set" is visible and every value is checked by layouts/ itself with its FILE:LINE.
 */
#ifndef SDIMG_LAYOUTS_SCHEMA_H
#define SDIMG_LAYOUTS_SCHEMA_H

#include <confuse.h>

#include "common/diag.h"
#include "layouts/scan.h"

/*
 * What libconfuse's error callback needs. libconfuse reports through the callback during
 * the parse and also on any later lookup of a key it does not know, so the context must
 * live as long as the cfg_t tree: the caller owns it.
 */
struct schema_ctx {
	const struct scan *scan;
	struct diag *d;
};

/*
 * Parses @ctx->scan->text. On success *@ret_cfg is a new tree (cfg_free() it before @ctx
 * goes away). Returns 0 or -EINVAL with libconfuse's complaint, reworded and placed.
 */
int schema_parse(struct schema_ctx *ctx, cfg_t **ret_cfg);

/* The section number the scan gave to a titled section (its libconfuse title). */
size_t schema_section_number(cfg_t *sec);

/* The value of key @key of @sec, or NULL when the layout does not set it. */
const char *schema_get(cfg_t *sec, const char *key);

#endif
