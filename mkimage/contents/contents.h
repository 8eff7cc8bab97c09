/* SPDX-License-Identifier: MIT */
/*
 * contents: what goes into a partition's file system from the layout's tree, file and dir
 * entries (the interface of mkimage/contents/), for FAT and ext4 alike: host folders and
 * archives, strip, include and exclude, and the rule of stored times, shared by every file
 * system; and the model of one FAT partition, gathered in file order with LAYOUT.md's
 * overlay rule: a later entry replaces an earlier one at the same FAT path (compared as FAT
 * compares: case-insensitively); two directories at one path merge. Two names that FAT sees
 * as equal from one source are an error.
 *   rules.c           the rule of stored times (image.mtime, SOURCE_DATE_EPOCH), every file
 *                     system's
 *   caps.c            what each file system can hold (FAT's, exFAT's), judged in one place
 *   model.c           the content model: nodes, the overlay rule, the path index
 *   host_walk.c       the one walk of a host folder, for every file system: names in byte
 *                     order, each judged by include and exclude before it is examined,
 *                     symbolic links followed as `links` says where a file system keeps
 *                     none (FAT), or given as they are (ext4)
 *   host_links.c      where a symbolic link leads, for `links = inside`
 *   host_tree.c       FAT's tree/file/dir entries from host folders and files: what FAT
 *                     makes of the walk, into the model
 *   archive_read.c    the one reader of archives, every file system's: the listing pass
 *                     (headers only) into entries of what the file system holds, and the
 *                     data pass that hands out their bytes
 *   archive_list.c    FAT's model of an archive's listing
 *   archive_judge.c   a tree's include and exclude over an archive's entries in walk order
 *                     (ext4's)
 *   archive_stream.c  FAT's data pass: archive entries streamed to their clusters
 *   archive_spool.c   a compressed archive decompressed once, kept for the data pass
 *   archive_gzip.c    gzip decompressed through zlib, which checks its CRC-32 (libarchive
 *                     does not)
 *   archive_lib.c     libarchive, loaded with dlopen only when a tree is an archive
 *   patterns.c        a tree's include and exclude patterns judged on one path (FAT and
 *                     ext4 trees alike)
 *   filter.c          what they keep of a tree's model joins the partition's
 * It knows layouts/, fat/ and ext4/'s form of an ACL, but not the builder: the builder gives
 * it a volume, an image fd, an offset and a stop callback.
 */
#ifndef SDIMG_MKIMAGE_CONTENTS_H
#define SDIMG_MKIMAGE_CONTENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include <archive.h>
#include <archive_entry.h>

#include "common/arena.h"
#include "common/diag.h"
#include "common/dynlib.h"
#include "ext4/ext4.h"
#include "fat/fat.h"
#include "layouts/layouts.h"

/* A path in a partition has at most this many names and bytes, whatever its source (FAT has
 * no limit; Linux's PATH_MAX is 4096 with the NUL), so that nothing an input controls can
 * make the walks over the tree run deep. */
#define CONTENT_MAX_DEPTH 64
#define CONTENT_MAX_PATH 4095

/* Its fields are ordered so that a model of many files wastes no padding. Its strings are
 * the model's (its arena's): none is freed alone. */
struct content_node {
	char *path;            /* FAT path as it will be written: "/a/b" (its key, the path
				* folded as FAT compares names, is made again when needed) */
	char *host_path;       /* a file's bytes come from this host file (with
				* @host_in_folder: its folder, the file being named there as
				* the last name of @path; see content_host_path()), ... */
	struct fileid host_id; /* ... the one it was when listed, or ... */
	union {
		/* ... are this text (borrowed from the layout; read it through
		 * content_text(): a node from an archive holds @entry here), or ... */
		const char *text;
		/* ... come from archive content.archives[archive - 1], from its entry
		 * number @entry (counted from 0) */
		uint64_t entry;
	};
	uint32_t archive; /* 0: the node is not from an archive */
	uint32_t mtime_ns;
	char *link; /* an archive's symbolic link, until it is resolved */
	uint64_t size;
	int64_t mtime;
	char *origin;    /* where it comes from, for messages (NULL: its host file; see
			  * content_origin()) */
	uint32_t source; /* index of the layout entry that put it here */
	uint32_t parent; /* 1 + index of the folder node holding it (0: the partition's root) */
	uint32_t kids;   /* 1 + index of its most recently added child (0: none) */
	uint32_t next;   /* 1 + index of the child its folder got before it (0: none) */
	uint8_t attrs;
	bool is_dir;
	bool first;
	bool removed;        /* replaced by a later entry */
	bool implicit;       /* a folder created because a path needs it */
	bool judged;         /* a tree's include and exclude judged it as its walk met it, ... */
	bool left_out;       /* ... and left it out by its own name (a folder may stay for what
			  * it holds) */
	bool host_in_folder; /* @host_path is the folder of the host file, shared by the
			      * files listed from it */
};

