/* SPDX-License-Identifier: MIT */
/*
 * archive_read: the one reader of archives for every file system (contents.h). The listing
 * pass turns each header into a struct content_archive_item, keeping what the file
 * system's caps hold (owners, attributes, ACLs), and hands it on in archive order; the data
 * pass reads the archive once more (a compressed one from the spool its listing left,
 * archive_spool.c) and hands out the bytes of the entries the file system asks for.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mkimage/contents/contents_priv.h"

int content_archive_reader_open(struct content_archive_reader *r, const struct content_caps *caps,
				unsigned strip, struct diag *d)
{
	*r = (struct content_archive_reader){ .caps = caps, .strip = strip, .d = d };
	r->source.spool_fd = -1;
	return content_archive_lib_open(&r->lib, "archive trees", d);
}

void content_archive_reader_close(struct content_archive_reader *r)
{
	free(r->source.path);
	if (r->source.spooled)
		close(r->source.spool_fd);
	content_archive_lib_close(&r->lib);
	*r = (struct content_archive_reader){ .source.spool_fd = -1 };
}

/* ---- the listing pass ---- */

static void free_entry(struct content_archive_item *e)
{
	free(e->path);
	for (size_t k = 0; k < e->n_xattrs; k++) {
		free(e->xattrs[k].name);
		free(e->xattrs[k].value);
	}
	free(e->xattrs);
	free(e->acl_access.v);
	free(e->acl_default.v);
}

static int read_xattrs(const struct content_archive_lib *lib, struct archive_entry *ae,
		       struct content_archive_item *e)
{
	const char *name;
	const void *value;
	size_t len, n = (size_t)lib->archive_entry_xattr_reset(ae);

	if (!n)
		return 0;
	if (!(e->xattrs = calloc(n, sizeof(*e->xattrs))))
		return -ENOMEM;
	while (e->n_xattrs < n &&
	       lib->archive_entry_xattr_next(ae, &name, &value, &len) == ARCHIVE_OK) {
		struct content_xattr *x = &e->xattrs[e->n_xattrs++];
		if (!(x->name = strdup(name)) || !(x->value = malloc(len ? len : 1)))
			return -ENOMEM;
		memcpy(x->value, value, len);
		x->len = len;
	}
	return 0;
}

/* Linux's tag of libarchive's POSIX.1e ACL tag @tag (0: another). */
static uint16_t acl_tag(int tag)
{
	switch (tag) {
	case ARCHIVE_ENTRY_ACL_USER_OBJ:
		return EXT4_ACL_USER_OBJ;
	case ARCHIVE_ENTRY_ACL_USER:
		return EXT4_ACL_USER;
	case ARCHIVE_ENTRY_ACL_GROUP_OBJ:
		return EXT4_ACL_GROUP_OBJ;
	case ARCHIVE_ENTRY_ACL_GROUP:
		return EXT4_ACL_GROUP;
	case ARCHIVE_ENTRY_ACL_MASK:
		return EXT4_ACL_MASK;
	case ARCHIVE_ENTRY_ACL_OTHER:
		return EXT4_ACL_OTHER;
	default:
		return 0;
	}
}

/*
 * The uid or gid of a named user or group of an ACL entry that gives its name only (GNU tar
 * stores "user:NAME:rwx" without the number, bsdtar both): a name of digits is that number,
 * another is looked up on this host, as tar does when it extracts. Returns 0 or -ENOENT.
 */
static int acl_id(const char *name, bool is_user, uint32_t *ret)
{
	char buf[4096], *end;
	struct passwd pw, *pwp = NULL;
	struct group gr, *grp = NULL;

	if (!name || !*name)
		return -ENOENT;
	errno = 0;
	unsigned long n = strtoul(name, &end, 10);
	if (!*end && !errno && n < UINT32_MAX && *name != '-') {
		*ret = (uint32_t)n;
		return 0;
	}
	if (is_user && getpwnam_r(name, &pw, buf, sizeof(buf), &pwp) == 0 && pwp) {
		*ret = (uint32_t)pwp->pw_uid;
		return 0;
	}
	if (!is_user && getgrnam_r(name, &gr, buf, sizeof(buf), &grp) == 0 && grp) {
		*ret = (uint32_t)grp->gr_gid;
		return 0;
	}
	return -ENOENT;
}

