/*
 * host_tree: the layout's tree, file and dir entries of a FAT partition, read from the host.
 * Directories are read in full and sorted by the bytes of their names, so the host's
 * listing order never matters; symbolic links that resolve are followed (a loop is an
 * error); dangling links, devices, fifos and sockets are errors. A folder's entries are
 * looked up relative to the descriptor it was listed through, and a folder is entered
 * through a link only where the listing saw one: a folder swapped for a link while it is
 * walked cannot lead the walk elsewhere. (A file unreadable to us is found when its bytes
 * are copied; fat/ checks there that it is still the file listed here.) A tree's include
 * and exclude judge each entry before it is examined: what they leave out is never followed
 * nor checked.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/array.h"
#include "common/path.h"
#include "mkimage/contents/contents_priv.h"

struct gatherer {
	const struct layout *l;
	struct content *c;
	struct diag *d;
	size_t source;
	/* the directories being walked, for symbolic-link loops */
	struct {
		dev_t dev;
		ino_t ino;
	} chain[CONTENT_MAX_DEPTH + 1]; /* the top and its folders */
	size_t depth;
	const char *top;              /* the tree's folder, for messages */
	struct stat top_st;           /* ... as it was opened */
	enum layout_links links;      /* which symbolic links the tree follows */
	size_t in_links;              /* folders on the chain reached through a symbolic link */
	struct content_copies copies; /* what the folder holds, what its links copy */
	struct faulty *faulty;        /* owned: the entries refused so far, each told once */
	size_t n_faulty, faulty_cap;
	struct content_filter *filter; /* the tree's include and exclude (NULL: none) */
	const char *tree_path;         /* the tree's path in the partition */
};

/* What a tree's include and exclude say of an entry of its folder when its walk meets it. */
enum judgement {
	JUDGE_NONE,  /* no filters: every entry stays */
	JUDGE_TAKEN, /* it stays by its own name */
	JUDGE_LEFT_OUT, /* a folder left out by its name, not excluded: walked, for what include may take */
	JUDGE_LATER, /* a symbolic link not excluded: what it leads to is judged */
	JUDGE_DROP,  /* left out with all it may hold: never looked at further */
};

/* An entry of the tree that was refused: the folder links that reach it again (each a path
 * of its own) add to the count of its one message instead of a message each. */
struct faulty {
	dev_t dev;
	ino_t ino;
	size_t msg;  /* its message in the diag */
	size_t more; /* the other paths that reached it */
};

static int64_t node_mtime(const struct gatherer *g, const struct stat *st, uint32_t *ret_ns)
{
	return content_mtime(&g->l->image, st ? &st->st_mtim : NULL, ret_ns);
}

static int add_dir(struct gatherer *g, const char *path, const struct stat *st, const char *origin,
		   enum judgement j)
{
	struct content_node n = { .path = (char *)path,
				  .is_dir = true,
				  .source = g->source,
				  .origin = (char *)origin,
				  .judged = j != JUDGE_NONE,
				  .left_out = j == JUDGE_LEFT_OUT };

	n.mtime = node_mtime(g, st, &n.mtime_ns);
	return content_add(g->c, &n, g->d);
}

/*
 * What @name in folder @dirfd (AT_FDCWD: @name is a path) is, after following links, in
 * *@st: 1 a folder, 0 anything else (check_kind() says whether FAT takes it), or an error
 * naming @host (its path). *@ret_lst (may be NULL) is @name itself, a symbolic link or not
 * (its st_ino 0 when even that is unknown).
 */
static int check_entry(struct gatherer *g, int dirfd, const char *name, const char *host,
		       struct stat *st, struct stat *ret_lst)
{
	struct stat own, *lst = ret_lst ? ret_lst : &own;

	if (fstatat(dirfd, name, lst, AT_SYMLINK_NOFOLLOW) < 0)
		return diag_error(g->d, "%s: %s", host, strerror(errno));
	if (!S_ISLNK(lst->st_mode))
		*st = *lst;
	else if (fstatat(dirfd, name, st, 0) < 0)
		return errno == ENOENT ? diag_error(g->d, "%s: dangling symbolic link", host)
				       : diag_error(g->d, "%s: %s", host, strerror(errno));
	return S_ISDIR(st->st_mode) ? 1 : 0;
}

