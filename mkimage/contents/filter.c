/*
 * filter: a tree's include and exclude patterns (LAYOUT.md, "Filters"). The tree is gathered
 * whole into a model of its own (links resolved, strip applied), its entries are judged
 * there, and only those kept join the partition's model: an entry left out never replaces
 * what an earlier entry put at its path.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "mkimage/contents/contents_priv.h"

/* The patterns of one key, and how often each matched. */
struct patterns {
	char *const *v;
	size_t n;
	size_t *hits;
};

/*
 * Whether pattern @pat matches @rel (a path relative to the tree's top, a folder when
 * @is_dir): against the whole path when the pattern holds a '/', else against the last
 * component; a leading '/' is dropped, a trailing '/' matches folders only.
 */
static bool pattern_matches(const char *pat, const char *rel, bool is_dir)
{
	char buf[1024];
	size_t len;

	pat += *pat == '/';
	len = strlen(pat);
	if (len && pat[len - 1] == '/') {
		if (!is_dir || len >= sizeof(buf))
			return false;
		memcpy(buf, pat, len - 1);
		buf[len - 1] = '\0';
		pat = buf;
	}
	if (strchr(pat, '/'))
		return fnmatch(pat, rel, FNM_PATHNAME) == 0;
	const char *base = strrchr(rel, '/');
	return fnmatch(pat, base ? base + 1 : rel, 0) == 0;
}

/*
 * Whether any of @ps matches @rel or a folder above it ("a/b/c": "a", "a/b", "a/b/c");
 * each pattern that matches @rel itself counts a hit.
 */
static bool any_matches(struct patterns *ps, const char *rel, bool is_dir)
{
	char prefix[4096];
	bool found = false;
	size_t len = strlen(rel);

	if (len >= sizeof(prefix))
		len = sizeof(prefix) - 1;
	memcpy(prefix, rel, len);
	prefix[len] = '\0';
	for (size_t i = 0; i < ps->n; i++)
		if (pattern_matches(ps->v[i], prefix, is_dir)) {
			ps->hits[i]++;
			found = true;
		}
	for (char *slash = strrchr(prefix, '/'); !found && slash; slash = strrchr(prefix, '/')) {
		*slash = '\0';
		for (size_t i = 0; i < ps->n && !found; i++)
			found = pattern_matches(ps->v[i], prefix, true);
	}
	return found;
}

/* @path relative to the tree's top @top ("" for the top itself), or NULL above the top. */
static const char *relative(const char *path, const char *top)
{
	size_t n = strcmp(top, "/") ? strlen(top) : 0;

	if (n && (strncmp(path, top, n) || (path[n] && path[n] != '/')))
		return NULL;
	return path[n] == '/' ? path + n + 1 : path + n;
}

/* Marks the folder that holds node @i (found by its key) as kept. */
static int keep_parent(struct content *s, size_t i, bool *keep)
{
	char *key = strdup(s->nodes[i].key), *slash;

	if (!key)
		return -ENOMEM;
	if ((slash = strrchr(key, '/')) && slash != key) {
		*slash = '\0';
		struct content_node *parent = content_find(s, key);
		if (parent)
			keep[parent - s->nodes] = true;
	}
	free(key);
	return 0;
}

/*
 * Which nodes of @s stay: those included (or all, without include) and not excluded, the
 * top and what lies above it, and every folder that holds something that stays. Parents
 * come before their children in @s, so one pass backwards carries a kept child up.
 */
static int decide(struct content *s, const struct layout_entry *e, struct patterns *inc,
		  struct patterns *exc, bool *keep)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct content_node *n = &s->nodes[i];
		const char *rel = relative(n->path, e->path);
		if (n->removed)
			continue;
		if (!rel || !*rel) {
			keep[i] = true;
			continue;
		}
		bool included = any_matches(inc, rel, n->is_dir); /* each call counts its hits */
		bool excluded = any_matches(exc, rel, n->is_dir);
		keep[i] = (included || !inc->n) && !excluded;
	}
	for (size_t i = s->n; i-- > 0;)
		if (keep[i] && !s->nodes[i].removed && keep_parent(s, i, keep) < 0)
			return -ENOMEM;
	return 0;
}

/* The archives of @s become @c's (their ids shift by what @c had); returns the shift. */
static int take_archives(struct content *c, struct content *s, uint32_t *ret_base)
{
	if (array_grow((void **)&c->archives, &c->cap_archives, c->n_archives + s->n_archives,
		       sizeof(*c->archives)) < 0)
		return -ENOMEM;
	*ret_base = (uint32_t)c->n_archives;
	for (size_t i = 0; i < s->n_archives; i++) {
		c->archives[c->n_archives++] = s->archives[i];
		s->archives[i].path = NULL;
		s->archives[i].spooled = false;
	}
	return 0;
}

static void warn_unmatched(const struct patterns *ps, const char *key, const char *place,
			   const struct layout_entry *e, struct diag *d)
{
	for (size_t i = 0; i < ps->n; i++)
		if (!ps->hits[i])
			diag_warning(d, "%s%s pattern '%s' matches nothing in %s", place, key,
				     ps->v[i], e->from);
}

int content_merge_filtered(struct content *c, struct content *s, const struct layout_entry *e,
			   const char *place, struct diag *d)
{
	struct patterns inc = { e->include, e->n_include, calloc(e->n_include + 1, sizeof(size_t)) };
	struct patterns exc = { e->exclude, e->n_exclude, calloc(e->n_exclude + 1, sizeof(size_t)) };
	bool *keep = calloc(s->n + 1, sizeof(*keep));
	uint32_t base = 0;
	int rc = inc.hits && exc.hits && keep ? 0 : -ENOMEM;

	if (rc == 0)
		rc = decide(s, e, &inc, &exc, keep);
	if (rc == 0)
		rc = take_archives(c, s, &base);
	for (size_t i = 0; rc == 0 && i < s->n; i++) {
		struct content_node n = s->nodes[i];
		/* a folder made only because a path needs it is made again by that path */
		if (n.removed || !keep[i] || n.implicit)
			continue;
		n.archive = n.archive ? n.archive + base : 0;
		rc = content_add(c, &n, d);
	}
	if (rc == 0) {
		warn_unmatched(&inc, "include", place, e, d);
		warn_unmatched(&exc, "exclude", place, e, d);
	}
	free(inc.hits);
	free(exc.hits);
	free(keep);
	return rc;
}
