/* SPDX-License-Identifier: MIT */
/* Internals shared by the files of mkimage/contents/: the content model's index and the
 * two archive passes (listing, data). */
#ifndef SDIMG_MKIMAGE_CONTENTS_PRIV_H
#define SDIMG_MKIMAGE_CONTENTS_PRIV_H

#include <sys/stat.h>
#include <time.h>

#include "common/diag.h"
#include "mkimage/contents/contents.h"

/* The caps of the file system @c is gathered for (c->caps, FAT's when NULL). */
const struct content_caps *content_caps_of(const struct content *c);

/* @path folded as that file system compares names (a new string), or NULL. */
char *content_key(const struct content *c, const char *path);

/* The live node at folded path @key in *@ret (NULL: none). Returns 0 or -ENOMEM (a node
 * keeps no key: its path is folded again to compare). */
int content_find(struct content *c, const char *key, struct content_node **ret);

/* Adds a node (see model.c); returns 0 or a negative errno (message in @d). */
int content_add(struct content *c, const struct content_node *in, struct diag *d);

/*
 * The node after @k (1 + index) in a walk of the folder @root (1 + index) and everything
 * below it, parents before children; 0 when the walk is done. Start with root's kids.
 */
size_t content_next_below(const struct content *c, size_t root, size_t k);

/*
 * What following symbolic links has copied from one source, against what the source holds.
 * FAT has no links, so each followed link is a copy, and a few links to folders that hold
 * links can multiply a small source into millions of files: the copies may hold at most
 * CONTENT_COPIES_FACTOR times the source's entries and bytes, plus a floor.
 */
#define CONTENT_COPIES_FACTOR 4
#define CONTENT_COPIES_NODES 10000
#define CONTENT_COPIES_BYTES (1ull << 30)
struct content_copies {
	uint64_t held_nodes, held_bytes; /* the source's own entries and file bytes */
	uint64_t nodes, bytes;           /* the copies its links made */
};

/* Counts one copy of @size bytes made by a link of @source: 0, or -EINVAL past the bound. */
int content_count_copy(struct content_copies *cc, uint64_t size, const char *source,
		       struct diag *d);

/*
 * What @name in folder @dirfd (AT_FDCWD: @name is a path) is, after following links, in
 * *@st: 1 a folder, 0 anything else, or an error naming @host (its path) in @d ("dangling
 * symbolic link"). *@ret_lst (may be NULL) is @name itself, a symbolic link or not.
 */
int content_host_stat(int dirfd, const char *name, const char *host, struct stat *st,
		      struct stat *ret_lst, struct diag *d);

/*
 * Opens the folder @name of @dirfd that was listed as @st (named @host in messages), through
 * a symbolic link only when @link: its descriptor, or a negative errno with a message in @d
 * ("changed while it was read" when it is another folder, or no longer one).
 */
int content_open_folder(int dirfd, const char *name, const char *host, const struct stat *st,
			bool link, struct diag *d);

/*
 * Follows the symbolic link @name of the folder @dirfd name by name (host_links.c): 1 when
 * what it leads to is the folder @top or lies below it, 0 when it lies elsewhere, or a
 * negative errno (-ENOENT: it dangles, -ELOOP: too many links in a row). What it leads to is
 * in *@ret.
 */
int content_link_inside(int dirfd, const char *name, const struct stat *top, struct stat *ret);

/*
 * Adds the entries of archive @host (the `from` of tree entry @e, layout entry number
 * @source) to @c: files refer to their archive entry, whose bytes are written later by
 * content_write_archive_data(). An entry the tree's @filter (NULL: none) leaves out by its
 * own path is judged before it is examined: never examined, it is only reached by links.
 * Returns 0 or a negative errno (messages in @d).
 */
int content_list_archive(const struct layout *l, const struct layout_entry *e, const char *host,
			 size_t source, struct content_filter *filter, struct content *c,
			 struct diag *d);

/* @path relative to the tree's top @top ("a/b"; "" for the top itself), or NULL when it lies
 * above the top. */