/* 0 when @st (not a folder), named @host, is what FAT holds (content_caps_fat); else an
 * error. A link is judged before (check_link()): where it leads comes first. */
static int check_kind(struct gatherer *g, const char *host, const struct stat *st)
{
	return content_caps_check(&content_caps_fat, st->st_mode, host, NULL, g->d);
}

/*
 * Whether the tree's `links` takes the symbolic link @name of the folder @dirfd (@host), which
 * check_entry() saw lead to @st: 0, or an error naming the link and its target.
 */
static int check_link(struct gatherer *g, int dirfd, const char *name, const char *host,
		      const struct stat *st)
{
	char target[PATH_MAX + 1];
	struct stat end;
	ssize_t n;

	if (g->links == LAYOUT_LINKS_FOLLOW)
		return 0;
	if ((n = readlinkat(dirfd, name, target, sizeof(target) - 1)) < 0)
		return diag_error(g->d, "%s: %s", host, strerror(errno));
	target[n] = '\0';
	if (g->links == LAYOUT_LINKS_REFUSE)
		return diag_error(g->d,
				  "%s: a symbolic link (to %s), and links = refuse takes none",
				  host, target);
	int rc = content_link_inside(dirfd, name, &g->top_st, &end);
	if (rc < 0)
		return diag_error(g->d, "%s: following the symbolic link to %s: %s", host, target,
				  strerror(-rc));
	if (end.st_dev != st->st_dev || end.st_ino != st->st_ino)
		return diag_error(g->d,
				  "%s: changed while it was read (the symbolic link leads "
				  "elsewhere)",
				  host);
	if (rc == 0)
		return diag_error(g->d,
				  "%s: a symbolic link to %s, outside the tree %s (links = "
				  "inside, the default, follows only links inside it; links = "
				  "follow "
				  "takes this one)",
				  host, target, g->top);
	return 0;
}

/* A host file given by its path: a regular file (0) or a folder (1), after following links. */
static int check_file(struct gatherer *g, const char *host, struct stat *st)
{
	int rc = check_entry(g, AT_FDCWD, host, host, st, NULL);

	return rc == 0 ? check_kind(g, host, st) : rc;
}

/*
 * Opens the folder @name of @dirfd that was listed as @st (named @host in messages), through
 * a symbolic link only when @link: its descriptor, or a negative errno with a message.
 */
static int open_folder(struct gatherer *g, int dirfd, const char *name, const char *host,
		       const struct stat *st, bool link)
{
	struct stat now;
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (link ? 0 : O_NOFOLLOW));

	if (fd < 0)
		return diag_error(g->d, "%s: %s", host,
				  errno == ELOOP || errno == ENOTDIR ? "changed while it was read "
								       "(no longer a folder)"
								     : strerror(errno));
	if (fstat(fd, &now) < 0 || now.st_dev != st->st_dev || now.st_ino != st->st_ino) {
		close(fd);
		return diag_error(g->d, "%s: changed while it was read (another folder)", host);
	}
	return fd;
}

static int add_host_file(struct gatherer *g, const char *path, const char *host,
			 const struct stat *st, unsigned attrs, bool first, enum judgement j)
{
	struct content_node n = {
		.path = (char *)path,
		.host_path = (char *)host,
		.size = (uint64_t)st->st_size,
		.attrs = attrs,
		.first = first,
		.source = g->source,
		.origin = (char *)host,
		.host_id = fileid_of(st),
		.judged = j != JUDGE_NONE,
		.left_out = j == JUDGE_LEFT_OUT,
	};

	n.mtime = node_mtime(g, st, &n.mtime_ns);
	return content_add(g->c, &n, g->d);
}

static int walk(struct gatherer *g, int dirfd, const char *host, const char *path);

/* An entry of a folder as its listing gave it. */
struct listed {
	char *name;
	unsigned char type; /* the listing's DT_ type (DT_UNKNOWN: the file system does not say) */
};

