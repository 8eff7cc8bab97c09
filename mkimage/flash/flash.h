/* SPDX-License-Identifier: MIT */
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
 *   unpack.c        what the image file holds, raw or compressed (by its bytes), decompressed
 *   target_write.c  one target: O_DIRECT writes, gaps, O_DIRECT read-back, table re-read
 *   run.c           every target at once, each in its own process; a hung one is given up
 *   capacity.c      --check-capacity: stamps over the card's whole size, read back
 *   run_report.c    progress, the summary table and the JSON report
 *   card_patches.c  one card's own bytes, from the per-card manifest (common/cards.h)
 *   cards_check.c   the manifest checked against its image before any card's bytes
 *   card_values.c   --card-values: each card's values, from a CSV file or counters
 *   disks.c         the whole disks sysfs lists now, with their size: what a station sees
 *   uevent.c        the kernel's uevents (netlink), which tell a station to look again
 *   slot.c          where a disk sits (its slot) and whether --match names it
 *   station_log.c   the station's lines: one per card on the terminal, one JSON in --log
 *   watch.c         `--watch`: the station, flashing every card that arrives
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

#include "common/cards.h"
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
	char name[32]; /* kernel name: "sdb", "mmcblk0", "loop3", "sdb1" */
	unsigned major, minor;
	unsigned disk_major, disk_minor; /* its whole disk's (its own, for a whole disk) */
	uint64_t size;      /* bytes (sysfs counts 512-byte units whatever the sector size) */
	bool read_only;     /* `ro`: a card's lock switch, a read-only loop */
	bool removable;     /* the kernel's removable-media flag (card readers) */
	bool hotplug;       /* sits on a port the platform calls removable (USB, Thunderbolt) */
	bool usb;           /* a USB device in its sysfs ancestry */
	bool sd;            /* an SD card in an MMC host (mmcblk, device/type "SD") */
	bool emmc;          /* eMMC (mmcblk, device/type "MMC"): soldered to the board */
	bool partition;     /* a partition rather than a whole disk */
	bool loop;          /* a loop device */
	char model[64];     /* "" when unknown */
	char serial[64];    /* "" when unknown; for a USB reader, the reader's serial */
	char usb_port[32];  /* the USB port path, such as "1-2.3"; "" when not USB */
	char location[112]; /* where it sits, in the manner of /dev/disk/by-path: its
				  * controller, then its USB port ("pci-0000:00:14.0-usb-1-2.3",
				  * "platform-fe320000.mmc"); "" for a virtual device (loop) */
	enum flash_verdict verdict;
	char why[256]; /* one clear reason, whatever the verdict */
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
	const char *bmap; /* NULL: found beside the image */
	bool verify;      /* false with --no-verify */
	enum flash_gaps gaps;
	bool gaps_set; /* --gaps was given (without a bmap, the default is zero) */
	bool allow_fixed;
	bool dry_run;
	bool json;                      /* the JSON report on stdout */
	const char *report;             /* the JSON report into this file, or NULL */
	int verbosity;                  /* 0 quiet, 1 normal, 2 verbose */
	unsigned timeout;               /* seconds without progress before a target is given up */
	bool check_capacity;            /* stamps over the whole card before writing */
	const char *const *card_values; /* --card-values: a CSV file and NAME=PATTERN counters */
	size_t n_card_values;
	uint64_t first_index; /* --first-index: the first card's number (1 unless set) */
	/* --watch: the station (targets unused) */
	bool watch;
	const char *const *match; /* --match patterns: only the disks they name; NULL: every card */
	size_t n_match;
	const char *log; /* one JSON line per card appended there, or NULL */
	struct flash_roots roots;
};

/*
 * Writes o->image onto every target at once and reads each back. Returns 0 when every
 * target passed, 1 when any failed or was refused, and a negative errno (with the message
 * in @d) when nothing could be started (the image or its bmap is unusable).
 */
int flash_run(const struct flash_options *o, struct diag *d);

/*
 * The station (o->watch): waits for cards and writes o->image onto each one that arrives
 * (a whole disk whose size goes from 0 to more, or that appears), once, until SIGINT or
 * SIGTERM; a second signal aborts the cards in flight. Returns 0 when no card failed or
 * was refused, 1 when any did, and a negative errno (with the message in @d) when the
 * station could not start (the image, the log, the kernel's events).
 */
