/* SPDX-License-Identifier: MIT */
/* fat/tree: the in-memory tree (private to fat/). */
#ifndef SDIMG_FAT_TREE_PRIV_H
#define SDIMG_FAT_TREE_PRIV_H

#include "common/arena.h"
#include "fat/fat.h"

/* What few nodes have, kept beside them (NULL in most: a host file named by its own
 * path). */
struct fat_node_more {
	char *origin; /* source for messages, or NULL (the tree's) */
	/* bytes from elsewhere (a read callback, a descriptor, an offset, a deferred copy):
	 * the source as given, its path NULL (the tree's copy); NULL: a host file (named by
	 * the node's host_dir and name) or no bytes */
	const struct fat_source *src;
	char *host_name;  /* a host file's name in its folder when not the node's (the tree's) */
	uint32_t reserve; /* files: clusters for at least this many bytes */
};

/* Its fields are ordered so that a tree of many files wastes no padding. A node and its
 * strings are carved from the tree's arena: none is freed alone. */
struct fat_node {
	char *name;                 /* UTF-8 long name; "" for the root (the tree's) */
	struct fat_node_more *more; /* origin, source and host name, or NULL (the tree's) */
	struct fat_node *parent;    /* NULL for the root */
	/* what only a file has, or only a directory (@is_dir says which): a tree of many
	 * files pays for one of them */
	union {
		/* a host file: the file its path named when it was listed */
		struct fileid listed;
		struct {
			/* children, sorted by fat_tree_prepare() (owned) */
			struct fat_node **kids;
			uint32_t n_kids; /* see kids_room() in tree.c */
			/* set by fat_tree_prepare(): 32-byte entries without a volume label */
			uint32_t n_entries;
		};
	};
	uint64_t size;
	/* a host file's folder ("dir/", "/" or "" for the working folder; shared by the files of
	 * one folder, owned by the tree's folder set), its name there being @name unless
	 * more->host_name says otherwise: each host path is stored once, relative to its
	 * folder */
	const char *host_dir;
	int64_t mtime;
	union {
		/* UTF-16 long name, while fat_tree_prepare() is at its folder (NULL after: a
		 * writer makes it again from @name; fat_tree_alloc() comes after) */
		uint16_t *u16;
		/* set by fat_tree_alloc() */
		struct {
			uint32_t cluster; /* first cluster, 0 for empty files */
			uint32_t n_clusters;
		};
	};
	uint32_t mtime_ns;

	/* set by fat_tree_prepare() */
	uint16_t n16;
	uint8_t sfn[11]; /* short name */
	uint8_t ntres;   /* lower-case flags */
	uint8_t n_lfn;   /* LFN entries before the short entry (0: none) */
	uint8_t attrs;
	bool is_dir, first;
	bool origin_is_host; /* messages name the host file (origin is NULL) */
};

/* The source of @n's bytes when they are not a host file's (see struct fat_node_more). */
static inline const struct fat_source *fat_node_src(const struct fat_node *n)
{
	return n->more ? n->more->src : NULL;
}

/* A file's clusters hold at least this many bytes (see struct fat_meta). */
static inline uint32_t fat_node_reserve(const struct fat_node *n)
{
	return n->more ? n->more->reserve : 0;
}

/* @n's name in its host folder. */
static inline const char *fat_node_host_name(const struct fat_node *n)
{
	return n->more && n->more->host_name ? n->more->host_name : n->name;
}

/* The host folders files come from, each stored once (open addressing). */
struct fat_folders {
	char **slots;
	size_t cap, used;
};

/* Open-addressing index from (parent, name) to node, so adding N files costs O(N). */
struct fat_index {
	struct fat_node **slots;
	size_t cap, used;
};

struct fat_tree {
	struct fat_node root;
	struct arena arena; /* every node but the root, and their strings */
	struct fat_index index;
	struct fat_folders folders;
	int64_t timestamp;
	bool prepared; /* names checked, sorted and short names assigned */
	/* set by fat_tree_prepare(): the clusters everything but the root needs, for each
	 * cluster size 512 << k, so that trying a geometry does not walk the tree again */
	uint64_t need[8];
	/* set by fat_write(): where cluster 2 is and how large clusters are (0: not written) */
	uint64_t data_offset;
	uint32_t cluster_size;
	uint32_t next_free;     /* the first cluster no file or folder uses */
	uint64_t root_offset;   /* FAT12/16: byte offset of the root directory */
	bool root_label;        /* the root's first entry is the volume label */
	uint64_t written_below; /* fat_tree_written_below() */
};

/* A copy in @a of @n's UTF-16 name @buf (@len units) for @n: 0 or -ENOMEM. */
int fat_node_set_u16(struct arena *a, struct fat_node *n, const uint16_t *buf, size_t len);

/* Forgets the UTF-16 names of @dir's children, once its folder is prepared. */
void fat_dir_drop_u16(struct fat_node *dir);

/* fat_tree_add_file() without its limit on @size (for the exFAT writer, which shares the
 * tree). */
int fat_tree_add_node(struct fat_tree *t, const char *path, uint64_t size,
		      const struct fat_source *src, const struct fat_meta *m, struct diag *d);

/* The node of @path (exactly as added), or NULL. */
const struct fat_node *fat_tree_find(const struct fat_tree *t, const char *path);

/* qsort() order of a folder's entries: `first` nodes first, then by the UTF-8 bytes of their
 * names. */
int fat_node_cmp_order(const void *a, const void *b);

/* Names of @dir's entries that @cmp (a qsort() comparator of nodes) finds equal are an error
 * naming both, which says that @fs sees them as equal. Returns 0, -EINVAL or -ENOMEM. */
int fat_dir_check_equal(struct fat_node *dir, int (*cmp)(const void *, const void *),
			const char *fs, struct diag *d);

/* The FAT path of @n ("/a/b") in @buf, for messages; returns @buf. */
const char *fat_node_path(const struct fat_node *n, char *buf, size_t len);

/* Where messages about @n point: its origin (or host file), else its FAT path. */
const char *fat_node_where(const struct fat_node *n, char *buf, size_t len);

/* The host path of file @n ("" when its bytes come from elsewhere) in @buf; NULL when it
 * does not fit. */
const char *fat_node_host_path(const struct fat_node *n, char *buf, size_t len);

/*
 * Checks every name, sorts each directory, detects names FAT sees as equal, assigns short
 * names and LFN counts. Idempotent. Returns 0 or -EINVAL/-ENOMEM with a message.
 */
int fat_tree_prepare(struct fat_tree *t, struct diag *d);

/*
 * Assigns clusters for geometry @g (root first on FAT32, then each directory's children in
 * entry order, depth first). Returns 0, or -ENOSPC with a message when the volume is too small
 * (also for a FAT12/16 root over root-entries: -EINVAL). @ret_next: first free cluster.
 */
int fat_tree_alloc(struct fat_tree *t, const struct fat_geom *g, uint32_t *ret_next,
		   struct diag *d);

/* 32-byte entries of directory @n on a volume with geometry @g (label and dots included). */
uint32_t fat_dir_entries(const struct fat_tree *t, const struct fat_node *n,
			 const struct fat_geom *g);

#endif
