/* ext4_part: an ext4 partition from its tree, file and dir entries, in layout order, each
 * host folder walked with its names sorted byte-wise, written through ext4/ at the
 * partition's region of the image. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

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
 * time either way. */
struct walk_folder {
	struct walk_folder *up; /* the folder holding it (NULL: the tree's top) */
	const char *name;
	const char *host;
	struct ext4_meta m;
	uint32_t ino;           /* 0: not made yet */
};

void build_ext4_mtime(const struct layout_image *im, const struct timespec *ts,
		      struct ext4_meta *m)
{
	m->mtime = im->timestamp;
	m->mtime_ns = 0;
	if (im->mtime == LAYOUT_MTIME_FIXED || !ts)
		return;
	if (im->timestamp_from_env && ts->tv_sec >= im->timestamp)
		return;
	m->mtime = ts->tv_sec;
	m->mtime_ns = (uint32_t)ts->tv_nsec;
}

static struct ext4_meta meta_of(const struct ext4_walk *w, const struct stat *st, uint32_t perm)
{
	struct ext4_meta m = { .uid = w->e->owner_set ? w->e->owner : 0,
			       .gid = w->e->group_set ? w->e->group : 0, .perm = perm };
	build_ext4_mtime(&w->b->l->image, st ? &st->st_mtim : NULL, &m);
	return m;
}

long build_ext4_read_fd(void *ctx, void *buf, size_t len)
{
	ssize_t n;

	do
		n = read(*(int *)ctx, buf, len);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : (long)n;
}

struct text_reader {
	const char *p;
	size_t left;
};

static long read_text(void *ctx, void *buf, size_t len)
{
	struct text_reader *t = ctx;
	size_t n = len < t->left ? len : t->left;

	memcpy(buf, t->p, n);
	t->p += n;
	t->left -= n;
	return (long)n;
}

/* The host files whose bytes wait for the end of their tree's walk, in walk order. */
static int remember_data(struct ext4_walk *w, uint32_t ino, const char *host)
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
	w->data[w->n_data++].ino = ino;
	return 0;
}

