/*
 * host_tree: the layout's tree, file and dir entries of a FAT partition, read from the host.
 * Directories are read in full and sorted by the bytes of their names, so the host's
 * listing order never matters; symbolic links that resolve are followed (a loop is an
 * error); dangling links, devices, fifos, sockets and unreadable files are errors.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/array.h"
#include "mkimage/contents/contents_priv.h"

struct gatherer {
	const struct layout *l;
	struct content *c;
	struct diag *d;
	size_t source;
	/* the directories being walked, for symbolic-link loops */
	struct { dev_t dev; ino_t ino; } chain[CONTENT_MAX_DEPTH + 1]; /* the top and its folders */
	size_t depth;
	const char *top;	      /* the tree's folder, for messages */
	size_t in_links;	      /* folders on the chain reached through a symbolic link */
	struct content_copies copies; /* what the folder holds, what its links copy */
};

int64_t content_mtime(const struct layout_image *im, const struct timespec *ts, uint32_t *ret_ns)
{
	*ret_ns = 0;
	if (im->mtime == LAYOUT_MTIME_FIXED || !ts)
		return im->timestamp;
	if (im->timestamp_from_env && ts->tv_sec >= im->timestamp)
		return im->timestamp; /* clamped to SOURCE_DATE_EPOCH */
	*ret_ns = (uint32_t)ts->tv_nsec;
	return ts->tv_sec;
}

static int64_t node_mtime(const struct gatherer *g, const struct stat *st, uint32_t *ret_ns)
{
	return content_mtime(&g->l->image, st ? &st->st_mtim : NULL, ret_ns);
}

static int add_dir(struct gatherer *g, const char *path, const struct stat *st, const char *origin)
{
	struct content_node n = { .path = (char *)path, .is_dir = true, .source = g->source,
				  .origin = (char *)origin };

	n.mtime = node_mtime(g, st, &n.mtime_ns);
	return content_add(g->c, &n, g->d);
}

/* A host file that must be a readable regular file (after following links). */
static int check_file(struct gatherer *g, const char *host, struct stat *st)
{
	struct stat lst;

	if (stat(host, st) < 0) {
		int saved = errno;
		if (saved == ENOENT && lstat(host, &lst) == 0 && S_ISLNK(lst.st_mode))
			return diag_error(g->d, "%s: dangling symbolic link", host);
		return diag_error(g->d, "%s: %s", host, strerror(saved));
	}
	if (S_ISDIR(st->st_mode))
		return 1;
	if (!S_ISREG(st->st_mode))
		return diag_error(g->d, "%s: a %s cannot go on a FAT file system", host,
				  S_ISFIFO(st->st_mode) ? "fifo" : S_ISSOCK(st->st_mode) ? "socket"
												: "device node");
	if (access(host, R_OK) < 0)
		return diag_error(g->d, "%s: %s", host, strerror(errno));
	return 0;
}

static int add_host_file(struct gatherer *g, const char *path, const char *host,
			 const struct stat *st, unsigned attrs, bool first)
{
	struct content_node n = {
		.path = (char *)path, .host_path = (char *)host, .size = (uint64_t)st->st_size,
		.attrs = attrs, .first = first, .source = g->source, .origin = (char *)host,
		.host_id = fileid_of(st),
	};

	n.mtime = node_mtime(g, st, &n.mtime_ns);
	return content_add(g->c, &n, g->d);
}

