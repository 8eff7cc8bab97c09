/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: any bytes as a wic kickstart file, through the parser, wic's placement and
 * the layout writer; a layout that comes out is loaded and planned, as `sdimg build` would.
 * Built with libFuzzer by `make fuzz`; replay.c gives it a main() that runs the saved corpus,
 * which `make check` does under the sanitizers.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "layouts/layouts.h"
#include "mkimage/importer/wks.h"
#include "plan/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The layout @text written by the import, loaded and planned. */
static void plan_layout(const char *text)
{
	static const struct layout_var vars[] = { { "BOOT_FILES", "/nonexistent-fuzz-dir/b" },
						  { "IMAGE_ROOTFS", "/nonexistent-fuzz-dir/r" } };
	const struct layout_options opts = { .vars = vars, .n_vars = 2 };
	struct layout *l = NULL;
	struct plan *p = NULL;
	struct diag d;

	diag_init(&d);
	if (layout_load_text("/nonexistent-fuzz-dir/card.layout", text, &opts, &d, &l) == 0) {
		if (plan_resolve(l, NULL, &d, &p) == 0)
			plan_free(p);
		layout_free(l);
	}
	diag_release(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const sets[] = { "A=16", "B=rootfs" };
	const struct import_options o = { .sets = sets, .n_sets = 2 };
	char *text = malloc(size + 1), *out = NULL;
	size_t len = 0;
	struct diag d;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	diag_init(&d);
	FILE *f = open_memstream(&out, &len);
	/* includes resolve against a folder that does not exist: no file is ever read */
	int rc = f ? import_wks_text("/nonexistent-fuzz-dir/f.wks", text, &o, f, &d) : -1;
	if (f)
		fclose(f);
	if (rc == 0 && out)
		plan_layout(out);
	free(out);
	diag_release(&d);
	free(text);
	return 0;
}
