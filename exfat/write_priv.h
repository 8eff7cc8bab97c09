/* SPDX-License-Identifier: MIT */
/*
 * exfat/write_priv: what the writer's files share (private to exfat/). The tree of an exFAT
 * volume is fat/'s tree of folders and files (their sources, metadata and host paths: exFAT
 * is of the FAT family), with exFAT's names, directory sizes and cluster assignment.
 */
#ifndef SDIMG_EXFAT_WRITE_PRIV_H
#define SDIMG_EXFAT_WRITE_PRIV_H

#include "exfat/exfat.h"
#include "fat/tree_priv.h"

#define EXFAT_FAT_OFFSET_MIN 24u   /* §3.1.5: FatOffset is at least 24 (the boot regions) */
#define EXFAT_VOLUME_MIN 2048u     /* §3.1.6: VolumeLength at least 2^20 bytes, in sectors */
#define EXFAT_DIR_MAX (256u << 20) /* §6.2: a directory is at most 256 MiB */

struct exfat_tree {
	struct fat_tree *ft; /* the folders and files (fat/tree_priv.h): exFAT uses their u16,
			      * n16 (the name), n_entries (a folder's entries), cluster and
			      * n_clusters */
	bool prepared;       /* names checked and folders sorted since the last change */
	uint32_t max_name;   /* the longest name, in UTF-16 units (for messages) */
	/* set by exfat_write_or_stop() (0: not written) */
	uint64_t heap_offset; /* byte offset of cluster 2 from the volume start */
	uint32_t cluster_size;
	uint32_t next_free; /* the first cluster nothing uses */
	uint32_t root_cluster;
	unsigned root_head; /* entries in the root before its first file */
};

/* The geometry for @vol_sectors at @vol_offset with clusters of @cluster_size and the heap
 * aligned to @align bytes from the disk start (0: none); @o gives the label, serial and GUID.
 * Errors name the limit and what would work. */
int exfat_layout(const struct exfat_opts *o, uint64_t vol_sectors, uint64_t vol_offset,
		 uint32_t cluster_size, uint64_t align, struct exfat_geom *g, struct diag *d);

/* Whether a name may not hold the UTF-16 unit @u (§7.7.3). */
bool exfat_unit_forbidden(uint16_t u);

/* The default cluster size of a volume of @vol_bytes (exfat_params()). */
uint32_t exfat_default_cluster(uint64_t vol_bytes);

/* The label, serial and GUID of @o into @g. Returns 0 or -EINVAL with a message. */
int exfat_geom_names(const struct exfat_opts *o, struct exfat_geom *g, struct diag *d);

/* Entries of the set of @n: File, Stream Extension and its File Name entries (§7.4). */
unsigned exfat_node_set(const struct fat_node *n);

/* Checks the names of @t, sorts its folders and counts their entries (idempotent). */
int exfat_tree_prepare(struct exfat_tree *t, struct diag *d);

/* Entries in the root before its files, for @g: label, bitmap, up-case table, GUID. */
unsigned exfat_root_head(const struct exfat_geom *g);

/* Bytes of the allocation bitmap of @clusters clusters. */
uint64_t exfat_bitmap_bytes(uint32_t clusters);

/* Gives every folder and file of @t its clusters on @g after the bitmap, up-case table and
 * root; returns the clusters used in all (the first free cluster - 2), possibly more than @g
 * has (the caller checks). */
uint64_t exfat_tree_alloc(struct exfat_tree *t, const struct exfat_geom *g);

#endif
