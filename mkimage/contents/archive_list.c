/* SPDX-License-Identifier: MIT */
/*
 * archive_list: FAT's model of an archive given as a `tree` source, from the entries of the
 * listing pass (archive_read.c), which reads only headers: directories, files and hard links
 * go into the content model with their entry numbers, and then symbolic links inside the
 * archive are resolved (FAT has no links: each is a copy of what it leads to). The bytes are
 * written later by the data pass (archive_stream.c), once fat/ has placed every file. Also
 * the pieces of libarchive every reader shares: the formats it reads, an entry's name and
 * normalised path, the error of an archive that cannot be read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/array.h"
#include "fat/fat.h"
#include "mkimage/contents/contents_priv.h"

#define LINK_HOPS 40 /* as many symbolic links in a row as Linux follows */

/* A regular file that strip removed, which hard links may still name. */
struct gone {
	char *path;     /* its path, normalised but not stripped (owned) */
	uint64_t entry; /* the entry with its bytes */
	uint64_t size;
};

/* A hard link to a file strip removed: node @node gets the bytes of gone[@gone] at the end. */
struct gone_link {
	size_t node, gone;
};

struct lister {
	const struct layout *l;
	const struct layout_entry *e;
	const char *host;
	size_t source;
	struct content *c;
	struct content_filter *filter; /* the tree's include and exclude (NULL: none) */
	struct diag *d;
	struct content_archive_reader r; /* the listing pass (owned) */
	uint32_t id;                     /* 1 + index of the archive in c->archives */
	struct content_copies copies;    /* what the archive holds, what its links copy */
	size_t first_node;               /* the archive's nodes are c->nodes[first_node..] */
	struct gone *gone;
	size_t n_gone, cap_gone;
	struct gone_link *links;
	size_t n_links, cap_links;
};

/*
 * Whether @host is an mtree listing: libarchive reading it with every filter and mtree alone
 * recognises it. Opening only chooses the format from the first bytes; no header is read,
 * which would open the host files that the listing names.
 */
static bool is_mtree(const struct content_archive_lib *lib, const char *host)
{
	struct archive *a = lib->archive_read_new();
	bool mtree = false;

	if (a) {
		lib->archive_read_support_filter_all(a);
		lib->archive_read_support_format_mtree(a);
		mtree = lib->archive_read_open_filename(a, host, 65536) == ARCHIVE_OK;
		lib->archive_read_free(a);
	}
	return mtree;
}

/* the way to put a single file that is no archive into a partition */
#define ONE_FILE "; for this one file, write file \"/NAME\" { from = ... }"

int content_archive_unreadable(const struct content_archive_lib *lib, struct archive *a,
			       const char *host, struct diag *d)
{
	/* libarchive's "unrecognized format" is EILSEQ on Linux */
	bool no_archive = lib->archive_errno(a) == EILSEQ;

	if (no_archive && is_mtree(lib, host))
		return diag_error(d,
				  "%s: reads as an mtree listing, which names files of the "
				  "building machine instead of holding them; a tree comes from a "
				  "folder or an archive (tar, cpio, zip, ...)%s",
				  host, ONE_FILE);
	return diag_error(d, "%s: cannot be read as an archive: %s%s", host,
			  lib->archive_error_string(a),
			  no_archive ? " (a tree comes from a "
				       "folder or an archive" ONE_FILE ")"
				     : "");
}

void content_archive_support(const struct content_archive_lib *lib, struct archive *a)
{
	/* every format libarchive reads but mtree: an mtree listing names host files
	 * (`contents=/etc/shadow`, or a one-word text file that names one), which would put
	 * bytes of the building machine into the image */
	lib->archive_read_support_filter_all(a);
	lib->archive_read_support_format_7zip(a);
	lib->archive_read_support_format_ar(a);
	lib->archive_read_support_format_cab(a);
	lib->archive_read_support_format_cpio(a);
	lib->archive_read_support_format_empty(a);
	lib->archive_read_support_format_iso9660(a);
	lib->archive_read_support_format_lha(a);
	lib->archive_read_support_format_rar(a);
	lib->archive_read_support_format_rar5(a);
	lib->archive_read_support_format_tar(a);
	lib->archive_read_support_format_warc(a);
	lib->archive_read_support_format_xar(a);
	lib->archive_read_support_format_zip(a);
}

