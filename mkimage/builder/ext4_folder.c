/* SPDX-License-Identifier: MIT */
/* ext4_folder: ext4's adapter of contents/' walk of a host folder (content_walk_host()):
 * what ext4 makes of each entry it is given (folders, files, symbolic and hard links,
 * device nodes, fifos, sockets, owners, modes, times, extended attributes), and the bytes
 * of the files, written after the walk in walk order, each file opened by its name in its
 * folder again. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/syscall.h>

#include "common/extent.h"
#include "common/path.h"
#include "ext4/ext4.h"
#include "mkimage/builder/builder_priv.h"
#include "mkimage/contents/contents.h"

/* A host file with more than one name, by its identity, and the inode it became. */
struct host_link {
	dev_t dev;
	ino_t ino;
	uint32_t ext4_ino; /* 0: the filters left out every name of it so far */
	size_t pending;    /* then 1 + index in the walk's data of its bytes (0: none) */
};

/* A host folder on the walk, made when the walk takes it or, with filters, when the first
 * name below it that stays is made (LAYOUT.md, "Filters"): with its own owner, mode and
 * time either way. The walk is contents/' (content_walk_host()); this is what ext4 makes of
 * what it finds. */
struct walk_folder {
	struct walk_folder *up; /* the folder holding it (NULL: the tree's top) */
	const char *name;
	const char *host;
	struct ext4_meta m;
	uint32_t ino; /* 0: not made yet */
	int fd;       /* open while the walk is below it (its attributes) */
};

/* The build's failure for the host file @host, listed at @size bytes, that is another file now. */
static int changed_since_listed(struct diag *d, const char *host, uint64_t size)
{
	return diag_errno(d, -ESTALE,
			  "%s: changed while the image was built (it is not the file of %" PRIu64
			  " bytes that was listed)",
			  host, size);
}

/* Whether the file open at @fd is still the one the walk listed as @p. */
static bool unchanged(int fd, const struct ext4_pending *p)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && fileid_same(&p->listed, p->size, &st);
}

/* The build's failure for @err (negative errno) in reading @r's file. Where the walk listed
 * it and another file is open now (a folder, a FIFO, a device put at its name since, which
 * read(2) or lseek(2) refuse), that change is the failure, not the read's error. */
static int read_failed(const struct ext4_host_reader *r, int err)
{
	if (r->listed && !unchanged(r->fd, r->listed))
		return changed_since_listed(r->d, r->host, r->listed->size);
	return diag_errno(r->d, err, "%s: %s", r->host, strerror(-err));
}

/* Finds the data extent at or after @r->pos: [data, hole), or data = hole = UINT64_MAX when
 * only a hole is left (the file's size, not its extents, ends what is read). */
static int next_extent(struct ext4_host_reader *r)
{
	struct extent_walk w;

	/* to the file's end, wherever it is now: off_t's largest */
	extent_start(&w, r->fd, r->pos, (uint64_t)INT64_MAX);
	if (extent_next(&w, &r->data, &r->hole))
		return 0;
	if (w.err)
		return read_failed(r, w.err);
	r->data = r->hole = UINT64_MAX;
	return 0;
}

/* Whether a host folder's entries keep their own owners: owners = host, or no owners key
 * and the build runs as root (who can make a tree of many owners). */
static bool keeps_host_owners(const struct layout_entry *e, uid_t euid)
{
	return e->owners == LAYOUT_OWNERS_HOST || (e->owners == LAYOUT_OWNERS_UNSET && !euid);
}

/* The owner, mode and time of the host entry @st of a tree: the layout's owner and group
 * where set, else the entry's own or root's (keeps_host_owners()). Without an owners key,
 * an owner that is neither root nor the build's user is counted, for the warning. */
static struct ext4_meta host_meta(struct ext4_walk *w, const struct stat *st, uint32_t perm)
{
	const struct layout_entry *e = w->e;
	bool keep = keeps_host_owners(e, w->euid);
	struct ext4_meta m = { .uid = e->owner_set ? e->owner
				      : keep       ? st->st_uid
						   : 0,
			       .gid = e->group_set ? e->group
				      : keep       ? st->st_gid
						   : 0,
			       .perm = perm };

	if (!keep && e->owners == LAYOUT_OWNERS_UNSET &&
	    ((!e->owner_set && st->st_uid && st->st_uid != w->euid) ||
	     (!e->group_set && st->st_gid && st->st_gid != w->egid)))
		w->others_owners++;
	m.mtime = content_mtime(&w->b->l->image, &st->st_mtim, &m.mtime_ns);
	return m;
}