/*
 * The entry's ACL of @type (access or default) into @acl, where it has one (GNU tar --acls,
 * bsdtar --acls: libarchive gives ACL entries, not attributes); @xname names it in messages.
 * An access ACL's mask is the group bits of the mode, as Linux keeps them (acl(5));
 * libarchive gives the owning group's entry there.
 */
static int read_acl(const struct content_archive_reader *r, const char *host,
		    struct archive_entry *ae, struct content_archive_item *e, int type,
		    struct content_acl *acl, const char *xname)
{
	const struct content_archive_lib *lib = &r->lib;
	int n = lib->archive_entry_acl_reset(ae, type), t, perm, tag, id;
	const char *name;

	if (n <= 0)
		return 0;
	if (!(acl->v = calloc((size_t)n, sizeof(*acl->v))))
		return -ENOMEM;
	while (acl->n < (size_t)n &&
	       lib->archive_entry_acl_next(ae, type, &t, &perm, &tag, &id, &name) == ARCHIVE_OK) {
		struct ext4_acl_entry *x = &acl->v[acl->n++];
		*x = (struct ext4_acl_entry){ acl_tag(tag), (uint16_t)(perm & 7), (uint32_t)id };
		bool named = tag == ARCHIVE_ENTRY_ACL_USER || tag == ARCHIVE_ENTRY_ACL_GROUP;
		if (named && id < 0 && acl_id(name, tag == ARCHIVE_ENTRY_ACL_USER, &x->id) < 0)
			return diag_error(r->d,
					  "%s: %s: its %s names the %s '%s', which this host "
					  "does not know",
					  host, e->name, xname,
					  tag == ARCHIVE_ENTRY_ACL_USER ? "user" : "group",
					  name ? name : "");
		if (tag == ARCHIVE_ENTRY_ACL_MASK && type == ARCHIVE_ENTRY_ACL_TYPE_ACCESS)
			e->perm = (e->perm & ~070u) | (uint32_t)(perm & 7) << 3;
	}
	return 0;
}

/* The entry's POSIX.1e ACLs; an NFSv4 ACL (zip, tar of FreeBSD or macOS) is none that a
 * file system of Linux holds. */
static int read_acls(const struct content_archive_reader *r, const char *host,
		     struct archive_entry *ae, struct content_archive_item *e)
{
	if (r->lib.archive_entry_acl_reset(ae, ARCHIVE_ENTRY_ACL_TYPE_NFS4) > 0)
		return diag_error(r->d, "%s: %s: an NFSv4 ACL, which %s cannot hold", host, e->name,
				  r->caps->name);
	int rc = read_acl(r, host, ae, e, ARCHIVE_ENTRY_ACL_TYPE_ACCESS, &e->acl_access,
			  "system.posix_acl_access");
	return rc < 0 ? rc
		      : read_acl(r, host, ae, e, ARCHIVE_ENTRY_ACL_TYPE_DEFAULT, &e->acl_default,
				 "system.posix_acl_default");
}

/* The header @ae, entry number r->n, as every file system sees it, into @e. */
static int read_entry(const struct content_archive_reader *r, const char *host,
		      struct archive_entry *ae, struct content_archive_item *e)
{
	const struct content_archive_lib *lib = &r->lib;

