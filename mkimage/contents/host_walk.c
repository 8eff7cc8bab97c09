/* SPDX-License-Identifier: MIT */
/*
 * host_walk: the one walk of a host folder, for every file system (contents.h). Each folder
 * is read in full and its names sorted by their bytes, so the host's listing order never
 * matters; a folder comes before what it holds. A tree's include and exclude judge each entry
 * by its own name before it is examined: what they leave out is never followed nor checked
 * (a file system that keeps hard links is still shown it, and the folders exclude drops, for
 * the order of their bytes). An entry is looked at through the descriptor of the folder it
 * was listed in, and a folder is entered through a symbolic link only where the listing saw
 * one: a folder swapped for a link during the walk cannot lead it elsewhere.
 *
 * For a file system without links (FAT) the walk follows symbolic links as the tree's `links`
 * says (host_links.c judges `inside`), each a copy of what it leads to: a loop is an error,
 * the copies links make are bounded (model.c), and an entry that folder links reach by many
 * paths is told once, with their number.
 *
 * Each entry is read once (fstatat, not following it: its kind, size, time and identity), and
 * a symbolic link the walk follows once more, for what it leads to; the folder is walked once
 * (what it holds of its own is counted again only when its links copy more than the part of
 * it walked so far allows, count_held()).
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

/* An entry of the tree that was refused: the folder links that reach it again (each a path
 * of its own) add to the count of its one message instead of a message each. */
struct faulty {
	dev_t dev;
	ino_t ino;
	size_t msg;  /* its message in the diag */
	size_t more; /* the other paths that reached it */
};

struct walker {
	const struct content_walk_ops *ops;
	void *ctx;
	struct content_filter *filter; /* the tree's include and exclude (NULL: none) */
	struct diag *d;
	const char *top;         /* the tree's host folder, for messages */
	int top_fd;              /* ... open, for count_held() */
	size_t top_len;          /* ... whose host path an entry's path from the top follows */
	struct stat top_st;      /* ... as it was opened */
	enum layout_links links; /* which symbolic links the walk follows (ops->follows_links) */
	/* the folders being walked, for symbolic-link loops */
	struct {
		dev_t dev;
		ino_t ino;
	} chain[CONTENT_MAX_DEPTH + 1]; /* the top and its folders */
	size_t depth;
	size_t in_links;              /* folders on the chain reached through a symbolic link */
	struct content_copies copies; /* what the folder holds, what its links copy */
	bool held_counted;            /* copies.held_* are all the folder holds (count_held()),
				       * not only what the walk has met of it so far */
	struct faulty *faulty;        /* owned: the entries refused so far, each told once */
	size_t n_faulty, faulty_cap;
};

/* What a tree's include and exclude say of an entry when the walk meets it. */
enum judgement {
	JUDGE_TAKEN,    /* it stays by its own name (always without filters) */
	JUDGE_LEFT_OUT, /* left out by its name: a folder walked for what include may take, or
			 * any entry, for a caller that sees what is left out */
	JUDGE_LATER,    /* a symbolic link not excluded: what it leads to is judged */
	JUDGE_DROP,     /* left out with all it may hold: never looked at further */
};

/* An entry of a folder as its listing gave it. */
struct listed {
	char *name;
	unsigned char type; /* the listing's DT_ type (DT_UNKNOWN: the file system does not say) */
};

static int compare_names(const void *a, const void *b)
{
	return strcmp(((const struct listed *)a)->name, ((const struct listed *)b)->name);
}

/*
 * The entries of the folder @dirfd (named @host in messages, in @d), sorted by their names'
 * bytes; on an error, those read before it. From its start when @rewind: it may have been
 * read before (count_held() reads the tree's top after the walk did).
 */
static int list_dir(int dirfd, const char *host, bool rewind, struct listed **ret, size_t *ret_n,
		    struct diag *d)
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
		return diag_error(d, "%s: %s", host, strerror(saved));
	}
	if (rewind)
		rewinddir(dir); /* the copy shares @dirfd's position, which the walk moved */
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
		return diag_error(d, "%s: %s", host, strerror(saved));
	if (n > 1) /* an empty folder has no array to sort */
		qsort(names, n, sizeof(*names), compare_names);
	return 0;
}