static int compare_names(const void *a, const void *b)
{
	return strcmp(((const struct listed *)a)->name, ((const struct listed *)b)->name);
}

/* The entries of the folder @dirfd (named @host in messages), sorted by their names' bytes. */
static int list_dir(struct gatherer *g, int dirfd, const char *host, struct listed **ret,
		    size_t *ret_n)
{
	int fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	DIR *dir = fd < 0 ? NULL : fdopendir(fd);
	struct listed *names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;

	if (!dir) {
		int saved = errno;
		if (fd >= 0)
			close(fd);
		return diag_error(g->d, "%s: %s", host, strerror(saved));
	}
	rewinddir(dir); /* the copy shares @dirfd's position, which count_held() moved */
	while ((errno = 0, e = readdir(dir))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (array_grow((void **)&names, &cap, n + 1, sizeof(*names)) < 0 ||
		    !(names[n].name = strdup(e->d_name))) {
			closedir(dir);
			*ret = names;
			*ret_n = n;
			return -ENOMEM;
		}
		names[n++].type = e->d_type;
	}
	int saved = errno;
	closedir(dir);
	*ret = names;
	*ret_n = n;
	if (saved)
		return diag_error(g->d, "%s: %s", host, strerror(saved));
	if (n > 1) /* an empty folder has no array to sort */
		qsort(names, n, sizeof(*names), compare_names);
	return 0;
}

/*
 * Counts an entry of @size bytes as a copy made by a link (the folder's own were counted
 * before the walk, count_held()): -E2BIG past the bound on copies, which stops the whole
 * walk (it would only fail again).
 */
static int count_entry(struct gatherer *g, uint64_t size)
{
	if (g->in_links)
		return content_count_copy(&g->copies, size, g->top, g->d) < 0 ? -E2BIG : 0;
	return 0;
}

/*
 * Adds what the folder @dirfd holds of its own, @depth folders below the tree's top, to
 * g->copies: each entry, and the bytes of each file (a link to a file counts its file's,
 * as the walk takes them); folders reached through links are copies, not counted here.
 * Counted in full before the walk, so that the bound on copies is the same whatever names
 * the links have (a link walked before the folder it copies is judged as one walked after
 * it). Says nothing: what cannot be read here is told by the walk.
 */