	e->number = r->n;
	e->name = content_archive_entry_name(lib, ae);
	e->type = lib->archive_entry_filetype(ae);
	/* cpio names a folder listed twice a hard link to itself (the same inode number); a
	 * folder has no hard links, so it is the folder again, as tar gives it */
	e->hardlink = e->type == AE_IFDIR ? NULL : lib->archive_entry_hardlink(ae);
	e->symlink = lib->archive_entry_symlink(ae);
	e->perm = lib->archive_entry_perm(ae) & 07777;
	if (r->caps->owners) {
		e->uid = (uint32_t)lib->archive_entry_uid(ae);
		e->gid = (uint32_t)lib->archive_entry_gid(ae);
	}
	e->mtime = (struct timespec){ lib->archive_entry_mtime(ae),
				      lib->archive_entry_mtime_nsec(ae) };
	e->mtime_set = lib->archive_entry_mtime_is_set(ae);
	e->size_set = lib->archive_entry_size_is_set(ae);
	e->size = lib->archive_entry_size(ae);
	e->major = (uint32_t)lib->archive_entry_rdevmajor(ae);
	e->minor = (uint32_t)lib->archive_entry_rdevminor(ae);

	int rc = content_archive_norm_path(e->name, r->strip, &e->path);
	if (rc == -EINVAL)
		return diag_error(r->d, "%s: %s: the entry's path leaves the partition (..)", host,
				  e->name);
	if (rc || !r->caps->xattrs)
		return rc < 0 ? rc : 0;
	rc = read_xattrs(lib, ae, e);
	return rc < 0 ? rc : read_acls(r, host, ae, e);
}

bool content_archive_dropped(struct content_filter *f, const struct content_archive_item *e)
{
	const char *rel = e->path;

	if (!f || !rel || !*rel)
		return false;
	if (e->type == AE_IFDIR && !e->hardlink)
		return content_filter_prunes(f, rel);
	if (content_filter_drops(f, rel))
		return true;
	return (e->type != AE_IFLNK || e->hardlink) && !content_filter_takes(f, rel, false);
}

/*
 * The limits of every file system (contents.h): the entry @e, at its place below the tree's
 * top, at most CONTENT_MAX_PATH bytes and CONTENT_MAX_DEPTH names deep in the partition,
 * unless the filter drops it (an entry left out is never examined, LAYOUT.md "Filters").
 */
static int check_limits(const struct content_archive_reader *r, const char *host,
			const struct content_archive_item *e)
{
	const char *top = r->top && strcmp(r->top, "/") ? r->top : "";
	size_t len = strlen(top) + 1 + strlen(e->path), names = 1;

	if (!*e->path || content_archive_dropped(r->filter, e))
		return 0;
	for (const char *p = top; *p; p++)
		names += *p == '/';
	for (const char *p = e->path; *p; p++)
		names += *p == '/';
	if (len > CONTENT_MAX_PATH)
		return diag_error(r->d,
				  "%s: %s: a path of %zu bytes in the partition; sdimg takes at "
				  "most %d",
				  host, e->name, len, CONTENT_MAX_PATH);
	if (names > CONTENT_MAX_DEPTH)
		return diag_error(r->d,
				  "%s: %s: a path %zu names deep in the partition; sdimg takes at "
				  "most %d",
				  host, e->name, names, CONTENT_MAX_DEPTH);
	return 0;
}

/* One header @ae, read from @a, to @fn. */
static int list_one(struct content_archive_reader *r, const char *host, struct archive *a,
		    struct archive_entry *ae, content_archive_item_fn fn, void *ctx)
{
	struct content_archive_item e = { .path = NULL };
	int rc;

	if (!*content_archive_entry_name(&r->lib, ae))
		return diag_error(r->d, "%s: the name of entry %llu cannot be read: %s", host,
				  (unsigned long long)r->n + 1,
				  r->lib.archive_error_string(a) ? r->lib.archive_error_string(a)
								 : "it is empty");
	rc = read_entry(r, host, ae, &e);
	if (rc == 0 && e.path)
		rc = check_limits(r, host, &e);
	r->kept += rc == 0 && e.path;
	if (rc == 0)
		rc = fn(ctx, &e);
	free_entry(&e);
	return rc;
}

