/* SPDX-License-Identifier: MIT */
/*
 * patterns: a tree's include and exclude patterns (LAYOUT.md, "Filters") judged against one
 * entry's path from the tree's top, with the count of what each pattern matched. FAT trees
 * (filter.c, over their model) and ext4 trees (the builder's walks) use the same judge.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "mkimage/contents/contents.h"

/*
 * Whether pattern @pat matches @rel (a path relative to the tree's top, a folder when
 * @is_dir): against the whole path when the pattern holds a '/', else against the last
 * component; a leading '/' anchors it at the tree's top ("/boot" matches "boot", never
 * "a/boot"), a trailing '/' matches folders only.
 */
static bool pattern_matches(const char *pat, const char *rel, bool is_dir)
{
	bool anchored = *pat == '/';
	char buf[1024];
	size_t len;

	pat += anchored;
	len = strlen(pat);
	if (len && pat[len - 1] == '/') {
		if (!is_dir || len >= sizeof(buf))
			return false;
		memcpy(buf, pat, len - 1);
		buf[len - 1] = '\0';
		pat = buf;
	}
	if (anchored || strchr(pat, '/'))
		return fnmatch(pat, rel, FNM_PATHNAME) == 0;
	const char *base = strrchr(rel, '/');
	return fnmatch(pat, base ? base + 1 : rel, 0) == 0;
}

/*
 * Whether any of the @n patterns @v matches @rel or a folder above it ("a/b/c": "a", "a/b",
 * "a/b/c"); each pattern that matches @rel itself counts a hit in @hits (NULL: none counted).
 */
static bool any_matches(char *const *v, size_t n, size_t *hits, const char *rel, bool is_dir)
{
	char prefix[CONTENT_MAX_PATH + 1];
	bool found = false;
	size_t len = strlen(rel);

	if (len >= sizeof(prefix))
		len = sizeof(prefix) - 1;
	memcpy(prefix, rel, len);
	prefix[len] = '\0';
	for (size_t i = 0; i < n; i++)
		if (pattern_matches(v[i], prefix, is_dir)) {
			if (hits)
				hits[i]++;
			found = true;
		}
	for (char *slash = strrchr(prefix, '/'); !found && slash; slash = strrchr(prefix, '/')) {
		*slash = '\0';
		for (size_t i = 0; i < n && !found; i++)
			found = pattern_matches(v[i], prefix, true);
	}
	return found;
}

int content_filter_init(struct content_filter *f, const struct layout_entry *e)
{
	*f = (struct content_filter){ .e = e };
	f->include_hits = calloc(e->n_include + 1, sizeof(size_t));
	f->exclude_hits = calloc(e->n_exclude + 1, sizeof(size_t));
	if (!f->include_hits || !f->exclude_hits) {
		content_filter_release(f);
		return -ENOMEM;
	}
	return 0;
}

bool content_filter_takes(struct content_filter *f, const char *rel, bool is_dir)
{
	const struct layout_entry *e = f->e;
	/* both are asked, so that each pattern counts what it matches */
	bool included = any_matches(e->include, e->n_include, f->include_hits, rel, is_dir);
	bool excluded = any_matches(e->exclude, e->n_exclude, f->exclude_hits, rel, is_dir);

	return (included || !e->n_include) && !excluded;
}

bool content_filter_drops(struct content_filter *f, const char *rel)
{
	const struct layout_entry *e = f->e;

	/* a pattern that matches a file matches a folder of that name too (a trailing '/' only
	 * adds folders): excluded as a file is excluded as whatever it is */
	if (!any_matches(e->exclude, e->n_exclude, NULL, rel, false))
		return false;
	content_filter_takes(f, rel, false);
	return true;
}

bool content_filter_prunes(struct content_filter *f, const char *rel)
{
	const struct layout_entry *e = f->e;

	if (!any_matches(e->exclude, e->n_exclude, NULL, rel, true))
		return false;
	content_filter_takes(f, rel, true);
	return true;
}

static void warn_unmatched(char *const *v, size_t n, const size_t *hits, const char *key,
			   const char *place, const char *from, struct diag *d)
{
	for (size_t i = 0; i < n; i++)
		if (!hits[i])
			diag_warning(d, "%s%s pattern '%s' matches nothing in %s", place, key, v[i],
				     from);
}

void content_filter_warn(const struct content_filter *f, const char *place, struct diag *d)
{
	const struct layout_entry *e = f->e;

	warn_unmatched(e->include, e->n_include, f->include_hits, "include", place, e->from, d);
	warn_unmatched(e->exclude, e->n_exclude, f->exclude_hits, "exclude", place, e->from, d);
}

void content_filter_release(struct content_filter *f)
{
	free(f->include_hits);
	free(f->exclude_hits);
	f->include_hits = f->exclude_hits = NULL;
}
