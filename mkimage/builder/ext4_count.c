/* SPDX-License-Identifier: MIT */
/*
 * ext4_count: what an ext4 partition of one tree from a host folder takes, counted from
 * the tree's walk (ext4/count.c) instead of a trial build, for `size = auto`: the walk is
 * the one ext4_folder.c's build makes (the same filters, names, order and hard links), but
 * no file is opened, read or asked for its attributes, and nothing is written. The count is
 * checked by the build that follows (ext4_part.c): where it was not what the build took, or
 * the tree is one the count cannot be sure of, the size is found by a trial as before.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/array.h"
#include "common/path.h"
#include "ext4/ext4.h"
#include "mkimage/builder/builder_priv.h"
#include "mkimage/contents/contents.h"

/* A host file with more than one name, and whether its inode is counted. */
struct count_link {
	dev_t dev;
	ino_t ino;
	bool counted;
};

struct count_walk {
	struct build *b;
	struct ext4_count *c;
	uint64_t longest;     /* the most blocks a file may have in one or two extents */
	uint64_t tree_margin; /* the most extent tree blocks files may take (none in one or
			       * two extents) */
	uint32_t block_size;
	bool unsure; /* a file the count cannot be sure of: a sparse one */
	char *buf;   /* COUNT_CHUNK bytes of a file read, allocated once */
	char *zeros; /* a block of zeros */
	struct count_link *links;
	size_t n_links, cap_links;
};

/* A host folder on the walk, counted when a name in it (or itself) stays, as
 * ext4_folder.c makes it. */
struct count_folder {
	struct count_folder *up; /* NULL: the tree's top, counted already */
	const char *name;
	uint32_t dir;
	bool counted;
};

static int count_folder(struct count_walk *w, struct count_folder *f)
{
	int rc;

	if (f->counted)
		return 0;
	if ((rc = count_folder(w, f->up)) < 0 ||
	    (rc = ext4_count_dir(w->c, f->up->dir, f->name, &f->dir)) < 0)
		return rc;
	f->counted = true;
	return 0;
}

static int folder_in(void *ctx, void *up, const struct content_walk_entry *e, int fd, void **ret)
{
	struct count_walk *w = ctx;
	struct count_folder *f = malloc(sizeof(*f));
	int rc;

	(void)fd;
	if (!f)
		return -ENOMEM;
	*f = (struct count_folder){ up, e->name, 0, false };
	if ((rc = e->takes ? count_folder(w, f) : 0) < 0) {
		free(f);
		return rc;
	}
	*ret = f;
	return 0;
}

static void folder_done(void *ctx, void *folder)
{
	(void)ctx;
	free(folder);
}

static struct count_link *find_link(struct count_walk *w, const struct stat *st)
{
	for (size_t i = 0; i < w->n_links; i++)
		if (w->links[i].dev == st->st_dev && w->links[i].ino == st->st_ino)
			return &w->links[i];
	return NULL;
}

static int remember_link(struct count_walk *w, const struct stat *st, bool counted)
{
	if (array_grow((void **)&w->links, &w->cap_links, w->n_links + 1, sizeof(*w->links)) < 0)
		return -ENOMEM;
	w->links[w->n_links++] = (struct count_link){ st->st_dev, st->st_ino, counted };
	return 0;
}

/* A file whose blocks the count cannot be sure of: one with holes (read as zeros, which
 * the build leaves out: a file read whole, 64 KiB or less, is checked by the build
 * instead). */
static bool unsure_file(const struct stat *st)
{
	uint64_t size = (uint64_t)st->st_size;

	return size > (64u << 10) && (uint64_t)st->st_blocks * 512 < size;
}

/* The most extent tree blocks a file of @blocks blocks with bytes, in @runs runs (holes
 * between them), takes: every @w->longest blocks of it (at most an extent's 32,768) may be
 * cut by a used range, so it lies in that many extents and two more for each run. */
static uint64_t tree_blocks_most(const struct count_walk *w, uint64_t blocks, uint64_t runs)
{
	uint64_t run = w->longest && w->longest < 32768 ? w->longest : 32768;

	return ext4_tree_blocks_for(blocks / run + 2 * runs, w->block_size);
}