static void free_listed(struct listed *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i].name);
	free(names);
}

/*
 * What the entry @name of @dirfd (@host), read as *@lst, is after following it, in *@st: 1 a
 * folder, 0 anything else, or an error (content_host_stat()). A link is read once more.
 */
static int host_follow(int dirfd, const char *name, const char *host, const struct stat *lst,
		       struct stat *st, struct diag *d)
{
	if (!S_ISLNK(lst->st_mode))
		*st = *lst;
	else if (fstatat(dirfd, name, st, 0) < 0)
		return errno == ENOENT ? diag_error(d, "%s: dangling symbolic link", host)
				       : diag_error(d, "%s: %s", host, strerror(errno));
	return S_ISDIR(st->st_mode) ? 1 : 0;
}

int content_host_stat(int dirfd, const char *name, const char *host, struct stat *st,
		      struct stat *ret_lst, struct diag *d)
{
	struct stat own, *lst = ret_lst ? ret_lst : &own;

	if (fstatat(dirfd, name, lst, AT_SYMLINK_NOFOLLOW) < 0)
		return diag_error(d, "%s: %s", host, strerror(errno));
	return host_follow(dirfd, name, host, lst, st, d);
}

int content_open_folder(int dirfd, const char *name, const char *host, const struct stat *st,
			bool link, struct diag *d)
{
	struct stat now;
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (link ? 0 : O_NOFOLLOW));

	if (fd < 0)
		return diag_error(d, "%s: %s", host,
				  errno == ELOOP || errno == ENOTDIR ? "changed while it was read "
								       "(no longer a folder)"
								     : strerror(errno));
	if (fstat(fd, &now) < 0 || now.st_dev != st->st_dev || now.st_ino != st->st_ino) {
		close(fd);
		return diag_error(d, "%s: changed while it was read (another folder)", host);
	}
	return fd;
}

/*
 * Whether the tree's `links` takes the symbolic link @name of the folder @dirfd (@host), which
 * content_host_stat() saw lead to @st: 0, or an error naming the link and its target.
 */
static int check_link(struct walker *wk, int dirfd, const char *name, const char *host,
		      const struct stat *st)
{
	char target[PATH_MAX + 1];
	struct stat end;
	ssize_t n;

	if (wk->links == LAYOUT_LINKS_FOLLOW)
		return 0;
	if ((n = readlinkat(dirfd, name, target, sizeof(target) - 1)) < 0)
		return diag_error(wk->d, "%s: %s", host, strerror(errno));
	target[n] = '\0';
	if (wk->links == LAYOUT_LINKS_REFUSE)
		return diag_error(wk->d,
				  "%s: a symbolic link (to %s), and links = refuse takes none",
				  host, target);
	int rc = content_link_inside(dirfd, name, &wk->top_st, &end);
	if (rc < 0)
		return diag_error(wk->d, "%s: following the symbolic link to %s: %s", host, target,
				  strerror(-rc));
	if (end.st_dev != st->st_dev || end.st_ino != st->st_ino)
		return diag_error(wk->d,
				  "%s: changed while it was read (the symbolic link leads "
				  "elsewhere)",
				  host);
	if (rc == 0)
		return diag_error(wk->d,
				  "%s: a symbolic link to %s, outside the tree %s (links = "
				  "inside, the default, follows only links inside it; links = "
				  "follow "
				  "takes this one)",
				  host, target, wk->top);
	return 0;
}

/*
 * Adds what the folder @dirfd holds of its own, @depth folders below the tree's top, to
 * wk->copies: each entry, and the bytes of each file (a link to a file counts its file's,
 * as the walk takes them); folders reached through links are copies, not counted here.
 * Says nothing: what cannot be read here is told by the walk.
 */
