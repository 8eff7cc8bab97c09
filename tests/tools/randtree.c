/* SPDX-License-Identifier: MIT */
/*
 * randtree DIR SEED ENTRIES: creates DIR and a random tree of about ENTRIES entries in it, the
 * same tree for the same SEED: folders of 0 to 5,000 names (one big one per tree at most),
 * files of every size class (empty, small, a few blocks, sparse with data far out), symbolic
 * links with targets of 1 to 4,095 bytes, hard-link groups across folders, fifos, character
 * and block devices with any number Linux holds, user.* xattrs with binary values, any
 * mode with setuid, setgid and sticky bits, owners and times in nanoseconds. Devices and
 * owners need root; without it they are left out. The input of the ext4 differential fuzzer
 * (tests/e2e/ext4_fuzz.sh), which builds ext4 from the tree and compares.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#define MAX_FILES 65536

struct gen {
	uint64_t s;
	long left;    /* entries still to make */
	int big_done; /* the one big folder is made */
	int root;     /* devices and owners can be made */
	char **files; /* regular files made (MAX_FILES at most), for hard links */
	int nfiles;
};

static uint64_t rnd(struct gen *g)
{
	g->s ^= g->s << 13;
	g->s ^= g->s >> 7;
	g->s ^= g->s << 17;
	return g->s;
}

static uint64_t below(struct gen *g, uint64_t n)
{
	return n ? rnd(g) % n : 0;
}

static void die(const char *what, const char *path)
{
	fprintf(stderr, "randtree: %s %s: %s\n", what, path, strerror(errno));
	exit(1);
}

