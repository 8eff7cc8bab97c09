/* SPDX-License-Identifier: MIT */
/*
 * host_links: where a symbolic link of a host folder leads, for a tree's `links = inside`.
 * The link is followed one name at a time, each name opened (O_PATH, never following) from the
 * descriptor of the folder before it, as path resolution in path_resolution(7) does: chains of
 * links, "..", absolute targets and links to folders all count as the kernel counts them.
 * What the link leads to is inside the tree when the folder that holds it (or it, for a
 * folder) has the tree's top folder among its own folder and the folders above it, found by
 * climbing ".." from that descriptor. No path is looked up twice by name, so a rename or a
 * swapped link elsewhere cannot make the answer about another file than the one returned.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mkimage/contents/contents_priv.h"

#define LINK_HOPS 40 /* as many symbolic links in a row as Linux follows */

/* Whether @st is the folder @top. */
static bool same_file(const struct stat *st, const struct stat *top)
{
	return st->st_dev == top->st_dev && st->st_ino == top->st_ino;
}

/*
 * 1 when the folder @dirfd is @top or lies below it, 0 when climbing from it reaches the root
 * without meeting @top, or a negative errno.
 */
static int folder_below(int dirfd, const struct stat *top)
{
	int fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	int rc = fd < 0 ? -errno : 0;
	struct stat st, up;

	/* a folder path of PATH_MAX bytes has at most PATH_MAX / 2 names */
	for (int level = 0; rc == 0 && level <= PATH_MAX / 2; level++) {
		if (fstat(fd, &st) < 0) {
			rc = -errno;
			break;
		}
		if (same_file(&st, top)) {
			rc = 1;
			break;
		}
		int parent = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (parent < 0 || fstat(parent, &up) < 0) {
			rc = -errno;
			if (parent >= 0)
				close(parent);
			break;
		}
		close(fd);
		fd = parent;
		if (same_file(&up, &st))
			break; /* the root is its own parent */
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

/* The target of the link @fd (opened O_PATH | O_NOFOLLOW) into @buf of @size bytes. */
static int read_link(int fd, char *buf, size_t size)
{
	ssize_t n = readlinkat(fd, "", buf, size);

	if (n < 0)
		return -errno;
	if ((size_t)n >= size)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	return 0;
}

/*
 * Replaces the names left to follow, @rest, with the link target @target followed by them.
 * -ENAMETOOLONG when that takes more than @size bytes.
 */
static int splice_target(char *rest, size_t size, const char *target)
{
	size_t tlen = strlen(target), rlen = strlen(rest);

	if (tlen + 1 + rlen + 1 > size)
		return -ENAMETOOLONG;
	memmove(rest + tlen + 1, rest, rlen + 1);
	memcpy(rest, target, tlen);
	rest[tlen] = '/';
	return 0;
}

/* Makes the folder @fd the current one, *@cur (closing the one before), and what the names
 * followed so far lead to. */
static void enter(int *cur, int *obj, int fd)
{
	close(*cur);
	*cur = fd;
	*obj = -1;
}

/* Takes the first name of @rest, and the slashes after it, off @rest into @name: "" when
 * @rest starts with "/" (the root). */
static int take_name(char *rest, char name[NAME_MAX + 1])
{
	size_t len = strcspn(rest, "/");
	size_t skip = len + strspn(rest + len, "/");

	if (len > NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(name, rest, len);
	name[len] = '\0';
	memmove(rest, rest + skip, strlen(rest + skip) + 1);
	return 0;
}

/*
 * Follows @name (not ".") from the folder *@cur, with @rest the names after it: into a
 * folder, to the last name's file (*@obj), or, for a link, by putting its target before
 * @rest (of @size bytes), counting the links in a row in *@hops.
 */
static int follow_name(const char *name, char *rest, size_t size, int *cur, int *obj,
		       unsigned *hops)
{
	char target[PATH_MAX + 1];
	struct stat st;
	int fd;

	if (!*name || !strcmp(name, "..")) { /* the root, or the kernel's own parent (mounts too) */
		fd = *name ? openat(*cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC)
			   : open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		enter(cur, obj, fd);
		return 0;
	}
	fd = openat(*cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		int saved = errno;
		if (fd >= 0)
			close(fd);
		return -saved;
	}
	if (S_ISDIR(st.st_mode)) {
		enter(cur, obj, fd);
		return 0;
	}
	if (!S_ISLNK(st.st_mode) && !*rest) {
		*obj = fd; /* the last name: a file, a device, a fifo... */
		return 0;
	}
	int rc = !S_ISLNK(st.st_mode)  ? -ENOTDIR
		 : ++*hops > LINK_HOPS ? -ELOOP
				       : read_link(fd, target, sizeof(target));
	close(fd);
	return rc < 0 ? rc : splice_target(rest, size, target);
}

/*
 * Follows the names of @rest (modified) from the folder *@cur. On success *@cur is the folder
 * that holds what they lead to, and *@obj what they lead to (a descriptor of its own, or -1
 * when that is *@cur itself: a folder).
 */
static int follow(char *rest, size_t size, int *cur, int *obj)
{
	char name[NAME_MAX + 1];
	unsigned hops = 0;
	int rc = 0;

	*obj = -1;
	while (rc == 0 && *rest) {
		rc = take_name(rest, name);
		if (rc == 0 && strcmp(name, "."))
			rc = follow_name(name, rest, size, cur, obj, &hops);
	}
	return rc;
}

int content_link_inside(int dirfd, const char *name, const struct stat *top, struct stat *ret)
{
	char rest[2 * PATH_MAX + 2];
	int cur = fcntl(dirfd, F_DUPFD_CLOEXEC, 0), obj = -1;
	int rc = cur < 0 ? -errno : 0;

	if (rc == 0 && strlen(name) >= sizeof(rest))
		rc = -ENAMETOOLONG;
	if (rc == 0) {
		strcpy(rest, name);
		rc = follow(rest, sizeof(rest), &cur, &obj);
	}
	if (rc == 0 && fstat(obj >= 0 ? obj : cur, ret) < 0)
		rc = -errno;
	if (rc == 0)
		rc = folder_below(cur, top);
	if (obj >= 0)
		close(obj);
	if (cur >= 0)
		close(cur);
	return rc;
}
