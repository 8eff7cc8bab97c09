/* SPDX-License-Identifier: MIT */
/*
 * archive_judge: a tree's include and exclude judged over an archive's entries in walk order
 * (contents.h), for a file system that makes them in that order (ext4): what a folder's walk
 * would leave out, with the patterns' hits counted as that walk counts them.
 */
#include <string.h>

#include "mkimage/contents/contents_priv.h"

int content_walk_compare(const char *a, const char *b)
{
	for (;;) {
		size_t na = strcspn(a, "/"), nb = strcspn(b, "/");
		int c = memcmp(a, b, na < nb ? na : nb);
		if (c || na != nb)
			return c ? c : na < nb ? -1 : 1;
		a += na;
		b += nb;
		if (!*a || !*b)
			return *a ? 1 : *b ? -1 : 0;
		a++;
		b++;
	}
}

/* 1 + the index of the last of @paths (in walk order) that is @path, or 0: the one a later
 * entry gave. */
static size_t find_path(const char *const *paths, size_t n, const char *path)
{
	size_t lo = 0, hi = n, found = 0;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = content_walk_compare(paths[mid], path);
		if (c <= 0)
			lo = mid + 1;
		if (c == 0)
			found = mid + 1;
		if (c > 0)
			hi = mid;
	}
	return found;
}

/* Whether @path is @folder or lies below it. */
static bool lies_in(const char *path, const char *folder, size_t len)
{
	return !strncmp(path, folder, len) && (!path[len] || path[len] == '/');
}

/*
 * The folders above paths[@i] that no entry gives (an archive need not list them), judged
 * once, at the first entry below them, so that the patterns count them as a folder's walk
 * does; such a folder is made only when something below it is, as without filters.
 */
static void judge_implied(struct content_filter *f, const char *const *paths, size_t n, size_t i)
{
	char up[CONTENT_MAX_PATH + 1];
	const char *path = paths[i];

	for (const char *slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
		size_t len = (size_t)(slash - path);
		memcpy(up, path, len);
		up[len] = '\0';
		if (find_path(paths, n, up) || (i && lies_in(paths[i - 1], up, len)))
			continue;
		content_filter_takes(f, up, true);
	}
}

void content_archive_judge(struct content_filter *f, const char *const *paths, const bool *is_dir,
			   bool *left_out, size_t n)
{
	char up[CONTENT_MAX_PATH + 1];

	for (size_t i = 0; i < n; i++) {
		left_out[i] = false;
		if (!*paths[i]) /* the top stays */
			continue;
		judge_implied(f, paths, n, i);
		left_out[i] = !content_filter_takes(f, paths[i], is_dir[i]);
	}
	for (size_t i = n; i-- > 0;) {
		const char *path = paths[i];
		if (left_out[i])
			continue;
		/* the nearest listed folder above it stays, past folders only implied (made with
		 * defaults anyway); its own turn comes later and carries it further up */
		for (const char *slash = strrchr(path, '/'); slash;
		     slash = memrchr(path, '/', (size_t)(slash - path))) {
			size_t len = (size_t)(slash - path);
			memcpy(up, path, len);
			up[len] = '\0';
			size_t k = find_path(paths, n, up);
			if (k && is_dir[k - 1]) {
				left_out[k - 1] = false;
				break;
			}
		}
	}
}
