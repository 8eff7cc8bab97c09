/*
 * cmd_ls: `sdimg ls IMAGE[:PART][/PATH] [-l] [-R]` and `sdimg cat IMAGE:PART/PATH`.
 * PART is a partition number (":1"), a GPT partition name, or a volume label (FAT or ext,
 * any case: MBR has no names, and a layout's partition `boot` is labelled BOOT); without a
 * table the whole image is the volume (IMAGE:/PATH, or IMAGE alone for its root).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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
	for (const char *c = strrchr(arg, ':'); c; c = c > arg ? memrchr(arg, ':', (size_t)(c - arg)) : NULL) {
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

static const struct disk_part *find_part(const struct disk *k, const char *part, struct diag *d,
					 const char *image)
{
	char *end = NULL;
	unsigned long no = part && *part ? strtoul(part, &end, 10) : 0;

	if (!strcmp(k->table, "none") && (!part || !*part))
		return k->n_parts ? &k->parts[0] : NULL;
	if (!part || !*part) {
		diag_error(d, "%s: which partition? name it: %s:1/PATH (a number, a GPT name or a "
			      "volume label)", image, image);
		return NULL;
	}
	for (size_t i = 0; i < k->n_parts; i++)
		if ((end && !*end && k->parts[i].number == no) || !strcmp(k->parts[i].name, part))
			return &k->parts[i];
	/* then the volume labels, which FAT and ext compare without case */
	const struct disk_part *found = NULL;
	for (size_t i = 0; i < k->n_parts; i++) {
		const struct disk_part *p = &k->parts[i];
		const char *label = p->content == CONTENT_FAT ? p->fat.info.label
				  : p->content == CONTENT_EXT ? p->ext.label : "";
		if (!*label || strcasecmp(label, part) != 0)
			continue;
		if (found) {
			diag_error(d, "%s: partitions %u and %u are both labelled '%s': name one by "
				      "its number", image, found->number, p->number, part);
			return NULL;
		}
		found = p;
	}
	if (!found)
		diag_error(d, "%s: no partition '%s' (a number, a GPT name or a volume label)", image,
			   part);
	return found;
}

/* Opens the FAT volume the address names. */
static int open_volume(const struct address *a, int fd, struct disk *k, struct fat_vol **ret,
		       struct diag *d)
{
	if (reader_read_disk(k, a->image, fd, d) < 0)
		return -EINVAL;
	const struct disk_part *p = find_part(k, a->part, d, a->image);
	if (!p)
		return -EINVAL;
	if (p->content != CONTENT_FAT)
		return diag_error(d, "%s: partition %u holds no FAT file system", a->image, p->number);
	return fat_vol_open(fd, p->start, p->size, ret, d);
}

struct lister {
	struct fat_vol *v;
	FILE *out;
	bool longer, recursive;
	struct diag *d;
	char **dirs; /* subfolders met, for -R */
	size_t n_dirs;
};

static void print_entry(const struct lister *ls, const struct fat_dirent *e)
{
	if (!ls->longer) {
		fprintf(ls->out, "%s%s\n", e->name, e->attrs & FAT_ATTR_DIR ? "/" : "");
		return;
	}
	char when[32];
	time_t t = (time_t)e->mtime;
	struct tm tm;
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", gmtime_r(&t, &tm));
	fprintf(ls->out, "%c%c%c%c%c %10u %s  %-12s %s%s\n", e->attrs & FAT_ATTR_DIR ? 'd' : '-',
	       e->attrs & FAT_ATTR_READONLY ? 'r' : '-', e->attrs & FAT_ATTR_HIDDEN ? 'h' : '-',
	       e->attrs & FAT_ATTR_SYSTEM ? 's' : '-', e->attrs & FAT_ATTR_ARCHIVE ? 'a' : '-',
	       e->size, when, e->short_name, e->name, e->attrs & FAT_ATTR_DIR ? "/" : "");
}

static int on_entry(void *ctx, const struct fat_dirent *e)
{
	struct lister *ls = ctx;

	print_entry(ls, e);
	if (ls->recursive && (e->attrs & FAT_ATTR_DIR)) {
		char **v = realloc(ls->dirs, (ls->n_dirs + 1) * sizeof(*v));
		if (!v || !(v[ls->n_dirs] = strdup(e->name))) {
			ls->dirs = v ? v : ls->dirs;
			return -ENOMEM;
		}
		ls->dirs = v;
		ls->n_dirs++;
	}
	return 0;
}

