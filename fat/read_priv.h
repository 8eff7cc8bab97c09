/* SPDX-License-Identifier: MIT */
/* fat/read: the reader's private state and helpers (private to fat/). */
#ifndef SDIMG_FAT_READ_PRIV_H
#define SDIMG_FAT_READ_PRIV_H

#include "fat/write_priv.h"

struct fat_vol {
	int fd;
	uint64_t off; /* volume offset in fd */
	struct fat_info info;
	const struct fat_ent_ops *ops;
	uint32_t root_cluster; /* FAT32 */
	uint64_t fat_off;      /* byte offset of the first FAT in the volume */
	uint64_t root_off;     /* FAT12/16: byte offset of the fixed root directory */
	uint8_t *cbuf;         /* one cluster */
	uint64_t fat_sec;      /* FAT sector held in fat_buf (UINT64_MAX: none) */
	uint8_t fat_buf[FAT_SECTOR];
};

/* pread()s all of @len bytes at volume byte @off. Returns 0 or a negative errno. */
int fat_rd_pread(struct fat_vol *v, void *buf, size_t len, uint64_t off, struct diag *d);

/* The FAT entry of cluster @c (which must be valid). Returns 0 or a negative errno. */
int fat_rd_next(struct fat_vol *v, uint32_t c, uint32_t *ret, struct diag *d);

bool fat_rd_valid_cluster(const struct fat_vol *v, uint32_t c);
bool fat_rd_end(const struct fat_vol *v, uint32_t x);
uint64_t fat_rd_cluster_off(const struct fat_vol *v, uint32_t c);

/* A bitmap with a bit per cluster of @v, all clear (free() it), or NULL when out of memory. */
uint8_t *fat_rd_seen_new(const struct fat_vol *v);

/* Marks cluster @c in @seen; true when it already was marked. */
bool fat_rd_seen_before(uint8_t *seen, uint32_t c);

/* Finds @path into @ret; the root is reported as a directory with first cluster 0.
 * Returns 0, or -ENOENT/-ENOTDIR/-EINVAL with a message, or -EIO. */
int fat_rd_lookup(struct fat_vol *v, const char *path, struct fat_dirent *ret, struct diag *d);

/* fat_rd_lookup(), and @path must be a directory with a cluster (unless it is the root). */
int fat_rd_lookup_dir(struct fat_vol *v, const char *path, struct fat_dirent *ret, struct diag *d);

/*
 * Calls @fn for each entry of the directory at cluster @first (0: the root) as fat_vol_list()
 * does. @seen (or NULL) has a bit per cluster: a cluster of the directory already marked is
 * an error, and each one walked gets marked. @path (or NULL) names the directory in messages.
 */
int fat_rd_list(struct fat_vol *v, uint32_t first, uint8_t *seen, const char *path,
		int (*fn)(void *ctx, const struct fat_dirent *e), void *ctx, struct diag *d);

#endif
