/* SPDX-License-Identifier: MIT */
/*
 * reader: what an image file or a block device holds, read without writing, and the report
 * `sdimg inspect` makes of it (the interface of mkimage/reader/, used by `inspect`, `ls`
 * and `cat`):
 *   table.c      the partition table (through libfdisk), a bare volume, the free stretches
 *   mbr.c        the legacy MBR's entries: plausible ones, a hybrid MBR, the EBR chain
 *   gpt_check.c  are the primary and backup GPT headers and arrays intact?
 *   gpt_read.c   the primary GPT read directly, where libfdisk refuses it (no backup)
 *   probe.c      what each partition holds: FAT (fat/'s reader), exFAT (exfat/'s), ext2/3/4
 *                (superblock)
 *   findings.c   the SD alignment report: what is off the erase-block grid, and the fix
 *   report.c     the report as text or JSON
 *   visible.c    names from the image printed with control characters made visible (and
 *                the headings of `ls -R`)
 *   browse.c     a volume for `ls` and `cat`: which partition, then one table of operations
 *                per file system (browse_fat.c, browse_exfat.c, browse_ext.c)
 * Nothing in the image is trusted. Errors are 0 or a negative errno, with the message in
 * the caller's struct diag.
 */
#ifndef SDIMG_MKIMAGE_READER_H
#define SDIMG_MKIMAGE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/diag.h"
#include "common/uboot_env.h"
#include "exfat/exfat.h"
#include "fat/fat.h"

enum disk_content { CONTENT_UNKNOWN, CONTENT_FAT, CONTENT_EXT, CONTENT_CONTAINER, CONTENT_EXFAT };

struct disk_ext {
	char kind[5]; /* "ext2", "ext3", "ext4" */
	char label[17];
	char uuid[37];
	uint32_t block_size;
	uint64_t size; /* bytes the file system counts */
};

struct disk_fat {
	struct fat_info info;
	uint32_t free_clusters;
	uint32_t chained; /* FAT entries that are links of a chain (fat_cluster_count) */
	bool counted;     /* free_clusters and chained were read from the FAT */
	uint64_t files, dirs;
	uint64_t held; /* the clusters the tree's chains hold (fat_vol_walk_held()) */
	uint64_t kept; /* the clusters per-card files keep beyond their chains (the manifest) */
	bool walked;   /* the tree could be walked (files, dirs, held, kept are counted) */
};

struct disk_exfat {
	struct exfat_info info;
	uint32_t free_clusters;
	bool counted; /* free_clusters was read from the allocation bitmap */
	uint64_t files, dirs;
	uint64_t held; /* the clusters the tree holds, the root included (exfat_vol_walk_held()) */
	uint64_t kept; /* the clusters per-card files keep beyond their data (the manifest) */
	bool walked;   /* the tree could be walked (files, dirs, held, kept are counted) */
};

struct disk_part {
	unsigned number;      /* as the kernel numbers it: 1.., logical from 5 */
	uint64_t start, size; /* bytes */
	char type[40];        /* "0x0c" or a GUID */
	char type_name[64];   /* a readable name, or "" */
	char name[80];        /* GPT partition name */
	char uuid[40];        /* GPT partition GUID */
	bool bootable;        /* MBR active flag / GPT legacy-BIOS-bootable attribute */
	enum disk_content content;
	struct disk_fat fat;
	struct disk_ext ext;
	struct disk_exfat exfat;
	char content_error[200]; /* why a FAT- or exFAT-looking volume could not be read */
};

struct disk_gap {
	uint64_t start, size;
};

/* The state of the backup GPT (header and entry array). */
enum disk_gpt_backup { DISK_GPT_BACKUP_VALID, DISK_GPT_BACKUP_MISSING, DISK_GPT_BACKUP_INVALID };

/* An entry of a hybrid MBR besides its 0xEE one, and the GPT partition it mirrors. */
struct disk_mirror {
	uint8_t type;
	uint64_t start, size; /* bytes */
	unsigned gpt_number;  /* the GPT partition with the same start and size, or 0 */
};

