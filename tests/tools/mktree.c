/* SPDX-License-Identifier: MIT */
/*
 * mktree DIR FILES PER_DIR SEED: creates FILES small files of 100..8191 bytes in folders of
 * PER_DIR files under DIR, with names of every kind FAT meets (8.3, long, mixed case, spaces),
 * the same bytes for the same SEED. A test and benchmark input maker.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int write_file(const char *path, size_t size, uint64_t *s)
{
	static char buf[8192];
	FILE *f = fopen(path, "wb");

	if (!f)
		return -1;
	for (size_t i = 0; i < size; i++)
		buf[i] = (char)('a' + next(s) % 26);
	size_t n = fwrite(buf, 1, size, f);
	return fclose(f) == 0 && n == size ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const char *const forms[] = { "F%05lu.TXT", "file-%05lu.txt",
					     "A long file name number %05lu.data",
					     "MixedCase%05lu.Bin" };
	char path[4096], name[128];

	if (argc != 5) {
		fprintf(stderr, "usage: mktree DIR FILES PER_DIR SEED\n");
		return 2;
	}
	unsigned long files = strtoul(argv[2], NULL, 10), per_dir = strtoul(argv[3], NULL, 10);
	uint64_t s = strtoull(argv[4], NULL, 10) | 1;
	if (!per_dir || (mkdir(argv[1], 0755) < 0 && errno != EEXIST)) {
		perror(argv[1]);
		return 1;
	}
	for (unsigned long i = 0; i < files; i++) {
		if (i % per_dir == 0) {
			snprintf(path, sizeof(path), "%s/dir%04lu", argv[1], i / per_dir);
			if (mkdir(path, 0755) < 0 && errno != EEXIST) {
				perror(path);
				return 1;
			}
		}
		snprintf(name, sizeof(name), forms[i % 4], i);
		snprintf(path, sizeof(path), "%s/dir%04lu/%s", argv[1], i / per_dir, name);
		if (write_file(path, 100 + next(&s) % 8092, &s) < 0) {
			perror(path);
			return 1;
		}
	}
	return 0;
}