static void count_held(struct walker *wk, int dirfd, size_t depth)
{
	struct diag quiet = { 0 };
	struct listed *names = NULL;
	size_t n = 0;

	list_dir(dirfd, "", true, &names, &n, &quiet);
	diag_release(&quiet);
	for (size_t i = 0; i < n; i++) {
		struct stat lst, st;
		wk->copies.held_nodes++;
		if (fstatat(dirfd, names[i].name, &lst, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISREG(lst.st_mode) ||
		    (S_ISLNK(lst.st_mode) && fstatat(dirfd, names[i].name, &st, 0) == 0 &&
		     S_ISREG(st.st_mode)))
			wk->copies.held_bytes += (uint64_t)(S_ISREG(lst.st_mode) ? lst : st)
							 .st_size;
		if (!S_ISDIR(lst.st_mode) || depth >= CONTENT_MAX_DEPTH)
			continue;
		int fd = openat(dirfd, names[i].name,
				O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0) {
			count_held(wk, fd, depth + 1);
			close(fd);
		}
	}
	free_listed(names, n);
}

/* Whether one more copy of @size bytes keeps within the bound that the folder's own entries
 * counted so far in @cc set. */
static bool copy_within(const struct content_copies *cc, uint64_t size)
{
	return cc->nodes < CONTENT_COPIES_FACTOR * cc->held_nodes + CONTENT_COPIES_NODES &&
	       cc->bytes + size <= CONTENT_COPIES_FACTOR * cc->held_bytes + CONTENT_COPIES_BYTES;
}

/*
 * Counts an entry of @size bytes: as the folder's own, or as a copy made by a link, -E2BIG
 * past the bound on copies, which stops the whole walk (it would only fail again). The bound
 * is set by all the folder holds of its own, whatever names the links have (a link walked
 * before the folder it copies is judged as one walked after it). The entries the walk has
 * met outside links are some of them: a copy within the bound they set is within it; one
 * past it has the folder counted in full, once, and is judged on that (count_held()).
 */
static int count_entry(struct walker *wk, uint64_t size)
{
	struct content_copies *cc = &wk->copies;

	if (!wk->in_links) {
		if (!wk->held_counted) {
			cc->held_nodes++;
			cc->held_bytes += size;
		}
		return 0;
	}
	if (!wk->held_counted && !copy_within(cc, size)) {
		cc->held_nodes = cc->held_bytes = 0;
		count_held(wk, wk->top_fd, 1);
		wk->held_counted = true;
	}
	return content_count_copy(cc, size, wk->top, wk->d) < 0 ? -E2BIG : 0;
}

/*
 * Whether the entry @le of the folder @dirfd (@host), judged @j, may go on: 0 a file, 1 a
 * folder (what it is in *@st, *@lst the entry itself, which the caller read), else an
 * error. Where the walk follows links, a link is followed as the tree's `links` says.
 */
static int check_listed(struct walker *wk, int dirfd, const struct listed *le, const char *host,
			enum judgement j, struct stat *st, struct stat *lst)
{
	const struct content_walk_ops *ops = wk->ops;
	bool link = false;
	int rc;

	if (ops->follows_links) {
		rc = host_follow(dirfd, le->name, host, lst, st, wk->d);
		link = S_ISLNK(lst->st_mode);
	} else {
		*st = *lst;
		rc = S_ISDIR(st->st_mode) ? 1 : 0;
	}
	/* a folder or file listed as such that is now a link was swapped while it was walked */
	if (rc >= 0 && link && le->type != DT_UNKNOWN && le->type != DT_LNK)
		return diag_error(wk->d, "%s: changed while it was read (now a symbolic link)",
				  host);
	if (rc >= 0 && link)
		rc = check_link(wk, dirfd, le->name, host, st) ?: rc;
	if (rc == 0 && j != JUDGE_LEFT_OUT)
		rc = content_caps_check(ops->caps, st->st_mode, host, NULL, wk->d);
	for (size_t i = 0; ops->follows_links && rc == 1 && i < wk->depth; i++)
		if (wk->chain[i].dev == st->st_dev && wk->chain[i].ino == st->st_ino)
			return diag_error(wk->d,
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
static int check_once(struct walker *wk, int dirfd, const struct listed *le, const char *host,
		      enum judgement j, struct stat *st, struct stat *lst)
{
	struct diag scratch = { 0 }, *d = wk->d;
	int rc;

	wk->d = &scratch;
	rc = check_listed(wk, dirfd, le, host, j, st, lst);
	wk->d = d;
	if (rc >= 0 || !lst->st_ino || scratch.n != 1) {
		diag_take(d, &scratch);
		return rc;
	}
	for (size_t i = 0; i < wk->n_faulty; i++)
		if (wk->faulty[i].dev == lst->st_dev && wk->faulty[i].ino == lst->st_ino) {
			wk->faulty[i].more++;
			diag_release(&scratch);
			return rc;
		}
	if (array_grow((void **)&wk->faulty, &wk->faulty_cap, wk->n_faulty + 1,
		       sizeof(*wk->faulty)) == 0)
		wk->faulty[wk->n_faulty++] = (struct faulty){ .dev = lst->st_dev,
							      .ino = lst->st_ino,
							      .msg = d->n };
	diag_take(d, &scratch);
	return rc;
}

/* Ends each message of an entry reached by more paths with their number; forgets them. */
static int tell_more_paths(struct walker *wk)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < wk->n_faulty; i++) {
		char more[120];
		if (!wk->faulty[i].more)
			continue;
		snprintf(more, sizeof(more), " (and %zu more path%s to it through folder links)",
			 wk->faulty[i].more, wk->faulty[i].more == 1 ? "" : "s");
		rc = diag_suffix(wk->d, wk->faulty[i].msg, more);
	}
	free(wk->faulty);
	wk->faulty = NULL;
	wk->n_faulty = wk->faulty_cap = 0;
	return rc;
}

/*
 * The tree's include and exclude on the entry at @rel, which is @lst (NULL: it could not be
 * read), before it is examined (LAYOUT.md, "Filters"): judged by its own name and kind. A
 * symbolic link the walk follows, which may lead to a folder, is left out here only when it
 * is excluded (JUDGE_LATER otherwise: judged once followed); one it keeps is judged as a
 * file. A folder exclude drops is not opened, unless the caller sees what is left out.
 */
static enum judgement judge_listed(struct walker *wk, const struct stat *lst, const char *rel)
{
	bool is_dir = lst && S_ISDIR(lst->st_mode);

	if (!wk->filter)
		return JUDGE_TAKEN;
	if (wk->ops->follows_links && (!lst || S_ISLNK(lst->st_mode)))
		return content_filter_drops(wk->filter, rel) ? JUDGE_DROP : JUDGE_LATER;
	if (is_dir && !wk->ops->sees_left_out && content_filter_prunes(wk->filter, rel))
		return JUDGE_DROP;
	if (content_filter_takes(wk->filter, rel, is_dir))
		return JUDGE_TAKEN;
	return is_dir || wk->ops->sees_left_out ? JUDGE_LEFT_OUT : JUDGE_DROP;
}

/* A symbolic link at @rel that led to a folder (@is_dir) or a file, judged as that. */
static enum judgement judge_followed(struct walker *wk, const char *rel, bool is_dir)
{
	if (is_dir && content_filter_prunes(wk->filter, rel))
		return JUDGE_DROP;
	if (content_filter_takes(wk->filter, rel, is_dir))
		return JUDGE_TAKEN;
	return is_dir ? JUDGE_LEFT_OUT : JUDGE_DROP;
}

static int walk_folder(struct walker *wk, int fd, void *folder, const char *host);

/*
 * The folder @e of the folder @dirfd (the caller's @up), through a symbolic link when @link:
 * given to the caller, then what it holds.
 */
static int enter_folder(struct walker *wk, int dirfd, const struct content_walk_entry *e, bool link,
			void *up)
{
	const struct content_walk_ops *ops = wk->ops;
	void *child;
	int fd = content_open_folder(dirfd, e->name, e->host, e->st, link, wk->d), rc;

	if (fd < 0)
		return fd;
	if ((rc = ops->folder(wk->ctx, up, e, fd, &child)) < 0) {
		close(fd);
		return rc;
	}
	if (wk->depth == sizeof(wk->chain) / sizeof(wk->chain[0]))
		rc = diag_error(wk->d,
				"%s: folders nested more than %d deep; sdimg takes at "
				"most %d",
				e->host, CONTENT_MAX_DEPTH, CONTENT_MAX_DEPTH);
	if (rc == 0) {
		wk->chain[wk->depth].dev = e->st->st_dev;
		wk->chain[wk->depth].ino = e->st->st_ino;
		wk->depth++;
		wk->in_links += link;
		rc = walk_folder(wk, fd, child, e->host);
		wk->in_links -= link;
		wk->depth--;
	}
	if (ops->folder_done)
		ops->folder_done(wk->ctx, child);
	close(fd);
	return rc;
}

/* The entry @le of the folder @dirfd (the caller's @folder), named @host, and what is below
 * it. */
static int walk_entry(struct walker *wk, int dirfd, const struct listed *le, const char *host,
		      void *folder)
{
	const char *rel = host + wk->top_len + 1;
	struct stat st, lst = { 0 };
	bool seen = fstatat(dirfd, le->name, &lst, AT_SYMLINK_NOFOLLOW) == 0;
	int unseen = errno;

	if (!seen && !wk->ops->follows_links)
		return diag_error(wk->d, "%s: %s", host, strerror(unseen));
	enum judgement j = judge_listed(wk, seen ? &lst : NULL, rel);
	if (j == JUDGE_DROP)
		return 0;
	if (!seen) /* what an exclude leaves out by its name may be unreadable */
		return diag_error(wk->d, "%s: %s", host, strerror(unseen));
	int rc = check_once(wk, dirfd, le, host, j, &st, &lst);
	bool link = wk->ops->follows_links && S_ISLNK(lst.st_mode);

	if (rc >= 0 && (rc = count_entry(wk, rc == 0 ? (uint64_t)st.st_size : 0) ?: rc) < 0)
		return rc;
	if (rc < 0)
		return rc;
	if (j == JUDGE_LATER && (j = judge_followed(wk, rel, rc == 1)) == JUDGE_DROP)
		return 0;
	struct content_walk_entry e = { .dirfd = dirfd,
					.name = le->name,
					.host = host,
					.rel = rel,
					.st = &st,
					.takes = j != JUDGE_LEFT_OUT };
	return rc == 0 ? wk->ops->entry(wk->ctx, folder, &e)
		       : enter_folder(wk, dirfd, &e, link, folder);
}

/* Whether the walk goes on after @rc: past an entry that failed, when the caller keeps a
 * model (each problem told), but never past running out of memory or the bound on copies. */
static bool goes_on(const struct walker *wk, int rc)
{
	return rc == 0 || (wk->ops->keeps_model && rc != -ENOMEM && rc != -E2BIG);
}

/* The names of the host folder open at @fd (named @host) into the caller's @folder. */
static int walk_folder(struct walker *wk, int fd, void *folder, const char *host)
{
	struct listed *names = NULL;
	size_t n = 0;
	int rc, bad = 0;

	/* the chain holds the top and CONTENT_MAX_DEPTH folders */
	if (!wk->ops->keeps_model && wk->depth > CONTENT_MAX_DEPTH)
		return diag_error(wk->d, "%s: more than %d folders deep", host, CONTENT_MAX_DEPTH);
	rc = list_dir(fd, host, false, &names, &n, wk->d);
	for (size_t i = 0; goes_on(wk, rc) && i < n; i++) {
		char *child = path_append(host, names[i].name);
		int r = child ? walk_entry(wk, fd, &names[i], child, folder) : -ENOMEM;
		if (r == 0 && wk->ops->stop && wk->ops->stop(wk->ctx))
			r = -EINTR;
		free(child);
		bad |= r < 0;
		if (r < 0 && !goes_on(wk, r))
			rc = r;
	}
	free_listed(names, n);
	return rc < 0 ? rc : bad ? -EINVAL : 0;
}

int content_walk_host(int fd, const char *host, enum layout_links links, void *top,
		      struct content_filter *filter, const struct content_walk_ops *ops, void *ctx,
		      struct diag *d)
{
	struct walker wk = { .ops = ops,
			     .ctx = ctx,
			     .filter = filter,
			     .d = d,
			     .top = host,
			     .top_fd = fd,
			     .top_len = strlen(host),
			     .links = links };
	int rc = 0;

	if (fstat(fd, &wk.top_st) < 0)
		rc = diag_error(d, "%s: %s", host, strerror(errno));
	if (rc == 0) {
		wk.chain[0].dev = wk.top_st.st_dev;
		wk.chain[0].ino = wk.top_st.st_ino;
		wk.depth = 1;
		rc = walk_folder(&wk, fd, top, host);
		if (tell_more_paths(&wk) < 0)
			rc = -ENOMEM;
	}
	close(fd);
	return rc;
}