struct disk {
	const char *path;
	int fd;
	uint64_t size;
	char table[8]; /* "mbr", "gpt", "none" */
	char id[40];   /* MBR signature "0x1234abcd" or GPT disk GUID */
	bool gpt_primary_ok;
	enum disk_gpt_backup gpt_backup;
	uint64_t gpt_backup_lba; /* where the backup header is, or should be */
	bool gpt_read_directly;  /* libfdisk refused the GPT; the reader read the primary itself */
	bool table_unreadable;   /* a GPT signature is there, but the table cannot be read */
	bool hybrid_mbr;         /* the MBR holds partitions besides its 0xEE entry */
	struct disk_mirror mirrors[3];
	size_t n_mirrors;
	struct disk_part *parts;
	size_t n_parts;
	struct disk_gap *gaps;
	size_t n_gaps;
};

/*
 * Reads the table and probes each partition of the open image or device @fd named @path.
 * Returns 0, or a negative errno with a message (the input is not readable, or it is no
 * disk image: neither a table nor a file system at its start).
 */
int reader_read_disk(struct disk *k, const char *path, int fd, struct diag *d);

/*
 * As reader_read_disk(), without counting what the FAT volumes hold (fat.free_clusters,
 * files and dirs stay 0, walked false): what `ls` and `cat` need, read in a few sectors
 * whatever the size of the card or of its tree.
 */
int reader_read_disk_uncounted(struct disk *k, const char *path, int fd, struct diag *d);

void reader_release_disk(struct disk *k);

/*
 * Opens the image file or block device @path for reading, without waiting on a FIFO or a
 * device that blocks in open(): anything but a regular file or a block device is refused.
 * An Android sparse image (common/simg.h) is checked whole and read as the image it holds,
 * written out into an unnamed file under $TMPDIR or /var/tmp.
 * Returns the descriptor, or a negative errno with a message naming @path in @d.
 */
int reader_open(const char *path, struct diag *d);

/* The size of a regular file or block device in bytes. Returns 0 or a negative errno. */
int reader_size_of(int fd, uint64_t *ret);

/* ---- findings.c: the SD alignment report. One finding per problem, each with a
 * severity, a stable code for scripts, the partition (0: the disk) and a message with the
 * numbers behind it and what to change in the layout. */

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
int reader_compute_findings(const struct disk *k, uint64_t erase_block, struct findings *f);

/* The grid @k is judged against: the SD allocation unit of its capacity where that is larger
 * than @erase_block (sdcard_default_align(), the default align of a build of that size),
 * else @erase_block. */
uint64_t reader_card_grid(const struct disk *k, uint64_t erase_block);

/* The grid @p's FAT data area or exFAT cluster heap is judged against: what a default build
 * of that volume with the clusters it uses reaches on this card, by the builder's own rule
 * (fat_reached_data_align(), exfat_reached_heap_align(): the card's grid, lowered where the
 * volume cannot hold its clusters or reserved sectors with it; below @erase_block for a
 * volume too small for that); @erase_block for other partitions. */
uint64_t reader_volume_grid(const struct disk *k, const struct disk_part *p, uint64_t erase_block);

/* The number of findings that are errors or warnings. */
size_t reader_count_problems(const struct findings *f);

void reader_release_findings(struct findings *f);

/* ---- report.c: `sdimg inspect` as text or as JSON */

/* Both print on stdout. Return 0, or a negative errno (with a message in @d) when the
 * output cannot be written. */
int reader_print_text(const struct disk *k, const struct findings *f, uint64_t erase_block,
		      struct diag *d);
int reader_print_json(const struct disk *k, const struct findings *f, uint64_t erase_block,
		      struct diag *d);

/* ---- browse.c: the folders and files of a partition's file system, for `ls` and `cat` */

/* `ls -R` lists folders nested this deep below the one named, as the builder makes them;
 * a deeper folder of a card from elsewhere is listed by its own path. */
#define READER_LS_DEPTH_MAX 64u

/* How `ls` lists a folder. */
struct reader_listing {
	FILE *out;
	bool longer;    /* -l: the long form of the volume's kind */
	bool recursive; /* -R: every folder below, with a heading each */
};

