/* SPDX-License-Identifier: MIT */
/*
 * The map of a build (private to mkimage/builder/): the byte ranges of the image that must
 * read back as written, and the block map text made of them.
 */
#ifndef SDIMG_MKIMAGE_BUILDER_MAP_H
#define SDIMG_MKIMAGE_BUILDER_MAP_H

#include <stddef.h>
#include <stdint.h>

struct plan;
struct sha256;

/* ---- map.c: what must read back as written ------------------------------------------- */

struct build_range {
	uint64_t start, end; /* bytes, end excluded */
	uint8_t sha256[32];  /* of the range's bytes (finish.c) */
};

struct build_map {
	struct build_range *v;
	size_t n, cap;
};

/* Records [@start, @start + @len). Returns 0 or -ENOMEM. */
int build_map_add(struct build_map *m, uint64_t start, uint64_t len);

/* Records the partition table's sectors of @p: sector 0, the EBRs, both GPT headers and
 * arrays. Returns 0 or -ENOMEM. */
int build_map_add_tables(struct build_map *m, const struct plan *p);

/* Turns the records into whole blocks of @block bytes within @image_size (the last block
 * may be partial: its range still ends on the block grid), sorted and merged. */
void build_map_to_blocks(struct build_map *m, uint64_t block, uint64_t image_size);

/* The bytes the ranges cover inside the image. */
uint64_t build_map_bytes(const struct build_map *m, uint64_t image_size);

void build_map_release(struct build_map *m);

/* ---- bmap_text.c -------------------------------------------------------------------- */

/* The block map text of the ranges of @m (in whole BMAP_BLOCK_SIZE blocks, with
 * their checksums) for an image of @image_size bytes named @name, appended to @s, its own
 * checksum taken with @sha. Returns 0 or a negative errno (-EIO: @sha failed, and its diag
 * says so). */
struct strbuf;
int build_bmap_text(const struct build_map *m, uint64_t image_size, const char *name,
		    struct sha256 *sha, struct strbuf *s);

#endif
