/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: any bytes as a block map (common/bmap). Built with libFuzzer by `make fuzz`;
 * replay.c gives it a main() that runs the saved corpus, which `make check` does under the
 * sanitizers.
 */
#include <stdint.h>
#include <stdlib.h>

#include "common/bmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bmap b;
	struct diag d;

	diag_init(&d);
	if (bmap_parse((const char *)data, size, "fuzz.bmap", &b, &d) == 0)
		bmap_release(&b);
	diag_release(&d);
	return 0;
}