/* Every header of @a to @fn; @a reads the stream of @u when it is not NULL. */
static int list_all(struct content_archive_reader *r, const char *host, struct archive *a,
		    const struct content_unpack *u, content_archive_item_fn fn, void *ctx)
{
	struct archive_entry *ae;
	char last[512] = "";
	int st, rc = 0;

	while (rc == 0 && content_archive_ok(st = r->lib.archive_read_next_header(a, &ae))) {
		rc = list_one(r, host, a, ae, fn, ctx);
		snprintf(last, sizeof(last), "%s", content_archive_entry_name(&r->lib, ae));
		r->n++;
	}
	if (rc < 0)
		return rc;
	if (st != ARCHIVE_EOF && u && content_unpack_error(u)) /* libarchive may say "truncated" */
		return diag_error(r->d, "%s: %s%s%s%s", host, content_unpack_error(u),
				  *last ? " (reading past the entry " : "", last, *last ? ")" : "");
	if (st != ARCHIVE_EOF && !r->n)
		return content_archive_unreadable(&r->lib, a, host, r->d);
	if (st != ARCHIVE_EOF)
		return diag_error(r->d, "%s: %s%s%s%s", host, r->lib.archive_error_string(a),
				  *last ? " (reading past the entry " : "", last, *last ? ")" : "");
	return 0;
}

/* Remembers @host, as it is now, as the archive the data pass reads. */
static int remember_source(struct content_archive_reader *r, const char *host)
{
	struct stat st;

	if (stat(host, &st) < 0)
		return diag_error(r->d, "%s: %s", host, strerror(errno));
	r->source = (struct content_archive){ .path = strdup(host),
					      .dev = st.st_dev,
					      .ino = st.st_ino,
					      .size = st.st_size,
					      .mtime = st.st_mtim,
					      .spool_fd = -1 };
	return r->source.path ? 0 : -ENOMEM;
}

int content_archive_list(struct content_archive_reader *r, const char *host,
			 content_archive_item_fn fn, void *ctx)
{
	struct content_unpack *u = NULL;
	struct archive *a = NULL;
	int spool_fd = -1;
	int rc = remember_source(r, host);

	if (rc == 0)
		rc = content_unpack_open(&r->lib, host, &u, r->d);
	if (rc >= 0)
		a = u ? content_unpack_archive(u) : content_archive_open(&r->lib, host, r->d);
	if (rc >= 0 && !a)
		rc = -EINVAL;
	if (rc >= 0)
		rc = list_all(r, host, a, u, fn, ctx);
	if (rc == 0 && u)
		rc = content_unpack_finish(u, &spool_fd, r->d);
	if (u)
		content_unpack_free(u);
	else if (a)
		r->lib.archive_read_free(a);
	if (spool_fd >= 0) {
		r->source.spooled = true;
		r->source.spool_fd = spool_fd;
	}
	return rc < 0 ? rc : 0;
}

/* ---- the data pass ---- */

/* The entry the data pass is at; content_entry_read() hands its bytes out in order. */
struct content_entry_bytes {
	const struct content_archive_lib *lib;
	struct archive *a;
	const char *host;
	const char *name;
	uint64_t size;
	content_stop_fn stop;
	void *stop_ctx;
	struct diag *d;
	const char *block; /* the bytes of the current data block not handed out yet */
	size_t left;
	uint64_t at;  /* the entry offset of block[0] */
	uint64_t pos; /* the bytes of the entry handed out so far */
	bool end;     /* no more blocks: the rest of the entry is a hole */
};

int content_entry_block(struct content_entry_bytes *b, const void **buf, size_t *len, uint64_t *off)
{
	la_int64_t at;
	int st = b->lib->archive_read_data_block(b->a, buf, len, &at);

	if (st == ARCHIVE_EOF)
		return 0;
	if (!content_archive_ok(st))
		return diag_error(b->d, "%s: %s: %s", b->host, b->name,
				  b->lib->archive_error_string(b->a));
	if (at < 0 || (uint64_t)at + *len > b->size)
		return diag_error(b->d, "%s: %s: holds more data than its size", b->host, b->name);
	if (b->stop && b->stop(b->stop_ctx)) /* a large entry: after each block */
		return -EINTR;
	*off = (uint64_t)at;
	return 1;
}