/* The text that gives @n its bytes, or NULL. */
static inline const char *content_text(const struct content_node *n)
{
	return n->archive ? NULL : n->text;
}

/* A buffer that holds what content_host_path() and content_origin() make. */
#define CONTENT_HOST_PATH_MAX 4096

/* The host file the bytes of @n come from (NULL: none), made in @buf (@len bytes) when the
 * node keeps it as its folder and name; NULL when it does not fit. */
const char *content_host_path(const struct content_node *n, char *buf, size_t len);

/* Where @n comes from, for messages: its origin, or its host file (made in @buf). */
const char *content_origin(const struct content_node *n, char *buf, size_t len);

/*
 * What a file system can hold of what a partition's content gives it, stated once for each:
 * FAT's here (content_caps_fat, which content_gather() reads), ext4's beside its adapter in
 * the builder (which hands it to content_walk_host() and the archive reader). The readers of
 * host folders and archives read it to keep an entry or refuse it with one line naming it
 * ("a fifo cannot go on a FAT file system"), and read no more of an entry than it holds.
 * What a file system without links makes of a link (a copy of what it leads to, as the
 * tree's `links` says) is content_gather()'s.
 */
struct content_caps {
	const char *name;    /* the file system as messages name it: "FAT", "ext4" */
	uint64_t file_limit; /* a file must be smaller than this many bytes (0: no limit
				 * here; the file system's writer checks its own) */
	bool links;          /* symbolic links as links */
	bool specials;       /* device nodes, fifos and sockets */
	bool owners;         /* an entry's owner and group (else the listing leaves them 0) */
	bool xattrs;         /* extended attributes and POSIX.1e ACLs (else never read) */
	/* A model's path folded the way the file system compares names (a new string, or
	 * NULL when out of memory): two paths it sees as equal get equal keys. NULL for a
	 * file system the model does not serve (ext4). */
	char *(*path_key)(const char *path);
};

/* FAT: folders and regular files smaller than 4 GiB (its sizes are 32-bit), nothing else. */
extern const struct content_caps content_caps_fat;
/* exFAT: folders and regular files of any size (its sizes are 64-bit), nothing else; names
 * compared through its up-case table. */
extern const struct content_caps content_caps_exfat;

/*
 * Whether @caps hold an entry of type @mode (S_IFREG, ...; libarchive's AE_IF* are the same
 * numbers): 0, or -EINVAL with "@host: a fifo cannot go on a FAT file system" in @d (with
 * @name: "@host: @name: a ...", an archive's entry).
 */
int content_caps_check(const struct content_caps *caps, mode_t mode, const char *host,
		       const char *name, struct diag *d);

/*
 * Whether @caps hold a file of @size bytes: 0, or -EINVAL with "@host: @name: @size bytes;
 * a FAT file must be smaller than 4 GiB" in @d.
 */
int content_caps_check_size(const struct content_caps *caps, uint64_t size, const char *host,
			    const char *name, struct diag *d);

/* An archive files come from, as it was when it was listed. */
struct content_archive {
	char *path; /* host path (owned) */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	bool spooled; /* its decompressed bytes are in spool_fd (owned), which the data */
	int spool_fd; /* pass reads instead of the archive */
};

/* A slot of the model's hash index. */
struct content_slot {
	uint32_t node; /* 1 + index of the node (0: empty) */
	uint32_t hash; /* its key's hash: most probes that miss need not read the node */
};

