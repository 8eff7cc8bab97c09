/* fat/read: the reader's private state and helpers (private to fat/). */
#ifndef SDIMG_FAT_READ_PRIV_H
#define SDIMG_FAT_READ_PRIV_H

#include "fat/write_priv.h"

struct fat_vol {
	int fd;
	uint64_t off;		  /* volume offset in fd */
	struct fat_info info;
	const struct fat_ent_ops *ops;
	uint32_t root_cluster;	  /* FAT32 */
	uint64_t fat_off;	  /* byte offset of the first FAT in the volume */
	uint64_t root_off;	  /* FAT12/16: byte offset of the fixed root directory */
	uint8_t *cbuf;		  /* one cluster */
	uint64_t fat_sec;	  /* FAT sector held in fat_buf (UINT64_MAX: none) */
	uint8_t fat_buf[FAT_SECTOR];
};

/* pread()s all of @len bytes at volume byte @off. Returns 0 or a negative errno. */
int fat_rd_pread(struct fat_vol *v, void *buf, size_t len, uint64_t off, struct diag *d);

/* The FAT entry of cluster @c (which must be valid). Returns 0 or a negative errno. */
int fat_rd_next(struct fat_vol *v, uint32_t c, uint32_t *ret, struct diag *d);

bool fat_rd_valid_cluster(const struct fat_vol *v, uint32_t c);
bool fat_rd_end(const struct fat_vol *v, uint32_t x);
uint64_t fat_rd_cluster_off(const struct fat_vol *v, uint32_t c);

#endif
