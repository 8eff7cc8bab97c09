/* SPDX-License-Identifier: MIT */
/*
 * usage: whether writing the target would pull a disk from under the running system.
 *
 * What counts as the target's own: a whole disk with all its partitions, or a partition
 * with its whole disk (writing sdb1 leaves a mounted sdb2 intact, but not a mounted sdb).
 * The disk holding / is refused whichever of its parts is the target.
 *
 * /proc/self/mountinfo shows this process's mount namespace only; the writer's exclusive
 * open (O_EXCL on a block device fails while any namespace has it mounted) is the check of
 * last resort, this one gives the reason before anything is opened for writing.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "mkimage/flash/flash_priv.h"

/* Whether member @i is the target's own (see above). */
static bool own(const struct flash_disk *k, const struct flash_target *t, size_t i)
{
	return !t->partition || i == 0 || strcmp(k->v[i].name, t->name) == 0;
}

/* The disk's member with these numbers, or -1. */
static long member_by_devno(const struct flash_disk *k, unsigned major, unsigned minor)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->v[i].major == major && k->v[i].minor == minor)
			return (long)i;
	return -1;
}

/* The disk's member whose /dev path is @path ("/dev/sdb1"), or -1. */
static long member_by_path(const struct flash_disk *k, const char *path)
{
	if (strncmp(path, "/dev/", 5) != 0)
		return -1;
	for (size_t i = 0; i < k->n; i++)
		if (strcmp(path + 5, k->v[i].name) == 0)
			return (long)i;
	return -1;
}

/* procfs writes space, tab, newline and backslash in paths as \ooo: undone in place. */
static void unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

struct mount {
	unsigned major, minor;
	char *point, *source;
};

/* "ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS" */
static bool parse_mount(char *line, struct mount *m)
{
	char *save = NULL, *f[6], *tok;

	for (int i = 0; i < 6; i++)
		if (!(f[i] = strtok_r(i ? NULL : line, " \n", &save)))
			return false;
	while ((tok = strtok_r(NULL, " \n", &save)) && strcmp(tok, "-") != 0)
		;
	if (!tok || !strtok_r(NULL, " \n", &save) || !(m->source = strtok_r(NULL, " \n", &save)))
		return false;
	if (sscanf(f[2], "%u:%u", &m->major, &m->minor) != 2)
		return false;
	m->point = f[4];
	unescape(m->point);
	unescape(m->source);
	return true;
}

/* The member a mount is of: by its numbers, or, for file systems such as btrfs that
 * report an anonymous device (major 0), by the name of the device it was mounted from. */
static long mounted_member(const struct flash_disk *k, const struct mount *m)
{
	return m->major == 0 ? member_by_path(k, m->source)
			     : member_by_devno(k, m->major, m->minor);
}

/*
 * Scans mountinfo: the disk's member mounted at / wins over the target's own mounted
 * elsewhere, so that the reason names the graver one.
 */
static int check_mounts(const struct flash_roots *r, const struct flash_disk *k,
			const struct flash_target *t, char *why, size_t n, struct diag *d)
{
	char path[PATH_MAX];
	char *line = NULL;
	size_t cap = 0;
	int found = 0, rc = flash_path(path, sizeof(path), r->proc, "self/mountinfo");
	FILE *f = rc == 0 ? fopen(path, "re") : NULL;

	if (!f) {
		rc = rc < 0 ? rc : -errno;
		return diag_errno(d, rc,
				  "%s: %s (without it, whether %s is mounted cannot be told)", path,
				  strerror(-rc), t->name);
	}
	for (unsigned no = 1; getline(&line, &cap, f) >= 0 && found < 2; no++) {
		struct mount m;
		if (!parse_mount(line, &m)) {
			rc = diag_error(d, "%s:%u: not a mountinfo line", path, no);
			break;
		}
		long i = mounted_member(k, &m);
		if (i >= 0 && strcmp(m.point, "/") == 0) {
			snprintf(why, n, "%s holds the running system: / is mounted from %s",
				 k->v[0].name, k->v[i].name);
			found = 2;
		} else if (i >= 0 && !found && own(k, t, (size_t)i)) {
			snprintf(why, n, "%s is mounted at %s (unmount it first)", k->v[i].name,
				 m.point);
			found = 1;
		}
	}
	if (rc == 0 && found < 2 && ferror(f)) /* a line not read may be the card's mount */
		rc = diag_error(d, "%s: read error (whether %s is mounted cannot be told)", path,
				t->name);
	free(line);
	fclose(f);
	return rc < 0 ? rc : found > 0;
}

/* /proc/swaps: "FILENAME TYPE SIZE USED PRIORITY" after a header line; absent without
 * swap support in the kernel. */
