/* ext4_archive: a tree entry's archive into an ext4 volume, in two passes: the headers are
 * listed and their inodes made in the order a folder's walk makes them (each folder's names
 * sorted byte-wise, a folder before what it holds), then the archive is read again and each
 * file's bytes go to its inode. An archive made with its names sorted (tar --sort=name) of a
 * folder thus gives the image the folder gives, where owners agree. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ext4/ext4.h"
#include "mkimage/builder/builder_priv.h"
#include "mkimage/contents/contents.h"

struct xattr {
	char *name;
	void *value;
	size_t len;
};

/* One archive entry as its header says. */
struct item {
	char *path;    /* inside the partition, no leading or trailing '/' ("" the top) */
	unsigned type; /* AE_IFREG, AE_IFDIR, ... (0: a hard link) */
	struct ext4_meta m;
	uint64_t size;
	uint32_t major, minor;
	char *target; /* symbolic link's target, or hard link's path (normalised) */
	struct xattr *xattrs;
	size_t n_xattrs;
	uint32_t ino;       /* once made */
	bool has_data;      /* its bytes are in this entry */
	bool skipped;       /* strip left nothing of its path */
	bool left_out;      /* by the tree's include and exclude */
	uint64_t name_hash; /* of the entry's name as the archive spells it: the data pass
				checks that it meets the entry the listing met */
};

/* FNV-1a of @s: two entries with other names in one place are told apart. */
static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

struct listing {
	struct item *v;
	size_t n, cap;
	struct stat st; /* the archive when it was listed */
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

/* An entry's path, or a hard link's target, @raw as it goes into the partition: normalised
 * as on every file system, less its first @strip names, in *@ret. Returns 0, 1 when strip
 * leaves nothing, or a negative errno with a message. */
static int entry_path(struct ext4_walk *w, const char *host, const char *raw, unsigned strip,
		      char **ret)
{
	int rc = content_archive_norm_path(raw, strip, ret);

	if (rc == -EINVAL)
		return diag_error(w->b->d, "%s: %s: the entry's path leaves the partition (..)",
				  host, raw);
	if (rc == 0 && strlen(*ret) > CONTENT_MAX_PATH) {
		free(*ret);
		*ret = NULL;
		return diag_error(w->b->d, "%s: %s: the entry's path is longer than %d bytes", host,
				  raw, CONTENT_MAX_PATH);
	}
	return rc;
}

/* Room in @it for @more attributes. */
static int grow_xattrs(struct item *it, size_t more)
{
	struct xattr *x = realloc(it->xattrs, (it->n_xattrs + more) * sizeof(*x));

	if (!x)
		return -ENOMEM;
	it->xattrs = x;
	memset(x + it->n_xattrs, 0, more * sizeof(*x));
	return 0;
}

static int read_xattrs(const struct content_archive_lib *lib, struct archive_entry *ae,
		       struct item *it)
{
	const char *name;
	const void *value;
	size_t len, n = (size_t)lib->archive_entry_xattr_reset(ae), end = it->n_xattrs + n;

	if (!n)
		return 0;
	if (grow_xattrs(it, n) < 0)
		return -ENOMEM;
	while (it->n_xattrs < end &&
	       lib->archive_entry_xattr_next(ae, &name, &value, &len) == ARCHIVE_OK) {
		struct xattr *x = &it->xattrs[it->n_xattrs++];
		if (!(x->name = strdup(name)) || !(x->value = malloc(len ? len : 1)))
			return -ENOMEM;
		memcpy(x->value, value, len);
		x->len = len;
	}
	return 0;
}

/* The kernel's tag of libarchive's POSIX.1e ACL tag @tag (0: another). */
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
 * The entry's ACL of @type (access or default) as the attribute @xname, where it has one
 * (GNU tar --acls, bsdtar --acls: libarchive gives ACL entries, not attributes). An access
 * ACL's mask is the group bits of the mode, as Linux keeps them (acl(5)); libarchive gives
 * the owning group's entry there.
 */
static int read_acl(struct ext4_walk *w, const struct content_archive_lib *lib, const char *host,
		    struct archive_entry *ae, struct item *it, int type, const char *xname)
{
	int n = lib->archive_entry_acl_reset(ae, type), t, perm, tag, id;
	const char *name, *raw = content_archive_entry_name(lib, ae);
	struct ext4_acl_entry *e;
	size_t k = 0;

