/* SPDX-License-Identifier: MIT */
/* exfat/read: the reader's private state and helpers (private to exfat/). */
#ifndef SDIMG_EXFAT_READ_PRIV_H
#define SDIMG_EXFAT_READ_PRIV_H

#include "exfat/exfat.h"

/* A directory may hold at most 256 MiB of entries (§6.2): every walk over one is bounded. */
#define EXFAT_DIR_BYTES_MAX (256u << 20)
/* The up-case table maps 65,536 UTF-16 units; stored, it takes at most two bytes a unit
 * (§7.2.5): a longer one is refused before it is read. */
#define EXFAT_UPCASE_UNITS 65536u
#define EXFAT_UPCASE_BYTES_MAX (EXFAT_UPCASE_UNITS * 2u)

struct exfat_vol {
	int fd;
	uint64_t off; /* volume offset in fd */
	struct exfat_info info;
	uint64_t fat_off;  /* byte offset of the active FAT in the volume */
	uint64_t heap_off; /* byte offset of cluster 2 */
	uint16_t *upcase;  /* EXFAT_UPCASE_UNITS entries: the table, expanded */
	uint8_t *sys;      /* a bit per cluster of the bitmap, the up-case table and the root */
	uint8_t *cbuf;     /* one cluster, for file reads */
	uint64_t fat_sec;  /* FAT sector held in fat_buf (UINT64_MAX: none) */
	uint8_t fat_buf[EXFAT_SECTOR];
};

/* Where the clusters of a file, folder or system structure are: its first cluster, whether
 * they are contiguous (NoFatChain) or follow the FAT, and how many there are (0: as many as
 * the FAT chain has, the root directory's case). */
struct exfat_extent {
	uint32_t first;
	bool contiguous;
	uint64_t clusters;
};

/* A walk over the clusters of an extent, each checked: inside the heap, not past the
 * extent's count, a FAT chain that neither loops (@seen) nor ends early. */
struct exfat_chain {
	struct exfat_extent x;
	uint64_t index;   /* clusters given so far */
	uint64_t max;     /* clusters it may have at most (a bound where x.clusters is 0) */
	uint32_t cur;     /* the cluster exfat_rd_chain_next() gave last */
	uint8_t *seen;    /* a bit per cluster (NULL: loops are caught by @max only) */
	const char *what; /* names the chain in messages */
};

/* pread()s all of @len bytes at volume byte @off. Returns 0 or a negative errno. */
int exfat_rd_pread(struct exfat_vol *v, void *buf, size_t len, uint64_t off, struct diag *d);

bool exfat_rd_valid_cluster(const struct exfat_vol *v, uint32_t c);
uint64_t exfat_rd_cluster_off(const struct exfat_vol *v, uint32_t c);

/* Starts a walk over @x, named @what in messages; @seen as struct exfat_chain says. */
void exfat_rd_chain_init(struct exfat_chain *ch, const struct exfat_extent *x, uint8_t *seen,
			 const char *what, uint64_t max);

/* The next cluster of @ch into @ret. Returns 1 with a cluster, 0 at its end (after the
 * count, or at the FAT's end-of-chain mark where the count is 0), or a negative errno with a
 * message (a cluster outside the heap, a loop, a chain that ends early). */
int exfat_rd_chain_next(struct exfat_vol *v, struct exfat_chain *ch, uint32_t *ret, struct diag *d);

/* A bitmap with a bit per cluster of @v, all clear (free() it), or NULL when out of memory. */
uint8_t *exfat_rd_seen_new(const struct exfat_vol *v);

/* Marks cluster @c in @seen; true when it already was marked. */
bool exfat_rd_seen_before(uint8_t *seen, uint32_t c);

/* The extent of the file @e: as many clusters as its DataLength needs. */
struct exfat_extent exfat_rd_file_extent(const struct exfat_vol *v, const struct exfat_dirent *e);

/* Walks every cluster of @x (the file or folder @path) into @seen: an error with a message
 * where one is outside the heap, the volume's own, or already marked (a cross-link). */
int exfat_rd_claim(struct exfat_vol *v, const struct exfat_extent *x, uint8_t *seen,
		   const char *path, struct diag *d);

/* Calls @fn for each raw 32-byte entry of the directory @x up to its end (an entry of type
 * 0, or its last cluster); @fn returns 0 to go on. The clusters as exfat_rd_list() says. */
int exfat_rd_walk_raw(struct exfat_vol *v, const struct exfat_extent *x, uint8_t *seen,
		      const char *path, int (*fn)(void *ctx, const uint8_t *e), void *ctx,
		      struct diag *d);

/* The entry a lookup or a listing found, with its name as stored. */
struct exfat_rd_entry {
	struct exfat_dirent e;
	uint16_t name[EXFAT_NAME_MAX];
	unsigned name_len;
};

/* The root directory as an extent (its FAT chain). */
struct exfat_extent exfat_rd_root(const struct exfat_vol *v);

/* The folder @e as an extent; an error with a message where it has no clusters, or more than
 * a directory may have. */
int exfat_rd_dir_extent(const struct exfat_vol *v, const struct exfat_dirent *e, const char *path,
			struct exfat_extent *ret, struct diag *d);

/*
 * Calls @fn for each file and folder of the directory @x as exfat_vol_list() does. @seen (or
 * NULL) has a bit per cluster: a cluster of the directory already marked is an error, and
 * each one walked gets marked. @path names the directory in messages.
 */
int exfat_rd_list(struct exfat_vol *v, const struct exfat_extent *x, uint8_t *seen,
		  const char *path, int (*fn)(void *ctx, const struct exfat_rd_entry *e), void *ctx,
		  struct diag *d);

/* Finds @path into @ret; the root is reported as a folder with first cluster 0.
 * Returns 0, or -ENOENT/-ENOTDIR/-EINVAL with a message, or -EIO. */
int exfat_rd_lookup(struct exfat_vol *v, const char *path, struct exfat_rd_entry *ret,
		    struct diag *d);

/* exfat_rd_lookup(), and @path must be a folder: its extent into @ret. */
int exfat_rd_lookup_dir(struct exfat_vol *v, const char *path, struct exfat_extent *ret,
			struct diag *d);

/* Decodes the UTF-16 name of @n units into @out (UTF-8, as exfat_dirent.name). */
void exfat_rd_name_utf8(const uint16_t *u, unsigned n, char *out, size_t cap);

#endif