static int walk(struct gatherer *g, const char *host, const char *path);

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in folder @host, sorted by their bytes. */
static int list_dir(struct gatherer *g, const char *host, char ***ret, size_t *ret_n)
{
	DIR *dir = opendir(host);
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;

	if (!dir)
		return diag_error(g->d, "%s: %s", host, strerror(errno));
	while ((errno = 0, e = readdir(dir))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (array_grow((void **)&names, &cap, n + 1, sizeof(*names)) < 0 ||
		    !(names[n] = strdup(e->d_name))) {
			closedir(dir);
			*ret = names;
			*ret_n = n;
			return -ENOMEM;
		}
		n++;
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
 * Counts an entry of @size bytes as the folder's own, or as a copy made by a link: -E2BIG
 * past the bound on copies, which stops the whole walk (it would only fail again).
 */
static int count_entry(struct gatherer *g, uint64_t size)
{
	if (g->in_links)
		return content_count_copy(&g->copies, size, g->top, g->d) < 0 ? -E2BIG : 0;
	g->copies.held_nodes++;
	g->copies.held_bytes += size;
	return 0;
}

static int walk_entry(struct gatherer *g, const char *host, const char *path)
{
	struct stat st, lst;
	int rc = check_file(g, host, &st);

	if (rc >= 0 && (rc = count_entry(g, rc == 0 ? (uint64_t)st.st_size : 0) ?: rc) < 0)
		return rc;
	if (rc < 0)
		return rc;
	if (rc == 0)
		return add_host_file(g, path, host, &st, 0, false);
	for (size_t i = 0; i < g->depth; i++)
		if (g->chain[i].dev == st.st_dev && g->chain[i].ino == st.st_ino)
			return diag_error(g->d, "%s: symbolic link loop (it leads back to a folder "
						"that contains it)", host);
	rc = add_dir(g, path, &st, host); /* refuses a path deeper than CONTENT_MAX_DEPTH */
	if (rc < 0)
		return rc;
	if (g->depth == sizeof(g->chain) / sizeof(g->chain[0]))
		return diag_error(g->d, "%s: folders nested more than %d deep; sdimg takes at "
					"most %d", host, CONTENT_MAX_DEPTH, CONTENT_MAX_DEPTH);
	bool link = lstat(host, &lst) == 0 && S_ISLNK(lst.st_mode);
	g->chain[g->depth].dev = st.st_dev;
	g->chain[g->depth].ino = st.st_ino;
	g->depth++;
	g->in_links += link;
	rc = walk(g, host, path);
	g->in_links -= link;
	g->depth--;
	return rc;
}

/* Adds everything inside folder @host under FAT directory @path ("/" or "/a"). */
static int walk(struct gatherer *g, const char *host, const char *path)
{
	char **names = NULL;
	size_t n = 0;
	int rc = list_dir(g, host, &names, &n), bad = 0;

	for (size_t i = 0; rc != -ENOMEM && rc != -E2BIG && i < n; i++) {
		char *child_host = NULL, *child_path = NULL;
		if (asprintf(&child_host, "%s/%s", host, names[i]) < 0 ||
		    asprintf(&child_path, "%s/%s", strcmp(path, "/") ? path : "", names[i]) < 0) {
			free(child_host);
			rc = -ENOMEM;
			break;
		}
		int r = walk_entry(g, child_host, child_path);
		bad |= r < 0;
		if (r == -ENOMEM || r == -E2BIG)
			rc = r;
		free(child_host);
		free(child_path);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
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
		rc = diag_error(g->d, "%s:%d: tree '%s': strip = %u: %s is a folder, and strip "
				      "applies to archive entries", e->loc.file, e->loc.line, e->path,
				e->strip, host);
	if (rc > 0 && strcmp(e->path, "/") != 0)
		rc = add_dir(g, e->path, &st, host);
	if (rc >= 0) {
		g->top = host;
		g->copies = (struct content_copies){ 0 };
		g->chain[0].dev = st.st_dev;
		g->chain[0].ino = st.st_ino;
		g->depth = 1;
		rc = walk(g, host, e->path);
		g->depth = 0;
	}
	free(host);
	return rc;
}

/* A tree with include or exclude patterns: gathered alone, then what they keep joins. */
static int gather_filtered(struct gatherer *g, const struct layout_entry *e, const char *place)
{
	struct content alone = { .implicit_mtime = g->c->implicit_mtime };
	struct content *c = g->c;
	int rc;

	g->c = &alone;
	rc = gather_tree(g, e);
	g->c = c;
	if (rc == 0)
		rc = content_merge_filtered(c, &alone, e, place, g->d);
	content_release(&alone);
	return rc;
}

static int gather_file(struct gatherer *g, const struct layout_entry *e)
{
	char origin[512];
	struct stat st;
	int rc;

	snprintf(origin, sizeof(origin), "%s:%d", e->loc.file, e->loc.line);
	if (e->content) {
		struct content_node n = { .path = e->path, .text = e->content,
					  .size = strlen(e->content), .attrs = e->attrs,
					  .first = e->first, .source = g->source, .origin = origin };
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
		rc = add_host_file(g, e->path, host, &st, e->attrs, e->first);
	free(host);
	return rc;
}

static const char *entry_kind_name(enum layout_entry_kind k)
{
	return k == LAYOUT_ENTRY_TREE ? "tree" : k == LAYOUT_ENTRY_FILE ? "file" : "dir";
}

int content_gather(const struct layout *l, const struct layout_partition *p,
		   struct content *c, struct diag *d)
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
			rc = add_dir(&g, e->path, NULL, origin);
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