/* name: a unique prefix (the entry's number) and 0..MAX random name bytes */
static void make_name(struct gen *g, char *out, unsigned long id)
{
	static const char set[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
	int n = snprintf(out, 32, "%lx", id);
	int extra = below(g, 8) == 0 ? (int)below(g, 256 - n) : (int)below(g, 12);

	for (int i = 0; i < extra; i++)
		out[n + i] = set[below(g, sizeof(set) - 1)];
	out[n + extra] = '\0';
}

static void set_owner_time(struct gen *g, const char *path)
{
	static const uint32_t ids[] = { 0, 1, 42, 100, 1000, 65534 };
	struct timespec t[2];

	if (g->root) {
		uint32_t uid = below(g, 4) ? ids[below(g, 6)] : (uint32_t)below(g, 0x7fffffff);
		uint32_t gid = below(g, 4) ? ids[below(g, 6)] : (uint32_t)below(g, 0x7fffffff);
		if (lchown(path, uid, gid) < 0)
			die("lchown", path);
	}
	t[0].tv_sec = t[1].tv_sec = (time_t)below(g, 4102444800ULL); /* 1970 .. 2100 */
	t[0].tv_nsec = t[1].tv_nsec = (long)below(g, 1000000000);
	if (utimensat(AT_FDCWD, path, t, AT_SYMLINK_NOFOLLOW) < 0)
		die("utimensat", path);
}

static void add_xattrs(struct gen *g, const char *path)
{
	char name[64], value[256];

	if (below(g, 6))
		return;
	for (int i = 1 + (int)below(g, 3); i > 0; i--) {
		int n = snprintf(name, sizeof(name), "user.x%d", i);
		for (int k = (int)below(g, 20); k > 0 && n < 60; k--)
			name[n++] = (char)('a' + below(g, 26));
		name[n] = '\0';
		size_t len = below(g, sizeof(value));
		for (size_t k = 0; k < len; k++)
			value[k] = (char)rnd(g);
		if (setxattr(path, name, value, len, 0) < 0)
			die("setxattr", path);
	}
}

static void write_file(struct gen *g, const char *path)
{
	char buf[65536];
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	uint64_t kind = below(g, 20), size;

	if (fd < 0)
		die("create", path);
	size = kind < 2    ? 0
	       : kind < 13 ? 1 + below(g, 4096)
	       : kind < 19 ? below(g, 300000)
			   : below(g, 16 << 20);
	for (uint64_t at = 0; at < size;) {
		/* a big file is mostly holes: a piece of data now and then */
		if (size > 1000000 && below(g, 4)) {
			at += below(g, 2 << 20);
			continue;
		}
		size_t n = (size_t)(size - at < sizeof(buf) ? size - at
							    : 1 + below(g, sizeof(buf)));
		n = n > size - at ? (size_t)(size - at) : n;
		for (size_t k = 0; k < n; k++)
			buf[k] = below(g, 3) ? (char)rnd(g) : 0;
		if (pwrite(fd, buf, n, (off_t)at) != (ssize_t)n)
			die("write", path);
		at += n;
	}
	if (ftruncate(fd, (off_t)size) < 0 || fchmod(fd, (mode_t)below(g, 07777 + 1)) < 0 ||
	    close(fd) < 0)
		die("write", path);
	if (g->nfiles < MAX_FILES)
		g->files[g->nfiles++] = strdup(path);
}

static void make_symlink(struct gen *g, const char *path)
{
	char target[4096];
	/* half of them short (fast links in the inode), the rest of any length */
	size_t len = 1 + (below(g, 2) ? below(g, 60) : below(g, 4095));

	for (size_t k = 0; k < len; k++)
		target[k] = below(g, 12) ? (char)('a' + below(g, 26)) : '/';
	target[len] = '\0';
	if (symlink(target, path) < 0)
		die("symlink", path);
}

static void make_special(struct gen *g, const char *path, uint64_t kind)
{
	/* any device number Linux's dev_t holds: 12-bit major, 20-bit minor */
	dev_t dev = makedev((unsigned)below(g, 4096), (unsigned)below(g, 1 << 20));
	mode_t mode = (mode_t)below(g, 07777 + 1);

	if (kind == 0 || !g->root) {
		if (mkfifo(path, mode) < 0)
			die("mkfifo", path);
	} else if (mknod(path, (kind == 1 ? S_IFCHR : S_IFBLK) | mode, dev) < 0) {
		die("mknod", path);
	}
	if (chmod(path, mode) < 0)
		die("chmod", path);
}

static void fill(struct gen *g, const char *dir, int depth);

static void make_entry(struct gen *g, const char *dir, unsigned long id, int depth)
{
	char name[300], path[4096];
	uint64_t kind = below(g, 100);

	make_name(g, name, id);
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path) - 300)
		kind = 50; /* deep enough: a file */
	g->left--;
	if (kind < 12 && depth < 12) {
		if (mkdir(path, 0700) < 0)
			die("mkdir", path);
		fill(g, path, depth + 1);
		add_xattrs(g, path);
		if (chmod(path, (mode_t)(below(g, 07777 + 1) | 0700)) < 0)
			die("chmod", path);
	} else if (kind < 40) {
		make_symlink(g, path);
	} else if (kind < 48 && g->nfiles) {
		const char *to = g->files[below(g, (uint64_t)g->nfiles)];
		if (link(to, path) < 0)
			die("link", path);
		return; /* one inode: its owner and time are its first name's */
	} else if (kind < 54) {
		make_special(g, path, kind % 3);
	} else {
		write_file(g, path);
		add_xattrs(g, path);
	}
	set_owner_time(g, path);
}

static void fill(struct gen *g, const char *dir, int depth)
{
	uint64_t n = below(g, 4) ? below(g, 12) : below(g, 40);

	if (!g->big_done && below(g, 3) == 0) {
		g->big_done = 1;
		n = below(g, 5001);
	}
	for (uint64_t i = 0; i < n && g->left > 0; i++)
		make_entry(g, dir, (unsigned long)g->left, depth);
}

int main(int argc, char **argv)
{
	struct gen g = { 0 };

	if (argc != 4) {
		fprintf(stderr, "usage: randtree DIR SEED ENTRIES\n");
		return 2;
	}
	g.s = strtoull(argv[2], NULL, 10) * 0x9e3779b97f4a7c15ULL | 1;
	g.left = strtol(argv[3], NULL, 10);
	g.root = geteuid() == 0;
	g.files = calloc(MAX_FILES, sizeof(*g.files));
	if (!g.files)
		return 1;
	for (int i = 0; i < 8; i++)
		rnd(&g);
	if (mkdir(argv[1], 0755) < 0)
		die("mkdir", argv[1]);
	/* the top folder takes entries until ENTRIES are made (or at most 100 rounds) */
	for (int round = 0; g.left > 0 && round < 100; round++)
		fill(&g, argv[1], 0);
	return 0;
}