	if (n <= 0)
		return 0;
	if (!(e = calloc((size_t)n, sizeof(*e))))
		return -ENOMEM;
	while (k < (size_t)n &&
	       lib->archive_entry_acl_next(ae, type, &t, &perm, &tag, &id, &name) == ARCHIVE_OK) {
		e[k] = (struct ext4_acl_entry){ acl_tag(tag), (uint16_t)(perm & 7), (uint32_t)id };
		bool named = tag == ARCHIVE_ENTRY_ACL_USER || tag == ARCHIVE_ENTRY_ACL_GROUP;
		if (named && id < 0 && acl_id(name, tag == ARCHIVE_ENTRY_ACL_USER, &e[k].id) < 0) {
			free(e);
			return diag_error(w->b->d,
					  "%s: %s: its %s names the %s '%s', which this host "
					  "does not know",
					  host, raw, xname,
					  tag == ARCHIVE_ENTRY_ACL_USER ? "user" : "group",
					  name ? name : "");
		}
		if (tag == ARCHIVE_ENTRY_ACL_MASK && type == ARCHIVE_ENTRY_ACL_TYPE_ACCESS)
			it->m.perm = (it->m.perm & ~070u) | (uint32_t)(perm & 7) << 3;
		k++;
	}
	struct xattr x = { .name = strdup(xname) };
	int rc = x.name ? ext4_acl_xattr(e, k, &x.value, &x.len) : -ENOMEM;
	free(e);
	if (rc == 0 && (rc = grow_xattrs(it, 1)) == 0)
		it->xattrs[it->n_xattrs++] = x;
	else
		free(x.name);
	if (rc == -EINVAL)
		return diag_error(w->b->d, "%s: %s: its %s is not an ACL Linux takes", host, raw,
				  xname);
	return rc;
}

/* The entry's POSIX.1e ACLs as attributes; an NFSv4 ACL (zip, tar of FreeBSD or macOS)
 * is no ACL ext4 holds. */
static int read_acls(struct ext4_walk *w, const struct content_archive_lib *lib, const char *host,
		     struct archive_entry *ae, struct item *it)
{
	if (lib->archive_entry_acl_reset(ae, ARCHIVE_ENTRY_ACL_TYPE_NFS4) > 0)
		return diag_error(w->b->d, "%s: %s: an NFSv4 ACL, which ext4 cannot hold", host,
				  content_archive_entry_name(lib, ae));
	int rc = read_acl(w, lib, host, ae, it, ARCHIVE_ENTRY_ACL_TYPE_ACCESS,
			  "system.posix_acl_access");
	return rc < 0 ? rc
		      : read_acl(w, lib, host, ae, it, ARCHIVE_ENTRY_ACL_TYPE_DEFAULT,
				 "system.posix_acl_default");
}

/* Whether @type (AE_IFREG, ...) is one an ext4 inode can have. */
static bool type_ext4_has(unsigned type)
{
	return type == AE_IFREG || type == AE_IFDIR || type == AE_IFLNK || type == AE_IFCHR ||
	       type == AE_IFBLK || type == AE_IFIFO || type == AE_IFSOCK;
}

static int list_entry(struct ext4_walk *w, const struct content_archive_lib *lib, const char *host,
		      struct archive_entry *ae, struct item *it)
{
	const struct layout_entry *e = w->e;
	const char *hard = lib->archive_entry_hardlink(ae), *sym = lib->archive_entry_symlink(ae);
	struct timespec ts = { lib->archive_entry_mtime(ae), lib->archive_entry_mtime_nsec(ae) };

	const char *name = content_archive_entry_name(lib, ae);