const char *content_relative(const char *path, const char *top);

/*
 * Adds the nodes of @s, where tree entry @e was gathered alone, to @c: those its include and
 * exclude patterns @f keep (a node the walk judged already, by its verdict), and the folders
 * that lead to them (filter.c). The archives of @s move to @c. A pattern that matched
 * nothing is a warning starting with @place. Returns 0 or a negative errno (messages in @d).
 */
int content_merge_filtered(struct content *c, struct content *s, const struct layout_entry *e,
			   struct content_filter *f, const char *place, struct diag *d);

/*
 * Opens @host for reading with every filter and format libarchive has (chosen by content,
 * not by name). Returns the handle (lib->archive_read_free() it), or NULL with a message
 * in @d.
 */
struct archive *content_archive_open(const struct content_archive_lib *lib, const char *host,
				     struct diag *d);

/*
 * After @a failed to open @host or to read its first header: the error, in @d, as "@host:
 * cannot be read as an archive: ..." with a hint when it is no archive at all, or as "@host:
 * an mtree listing ..." when it is one (content_archive_support() leaves mtree out). Returns
 * -EINVAL.
 */
int content_archive_unreadable(const struct content_archive_lib *lib, struct archive *a,
			       const char *host, struct diag *d);

/* gzip decompressed through zlib, which checks each member's CRC-32 and length (archive_gzip.c). */
struct content_gzip;

/*
 * Opens @host: 1 with the reader in *@ret when it is gzip-compressed (content_gzip_close()
 * it), 0 when it is not, or a negative errno (message naming @host in @d).
 */
int content_gzip_open(const char *host, struct content_gzip **ret, struct diag *d);

/*
 * The next piece of the decompressed stream of @g in *@buf (valid until the next call): its
 * length, 0 at the end, or -1 with the reason in *@bad (the stream is damaged or truncated).
 */
ssize_t content_gzip_read(struct content_gzip *g, const void **buf, const char **bad);

void content_gzip_close(struct content_gzip *g);

/* A compressed archive decompressed once for the listing pass (archive_spool.c). */
struct content_unpack;

/*
 * Opens @host: 1 with *@ret when it is compressed, whose archive (content_unpack_archive())
 * reads the decompressed stream and copies it into a spool as it goes; 0 when @host is not
 * compressed (content_archive_open() reads it as it is); or a negative errno with a message
 * naming @host in @d. *@ret borrows @lib, which must outlive it.
 */
int content_unpack_open(const struct content_archive_lib *lib, const char *host,
			struct content_unpack **ret, struct diag *d);

struct archive *content_unpack_archive(struct content_unpack *u);

/* Why the decompressed stream of @u failed (libarchive's message for its archive may only
 * say that the stream ended early), or NULL when it has not. */
const char *content_unpack_error(const struct content_unpack *u);

/*
 * Once the archive of @u has been read to its end: checks the rest of a gzip stream (the
 * last member's CRC-32) and moves the spool, seekable, to *@ret_spool (-1 when it could not
 * be kept: it did not fit). Returns 0 or -EINVAL with a message in @d.
 */
int content_unpack_finish(struct content_unpack *u, int *ret_spool, struct diag *d);

void content_unpack_free(struct content_unpack *u);

/* The data pass's reader of archive @host: from its start in @spool_fd (its decompressed
 * copy) when that is not -1, else from @host itself. NULL with a message in @d. */
struct archive *content_archive_reopen(const struct content_archive_lib *lib, const char *host,
				       int spool_fd, struct diag *d);

/* The name of @ae as the archive spells it (UTF-8 where it can be read so), for messages
 * and paths; "" when it cannot be read at all. */
const char *content_archive_entry_name(const struct content_archive_lib *lib,
				       struct archive_entry *ae);

/* Whether @r, a libarchive status, lets reading go on (ARCHIVE_OK or ARCHIVE_WARN). */
static inline int content_archive_ok(int r)
{
	return r == ARCHIVE_OK || r == ARCHIVE_WARN;
}

#endif
