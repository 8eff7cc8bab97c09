/* SPDX-License-Identifier: MIT */
/*
 * Internals shared by the files of mkimage/flash/ (private to it): the classifier's device
 * (sysfs.c, hardware.c, usage.c), the image being written (image.c), the work on one
 * target (target_write.c) and the run over all of them (run.c, run_report.c).
 */
#ifndef SDIMG_MKIMAGE_FLASH_PRIV_H
#define SDIMG_MKIMAGE_FLASH_PRIV_H

#include <jansson.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "common/simg.h"
#include "exfat/exfat.h"
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
int flash_locate(const struct flash_roots *r, unsigned major, unsigned minor, struct flash_disk *k,
		 struct flash_target *t, struct diag *d);

/* Fills t's removable, hotplug, usb, sd, emmc, loop, model, serial and usb_port. */
void flash_hardware(const struct flash_disk *k, struct flash_target *t);

/*
 * Whether the target is in use: its disk holds / (@root_dev), or the target (a disk: any of
 * its partitions; a partition: it or its whole disk) is mounted, swap, or held by another
 * block device. Returns 1 with the reason in @why (@n bytes), 0 when free, or a negative
 * errno with a message in @d when procfs cannot tell.
 */
int flash_in_use(const struct flash_roots *r, const struct flash_disk *k,
		 const struct flash_target *t, dev_t root_dev, char *why, size_t n, struct diag *d);

void flash_disk_release(struct flash_disk *k);

/* ---- image.c: the image and what of it must reach a card ------------------------------ */

/* A byte range every target gets, with the SHA-256 its bytes must have. */
struct flash_range {
	uint64_t start, end;
	uint8_t sha256[32];
};

