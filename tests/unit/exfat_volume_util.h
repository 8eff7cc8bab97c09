/* SPDX-License-Identifier: MIT */
/* The exFAT volume the reader's unit tests read (test_exfat_read, test_exfat_damage):
 * mkfs.exfat (exfatprogs) makes it, and entry sets and clusters are written into it by hand
 * (contiguous files, FAT chains, a file past its ValidDataLength, folders of both kinds, a
 * name the up-case table folds), which fsck.exfat -n must find clean. */
#ifndef SDIMG_TESTS_EXFAT_VOLUME_UTIL_H
#define SDIMG_TESTS_EXFAT_VOLUME_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/bytes.h"
#include "exfat/exfat.h"
#include "tests/unit/tool_test_util.h"

#define VOL "vol.img"
#define VOL_BYTES (4u << 20)
#define CS 4096u /* mkfs.exfat's cluster for 4 MiB */

/* Where the test puts things, in clusters of the mkfs.exfat volume (512 clusters: 2..513). */
enum {
	C_DIR = 100,    /* /dir: contiguous, one cluster */
	C_SUB = 101,    /* /dir/sub: FAT chain of one cluster */
	C_README = 110, /* /readme.txt: contiguous */
	C_CHAIN1 = 120, /* /chain.bin: 120 -> 130 -> 125 */
	C_CHAIN2 = 130,
	C_CHAIN3 = 125,
	C_SPARSE = 140, /* /sparse.bin: 3 clusters, 100 valid bytes */
	C_CAFE = 150,   /* /dir/café.txt */
};
#define CHAIN_BYTES (2 * CS + 1000)
#define SPARSE_BYTES (3 * CS)
#define SPARSE_VALID 100u

/* The volume's geometry, read from its boot sector. */
struct geo {
	uint64_t fat, heap; /* byte offsets */
	uint32_t root, clusters;
	uint64_t root_end; /* byte offset of the root's first free entry */
};

static inline struct geo geo_of(int fd)
{
	uint8_t s[512];
	struct geo g;

	assert_int_equal(pread(fd, s, 512, 0), 512);
	g.fat = (uint64_t)get_le32(s + EXFAT_FATOFFSET) * 512;
	g.heap = (uint64_t)get_le32(s + EXFAT_CLUSTERHEAPOFFSET) * 512;
	g.root = get_le32(s + EXFAT_FIRSTCLUSTEROFROOTDIRECTORY);
	g.clusters = get_le32(s + EXFAT_CLUSTERCOUNT);
	g.root_end = 0;
	return g;
}

static inline uint64_t coff(const struct geo *g, uint32_t c)
{
	return g->heap + (uint64_t)(c - 2) * CS;
}

static inline void pw(int fd, const void *b, size_t n, uint64_t off)
{
	assert_int_equal(pwrite(fd, b, n, (off_t)off), (ssize_t)n);
}

static inline void set_fat(int fd, const struct geo *g, uint32_t c, uint32_t next)
{
	uint8_t b[4];

	put_le32(b, next);
	pw(fd, b, 4, g->fat + 4ull * c);
}

/* Marks cluster @c used in the allocation bitmap (cluster 2, where mkfs.exfat puts it). */
static inline void mark(int fd, const struct geo *g, uint32_t c)
{
	uint8_t b;

	assert_int_equal(pread(fd, &b, 1, (off_t)(coff(g, 2) + (c - 2) / 8)), 1);
	b = (uint8_t)(b | 1u << ((c - 2) % 8));
	pw(fd, &b, 1, coff(g, 2) + (c - 2) / 8);
}