static int list_dir(struct fat_vol *v, const char *path, bool longer, bool recursive,
		    unsigned depth, FILE *out, struct diag *d)
{
	struct lister ls = { .v = v, .out = out, .longer = longer, .recursive = recursive,
			     .d = d };
	int rc = depth > 64 ? diag_error(d, "%s: folders nested too deeply", path)
			    : fat_vol_list(v, path, on_entry, &ls, d);

	for (size_t i = 0; rc == 0 && i < ls.n_dirs; i++) {
		char *sub = NULL;
		if (asprintf(&sub, "%s%s%s", path, strcmp(path, "/") ? "/" : "", ls.dirs[i]) < 0)
			rc = -ENOMEM;
		else {
			fprintf(out, "\n%s:\n", sub);
			rc = list_dir(v, sub, longer, recursive, depth + 1, out, d);
		}
		free(sub);
	}
	for (size_t i = 0; i < ls.n_dirs; i++)
		free(ls.dirs[i]);
	free(ls.dirs);
	return rc;
}

static int to_out(void *out, const void *buf, size_t len)
{
	return fwrite(buf, 1, len, out) == len ? 0 : -EIO;
}

int cli_ls_run(const char *arg, bool cat, bool longer, bool recursive, FILE *out, FILE *err)
{
	struct address a;
	struct disk k = { 0 };
	struct fat_vol *v = NULL;
	struct diag d;
	int fd = -1, rc = parse_address(arg, &a);

	diag_init(&d);
	if (rc == -ENOENT)
		diag_error(&d, "%s: no such image (write IMAGE[:PART][/PATH])", arg);
	else if (rc < 0)
		diag_error(&d, "%s: out of memory", arg);
	else if ((fd = reader_open(a.image, &d)) < 0)
		rc = fd;
	else if ((rc = open_volume(&a, fd, &k, &v, &d)) == 0) {
		struct diag inner; /* the reader names paths in the volume: say which volume */
		diag_init(&inner);
		rc = cat ? fat_vol_read(v, a.path, to_out, out, &inner)
			 : list_dir(v, a.path, longer, recursive, 0, out, &inner);
		for (size_t i = 0; i < inner.n; i++)
			diag_error(&d, "%s:%s%s", a.image, a.part ? a.part : "", inner.msgs[i].text);
		diag_release(&inner);
	}
	if (rc == -EIO && cat && ferror(out))
		diag_error(&d, "writing to the standard output failed");
	if (fflush(out) != 0 && !d.errors)
		diag_error(&d, "writing to the standard output failed");
	diag_print(&d, err, SDIMG_PROG);
	int status = d.errors || rc ? EXIT_FAILED : EXIT_OK;
	fat_vol_close(v);
	reader_release_disk(&k);
	if (fd >= 0)
		close(fd);
	address_release(&a);
	diag_release(&d);
	return status;
}

int cmd_ls(int argc, char **argv)
{
	static const struct option options[] = {
		{ "long", no_argument, NULL, 'l' }, { "recursive", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	bool longer = false, recursive = false;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "lRh", options, NULL)) != -1) {
		if (c == 'h') {
			printf("Usage: %s ls IMAGE[:PART][/PATH] [-l] [-R]\n\n"
			       "Lists a folder of a FAT partition. PART is a partition number or a GPT\n"
			       "name; without a table the whole image is the volume.\n\n"
			       "  -l, --long       attributes (d r h s a), size, time (UTC), 8.3 name, name\n"
			       "  -R, --recursive  every folder below as well\n", SDIMG_PROG);
			return EXIT_OK;
		} else if (c == 'l') {
			longer = true;
		} else if (c == 'R') {
			recursive = true;
		} else {
			return cli_usage_error("ls", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error("ls", "one IMAGE[:PART][/PATH], please");
	return cli_ls_run(argv[optind], false, longer, recursive, stdout, stderr);
}

int cmd_cat(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("Usage: %s cat IMAGE:PART/PATH\n\nWrites one file of a FAT partition to the "
		       "standard output.\n", SDIMG_PROG);
		return EXIT_OK;
	}
	if (argc != 2 || argv[1][0] == '-')
		return cli_usage_error("cat", "one IMAGE:PART/PATH, please");
	return cli_ls_run(argv[1], true, false, false, stdout, stderr);
}
