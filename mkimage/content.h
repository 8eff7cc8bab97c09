/*
 * content: what goes into one FAT partition, gathered from the layout's tree, file and dir
 * entries in file order, with LAYOUT.md's overlay rule: a later entry replaces an earlier
 * one at the same FAT path (compared as FAT compares: case-insensitively); two directories
 * at one path merge. Two names that FAT sees as equal from one source are an error.
 * Private to mkimage/.
 */
#ifndef SDIMG_MKIMAGE_CONTENT_H
#define SDIMG_MKIMAGE_CONTENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "common/diag.h"
#include "layouts/layouts.h"

struct content_node {
	char *path;      /* FAT path as it will be written: "/a/b" (owned) */
	char *key;       /* the path folded as FAT compares names (owned) */
	bool is_dir;
	char *host_path; /* a file's bytes come from this host file (owned), or ... */
	const char *text;/* ... are this text (borrowed from the layout), or ... */
	uint32_t archive;/* ... come from archive content.archives[archive - 1] (0: none), */
	uint64_t entry;  /*     from its entry number @entry (counted from 0) */
	char *link;      /* an archive's symbolic link, until it is resolved (owned) */
	uint64_t size;
	int64_t mtime;
	uint32_t mtime_ns;
	unsigned attrs;
	bool first;
	size_t source;   /* index of the layout entry that put it here */
	char *origin;    /* where it comes from, for messages (owned) */
	bool removed;    /* replaced by a later entry */
	bool implicit;   /* a folder created because a path needs it */
};

/* An archive files come from, as it was when it was listed. */
struct content_archive {
	char *path;	/* host path (owned) */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

struct content {
	struct content_node *nodes;
	size_t n, cap;
	size_t *index;   /* open-addressing hash: key -> node + 1 (0 = empty) */
	size_t index_cap;
	int64_t implicit_mtime; /* time of folders created because a path needs them */
	struct content_archive *archives; /* the archives files come from */
	size_t n_archives, cap_archives;
};

/*
 * Gathers the entries of FAT partition @p of layout @l into @c (zero-initialised).
 * Host paths are resolved against l->input_dir. Timestamps follow image.mtime.
 * Returns 0 or a negative errno with one message per problem in @d.
 */
int content_gather(const struct layout *l, const struct layout_partition *p,
		   struct content *c, struct diag *d);

void content_release(struct content *c);

#endif