struct archive *content_archive_open(const struct content_archive_lib *lib, const char *host,
				     struct diag *d)
{
	struct archive *a = lib->archive_read_new();

	if (!a) {
		diag_error(d, "%s: out of memory", host);
		return NULL;
	}
	content_archive_support(lib, a);
	if (lib->archive_read_open_filename(a, host, 65536) != ARCHIVE_OK) {
		content_archive_unreadable(lib, a, host, d);
		lib->archive_read_free(a);
		return NULL;
	}
	return a;
}

const char *content_archive_entry_name(const struct content_archive_lib *lib,
				       struct archive_entry *ae)
{
	const char *name = lib->archive_entry_pathname_utf8(ae);

	if (!name)
		name = lib->archive_entry_pathname(ae);
	return name ? name : "";
}

int content_archive_norm_path(const char *raw, unsigned strip, char **ret)
{
	char *out = malloc(strlen(raw) + 1);
	size_t w = 0;

	if (!out)
		return -ENOMEM;
	for (const char *p = raw; *p;) {
		size_t len = strcspn(p, "/");
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			if (!w) {
				free(out);
				return -EINVAL;
			}
			while (w && out[w - 1] != '/')
				w--;
			w -= w ? 1 : 0;
		} else if (len && !(len == 1 && p[0] == '.')) {
			if (w)
				out[w++] = '/';
			memcpy(out + w, p, len);
			w += len;
		}
		p += len + strspn(p + len, "/");
	}
	out[w] = '\0';
	char *rest = out;
	for (unsigned i = 0; i < strip && *rest; i++)
		rest = strchr(rest, '/') ? strchr(rest, '/') + 1 : rest + strlen(rest);
	if (strip && !*rest) {
		free(out);
		return 1;
	}
	memmove(out, rest, strlen(rest) + 1);
	*ret = out;
	return 0;
}

/* The FAT path of @rel (relative to the tree's top), malloc'd. */
static char *fat_path_of(const struct lister *ls, const char *rel)
{
	const char *top = strcmp(ls->e->path, "/") ? ls->e->path : "";
	char *path = NULL;

	if (!*rel)
		return strdup(*top ? top : "/");
	return asprintf(&path, "%s/%s", top, rel) < 0 ? NULL : path;
}

static int add_node(struct lister *ls, struct content_node *n, const char *rel,
		    const struct content_archive_item *ae)
{
	char *origin = NULL;
	int rc;

	n->mtime = content_mtime(&ls->l->image, ae->mtime_set ? &ae->mtime : NULL, &n->mtime_ns);
	n->source = ls->source;
	n->path = fat_path_of(ls, rel);
	if (!n->path || asprintf(&origin, "%s: %s", ls->host, ae->name) < 0) {
		free(n->path);
		return -ENOMEM;
	}
	n->origin = origin;
	rc = content_add(ls->c, n, ls->d);
	free(n->path);
	free(origin);
	return rc;
}

/* Remembers the regular file @ae, which strip removed, for hard links to it. */
static int remember_gone(struct lister *ls, const struct content_archive_item *ae)
{
	char *path = NULL;
	int rc = content_archive_norm_path(ae->name, 0, &path);

	if (rc)
		return rc < 0 ? rc : 0;
	if (array_grow((void **)&ls->gone, &ls->cap_gone, ls->n_gone + 1, sizeof(*ls->gone)) < 0) {
		free(path);
		return -ENOMEM;
	}
	ls->gone[ls->n_gone++] = (struct gone){ .path = path,
						.entry = ae->number,
						.size = (uint64_t)ae->size };
	return 0;
}

/* The stripped-away file that @target names, in *@ret; -ENOENT when there is none. */
static int find_gone(const struct lister *ls, const char *target, size_t *ret)
{
	char *path = NULL;
	int rc = content_archive_norm_path(target, 0, &path);

	if (rc)
		return rc < 0 ? rc : -ENOENT;
	rc = -ENOENT;
	for (size_t i = ls->n_gone; rc && i-- > 0;)
		if (!strcmp(ls->gone[i].path, path)) {
			*ret = i;
			rc = 0;
		}
	free(path);
	return rc;
}