static int check_swaps(const struct flash_roots *r, const struct flash_disk *k,
		       const struct flash_target *t, char *why, size_t n, struct diag *d)
{
	char path[PATH_MAX];
	char *line = NULL, *save;
	size_t cap = 0;
	int found = 0, rc = flash_path(path, sizeof(path), r->proc, "swaps");
	FILE *f = rc == 0 ? fopen(path, "re") : NULL;

	if (!f) {
		rc = rc < 0 ? rc : -errno;
		if (rc == -ENOENT)
			return 0;
		return diag_errno(d, rc, "%s: %s (without it, whether %s is swap cannot be told)",
				  path, strerror(-rc), t->name);
	}
	for (bool header = true; !found && getline(&line, &cap, f) >= 0; header = false) {
		char *file = strtok_r(line, " \t\n", &save);
		if (header || !file)
			continue;
		unescape(file);
		long i = member_by_path(k, file);
		if (i >= 0 && own(k, t, (size_t)i)) {
			snprintf(why, n, "%s is in use as swap (swapoff it first)", k->v[i].name);
			found = 1;
		}
	}
	if (!found && ferror(f))
		rc = diag_error(d, "%s: read error (whether %s is swap cannot be told)", path,
				t->name);
	free(line);
	fclose(f);
	return rc < 0 ? rc : found;
}

/* The first entry of folder @dir other than . and .., into @name; 1 found, 0 empty. */
static int first_entry(const char *dir, char *name, size_t n)
{
	DIR *h = opendir(dir);
	int found = 0;

	if (!h)
		return -errno;
	for (struct dirent *e; !found && (e = readdir(h));) {
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
			snprintf(name, n, "%s", e->d_name);
			found = 1;
		}
	}
	closedir(h);
	return found;
}

/* SYS/.../NAME/holders/ lists what is built on the device: device-mapper (LVM, LUKS), md,
 * bcache. Writing under it would corrupt a device that stays in use. */
static int check_holders(const struct flash_disk *k, const struct flash_target *t, char *why,
			 size_t n, struct diag *d)
{
	for (size_t i = 0; i < k->n; i++) {
		char dir[PATH_MAX], holder[NAME_MAX + 1];
		if (!own(k, t, i))
			continue;
		/* a partition's folder is in its disk's */
		int len = snprintf(dir, sizeof(dir), "%s%s%s/holders", k->disk_dir, i ? "/" : "",
				   i ? k->v[i].name : "");
		int rc = len < 0 || (size_t)len >= sizeof(dir)
				 ? -ENAMETOOLONG
				 : first_entry(dir, holder, sizeof(holder));
		if (rc < 0)
			return diag_errno(d, rc,
					  "%s: %s (without it, whether %s is in use cannot be "
					  "told)",
					  dir, strerror(-rc), k->v[i].name);
		if (rc > 0) {
			snprintf(why, n,
				 "%s is in use by %s (device-mapper, md or bcache built on it)",
				 k->v[i].name, holder);
			return 1;
		}
	}
	return 0;
}

/* A mounted btrfs lists each of its devices in SYS/fs/btrfs/UUID/devices/: a second
 * device of a multi-device file system appears nowhere in mountinfo. */
static int check_btrfs(const struct flash_disk *k, const struct flash_target *t, char *why,
		       size_t n)
{
	char fs[PATH_MAX], devices[PATH_MAX];
	DIR *h = flash_path(fs, sizeof(fs), k->sys, "fs/btrfs") == 0 ? opendir(fs) : NULL;
	int found = 0;

	if (!h)
		return 0; /* no btrfs module loaded, so no btrfs mounted */
	for (struct dirent *e; !found && (e = readdir(h));) {
		if (e->d_name[0] == '.' || snprintf(devices, sizeof(devices), "%s/%s/devices", fs,
						    e->d_name) >= (int)sizeof(devices))
			continue;
		for (size_t i = 0; !found && i < k->n; i++) {
			if (own(k, t, i) && flash_exists(devices, k->v[i].name)) {
				snprintf(why, n, "%s belongs to the mounted btrfs file system %s",
					 k->v[i].name, e->d_name);
				found = 1;
			}
		}
	}
	closedir(h);
	return found;
}

int flash_in_use(const struct flash_roots *r, const struct flash_disk *k,
		 const struct flash_target *t, dev_t root_dev, char *why, size_t n, struct diag *d)
{
	/* an anonymous root device (major 0: btrfs, overlay) is found by its mount instead */
	long i = major(root_dev) ? member_by_devno(k, major(root_dev), minor(root_dev)) : -1;
	int rc;

	if (i == 0) {
		snprintf(why, n, "%s holds the running system: / is on it", k->v[0].name);
		return 1;
	}
	if (i > 0) {
		snprintf(why, n, "%s holds the running system: / is on %s", k->v[0].name,
			 k->v[i].name);
		return 1;
	}
	if ((rc = check_mounts(r, k, t, why, n, d)) != 0 ||
	    (rc = check_swaps(r, k, t, why, n, d)) != 0 ||
	    (rc = check_holders(k, t, why, n, d)) != 0)
		return rc;
	return check_btrfs(k, t, why, n);
}
