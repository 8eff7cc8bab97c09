/*
 * disk: what an image file or a block device holds, read without writing (private to
 * mkimage/; `sdimg inspect`, `ls`, `cat`). The partition table is read through libfdisk, the
 * GPT headers are checked here, each partition's content is probed (FAT through fat/'s
 * reader, ext2/3/4 from its superblock). Nothing in the image is trusted.
 */
#ifndef SDIMG_MKIMAGE_DISK_H
#define SDIMG_MKIMAGE_DISK_H

#include <stdbool.h>
#include <stdint.h>

#include "common/diag.h"
#include "fat/fat.h"

enum disk_content { CONTENT_UNKNOWN, CONTENT_FAT, CONTENT_EXT, CONTENT_CONTAINER };

struct disk_ext {
	char kind[5];         /* "ext2", "ext3", "ext4" */
	char label[17];
	char uuid[37];
	uint32_t block_size;
	uint64_t size;        /* bytes the file system counts */
};

struct disk_fat {
	struct fat_info info;
	uint32_t free_clusters;
	uint64_t files, dirs;
	bool walked;          /* the tree could be walked (files, dirs are counted) */
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
	char content_error[200]; /* why a FAT-looking volume could not be read */
};

struct disk_gap {
	uint64_t start, size;
};

struct disk {
	const char *path;
	int fd;
	uint64_t size;
	char table[8];        /* "mbr", "gpt", "none" */
	char id[40];          /* MBR signature "0x1234abcd" or GPT disk GUID */
	bool gpt_primary_ok, gpt_backup_ok;
	bool table_unreadable; /* a GPT signature is there, but libfdisk cannot read the table */
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
int disk_read(struct disk *k, const char *path, int fd, struct diag *d);

void disk_release(struct disk *k);

/* The size of a regular file or block device in bytes. Returns 0 or a negative errno. */
int disk_size_of(int fd, uint64_t *ret);

#endif