/* The folder the last path added went into. A tree's files come folder by folder, so the
 * next path usually goes into the same one, whose folders need not be resolved again. */
struct content_last_folder {
	size_t source; /* the layout entry that gave the path */
	size_t node;   /* 1 + index of the folder's node (0: the partition's root) */
	char *given;   /* the folder as that entry named it: "/a/b", "" for the root (owned) */
	char *path;    /* as it is in the model (owned) */
	char *key;     /* path folded (owned) */
};

struct content {
	const struct content_caps *caps; /* the file system's (NULL: FAT's) */
	struct content_node *nodes;
	size_t n, cap;
	struct content_slot *index; /* open-addressing hash of the keys */
	uint32_t root_kids; /* 1 + index of the root's most recently added child (0: none) */
	size_t index_cap;
	int64_t implicit_mtime;           /* time of folders created because a path needs them */
	struct content_archive *archives; /* the archives files come from */
	size_t n_archives, cap_archives;
	struct content_last_folder last; /* see content_add() */
	const char *host_dir;            /* the host folder the last file came from (in the
					  * arena), which the next files of that folder share */
	size_t host_dir_len;
	struct arena arena; /* the nodes' strings */
};

/*
 * libarchive is not linked: most commands never read an archive, and it brings a dozen
 * libraries with it. Whoever reads an archive opens this table of its entry points (typed
 * from libarchive's own header, named as libarchive names them) and calls through it:
 * lib->archive_read_new(). One member per function sdimg calls.
 */
#define CONTENT_ARCHIVE_FUNCS(X)               \
	X(archive_entry_acl_next)              \
	X(archive_entry_acl_reset)             \
	X(archive_entry_filetype)              \
	X(archive_entry_gid)                   \
	X(archive_entry_hardlink)              \
	X(archive_entry_mtime)                 \
	X(archive_entry_mtime_is_set)          \
	X(archive_entry_mtime_nsec)            \
	X(archive_entry_pathname)              \
	X(archive_entry_pathname_utf8)         \
	X(archive_entry_perm)                  \
	X(archive_entry_rdevmajor)             \
	X(archive_entry_rdevminor)             \
	X(archive_entry_size)                  \
	X(archive_entry_size_is_set)           \
	X(archive_entry_symlink)               \
	X(archive_entry_uid)                   \
	X(archive_entry_xattr_next)            \
	X(archive_entry_xattr_reset)           \
	X(archive_errno)                       \
	X(archive_error_string)                \
	X(archive_filter_bytes)                \
	X(archive_filter_code)                 \
	X(archive_filter_count)                \
	X(archive_read_data)                   \
	X(archive_read_data_block)             \
	X(archive_read_free)                   \
	X(archive_read_new)                    \
	X(archive_read_next_header)            \
	X(archive_read_open)                   \
	X(archive_read_open2)                  \
	X(archive_read_open_fd)                \
	X(archive_read_open_filename)          \
	X(archive_read_support_filter_all)     \
	X(archive_read_support_filter_bzip2)   \
	X(archive_read_support_filter_lz4)     \
	X(archive_read_support_format_7zip)    \
	X(archive_read_support_format_ar)      \
	X(archive_read_support_format_cab)     \
	X(archive_read_support_format_cpio)    \
	X(archive_read_support_format_empty)   \
	X(archive_read_support_format_iso9660) \
	X(archive_read_support_format_lha)     \
	X(archive_read_support_format_mtree)   \
	X(archive_read_support_format_rar)     \
	X(archive_read_support_format_rar5)    \
	X(archive_read_support_format_raw)     \
	X(archive_read_support_format_tar)     \
	X(archive_read_support_format_warc)    \
	X(archive_read_support_format_xar)     \
	X(archive_read_support_format_zip)     \
	X(archive_set_error)

#define CONTENT_ARCHIVE_MEMBER(name) __typeof__(name) *name;
struct content_archive_lib {
	struct dynlib dl; /* the reference on libarchive (owned) */
	CONTENT_ARCHIVE_FUNCS(CONTENT_ARCHIVE_MEMBER)
};
#undef CONTENT_ARCHIVE_MEMBER