static int write_one(struct ext4_walk *w, const struct ext4_pending *p)
{
	int fd = open(p->host, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return diag_error(w->b->d, "%s: %s", p->host, strerror(errno));
	int rc = ext4_write_data(w->v, p->ino, build_ext4_read_fd, &fd, p->host);
	close(fd);
	return rc == 0 && build_interrupted(w->b) ? -EINTR : rc;
}

static int write_pending(struct ext4_walk *w)
{
	int rc = 0;

	for (size_t i = 0; i < w->n_data; i++) {
		if (rc == 0 && w->data[i].ino)
			rc = write_one(w, &w->data[i]);
		free(w->data[i].host);
	}
	w->n_data = 0;
	for (size_t i = 0; i < w->n_links; i++) /* the places kept in data go with it */
		w->links[i].pending = 0;
	return rc;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in the open folder @fd (closed here), sorted byte-wise. */
static int list_names(struct ext4_walk *w, int fd, const char *host, char ***ret, size_t *ret_n)
{
	DIR *dir = fdopendir(fd);
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int rc = 0;

	if (!dir) {
		close(fd);
		return diag_error(w->b->d, "%s: %s", host, strerror(errno));
	}
	while (rc == 0) {
		errno = 0;
		if (!(de = readdir(dir))) {
			if (errno)
				rc = diag_error(w->b->d, "%s: %s", host, strerror(errno));
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == cap) {
			char **m = realloc(names, (cap = cap ? cap * 2 : 16) * sizeof(*names));
			if (!m)
				rc = -ENOMEM;
			else
				names = m;
		}
		if (rc == 0 && !(names[n++] = strdup(de->d_name)))
			rc = -ENOMEM;
	}
	closedir(dir);
	if (rc < 0) {
		while (n)
			free(names[--n]);
		free(names);
		return rc;
	}
	if (n)
		qsort(names, n, sizeof(*names), compare_names);
	*ret = names;
	*ret_n = n;
	return 0;
}

static struct host_link *find_link(struct ext4_walk *w, const struct stat *st)
{
	for (size_t i = 0; i < w->n_links; i++)
		if (w->links[i].dev == st->st_dev && w->links[i].ino == st->st_ino)
			return &w->links[i];
	return NULL;
}

static int remember_link(struct ext4_walk *w, const struct stat *st, uint32_t ino,
			 size_t pending)
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

static int walk_dir(struct ext4_walk *w, int fd, struct walk_folder *dir, const char *host);

/* A host file: its inode now, its bytes once the whole tree has its inodes (as for an
 * archive, whose bytes come in a second pass), in the place kept for them at a name of it
 * that was left out (@l, may be NULL) or else at this one. */
static int add_host_file(struct ext4_walk *w, const char *name, const struct stat *st,
			 uint32_t dir, const char *host, const struct host_link *l, uint32_t *ino)
{
	struct ext4_meta m = meta_of(w, st, st->st_mode & 07777);
	int rc = ext4_add_file(w->v, dir, name, &m, (uint64_t)st->st_size, NULL, NULL, host, ino);

	if (rc < 0 || !st->st_size)
		return rc;
	if (l && l->pending) {
		w->data[l->pending - 1].ino = *ino;
		return 0;
	}
	return remember_data(w, *ino, host);
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
		int rc = remember_data(w, 0, host);
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
	if ((rc = make_folder(w, f->up)) < 0)
		return rc;
	return ext4_add_dir(w->v, f->up->ino, f->name, &f->m, f->host, &f->ino);
}

static int add_host_symlink(struct ext4_walk *w, int dirfd, const char *name,
			    const struct stat *st, uint32_t dir, const char *host, uint32_t *ino)
{
	char target[4096];
	ssize_t n = readlinkat(dirfd, name, target, sizeof(target));

	if (n < 0)
		return diag_error(w->b->d, "%s: %s", host, strerror(errno));
	if ((size_t)n == sizeof(target))
		return diag_error(w->b->d, "%s: the link's target is longer than 4095 bytes", host);
	target[n] = '\0';
	struct ext4_meta m = meta_of(w, st, 0777);
	return ext4_add_symlink(w->v, dir, name, &m, target, host, ino);
}

static int add_host_special(struct ext4_walk *w, const char *name, const struct stat *st,
			    uint32_t dir, const char *host, uint32_t *ino)
{
	enum ext4_special kind = S_ISCHR(st->st_mode) ? EXT4_CHAR : S_ISBLK(st->st_mode) ? EXT4_BLOCK
			       : S_ISFIFO(st->st_mode) ? EXT4_FIFO : EXT4_SOCKET;
	struct ext4_meta m = meta_of(w, st, st->st_mode & 07777);
	return ext4_add_special(w->v, dir, name, &m, kind, major(st->st_rdev), minor(st->st_rdev),
				host, ino);
}

/* A host folder and what is below it; @takes: the filters keep it for itself. The walk
 * goes below a folder left out too, where a name may stay and the patterns count. */
static int add_host_folder(struct ext4_walk *w, int dirfd, const char *name,
			   const struct stat *st, struct walk_folder *up, const char *host,
			   bool takes)
{
	struct walk_folder f = { up, name, host, meta_of(w, st, st->st_mode & 07777), 0 };
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	int rc;

	if (fd < 0)
		return diag_error(w->b->d, "%s: %s", host, strerror(errno));
	rc = takes ? make_folder(w, &f) : 0;
	return rc < 0 ? (close(fd), rc) : walk_dir(w, fd, &f, host);
}

/* One name of a host folder, and what is below it. The filters judge a symbolic link by
 * its own path, as a file: ext4 keeps it a link. */
static int add_host_entry(struct ext4_walk *w, int dirfd, const char *name,
			  struct walk_folder *dir, const char *host)
{
	struct stat st;
	uint32_t ino = 0;
	int rc;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return diag_error(w->b->d, "%s: %s", host, strerror(errno));
	bool takes = !w->filter || content_filter_takes(w->filter, host + w->top_len + 1,
							 S_ISDIR(st.st_mode));
	if (S_ISDIR(st.st_mode))
		return add_host_folder(w, dirfd, name, &st, dir, host, takes);
	struct host_link *l = st.st_nlink > 1 ? find_link(w, &st) : NULL;
	if (!takes)
		return l || st.st_nlink < 2 ? 0 : leave_out_linked(w, &st, host);
	if ((rc = make_folder(w, dir)) < 0)
		return rc;
	if (l && l->ext4_ino)
		return ext4_add_hard_link(w->v, dir->ino, name, l->ext4_ino, host);
	if (S_ISREG(st.st_mode))
		rc = add_host_file(w, name, &st, dir->ino, host, l, &ino);
	else if (S_ISLNK(st.st_mode))
		rc = add_host_symlink(w, dirfd, name, &st, dir->ino, host, &ino);
	else
		rc = add_host_special(w, name, &st, dir->ino, host, &ino);
	if (rc == 0 && l)
		l->ext4_ino = ino;
	else if (rc == 0 && st.st_nlink > 1)
		rc = remember_link(w, &st, ino, 0);
	return rc;
}

/* The names of the host folder open at @fd (closed here) into the folder @dir. */
static int walk_dir(struct ext4_walk *w, int fd, struct walk_folder *dir, const char *host)
{
	char **names = NULL;
	size_t n = 0;
	int rc;

	if (w->depth >= CONTENT_MAX_DEPTH) {
		close(fd);
		return diag_error(w->b->d, "%s: more than %d folders deep", host, CONTENT_MAX_DEPTH);
	}
	int keep = dup(fd);
	if (keep < 0) {
		close(fd);
		return diag_error(w->b->d, "%s: %s", host, strerror(errno));
	}
	if ((rc = list_names(w, fd, host, &names, &n)) < 0) {
		close(keep);
		return rc;
	}
	w->depth++;
	for (size_t i = 0; i < n; i++) {
		char *path = NULL;
		if (rc == 0 && asprintf(&path, "%s/%s", host, names[i]) < 0)
			rc = -ENOMEM;
		if (rc == 0)
			rc = add_host_entry(w, keep, names[i], dir, path);
		if (rc == 0 && build_interrupted(w->b))
			rc = -EINTR;
		free(path);
		free(names[i]);
	}
	w->depth--;
	free(names);
	close(keep);
	return rc;
}

/* The folder at @path (absolute, "/" the root), made with 0:0, 0755 and the timestamp
 * where it is missing; its inode in @ret_ino. */
int build_ext4_folder_at(struct ext4_walk *w, const char *path, uint32_t *ret_ino)
{
	struct ext4_meta m = { .perm = 0755, .mtime = w->b->l->image.timestamp };
	uint32_t dir = EXT4_ROOT;
	char name[256];

	for (const char *p = path + 1; *p;) {
		size_t n = strcspn(p, "/");
		bool is_dir;
		uint32_t ino;
		if (n >= sizeof(name))
			return diag_error(w->b->d, "%s:%d: '%s': a name longer than 255 bytes",
					  w->e->loc.file, w->e->loc.line, path);
		memcpy(name, p, n);
		name[n] = '\0';
		int rc = ext4_lookup(w->v, dir, name, &ino, &is_dir);
		if (rc == 0 && !is_dir)
			return diag_error(w->b->d, "%s:%d: '%s': '%s' is not a folder",
					  w->e->loc.file, w->e->loc.line, path, name);
		if (rc < 0 && (rc = ext4_add_dir(w->v, dir, name, &m, path, &ino)) < 0)
			return rc;
		dir = ino;
		p += n + (p[n] == '/');
	}
	*ret_ino = dir;
	return 0;
}

/* Splits @path into its folder (made where missing) and last name (pointing into @path). */
static int parent_at(struct ext4_walk *w, const char *path, uint32_t *ret_dir,
		     const char **ret_name)
{
	const char *slash = strrchr(path, '/');
	char *dir = strndup(path, (size_t)(slash - path) + (slash == path));

	if (!dir)
		return -ENOMEM;
	int rc = build_ext4_folder_at(w, dir, ret_dir);
	free(dir);
	*ret_name = slash + 1;
	return rc;
}

/* The host folder @host (@st) of a tree entry, and all below it. */
static int add_host_tree(struct ext4_walk *w, const char *host, const struct stat *st)
{
	const struct layout_entry *e = w->e;
	struct walk_folder top = { .host = host };

	if (e->strip)
		return diag_error(w->b->d, "%s:%d: tree '%s': strip = %u: %s is a folder, and strip "
					   "applies to archive entries", e->loc.file, e->loc.line, e->path,
				  e->strip, host);
	int fd = open(host, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return diag_error(w->b->d, "%s: %s", host, strerror(errno));
	int rc = build_ext4_folder_at(w, e->path, &top.ino);
	struct ext4_meta m = meta_of(w, st, st->st_mode & 07777);
	if (rc == 0)
		rc = ext4_add_dir(w->v, top.ino, NULL, &m, host, NULL);
	w->top_len = strlen(host);
	rc = rc < 0 ? (close(fd), rc) : walk_dir(w, fd, &top, host);
	int rc2 = write_pending(w); /* frees what is left after an error too */
	return rc < 0 ? rc : rc2;
}

/* A tree entry from a host folder or an archive, through its include and exclude when it
 * has them; a pattern that matched nothing is then a warning naming the layout line. */
static int add_tree(struct ext4_walk *w, const char *host)
{
	const struct layout_entry *e = w->e;
	struct content_filter filter;
	struct stat st;
	int rc;

	if (stat(host, &st) < 0)
		return diag_error(w->b->d, "%s:%d: tree '%s': %s: %s", e->loc.file, e->loc.line,
				  e->path, host, strerror(errno));
	if (!e->n_include && !e->n_exclude)
		return S_ISDIR(st.st_mode) ? add_host_tree(w, host, &st) : build_ext4_archive(w, host);
	if ((rc = content_filter_init(&filter, e)) < 0)
		return rc;
	w->filter = &filter;
	rc = S_ISDIR(st.st_mode) ? add_host_tree(w, host, &st) : build_ext4_archive(w, host);
	w->filter = NULL;
	if (rc == 0) {
		char place[600];
		snprintf(place, sizeof(place), "%s:%d: partition '%s': tree '%s': ", e->loc.file,
			 e->loc.line, w->p->name, e->path);
		content_filter_warn(&filter, place, w->b->d);
	}
	content_filter_release(&filter);
	return rc;
}

static int add_file(struct ext4_walk *w, const char *host)
{
	const struct layout_entry *e = w->e;
	struct text_reader t = { e->content, e->content ? strlen(e->content) : 0 };
	const char *name;
	uint32_t dir;
	struct stat st;
	int rc = parent_at(w, e->path, &dir, &name);

	if (rc < 0 || !host) {
		struct ext4_meta m = meta_of(w, NULL, 0644);
		return rc < 0 ? rc : ext4_add_file(w->v, dir, name, &m, t.left, read_text, &t,
						   e->path, NULL);
	}
	int fd = open(host, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		rc = diag_error(w->b->d, "%s:%d: file '%s': %s: %s", e->loc.file, e->loc.line,
				e->path, host, fd < 0 ? strerror(errno) : "not a regular file");
	} else {
		struct ext4_meta m = meta_of(w, &st, st.st_mode & 07777);
		rc = ext4_add_file(w->v, dir, name, &m, (uint64_t)st.st_size, build_ext4_read_fd, &fd, host,
				   NULL);
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

static int add_entry(struct ext4_walk *w)
{
	const struct layout_entry *e = w->e;
	char *host = NULL;
	int rc = 0;

	if (e->from) {
		char place[600];
		snprintf(place, sizeof(place), "%s:%d: ", e->loc.file, e->loc.line);
		if ((rc = layout_input_path(w->b->l, e->from, place, w->b->d, &host)) < 0)
			return rc;
	}
	if (e->kind == LAYOUT_ENTRY_TREE) {
		rc = add_tree(w, host);
	} else if (e->kind == LAYOUT_ENTRY_FILE) {
		rc = add_file(w, host);
	} else {
		uint32_t ino;
		struct ext4_meta m = meta_of(w, NULL, 0755);
		if ((rc = build_ext4_folder_at(w, e->path, &ino)) == 0)
			rc = ext4_add_dir(w->v, ino, NULL, &m, e->path, NULL);
	}
	free(host);
	return rc;
}

/* Returns 0 or -EIO (the ids' hasher failed: its diag says so). */
static int params_of(const struct build *b, const struct layout_partition *p,
		     struct ext4_params *ret)
{
	const struct layout *l = b->l;
	const struct layout_ext4 *x = &p->ext4;
	struct layout_guid uuid;

	*ret = (struct ext4_params){ .label = x->label, .block_size = x->block_size,
				     .inode_size = x->inode_size,
				     .inodes = x->inodes_set ? x->inodes : 0,
				     .reserved_percent = x->reserved, .journal = x->journal,
				     .features = x->features,
				     .timestamp = l->image.timestamp };
	int rc = build_id_ext4(b->sha, l->image.seed, p->name, &uuid, ret->hash_seed);
	memcpy(ret->uuid, x->uuid_set ? x->uuid.b : uuid.b, 16);
	return rc;
}

struct map_ctx {
	struct build *b;
	uint64_t start;
};

static int map_range(void *ctx, uint64_t start, uint64_t len)
{
	struct map_ctx *m = ctx;
	return build_map_add(&m->b->map, m->start + start, len);
}

/* The volume of @size bytes at @start of @fd with partition @p's entries: 0 with the volume
 * in *@ret, or a negative errno (-ENOSPC: too small) with the messages in @d. */
static int build_volume(struct build *b, const struct layout_partition *p,
			const struct ext4_params *params, int fd, uint64_t start, uint64_t size,
			struct diag *d, struct ext4_volume **ret)
{
	struct ext4_walk w = { .b = b, .p = p };
	struct diag *keep = b->d;
	int rc;

	b->d = d;
	if ((rc = ext4_create(fd, start, size, params, b->o->output, d, &w.v)) < 0) {
		b->d = keep;
		return rc;
	}
	for (size_t k = 0; rc == 0 && k < p->n_entries; k++) {
		w.e = &p->entries[k];
		rc = add_entry(&w);
	}
	if (rc == 0)
		rc = ext4_index_folders(w.v);
	free(w.links);
	free(w.data);
	b->d = keep;
	if (rc < 0)
		ext4_discard(w.v);
	else
		*ret = w.v;
	return rc;
}

int build_check_ext4(struct build *b, size_t i)
{
	const struct layout_partition *p = &b->l->parts[i];
	char why[256];

	if (ext4_features_check(p->ext4.features, why, sizeof(why)) < 0)
		return diag_error(b->d, "%s:%d: partition '%s': ext4: features: %s",
				  p->ext4.loc.file, p->ext4.loc.line, p->name, why);
	return 0;
}

int build_write_ext4(struct build *b, size_t i)
{
	const struct layout_partition *p = &b->l->parts[i];
	const struct plan_region *r = build_region_of(b, i);
	struct ext4_params params;
	struct ext4_volume *v;

	if (params_of(b, p, &params) < 0)
		return -EIO;
	int rc = build_volume(b, p, &params, b->image.fd, r->start, r->size, b->d, &v);
	if (rc == -ENOSPC && p->size_kind == LAYOUT_SIZE_AUTO)
		diag_note(b->d, "partition '%s': the files took more blocks than measured: give "
				"it an 'extra'", p->name);
	if (rc < 0)
		return rc;
	struct map_ctx mc = { b, r->start };
	rc = ext4_used_ranges(v, map_range, &mc);
	if (rc < 0) {
		ext4_discard(v);
		return rc;
	}
	return ext4_finish(v);
}

/* The messages of a trial that failed for a reason of its inputs, in @to as they came: the
 * build stops there, so they are said once, as a build would have said them. */
static void keep_messages(struct diag *to, const struct diag *from)
{
	for (size_t i = 0; i < from->n; i++) {
		const struct diag_msg *m = &from->msgs[i];
		if (m->level == DIAG_ERROR)
			diag_error(to, "%s", m->text);
		else if (m->level == DIAG_WARNING)
			diag_warning(to, "%s", m->text);
		else
			diag_note(to, "%s", m->text);
	}
}

/* One trial at @size in the scratch file @fd: 0 fits, -ENOSPC does not, else an error of
 * the inputs (its messages in b->d). */
static int trial(struct build *b, const struct layout_partition *p,
		 const struct ext4_params *params, int fd, uint64_t size)
{
	struct ext4_volume *v = NULL;
	struct diag scratch;

	if (ftruncate(fd, 0) < 0 || ftruncate(fd, (off_t)size) < 0)
		return diag_error(b->d, "measuring partition '%s': %s", p->name, strerror(errno));
	diag_init(&scratch);
	int rc = build_volume(b, p, params, fd, 0, size, &scratch, &v);
	ext4_discard(v);
	if (rc < 0 && rc != -ENOSPC)
		keep_messages(b->d, &scratch);
	diag_release(&scratch);
	return rc;
}

int build_measure_ext4(struct build *b, size_t i, uint64_t *ret)
{
	const struct layout_partition *p = &b->l->parts[i];
	struct ext4_params params;
	uint64_t bs, unit, lo = 0, hi = 4ull << 20;
	int rc, fd = memfd_create("sdimg-ext4-measure", MFD_CLOEXEC);

	if (fd < 0)
		return diag_error(b->d, "measuring partition '%s': %s", p->name, strerror(errno));
	if (params_of(b, p, &params) < 0) {
		close(fd);
		return -EIO;
	}
	params.measure = true;
	bs = params.block_size;
	/* sizes tried in whole units: the partition's align, from one block up to 1 MiB */
	unit = p->align < bs ? bs : p->align > (1u << 20) ? 1u << 20 : (p->align + bs - 1) / bs * bs;
	hi = (hi + unit - 1) / unit * unit;
	while ((rc = trial(b, p, &params, fd, hi)) == -ENOSPC && hi < LAYOUT_MAX_BYTES / 2) {
		lo = hi;
		hi *= 2;
	}
	while (rc == 0 && hi - lo > unit) {
		uint64_t mid = lo + (hi - lo) / unit / 2 * unit;
		int one = trial(b, p, &params, fd, mid);
		if (one == 0)
			hi = mid;
		else if (one == -ENOSPC)
			lo = mid;
		else
			rc = one;
	}
	close(fd);
	*ret = hi;
	return rc;
}
