/* SPDX-License-Identifier: MIT */
/*
 * bmap: the block map format bmaptool reads and writes (format version 2.0), defined once
 * for the writer (mkimage/builder, `build --bmap`) and the reader (`flash`).
 *
 *   <bmap version="2.0">
 *     <ImageSize> BYTES </ImageSize>          the image, uncompressed
 *     <BlockSize> 4096 </BlockSize>
 *     <BlocksCount> N </BlocksCount>          ceil(ImageSize / BlockSize)
 *     <MappedBlocksCount> N </MappedBlocksCount>  blocks inside all ranges
 *     <ChecksumType> sha256 </ChecksumType>
 *     <BmapFileChecksum> HEX </BmapFileChecksum>  SHA-256 of this file with HEX as 64 '0'
 *     <BlockMap>
 *       <Range chksum="HEX"> FIRST-LAST </Range>   inclusive block numbers, or one block
 *     </BlockMap>
 *   </bmap>
 * A range's chksum is the SHA-256 of exactly its bytes: a partial last block of the image
 * counts at its real length. Ranges ascend and do not overlap. Comments and white space
 * around values are free.
 */
#ifndef SDIMG_BMAP_H
#define SDIMG_BMAP_H

#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"

#define BMAP_BLOCK_SIZE 4096u
#define BMAP_VERSION "2.0"
#define BMAP_HEX_LEN 64 /* a SHA-256 in lower-case hex */

struct bmap_range {
	uint64_t first, last; /* block numbers, inclusive */
	uint8_t sha256[32];
	int has_sha256; /* the range has a chksum */
};

struct bmap {
	uint64_t image_size;
	uint64_t block_size;
	uint64_t blocks;           /* BlocksCount */
	uint64_t mapped;           /* MappedBlocksCount */
	struct bmap_range *ranges; /* owned, ascending */
	size_t n;
	size_t cap;
};

/*
 * Parses the bmap text @text (@len bytes, named @name in messages) and checks it: version
 * 2.x, sha256 checksums, the file's own checksum, counts that agree, ranges ascending,
 * apart and inside the image. Nothing in it is trusted. Returns 0 and fills @b (release it
 * with bmap_release()), or -EINVAL / -ENOMEM / the error of sha256_new() with one message
 * in @d.
 */
int bmap_parse(const char *text, size_t len, const char *name, struct bmap *b, struct diag *d);

void bmap_release(struct bmap *b);

/* The SHA-256 of the bmap text @text (@len bytes) with the 64 characters at @at read as
 * '0' (what BmapFileChecksum holds), taken with @sha. Returns 0, -EINVAL when the 64
 * characters do not fit in @len, or -EIO (sha256_final()). */
struct sha256;
int bmap_file_checksum(struct sha256 *sha, const char *text, size_t len, size_t at,
		       uint8_t out[32]);

#endif