/* Files of this many bytes or more are read by the count: their blocks of zeros, which the
 * build leaves out (holes), are not counted. In the root file systems measured, every file
 * with a block of zeros before more of its bytes was that large (binaries, libraries); a
 * smaller one makes the count a block or so high, which the build's check finds. */
#define READ_FROM (64u << 10)
#define COUNT_CHUNK (256u << 10)

/* A file's blocks that hold bytes, and the runs they lie in. */
struct file_blocks {
	uint64_t blocks, runs;
};

/* Adds the @got bytes in w->buf, from a block's start, to @fb (@in_run: the block before held
 * bytes). */
static void add_blocks(const struct count_walk *w, size_t got, struct file_blocks *fb, bool *in_run)
{
	for (size_t off = 0; off < got; off += w->block_size) {
		size_t n = got - off < w->block_size ? got - off : w->block_size;
		bool zeros = memcmp(w->buf + off, w->zeros, n) == 0;
		fb->blocks += !zeros;
		fb->runs += !zeros && !*in_run;
		*in_run = !zeros;
	}
}

/* The blocks of entry @e, a regular file, read from it. 0; 1 when it cannot be read as it
 * was listed (the count leaves the tree to a trial then, and the build tells what is
 * wrong); -EINTR or -ENOMEM. */
static int read_blocks(struct count_walk *w, const struct content_walk_entry *e,
		       struct file_blocks *ret)
{
	uint64_t size = (uint64_t)e->st->st_size, pos = 0;
	bool in_run = false;

	*ret = (struct file_blocks){ 0, 0 };
	if ((!w->buf && !(w->buf = malloc(COUNT_CHUNK))) ||
	    (!w->zeros && !(w->zeros = calloc(1, w->block_size))))
		return -ENOMEM;
	int fd = path_open_at(e->dirfd, e->name, O_NOFOLLOW);
	if (fd < 0)
		return 1;
	while (pos < size && !build_interrupted(w->b)) {
		size_t want = size - pos < COUNT_CHUNK ? (size_t)(size - pos) : COUNT_CHUNK,
		       got = 0;
		ssize_t n = 1;
		while (got < want && (n = read(fd, w->buf + got, want - got)) != 0)
			if (n > 0)
				got += (size_t)n;
			else if (errno != EINTR)
				break;
		if (got < want)
			break;
		add_blocks(w, got, ret, &in_run);
		pos += got;
	}
	close(fd);
	return build_interrupted(w->b) ? -EINTR : pos < size ? 1 : 0;
}

/* One name but a folder, as walk_entry() in ext4_folder.c takes it. */
static int entry(void *ctx, void *folder, const struct content_walk_entry *e)
{
	struct count_walk *w = ctx;
	struct count_folder *dir = folder;
	const struct stat *st = e->st;
	int rc;

	struct count_link *l = st->st_nlink > 1 ? find_link(w, st) : NULL;
	if (!e->takes)
		return l || st->st_nlink < 2 ? 0 : remember_link(w, st, false);
	if ((rc = count_folder(w, dir)) < 0)
		return rc;
	if (l && l->counted)
		return ext4_count_link(w->c, dir->dir, e->name);
	if (S_ISREG(st->st_mode)) {
		struct file_blocks fb = {
			((uint64_t)st->st_size + w->block_size - 1) / w->block_size, 1
		};
		w->unsure |= unsure_file(st);
		if (!w->unsure && (uint64_t)st->st_size >= READ_FROM &&
		    (rc = read_blocks(w, e, &fb)) != 0)
			return rc < 0 ? rc : (w->unsure = true, 0);
		w->tree_margin += tree_blocks_most(w, fb.blocks, fb.runs);
		rc = ext4_count_inode(w->c, dir->dir, e->name, fb.blocks * w->block_size);
	} else if (S_ISLNK(st->st_mode)) {
		/* a target the build refuses, or one it reads longer than it was listed */
		w->unsure |= !st->st_size || (uint64_t)st->st_size >= w->block_size;
		rc = ext4_count_symlink(w->c, dir->dir, e->name, (size_t)st->st_size);
	} else {
		rc = ext4_count_inode(w->c, dir->dir, e->name, 0);
	}
	if (rc == 0 && l)
		l->counted = true;
	else if (rc == 0 && st->st_nlink > 1)
		rc = remember_link(w, st, true);
	return rc;
}