	if (!*name)
		return diag_error(w->b->d, "%s: the name of an entry cannot be read", host);
	it->name_hash = name_hash(name);
	int rc = entry_path(w, host, name, e->strip, &it->path);
	it->skipped = rc == 1;
	if (rc)
		return rc < 0 ? rc : 0;
	/* cpio names a folder listed twice a hard link to itself (the same inode number);
	 * a folder has no hard links, so it is the folder again, as tar gives it */
	if (hard && lib->archive_entry_filetype(ae) == AE_IFDIR)
		hard = NULL;
	it->type = hard ? 0 : lib->archive_entry_filetype(ae);
	if (!hard && !type_ext4_has(it->type)) /* type 0 means a hard link here */
		return diag_error(w->b->d, "%s:%d: tree '%s': %s: '%s' is of a type ext4 has not",
				  e->loc.file, e->loc.line, e->path, host, name);
	bool root = e->owners == LAYOUT_OWNERS_ROOT;
	it->m.uid = e->owner_set ? e->owner : root ? 0 : (uint32_t)lib->archive_entry_uid(ae);
	it->m.gid = e->group_set ? e->group : root ? 0 : (uint32_t)lib->archive_entry_gid(ae);
	it->m.perm = lib->archive_entry_perm(ae) & 07777;
	it->m.mtime = content_mtime(&w->b->l->image,
				    lib->archive_entry_mtime_is_set(ae) ? &ts : NULL,
				    &it->m.mtime_ns);
	if (it->type == AE_IFREG && !lib->archive_entry_size_is_set(ae))
		return diag_error(w->b->d, "%s: %s: the archive does not say how large it is", host,
				  name);
	it->size = lib->archive_entry_size_is_set(ae) && lib->archive_entry_size(ae) > 0
			   ? (uint64_t)lib->archive_entry_size(ae)
			   : 0;
	it->major = (uint32_t)lib->archive_entry_rdevmajor(ae);
	it->minor = (uint32_t)lib->archive_entry_rdevminor(ae);
	it->has_data = it->type == AE_IFREG && it->size > 0;
	if (hard && (rc = entry_path(w, host, hard, e->strip, &it->target)) < 0)
		return rc;
	if (hard && rc == 1)
		return diag_error(w->b->d, "%s: '%s' is a hard link to '%s', which strip removes",
				  host, name, hard);
	if (!hard && it->type == AE_IFLNK && !(it->target = strdup(sym ? sym : "")))
		return -ENOMEM;
	if (it->type == 0 && it->size == 0)
		it->has_data = false;
	else if (it->type == 0) /* a hard link that carries the bytes (pax, cpio) */
		it->has_data = true;
	rc = read_xattrs(lib, ae, it);
	return rc < 0 ? rc : read_acls(w, lib, host, ae, it);
}

/* The first pass: every entry of the archive read by @p into @l. */
static int list_archive(struct ext4_walk *w, struct content_passes *p, struct listing *l)
{
	const struct content_archive_lib *lib = p->lib;
	struct archive_entry *ae;
	int r, rc = 0;

	if (stat(p->host, &l->st) < 0)
		return diag_error(w->b->d, "%s: %s", p->host, strerror(errno));
	while (rc == 0 && (r = lib->archive_read_next_header(p->a, &ae)) != ARCHIVE_EOF) {
		if (r < ARCHIVE_WARN) {
			const char *why = content_passes_stream_error(p);
			rc = diag_error(w->b->d, "%s: %s", p->host,
					why ? why : lib->archive_error_string(p->a));
			break;
		}
		if (l->n == l->cap) {
			size_t cap = l->cap ? l->cap * 2 : 256;
			struct item *v = realloc(l->v, cap * sizeof(*v));
			if (!v) {
				rc = -ENOMEM;
				break;
			}
			l->v = v;
			l->cap = cap;
		}
		memset(&l->v[l->n], 0, sizeof(l->v[l->n]));
		rc = list_entry(w, lib, p->host, ae, &l->v[l->n++]);
		if (rc == 0 && build_interrupted(w->b))
			rc = -EINTR;
	}
	return rc;
}

/* Paths compared name by name: a folder's entries sorted byte-wise, each folder right before
 * what it holds (the order of a folder's walk). */
static int compare_paths(const char *a, const char *b)
{
	for (;;) {
		size_t na = strcspn(a, "/"), nb = strcspn(b, "/");
		int c = memcmp(a, b, na < nb ? na : nb);
		if (c || na != nb)
			return c ? c : na < nb ? -1 : 1;
		a += na;
		b += nb;
		if (!*a || !*b)
			return *a ? 1 : *b ? -1 : 0;
		a++;
		b++;
	}
}

static int compare_items(const void *x, const void *y)
{
	const struct item *a = *(struct item *const *)x, *b = *(struct item *const *)y;
	int c = compare_paths(a->path, b->path);
	return c ? c : a < b ? -1 : a > b; /* the same path twice: archive order */
}

static struct item *find_item(struct item **sorted, size_t n, const char *path)
{
	size_t lo = 0, hi = n;
	struct item *found = NULL;

