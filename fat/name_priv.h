/* SPDX-License-Identifier: MIT */
/*
 * fat/name: long and short names (VFAT). UTF-8 <-> UTF-16, name checks, the 8.3 basis name,
 * Windows-style numeric and hash tails, LFN checksum (fatgen103 "FAT Long Directory Entries"
 * and "Basis-Name Generation Algorithm"; the hash tails as Windows NT and later write them).
 */
#ifndef SDIMG_FAT_NAME_PRIV_H
#define SDIMG_FAT_NAME_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FAT_LFN_MAX 255 /* UTF-16 units in a long name */
#define FAT_NTRES_LOWER_BASE 0x08
#define FAT_NTRES_LOWER_EXT 0x10

/*
 * Checks a long name. Returns NULL when FAT can hold it, else why not ("ends with a dot",
 * "contains the character '*'", ...). @u/@n is its UTF-16 form.
 */
const char *fat_name_problem(const uint16_t *u, size_t n);

/* Upper case of a UTF-16 unit as FAT compares names: ASCII, Latin-1, Latin Extended-A,
 * Greek and Cyrillic (a fixed table: the same on every machine and locale). */
uint16_t fat_upcase(uint16_t c);

/* The 8.3 basis name of a long name and what it means for the LFN and the tail. */
struct fat_basis {
	uint8_t base[8];
	uint8_t ext[3];
	uint8_t base_len, ext_len;
	bool fits;     /* the name is a legal 8.3 name as it is (up to case): no tail needed */
	bool lossy;    /* characters were replaced or dropped */
	bool case_ok;  /* base and extension are each single-case: no LFN needed when it fits */
	uint8_t ntres; /* DIR_NTRes lower-case flags for a name that fits with case_ok */
};

/* Computes the basis name of @u/@n (fatgen103 "Basis-Name Generation Algorithm"). */
void fat_basis(const uint16_t *u, size_t n, struct fat_basis *b);

/*
 * The @k-th candidate short name (11 bytes, space padded) for a basis:
 *   k = 0: the basis itself; k = 1..4: up to 6 characters + "~k" (Windows NT);
 *   k = 5..13: 2 characters + 4 hex digits of fat_sfn_hash() + "~(k-4)";
 *   k >= 14: sequential "~(k-4)" (never reached in practice; keeps generation total).
 * Returns 0, or -ERANGE when @k is beyond "~999999".
 */
int fat_sfn_candidate(const struct fat_basis *b, const uint16_t *u, size_t n, unsigned k,
		      uint8_t out[11]);

/* Windows' 16-bit short-name hash of the long name (as Windows NT and later compute it for
 * "~" tails past the fourth), e.g. 0xBC84. */
uint16_t fat_sfn_hash(const uint16_t *u, size_t n);

/* The LFN checksum of an 11-byte short name (fatgen103 ChkSum). */
uint8_t fat_lfn_checksum(const uint8_t sfn[11]);

#endif
