/* SPDX-License-Identifier: MIT */
/* ext4_archive: a tree entry's archive into an ext4 volume, from the entries of the archive
 * reader (contents.h): the listing's entries become inodes in the order a folder's walk makes
 * them (each folder's names sorted byte-wise, a folder before what it holds), then the data
 * pass gives each file's bytes to its inode. An archive made with its names sorted (tar
 * --sort=name) of a folder thus gives the image the folder gives, where owners agree. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ext4/ext4.h"
#include "mkimage/builder/builder_priv.h"
#include "mkimage/contents/contents.h"

/* One archive entry as its header says. */
struct item {
	char *path;    /* inside the partition, no leading or trailing '/' ("" the top) */
	unsigned type; /* AE_IFREG, AE_IFDIR, ... (0: a hard link) */
	struct ext4_meta m;
	uint64_t size;
	uint64_t listed; /* the size its own header gives */
	uint32_t major, minor;
	char *target; /* symbolic link's target, or hard link's path (normalised) */
	struct content_xattr *xattrs;
	size_t n_xattrs;
	uint32_t ino;  /* once made */
	bool has_data; /* its bytes are in this entry */
	bool skipped;  /* strip left nothing of its path */
	bool left_out; /* by the tree's include and exclude */
};

struct listing {
	struct ext4_walk *w;
	const char *host;
	struct item *v; /* v[k] is entry k of the archive */
	size_t n, cap;
};

static void free_listing(struct listing *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].target);
		for (size_t k = 0; k < l->v[i].n_xattrs; k++) {
			free(l->v[i].xattrs[k].name);
			free(l->v[i].xattrs[k].value);
		}
		free(l->v[i].xattrs);
	}
	free(l->v);
}

/* A hard link's target @raw as it goes into the partition, less the tree's strip names, in
 * *@ret. Returns 0, 1 when strip leaves nothing, or a negative errno with a message. */
static int target_path(struct ext4_walk *w, const char *host, const char *raw, char **ret)
{
	int rc = content_archive_norm_path(raw, w->e->strip, ret);

	if (rc == -EINVAL)
		return diag_error(w->b->d, "%s: %s: the entry's path leaves the partition (..)",
				  host, raw);
	return rc;
}

/* The entry's ACL @acl (read when it has one) as the attribute @xname, after the others. */
static int take_acl(struct ext4_walk *w, const char *host, const struct content_archive_item *e,
		    struct item *it, struct content_acl *acl, const char *xname)
{
	struct content_xattr x = { .name = strdup(xname) };
	int rc = x.name ? ext4_acl_xattr(acl->v, acl->n, &x.value, &x.len) : -ENOMEM;
	struct content_xattr *more = rc == 0 ? realloc(it->xattrs,
						       (it->n_xattrs + 1) * sizeof(*more))
					     : NULL;

	if (more) {
		it->xattrs = more;
		it->xattrs[it->n_xattrs++] = x;
	} else {
		free(x.name);
		free(x.value);
	}
	if (rc == -EINVAL)
		return diag_error(w->b->d, "%s: %s: its %s is not an ACL Linux takes", host,
				  e->name, xname);
	return rc < 0 ? rc : more ? 0 : -ENOMEM;
}

/* The entry's attributes, then its POSIX.1e ACLs as the attributes Linux keeps them in. */
static int take_xattrs(struct ext4_walk *w, const char *host, struct content_archive_item *e,
		       struct item *it)
{
	int rc = 0;

	it->xattrs = e->xattrs;
	it->n_xattrs = e->n_xattrs;
	e->xattrs = NULL;
	e->n_xattrs = 0;
	if (e->acl_access.v)
		rc = take_acl(w, host, e, it, &e->acl_access, "system.posix_acl_access");
	if (rc == 0 && e->acl_default.v)
		rc = take_acl(w, host, e, it, &e->acl_default, "system.posix_acl_default");
	return rc;
}

/* Whether @type (AE_IFREG, ...) is one an ext4 inode can have. */
static bool type_ext4_has(unsigned type)
{
	return type == AE_IFREG || type == AE_IFDIR || type == AE_IFLNK || type == AE_IFCHR ||
	       type == AE_IFBLK || type == AE_IFIFO || type == AE_IFSOCK;
}