static void count_held(struct gatherer *g, int dirfd, size_t depth)
{
	struct diag quiet = { 0 }, *d = g->d;
	struct listed *names = NULL;
	size_t n = 0;

	g->d = &quiet;
	list_dir(g, dirfd, "", &names, &n);
	g->d = d;
	diag_release(&quiet);
	for (size_t i = 0; i < n; i++) {
		struct stat lst, st;
		g->copies.held_nodes++;
		if (fstatat(dirfd, names[i].name, &lst, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISREG(lst.st_mode) ||
		    (S_ISLNK(lst.st_mode) && fstatat(dirfd, names[i].name, &st, 0) == 0 &&
		     S_ISREG(st.st_mode)))
			g->copies.held_bytes += (uint64_t)(S_ISREG(lst.st_mode) ? lst : st).st_size;
		if (!S_ISDIR(lst.st_mode) || depth >= CONTENT_MAX_DEPTH)
			continue;
		int fd = openat(dirfd, names[i].name,
				O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0) {
			count_held(g, fd, depth + 1);
			close(fd);
		}
	}
	for (size_t i = 0; i < n; i++)
		free(names[i].name);
	free(names);
}

/*
 * Whether the entry @le of the folder @dirfd (@host) may go into the tree: 0 a file, 1 a
 * folder (its st in *@st, *@lst the entry itself), else an error.
 */
static int check_listed(struct gatherer *g, int dirfd, const struct listed *le, const char *host,
			struct stat *st, struct stat *lst)
{
	bool link;
	int rc;

	lst->st_ino = 0;
	rc = check_entry(g, dirfd, le->name, host, st, lst);
	link = lst->st_ino && S_ISLNK(lst->st_mode);
	/* a folder or file listed as such that is now a link was swapped while it was walked */
	if (rc >= 0 && link && le->type != DT_UNKNOWN && le->type != DT_LNK)
		return diag_error(g->d, "%s: changed while it was read (now a symbolic link)",
				  host);
	if (rc >= 0 && link)
		rc = check_link(g, dirfd, le->name, host, st) ?: rc;
	if (rc == 0)
		rc = check_kind(g, host, st);
	for (size_t i = 0; rc == 1 && i < g->depth; i++)
		if (g->chain[i].dev == st->st_dev && g->chain[i].ino == st->st_ino)
			return diag_error(g->d,
					  "%s: symbolic link loop (it leads back to a folder "
					  "that contains it)",
					  host);
	return rc;
}

/*
 * check_listed() with its message, if any, told once for the entry @lst however many paths
 * of folder links reach it (a dangling link under a folder that 40 links name is one
 * mistake): the first path's message stays, the others count in it.
 */
static int check_once(struct gatherer *g, int dirfd, const struct listed *le, const char *host,
		      struct stat *st, struct stat *lst)
{
	struct diag scratch = { 0 }, *d = g->d;
	int rc;

	g->d = &scratch;
	rc = check_listed(g, dirfd, le, host, st, lst);
	g->d = d;
	if (rc >= 0 || !lst->st_ino || scratch.n != 1) {
		diag_take(d, &scratch);
		return rc;
	}
	for (size_t i = 0; i < g->n_faulty; i++)
		if (g->faulty[i].dev == lst->st_dev && g->faulty[i].ino == lst->st_ino) {
			g->faulty[i].more++;
			diag_release(&scratch);
			return rc;
		}
	if (array_grow((void **)&g->faulty, &g->faulty_cap, g->n_faulty + 1, sizeof(*g->faulty)) ==
	    0)
		g->faulty[g->n_faulty++] = (struct faulty){ .dev = lst->st_dev,
							    .ino = lst->st_ino,
							    .msg = d->n };
	diag_take(d, &scratch);
	return rc;
}

/* Ends each message of an entry reached by more paths with their number; forgets them. */
static int tell_more_paths(struct gatherer *g)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < g->n_faulty; i++) {
		char more[120];
		if (!g->faulty[i].more)
			continue;
		snprintf(more, sizeof(more), " (and %zu more path%s to it through folder links)",
			 g->faulty[i].more, g->faulty[i].more == 1 ? "" : "s");
		rc = diag_suffix(g->d, g->faulty[i].msg, more);
	}
	free(g->faulty);
	g->faulty = NULL;
	g->n_faulty = g->faulty_cap = 0;
	return rc;
}

/*
 * The tree's include and exclude on the entry @le of the folder @dirfd, at FAT path @path,
 * before it is examined (LAYOUT.md, "Filters"): judged by its own name and kind, as the
 * listing gives them; a symbolic link, which may lead to a folder, is left out here only when
 * it is excluded (JUDGE_LATER otherwise: judged once followed).
 */
static enum judgement judge_listed(struct gatherer *g, int dirfd, const struct listed *le,
				   const char *path)
{
	const char *rel = g->filter ? content_relative(path, g->tree_path) : NULL;
	struct stat lst;

	if (!rel || !*rel)
		return JUDGE_NONE;
	if (fstatat(dirfd, le->name, &lst, AT_SYMLINK_NOFOLLOW) < 0 || S_ISLNK(lst.st_mode))
		return content_filter_drops(g->filter, rel) ? JUDGE_DROP : JUDGE_LATER;
	if (S_ISDIR(lst.st_mode) && content_filter_prunes(g->filter, rel))
		return JUDGE_DROP;
	if (content_filter_takes(g->filter, rel, S_ISDIR(lst.st_mode)))
		return JUDGE_TAKEN;
	return S_ISDIR(lst.st_mode) ? JUDGE_LEFT_OUT : JUDGE_DROP;
}

/* A symbolic link at @path that led to a folder (@is_dir) or a file, judged as that. */
static enum judgement judge_followed(struct gatherer *g, const char *path, bool is_dir)
{
	const char *rel = content_relative(path, g->tree_path);