/* A hard link to stripped-away file @g: its bytes are decided once all is listed. */
static int link_to_gone(struct lister *ls, const char *rel, const struct content_archive_item *ae,
			size_t g)
{
	int rc = add_node(ls, &(struct content_node){ .size = 0 }, rel, ae);

	if (rc < 0)
		return rc;
	if (array_grow((void **)&ls->links, &ls->cap_links, ls->n_links + 1, sizeof(*ls->links)) <
	    0)
		return -ENOMEM;
	ls->links[ls->n_links++] = (struct gone_link){ .node = ls->c->n - 1, .gone = g };
	return 0;
}

/* The hard links to stripped-away files get those files' bytes. */
static void fill_gone_links(struct lister *ls)
{
	for (size_t i = 0; i < ls->n_links; i++) {
		struct content_node *n = &ls->c->nodes[ls->links[i].node];
		const struct gone *g = &ls->gone[ls->links[i].gone];
		if (n->removed)
			continue;
		n->archive = ls->id;
		n->entry = g->entry;
		n->size = g->size;
	}
}

/*
 * A hard link: the same bytes as the file it names, taken once everything is listed (as for
 * symbolic links). Its target is a path from the archive's top, stripped like every entry.
 */
static int add_hardlink(struct lister *ls, const char *rel, const struct content_archive_item *ae)
{
	const char *target = ae->hardlink;
	char *trel = NULL;
	size_t g = 0;
	int rc = content_archive_norm_path(target, ls->e->strip, &trel);

	if (rc == 1 && (rc = find_gone(ls, target, &g)) == 0)
		return link_to_gone(ls, rel, ae, g);
	if (rc == -ENOMEM)
		return rc;
	if (rc)
		return diag_error(ls->d, "%s: %s: a hard link to %s, which is outside the tree",
				  ls->host, ae->name, target);
	if (strcmp(trel, rel) == 0) { /* as the ext4 build says it (ext4_archive.c) */
		free(trel);
		return diag_error(ls->d, "%s: '%s' is a hard link to itself (the same path twice)",
				  ls->host, ae->name);
	}
	struct content_node n = { .link = trel };
	rc = add_node(ls, &n, rel, ae);
	free(trel);
	return rc;
}

/*
 * cpio (newc) puts the bytes of a group of hard links on its last name only, and lists the
 * earlier ones empty: the file named by @ae's link gets the bytes that @ae carries.
 */
static int give_bytes_to_target(struct lister *ls, const struct content_archive_item *ae)
{
	char *trel = NULL, *path = NULL, *key = NULL;
	struct content_node *t = NULL;
	size_t g;
	int rc = content_archive_norm_path(ae->hardlink, ls->e->strip, &trel);

	if (rc == 1 && find_gone(ls, ae->hardlink, &g) == 0 && !ls->gone[g].size) {
		ls->gone[g].entry = ae->number;
		ls->gone[g].size = (uint64_t)ae->size;
	}
	if (rc == 0 && (!(path = fat_path_of(ls, trel)) || !(key = content_key(ls->c, path)) ||
			content_find(ls->c, key, &t) < 0))
		rc = -ENOMEM;
	if (t && t->source == ls->source && t->archive == ls->id && !t->size && !t->is_dir) {
		t->entry = ae->number;
		t->size = (uint64_t)ae->size;
	}
	free(trel);
	free(path);
	free(key);
	return rc < 0 ? rc : 0;
}