	while (lo < hi) { /* the last of equal paths: the one a later entry gave */
		size_t mid = (lo + hi) / 2;
		int c = compare_paths(sorted[mid]->path, path);
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

/* Whether @path is @folder or lies below it. */
static bool lies_in(const char *path, const char *folder, size_t len)
{
	return !strncmp(path, folder, len) && (!path[len] || path[len] == '/');
}

/*
 * The folders above sorted[@i] that no entry gives (an archive need not list them), judged
 * once, at the first item below them, so that the patterns count them as a folder's walk
 * does; such a folder is made only when something below it is, as without filters.
 */
static void judge_implied(struct ext4_walk *w, struct item **sorted, size_t n, size_t i)
{
	char up[CONTENT_MAX_PATH + 1];
	const char *path = sorted[i]->path;

	for (const char *slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
		size_t len = (size_t)(slash - path);
		memcpy(up, path, len);
		up[len] = '\0';
		if (find_item(sorted, n, up) || (i && lies_in(sorted[i - 1]->path, up, len)))
			continue;
		content_filter_takes(w->filter, up, true);
	}
}

/*
 * Which items the tree's include and exclude leave out: each is judged by its own path (a
 * symbolic or hard link as a file); then a folder that holds something that stays stays.
 * @sorted is in walk order, a folder before all it holds, so one pass backwards carries what
 * stays up to the folders above it.
 */
static void judge_items(struct ext4_walk *w, struct item **sorted, size_t n)
{
	char up[CONTENT_MAX_PATH + 1];

	for (size_t i = 0; i < n; i++) {
		struct item *it = sorted[i];
		if (!*it->path) /* the top stays */
			continue;
		judge_implied(w, sorted, n, i);
		it->left_out = !content_filter_takes(w->filter, it->path, it->type == AE_IFDIR);
	}
	for (size_t i = n; i-- > 0;) {
		const char *path = sorted[i]->path;
		if (sorted[i]->left_out)
			continue;
		/* the nearest listed folder above it stays, past folders only implied (made with
		 * defaults anyway); its own turn comes later and carries it further up */
		for (const char *slash = strrchr(path, '/'); slash;
		     slash = memrchr(path, '/', (size_t)(slash - path))) {
			size_t len = (size_t)(slash - path);
			memcpy(up, path, len);
			up[len] = '\0';
			struct item *f = find_item(sorted, n, up);
			if (f && f->type == AE_IFDIR) {
				f->left_out = false;
				break;
			}
		}
	}
}

/* An entry's bytes in order, its holes as zeros: libarchive hands out the data blocks of a
 * sparse entry at their offsets, and none for a hole at its end. */
struct archive_reader {
	const struct content_archive_lib *lib;
	struct archive *a;
	const char *host;
	struct diag *d;
	const char *block; /* the bytes of the current data block not handed out yet */
	size_t left;
	int64_t at;  /* the entry offset of block[0] */
	int64_t pos; /* the bytes of the entry handed out so far */
	bool end;    /* no more blocks: the rest of the entry is a hole */
};

static void start_entry(struct archive_reader *r)
{
	r->left = 0;
	r->pos = r->at = 0;
	r->end = false;
}

static long read_archive(void *ctx, void *buf, size_t len)
{
	struct archive_reader *r = ctx;
	size_t n;

	while (!r->left && !r->end) {
		const void *p;
		la_int64_t off;
		int st = r->lib->archive_read_data_block(r->a, &p, &n, &off);
		if (st == ARCHIVE_EOF)
			r->end = true;
		else if (st < ARCHIVE_WARN)
			return diag_error(r->d, "%s: %s", r->host,
					  r->lib->archive_error_string(r->a));
		else if (off < r->pos)
			return diag_error(r->d, "%s: an entry's data blocks overlap", r->host);
		else {
			r->block = p;
			r->left = n;
			r->at = off;
		}
	}
	if (!r->left || r->at > r->pos) { /* a hole: before the block, or to the end */
		n = !r->left || (uint64_t)(r->at - r->pos) > len ? len : (size_t)(r->at - r->pos);
		memset(buf, 0, n);
	} else {
		n = r->left < len ? r->left : len;
		memcpy(buf, r->block, n);
		r->block += n;
		r->left -= n;
		r->at += (int64_t)n;
	}
	r->pos += (int64_t)n;
	return (long)n;
}

/* The second pass: each file's bytes into its inode, in the archive's order. */
static int write_data(struct ext4_walk *w, struct content_passes *p, struct listing *l)
{
	const struct content_archive_lib *lib = p->lib;
	struct archive_reader r = { .lib = lib, .host = p->host, .d = w->b->d };
	struct archive_entry *ae;
	struct stat st;
	int rc = content_passes_second(p, w->b->d);

	if (rc < 0)
		return rc;
	r.a = p->a;
	if (stat(p->host, &st) < 0 || st.st_dev != l->st.st_dev || st.st_ino != l->st.st_ino ||
	    st.st_size != l->st.st_size || st.st_mtim.tv_sec != l->st.st_mtim.tv_sec ||
	    st.st_mtim.tv_nsec != l->st.st_mtim.tv_nsec)
		return diag_error(w->b->d, "%s: changed while the image was built", p->host);
	for (size_t i = 0; rc == 0 && i < l->n; i++) {
		const struct item *it = &l->v[i];
		int h = lib->archive_read_next_header(r.a, &ae);
		if (h == ARCHIVE_EOF ||
		    (h >= ARCHIVE_WARN &&
		     name_hash(content_archive_entry_name(lib, ae)) != it->name_hash)) {
			rc = diag_error(w->b->d,
					"%s: entry %zu is not the one listed (it changed "
					"while the image was built?)",
					p->host, i + 1);
			break;
		}
		if (h < ARCHIVE_WARN) {
			rc = diag_error(w->b->d, "%s: %s (it changed while the image was built?)",
					p->host, lib->archive_error_string(r.a));
			break;
		}
		start_entry(&r);
		if (it->has_data && it->ino && !it->skipped)
			rc = ext4_write_data(w->v, it->ino, read_archive, &r, it->path);
		if (rc == 0 && build_interrupted(w->b))
			rc = -EINTR;
	}
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

/* libarchive into @lib, or one line naming the tree's FILE:LINE. */
static int open_lib(struct ext4_walk *w, struct content_archive_lib *lib)
{
	size_t first = w->b->d->n;
	char *place = NULL;
	int rc = content_archive_lib_open(lib, "archive trees", w->b->d);

	if (rc < 0 &&
	    asprintf(&place, "%s:%d: tree '%s': ", w->e->loc.file, w->e->loc.line, w->e->path) >= 0)
		diag_prefix(w->b->d, first, place);
	free(place);
	return rc;
}

int build_ext4_archive(struct ext4_walk *w, const char *host)
{
	struct content_archive_lib lib = { .dl = { NULL } };
	struct content_passes p = { .spool_fd = -1 };
	struct listing l = { 0 };
	struct item **sorted = NULL;
	int rc = open_lib(w, &lib);

	if (rc == 0)
		rc = content_passes_first(&p, &lib, host, w->b->d);
	if (rc == 0)
		rc = list_archive(w, &p, &l);

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
			judge_items(w, sorted, n);
		rc = make_inodes(w, sorted, n, host);
	}
	if (rc == 0 && ext4_measuring(w->v)) /* a trial: not decompressed again each time */
		rc = take_blocks(w, &l);
	else if (rc == 0)
		rc = write_data(w, &p, &l);
	free(sorted);
	free_listing(&l);
	content_passes_close(&p);
	content_archive_lib_close(&lib);
	return rc;
}
