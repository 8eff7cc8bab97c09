/* SPDX-License-Identifier: MIT */
/*
 * cmd_ls: `sdimg ls IMAGE[:PART][/PATH] [-l] [-R]` and `sdimg cat IMAGE:PART/PATH`.
 * The volume is reader/'s (reader_volume_open()): FAT, exFAT and ext2/3/4 alike.
 * PART is a partition number (":1"), a GPT partition name, or a volume label (FAT, exFAT or ext,
 * any case: MBR has no names, and a layout's partition `boot` is labelled BOOT); without a
 * table the whole image is the volume (IMAGE:/PATH, or IMAGE alone for its root).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/utf8.h"
#include "mkimage/reader/reader.h"
#include "mkimage/cli.h"

struct address {
	char *image;
	char *part; /* NULL or "" when not given */
	char *path;
};

static void address_release(struct address *a)
{
	free(a->image);
	free(a->part);
	free(a->path);
}

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* IMAGE[:PART][/PATH]: the image is the longest prefix before a ':' that exists. */
static int parse_address(const char *arg, struct address *a)
{
	memset(a, 0, sizeof(*a));
	if (exists(arg)) {
		a->image = strdup(arg);
		a->path = strdup("/");
		return a->image && a->path ? 0 : -ENOMEM;
	}
	for (const char *c = strrchr(arg, ':'); c;
	     c = c > arg ? memrchr(arg, ':', (size_t)(c - arg)) : NULL) {
		char *image = strndup(arg, (size_t)(c - arg));
		if (!image)
			return -ENOMEM;
		if (!exists(image)) {
			free(image);
			continue;
		}
		size_t plen = strcspn(c + 1, "/");
		a->image = image;
		a->part = strndup(c + 1, plen);
		a->path = strdup(c[1 + plen] ? c + 1 + plen : "/");
		return a->part && a->path ? 0 : -ENOMEM;
	}
	return -ENOENT;
}

static int to_out(void *out, const void *buf, size_t len)
{
	return fwrite(buf, 1, len, out) == len ? 0 : -EIO;
}

int cli_ls_run(const char *arg, bool cat, bool longer, bool recursive, FILE *out, FILE *err)
{
	const struct reader_listing how = { .out = out, .longer = longer, .recursive = recursive };
	struct address a;
	struct disk k = { 0 };
	struct reader_volume *v = NULL;
	struct diag d;
	char shown[512];
	int fd = -1, rc = parse_address(arg, &a);

	diag_init(&d);
	if (rc == -ENOENT)
		diag_error(&d, "%s: no such image (write IMAGE[:PART][/PATH])",
			   utf8_shown(arg, shown, sizeof(shown)));
	else if (rc < 0)
		diag_error(&d, "%s: out of memory", arg);
	else if ((fd = reader_open(a.image, &d)) < 0)
		rc = fd;
	else if (reader_read_disk_uncounted(&k, a.image, fd, &d) < 0)
		rc = -EINVAL;
	else if ((rc = reader_volume_open(&k, fd, a.image, a.part, &d, &v)) == 0)
		rc = cat ? reader_volume_read(v, a.path, to_out, out, &d)
			 : reader_volume_list(v, a.path, &how, &d);
	errno = 0;
	if ((rc == -EIO && cat && ferror(out)) || (fflush(out) != 0 && !d.errors))
		diag_error(&d, "cannot write the standard output: %s",
			   strerror(errno ? errno : EIO));
	diag_print(&d, err, SDIMG_PROG);
	int status = d.errors || rc ? EXIT_FAILED : EXIT_OK;
	reader_volume_close(v);
	reader_release_disk(&k);
	if (fd >= 0)
		close(fd);
	address_release(&a);
	diag_release(&d);
	return status;
}

static void ls_usage(FILE *out)
{
	fprintf(out,
		"Usage: %s ls IMAGE[:PART][/PATH] [-l] [-R]\n\n"
		"Lists a folder of a FAT, exFAT or ext2/3/4 partition. PART is a partition "
		"number,\n"
		"a GPT name or a volume label; without a table the whole image is the volume\n"
		"(IMAGE:/PATH, or IMAGE alone for its root).\n\n"
		"  -l, --long       FAT: attributes (d r h s a), size, time (UTC), 8.3 name,\n"
		"                   name; exFAT: attributes, size, time (UTC), name;\n"
		"                   ext: mode, owner, group, size or device, time\n"
		"                   (UTC), name, link target\n"
		"  -R, --recursive  every folder below as well, down to 64 levels\n",
		SDIMG_PROG);
}

