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

/* Makes @fd the current folder *@cur (closing the one before). */
static void enter(int *cur, int fd)
{
	close(*cur);
	*cur = fd;
}

/*
 * Follows the names of @rest (modified) from the folder *@cur. On success *@cur is the folder
 * that holds what they lead to, and *@obj what they lead to (a descriptor of its own, or -1
 * when that is *@cur itself: a folder).
 */
static int follow(char *rest, size_t size, int *cur, int *obj)
{
	char target[PATH_MAX + 1];
	unsigned hops = 0;
	struct stat st;

	*obj = -1;
	while (*rest) {
		size_t len = strcspn(rest, "/");
		int fd;
		if (!len) { /* an absolute target starts again at the root */
			if ((fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
				return -errno;
			enter(cur, fd);
			*obj = -1;
			len = strspn(rest, "/");
			memmove(rest, rest + len, strlen(rest + len) + 1);
			continue;
		}
		char name[NAME_MAX + 1];
		if (len > NAME_MAX)
			return -ENAMETOOLONG;
		memcpy(name, rest, len);
		name[len] = '\0';
		len += strspn(rest + len, "/");
		memmove(rest, rest + len, strlen(rest + len) + 1);
		if (!strcmp(name, "."))
			continue;
		fd = openat(*cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0) {
			int saved = errno;
			if (fd >= 0)
				close(fd);
			return -saved;
		}
		if (S_ISDIR(st.st_mode)) { /* ".." too: the kernel's own parent, mounts included */
			enter(cur, fd);
			*obj = -1;
			continue;
		}
		int rc = S_ISLNK(st.st_mode) ? (++hops > LINK_HOPS ? -ELOOP
								   : read_link(fd, target, sizeof(target)))
					     : *rest ? -ENOTDIR : 0;
		if (rc == 0 && S_ISLNK(st.st_mode))
			rc = splice_target(rest, size, target);
		if (rc < 0 || S_ISLNK(st.st_mode)) {
			close(fd);
			if (rc < 0)
				return rc;
			continue;
		}
		*obj = fd; /* the last name: a file, a device, a fifo... */
	}
	return 0;
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