/* A symbolic link: its target, relative to the tree's top, resolved once all is listed. */
static int add_symlink(struct lister *ls, const char *rel, const struct content_archive_item *ae)
{
	const char *target = ae->symlink;
	const char *slash = strrchr(rel, '/');
	char *joined = NULL, *trel = NULL;
	int rc;

	if (ls->e->links == LAYOUT_LINKS_REFUSE)
		return diag_error(ls->d,
				  "%s: %s: a symbolic link (to %s), and links = refuse takes "
				  "none",
				  ls->host, ae->name, target ? target : "nothing");
	if (!target || target[0] == '/' || !*target)
		return diag_error(ls->d, "%s: %s: a symbolic link to %s, outside the archive",
				  ls->host, ae->name, target ? target : "nothing");
	if (asprintf(&joined, "%.*s/%s", slash ? (int)(slash - rel) : 0, rel, target) < 0)
		return -ENOMEM;
	rc = content_archive_norm_path(joined, 0, &trel);
	free(joined);
	if (rc == -EINVAL)
		return diag_error(ls->d, "%s: %s: a symbolic link to %s, outside the tree",
				  ls->host, ae->name, target);
	if (rc < 0)
		return rc;
	struct content_node n = { .link = trel };
	rc = add_node(ls, &n, rel, ae);
	free(trel);
	return rc;
}

static int add_file(struct lister *ls, const char *rel, const struct content_archive_item *ae)
{
	struct content_node n = { .archive = ls->id, .entry = ae->number };

	if (!ae->size_set)
		return diag_error(ls->d, "%s: %s: the archive does not say how large it is",
				  ls->host, ae->name);
	n.size = (uint64_t)ae->size;
	int rc = content_caps_check_size(ls->r.caps, n.size, ls->host, ae->name, ls->d);
	if (rc < 0)
		return rc;
	ls->copies.held_bytes += n.size;
	return add_node(ls, &n, rel, ae);
}

/* What FAT makes of entry @ae of the listing. */
static int add_entry(struct lister *ls, const struct content_archive_item *ae)
{
	const char *name = ae->name, *hard = ae->hardlink, *rel = ae->path;
	mode_t type = ae->type;
	int rc = 0;

	if (!rel && hard && ae->size > 0)
		return give_bytes_to_target(ls, ae); /* stripped away, with bytes for its links */
	if (!rel && type == AE_IFREG)
		return remember_gone(ls, ae); /* stripped away, but hard links may name it */
	if (!rel)
		return 0;
	ls->copies.held_nodes++;
	if (!*rel && (type != AE_IFDIR || hard))
		rc = diag_error(ls->d, "%s: %s: not a folder, where the tree's top folder goes",
				ls->host, name);
	/* a hard link first: tar gives it no file type */
	else if (hard && ae->size <= 0)
		rc = add_hardlink(ls, rel, ae);
	else if (type == AE_IFDIR && !*rel && !strcmp(ls->e->path, "/"))
		rc = 0; /* the root, which FAT stores nothing about */
	else if (type == AE_IFDIR)
		rc = add_node(ls, &(struct content_node){ .is_dir = true }, rel, ae);
	else if (type == AE_IFREG || hard)
		rc = add_file(ls, rel, ae);
	else if (type == AE_IFLNK)
		rc = add_symlink(ls, rel, ae);
	else
		rc = content_caps_check(ls->r.caps, type, ls->host, name, ls->d);
	if (rc == 0 && hard && ae->size > 0)
		rc = give_bytes_to_target(ls, ae);
	return rc;
}

/* The folders above @rel, which the model judged (filter.c) when the entry at @rel was
 * judged there, judged so that the patterns count them as they did. */
static void judge_folders_above(struct content_filter *f, const char *rel)
{
	char up[CONTENT_MAX_PATH + 1];

	for (const char *slash = strchr(rel, '/'); slash; slash = strchr(slash + 1, '/')) {
		size_t len = (size_t)(slash - rel);
		if (len > CONTENT_MAX_PATH)
			break;
		memcpy(up, rel, len);
		up[len] = '\0';
		content_filter_takes(f, up, true);
	}
}

/*
 * Entry @ae, which the filter dropped (content_archive_dropped()): never examined, so that
 * nothing wrong with it stops the build (a link out of the tree or in a loop, a device node,
 * a path too deep, a name FAT sees as equal to another), yet kept in the model, left out, as
 * far as it goes there: a hard or symbolic link that stays may still name it, as a folder's
 * walk follows a link into what exclude leaves out. Its own links are never followed.
 */
