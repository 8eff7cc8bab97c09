/*
 * flash: writing an image onto cards, each proven by reading it back (the interface of
 * mkimage/flash/; `sdimg flash`):
 *   target.c        what a target is (from sysfs and procfs) and whether it may be written
 *   image.c         the image, its bmap, and every mapped range checked before any write
 *   target_write.c  one target: O_DIRECT writes, gaps, O_DIRECT read-back, table re-read
 *   run.c           every target at once, each in its own thread; a hung one is given up
 *   report.c        progress, the summary table and the JSON report
 */
#ifndef SDIMG_MKIMAGE_FLASH_H
#define SDIMG_MKIMAGE_FLASH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "common/diag.h"

/* ---- target.c: the classifier ---------------------------------------------------------- */

/* Where sysfs and procfs are: "/sys" and "/proc" in the program, a fake tree in tests. */
struct flash_roots {
	const char *sys;
	const char *proc;
};

enum flash_verdict { FLASH_ACCEPT, FLASH_NEEDS_ALLOW_FIXED, FLASH_REFUSE };

struct flash_target {
	char name[32];            /* kernel name: "sdb", "mmcblk0", "loop3", "sdb1" */
	unsigned major, minor;
	uint64_t size;            /* bytes */
	bool read_only, removable, hotplug, usb, sd, emmc, partition, loop;
	char model[64], serial[64], usb_port[32]; /* "" when unknown; usb_port like "1-2.3" */
	enum flash_verdict verdict;
	char why[256];            /* one clear reason, whatever the verdict */
};

/*
 * Classifies the block device @major:@minor for an image of @image_size bytes. @root_dev is
 * st_dev of "/"; @allow_fixed is --allow-fixed. Returns 0 (the verdict is in @t) or a
 * negative errno with a message in @d when sysfs cannot be read.
 */
int flash_classify(const struct flash_roots *r, unsigned major, unsigned minor, dev_t root_dev,
		   uint64_t image_size, bool allow_fixed, struct flash_target *t, struct diag *d);

/* ---- run.c: the command -------------------------------------------------------------- */

enum flash_gaps { FLASH_GAPS_KEEP, FLASH_GAPS_DISCARD, FLASH_GAPS_ZERO };

struct flash_options {
	const char *image;
	const char *const *targets;
	size_t n_targets;
	const char *bmap;          /* NULL: found beside the image */
	bool verify;               /* false with --no-verify */
	enum flash_gaps gaps;
	bool allow_fixed;
	bool dry_run;
	bool json;                 /* the JSON report on stdout */
	const char *report;        /* the JSON report into this file, or NULL */
	int verbosity;             /* 0 quiet, 1 normal, 2 verbose */
	unsigned timeout;          /* seconds without progress before a target is given up */
	struct flash_roots roots;
};

/*
 * Writes o->image onto every target at once and reads each back. Returns 0 when every
 * target passed, 1 when any failed or was refused, and a negative errno (with the message
 * in @d) when nothing could be started (the image or its bmap is unusable).
 */
int flash_run(const struct flash_options *o, struct diag *d);

#endif
