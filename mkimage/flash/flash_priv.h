/* Internals shared by the files of mkimage/flash/ (private to it). */
#ifndef SDIMG_MKIMAGE_FLASH_PRIV_H
#define SDIMG_MKIMAGE_FLASH_PRIV_H

#include <limits.h>
#include <stddef.h>

#include "mkimage/flash/flash.h"

/* One block device of the disk: the whole disk or one of its partitions. */
struct flash_member {
	char name[32]; /* the kernel's names are at most 31 bytes (DISK_NAME_LEN) */
	unsigned major, minor;
};

/*
 * The target as sysfs places it: canonical folders (symbolic links resolved, so that
 * walking up a path walks up the device tree), and the whole disk with its partitions,
 * because writing a disk destroys every partition on it.
 */
struct flash_disk {
	char sys[PATH_MAX];      /* the sysfs root, canonical */
	char dir[PATH_MAX];      /* the target's folder: SYS/devices/.../block/sdb[/sdb1] */
	char disk_dir[PATH_MAX]; /* the whole disk's folder (dir itself for a disk) */
	struct flash_member *v;  /* owned: v[0] the whole disk, then its partitions */
	size_t n, cap;
};

/* "A/B" into @buf (@n bytes). Returns 0 or -ENAMETOOLONG. */
int flash_path(char *buf, size_t n, const char *a, const char *b);

/*
 * Reads the attribute file DIR/ATTR into @buf (@n bytes), whitespace trimmed at both ends
 * (sysfs pads SCSI models with spaces and ends every value with a newline).
 * Returns 0 or a negative errno (-ENOENT when the attribute is absent).
 */
int flash_attr(const char *dir, const char *attr, char *buf, size_t n);

/* Whether DIR/NAME exists. */
bool flash_exists(const char *dir, const char *name);

/*
 * Finds the block device MAJOR:MINOR under r->sys: fills @k, and t's name, numbers, size,
 * read_only and partition. Returns 0 or a negative errno with a message in @d.
 */
int flash_locate(const struct flash_roots *r, unsigned major, unsigned minor,
		 struct flash_disk *k, struct flash_target *t, struct diag *d);

/* Fills t's removable, hotplug, usb, sd, emmc, loop, model, serial and usb_port. */
void flash_hardware(const struct flash_disk *k, struct flash_target *t);

/*
 * Whether the target is in use: its disk holds / (@root_dev), or the target (a disk: any of
 * its partitions; a partition: it or its whole disk) is mounted, swap, or held by another
 * block device. Returns 1 with the reason in @why (@n bytes), 0 when free, or a negative
 * errno with a message in @d when procfs cannot tell.
 */
int flash_in_use(const struct flash_roots *r, const struct flash_disk *k,
		 const struct flash_target *t, dev_t root_dev, char *why, size_t n,
		 struct diag *d);

void flash_disk_release(struct flash_disk *k);

#endif