/*
 * Opens libarchive into @lib and resolves every member. Returns 0, or a negative errno
 * with one line in @d for the caller to prefix with its place: "@feature need
 * libarchive.so.13, which cannot be loaded: ..." (or the symbol it lacks); @lib is then
 * closed. @feature names what needs it: "archive trees", "bzip2 and lz4 images".
 */
int content_archive_lib_open(struct content_archive_lib *lib, const char *feature, struct diag *d);

/* Gives back the reference of @lib. Accepts a closed or zeroed table. */
void content_archive_lib_close(struct content_archive_lib *lib);

/*
 * Lets @a (a libarchive reader) read every filter and every archive format libarchive knows
 * but mtree, whose listings name host files: a `tree` source holds its own bytes only.
 */
void content_archive_support(const struct content_archive_lib *lib, struct archive *a);

/*
 * An archive entry's path @raw as every file system takes it: "." and empty names dropped and
 * ".." applied ("./a/", "/a" and "a//b/.." all give "a"), then @strip leading names removed.
 * Returns 0 with the malloc'd result in *@ret ("" for the top itself), 1 when stripping
 * leaves nothing, -EINVAL when ".." climbs out of the top, or -ENOMEM.
 */
int content_archive_norm_path(const char *raw, unsigned strip, char **ret);

/* Asked between archive entries and their data blocks during the data pass: true stops it
 * (-EINTR). */
typedef bool (*content_stop_fn)(void *ctx);

/* An extended attribute of an archive entry. */
struct content_xattr {
	char *name;  /* "user.x", "security.capability", ... (owned) */
	void *value; /* (owned) */
	size_t len;
};

/* A POSIX.1e ACL as Linux keeps it in system.posix_acl_access and _default: its entries in
 * the form ext4/ encodes (a tag, its rwx bits, the uid or gid of a named one). */
struct content_acl {
	struct ext4_acl_entry *v; /* (owned) */
	size_t n;
};

/*
 * One entry of an archive as every file system sees it (archive_read.c), whatever the
 * archive's format: what its header says, its path normalised and stripped. What the file
 * system's caps do not hold is not read: owners stay 0, attributes and ACLs empty.
 */
struct content_archive_item {
	uint64_t number;      /* its place in the archive, counted from 0 */
	const char *name;     /* as the archive spells it (UTF-8 where it can be read so) */
	char *path;           /* content_archive_norm_path() of @name less the tree's strip
			       * names ("" the top); NULL when strip leaves nothing */
	mode_t type;          /* AE_IFREG, AE_IFDIR, ... as the header says (tar gives a hard
			       * link none: 0) */
	const char *hardlink; /* the path it is a hard link to as the archive spells it (NULL:
			       * none; a folder has none, whatever cpio says) */
	const char *symlink;  /* a symbolic link's target (NULL: none given) */
	uint32_t perm;        /* mode & 07777; an access ACL's mask as its group bits */
	uint32_t uid, gid;
	struct timespec mtime;
	bool mtime_set; /* the archive gives a time */
	bool size_set;  /* the archive says how large it is */
	int64_t size;
	uint32_t major, minor;          /* a device node's numbers */
	struct content_xattr *xattrs;   /* its extended attributes (a callback may take them: */
	size_t n_xattrs;                /* set @xattrs NULL) */
	struct content_acl acl_access;  /* its POSIX.1e ACLs, a named user or group's id */
	struct content_acl acl_default; /* looked up on this host where only named */
};

/*
 * The one reader of archives given as `tree` sources, for every file system: a listing pass
 * over the headers (a compressed archive decompressed once, through zlib for gzip, its
 * stream kept in a spool), then, once the file system has placed its files, a data pass
 * (content_archive_data()) that reads the spool, or the archive again, in its own order.
 */
struct content_archive_reader {
	struct content_archive_lib lib;  /* (owned) */
	struct content_archive source;   /* the archive as listed, for the data pass (owned) */
	const struct content_caps *caps; /* what the file system holds (borrowed) */
	unsigned strip;                  /* leading names removed from each path */
	const char *top;                 /* the tree's path in the partition (NULL: "/") */
	struct content_filter *filter;   /* the tree's include and exclude (NULL: none) */
	uint64_t n;                      /* the entries listed */
	uint64_t kept;                   /* those that strip left */
	struct diag *d;
};