int flash_watch(const struct flash_options *o, struct diag *d);

/* ---- per-card values (card_patches.c) ---- */

/* Bytes of one card that differ from the image's: @len bytes at @offset, the last
 * @zero_tail of them zeros that @bytes does not hold (a per-card file's reserve past its
 * content: a large reserve costs no memory per card). */
struct flash_patch {
	uint64_t offset;
	size_t len;
	size_t zero_tail;
	uint8_t *bytes; /* owned: len - zero_tail bytes */
};

struct flash_patch_blocks;

struct flash_patches {
	struct flash_patch *v;
	size_t n, cap;
	struct flash_patch_blocks *blocks; /* which patches touch each block of the image, while
					      they are made (card_patches.c) */
};

/*
 * The bytes of one card whose values are @vars (@n_vars): its per-card ids (disk-id =
 * per-card: the MBR disk signature, or the GPT disk GUID and partition GUIDs in both
 * headers and arrays with their CRCs; volume-id = per-card: BS_VolID), each derived from
 * m->seed and the card's values (SHA-256, card_patches.c), which templates name as ${DISK_ID},
 * ${PARTUUID_NAME} and ${VOLUME_ID_NAME}; then for each per-card file of @m,
 * its content (the template filled in, then zeros up to its reserve), its directory entry,
 * its clusters' FAT entries in every FAT and, on FAT32, both FSInfo free counts, each read
 * from the image @fd (named @image) and changed. A content longer than its reserve, or a
 * name without a value, is an error naming the file. Returns 0 with the patches in @ret
 * (release them with flash_patches_release(), also after a failure), or a negative errno
 * with a message in @d.
 */
int flash_cards_patches(const struct cards_manifest *m, const struct cards_var *vars, size_t n_vars,
			int fd, const char *image, struct flash_patches *ret, struct diag *d);

/*
 * Checks one --card-values NAME=PATTERN before any card: its {index...} fields, and a
 * PATTERN that writes a MAC address ({index:macN}, or hex fields joined by ':') writes six
 * hex pairs joined by ':' whose fixed first byte is no multicast one (IEEE 802: bit 0).
 * Returns 0, or -EINVAL with one line in @d (a usage error).
 */
int flash_card_pattern_check(const char *spec, struct diag *d);

/*
 * Opens the image @path for reading when it is a regular file (a symbolic link to one is
 * followed): a FIFO, a socket, a device or a folder is refused at once, never waited on.
 * Returns the descriptor (close-on-exec), or a negative errno with one line in @d.
 */
int flash_open_image_file(const char *path, struct diag *d);

/*
 * Whether the per-card manifest @m, read from @manifest, belongs to the image @fd (named
 * @image, of @size bytes) and says the truth about it, before any card's bytes are made
 * from it: the image's size and the SHA-256 of its mapped ranges are the manifest's; each
 * per-card file lies in a FAT volume at the start of a partition of the image's table (clear
 * of the table: sector 0, the GPT headers and arrays), where that volume's geometry puts its
 * FATs, clusters and FSInfo sectors; its directory entry is in a directory of the volume and
 * is the one the volume finds at its path; the image holds its template, the entry's first
 * cluster and size, the chain in each FAT and the free count a card with the template would
 * have; each volume id is its boot sector's BS_VolID; the ids are of the image's table kind
 * (mbr-disk-id on an MBR, on a GPT both its headers), each partition listed once by the
 * number of its name, and the image holds the ids the manifest's seed derives; no two
 * fields share a byte (but the FAT entries of two files, and one
 * volume's FSInfo) or a cluster, and every one lies in the mapped ranges. Returns 0, or
 * -EINVAL with one line in @d naming @manifest and the field, or another negative errno.
 */
int flash_cards_check(const struct cards_manifest *m, const char *manifest, int fd,
		      const char *image, uint64_t size, struct diag *d);

/* Copies into @buf, which holds the image's @len bytes at @offset, the patched bytes
 * that fall inside it. */
void flash_patches_overlay(const struct flash_patches *p, uint64_t offset, void *buf, size_t len);

/* The same for the one patch @x. */
void flash_patch_overlay(const struct flash_patch *x, uint64_t offset, void *buf, size_t len);

void flash_patches_release(struct flash_patches *p);

#endif