/* An open file system of a partition, of whatever kind browse.c knows (FAT, ext2/3/4). */
struct reader_volume;

/*
 * Opens the file system of the partition @part names on the disk @k, read from @fd (the
 * image @image): a partition number (":1"), a GPT partition name, or a volume label (any
 * case); NULL or "" for a disk without a table. The volume's messages then name it
 * (IMAGE:PART/PATH). Returns 0, or a negative errno with a message in @d (no such
 * partition, none that ls can read, a damaged file system).
 */
int reader_volume_open(const struct disk *k, int fd, const char *image, const char *part,
		       struct diag *d, struct reader_volume **ret);

/* Lists the folder @path of @v onto how->out. Returns 0 or a negative errno (message in @d). */
int reader_volume_list(struct reader_volume *v, const char *path, const struct reader_listing *how,
		       struct diag *d);

/* The bytes of the file @path of @v through @out, in order. Returns 0, what @out returned,
 * or a negative errno with a message in @d. */
int reader_volume_read(struct reader_volume *v, const char *path,
		       int (*out)(void *ctx, const void *buf, size_t len), void *ctx,
		       struct diag *d);

/* Closes @v. Accepts NULL. */
void reader_volume_close(struct reader_volume *v);

/* ---- visible.c: text from the image (names, labels) for a terminal */

/*
 * Prints @s on @out with every control character (C0, DEL, C1) and the backslash escaped
 * (\n, \t, \x1b, \\): a hostile name cannot move the cursor or clear the screen.
 */
void reader_fputs_visible(const char *s, FILE *out);

/* @s in double quotes, escaped as reader_fputs_visible() prints it and its double quotes as
 * \": a value that holds a comma, a quote or a newline reads as one value. */
void reader_fputs_quoted(const char *s, FILE *out);

/* @s escaped as reader_fputs_visible() prints it, in a new string (free() it), or NULL when
 * out of memory. */
char *reader_visible_dup(const char *s);

/* ---- uboot_env.c: a U-Boot environment where the user says (--uboot-env) */

/* OFFSET[,SIZE[,OFFSET2]] of --uboot-env: the first copy, its size, the second copy. */
struct reader_env_place {
	uint64_t offset, size, offset_redund;
	bool size_set;   /* else the size is found: the first of 4 KiB, 8 KiB ... 1 MiB whose
			    CRC holds */
	bool redund_set; /* a second copy named: redundant, there (else right after the first,
			    when the flags-byte CRC holds) */
};

/* Parses @text into @ret. Returns 0, -EINVAL with the reason in @why (@n bytes), -ENOMEM. */
int reader_env_place_parse(const char *text, struct reader_env_place *ret, char *why, size_t n);

struct reader_env {
	uint64_t offsets[2], size;
	bool redundant;
	uint8_t *bytes[2];               /* each copy as read (owned) */
	struct uboot_env_copy copies[2]; /* over bytes[] */
	int active;                      /* the copy U-Boot reads (0, 1), -1: none */
};

/* Reads the environment at @p of @fd (@path in messages) into @ret (release it with
 * reader_env_release(), also after a failure). A copy whose CRC fails is read and said so;
 * a place past the end, or no size whose CRC holds when none is given, is an error.
 * Returns 0, -EINVAL or -errno with a message in @d, or -ENOMEM. */
int reader_env_read(int fd, const char *path, const struct reader_env_place *p,
		    struct reader_env *ret, struct diag *d);
void reader_env_release(struct reader_env *e);

/* The report of `inspect --uboot-env`: each copy, its CRC and flags, which one U-Boot reads,
 * and its variables (control characters escaped). Returns 0 or -ENOMEM. */
int reader_env_print_text(const struct reader_env *e, FILE *out, struct diag *d);

/* The active copy's variables as `name=value` lines, as fw_printenv prints them, in their
 * order (`cat --uboot-env`). No valid copy or a damaged one is an error naming @path. */
int reader_env_print_vars(const struct reader_env *e, const char *path, FILE *out, struct diag *d);

#endif