/* The extended attributes of a host entry onto its inode @ino: of the open @fd where @path
 * is NULL (a folder), else of @path itself, not what a symbolic link there points to. */
/* The value of the attribute @name of a host entry (@path, or @fd where @path is NULL) into
 * *@buf, grown as needed (*@cap bytes): its length (0 for an empty value), or -1 with errno
 * set. A value that grows between the two calls is read again. */
static ssize_t host_xattr(int fd, const char *path, const char *name, char **buf, size_t *cap)
{
	for (;;) {
		ssize_t len = path ? lgetxattr(path, name, NULL, 0) : fgetxattr(fd, name, NULL, 0);
		if (len <= 0)
			return len;
		if ((size_t)len > *cap) {
			char *v = realloc(*buf, (size_t)len);
			if (!v) {
				errno = ENOMEM;
				return -1;
			}
			*buf = v;
			*cap = (size_t)len;
		}
		len = path ? lgetxattr(path, name, *buf, *cap) : fgetxattr(fd, name, *buf, *cap);
		if (len >= 0 || errno != ERANGE)
			return len;
	}
}

static int copy_host_xattrs(struct ext4_walk *w, int fd, const char *path, uint32_t ino,
			    const char *host)
{
	ssize_t n = path ? llistxattr(path, NULL, 0) : flistxattr(fd, NULL, 0);
	char *names, *value = NULL;
	size_t cap = 0;
	int rc = 0;

	if (n <= 0)
		return n == 0 || errno == ENOTSUP ? 0
						  : diag_error(w->b->d,
							       "%s: its extended "
							       "attributes: %s",
							       host, strerror(errno));
	w->host_xattrs = true;
	if (!(names = malloc((size_t)n)))
		return -ENOMEM;
	n = path ? llistxattr(path, names, (size_t)n) : flistxattr(fd, names, (size_t)n);
	if (n < 0)
		rc = diag_error(w->b->d, "%s: its extended attributes: %s", host, strerror(errno));
	for (const char *name = names; rc == 0 && name < names + n; name += strlen(name) + 1) {
		ssize_t len = host_xattr(fd, path, name, &value, &cap);
		if (len < 0)
			rc = diag_error(w->b->d, "%s: extended attribute '%s': %s", host, name,
					strerror(errno));
		else /* an empty value is a value: "user.flag" with nothing in it */
			rc = ext4_set_xattr(w->v, ino, name, len ? value : "", (size_t)len, host);
	}
	free(value);
	free(names);
	return rc;
}

long build_ext4_read_fd(void *ctx, void *buf, size_t len)
{
	struct ext4_host_reader *r = ctx;
	ssize_t n;
	int rc;

	if (r->pos >= r->hole && (rc = next_extent(r)) < 0)
		return rc;
	if (r->pos < r->data) { /* a hole: zeros, which the volume leaves out as well */
		uint64_t gap = r->data - r->pos;
		n = gap < len ? (ssize_t)gap : (ssize_t)len;
		memset(buf, 0, (size_t)n);
	} else {
		uint64_t left = r->hole - r->pos;
		do
			n = pread(r->fd, buf, left < len ? (size_t)left : len, (off_t)r->pos);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return read_failed(r, -errno);
		if (n == 0 && r->listed && r->pos < r->listed->size)
			return changed_since_listed(r->d, r->host, r->listed->size);
	}
	r->pos += (uint64_t)n;
	return (long)n;
}

