/* SPDX-License-Identifier: MIT */
/*
 * host_tree: the layout's tree, file and dir entries of a FAT or exFAT partition, read from
 * the host.
 * A tree's folder is walked by the one walk of host folders (host_walk.c: names sorted by
 * their bytes, include and exclude judging each entry before it is examined, symbolic links
 * followed as `links` says, since FAT has none); this is what FAT makes of what it finds:
 * the model's folders and files. (A file unreadable to us is found when its bytes are
 * copied; fat/ checks there that it is still the file listed here.)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/path.h"
#include "mkimage/contents/contents_priv.h"

struct gatherer {
	const struct layout *l;
	struct content *c;
	struct diag *d;
	size_t source;
	struct content_filter *filter; /* the tree's include and exclude (NULL: none) */
	const char *tree_path;         /* the tree's path in the partition */
};

/* What a tree's include and exclude said of a node as the walk met it. */
enum judgement {
	JUDGE_NONE,     /* no filters: every entry stays */
	JUDGE_TAKEN,    /* it stays by its own name */
	JUDGE_LEFT_OUT, /* a folder left out by its name, not excluded: walked for what include
			 * may take */
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

/* A host file given by its path: a regular file (0) or a folder (1), after following links. */
static int check_file(struct gatherer *g, const char *host, struct stat *st)
{
	int rc = content_host_stat(AT_FDCWD, host, host, st, NULL, g->d);

	return rc == 0 ? content_caps_check(content_caps_of(g->c), st->st_mode, host, NULL, g->d)
		       : rc;
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

/* The FAT path of the walk's entry @e: the tree's path, then the entry's from its top. */
static char *fat_path(const struct gatherer *g, const struct content_walk_entry *e)
{
	return path_append(strcmp(g->tree_path, "/") ? g->tree_path : "", e->rel);
}

static enum judgement judgement_of(const struct gatherer *g, const struct content_walk_entry *e)
{
	return !g->filter ? JUDGE_NONE : e->takes ? JUDGE_TAKEN : JUDGE_LEFT_OUT;
}

/* A folder the walk met (what a link led to, where it is one): a folder of the model. */
static int fat_folder(void *ctx, void *up, const struct content_walk_entry *e, int fd, void **ret)
{
	struct gatherer *g = ctx;
	char *path = fat_path(g, e);
	int rc = path ? add_dir(g, path, e->st, e->host, judgement_of(g, e)) : -ENOMEM;

	(void)up;
	(void)fd;
	free(path);
	*ret = NULL; /* a folder's entries find it by their path */
	return rc;
}

/* A file the walk met (what a link led to, where it is one): a file of the model. */
static int fat_file(void *ctx, void *folder, const struct content_walk_entry *e)
{
	struct gatherer *g = ctx;
	char *path = fat_path(g, e);
	int rc = path ? add_host_file(g, path, e->host, e->st, 0, false, judgement_of(g, e))
		      : -ENOMEM;

	(void)folder;
	free(path);
	return rc;
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
		rc = content_list_archive(g->l, e, host, g->source, g->filter, g->c, g->d);
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
	int fd = rc >= 0 ? content_open_folder(AT_FDCWD, host, host, &st, true, g->d) : -1;
	if (rc >= 0 && fd < 0)
		rc = fd;
	/* what FAT and exFAT make of a host folder's walk: a model, written later, without
	 * symbolic links, devices, fifos or sockets (their caps) */
	const struct content_walk_ops ops = {
		.folder = fat_folder,
		.entry = fat_file,
		.caps = content_caps_of(g->c),
		.follows_links = true,
		.keeps_model = true,
	};
	if (rc >= 0) {
		g->tree_path = e->path;
		rc = content_walk_host(fd, host, e->links, NULL, g->filter, &ops, g, g->d);
	}
	free(host);
	return rc;
}

/* A tree with include or exclude patterns: gathered alone, its walk judging each entry before
 * it examines it, then what they keep joins. */
static int gather_filtered(struct gatherer *g, const struct layout_entry *e, const char *place)
{
	struct content alone = { .caps = g->c->caps, .implicit_mtime = g->c->implicit_mtime };
	struct content *c = g->c;
	struct content_filter f;
	int rc = content_filter_init(&f, e);

	if (rc < 0)
		return rc;
	g->c = &alone;
	g->filter = &f;
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

	c->caps = layout_part_is_exfat(p) ? &content_caps_exfat : &content_caps_fat;
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