static int list_item(struct listing *l, struct content_archive_item *ae, struct item *it)
{
	struct ext4_walk *w = l->w;
	const struct layout_entry *e = w->e;
	const char *hard = ae->hardlink, *host = l->host, *name = ae->name;
	int rc;

	it->skipped = !ae->path;
	if (it->skipped)
		return 0;
	if (strlen(ae->path) > CONTENT_MAX_PATH)
		return diag_error(w->b->d, "%s: %s: the entry's path is longer than %d bytes", host,
				  name, CONTENT_MAX_PATH);
	if (!(it->path = strdup(ae->path)))
		return -ENOMEM;
	it->type = hard ? 0 : ae->type;
	if (!hard && !type_ext4_has(it->type)) /* type 0 means a hard link here */
		return diag_error(w->b->d, "%s:%d: tree '%s': %s: '%s' is of a type ext4 has not",
				  e->loc.file, e->loc.line, e->path, host, name);
	bool root = e->owners == LAYOUT_OWNERS_ROOT;
	it->m.uid = e->owner_set ? e->owner : root ? 0 : ae->uid;
	it->m.gid = e->group_set ? e->group : root ? 0 : ae->gid;
	it->m.perm = ae->perm;
	it->m.mtime = content_mtime(&w->b->l->image, ae->mtime_set ? &ae->mtime : NULL,
				    &it->m.mtime_ns);
	if (it->type == AE_IFREG && !ae->size_set)
		return diag_error(w->b->d, "%s: %s: the archive does not say how large it is", host,
				  name);
	it->size = ae->size_set && ae->size > 0 ? (uint64_t)ae->size : 0;
	it->listed = it->size;
	it->major = ae->major;
	it->minor = ae->minor;
	it->has_data = it->type == AE_IFREG && it->size > 0;
	if (hard && (rc = target_path(w, host, hard, &it->target)) < 0)
		return rc;
	if (hard && rc == 1)
		return diag_error(w->b->d, "%s: '%s' is a hard link to '%s', which strip removes",
				  host, name, hard);
	if (!hard && it->type == AE_IFLNK && !(it->target = strdup(ae->symlink ? ae->symlink : "")))
		return -ENOMEM;
	if (it->type == 0) /* a hard link that carries the bytes (pax, cpio) */
		it->has_data = it->size > 0;
	return take_xattrs(w, host, ae, it);
}

/* Entry @ae of the listing into l->v. */
static int list_entry(void *ctx, struct content_archive_item *ae)
{
	struct listing *l = ctx;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256;
		struct item *v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	memset(&l->v[l->n], 0, sizeof(l->v[l->n]));
	int rc = list_item(l, ae, &l->v[l->n++]);
	return rc == 0 && build_interrupted(l->w->b) ? -EINTR : rc;
}

/* Items in walk order (content_walk_compare()), one path twice in archive order. */
static int compare_items(const void *x, const void *y)
{
	const struct item *a = *(struct item *const *)x, *b = *(struct item *const *)y;
	int c = content_walk_compare(a->path, b->path);
	return c ? c : a < b ? -1 : a > b; /* the same path twice: archive order */
}

static struct item *find_item(struct item **sorted, size_t n, const char *path)
{
	size_t lo = 0, hi = n;
	struct item *found = NULL;

	while (lo < hi) { /* the last of equal paths: the one a later entry gave */
		size_t mid = (lo + hi) / 2;
		int c = content_walk_compare(sorted[mid]->path, path);
		if (c <= 0)
			lo = mid + 1;
		if (c == 0)
			found = sorted[mid];
		if (c > 0)
			hi = mid;
	}
	return found;
}

/* The folder holding @it, and its last name; @full is the path in the partition. */
static int parent_of(struct ext4_walk *w, const struct item *it, char *full, size_t n,
		     uint32_t *dir, const char **name)
{
	const char *top = strcmp(w->e->path, "/") ? w->e->path : "";
	snprintf(full, n, "%s/%s", top, it->path);
	char *slash = strrchr(full, '/');
	*slash = '\0';
	int rc = build_ext4_folder_at(w, *full ? full : "/", dir);
	*slash = '/';
	*name = slash + 1;
	return rc;
}