/*
 * Whether the include and exclude @f (NULL: none) leave out the archive entry @e before
 * anything looks at it, as a folder's walk judges (host_walk.c): a folder exclude prunes, an
 * entry exclude drops by its own path or a folder above, and a file, device or hard link that
 * include does not take. A folder include does not take may still hold what stays; a
 * symbolic link is judged as what it leads to, once followed. The patterns that match count.
 */
bool content_archive_dropped(struct content_filter *f, const struct content_archive_item *e);

/* Called with each entry in archive order: 0, or a negative errno (its message in the
 * reader's diag) that ends the listing. */
typedef int (*content_archive_item_fn)(void *ctx, struct content_archive_item *e);

/*
 * Opens libarchive into @r (zero-initialised) for a file system with @caps, paths less their
 * first @strip names. Returns 0, or a negative errno with the line of
 * content_archive_lib_open() in @d for the caller to prefix with its place.
 */
int content_archive_reader_open(struct content_archive_reader *r, const struct content_caps *caps,
				unsigned strip, struct diag *d);

/*
 * The listing pass over archive @host: each entry to @fn in archive order. An entry whose
 * name cannot be read, whose path climbs out of the top (..), or whose ACL names a user or
 * group this host does not know is an error here; so is a damaged or truncated archive,
 * named with the last entry read. An archive of no entries lists none (r->n is 0). Returns
 * 0 or a negative errno (messages in r->d); r->source is then ready for the data pass.
 */
int content_archive_list(struct content_archive_reader *r, const char *host,
			 content_archive_item_fn fn, void *ctx);

/* Gives back what @r holds: libarchive, and the spool unless taken from r->source. */
void content_archive_reader_close(struct content_archive_reader *r);

/* An entry the data pass hands out: its number and the size its listing gave. */
struct content_archive_want {
	uint64_t entry;
	uint64_t size;
};

/* The bytes of the entry the data pass is at (archive_read.c). */
struct content_entry_bytes;

/* Called with want[@i] of content_archive_data(): 0, or a negative errno that ends it. */
typedef int (*content_bytes_fn)(void *ctx, size_t i, struct content_entry_bytes *b);

/*
 * The data pass over archive @src, as its listing left it (an archive read again must not
 * have changed since): each of the @n entries of @want (their entry numbers ascending, each
 * once) to @fn as the archive reaches it. An entry whose size is not the one listed, or an
 * archive that ends before the last one, is an error. @stop (may be NULL) is asked between
 * entries and after each data block. Returns 0 or a negative errno with a message in @d.
 */
int content_archive_data(const struct content_archive_lib *lib, const struct content_archive *src,
			 const struct content_archive_want *want, size_t n, content_bytes_fn fn,
			 void *ctx, content_stop_fn stop, void *stop_ctx, struct diag *d);

/*
 * The next data block of entry @b: 1 with its bytes in *@buf (valid until the next call),
 * *@len of them at byte *@off of the entry; 0 at its end; or a negative errno with a message
 * (a block past the entry's size, a damaged archive; -EINTR when asked to stop).
 */
int content_entry_block(struct content_entry_bytes *b, const void **buf, size_t *len,
			uint64_t *off);

/*
 * The next bytes of entry @ctx (a struct content_entry_bytes), at most @len, in order, its
 * holes as zeros (a sparse entry's blocks come at their offsets, none for a hole at its
 * end, which this fills for as long as it is asked) into @buf: how many, or a negative errno
 * with a message. A reader for ext4_write_data(), which asks for the entry's size.
 */
long content_entry_read(void *ctx, void *buf, size_t len);

/*
 * The include and exclude patterns of tree entry @e (LAYOUT.md, "Filters"), for FAT and
 * ext4 trees alike, with how often each pattern matched an entry.
 */
struct content_filter {
	const struct layout_entry *e; /* borrowed */
	size_t *include_hits;         /* one count per pattern (owned) */
	size_t *exclude_hits;
};

/* Starts @f on the patterns of @e: 0 or -ENOMEM. */
int content_filter_init(struct content_filter *f, const struct layout_entry *e);