/* An entry set for @name (ASCII or UTF-16 @u) into @set; returns its entries. */
static inline unsigned make_set(uint8_t *set, const uint16_t *u, unsigned n, uint16_t attrs,
				uint64_t size, uint64_t valid, uint32_t first, bool nofatchain)
{
	unsigned names = (n + 14) / 15, count = 2 + names;
	uint16_t up[255];

	memset(set, 0, count * 32u);
	set[0] = EXFAT_TYPE_FILE;
	set[EXFAT_FE_SECONDARYCOUNT] = (uint8_t)(count - 1);
	put_le16(set + EXFAT_FE_FILEATTRIBUTES, attrs);
	/* 2023-11-14 22:13:20 UTC: date 0x576E, time 0xB1AA */
	put_le32(set + EXFAT_FE_CREATETIMESTAMP, 0x576EB1AAu);
	put_le32(set + EXFAT_FE_LASTMODIFIEDTIMESTAMP, 0x576EB1AAu);
	put_le32(set + EXFAT_FE_LASTACCESSEDTIMESTAMP, 0x576EB1AAu);
	set[EXFAT_FE_CREATEUTCOFFSET] = EXFAT_UTC_OFFSET_VALID;
	set[EXFAT_FE_LASTMODIFIEDUTCOFFSET] = EXFAT_UTC_OFFSET_VALID;
	set[EXFAT_FE_LASTACCESSEDUTCOFFSET] = EXFAT_UTC_OFFSET_VALID;
	uint8_t *se = set + 32;
	se[0] = EXFAT_TYPE_STREAM;
	se[EXFAT_SE_FLAGS] = (uint8_t)(EXFAT_SE_ALLOCATIONPOSSIBLE |
				       (nofatchain ? EXFAT_SE_NOFATCHAIN : 0));
	se[EXFAT_SE_NAMELENGTH] = (uint8_t)n;
	for (unsigned k = 0; k < n; k++)
		up[k] = u[k] >= 'a' && u[k] <= 'z' ? (uint16_t)(u[k] - 32)
			: u[k] == 0xE9             ? 0xC9
						   : u[k];
	put_le16(se + EXFAT_SE_NAMEHASH, exfat_name_hash(up, n));
	put_le64(se + EXFAT_SE_VALIDDATALENGTH, valid);
	put_le32(se + EXFAT_DE_FIRSTCLUSTER, first);
	put_le64(se + EXFAT_DE_DATALENGTH, size);
	for (unsigned k = 0; k < n; k++) {
		uint8_t *ne = set + (2 + k / 15) * 32;
		ne[0] = EXFAT_TYPE_NAME;
		put_le16(ne + EXFAT_FN_FILENAME + 2 * (k % 15), u[k]);
	}
	put_le16(set + EXFAT_FE_SETCHECKSUM, exfat_set_checksum(set, count));
	return count;
}

static inline unsigned ascii_set(uint8_t *set, const char *name, uint16_t attrs, uint64_t size,
				 uint64_t valid, uint32_t first, bool nofatchain)
{
	uint16_t u[255];
	unsigned n = (unsigned)strlen(name);

	for (unsigned k = 0; k < n; k++)
		u[k] = (uint8_t)name[k];
	return make_set(set, u, n, attrs, size, valid, first, nofatchain);
}

/* Appends @count entries at byte @at; returns the byte after them. */
static inline uint64_t put_entries(int fd, uint64_t at, const uint8_t *set, unsigned count)
{
	pw(fd, set, count * 32u, at);
	return at + count * 32u;
}

static inline void fill(uint8_t *b, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(i * 7 + seed);
}

/* The root directory's first free entry. */
static inline uint64_t root_end(int fd, const struct geo *g)
{
	uint8_t e[32];

	for (uint64_t at = coff(g, g->root);; at += 32) {
		assert_int_equal(pread(fd, e, 32, (off_t)at), 32);
		if (!e[0])
			return at;
	}
}

