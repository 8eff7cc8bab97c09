/* SPDX-License-Identifier: MIT */
/*
 * A main() for the fuzz targets: runs each file named on the command line through it, after
 * the target's LLVMFuzzerInitialize() when it has one (what it sets up once per process), as
 * libFuzzer does.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

int main(int argc, char **argv)
{
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			perror(argv[i]);
			return 1;
		}
		uint8_t *buf = malloc(1u << 20);
		size_t n = buf ? fread(buf, 1, 1u << 20, f) : 0;
		fclose(f);
		LLVMFuzzerTestOneInput(buf, n);
		free(buf);
	}
	printf("replayed %d input(s): %d passed, 0 failed\n", argc - 1, argc - 1);
	return 0;
}