/* The attributes of @it, messages naming it in the archive @host. */
static int set_xattrs(struct ext4_walk *w, const struct item *it, const char *host)
{
	char *what = NULL;
	int rc = 0;

	if (it->n_xattrs &&
	    asprintf(&what, "%s:%d: tree '%s': %s: %s", w->e->loc.file, w->e->loc.line, w->e->path,
		     host, *it->path ? it->path : ".") < 0)
		return -ENOMEM;
	for (size_t k = 0; rc == 0 && k < it->n_xattrs; k++)
		rc = ext4_set_xattr(w->v, it->ino, it->xattrs[k].name, it->xattrs[k].value,
				    it->xattrs[k].len, what);
	free(what);
	return rc;
}

/* The inode of @it (anything but a hard link) named @name in the folder @dir; @full is its
 * path in the partition. */
static int make_node(struct ext4_walk *w, struct item *it, uint32_t dir, const char *name,
		     const char *full, const char *host)
{
	switch (it->type) {
	case AE_IFDIR:
		return ext4_add_dir(w->v, dir, name, &it->m, full, &it->ino);
	case AE_IFREG:
		return ext4_add_file(w->v, dir, name, &it->m, it->size, NULL, NULL, full, &it->ino);
	case AE_IFLNK:
		return ext4_add_symlink(w->v, dir, name, &it->m, it->target, full, &it->ino);
	case AE_IFCHR:
	case AE_IFBLK:
	case AE_IFIFO:
	case AE_IFSOCK: {
		enum ext4_special k = it->type == AE_IFCHR   ? EXT4_CHAR
				      : it->type == AE_IFBLK ? EXT4_BLOCK
				      : it->type == AE_IFIFO ? EXT4_FIFO
							     : EXT4_SOCKET;
		return ext4_add_special(w->v, dir, name, &it->m, k, it->major, it->minor, full,
					&it->ino);
	}
	default:
		return diag_error(w->b->d, "%s: '%s' is of a type ext4 has not", host, it->path);
	}
}

/*
 * A hard link. When the filters left out the name it links to and no other name of that
 * file is made yet, this one is that file: its inode made here as the entry of the name
 * left out says (owner, mode, attributes), its bytes written from that entry.
 */
static int make_link(struct ext4_walk *w, struct item **sorted, size_t n, struct item *it,
		     uint32_t dir, const char *name, const char *full, const char *host)
{
	struct item *t = find_item(sorted, n, it->target);
	int rc;

	if (t && t->left_out && !t->ino && t->type != 0 && t->type != AE_IFDIR) {
		if ((rc = make_node(w, t, dir, name, full, host)) == 0)
			rc = set_xattrs(w, t, host);
		it->ino = t->ino;
		return rc;
	}
	if (t == it)
		return diag_error(w->b->d,
				  "%s:%d: tree '%s': %s: '%s' is a hard link to itself "
				  "(the same path twice)",
				  w->e->loc.file, w->e->loc.line, w->e->path, host, it->path);
	if (!t)
		return diag_error(w->b->d,
				  "%s:%d: tree '%s': %s: '%s' is a hard link to '%s', "
				  "which is not in this archive (hard links reach only "
				  "within one tree)",
				  w->e->loc.file, w->e->loc.line, w->e->path, host, it->path,
				  it->target);
	if (!t->ino || t->type == AE_IFDIR)
		return diag_error(w->b->d,
				  "%s: '%s' is a hard link to '%s', which is not a "
				  "file before it",
				  host, it->path, it->target);
	it->ino = t->ino;
	return ext4_add_hard_link(w->v, dir, name, t->ino, full);
}

static int make_item(struct ext4_walk *w, struct item **sorted, size_t n, struct item *it,
		     const char *host)
{
	char full[CONTENT_MAX_PATH * 2 + 2];
	const char *name;
	uint32_t dir;
	int rc;

	if (!*it->path) { /* the top folder itself */
		if ((rc = build_ext4_folder_at(w, w->e->path, &dir)) == 0)
			rc = ext4_add_dir(w->v, dir, NULL, &it->m, host, &it->ino);
		return rc;
	}
	if ((rc = parent_of(w, it, full, sizeof(full), &dir, &name)) < 0)
		return rc;
	return it->type == 0 ? make_link(w, sorted, n, it, dir, name, full, host)
			     : make_node(w, it, dir, name, full, host);
}

