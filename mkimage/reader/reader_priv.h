/* SPDX-License-Identifier: MIT */
/* Internals shared by the files of mkimage/reader/ (private to it). */
#ifndef SDIMG_MKIMAGE_READER_PRIV_H
#define SDIMG_MKIMAGE_READER_PRIV_H

#include <libfdisk.h>

#include "common/mbr.h"
#include "mkimage/reader/reader.h"

struct reader_mbr_entry {
	bool used; /* any of its 16 bytes is not zero */
	uint8_t status, type;
	uint32_t start, sectors;
};

/* The four records of the MBR (or EBR) sector @s. */
void reader_mbr_entries(const uint8_t s[512], struct reader_mbr_entry e[4]);

/*
 * Whether the sector @s holds a plausible MBR for a disk of @disk_sectors: the signature, at
 * least one record, and every record used has the status 0x00 or 0x80, a type, a start past
 * sector 0 and a size, lies within the disk and overlaps no other record.
 */
bool reader_mbr_plausible(const uint8_t s[512], uint64_t disk_sectors);

/* The sectors of the EBR chain of @k's extended partition (at most @max). Returns their count. */
size_t reader_ebr_sectors(const struct disk *k, uint64_t *lba, size_t max);

/* Whether the disk shows a GPT: "EFI PART" at LBA 1 or in its last sector. */
bool reader_gpt_present(const struct disk *k);

/*
 * The GPT header at @lba into @h and its entry array, both checked (signature, HeaderSize,
 * HeaderCRC32, MyLBA, PartitionEntryArrayCRC32: UEFI 2.10, §5.3.2) and bounded by the disk.
 * Returns the array (free() it) with its size in *@ret_bytes, or NULL when a check fails.
 */
uint8_t *reader_gpt_load(const struct disk *k, uint64_t lba, uint8_t h[512], size_t *ret_bytes);

/* Sets k->gpt_primary_ok, gpt_backup and gpt_backup_lba from the headers' signatures and
 * CRCs; notes a hybrid MBR (k->hybrid_mbr, k->mirrors). */
void reader_check_gpt(struct disk *k);

/*
 * Reads the partitions of the primary GPT of @k directly (for a GPT libfdisk refuses, such as
 * one whose backup lies past the end of the image); @cxt names the partition types. Returns
 * 0, -EINVAL when the primary header or its entry array fails its checks, or -ENOMEM.
 */
int reader_read_primary_gpt(struct disk *k, struct fdisk_context *cxt);

/* Probes every partition's content (or, without a table, the whole disk); with @count, also
 * what a FAT volume holds (free clusters, files, folders). */
int reader_probe_all(struct disk *k, bool count, struct diag *d);

/*
 * browse.c: what `ls` and `cat` do with one kind of file system, one table a kind
 * (browse_fat.c, browse_exfat.c, browse_ext.c). Each function posts its messages into @d, naming paths in
 * the volume ("/a/b: ..."), which browse.c prefixes with the volume's address.
 */
struct reader_browse_ops {
	enum disk_content content; /* what reader_probe_all() found the partition to hold */
	/* the volume label the probe read, or "" */
	const char *(*label)(const struct disk_part *p);
	int (*open)(int fd, const struct disk_part *p, const char *image, struct diag *d,
		    void **ret);
	int (*list)(void *fs, const char *path, const struct reader_listing *how, struct diag *d);
	int (*read)(void *fs, const char *path, int (*out)(void *ctx, const void *buf, size_t len),
		    void *ctx, struct diag *d);
	void (*close)(void *fs);
};

extern const struct reader_browse_ops reader_browse_fat, reader_browse_exfat, reader_browse_ext;

/* The heading of each folder `ls -R` lists below the one named: an empty line, "PATH:". */
void reader_print_heading(FILE *out, const char *path);

#endif
