/*
 * findings: the SD alignment report of `sdimg inspect` (private to mkimage/). One finding per
 * problem, each with a severity, a stable code for scripts, the partition (0: the disk) and a
 * message with the numbers behind it and what to change in the layout.
 */
#ifndef SDIMG_MKIMAGE_FINDINGS_H
#define SDIMG_MKIMAGE_FINDINGS_H

#include <stddef.h>
#include <stdint.h>

#include "mkimage/disk.h"

struct finding {
	const char *severity; /* "error", "warning", "info" */
	const char *code;     /* "start-misaligned", "data-misaligned", ... */
	unsigned partition;
	char message[480];
};

struct findings {
	struct finding *v;
	size_t n, cap;
};

/* Checks @k against the erase-block grid @erase_block (bytes). Returns 0 or -ENOMEM. */
int findings_compute(const struct disk *k, uint64_t erase_block, struct findings *f);

/* The number of findings that are errors or warnings. */
size_t findings_problems(const struct findings *f);

void findings_release(struct findings *f);

#endif
