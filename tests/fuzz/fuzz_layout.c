/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: any bytes as a layout file, through the lexer, the parser, the readers and
 * the plan. Built with libFuzzer by `make fuzz`; replay.c gives it a main() that runs the
 * saved corpus, which `make check` does under the sanitizers.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "layouts/layouts.h"
#include "plan/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct layout_var vars[] = { { "A", "x" }, { "B", "4M" } };
	static const char *const dirs[] = { "." };
	const struct layout_options opts = { .vars = vars,
					     .n_vars = 2,
					     .input_dirs = dirs,
					     .n_input_dirs = 1 };
	char *text = malloc(size + 1);
	struct layout *l = NULL;
	struct plan *p = NULL;
	struct diag d;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	diag_init(&d);
	/* includes resolve against a folder that does not exist: no file is ever read */
	if (layout_load_text("/nonexistent-fuzz-dir/f.layout", text, &opts, &d, &l) == 0) {
		const uint64_t sizes[] = { 1, 4096, 1u << 20, 7, 5, 3, 2, 1 };
		const struct plan_inputs in = { .part_sizes = l->n_parts <= 8 ? sizes : NULL };
		if (plan_resolve(l, NULL, &d, &p) == 0)
			plan_free(p);
		p = NULL;
		if (plan_resolve(l, &in, &d, &p) == 0)
			plan_free(p);
	}
	layout_free(l);
	diag_release(&d);
	free(text);
	return 0;
}