/*
 * Inodes in walk order; hard links whose file comes later in that order after the rest (but
 * for one to a name left out: the first of them in walk order makes the file, as a folder's
 * walk does). A hard link left out whose entry carries the file's bytes (pax, cpio) still
 * gives them to the file.
 */
static int make_inodes(struct ext4_walk *w, struct item **sorted, size_t n, const char *host)
{
	int rc = 0;

	for (int late = 0; late < 2; late++)
		for (size_t i = 0; rc == 0 && i < n; i++) {
			struct item *it = sorted[i];
			const struct item *t = it->type == 0 ? find_item(sorted, n, it->target)
							     : NULL;
			bool is_late = it->type == 0 &&
				       (!t || (!t->left_out && compare_items(&t, &sorted[i]) > 0));
			if (it->left_out || is_late != (late == 1) || (it->type == 0 && it->ino))
				continue;
			rc = make_item(w, sorted, n, it, host);
			if (rc == 0 && it->type != 0)
				rc = set_xattrs(w, it, host);
			if (rc == 0 && build_interrupted(w->b))
				rc = -EINTR;
		}
	for (size_t i = 0; rc == 0 && i < n; i++) {
		struct item *it = sorted[i];
		const struct item *t = it->left_out && it->type == 0 && it->has_data
					       ? find_item(sorted, n, it->target)
					       : NULL;
		if (t && t->type != AE_IFDIR)
			it->ino = t->ino;
	}
	return rc;
}

/*
 * A hard link whose entry carries the file's bytes gives the file its size: cpio's newc
 * format gives a file of many names no bytes at its first name and all of them at its last.
 */
static void sizes_from_links(struct item **sorted, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct item *t = sorted[i]->type == 0 && sorted[i]->has_data
					 ? find_item(sorted, n, sorted[i]->target)
					 : NULL;
		if (t && t->type == AE_IFREG && t->size < sorted[i]->size)
			t->size = sorted[i]->size;
	}
}

/* Which items the tree's include and exclude leave out, judged in walk order (@sorted) as a
 * folder's walk judges. Returns 0 or -ENOMEM. */
static int judge_items(struct ext4_walk *w, struct item **sorted, size_t n)
{
	const char **paths = malloc((n ? n : 1) * sizeof(*paths));
	bool *is_dir = malloc(n ? n : 1), *left_out = malloc(n ? n : 1);
	int rc = paths && is_dir && left_out ? 0 : -ENOMEM;

	for (size_t i = 0; rc == 0 && i < n; i++) {
		paths[i] = sorted[i]->path;
		is_dir[i] = sorted[i]->type == AE_IFDIR;
	}
	if (rc == 0)
		content_archive_judge(w->filter, paths, is_dir, left_out, n);
	for (size_t i = 0; rc == 0 && i < n; i++)
		sorted[i]->left_out = left_out[i];
	free(paths);
	free(is_dir);
	free(left_out);
	return rc;
}

/*
 * A path that two entries (not folders, not hard links) that stay give: ext4 takes one entry
 * a path, where FAT keeps the later (LAYOUT.md, "Archives"). @sorted is in walk order, so the
 * two are neighbours.
 */
static int check_twice(const struct ext4_walk *w, struct item **sorted, size_t n, const char *host)
{
	for (size_t i = 1; i < n; i++) {
		const struct item *a = sorted[i - 1], *b = sorted[i];
		if (a->left_out || b->left_out || !a->type || !b->type ||
		    (a->type == AE_IFDIR && b->type == AE_IFDIR) || strcmp(a->path, b->path))
			continue;
		return diag_error(w->b->d,
				  "%s:%d: tree '%s': %s: '%s' is in the archive twice, and ext4 "
				  "takes one entry a path",
				  w->e->loc.file, w->e->loc.line, w->e->path, host, b->path);
	}
	return 0;
}

