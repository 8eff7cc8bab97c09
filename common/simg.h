/* SPDX-License-Identifier: MIT */
/*
 * simg: the Android sparse image format, defined once for the writer (`sdimg build -o
 * X.simg`, `--simg`; `sdimg personalize` of a sparse image) and the reader (`flash`,
 * `inspect`, `ls`, `cat`, `personalize`). The public definition is AOSP's libsparse,
 * system/core/libsparse/sparse_format.h; all fields are little-endian.
 *
 *   file header (28 bytes), then total_chunks chunks, each a chunk header (12 bytes) and
 *   its data:
 *     RAW        chunk_sz blocks of data follow (chunk_sz * blk_sz bytes)
 *     FILL       4 bytes follow: a 32-bit word repeated over chunk_sz blocks
 *     DONT_CARE  nothing follows: chunk_sz blocks the image does not define
 *     CRC32      4 bytes follow: the CRC-32 of the image so far; chunk_sz is 0
 *   The chunks' chunk_sz add up to total_blks; the image is total_blks * blk_sz bytes.
 *   CRC-32 is that of IEEE 802.3 (zlib's crc32()), over the image's bytes in order with
 *   the DONT_CARE blocks counted as zeros.
 *
 *   simg.c        the header and the chunks read and checked; the image written out
 *   simg_write.c  the chunks of an image from the ranges that matter; the sparse files
 */
#ifndef SDIMG_SIMG_H
#define SDIMG_SIMG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"

/* ---- the on-disk format (sparse_format.h) ------------------------------------------- */

#define SIMG_MAGIC 0xed26ff3au /* sparse_header_t.magic */
#define SIMG_MAJOR 1u          /* major_version: a reader refuses another */
#define SIMG_MINOR 0u          /* minor_version: what is written */
#define SIMG_FILE_HEADER_SIZE 28u
#define SIMG_CHUNK_HEADER_SIZE 12u

#define SIMG_CHUNK_RAW 0xcac1u
#define SIMG_CHUNK_FILL 0xcac2u
#define SIMG_CHUNK_DONT_CARE 0xcac3u
#define SIMG_CHUNK_CRC32 0xcac4u

/* sparse_header_t */
struct simg_file_header {
	uint32_t magic;          /* 0: SIMG_MAGIC */
	uint16_t major_version;  /* 4: SIMG_MAJOR */
	uint16_t minor_version;  /* 6: SIMG_MINOR */
	uint16_t file_hdr_sz;    /* 8: 28 bytes for the first revision of the format */
	uint16_t chunk_hdr_sz;   /* 10: 12 bytes for the first revision of the format */
	uint32_t blk_sz;         /* 12: block size in bytes, a multiple of 4 */
	uint32_t total_blks;     /* 16: blocks of the image */
	uint32_t total_chunks;   /* 20: chunks in the file */
	uint32_t image_checksum; /* 24: CRC-32 of the image, DONT_CARE counted as 0; written
				  * 0 (as libsparse writes it), never checked: the CRC32 chunk
				  * holds the CRC */
};

/* chunk_header_t */
struct simg_chunk_header {
	uint16_t chunk_type; /* 0: SIMG_CHUNK_RAW, _FILL, _DONT_CARE or _CRC32 */
	uint16_t reserved1;  /* 2: 0 */
	uint32_t chunk_sz;   /* 4: blocks of the image the chunk stands for */
	uint32_t total_sz;   /* 8: bytes of the chunk in the file, this header included */
};

void simg_put_file_header(uint8_t out[SIMG_FILE_HEADER_SIZE], const struct simg_file_header *h);
void simg_get_file_header(const uint8_t in[SIMG_FILE_HEADER_SIZE], struct simg_file_header *h);
void simg_put_chunk_header(uint8_t out[SIMG_CHUNK_HEADER_SIZE], const struct simg_chunk_header *c);
void simg_get_chunk_header(const uint8_t in[SIMG_CHUNK_HEADER_SIZE], struct simg_chunk_header *c);