	if (is_dir && content_filter_prunes(g->filter, rel))
		return JUDGE_DROP;
	if (content_filter_takes(g->filter, rel, is_dir))
		return JUDGE_TAKEN;
	return is_dir ? JUDGE_LEFT_OUT : JUDGE_DROP;
}

/* Adds the entry @le of the folder @dirfd (@host: its host path) at FAT path @path. */
static int walk_entry(struct gatherer *g, int dirfd, const struct listed *le, const char *host,
		      const char *path)
{
	const char *name = le->name;
	struct stat st, lst = { 0 };
	enum judgement j = judge_listed(g, dirfd, le, path);

	if (j == JUDGE_DROP)
		return 0;
	int rc = check_once(g, dirfd, le, host, &st, &lst);
	bool link = S_ISLNK(lst.st_mode);

	if (rc >= 0 && (rc = count_entry(g, rc == 0 ? (uint64_t)st.st_size : 0) ?: rc) < 0)
		return rc;
	if (rc < 0)
		return rc;
	if (j == JUDGE_LATER && (j = judge_followed(g, path, rc == 1)) == JUDGE_DROP)
		return 0;
	if (rc == 0)
		return add_host_file(g, path, host, &st, 0, false, j);
	rc = add_dir(g, path, &st, host, j); /* refuses a path deeper than CONTENT_MAX_DEPTH */
	if (rc < 0)
		return rc;
	if (g->depth == sizeof(g->chain) / sizeof(g->chain[0]))
		return diag_error(g->d,
				  "%s: folders nested more than %d deep; sdimg takes at "
				  "most %d",
				  host, CONTENT_MAX_DEPTH, CONTENT_MAX_DEPTH);
	int fd = open_folder(g, dirfd, name, host, &st, link);
	if (fd < 0)
		return fd;
	g->chain[g->depth].dev = st.st_dev;
	g->chain[g->depth].ino = st.st_ino;
	g->depth++;
	g->in_links += link;
	rc = walk(g, fd, host, path);
	g->in_links -= link;
	g->depth--;
	close(fd);
	return rc;
}

/* Adds everything inside the folder @dirfd (@host) under FAT directory @path ("/" or "/a"). */
static int walk(struct gatherer *g, int dirfd, const char *host, const char *path)
{
	struct listed *names = NULL;
	size_t n = 0;
	int rc = list_dir(g, dirfd, host, &names, &n), bad = 0;

	for (size_t i = 0; rc != -ENOMEM && rc != -E2BIG && i < n; i++) {
		char *child_host = path_append(host, names[i].name);
		char *child_path = path_append(strcmp(path, "/") ? path : "", names[i].name);
		if (!child_host || !child_path) {
			free(child_host);
			free(child_path);
			rc = -ENOMEM;
			break;
		}
		int r = walk_entry(g, dirfd, &names[i], child_host, child_path);
		bad |= r < 0;
		if (r == -ENOMEM || r == -E2BIG)
			rc = r;
		free(child_host);
		free(child_path);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i].name);
	free(names);
	return rc < 0 ? rc : bad ? -EINVAL : 0;
}

static int gather_tree(struct gatherer *g, const struct layout_entry *e)
{
	char *host = NULL;
	struct stat st;
	int rc = layout_input_path(g->l, e->from, "", g->d, &host);

	if (rc < 0)
		return rc;
	rc = check_file(g, host, &st);
	if (rc == 0) {
		rc = content_list_archive(g->l, e, host, g->source, g->c, g->d);
		free(host);
		return rc;
	}
	if (rc > 0 && e->strip)
		rc = diag_error(g->d,
				"%s:%d: tree '%s': strip = %u: %s is a folder, and strip "
				"applies to archive entries",
				e->loc.file, e->loc.line, e->path, e->strip, host);
	if (rc > 0 && strcmp(e->path, "/") != 0)
		rc = add_dir(g, e->path, &st, host, JUDGE_NONE);
	int fd = rc >= 0 ? open_folder(g, AT_FDCWD, host, host, &st, true) : -1;
	if (rc >= 0 && fd < 0)
		rc = fd;
	if (rc >= 0) {
		g->top = host;
		g->top_st = st;
		g->links = e->links;
		g->copies = (struct content_copies){ 0 };
		count_held(g, fd, 1);
		g->chain[0].dev = st.st_dev;
		g->chain[0].ino = st.st_ino;
		g->depth = 1;
		rc = walk(g, fd, host, e->path);
		if (tell_more_paths(g) < 0)
			rc = -ENOMEM;
		g->depth = 0;
		close(fd);
	}
	free(host);
	return rc;
}