/* The host files whose bytes wait for the end of their tree's walk, in walk order. */
static int remember_data(struct ext4_walk *w, uint32_t ino, const char *host, const struct stat *st)
{
	if (w->n_data == w->cap_data) {
		size_t cap = w->cap_data ? w->cap_data * 2 : 64;
		struct ext4_pending *p = realloc(w->data, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		w->data = p;
		w->cap_data = cap;
	}
	if (!(w->data[w->n_data].host = strdup(host)))
		return -ENOMEM;
	w->data[w->n_data].listed = fileid_of(st);
	w->data[w->n_data].size = (uint64_t)st->st_size;
	w->data[w->n_data++].ino = ino;
	return 0;
}

/* The host folder the pending files are opened in, kept open for the files after it from
 * the same folder. */
struct host_folder {
	int fd;
	char *path; /* owned; NULL: none open */
};

/* The file @host opened in its folder (@f, opened again when it is another one), by its
 * name there and never through a symbolic link at that name. Returns the fd or -errno. */
static int open_in_folder(struct host_folder *f, const char *host)
{
	const char *slash = strrchr(host, '/');
	size_t len = slash ? (size_t)(slash - host) : 0;

	if (!f->path || strlen(f->path) != len || strncmp(f->path, host, len)) {
		if (f->path)
			close(f->fd);
		free(f->path);
		if (!(f->path = strndup(host, len)))
			return -ENOMEM;
		f->fd = open(len ? f->path : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (f->fd < 0) {
			int rc = -errno;
			free(f->path);
			f->path = NULL;
			return rc;
		}
	}
	return path_open_at(f->fd, slash ? slash + 1 : host, O_NOFOLLOW);
}

/* Files read, closed together: each close() is a system call, and close_range(2) (Linux 5.9)
 * closes a run of consecutive descriptors, which files opened one after another get. */
#define CLOSE_BATCH 32

struct closing {
	int fd[CLOSE_BATCH];
	size_t n;
};

static int compare_fds(const void *a, const void *b)
{
	return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

/* close_range(2) of [@first, @last], by its number (glibc names it from 2.34 on): 0, or -1
 * where there is none (it closed nothing then). */
static long close_run(int first, int last)
{
#ifdef SYS_close_range
	return syscall(SYS_close_range, (unsigned)first, (unsigned)last, 0u);
#else
	(void)first, (void)last;
	return -1;
#endif
}

static void close_all(struct closing *c)
{
	qsort(c->fd, c->n, sizeof(c->fd[0]), compare_fds);
	for (size_t i = 0, j; i < c->n; i = j) {
		for (j = i + 1; j < c->n && c->fd[j] == c->fd[j - 1] + 1; j++)
			;
		if (j - i == 1 || close_run(c->fd[i], c->fd[j - 1]) < 0)
			for (size_t k = i; k < j; k++)
				close(c->fd[k]);
	}
	c->n = 0;
}

static void close_later(struct closing *c, int fd)
{
	if (c->n == CLOSE_BATCH)
		close_all(c);
	c->fd[c->n++] = fd;
}

/* The size up to which a file is read without lseek(SEEK_DATA), holes and all. */
#define SMALL_FILE (64u << 10)

/* The build's failure for @err (negative errno) in opening @p's file in @f: where another
 * file is at its name now (a socket, a symbolic link, which open(2) refuses), that change. */
static int open_failed(struct ext4_walk *w, const struct host_folder *f,
		       const struct ext4_pending *p, int err)
{
	const char *slash = strrchr(p->host, '/');

	if (f->path && fileid_replaced_at(f->fd, slash ? slash + 1 : p->host, &p->listed, p->size))
		return changed_since_listed(w->b->d, p->host, p->size);
	return diag_errno(w->b->d, err, "%s: %s", p->host, strerror(-err));
}

static int write_one(struct ext4_walk *w, struct host_folder *f, struct closing *c,
		     const struct ext4_pending *p)
{
	int fd = open_in_folder(f, p->host);
	if ((fd == -EMFILE || fd == -ENFILE) && c->n) { /* the files held for closing give way */
		close_all(c);
		fd = open_in_folder(f, p->host);
	}
	struct ext4_host_reader r = { .fd = fd, .host = p->host, .d = w->b->d, .listed = p };
	/* a small file is read whole, its holes as the zeros they read as (which the volume
	 * leaves out all the same), without asking where they are */
	if (p->size <= SMALL_FILE)
		r.hole = p->size;
	if (r.fd < 0)
		return open_failed(w, f, p, r.fd);
	/* read first, then checked once: another file at its name, or one changed before or
	 * while it was read, fails the build all the same (one that ends sooner than listed
	 * says so as it is read); a failure to read it (its message posted) is not a change */
	int rc = ext4_write_data(w->v, p->ino, build_ext4_read_fd, &r, p->host);
	bool changed = rc == 0 && !unchanged(r.fd, p);
	close_later(c, r.fd);
	if (changed)
		return changed_since_listed(w->b->d, p->host, p->size);
	return rc == 0 && build_interrupted(w->b) ? -EINTR : rc;
}

/* The bytes of the files the walk listed, when @walked (the walk went well); their list
 * freed either way. */
static int write_pending(struct ext4_walk *w, bool walked)
{
	struct host_folder f = { -1, NULL };
	struct closing c = { .n = 0 };
	int rc = walked ? 0 : -ECANCELED;

	for (size_t i = 0; i < w->n_data; i++) {
		if (rc == 0 && w->data[i].ino)
			rc = write_one(w, &f, &c, &w->data[i]);
		free(w->data[i].host);
	}
	close_all(&c);
	if (f.path)
		close(f.fd);
	free(f.path);
	w->n_data = 0;
	for (size_t i = 0; i < w->n_links; i++) /* the places kept in data go with it */
		w->links[i].pending = 0;
	return walked ? rc : 0;
}

static struct host_link *find_link(struct ext4_walk *w, const struct stat *st)
{
	for (size_t i = 0; i < w->n_links; i++)
		if (w->links[i].dev == st->st_dev && w->links[i].ino == st->st_ino)
			return &w->links[i];
	return NULL;
}

static int remember_link(struct ext4_walk *w, const struct stat *st, uint32_t ino, size_t pending)
{
	if (w->n_links == w->cap_links) {
		size_t cap = w->cap_links ? w->cap_links * 2 : 16;
		struct host_link *l = realloc(w->links, cap * sizeof(*l));
		if (!l)
			return -ENOMEM;
		w->links = l;
		w->cap_links = cap;
	}
	w->links[w->n_links++] = (struct host_link){ st->st_dev, st->st_ino, ino, pending };
	return 0;
}

/* A host file: its inode now, its bytes once the whole tree has its inodes (as for an
 * archive, whose bytes come in a second pass), in the place kept for them at a name of it
 * that was left out (@l, may be NULL) or else at this one. */
static int add_host_file(struct ext4_walk *w, const char *name, const struct stat *st, uint32_t dir,
			 const char *host, const struct host_link *l, uint32_t *ino)
{
	struct ext4_meta m = host_meta(w, st, st->st_mode & 07777);
	int rc = ext4_add_file(w->v, dir, name, &m, (uint64_t)st->st_size, NULL, NULL, host, ino);

	if (rc < 0 || !st->st_size)
		return rc;
	if (l && l->pending) {
		w->data[l->pending - 1].ino = *ino;
		return 0;
	}
	return remember_data(w, *ino, host, st);
}

/*
 * The first name of a host file with more than one name is left out by the filters: a later
 * name that stays makes its inode, and its bytes keep this name's place in the order they
 * are written (the place an archive of the folder gives them).
 */
static int leave_out_linked(struct ext4_walk *w, const struct stat *st, const char *host)
{
	size_t pending = 0;

	if (S_ISREG(st->st_mode) && st->st_size) {
		int rc = remember_data(w, 0, host, st);
		if (rc < 0)
			return rc;
		pending = w->n_data;
	}
	return remember_link(w, st, 0, pending);
}

/* The folder @f, and those above it, made where they are not yet. */
static int make_folder(struct ext4_walk *w, struct walk_folder *f)
{
	int rc;

	if (f->ino)
		return 0;
	if ((rc = make_folder(w, f->up)) < 0 ||
	    (rc = ext4_add_dir(w->v, f->up->ino, f->name, &f->m, f->host, &f->ino)) < 0)
		return rc;
	return copy_host_xattrs(w, f->fd, NULL, f->ino, f->host);
}

static int add_host_symlink(struct ext4_walk *w, int dirfd, const char *name, const struct stat *st,
			    uint32_t dir, const char *host, uint32_t *ino)
{
	char target[4096];
	ssize_t n = readlinkat(dirfd, name, target, sizeof(target));

	if (n < 0)
		return diag_error(w->b->d, "%s: %s", host, strerror(errno));
	if ((size_t)n == sizeof(target))
		return diag_error(w->b->d, "%s: the link's target is longer than 4095 bytes", host);
	target[n] = '\0';
	struct ext4_meta m = host_meta(w, st, 0777);
	return ext4_add_symlink(w->v, dir, name, &m, target, host, ino);
}

static int add_host_special(struct ext4_walk *w, const char *name, const struct stat *st,
			    uint32_t dir, const char *host, uint32_t *ino)
{
	enum ext4_special kind = S_ISCHR(st->st_mode)    ? EXT4_CHAR
				 : S_ISBLK(st->st_mode)  ? EXT4_BLOCK
				 : S_ISFIFO(st->st_mode) ? EXT4_FIFO
							 : EXT4_SOCKET;
	struct ext4_meta m = host_meta(w, st, st->st_mode & 07777);
	return ext4_add_special(w->v, dir, name, &m, kind, major(st->st_rdev), minor(st->st_rdev),
				host, ino);
}

/* listxattrat(2) (Linux 6.13), which glibc does not name yet: its number is the same on the
 * architectures the kernel's scripts/syscall.tbl gives it to ("465 common listxattrat") */
#if !defined(SYS_listxattrat) && (defined(__x86_64__) || defined(__aarch64__))
#define SYS_listxattrat 465
#endif

/* Whether the entry @name of the host folder open at @dirfd has no extended attributes, asked
 * by the folder's descriptor and the name in it, without a path to build and look up (most
 * entries have none); false when it has some, or when that cannot be asked (the attributes
 * are then read by a path). */
static bool surely_no_xattrs(struct ext4_walk *w, int dirfd, const char *name)
{
#ifdef SYS_listxattrat
	if (w->xattrs_at >= 0) {
		long n = syscall(SYS_listxattrat, dirfd, name, AT_SYMLINK_NOFOLLOW, NULL, 0);
		/* an older kernel, or a sandbox that refuses calls it does not know */
		bool missing = n < 0 && (errno == ENOSYS || errno == EPERM);
		w->xattrs_at = missing && !w->xattrs_at ? -1 : 1;
		return n == 0;
	}
#else
	(void)w, (void)dirfd, (void)name;
#endif
	return false;
}

/* The extended attributes of the entry @name of the host folder open at @dirfd, by the
 * folder's descriptor (the kernel's name of it in /proc), not by the entry's host path
 * (which a folder renamed meanwhile would lead elsewhere); by that path where there is no
 * /proc (a chroot). */
static int copy_entry_xattrs(struct ext4_walk *w, int dirfd, const char *name, uint32_t ino,
			     const char *host)
{
	char path[64 + 256];

	if (surely_no_xattrs(w, dirfd, name))
		return 0;
	if (!w->proc_fds) { /* asked once a walk: /proc does not come and go under it */
		snprintf(path, sizeof(path), "/proc/self/fd/%d", dirfd);
		w->proc_fds = access(path, F_OK) < 0 ? -1 : 1;
	}
	if (w->proc_fds < 0)
		return copy_host_xattrs(w, -1, host, ino, host);
	snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", dirfd, name);
	return copy_host_xattrs(w, -1, path, ino, host);
}

/* A host folder the walk met, before what is below it: made now when the filters keep it
 * for itself; else when a name below it that stays is (the walk goes below a folder left
 * out too, where a name may stay and the patterns count). */
static int walk_folder_in(void *ctx, void *up, const struct content_walk_entry *e, int fd,
			  void **ret)
{
	struct ext4_walk *w = ctx;
	struct walk_folder *f = malloc(sizeof(*f));
	int rc;

	if (!f)
		return -ENOMEM;
	*f = (struct walk_folder){ up,      e->name,
				   e->host, host_meta(w, e->st, e->st->st_mode & 07777),
				   0,       fd };
	if ((rc = e->takes ? make_folder(w, f) : 0) < 0) {
		free(f);
		return rc;
	}
	*ret = f;
	return 0;
}

static void walk_folder_done(void *ctx, void *folder)
{
	(void)ctx;
	free(folder);
}

/* One name of a host folder but a folder. The filters judge a symbolic link by its own path,
 * as a file: ext4 keeps it a link. */
static int walk_entry(void *ctx, void *folder, const struct content_walk_entry *e)
{
	struct ext4_walk *w = ctx;
	struct walk_folder *dir = folder;
	const struct stat *st = e->st;
	const char *name = e->name, *host = e->host;
	uint32_t ino = 0;
	int rc;

	struct host_link *l = st->st_nlink > 1 ? find_link(w, st) : NULL;
	if (!e->takes)
		return l || st->st_nlink < 2 ? 0 : leave_out_linked(w, st, host);
	if ((rc = make_folder(w, dir)) < 0)
		return rc;
	if (l && l->ext4_ino)
		return ext4_add_hard_link(w->v, dir->ino, name, l->ext4_ino, host);
	if (S_ISREG(st->st_mode))
		rc = add_host_file(w, name, st, dir->ino, host, l, &ino);
	else if (S_ISLNK(st->st_mode))
		rc = add_host_symlink(w, e->dirfd, name, st, dir->ino, host, &ino);
	else
		rc = add_host_special(w, name, st, dir->ino, host, &ino);
	if (rc == 0)
		rc = copy_entry_xattrs(w, e->dirfd, name, ino, host);
	if (rc == 0 && l)
		l->ext4_ino = ino;
	else if (rc == 0 && st->st_nlink > 1)
		rc = remember_link(w, st, ino, 0);
	return rc;
}

static bool walk_stops(void *ctx)
{
	return build_interrupted(((struct ext4_walk *)ctx)->b);
}

/* What ext4 makes of each entry of a host folder's walk. */
/* What ext4 holds of a tree: everything a Linux host folder or an archive gives, as it is
 * (its writer checks sizes). */
const struct content_caps build_ext4_caps = {
	.name = "ext4",
	.file_limit = 0,
	.links = true,
	.specials = true,
	.owners = true,
	.xattrs = true,
};

static const struct content_walk_ops ext4_walk_ops = {
	.folder = walk_folder_in,
	.folder_done = walk_folder_done,
	.entry = walk_entry,
	.stop = walk_stops,
	.caps = &build_ext4_caps,
	.sees_left_out = true, /* hard links: a left-out first name keeps its bytes' place */
};

/* Whether the build may read trusted.* attributes: Linux lists and reads them only for a
 * process with CAP_SYS_ADMIN (xattr(7)), and hides them from others without an error. */
static bool reads_trusted_xattrs(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct caps[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &h, caps) < 0)
		return !geteuid();
	return caps[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective & CAP_TO_MASK(CAP_SYS_ADMIN);
}

/* The warnings of a host folder's walk that went well: owners made root's (the part of
 * them the layout leaves to the folder), and trusted.* attributes the build cannot see in
 * a tree that carries attributes. */
static void warn_host_tree(struct ext4_walk *w, const char *host)
{
	const struct layout_entry *e = w->e;
	const char *what = !e->owner_set && !e->group_set
				   ? "other users or groups than root and you: their owner and "
				     "group are made root's"
			   : e->owner_set
				   ? "other groups than root's and yours: their group is made "
				     "root's"
				   : "other users than root and you: their owner is made root's";

	if (w->others_owners)
		diag_warning(w->b->d,
			     "%s:%d: tree '%s': %zu entries of %s belong to %s, as the "
			     "build does not run as root (owners = host keeps them, owners "
			     "= root says so)",
			     e->loc.file, e->loc.line, e->path, w->others_owners, host, what);
	if (w->host_xattrs && !reads_trusted_xattrs())
		diag_warning(w->b->d,
			     "%s:%d: tree '%s': %s has extended attributes, and its "
			     "trusted.* ones, if any, cannot be read without CAP_SYS_ADMIN "
			     "(root): they are not carried over",
			     e->loc.file, e->loc.line, e->path, host);
}

int build_ext4_folder(struct ext4_walk *w, const char *host, const struct stat *st)
{
	const struct layout_entry *e = w->e;
	struct walk_folder top = { .host = host };

	if (e->strip)
		return diag_error(w->b->d,
				  "%s:%d: tree '%s': strip = %u: %s is a folder, and strip "
				  "applies to archive entries",
				  e->loc.file, e->loc.line, e->path, e->strip, host);
	int fd = open(host, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return diag_error(w->b->d, "%s: %s", host, strerror(errno));
	w->others_owners = 0;
	w->euid = geteuid();
	w->egid = getegid();
	w->host_xattrs = false;
	w->proc_fds = 0;
	w->xattrs_at = 0;
	w->n_links = 0; /* hard links join the names of one tree entry only (LAYOUT.md) */
	int rc = build_ext4_folder_at(w, e->path, &top.ino);
	struct ext4_meta m = host_meta(w, st, st->st_mode & 07777);
	if (rc == 0)
		rc = ext4_add_dir(w->v, top.ino, NULL, &m, host, NULL);
	if (rc == 0)
		rc = copy_host_xattrs(w, fd, NULL, top.ino, host);
	top.fd = fd;
	rc = rc < 0 ? (close(fd), rc)
		    : content_walk_host(fd, host, e->links, &top, w->filter, &ext4_walk_ops, w,
					w->b->d);
	int rc2 = write_pending(w, rc == 0);
	if (rc == 0 && rc2 == 0)
		warn_host_tree(w, host);
	return rc < 0 ? rc : rc2;
}