/* The CRC-32 (zlib's crc32()) of data whose CRC is @crc followed by @len zero bytes. */
uint32_t simg_crc32_zeros(uint32_t crc, uint64_t len);

/* Whether @n bytes at @p start with the sparse image magic. */
bool simg_is_sparse(const uint8_t *p, size_t n);

/* ---- a sparse image read (simg.c) ------------------------------------------------------ */

/* One chunk that defines blocks: RAW (its data at @offset in the file) or FILL (@fill). */
struct simg_chunk {
	uint16_t type;
	uint32_t fill;   /* FILL: the word, as its 4 bytes read little-endian */
	uint64_t block;  /* the first block of the image it stands for */
	uint64_t blocks; /* how many */
	uint64_t offset; /* RAW: where its data starts in the file */
};

/* A CRC32 chunk: the CRC-32 the image must have up to @block (excluded). */
struct simg_crc {
	uint32_t crc;
	uint64_t block;
	uint32_t number; /* its chunk number, from 1 */
	uint32_t of;     /* the chunks its file's header counts */
};

struct simg {
	uint32_t block_size;
	uint64_t blocks;           /* total_blks */
	uint64_t image_size;       /* blocks * block_size */
	struct simg_chunk *chunks; /* RAW and FILL ones, ascending (owned) */
	size_t n, cap;
	struct simg_crc *crcs; /* owned */
	size_t n_crcs, cap_crcs;
};

/*
 * Reads and checks the header and every chunk header of the sparse image @fd (@file_size
 * bytes, @name in messages): the magic, major version 1, header sizes, a block size that
 * is a multiple of 4, each chunk's type, its total_sz against its type and its data in
 * the file, its blocks within total_blks, the chunks and blocks counted against the
 * header, nothing after the last chunk. The data itself is read by simg_expand() (and the
 * CRC32 chunks checked there). Returns 0 and fills @s (simg_release() it), or -EINVAL with
 * one line naming @name and the chunk number, -EIO, -ENOMEM.
 */
int simg_read(int fd, uint64_t file_size, const char *name, struct simg *s, struct diag *d);

/*
 * Writes the image of @s (read from @fd, named @name) into @out, a file of no data that
 * reads as zeros (the caller sizes it to s->image_size): RAW and FILL blocks, all-zero
 * blocks left as holes; the DONT_CARE blocks stay zeros. Every CRC32 chunk is checked
 * against the image's CRC-32 up to it. Returns 0 or -EINVAL (a bad CRC, a file that
 * shrank: one line naming @name and the chunk), -EIO, -ENOMEM.
 */
int simg_expand(const struct simg *s, int fd, const char *name, int out, struct diag *d);

void simg_release(struct simg *s);

/*
 * simg_read() and simg_expand() of the sparse image @fd (@file_size bytes, @name) into an
 * unnamed file under $TMPDIR or /var/tmp, returned in *@ret_fd (@s filled: simg_release()
 * it). Returns 0 or a negative errno with one message in @d.
 */
int simg_open_expanded(int fd, uint64_t file_size, const char *name, struct simg *s, int *ret_fd,
		       struct diag *d);

/* ---- sparse images written (simg_write.c) ------------------------------------------- */

/* The block sizes accepted: multiples of 512 (hence of 4, as libsparse wants) up to 64 MiB. */
#define SIMG_DEFAULT_BLOCK 4096u
#define SIMG_MAX_BLOCK (64u << 20)

/* Whether @block_size can be written, and why not (NULL when it can). */
const char *simg_block_size_problem(uint64_t block_size);

/* Whether an image of @image_size bytes can be a sparse image of @block_size-byte blocks:
 * 0, or -EINVAL with one line naming @name in @d. */
int simg_size_problem(uint64_t image_size, uint32_t block_size, const char *name, struct diag *d);

/* Where a stretch of the image's bytes is read: @len bytes of @fd from its byte @off, @name
 * in messages. */
struct simg_source {
	int fd;
	uint64_t off, len;
	const char *name;
};

