/* SPDX-License-Identifier: MIT */
/*
 * sparse: bytes of a host file into an image file that reads as zeros wherever nothing was
 * written yet (a new file sized with ftruncate), writing only what is not zero: the holes
 * of the source (SEEK_DATA) and its all-zero blocks are left out, so the image file is as
 * sparse as its content. Only for a destination range that no one has written before: the
 * zeros it leaves out are those the range already reads.
 */
#ifndef SDIMG_SPARSE_H
#define SDIMG_SPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes of the buffer a copy reads into, and so the bytes between two stop checks. */
#define SPARSE_CHUNK (256u << 10)
/* Bytes of one data extent written between two writebacks started (see sparse.c). */
#define SPARSE_WINDOW (32u << 20)
/* The unit of zeros that is left out (a page, the block of most file systems). */
#define SPARSE_BLOCK 4096u

/* One copy: [@src_off, @src_off + @len) of @src to @dst at @dst_off. */
struct sparse_copy {
	int src;
	uint64_t src_off;
	uint64_t len;
	int dst;
	uint64_t dst_off;
	uint8_t *buf; /* SPARSE_CHUNK bytes, the caller's */
	/* asked after each chunk when more is left (may be NULL); @done: the copy's first bytes
	 * that are in @dst by then (the zeros left out read as zeros already) */
	bool (*stop)(void *ctx, uint64_t done);
	void *stop_ctx;
	bool scratch; /* @dst is never kept (a build that writes only a compressed or sparse
		       * copy): its writeback is not started as it is written */
};

/* Where a copy failed: in writing @dst (at its byte @at), or in reading the source. */
struct sparse_fault {
	bool in_dst;
	uint64_t at;
};

/*
 * Copies as described above. Returns 0; -EINTR when stop() said so; -ENODATA when the source
 * ends before @len (it shrank); or another negative errno, described in *@fault (a write
 * that makes no progress is -ENOSPC).
 */
int sparse_copy(const struct sparse_copy *c, struct sparse_fault *fault);

/* pwrite()s the blocks of @buf that are not all zero (SPARSE_BLOCK bytes each, counted from
 * @buf) to @dst at @dst_off. Returns 0 or a negative errno, the byte of @dst where writing
 * failed in *@failed_at. */
int sparse_write(int dst, const uint8_t *buf, size_t len, uint64_t dst_off, uint64_t *failed_at);

#endif