/* A tree with include or exclude patterns: gathered alone, its walk judging each entry before
 * it examines it, then what they keep joins. */
static int gather_filtered(struct gatherer *g, const struct layout_entry *e, const char *place)
{
	struct content alone = { .implicit_mtime = g->c->implicit_mtime };
	struct content *c = g->c;
	struct content_filter f;
	int rc = content_filter_init(&f, e);

	if (rc < 0)
		return rc;
	g->c = &alone;
	g->filter = &f;
	g->tree_path = e->path;
	rc = gather_tree(g, e);
	g->c = c;
	g->filter = NULL;
	if (rc == 0)
		rc = content_merge_filtered(c, &alone, e, &f, place, g->d);
	content_release(&alone);
	content_filter_release(&f);
	return rc;
}

static int gather_file(struct gatherer *g, const struct layout_entry *e)
{
	char origin[512];
	struct stat st;
	int rc;

	snprintf(origin, sizeof(origin), "%s:%d", e->loc.file, e->loc.line);
	if (e->content) {
		struct content_node n = { .path = e->path,
					  .text = e->content,
					  .size = strlen(e->content),
					  .attrs = e->attrs,
					  .first = e->first,
					  .source = g->source,
					  .origin = origin };
		n.mtime = node_mtime(g, NULL, &n.mtime_ns);
		return content_add(g->c, &n, g->d);
	}
	char *host = NULL;
	if ((rc = layout_input_path(g->l, e->from, "", g->d, &host)) < 0)
		return rc;
	rc = check_file(g, host, &st);
	if (rc > 0)
		rc = diag_error(g->d, "%s:%d: file '%s': %s is a folder (use tree)", e->loc.file,
				e->loc.line, e->path, host);
	if (rc == 0)
		rc = add_host_file(g, e->path, host, &st, e->attrs, e->first, JUDGE_NONE);
	free(host);
	return rc;
}

static const char *entry_kind_name(enum layout_entry_kind k)
{
	return k == LAYOUT_ENTRY_TREE ? "tree" : k == LAYOUT_ENTRY_FILE ? "file" : "dir";
}

int content_gather(const struct layout *l, const struct layout_partition *p, struct content *c,
		   struct diag *d)
{
	struct gatherer g = { .l = l, .c = c, .d = d };
	int bad = 0;

	c->implicit_mtime = l->image.timestamp;
	for (size_t i = 0; i < p->n_entries; i++) {
		const struct layout_entry *e = &p->entries[i];
		char origin[512], place[600];
		size_t first = d->n;
		int rc;
		g.source = i;
		/* what went wrong with an input is told with the layout line that brought it in */
		snprintf(place, sizeof(place), "%s:%d: partition '%s': %s '%s': ", e->loc.file,
			 e->loc.line, p->name, entry_kind_name(e->kind), e->path);
		switch (e->kind) {
		case LAYOUT_ENTRY_TREE:
			rc = e->n_include || e->n_exclude ? gather_filtered(&g, e, place)
							  : gather_tree(&g, e);
			break;
		case LAYOUT_ENTRY_FILE:
			rc = gather_file(&g, e);
			break;
		case LAYOUT_ENTRY_DIR:
		default:
			snprintf(origin, sizeof(origin), "%s:%d", e->loc.file, e->loc.line);
			rc = add_dir(&g, e->path, NULL, origin, JUDGE_NONE);
			break;
		}
		if (rc == -ENOMEM)
			return diag_error(d, "%s: out of memory", l->path);
		if (rc < 0 && diag_prefix(d, first, place) < 0)
			return diag_error(d, "%s: out of memory", l->path);
		bad |= rc < 0;
	}
	return bad ? -EINVAL : 0;
}
