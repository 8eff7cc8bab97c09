/* SPDX-License-Identifier: MIT */
/*
 * fat/copy: the bytes of a tree's files into their clusters, for the writers of the FAT family
 * (fat/write.c and exfat/write.c): from a host file opened by name in its folder (the folder
 * stays open for the files after it), a caller's fd or a read callback; only what is not zero
 * is written (common/sparse.h), the small files of a folder gathered into one write.
 */
#ifndef SDIMG_FAT_COPY_PRIV_H
#define SDIMG_FAT_COPY_PRIV_H

#include "fat/tree_priv.h"

/* One writer's output and copy state. Set the first fields, then fat_copier_start(). */
struct fat_copier {
	int fd;            /* the output */
	uint64_t vol;      /* the volume's byte offset in fd */
	const char *image; /* fd's name in messages, or NULL */
	const char *kind;  /* the volume's kind in messages: "FAT", "exFAT" */
	uint32_t cluster_size;
	fat_stop_fn stop; /* asked before each file and after each SPARSE_CHUNK (may be NULL) */
	void *stop_ctx;
	uint64_t *written_below; /* kept up to date before each stop() (may be NULL): the volume
				  * is written below it, for a reader that follows the writer */
	struct diag *d;
	/* set by fat_copier_start() */
	uint8_t *buf;    /* SPARSE_CHUNK bytes for copies */
	uint8_t *pend;   /* SPARSE_CHUNK bytes: the clusters of small files, in a row */
	size_t pend_len; /* bytes in pend, the clusters of files from volume byte pend_off */
	uint64_t pend_off;
	const char *dir; /* the host folder open as dir_fd (NULL: none) */
	int dir_fd;
	uint64_t file_at; /* volume byte of the first cluster of the file being copied */
};

/* Takes the copy buffers. Returns 0 or -ENOMEM. */
int fat_copier_start(struct fat_copier *c);

/* Writes what is gathered (when @r is 0) and frees the buffers. Returns @r or the error. */
int fat_copier_finish(struct fat_copier *c, int r);

/* Where the bytes written so far end, for a caller about to write at volume byte @next, the
 * files so far all below it: @next, or where the clusters gathered and not written start. */
uint64_t fat_copier_written_below(const struct fat_copier *c, uint64_t next);

/* Whether the caller's stop function says to stop. */
bool fat_copier_stopped(const struct fat_copier *c);

/* Keeps @c->written_below, the files so far all written below volume byte @next, then asks
 * whether to stop (fat_copier_stopped()). */
bool fat_copier_stopped_at(const struct fat_copier *c, uint64_t next);

/* pwrite()s all of @buf at volume byte @off. Returns 0 or a negative errno with a message. */
int fat_copier_put(struct fat_copier *c, const void *buf, size_t len, uint64_t off);

/* Says that writing at volume byte @off failed with @e; returns -@e. */
int fat_copier_failed(struct fat_copier *c, uint64_t off, int e);

/* Copies the bytes of file @n (its n_clusters contiguous clusters) to volume byte @dst.
 * Returns 0, -EINTR (stopped) or a negative errno with a message. */
int fat_copier_file(struct fat_copier *c, const struct fat_node *n, uint64_t dst);

#endif
