/*
 * host_walk: the walk of a host folder for a file system that keeps what it finds as it is
 * (symbolic links as links, device nodes, fifos, owners, attributes: ext4), so that such a
 * file system writes what it makes of each entry, not a walk of its own (contents.h). Each
 * folder's names come sorted by their bytes, a folder before what it holds; an entry is
 * looked at by its own name (a link is never followed), through the descriptor of the folder
 * it was listed in, and a folder is opened without following a link, so that a folder swapped
 * for a link during the walk cannot lead it elsewhere.
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
#include "mkimage/contents/contents.h"

struct walker {
	const struct content_walk_ops *ops;
	void *ctx;
	struct content_filter *filter;
	struct diag *d;
	size_t top_len; /* of the top's host path: an entry's path from the top follows it */
	size_t depth;
};

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in the folder open at @fd (named @host), sorted byte-wise, in *@ret. */
static int list_names(struct walker *wk, int fd, const char *host, char ***ret, size_t *ret_n)
{
	int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	DIR *dir = copy < 0 ? NULL : fdopendir(copy);
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int rc = 0;

	if (!dir) {
		rc = diag_error(wk->d, "%s: %s", host, strerror(errno));
		if (copy >= 0)
			close(copy);
		return rc;
	}
	while (rc == 0) {
		errno = 0;
		if (!(de = readdir(dir))) {
			if (errno)
				rc = diag_error(wk->d, "%s: %s", host, strerror(errno));
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (array_grow((void **)&names, &cap, n + 1, sizeof(*names)) < 0 ||
		    !(names[n] = strdup(de->d_name)))
			rc = -ENOMEM;
		else
			n++;
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

static int walk_folder(struct walker *wk, int fd, void *folder, const char *host);

/* The entry @name of the folder @dirfd (the caller's @folder), and what is below it. */
static int walk_entry(struct walker *wk, int dirfd, const char *name, void *folder,
		      const char *host)
{
	struct stat st;
	struct content_walk_entry e = { .dirfd = dirfd, .name = name, .host = host, .st = &st };
	void *child;
	int rc;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return diag_error(wk->d, "%s: %s", host, strerror(errno));
	e.takes = !wk->filter ||
		  content_filter_takes(wk->filter, host + wk->top_len + 1, S_ISDIR(st.st_mode));
	if (!S_ISDIR(st.st_mode) && e.takes &&
	    (rc = content_caps_check(wk->ops->caps, st.st_mode, host, NULL, wk->d)) < 0)
		return rc;
	if (!S_ISDIR(st.st_mode))
		return wk->ops->entry(wk->ctx, folder, &e);
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return diag_error(wk->d, "%s: %s", host, strerror(errno));
	if ((rc = wk->ops->folder(wk->ctx, folder, &e, fd, &child)) == 0) {
		rc = walk_folder(wk, fd, child, host);
		wk->ops->folder_done(wk->ctx, child);
	}
	close(fd);
	return rc;
}

/* The names of the host folder open at @fd into the caller's @folder. */
static int walk_folder(struct walker *wk, int fd, void *folder, const char *host)
{
	char **names = NULL;
	size_t n = 0;
	int rc;

	if (wk->depth >= CONTENT_MAX_DEPTH)
		return diag_error(wk->d, "%s: more than %d folders deep", host, CONTENT_MAX_DEPTH);
	if ((rc = list_names(wk, fd, host, &names, &n)) < 0)
		return rc;
	wk->depth++;
	for (size_t i = 0; i < n; i++) {
		char *path = NULL;
		if (rc == 0 && asprintf(&path, "%s/%s", host, names[i]) < 0) {
			path = NULL; /* undefined after a failure */
			rc = -ENOMEM;
		}
		if (rc == 0)
			rc = walk_entry(wk, fd, names[i], folder, path);
		if (rc == 0 && wk->ops->stop(wk->ctx))
			rc = -EINTR;
		free(path);
		free(names[i]);
	}
	wk->depth--;
	free(names);
	return rc;
}

int content_walk_host(int fd, const char *host, void *top, struct content_filter *filter,
		      const struct content_walk_ops *ops, void *ctx, struct diag *d)
{
	struct walker wk = { .ops = ops,
			     .ctx = ctx,
			     .filter = filter,
			     .d = d,
			     .top_len = strlen(host) };
	int rc = walk_folder(&wk, fd, top, host);

	close(fd);
	return rc;
}
