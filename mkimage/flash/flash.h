/*
 * flash: writing an image onto cards, each proven by reading it back (the interface of
 * mkimage/flash/; `sdimg flash`):
 *   target.c        what a target is and whether it may be written: the verdict and its reason
 *   sysfs.c         where the kernel places the device: its size, read-only flag, partitions
 *   hardware.c      what it says of the hardware: removable, hot-pluggable, USB, SD or eMMC,
 *                   model, serial, USB port
 *   usage.c         whether the disk is in use: it holds /, a partition is mounted, is swap,
 *                   or something (device-mapper, md, btrfs) is built on it
 *   image.c         the image, its bmap, and every mapped range checked before any write
 *   target_write.c  one target: O_DIRECT writes, gaps, O_DIRECT read-back, table re-read
 *   run.c           every target at once, each in its own process; a hung one is given up
 *   report.c        progress, the summary table and the JSON report
 * sysfs and procfs are read below the roots given (struct flash_roots): "/sys" and "/proc"
 * in the program, a fake tree in the tests. Errors are 0 or a negative errno, with the
 * message in the caller's struct diag.
 */
#ifndef SDIMG_MKIMAGE_FLASH_H
#define SDIMG_MKIMAGE_FLASH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "common/diag.h"

/* Where sysfs and procfs are mounted: "/sys" and "/proc" in the program. */
struct flash_roots {
	const char *sys;
	const char *proc;
};

enum flash_verdict {
	FLASH_ACCEPT,            /* may be written */
	FLASH_NEEDS_ALLOW_FIXED, /* may be written with --allow-fixed only */
	FLASH_REFUSE,            /* must not be written, whatever the options */
};

struct flash_target {
	char name[32];           /* kernel name: "sdb", "mmcblk0", "loop3", "sdb1" */
	unsigned major, minor;
	uint64_t size;           /* bytes (sysfs counts 512-byte units whatever the sector size) */
	bool read_only;          /* `ro`: a card's lock switch, a read-only loop */
	bool removable;          /* the kernel's removable-media flag (card readers) */
	bool hotplug;            /* sits on a port the platform calls removable (USB, Thunderbolt) */
	bool usb;                /* a USB device in its sysfs ancestry */
	bool sd;                 /* an SD card in an MMC host (mmcblk, device/type "SD") */
	bool emmc;               /* eMMC (mmcblk, device/type "MMC"): soldered to the board */
	bool partition;          /* a partition rather than a whole disk */
	bool loop;               /* a loop device */
	char model[64];          /* "" when unknown */
	char serial[64];         /* "" when unknown; for a USB reader, the reader's serial */
	char usb_port[32];       /* the USB port path, such as "1-2.3"; "" when not USB */
	enum flash_verdict verdict;
	char why[256];           /* one clear reason, whatever the verdict */
};

/*
 * Classifies the block device MAJOR:MINOR as the target of an image of @image_size bytes.
 * @root_dev is st_dev of "/" (the caller stats it); @allow_fixed is --allow-fixed: with it,
 * a target that needs it is accepted (and @t->why says so).
 * Returns 0 with every field of @t filled, or a negative errno with a message in @d when
 * sysfs or procfs cannot tell (no such block device, mountinfo unreadable): a target that
 * cannot be checked is never reported as writable.
 */
int flash_classify(const struct flash_roots *r, unsigned major, unsigned minor, dev_t root_dev,
		   uint64_t image_size, bool allow_fixed, struct flash_target *t, struct diag *d);

/* "accept", "needs --allow-fixed", "refuse". */
const char *flash_verdict_name(enum flash_verdict v);

/* ---- run.c: the command -------------------------------------------------------------- */

enum flash_gaps { FLASH_GAPS_KEEP, FLASH_GAPS_DISCARD, FLASH_GAPS_ZERO };

struct flash_options {
	const char *image;
	const char *const *targets;
	size_t n_targets;
	const char *bmap;          /* NULL: found beside the image */
	bool verify;               /* false with --no-verify */
	enum flash_gaps gaps;
	bool gaps_set;             /* --gaps was given (without a bmap, the default is zero) */
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
