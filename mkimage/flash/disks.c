/* SPDX-License-Identifier: MIT */
/*
 * disks: the whole disks sysfs lists now (SYS/class/block, partitions left out), each with
 * its numbers, size and medium's sequence number: what a station compares with what it saw before (flash_priv.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "mkimage/flash/flash_priv.h"

static int read_disk(const char *dir, const char *name, struct flash_seen *s)
{
	char buf[32], *end;

	size_t len = strlen(name);

	if (len >= sizeof(s->name))
		return -ENAMETOOLONG;
	memcpy(s->name, name, len + 1);
	int rc = flash_attr(dir, "dev", buf, sizeof(buf));
	if (rc < 0)
		return rc;
	if (sscanf(buf, "%u:%u", &s->major, &s->minor) != 2)
		return -EINVAL;
	if ((rc = flash_attr(dir, "size", buf, sizeof(buf))) < 0)
		return rc;
	errno = 0;
	unsigned long long sectors = strtoull(buf, &end, 10);
	if (errno || end == buf || *end || buf[0] == '-' || sectors > UINT64_MAX / 512)
		return -EINVAL;
	s->size = sectors * 512; /* sysfs counts 512-byte units whatever the sector size */
	/* each medium a disk is given has a new sequence number (kernels since 5.15) */
	s->diskseq = 0;
	if (flash_attr(dir, "diskseq", buf, sizeof(buf)) == 0) {
		errno = 0;
		unsigned long long seq = strtoull(buf, &end, 10);
		if (!errno && end != buf && !*end)
			s->diskseq = seq;
	}
	return 0;
}

int flash_disks_scan(const struct flash_roots *r, struct flash_seen **ret, size_t *ret_n,
		     struct diag *d)
{
	char class_dir[PATH_MAX], dir[PATH_MAX];
	struct flash_seen *v = NULL;
	size_t n = 0, cap = 0;
	int rc = flash_path(class_dir, sizeof(class_dir), r->sys, "class/block");
	DIR *list = rc == 0 ? opendir(class_dir) : NULL;

	if (!list)
		return diag_error(d, "%s/class/block: %s", r->sys, strerror(rc < 0 ? -rc : errno));
	for (struct dirent *e; (e = readdir(list));) {
		if (e->d_name[0] == '.' || flash_path(dir, sizeof(dir), class_dir, e->d_name) < 0 ||
		    flash_exists(dir, "partition"))
			continue;
		if (array_grow((void **)&v, &cap, n + 1, sizeof(*v)) < 0) {
			closedir(list);
			free(v);
			return diag_error(d, "out of memory");
		}
		/* a disk that goes away while it is read is simply not there */
		if (read_disk(dir, e->d_name, &v[n]) == 0)
			n++;
	}
	closedir(list);
	*ret = v;
	*ret_n = n;
	return 0;
}