/*
 * Whether the entry at @rel (its path from the tree's top, after strip: "a/b", no leading
 * '/'; a folder when @is_dir) stays by its own name: a pattern of include matches it or a
 * folder above it (or there is no include), and no pattern of exclude does. Each pattern
 * that matches @rel itself counts a hit. Whether a folder holds something that stays is
 * the caller's to say.
 */
bool content_filter_takes(struct content_filter *f, const char *rel, bool is_dir);

/*
 * Whether the entry at @rel is left out whatever it turns out to be (a symbolic link not yet
 * followed, which may lead to a file or a folder): an exclude pattern matches it, judged as a
 * file, or a folder above it. Only then is it judged (content_filter_takes() as a file: its
 * hits counted), so that it need never be looked at further.
 */
bool content_filter_drops(struct content_filter *f, const char *rel);

/*
 * Whether the folder at @rel is left out with all it holds: an exclude pattern matches it as
 * a folder, or a folder above it (exclude wins, so nothing below can stay). It is then
 * judged (its hits counted) and need never be opened.
 */
bool content_filter_prunes(struct content_filter *f, const char *rel);

/*
 * Paths from a tree's top ("a/b") compared in the order a folder's walk meets them: name by
 * name, each folder's names by their bytes, a folder right before what it holds. Returns
 * < 0, 0 or > 0, as strcmp().
 */
int content_walk_compare(const char *a, const char *b);

/*
 * What @f, a tree's include and exclude, leaves out of the @n entries of an archive whose
 * paths @paths are in walk order (content_walk_compare(); one path twice in archive order),
 * in left_out[i]: each judged by its own path (a folder when is_dir[i]; a link as a file)
 * and the folders no entry gives (an archive need not list them) once, at the first entry
 * below them, so that the patterns count what a folder's walk counts; then a listed folder
 * that holds something that stays stays. The top ("") always stays.
 */
void content_archive_judge(struct content_filter *f, const char *const *paths, const bool *is_dir,
			   bool *left_out, size_t n);

/* One warning in @d per pattern that counted no hit, starting with @place:
 * "<place>include pattern '*.dbt' matches nothing in <from>". */
void content_filter_warn(const struct content_filter *f, const char *place, struct diag *d);

void content_filter_release(struct content_filter *f);

/*
 * The one walk of a host folder, for every file system (host_walk.c), which then writes what
 * it makes of each entry rather than a walk of its own: each folder's names sorted by their
 * bytes, a folder before what it holds, each entry judged by the tree's include and exclude
 * by its own name before it is examined (what they leave out is never followed nor checked).
 * A folder left out by include is walked too: a name in it may stay, and the patterns count
 * what they match.
 */
struct content_walk_entry {
	int dirfd;             /* the folder that holds it, open */
	const char *name;      /* its name there */
	const char *host;      /* its host path, for messages */
	const char *rel;       /* its path from the tree's top: "a/b" */
	const struct stat *st; /* the entry itself (lstat: a link is the link), or what its
				* link leads to where the walk follows links */
	bool takes;            /* the filters keep it by its own name (always without them) */
};

struct content_walk_ops {
	/* A folder, open at @fd while the walk is below it, before what it holds (@up: what
	 * the caller made of the folder holding it): what the caller makes of it in *@ret, for
	 * the entries inside. 0, or a negative errno (message in the walk's diag) that ends
	 * the walk, the caller having freed what it made. */
	int (*folder)(void *ctx, void *up, const struct content_walk_entry *e, int fd, void **ret);
	/* The walk is done below @folder, which the caller may free (NULL: nothing to do). */
	void (*folder_done)(void *ctx, void *folder);
	/* Anything but a folder, in @folder: 0 or a negative errno. */
	int (*entry)(void *ctx, void *folder, const struct content_walk_entry *e);
	/* Asked after each entry: true stops the walk (-EINTR). NULL: never. */
	bool (*stop)(void *ctx);
	/* What the file system holds: an entry it cannot hold that the walk takes is an
	 * error of the walk's. */
	const struct content_caps *caps;
	/* Symbolic links are followed as the tree's `links` says, each a copy of what it
	 * leads to, judged as that (a file system without links: FAT); a loop is an error, the
	 * copies links make are bounded, and an entry that folder links reach by many paths is
	 * told once, with their number. Else each link is given as it is, judged as a file. */
	bool follows_links;
	/* What the filters leave out is given too (takes false; never checked against @caps),
	 * and a folder exclude drops is walked all the same: a file system that keeps hard
	 * links writes a file's bytes where its first name comes, left out or not (ext4).
	 * Else it is never examined, and such a folder never opened. */
	bool sees_left_out;
	/* The caller keeps a model of the tree, written later (FAT): the walk goes on past an
	 * entry that failed, so that each problem is told (it stops on running out of memory
	 * or past the bound on copies), and the model refuses a path too deep. Else the first
	 * error ends the walk, which refuses a folder more than CONTENT_MAX_DEPTH deep. */
	bool keeps_model;
};