/* The next block of @b into b->block, or b->end at the entry's end. */
static int next_block(struct content_entry_bytes *b)
{
	const void *p;
	size_t n;
	uint64_t off;
	int rc = content_entry_block(b, &p, &n, &off);

	if (rc < 0)
		return rc;
	if (rc == 0)
		b->end = true;
	else if (off < b->pos)
		return diag_error(b->d, "%s: an entry's data blocks overlap", b->host);
	else {
		b->block = p;
		b->left = n;
		b->at = off;
	}
	return 0;
}

long content_entry_read(void *ctx, void *buf, size_t len)
{
	struct content_entry_bytes *b = ctx;
	size_t n;
	int rc;

	while (!b->left && !b->end)
		if ((rc = next_block(b)) < 0)
			return rc;
	if (!b->left || b->at > b->pos) { /* a hole: before the block, or to the end */
		n = !b->left || b->at - b->pos > len ? len : (size_t)(b->at - b->pos);
		memset(buf, 0, n);
	} else {
		n = b->left < len ? b->left : len;
		memcpy(buf, b->block, n);
		b->block += n;
		b->left -= n;
		b->at += n;
	}
	b->pos += n;
	return (long)n;
}

/* The archive must be the file that was listed: same file, size and time. */
static int unchanged(const struct content_archive *src, struct diag *d)
{
	struct stat st;

	if (stat(src->path, &st) < 0)
		return diag_error(d, "%s: %s", src->path, strerror(errno));
	if (st.st_dev != src->dev || st.st_ino != src->ino || st.st_size != src->size ||
	    st.st_mtim.tv_sec != src->mtime.tv_sec || st.st_mtim.tv_nsec != src->mtime.tv_nsec)
		return diag_error(d, "%s: changed while the image was built", src->path);
	return 0;
}

/* Reads the headers of @a to the last entry of @want, each wanted one to @fn. */
static int hand_out(struct content_entry_bytes *b, const struct content_archive_want *want,
		    size_t n, content_bytes_fn fn, void *ctx)
{
	struct archive_entry *ae;
	uint64_t k = 0;
	size_t j = 0;
	int st = ARCHIVE_OK;

	while (j < n && content_archive_ok(st = b->lib->archive_read_next_header(b->a, &ae))) {
		if (b->stop && b->stop(b->stop_ctx))
			return -EINTR;
		if (want[j].entry == k++) {
			b->name = content_archive_entry_name(b->lib, ae);
			if ((uint64_t)b->lib->archive_entry_size(ae) != want[j].size)
				return diag_error(b->d, "%s: %s: changed while the image was built",
						  b->host, b->name);
			b->size = want[j].size;
			b->left = 0;
			b->pos = b->at = 0;
			b->end = false;
			int rc = fn(ctx, j++, b);
			if (rc < 0)
				return rc;
		}
	}
	if (j < n)
		return diag_error(b->d, "%s: %s", b->host,
				  st == ARCHIVE_EOF ? "changed while the image was built"
						    : b->lib->archive_error_string(b->a));
	return 0;
}

int content_archive_data(const struct content_archive_lib *lib, const struct content_archive *src,
			 const struct content_archive_want *want, size_t n, content_bytes_fn fn,
			 void *ctx, content_stop_fn stop, void *stop_ctx, struct diag *d)
{
	struct content_entry_bytes b = { .lib = lib,
					 .host = src->path,
					 .stop = stop,
					 .stop_ctx = stop_ctx,
					 .d = d };
	int rc = src->spooled ? 0 : unchanged(src, d);

	if (rc < 0 || !n)
		return rc;
	b.a = content_archive_reopen(lib, src->path, src->spooled ? src->spool_fd : -1, d);
	if (!b.a)
		return -EINVAL;
	rc = hand_out(&b, want, n, fn, ctx);
	lib->archive_read_free(b.a);
	return rc;
}