/* The data pass: the listing's items, and the items of the entries it hands out. */
struct data_pass {
	struct ext4_walk *w;
	struct item **of; /* of[i]: the item of want[i] */
};

/* The bytes of want[@i], entry @b, into its inode. */
static int write_item(void *ctx, size_t i, struct content_entry_bytes *b)
{
	struct data_pass *dp = ctx;

	return ext4_write_data(dp->w->v, dp->of[i]->ino, content_entry_read, b, dp->of[i]->path);
}

static bool data_stops(void *ctx)
{
	return build_interrupted(((struct ext4_walk *)ctx)->b);
}

/* The second pass: each file's bytes into its inode, in the archive's order. */
static int write_data(struct ext4_walk *w, struct content_archive_reader *r, struct listing *l)
{
	struct content_archive_want *want = malloc((l->n ? l->n : 1) * sizeof(*want));
	struct data_pass dp = { .w = w, .of = malloc((l->n ? l->n : 1) * sizeof(*dp.of)) };
	size_t n = 0;
	int rc = want && dp.of ? 0 : -ENOMEM;

	for (size_t i = 0; rc == 0 && i < l->n; i++)
		if (l->v[i].has_data && l->v[i].ino && !l->v[i].skipped) {
			want[n] = (struct content_archive_want){ i, l->v[i].listed };
			dp.of[n++] = &l->v[i];
		}
	if (rc == 0)
		rc = content_archive_data(&r->lib, &r->source, want, n, write_item, &dp, data_stops,
					  w, w->b->d);
	free(want);
	free(dp.of);
	return rc;
}

/* In a trial: the blocks of every file, in the order write_data() writes them. */
static int take_blocks(struct ext4_walk *w, const struct listing *l)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < l->n; i++) {
		const struct item *it = &l->v[i];
		if (it->has_data && it->ino && !it->skipped)
			rc = ext4_take_blocks(w->v, it->ino, it->path);
	}
	return rc;
}

/* The archive reader for ext4 into @r, or one line naming the tree's FILE:LINE. */
static int open_reader(struct ext4_walk *w, struct content_archive_reader *r)
{
	size_t first = w->b->d->n;
	char *place = NULL;
	int rc = content_archive_reader_open(r, &build_ext4_caps, w->e->strip, w->b->d);

	r->top = w->e->path;
	r->filter = w->filter;
	if (rc < 0 &&
	    asprintf(&place, "%s:%d: tree '%s': ", w->e->loc.file, w->e->loc.line, w->e->path) >= 0)
		diag_prefix(w->b->d, first, place);
	free(place);
	return rc;
}

int build_ext4_archive(struct ext4_walk *w, const char *host)
{
	struct content_archive_reader r = { .source.spool_fd = -1 };
	struct listing l = { .w = w, .host = host };
	struct item **sorted = NULL;
	int rc = open_reader(w, &r);

	if (rc == 0)
		rc = content_archive_list(&r, host, list_entry, &l);
	if (rc == 0 && !(sorted = malloc((l.n ? l.n : 1) * sizeof(*sorted))))
		rc = -ENOMEM;
	size_t n = 0;
	for (size_t i = 0; rc == 0 && i < l.n; i++)
		if (!l.v[i].skipped)
			sorted[n++] = &l.v[i];
	if (rc == 0 && n == 0 && l.n && w->e->strip)
		diag_warning(w->b->d, "%s:%d: tree '%s': strip = %u leaves nothing of %s",
			     w->e->loc.file, w->e->loc.line, w->e->path, w->e->strip, host);
	if (rc == 0) {
		qsort(sorted, n, sizeof(*sorted), compare_items);
		sizes_from_links(sorted, n);
		if (w->filter)
			rc = judge_items(w, sorted, n);
		if (rc == 0)
			rc = check_twice(w, sorted, n, host);
		if (rc == 0)
			rc = make_inodes(w, sorted, n, host);
	}
	if (rc == 0 && ext4_measuring(w->v)) /* a trial: not decompressed again each time */
		rc = take_blocks(w, &l);
	else if (rc == 0)
		rc = write_data(w, &r, &l);
	free(sorted);
	free_listing(&l);
	content_archive_reader_close(&r);
	return rc;
}