/*
 * Walks the host folder open at @fd (closed here), named @host, the caller's @top, with the
 * include and exclude of @filter (NULL: none), following symbolic links as @links says where
 * @ops follow links. Returns 0 or a negative errno (its messages in @d): a folder that
 * cannot be read, a tree too deep, a link `links` refuses, an entry @ops->caps cannot hold,
 * or what @ops said (-EINVAL when a model's walk met problems, -E2BIG past the bound on
 * copies).
 */
int content_walk_host(int fd, const char *host, enum layout_links links, void *top,
		      struct content_filter *filter, const struct content_walk_ops *ops, void *ctx,
		      struct diag *d);

/*
 * The one rule of stored times, for every file system: the time image.mtime @im gives an
 * entry whose own mtime is @ts (NULL: it has none, as a layout's text or dir entry): the
 * image's timestamp for mtime = fixed or no time of its own; with SOURCE_DATE_EPOCH, a time
 * at or after it clamped to it; else @ts itself. Its nanoseconds go to *@ret_ns (0 unless
 * @ts is kept).
 */
int64_t content_mtime(const struct layout_image *im, const struct timespec *ts, uint32_t *ret_ns);

/*
 * Gathers the entries of FAT or exFAT partition @p of layout @l into @c (zero-initialised),
 * compared and checked as the partition's file system does (c->caps).
 * Host paths are looked up with layout_input_path(). Timestamps follow image.mtime.
 * Returns 0 or a negative errno with one message per problem in @d.
 */
int content_gather(const struct layout *l, const struct layout_partition *p, struct content *c,
		   struct diag *d);

void content_release(struct content *c);

/*
 * Frees the strings of node @i of @c that only the listing and the making of fat/'s tree
 * needed (all but the path of a file from an archive, which the data pass reads). Once a
 * node is shed, @c can no longer be added to or searched; content_release() still frees it.
 */
void content_shed(struct content *c, size_t i);

/* Frees the index of @c's paths: @c can then no longer be added to or searched. For a
 * caller done with the model, before it holds anything else. */
void content_drop_index(struct content *c);

/*
 * Frees the last node of @c, and memory the node array no longer needs. For a caller done
 * with the model that takes it apart from the end (a model without archives: the data
 * pass reads nothing of it). @c can then no longer be added to or searched.
 */
void content_drop_last(struct content *c);

/*
 * The data pass: the file system's writer has placed every file of @c in the volume @vol,
 * written at byte @vol_offset of the image @fd (named @image in messages), and written
 * everything but the bytes of the files that come from archives; @place says where each
 * file's bytes go (they lie contiguous). This reads each archive once more (a
 * compressed one from its spool, decompressed), in its own order, and writes every entry's
 * bytes where @vol put them; all-zero blocks stay holes. @stop (may be NULL) is asked
 * between entries and after each data block. An archive read again that changed since it
 * was listed is an error. Returns 0 or a negative errno with a message in @d.
 */
/* Where the file @path (as the model has it) of the volume @vol starts: its byte offset from
 * the volume's start in *@ret; 0, or a negative errno when the volume has no such file. */
typedef int (*content_place_fn)(const void *vol, const char *path, uint64_t *ret);

int content_write_archive_data(const struct content *c, content_place_fn place, const void *vol,
			       int fd, uint64_t vol_offset, const char *image, content_stop_fn stop,
			       void *stop_ctx, struct diag *d);

#endif
