/*
 * Internals shared by the files of mkimage/flash/ (private to it): the classifier's device
 * (sysfs.c, hardware.c, usage.c), the image being written (image.c), the work on one
 * target (target_write.c) and the run over all of them (run.c, report.c).
 */
#ifndef SDIMG_MKIMAGE_FLASH_PRIV_H
#define SDIMG_MKIMAGE_FLASH_PRIV_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

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

/* ---- image.c: the image and what of it must reach a card ------------------------------ */

/* A byte range every target gets, with the SHA-256 its bytes must have. */
struct flash_range {
	uint64_t start, end;
	uint8_t sha256[32];
};

struct flash_image {
	const char *path;           /* as given */
	int fd;                     /* the raw image (a decompressed copy for a compressed one) */
	uint64_t size;
	struct flash_range *ranges; /* ascending, apart; each starts on a 4 KiB boundary */
	size_t n_ranges;
	uint64_t mapped_bytes;
	char *bmap_path;            /* the bmap used, or NULL (owned) */
	uint8_t mapped_sha256[32];  /* over the mapped bytes, in order */
	const char *compression;    /* "zst", "xz", "gz" or NULL */
};

/*
 * Opens @path (raw, sparse or not, or compressed: then decompressed once into an unnamed
 * file under $TMPDIR or /var/tmp), finds its bmap (@bmap_path, or IMAGE.bmap, or the name
 * without the compression suffix + .bmap) and checks the bmap's own checksum and every
 * mapped range of the image against its checksum: all before any card is touched.
 * Without a bmap the raw image's data extents are the ranges (a warning in @d says so).
 * Returns 0 or a negative errno with one message in @d.
 */
int flash_image_open(struct flash_image *im, const char *path, const char *bmap_path,
		     struct diag *d);
void flash_image_close(struct flash_image *im);

/* ---- target_write.c: one target, from open to the re-read partition table -------------- */

enum flash_stage { FLASH_STAGE_CHECK, FLASH_STAGE_WRITE, FLASH_STAGE_GAPS, FLASH_STAGE_VERIFY,
		   FLASH_STAGE_DONE };

enum flash_result { FLASH_PASS, FLASH_FAIL, FLASH_REFUSED };

/* What a run shows of one target while it works and at the end. It lives in memory shared
 * with the target's worker process, which writes it under @lock (process-shared); the
 * reporter reads it. */
struct flash_job {
	const char *path;               /* the target as given */
	struct flash_target info;       /* from the classifier */
	const struct flash_image *im;
	const struct flash_options *o;
	pthread_mutex_t lock;
	pid_t worker;
	bool started, finished, abandoned;
	enum flash_stage stage;
	enum flash_result result;
	char error[300];
	int error_errno;
	char warning[160];
	uint64_t bytes_written, bytes_verified, gap_bytes;
	uint64_t first_bad_start, first_bad_end; /* the first range that read back wrong */
	bool has_bad_range;
	struct timespec t_start, t_write_end, t_end, t_progress;
};

/* Locks @j's fields. The lock is robust: a worker that died holding it (killed, crashed)
 * leaves it usable, and the reaper fails its job. */
void flash_job_lock(struct flash_job *j);
void flash_job_unlock(struct flash_job *j);

/* The worker's body: writes, handles gaps, verifies, re-reads the table. */
void flash_job_run(struct flash_job *j);

/* Records the job's failure (the first one only) at its current stage. */
void flash_job_fail(struct flash_job *j, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

double flash_seconds(const struct timespec *from, const struct timespec *to);

/* ---- report.c ------------------------------------------------------------------------- */

const char *flash_stage_name(enum flash_stage s);
const char *flash_result_name(enum flash_result r);

/* The progress display: on a terminal one line per target redrawn at most once a second,
 * else a plain line whenever a target changes stage. */
struct flash_progress {
	bool tty;
	int lines_drawn;
	struct timespec last_draw;
	enum flash_stage *last_stage; /* per job, for plain lines */
	bool *last_finished;
};

void flash_progress_update(struct flash_progress *p, struct flash_job *jobs, size_t n,
			   bool force);

/* The table at the end, and the JSON report. Return 0 or a negative errno. */
void flash_print_summary(FILE *out, struct flash_job *jobs, size_t n);
int flash_write_json(FILE *out, const struct flash_image *im, struct flash_job *jobs, size_t n,
		     bool dry_run, struct diag *d);

#endif