static int add_dropped(struct lister *ls, const struct content_archive_item *ae)
{
	struct diag *d = ls->d, quiet;
	size_t first = ls->c->n;
	int rc;

	judge_folders_above(ls->filter, ae->path);
	diag_init(&quiet);
	ls->d = &quiet;
	rc = add_entry(ls, ae);
	ls->d = d;
	diag_release(&quiet);
	for (size_t i = first; i < ls->c->n; i++) {
		ls->c->nodes[i].judged = true;
		ls->c->nodes[i].left_out = true;
	}
	return rc == -ENOMEM ? rc : 0;
}

/* Whether node @n is a symbolic link the filter dropped, which is never followed. */
static bool dropped_link(const struct content_node *n)
{
	return n->link && n->judged && n->left_out;
}

/* Entry @ae of the listing into the model (a content_archive_item_fn). */
static int list_entry(void *ctx, struct content_archive_item *ae)
{
	struct lister *ls = ctx;

	return content_archive_dropped(ls->filter, ae) ? add_dropped(ls, ae) : add_entry(ls, ae);
}

/* Copies the archive's nodes below folder node @from to below the path @to. */
static int copy_below(struct lister *ls, size_t from, const char *to)
{
	size_t plen = strlen(ls->c->nodes[from].path);

	for (size_t k = ls->c->nodes[from].kids; k; k = content_next_below(ls->c, from + 1, k)) {
		const struct content_node *m = &ls->c->nodes[k - 1];
		if (m->removed || m->source != ls->source)
			continue;
		struct content_node copy = { .is_dir = m->is_dir,
					     .archive = m->archive,
					     .entry = m->entry,
					     .size = m->size,
					     .link = m->link,
					     .mtime = m->mtime,
					     .mtime_ns = m->mtime_ns,
					     .source = m->source,
					     .origin = m->origin };
		int rc = content_count_copy(&ls->copies, m->size, ls->host, ls->d);
		if (rc < 0)
			return rc;
		if (asprintf(&copy.path, "%s%s", to, m->path + plen) < 0)
			return -ENOMEM;
		rc = content_add(ls->c, &copy, ls->d); /* may move ls->c->nodes */
		free(copy.path);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * Node @i, a link to the folder @t: it becomes a copy of that folder (as a folder walk that
 * follows the link sees it); a link inside the folder it names is a loop.
 */
static int follow_to_folder(struct lister *ls, size_t i, const struct content_node *t)
{
	struct content_node *n = &ls->c->nodes[i];
	size_t from = (size_t)(t - ls->c->nodes);
	char *to = strdup(n->path), *n_key = content_key(ls->c, n->path);
	char *t_key = content_key(ls->c, t->path);
	size_t len = t_key ? strlen(t_key) : 0;
	int rc = to && n_key && t_key ? 0 : -ENOMEM;

	if (rc == 0 && !strncmp(n_key, t_key, len) && (!n_key[len] || n_key[len] == '/'))
		rc = diag_error(ls->d, "%s: a symbolic link loop (it leads to %s, which holds it)",
				n->origin, t->path);
	free(n_key);
	free(t_key);
	if (rc == 0) {
		n->is_dir = true;
		n->mtime = t->mtime;
		n->mtime_ns = t->mtime_ns;
		n->link = NULL; /* the model's arena keeps its bytes */
		rc = copy_below(ls, from, to);
	}
	free(to);
	return rc;
}

/*
 * Follows the link of node @i and gives @i the bytes of the file (or the folder) it names.
 * A link that names nothing (yet: a path through a link to a folder that is not copied yet)
 * is an error when @report is set, else it returns 1.
 */
static int resolve_link(struct lister *ls, size_t i, bool report)
{
	const char *target = ls->c->nodes[i].link;

	for (unsigned hops = 0; hops < LINK_HOPS; hops++) {
		if (!*target)
			return diag_error(ls->d,
					  "%s: a symbolic link loop (it leads to the top of "
					  "the tree, which holds it)",
					  ls->c->nodes[i].origin);
		char *path = fat_path_of(ls, target), *key = path ? content_key(ls->c, path) : NULL;
		struct content_node *t = NULL;
		bool no_memory = !key || content_find(ls->c, key, &t) < 0;
		free(path);
		free(key);
		if (no_memory)
			return -ENOMEM;
		struct content_node *n = &ls->c->nodes[i];
		if ((!t || t->source != ls->source) && !report)
			return 1;
		if (!t || t->source != ls->source)
			return diag_error(ls->d,
					  "%s: a dangling link (to %s, which the archive "
					  "does not hold)",
					  n->origin, target);
		if (t->is_dir)
			return follow_to_folder(ls, i, t);
		if (!t->link) {
			int rc = content_count_copy(&ls->copies, t->size, ls->host, ls->d);
			if (rc < 0)
				return rc;
			n->archive = t->archive;
			n->entry = t->entry;
			n->size = t->size;
			n->mtime = t->mtime; /* a followed link is that file, as in folders */
			n->mtime_ns = t->mtime_ns;
			n->link = NULL;
			return 0;
		}
		target = t->link;
	}
	return diag_error(ls->d, "%s: a loop of symbolic links, or more than %d in a row",
			  ls->c->nodes[i].origin, LINK_HOPS);
}

/* Resolves every link, again while that makes progress; then reports those left dangling. */
static int resolve_links(struct lister *ls)
{
	bool progress = true;
	size_t pending = 1;

	while (pending && progress) {
		progress = false;
		pending = 0;
		for (size_t i = ls->first_node; i < ls->c->n; i++) {
			if (ls->c->nodes[i].removed || !ls->c->nodes[i].link ||
			    dropped_link(&ls->c->nodes[i]))
				continue;
			int rc = resolve_link(ls, i, false);
			if (rc < 0)
				return rc;
			pending += rc == 1;
			progress |= rc == 0;
		}
	}
	for (size_t i = ls->first_node; pending && i < ls->c->n; i++)
		if (!ls->c->nodes[i].removed && ls->c->nodes[i].link &&
		    !dropped_link(&ls->c->nodes[i]))
			return resolve_link(ls, i, true);
	return 0;
}

/* Makes @host archive number ls->id of the model; its place and spool come from the
 * listing. */
static int register_archive(struct lister *ls)
{
	struct content *c = ls->c;

	if (array_grow((void **)&c->archives, &c->cap_archives, c->n_archives + 1,
		       sizeof(*c->archives)) < 0)
		return -ENOMEM;
	c->archives[c->n_archives] = (struct content_archive){ .spool_fd = -1 };
	ls->id = (uint32_t)++c->n_archives;
	return 0;
}

/* Lists archive @host into ls: FAT holds no archive of no entries. */
static int list_host(struct lister *ls)
{
	int rc = content_archive_list(&ls->r, ls->host, list_entry, ls);

	/* the archive as listed, and its spool, go to the model for the data pass */
	ls->c->archives[ls->id - 1] = ls->r.source;
	ls->r.source = (struct content_archive){ .spool_fd = -1 };
	if (rc < 0)
		return rc;
	if (!ls->r.n)
		return diag_error(ls->d, "%s: an empty archive (no entries)", ls->host);
	if (!ls->r.kept)
		diag_warning(ls->d, "%s: strip = %u leaves nothing of its %llu entries", ls->host,
			     ls->e->strip, (unsigned long long)ls->r.n);
	return 0;
}

int content_list_archive(const struct layout *l, const struct layout_entry *e, const char *host,
			 size_t source, struct content_filter *filter, struct content *c,
			 struct diag *d)
{
	struct lister ls = { .l = l,
			     .e = e,
			     .host = host,
			     .source = source,
			     .c = c,
			     .filter = filter,
			     .d = d,
			     .first_node = c->n };
	/* an error is prefixed with the tree's FILE:LINE by content_gather() */
	int rc = content_archive_reader_open(&ls.r, content_caps_of(c), e->strip, d);

	ls.r.top = e->path;
	ls.r.filter = filter;
	if (rc == 0)
		rc = register_archive(&ls);
	if (rc == 0)
		rc = list_host(&ls);
	if (rc == 0) {
		fill_gone_links(&ls);
		rc = resolve_links(&ls);
	}
	for (size_t i = 0; i < ls.n_gone; i++)
		free(ls.gone[i].path);
	free(ls.gone);
	free(ls.links);
	content_archive_reader_close(&ls.r);
	return rc;
}