/* What the command line of `ls` asks for besides the address. */
struct ls_request {
	bool longer, recursive;
};

static int take_ls_option(void *ctx, int key, char *arg)
{
	struct ls_request *r = ctx;

	(void)arg;
	if (key == 'l')
		r->longer = true;
	else
		r->recursive = true;
	return EXIT_OK;
}

int cmd_ls(int argc, char **argv)
{
	static const struct option options[] = {
		{ "long", no_argument, NULL, 'l' },
		{ "recursive", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct cli_command ls = {
		.name = "ls",
		.options = options,
		.usage = ls_usage,
		.take = take_ls_option,
		.n_args = 1,
		.other_args = "one IMAGE[:PART][/PATH], please",
	};
	struct ls_request r = { 0 };
	int first, status = cli_parse(&ls, argc, argv, &r, &first);

	if (status != CLI_GO)
		return status;
	return cli_ls_run(argv[first], false, r.longer, r.recursive, stdout, stderr);
}

static void cat_usage(FILE *out)
{
	fprintf(out,
		"Usage: %s cat IMAGE:PART/PATH\n"
		"       %s cat IMAGE --uboot-env OFFSET[,SIZE[,OFFSET2]]\n\nWrites one file of a "
		"FAT, exFAT or ext2/3/4 partition to the standard output\n(IMAGE:/PATH when the "
		"image "
		"has no table), or the variables of a U-Boot\nenvironment as name=value lines, "
		"those of the copy U-Boot reads.\n\n"
		"  --uboot-env OFFSET[,SIZE[,OFFSET2]]\n"
		"                 the environment whose first copy is at OFFSET (SIZE a copy,\n"
		"                 found by its CRC when not given; OFFSET2 the second copy;\n"
		"                 each 4M or 0x400000)\n"
		"  -h, --help     show this help\n",
		SDIMG_PROG, SDIMG_PROG);
}

enum { OPT_ENV = 256 };

struct cat_request {
	bool env_set;
	struct reader_env_place env;
};

static int take_cat_option(void *ctx, int key, char *arg)
{
	struct cat_request *r = ctx;
	char why[160];

	(void)key; /* --uboot-env is its only option */
	if (reader_env_place_parse(arg, &r->env, why, sizeof(why)) < 0)
		return cli_usage_error("cat", "--uboot-env: %s", why);
	r->env_set = true;
	return EXIT_OK;
}

/* `cat IMAGE --uboot-env PLACE`: the environment's variables on stdout. */
static int cat_env(const char *path, const struct reader_env_place *place)
{
	struct reader_env e = { .active = -1 };
	struct diag d;
	int fd, rc;

	diag_init(&d);
	fd = reader_open(path, &d);
	rc = fd < 0 ? fd : reader_env_read(fd, path, place, &e, &d);
	if (rc == 0)
		rc = reader_env_print_vars(&e, path, stdout, &d);
	if (rc == 0 && fflush(stdout) != 0)
		rc = diag_errno(&d, -errno, "cannot write the standard output: %s",
				strerror(errno));
	diag_print(&d, stderr, SDIMG_PROG);
	diag_release(&d);
	reader_env_release(&e);
	if (fd >= 0)
		close(fd);
	return rc == 0 ? EXIT_OK : EXIT_FAILED;
}

int cmd_cat(int argc, char **argv)
{
	static const struct option options[] = {
		{ "uboot-env", required_argument, NULL, OPT_ENV },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct cli_command cat = {
		.name = "cat",
		.options = options,
		.usage = cat_usage,
		.take = take_cat_option,
		.n_args = 1,
		.other_args = "one IMAGE:PART/PATH, please",
	};
	struct cat_request r = { 0 };
	int first, status = cli_parse(&cat, argc, argv, &r, &first);

	if (status != CLI_GO)
		return status;
	if (r.env_set)
		return cat_env(argv[first], &r.env);
	return cli_ls_run(argv[first], true, false, false, stdout, stderr);
}