static bool stops(void *ctx)
{
	return build_interrupted(((struct count_walk *)ctx)->b);
}

/* The folders of the tree's place @path ("/a/b"), all new in an empty volume but the root;
 * -EINVAL for lost+found, which is there already. */
static int count_place(struct ext4_count *c, const char *path, uint32_t *ret)
{
	uint32_t dir = EXT4_COUNT_ROOT;
	char name[256];

	for (const char *p = path + 1; *p;) {
		size_t n = strcspn(p, "/");
		if (!n || n >= sizeof(name))
			return -EINVAL;
		memcpy(name, p, n);
		name[n] = '\0';
		if (dir == EXT4_COUNT_ROOT && !strcmp(name, "lost+found"))
			return -EINVAL;
		int rc = ext4_count_dir(c, dir, name, &dir);
		if (rc < 0)
			return rc;
		p += n + (p[n] == '/');
	}
	*ret = dir;
	return 0;
}

/* Whether partition @p is one the count serves: its one entry a tree from a host folder
 * (at @host), the default features. */
static bool countable(const struct layout_partition *p, const char *host)
{
	const struct layout_entry *e = &p->entries[0];
	struct stat st;

	return p->n_entries == 1 && e->kind == LAYOUT_ENTRY_TREE && !e->strip &&
	       !p->ext4.features && stat(host, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The tree's walk as ext4_folder.c's, whose caps are @caps (build_ext4_caps). */
static int walk(struct count_walk *w, const struct layout_entry *e, const char *host,
		const struct content_caps *caps, struct diag *d)
{
	const struct content_walk_ops ops = {
		.folder = folder_in,
		.folder_done = folder_done,
		.entry = entry,
		.stop = stops,
		.caps = caps,
		.sees_left_out = true,
	};
	struct content_filter filter;
	struct count_folder top = { .counted = true };
	bool filtered = e->n_include || e->n_exclude;
	int rc = count_place(w->c, e->path, &top.dir);

	if (rc < 0)
		return rc;
	if (filtered && (rc = content_filter_init(&filter, e)) < 0)
		return rc;
	int fd = open(host, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	rc = fd < 0 ? -errno
		    : content_walk_host(fd, host, e->links, &top, filtered ? &filter : NULL, &ops,
					w, d);
	if (filtered)
		content_filter_release(&filter);
	return rc;
}

int build_count_ext4(struct build *b, size_t i, const struct ext4_params *params,
		     const struct content_caps *caps, uint64_t longest, struct ext4_count_sum *ret)
{
	const struct layout_partition *p = &b->l->parts[i];
	struct count_walk w = { .b = b, .longest = longest, .block_size = params->block_size };
	char *host = NULL, place[600];
	struct diag scratch;
	int rc;

	diag_init(&scratch);
	snprintf(place, sizeof(place), "%s:%d: ", p->loc.file, p->loc.line);
	if (p->n_entries != 1 || !p->entries[0].from ||
	    layout_input_path(b->l, p->entries[0].from, place, &scratch, &host) < 0 ||
	    !countable(p, host)) {
		diag_release(&scratch);
		free(host);
		return 1;
	}
	rc = ext4_count_new(params, &w.c);
	if (rc == 0)
		rc = walk(&w, &p->entries[0], host, caps, &scratch);
	if (rc == 0)
		rc = ext4_count_total(w.c, ret);
	if (rc == 0)
		ret->blocks += w.tree_margin, ret->most += w.tree_margin; /* checked by the build */
	/* what went wrong, the trial meets again and says as the build does */
	rc = rc == -EINTR || rc == -ENOMEM ? rc : rc < 0 || w.unsure ? 1 : 0;
	ext4_count_free(w.c);
	free(w.links);
	free(w.buf);
	free(w.zeros);
	free(host);
	diag_release(&scratch);
	return rc;
}