struct flash_image {
	const char *path; /* as given */
	int fd;           /* the raw image (a decompressed copy for a compressed one) */
	uint64_t size;
	struct flash_range *ranges; /* ascending, apart; each starts on a 4 KiB boundary */
	size_t n_ranges;
	uint64_t mapped_bytes;
	char *bmap_path;            /* the bmap used, or NULL (owned) */
	uint8_t mapped_sha256[32];  /* over the mapped bytes, in order */
	const char *compression;    /* "zstd", "xz", "gzip", "bzip2", "lz4", "lzma",
				    * "android-sparse" or NULL */
	size_t suffix_len;          /* the length of the name's compression suffix (0: none) */
	struct simg_range *defined; /* an Android sparse image: its RAW and FILL chunks, in
				     * bytes (owned) */
	size_t n_defined;
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

/*
 * unpack.c: the image file @fd (@size bytes, im->path) by what its bytes hold. A raw image
 * becomes im->fd itself; a compressed one (zstd, skippable frames included, xz, gzip,
 * bzip2, lz4, legacy lzma) is decompressed into an unnamed file under $TMPDIR or /var/tmp,
 * which becomes im->fd (with im->size, im->compression and im->suffix_len), and @fd is
 * closed. Refused, with @fd closed: a name whose compression suffix the bytes do not
 * match, a compression that cannot be read here (lzip, lzop, compress), an archive of files
 * (NAME.tar.*, NAME.zip, ...), and a stream that does not decompress whole. Returns 0 or a
 * negative errno with one message in @d.
 */
int flash_image_unpack(struct flash_image *im, int fd, uint64_t size, struct diag *d);

/* An Android sparse image (common/simg.h) is unpacked too, every chunk checked first: its
 * image written out as a compressed one is, im->compression "android-sparse", its chunks'
 * byte ranges in im->defined (what a card gets without a bmap: the DONT_CARE blocks are
 * not written), the ".simg" of its name the suffix. */
#define FLASH_SPARSE "android-sparse"

/* ---- card_values.c: --card-values ------------------------------------------------------ */

/* Where each card's values come from: a CSV file (one row per card, a column per variable)
 * and counters (NAME=PATTERN, PATTERN's {index} the card's number). */
struct flash_card_values {
	const char *csv; /* the CSV file, or NULL */
	char **names;    /* its first line (owned), n_names of them */
	size_t n_names;
	char ***rows;   /* its rows (owned), n_rows of them, n_names fields each */
	int *row_lines; /* each row's line in the file (owned) */
	size_t n_rows;
	char **counters; /* NAME=PATTERN (owned) */
	size_t n_counters;
	uint64_t next_index;            /* the next card's number (CSV: its row, 1 the first) */
	struct cards_manifest manifest; /* IMAGE.cards.json */
};

/* One card's values and bytes. */
struct flash_card_set {
	uint64_t index;         /* the card's number */
	size_t row;             /* CSV: its row (1: the first after the names); 0: none */
	struct cards_var *vars; /* names and values owned, n_vars of them */
	size_t n_vars;
	struct flash_patches patches;
};

/* Reads the CSV file and counters of --card-values (@specs, @n) and the per-card manifest of
 * the image @im, which it checks against @im (flash_cards_check()). Returns 0 or a negative
 * errno with a message in @d (close @cv either way). */
int flash_card_values_open(struct flash_card_values *cv, const char *const *specs, size_t n,
			   uint64_t first_index, const struct flash_image *im, struct diag *d);
void flash_card_values_close(struct flash_card_values *cv);

/* Which input of the run the file @st is (by device and inode): "the image", "its bmap",
 * "the CSV of --card-values", "the image's per-card manifest"; NULL for none of them. A
 * report or a log written there would destroy what the run reads. */
const char *flash_run_input(const struct stat *st, const struct flash_options *o,
			    const struct flash_image *im);

/* Without --card-values: a warning in @d when the image has a per-card manifest. */
void flash_card_values_hint(const struct flash_image *im, struct diag *d);

/* The next card's values (its number is taken, whatever happens) and its bytes, read from
 * the image @fd. Returns 0 with *@ret (free with flash_card_release()), or a negative errno
 * with a message in @d (no row left, a value too long, a name without a value). */
int flash_card_values_next(struct flash_card_values *cv, int fd, const char *image,
			   struct flash_card_set **ret, struct diag *d);
void flash_card_release(struct flash_card_set *c);

/* Whether every byte of @c's patches lies in a mapped range of @im (only those are written
 * and read back). Returns 0 or -EINVAL with a message in @d. */
int flash_card_mapped(const struct flash_card_set *c, const struct flash_image *im, struct diag *d);

/* {"index", "row" (null without CSV), "values": {NAME: VALUE}}. */
json_t *flash_card_json(const struct flash_card_set *c);

/* ---- card_patches.c ---- */

/* FAT32: for each per-card file i of @m with FSInfo sectors, into used[i] the clusters all
 * the files that share its FSInfo sector use with contents of lens[j] bytes (lens NULL:
 * their templates), and into first[i] (first may be NULL) whether i is the first of those
 * in @m; one sort, whatever the number of files. Returns 0 or -ENOMEM. */
int flash_fsinfo_used(const struct cards_manifest *m, const size_t *lens, uint32_t *used,
		      bool *first);

/* The exfat/ view of an exfat-file of the manifest. */
struct exfat_card_file flash_exfat_file(const struct cards_file *f);

/* ---- cards_check.c, cards_check_fat.c: a per-card manifest against its image ---------- */

struct disk;

/* What flash_cards_check() checks a manifest with. */
struct flash_checker {
	const struct cards_manifest *m;
	const char *manifest, *image;
	int fd;
	const struct disk *k;  /* the image's table, as the reader found it */
	struct sha256 *sha;    /* for the ids the manifest's seed derives */
	uint32_t *fsinfo_used; /* per file: the clusters its FSInfo sector's templates use */
	struct diag *d;
};

/* A FAT volume of the image, opened at @volume (its partition's first byte). */
struct flash_fat_volume {
	struct fat_vol *v;
	const struct fat_info *info;
	uint64_t start, size;
	uint64_t fsinfo, bk_boot; /* FAT32: byte offsets in the volume */
};

/* One line naming the manifest and @what (a field, "ids"): the manifest is refused. */
__attribute__((format(printf, 3, 4))) void flash_check_refusal(const struct flash_checker *c,
							       const char *what, const char *fmt,
							       ...);

/* flash_refuse(c, what, fmt, ...): flash_check_refusal()'s line, and -EINVAL; a macro, so
 * that a static analyser (which does not follow a variadic call) sees the value returned. */
#define flash_refuse(c, what, ...) (flash_check_refusal((c), (what), __VA_ARGS__), -EINVAL)

/* @len bytes at @at of the image, or -errno with a message naming it. */
int flash_check_read_at(const struct flash_checker *c, void *buf, size_t len, uint64_t at);

/* The FAT volume at @at (its partition's first byte); v->v is NULL when it is refused. */
int flash_check_fat_open(const struct flash_checker *c, const char *what, uint64_t at,
			 struct flash_fat_volume *ret);

/* A fat-file of the manifest: its FATs, clusters, entry and FSInfo where the volume @v has
 * them, and the image holding what a card with its template would. */
int flash_check_fat_file(const struct flash_checker *c, const struct flash_fat_volume *v,
			 const struct cards_file *f, const char *what);

/* Each fat-file's entry is the one its path names in its volume. */
int flash_check_fat_names(const struct flash_checker *c);

/* ---- cards_check_exfat.c ---- */

/*
 * Whether the exfat-file @f of a manifest says the truth about the exFAT volume of its
 * partition (@part_size bytes from f->volume) in image @fd (named @image): its clusters,
 * data, entry set and allocation bitmap where the volume has them, the set the one its path
 * names, and the image holding what a card with its template would. Returns 0; -EINVAL with
 * why not in @why (one line, @why_len bytes); or another -errno with a message in @d.
 */
int flash_exfat_card_check(int fd, const char *image, const struct cards_file *f,
			   uint64_t part_size, char *why, size_t why_len, struct diag *d);

/* ---- target_write.c: one target, from open to the re-read partition table -------------- */

/*
 * Looks up the target @path, the one time its name is followed: a descriptor that opens
 * nothing on the device (O_PATH: no tape rewinds, no watchdog starts, whatever @path names),
 * whose kind and numbers are in @st. Everything after works on this descriptor, so that a
 * name re-pointed meanwhile (a symbolic link, a udev name) changes nothing. Returns the
 * descriptor or a negative errno.
 */
int flash_target_lookup(const char *path, struct stat *st);

/*
 * Opens the device that @pfd (flash_target_lookup) is, for writing: O_RDWR, O_DIRECT and
 * O_EXCL, through /proc/self/fd (the same inode, not a name looked up again). O_EXCL fails
 * while anything mounts or holds the device, or its disk or a partition of it is held.
 * Returns the descriptor or a negative errno.
 */
int flash_target_hold(int pfd);

/* Why flash_target_hold() failed with @err, for the report: "cannot open it for writing:
 * ...", the cause of EBUSY named. */
void flash_target_hold_error(char *buf, size_t n, int err);

/* CAPACITY: the stamps of --check-capacity, before the writes. */
enum flash_stage {
	FLASH_STAGE_CHECK,
	FLASH_STAGE_CAPACITY,
	FLASH_STAGE_WRITE,
	FLASH_STAGE_GAPS,
	FLASH_STAGE_VERIFY,
	FLASH_STAGE_DONE
};

enum flash_result { FLASH_PASS, FLASH_FAIL, FLASH_REFUSED };

/* What a run shows of one target while it works and at the end. It lives in memory shared
 * with the target's worker process, which writes it under @lock (process-shared); the
 * reporter reads it. */
struct flash_job {
	const char *path;         /* the target as given */
	int fd;                   /* the target, open for writing and held (O_EXCL) from
					   its check on, inherited by its worker; -1: none */
	struct flash_target info; /* from the classifier */
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
	uint64_t bytes_written, bytes_verified, gap_bytes; /* bytes_verified: those that matched */
	bool gaps_verified;                      /* the zeros of --gaps zero were read back */
	uint64_t first_bad_start, first_bad_end; /* the first range that read back wrong */
	bool has_bad_range;
	struct timespec t_start, t_write_end, t_end, t_progress;
	struct timespec t_first_write; /* when its first write was issued (zero before) */
	struct flash_card_set *card;   /* --card-values: its values and bytes (the main
					   process's memory, NULL without) */
};

/* A mutex the workers' processes share with the main one (robust: see flash_job_lock). */
void flash_job_init_lock(pthread_mutex_t *m);

/* Starts @j's worker process (run.c) on its device j->fd, which passes to the worker: this
 * process closes it (j->fd is -1 after). @held (@n): the descriptors of the targets this
 * process holds, in its own memory (the jobs' is shared, and changes under a worker that
 * has just started): the worker closes all but its own, which is -1 there after. A job
 * that cannot be started fails. */
void flash_job_start(struct flash_job *j, int *held, size_t n);

/* Lets go of @j's device (j->fd), if this process holds it. */
void flash_job_release(struct flash_job *j);

/* Reaps @j's worker when it has ended: one that ended without finishing its job (killed,
 * crashed) fails it. */
void flash_job_reap(struct flash_job *j);

/* Gives up @j when it has made no progress for @timeout seconds: it fails, and is
 * abandoned (its worker may stay blocked in the kernel until the card answers). */
void flash_job_watchdog(struct flash_job *j, unsigned timeout);

/* The signals that stop a run or a station, into @set: SIGINT and SIGTERM, which someone
 * sends to stop it, always (also where they were ignored when sdimg started, as a script's
 * background job ignores SIGINT), and SIGHUP (the terminal closed, an SSH session dropped)
 * but where it was ignored (nohup: asked to outlive the terminal). */
void flash_stop_signals(sigset_t *set);

/* Runs @body(@o, stop, @d) with the stop signals (flash_stop_signals) blocked from its first
 * instant, for @body to take them; a signal that came while a @body that failed before any
 * card said why is taken too. Returns what @body returned. */
int flash_blocking_stop_signals(const struct flash_options *o, struct diag *d,
				int (*body)(const struct flash_options *o, const sigset_t *stop,
					    struct diag *d));

/* Gives up @j, in flight, for @why ("aborted: WHY" its error): it fails unless it already
 * had, its worker is killed. A job not in flight is left as it is. */
void flash_job_abort(struct flash_job *j, const char *why);

/* Locks @j's fields. The lock is robust: a worker that died holding it (killed, crashed)
 * leaves it usable, and the reaper fails its job. */
void flash_job_lock(struct flash_job *j);
void flash_job_unlock(struct flash_job *j);

/* Whether @j has failed or was abandoned: its worker stops at the next piece of work. */
bool flash_job_stopped(struct flash_job *j);

/* The worker's body on the device @fd (the job's, held since its check; closed at the
 * end): writes, handles gaps, verifies, re-reads the table. */
void flash_job_run(struct flash_job *j, int fd);

/*
 * --check-capacity (capacity.c): writes one 4 KiB block of stamps at every multiple of S
 * and at the card's end (S about the square root of 256 KiB times @size), each 512-byte
 * sector naming its offset, then reads the first S bytes and every block back with
 * O_DIRECT. A card that wraps at any sector below @size (byte x lands on x mod W) shows
 * in its first S bytes a stamp written W (or a multiple of W) bytes further; one that
 * drops or garbles what lies past its real capacity shows a block that differs. @fd is
 * open O_DIRECT, @lbs its logical block size. Returns 0, or -EIO with the job failed (at
 * the capacity stage, for what the stamps show).
 */
int flash_capacity_check(struct flash_job *j, int fd, unsigned lbs, uint64_t size);

/* Records the job's failure (the first one only) at its current stage. */
void flash_job_fail(struct flash_job *j, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

double flash_seconds(const struct timespec *from, const struct timespec *to);

/* ---- disks.c, uevent.c, slot.c: what a station sees ----------------------------------- */

/* A whole disk as sysfs lists it now. */
struct flash_seen {
	char name[32];
	unsigned major, minor;
	uint64_t size;    /* bytes; 0: no medium (an empty reader, a loop device without a file) */
	uint64_t diskseq; /* the medium's sequence number, new with each medium; 0: unknown */
};

/* Every whole disk under r->sys/class/block, into *@ret (owned, *@n of them). Returns 0
 * or a negative errno with a message in @d. */
int flash_disks_scan(const struct flash_roots *r, struct flash_seen **ret, size_t *n,
		     struct diag *d);

/* A block disk's uevent. */
struct flash_uevent {
	char action[16]; /* "add", "remove", "change", ... */
	char name[32];   /* DEVNAME */
	unsigned major, minor;
};

/* The kernel's uevent socket, non-blocking: its descriptor or a negative errno. */
int flash_uevent_open(void);

/* Parses one message of @len bytes. Returns 1 for a whole block disk's event (in @ev), 0
 * for any other message. */
int flash_uevent_parse(const char *buf, size_t len, struct flash_uevent *ev);

/* Reads every pending message. Returns how many were a block disk's (more than 0 also when
 * messages were lost), or a negative errno. */
int flash_uevent_drain(int fd);

/* Where @t sits, for the station's lines and log: its USB port, else its location, else
 * its kernel name. */
const char *flash_slot_name(const struct flash_target *t);

/* Whether one of the @n glob patterns names @t: its location, USB port, kernel name or
 * /dev/NAME. */
bool flash_slot_matches(const char *const *patterns, size_t n, const struct flash_target *t);

/* ---- run_report.c --------------------------------------------------------------------- */

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

void flash_progress_update(struct flash_progress *p, struct flash_job *jobs, size_t n, bool force);

/* The table at the end, and the JSON report. Return 0 or a negative errno. */
void flash_print_summary(FILE *out, struct flash_job *jobs, size_t n);

/* What the JSON report says of one target (@s: a copy taken under its lock). */
json_t *flash_job_json(const struct flash_job *s, const struct flash_image *im);

/* ---- station_log.c: the station's record of each card ---------------------------------- */

/* One card at a station: its job (in shared memory) and when the station saw it. */
struct flash_card {
	struct flash_job job;
	char path[48];  /* "/dev/NAME" */
	char slot[112]; /* flash_slot_name() */
	bool in_use;
	struct timespec arrived;      /* CLOCK_MONOTONIC */
	struct timespec arrived_wall; /* CLOCK_REALTIME */
};

/* The card's line on the terminal: slot, result, time, serial, device (and why it did not
 * pass), into @out. */
void flash_card_print(FILE *out, struct flash_card *c);

/* Appends the card's JSON line (the report's fields for it, its slot, location and
 * timestamps, and the image's) to the log @fd, then fsyncs it. Returns 0 or a negative
 * errno with a message in @d naming @log; what was written of a line that failed (a full
 * disk) is cut off again, so that the log holds whole records only. */
int flash_card_log(int fd, const char *log, struct flash_card *c, struct diag *d);

/* The log @fd (@log its name) as a station opens it: empty, or a station's log (its last
 * whole line a station's record, or, with none, a first record begun), else it is refused
 * untouched (-EINVAL: another file given as the log is never cut nor appended to). A last
 * line without its newline (a station that was cut off mid-record) is cut off, with a
 * warning in @d, so that the next record does not run on from it. Returns 0 or a negative
 * errno with a message in @d. */
int flash_log_cut_partial(int fd, const char *log, struct diag *d);
int flash_write_json(FILE *out, const struct flash_image *im, struct flash_job *jobs, size_t n,
		     bool dry_run, struct diag *d);

#endif