/* mkfs.exfat's volume in VOL with the files of the enum written by hand; its fd. */
static inline int make_volume(struct geo *ret)
{
	uint8_t set[19 * 32], buf[3 * CS];
	int fd;
	uint64_t at;
	uint16_t cafe[8] = { 'c', 'a', 'f', 0xE9, '.', 't', 'x', 't' };

	if (system(TOOL_PATH "truncate -s 4M " VOL " && mkfs.exfat -L Reader " VOL
			     " >/dev/null && tune.exfat -I 0xcafe1234 " VOL " >/dev/null") != 0)
		fail_msg("mkfs.exfat failed");
	fd = open(VOL, O_RDWR);
	assert_true(fd >= 0);
	*ret = geo_of(fd);
	at = root_end(fd, ret);
	/* root: /dir, /readme.txt, /chain.bin, /sparse.bin */
	at = put_entries(fd, at, set,
			 ascii_set(set, "dir", EXFAT_ATTR_DIRECTORY, CS, CS, C_DIR, true));
	at = put_entries(fd, at, set,
			 ascii_set(set, "readme.txt", EXFAT_ATTR_ARCHIVE, 10, 10, C_README, true));
	at = put_entries(fd, at, set,
			 ascii_set(set, "chain.bin", EXFAT_ATTR_ARCHIVE, CHAIN_BYTES, CHAIN_BYTES,
				   C_CHAIN1, false));
	at = put_entries(fd, at, set,
			 ascii_set(set, "sparse.bin", 0, SPARSE_BYTES, SPARSE_VALID, C_SPARSE,
				   true));
	ret->root_end = at;
	/* /dir: café.txt, sub/ */
	at = coff(ret, C_DIR);
	at = put_entries(fd, at, set,
			 make_set(set, cafe, 8, EXFAT_ATTR_ARCHIVE, 5, 5, C_CAFE, true));
	at = put_entries(fd, at, set,
			 ascii_set(set, "sub", EXFAT_ATTR_DIRECTORY, CS, CS, C_SUB, false));
	set_fat(fd, ret, C_SUB, EXFAT_FAT_EOC);
	/* data */
	fill(buf, sizeof(buf), 1);
	pw(fd, "0123456789", 10, coff(ret, C_README));
	pw(fd, "hello", 5, coff(ret, C_CAFE));
	pw(fd, buf, CS, coff(ret, C_CHAIN1));
	pw(fd, buf + CS, CS, coff(ret, C_CHAIN2));
	pw(fd, buf + 2 * CS, 1000, coff(ret, C_CHAIN3));
	set_fat(fd, ret, C_CHAIN1, C_CHAIN2);
	set_fat(fd, ret, C_CHAIN2, C_CHAIN3);
	set_fat(fd, ret, C_CHAIN3, EXFAT_FAT_EOC);
	pw(fd, buf, SPARSE_VALID, coff(ret, C_SPARSE));
	pw(fd, buf, 50, coff(ret, C_SPARSE) + SPARSE_VALID + 7); /* junk past the valid bytes */
	static const uint32_t used[] = { C_DIR,    C_SUB,    C_README,     C_CHAIN1,     C_CHAIN2,
					 C_CHAIN3, C_SPARSE, C_SPARSE + 1, C_SPARSE + 2, C_CAFE };
	for (size_t k = 0; k < sizeof(used) / sizeof(used[0]); k++)
		mark(fd, ret, used[k]);
	return fd;
}

struct collect {
	char names[16][1024];
	struct exfat_dirent e[16];
	unsigned n;
};

static inline int collect(void *ctx, const struct exfat_dirent *e)
{
	struct collect *c = ctx;

	if (c->n < 16) {
		snprintf(c->names[c->n], sizeof(c->names[0]), "%s", e->name);
		c->e[c->n] = *e;
	}
	c->n++;
	return 0;
}

struct bytes {
	uint8_t b[4 * CS];
	size_t n;
};

static inline int gather(void *ctx, const void *buf, size_t len)
{
	struct bytes *o = ctx;

	assert_true(o->n + len <= sizeof(o->b));
	memcpy(o->b + o->n, buf, len);
	o->n += len;
	return 0;
}

#endif
