/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: any bytes as a genimage configuration, through the importer's parser of
 * genimage's language (mkimage/importer/gcfg.c). Built with libFuzzer by `make fuzz`;
 * replay.c gives it a main() that runs the saved corpus, which `make check` does under the
 * sanitizers.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mkimage/importer/gcfg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const sets[] = { "A=x", "B=4M" };
	const struct import_options o = { .sets = sets, .n_sets = 2 };
	struct gcfg_node *root = NULL;
	struct diag d;

	diag_init(&d);
	/* includes resolve against a folder that does not exist: no file is ever read */
	if (import_gcfg_parse_text("/nonexistent-fuzz-dir/g.cfg", (const char *)data, size, &o, &d,
				   &root) == 0) {
		for (size_t i = 0; i < root->n_kids; i++) {
			uint64_t v;
			const char *s = import_gcfg_str(&root->kids[i], "size");
			if (s)
				(void)import_gcfg_size(s, &v);
		}
		import_gcfg_free(root);
	}
	diag_release(&d);
	return 0;
}
