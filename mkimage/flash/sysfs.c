/* SPDX-License-Identifier: MIT */
/* sysfs: where the kernel places a block device: its folder, size, read-only flag, and its
 * whole disk with the partitions. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/array.h"
#include "mkimage/flash/flash_priv.h"

int flash_path(char *buf, size_t n, const char *a, const char *b)
{
	int len = snprintf(buf, n, "%s/%s", a, b);

	return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : 0;
}

static void trim(char *s)
{
	size_t len = strlen(s), start = 0;

	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	while (start < len && isspace((unsigned char)s[start]))
		start++;
	memmove(s, s + start, len - start);
	s[len - start] = '\0';
}

int flash_attr(const char *dir, const char *attr, char *buf, size_t n)
{
	char path[PATH_MAX];
	int rc = flash_path(path, sizeof(path), dir, attr);

	buf[0] = '\0';
	if (rc < 0)
		return rc;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t got = read(fd, buf, n - 1);
	rc = got < 0 ? -errno : 0;
	close(fd);
	if (rc < 0)
		return rc;
	buf[got] = '\0';
	trim(buf);
	return 0;
}

bool flash_exists(const char *dir, const char *name)
{
	char path[PATH_MAX];

	return flash_path(path, sizeof(path), dir, name) == 0 && access(path, F_OK) == 0;
}

/* Reads a "MAJOR:MINOR" attribute such as `dev`. */
static int attr_devno(const char *dir, const char *attr, unsigned *major, unsigned *minor)
{
	char buf[32];
	int rc = flash_attr(dir, attr, buf, sizeof(buf));

	if (rc < 0)
		return rc;
	return sscanf(buf, "%u:%u", major, minor) == 2 ? 0 : -EINVAL;
}

static int attr_u64(const char *dir, const char *attr, uint64_t *v)
{
	char buf[32], *end;
	int rc = flash_attr(dir, attr, buf, sizeof(buf));

	if (rc < 0)
		return rc;
	errno = 0;
	unsigned long long x = strtoull(buf, &end, 10);
	if (errno || end == buf || *end || buf[0] == '-')
		return -EINVAL;
	*v = x;
	return 0;
}

static int add_member(struct flash_disk *k, const char *name, unsigned major, unsigned minor)
{
	if (strlen(name) >= sizeof(k->v[0].name))
		return -ENAMETOOLONG;
	if (array_grow((void **)&k->v, &k->cap, k->n + 1, sizeof(*k->v)) < 0)
		return -ENOMEM;
	struct flash_member *m = &k->v[k->n++];
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->major = major;
	m->minor = minor;
	return 0;
}

/* The whole disk (v[0]) and every partition: the subfolders holding a `partition` file. */
static int load_members(struct flash_disk *k)
{
	const char *disk = strrchr(k->disk_dir, '/') + 1;
	unsigned major, minor;
	int rc = attr_devno(k->disk_dir, "dev", &major, &minor);

	if (rc < 0 || (rc = add_member(k, disk, major, minor)) < 0)
		return rc;
	DIR *dir = opendir(k->disk_dir);
	if (!dir)
		return -errno;
	for (struct dirent *e; rc == 0 && (e = readdir(dir));) {
		char sub[PATH_MAX];
		if (e->d_name[0] == '.' ||
		    flash_path(sub, sizeof(sub), k->disk_dir, e->d_name) < 0 ||
		    !flash_exists(sub, "partition"))
			continue;
		rc = attr_devno(sub, "dev", &major, &minor);
		if (rc == 0)
			rc = add_member(k, e->d_name, major, minor);
	}
	closedir(dir);
	return rc;
}

/* SYS/dev/block/MAJOR:MINOR leads to the device's folder under SYS/devices. */
static int resolve(const struct flash_roots *r, unsigned major, unsigned minor,
		   struct flash_disk *k, struct diag *d)
{
	char link[PATH_MAX], devices[PATH_MAX];

	if (!realpath(r->sys, k->sys))
		return diag_errno(d, -errno, "%s: %s", r->sys, strerror(errno));
	int len = snprintf(link, sizeof(link), "%s/dev/block/%u:%u", k->sys, major, minor);
	if (len < 0 || (size_t)len >= sizeof(link))
		return diag_error(d, "%s: the path is too long", k->sys);
	if (!realpath(link, k->dir)) {
		if (errno == ENOENT)
			return diag_errno(d, -ENODEV, "%u:%u: no such block device (nothing at %s)",
					  major, minor, link);
		return diag_errno(d, -errno, "%s: %s", link, strerror(errno));
	}
	/* Walking up the tree must stay inside sysfs: the link must lead below SYS/devices. */
	len = snprintf(devices, sizeof(devices), "%s/devices/", k->sys);
	if (len < 0 || strncmp(k->dir, devices, (size_t)len) != 0)
		return diag_error(d, "%s leads to %s, outside %s", link, k->dir, devices);
	return 0;
}

int flash_locate(const struct flash_roots *r, unsigned major, unsigned minor, struct flash_disk *k,
		 struct flash_target *t, struct diag *d)
{
	unsigned got_major, got_minor;
	uint64_t sectors;
	char ro[8];
	int rc = resolve(r, major, minor, k, d);

	if (rc < 0)
		return rc;
	const char *name = strrchr(k->dir, '/') + 1;
	if (strlen(name) >= sizeof(t->name))
		return diag_error(d, "%s: the name is too long for a block device", k->dir);
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->major = major;
	t->minor = minor;
	if ((rc = attr_devno(k->dir, "dev", &got_major, &got_minor)) < 0 ||
	    (rc = attr_u64(k->dir, "size", &sectors)) < 0 ||
	    (rc = flash_attr(k->dir, "ro", ro, sizeof(ro))) < 0)
		return diag_errno(d, rc, "%s: cannot read its dev, size and ro attributes: %s",
				  k->dir, strerror(-rc));
	if (got_major != major || got_minor != minor)
		return diag_error(d, "%s: sysfs says it is %u:%u, not %u:%u", k->dir, got_major,
				  got_minor, major, minor);
	/* sysfs counts 512-byte units whatever the logical sector size */
	if (sectors > UINT64_MAX / 512)
		return diag_error(d, "%s: size %llu sectors is out of range", k->dir,
				  (unsigned long long)sectors);
	t->size = sectors * 512;
	t->read_only = strcmp(ro, "0") != 0;
	t->partition = flash_exists(k->dir, "partition");

	/* a partition's folder sits in its whole disk's folder */
	snprintf(k->disk_dir, sizeof(k->disk_dir), "%s", k->dir);
	if (t->partition)
		*strrchr(k->disk_dir, '/') = '\0';
	if ((rc = load_members(k)) < 0)
		return diag_errno(d, rc, "%s: cannot list the disk and its partitions: %s",
				  k->disk_dir, strerror(-rc));
	return 0;
}

void flash_disk_release(struct flash_disk *k)
{
	free(k->v);
	k->v = NULL;
	k->n = k->cap = 0;
}