/* The image a sparse file is made from: its bytes are those of @fd at their own offsets,
 * except where @locate (may be NULL) says otherwise: given a stretch [@at, @at + @len), it
 * sets *@src to where its first bytes are (at least one, at most @len) — a build whose
 * input files' bytes were never copied into @fd. */
struct simg_image {
	int fd;
	const char *name;
	void (*locate)(void *ctx, uint64_t at, uint64_t len, struct simg_source *src);
	void *locate_ctx;
};

/* A byte range of the image that matters. */
struct simg_range {
	uint64_t start, end; /* end excluded */
};

/*
 * The chunks of the image @im (@image_size bytes, a multiple of @block_size) whose
 * @n @ranges matter (in any order, overlapping or not): each range widened to whole
 * blocks; blocks that hold one 32-bit word repeated become FILL chunks, the others RAW;
 * runs of like blocks one chunk (at most 2^32 - 1 blocks). Into @s (simg_release() it).
 * Returns 0, -ENOMEM, or -EIO with errno's line naming the file read in @d.
 */
int simg_plan(const struct simg_image *im, uint64_t image_size, uint32_t block_size,
	      const struct simg_range *ranges, size_t n, struct simg *s, struct diag *d);

/* One sparse file of a split: chunks [@first, @last] of the plan, the first starting at
 * block @first_from and the last ending at block @last_to (a RAW chunk may be cut). */
struct simg_piece {
	size_t first, last;
	uint64_t first_from, last_to;
	bool empty; /* the image has no chunk at all: one file of DONT_CARE */
};

/* The files the chunks of @s go into so that none is over @max_size bytes (0: one file),
 * with a CRC32 chunk at the end of each when @crc. Returns 0 with the pieces in *@ret
 * (free() it), -ENOMEM, or -EINVAL when @max_size cannot hold one block (a line in @d). */
int simg_split(const struct simg *s, uint64_t max_size, bool crc, struct simg_piece **ret,
	       size_t *n_ret, struct diag *d);

/* The fewest bytes a split file of @block_size-byte blocks needs (--simg-max-size): one
 * block of RAW data between two DONT_CARE chunks, and a CRC32 chunk when @crc. */
uint64_t simg_least_piece(uint32_t block_size, bool crc);

/* The bytes simg_write() gives a piece. */
uint64_t simg_piece_size(const struct simg *s, const struct simg_piece *p, bool crc);

/*
 * Writes piece @p of @s, the image read from @image, as one sparse image of the whole image
 * (DONT_CARE around its chunks) to @out at its current position, with a CRC32 chunk at
 * its end when @crc. Each byte written also
 * goes to @sink(@sink_ctx) when @sink is not NULL (a digest). @stop (may be NULL) is
 * asked between pieces of data: true gives -EINTR. Returns 0 or a negative errno with a
 * message naming the file read or @out_name in @d.
 */
struct simg_write {
	struct simg_image image;
	int out;
	const char *out_name;
	bool crc;
	void (*sink)(void *ctx, const void *p, size_t len);
	void *sink_ctx;
	bool (*stop)(void *ctx);
	void *stop_ctx;
};
int simg_write(const struct simg *s, const struct simg_piece *p, const struct simg_write *w,
	       struct diag *d);

/*
 * simg_plan() and simg_write() of one file in one pass, each byte of the ranges that
 * matter read once: the sparse image of @w->image (@image_size bytes,
 * a multiple of @block_size) whose @n @ranges matter, written to @w->out (from its start,
 * a new empty file) with a CRC32 chunk when @w->crc, the same bytes as those two make.
 * The chunk headers are set once their chunks are complete, so there is no @w->sink
 * (-EINVAL): with a digest, or a split, plan first. Returns 0 or a negative errno with a
 * message in @d.
 */
int simg_plan_write(uint64_t image_size, uint32_t block_size, const struct simg_range *ranges,
		    size_t n, const struct simg_write *w, struct diag *d);

#endif
