/*
 * cmd_ls: `sdimg ls IMAGE[:PART][/PATH] [-l] [-R]` and `sdimg cat IMAGE:PART/PATH`.
 * FAT volumes through fat/'s reader, ext2/3/4 through ext4/'s.
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

#include "ext4/ext4.h"
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

/* The messages of fat/ about the volume at @a, each after the volume's name, into @d. */
static void relay_volume_messages(const struct address *a, struct diag *inner, struct diag *d)
{
	for (size_t i = 0; i < inner->n; i++) {
		const char *msg = inner->msgs[i].text;
		char *text = reader_visible_dup(msg);
		/* "card.img:1/a: ...", "card.img:/a: ..." (a bare volume), "card.img:1: ..." */
		diag_error(d, "%s%s%s%s%s", a->image, a->part ? ":" : "", a->part ? a->part : "",
			   *msg != '/' ? ": " : a->part ? "" : ":", text ? text : msg);
		free(text);
	}
	diag_release(inner);
}

/* Opens the FAT volume the address names. */
static int open_volume(const struct address *a, int fd, struct disk *k, struct fat_vol **ret,
		       struct ext4_volume **ret_ext, struct diag *d)
{
	if (reader_read_disk_uncounted(k, a->image, fd, d) < 0)
		return -EINVAL;
	const struct disk_part *p = find_part(k, a->part, d, a->image);
	if (!p)
		return -EINVAL;
	if (p->content != CONTENT_FAT && p->content != CONTENT_EXT)
		return diag_error(d, "%s: partition %u holds no FAT or ext file system", a->image,
				  p->number);
	struct diag inner; /* fat/ speaks of the boot sector: say whose */
	diag_init(&inner);
	int rc = p->content == CONTENT_EXT
			 ? ext4_open_read(fd, p->start, p->size, a->image, &inner, ret_ext)
			 : fat_vol_open(fd, p->start, p->size, ret, &inner);
	relay_volume_messages(a, &inner, d);
	return rc;
}

/* `ls -R` lists folders nested this deep below the one named, as the builder makes them;
 * a deeper folder of a card from elsewhere is listed by its own path. */
#define LS_DEPTH_MAX 64u

/* Where a listing goes, and how long its lines are. */
struct ls_out {
	FILE *out;
	bool longer;
};

static void print_entry(const struct ls_out *o, const struct fat_dirent *e)
{
	FILE *out = o->out;

	if (!o->longer) {
		reader_fputs_visible(e->name, out);
		fprintf(out, "%s\n", e->attrs & FAT_ATTR_DIR ? "/" : "");
		return;
	}
	char when[32];
	time_t t = (time_t)e->mtime;
	struct tm tm;
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", gmtime_r(&t, &tm));
	fprintf(out, "%c%c%c%c%c %10u %s  ", e->attrs & FAT_ATTR_DIR ? 'd' : '-',
		e->attrs & FAT_ATTR_READONLY ? 'r' : '-', e->attrs & FAT_ATTR_HIDDEN ? 'h' : '-',
		e->attrs & FAT_ATTR_SYSTEM ? 's' : '-', e->attrs & FAT_ATTR_ARCHIVE ? 'a' : '-',
		e->size, when);
	reader_fputs_visible(e->short_name, out);
	fprintf(out, "%*s ", (int)(12 - (strlen(e->short_name) < 12 ? strlen(e->short_name) : 12)),
		"");
	reader_fputs_visible(e->name, out);
	fprintf(out, "%s\n", e->attrs & FAT_ATTR_DIR ? "/" : "");
}

static int on_entry(void *ctx, const struct fat_dirent *e)
{
	print_entry(ctx, e);
	return 0;
}

/* -R: the heading of each folder below the one named */
static void print_heading(FILE *out, const char *path)
{
	fprintf(out, "\n");
	reader_fputs_visible(path, out);
	fprintf(out, ":\n");
}

static int on_folder(void *ctx, const char *path)
{
	print_heading(((const struct ls_out *)ctx)->out, path);
	return 0;
}

static int list_dir(struct fat_vol *v, const char *path, struct ls_out *o, bool recursive,
		    struct diag *d)
{
	static const struct fat_walk_fns fns = { .folder = on_folder, .entry = on_entry };
	return recursive ? fat_vol_walk(v, path, LS_DEPTH_MAX, &fns, o, d)
			 : fat_vol_list(v, path, on_entry, o, d);
}

/* ---- ext2/3/4: `ls -l` as `ls -ln` prints it: mode, owner, group, size, time (UTC) */

struct ext_lister {
	FILE *out;
	bool longer;
	char **dirs; /* subfolders met, for -R (NULL: not recursive) */
	size_t n_dirs;
	bool recursive;
};

static void mode_text(uint32_t mode, char out[11])
{
	static const char types[16] = { [1] = 'p', [2] = 'c', [4] = 'd', [6] = 'b', [8] = '-',
					[10] = 'l', [12] = 's' };
	const char *rwx = "rwxrwxrwx";

	out[0] = types[(mode >> 12) & 15] ? types[(mode >> 12) & 15] : '?';
	for (int i = 0; i < 9; i++)
		out[1 + i] = mode & (0400u >> i) ? rwx[i] : '-';
	if (mode & 04000)
		out[3] = mode & 0100 ? 's' : 'S';
	if (mode & 02000)
		out[6] = mode & 0010 ? 's' : 'S';
	if (mode & 01000)
		out[9] = mode & 0001 ? 't' : 'T';
	out[10] = '\0';
}

static int on_ext_entry(void *ctx, const struct ext4_dirent *e)
{
	struct ext_lister *ls = ctx;
	bool is_dir = (e->mode & 0170000) == 0040000;

	if (ls->longer) {
		char mode[11], when[32];
		time_t t = (time_t)e->mtime;
		struct tm tm;
		mode_text(e->mode, mode);
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", gmtime_r(&t, &tm));
		if ((e->mode & 0170000) == 0020000 || (e->mode & 0170000) == 0060000)
			fprintf(ls->out, "%s %5u %5u %5u, %3u %s  ", mode, e->uid, e->gid, e->major,
				e->minor, when);
		else
			fprintf(ls->out, "%s %5u %5u %10llu %s  ", mode, e->uid, e->gid,
				(unsigned long long)e->size, when);
	}
	reader_fputs_visible(e->name, ls->out);
	if (ls->longer && e->target) {
		fprintf(ls->out, " -> ");
		reader_fputs_visible(e->target, ls->out);
	}
	fprintf(ls->out, "%s\n", is_dir ? "/" : "");
	if (ls->recursive && is_dir) {
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

static int list_ext_dir(struct ext4_volume *v, const char *path, const struct ls_out *o,
			bool recursive, unsigned depth, struct diag *d)
{
	struct ext_lister ls = { .out = o->out, .longer = o->longer, .recursive = recursive };
	int rc = depth > 64 ? diag_error(d, "%s: folders nested too deeply", path)
			    : ext4_list(v, path, on_ext_entry, &ls, d);

	for (size_t i = 0; rc == 0 && i < ls.n_dirs; i++) {
		char *sub = NULL;
		if (asprintf(&sub, "%s%s%s", path, strcmp(path, "/") ? "/" : "", ls.dirs[i]) < 0)
			rc = -ENOMEM;
		else {
			print_heading(o->out, sub);
			rc = list_ext_dir(v, sub, o, recursive, depth + 1, d);
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
	struct ls_out o = { .out = out, .longer = longer };
	struct address a;
	struct disk k = { 0 };
	struct fat_vol *v = NULL;
	struct ext4_volume *ext = NULL;
	struct diag d;
	int fd = -1, rc = parse_address(arg, &a);

	diag_init(&d);
	if (rc == -ENOENT)
		diag_error(&d, "%s: no such image (write IMAGE[:PART][/PATH])", arg);
	else if (rc < 0)
		diag_error(&d, "%s: out of memory", arg);
	else if ((fd = reader_open(a.image, &d)) < 0)
		rc = fd;
	else if ((rc = open_volume(&a, fd, &k, &v, &ext, &d)) == 0 && ext) {
		struct diag inner; /* ext4/ names paths in the volume: say which volume */
		diag_init(&inner);
		rc = cat ? ext4_read_file(ext, a.path, to_out, out, &inner)
			 : list_ext_dir(ext, a.path, &o, recursive, 0, &inner);
		relay_volume_messages(&a, &inner, &d);
	} else if (rc == 0) {
		struct diag inner; /* the reader names paths in the volume: say which volume */
		diag_init(&inner);
		rc = cat ? fat_vol_read(v, a.path, to_out, out, &inner)
			 : list_dir(v, a.path, &o, recursive, &inner);
		relay_volume_messages(&a, &inner, &d);
	}
	if (rc == -EIO && cat && ferror(out))
		diag_error(&d, "writing to the standard output failed");
	if (fflush(out) != 0 && !d.errors)
		diag_error(&d, "writing to the standard output failed");
	diag_print(&d, err, SDIMG_PROG);
	int status = d.errors || rc ? EXIT_FAILED : EXIT_OK;
	fat_vol_close(v);
	ext4_discard(ext);
	reader_release_disk(&k);
	if (fd >= 0)
		close(fd);
	address_release(&a);
	diag_release(&d);
	return status;
}

static void ls_usage(FILE *out)
{
	fprintf(out, "Usage: %s ls IMAGE[:PART][/PATH] [-l] [-R]\n\n"
		     "Lists a folder of a FAT or ext2/3/4 partition. PART is a partition number, a GPT\n"
		     "name or a volume label; without a table the whole image is the volume\n"
		     "(IMAGE:/PATH, or IMAGE alone for its root).\n\n"
		     "  -l, --long       FAT: attributes (d r h s a), size, time (UTC), 8.3 name,\n"
		     "                   name; ext: mode, owner, group, size or device, time\n"
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
		{ "long", no_argument, NULL, 'l' }, { "recursive", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	static const struct cli_command ls = {
		.name = "ls", .options = options, .usage = ls_usage, .take = take_ls_option,
		.n_args = 1, .other_args = "one IMAGE[:PART][/PATH], please",
	};
	struct ls_request r = { 0 };
	int first, status = cli_parse(&ls, argc, argv, &r, &first);

	if (status != CLI_GO)
		return status;
	return cli_ls_run(argv[first], false, r.longer, r.recursive, stdout, stderr);
}

static void cat_usage(FILE *out)
{
	fprintf(out, "Usage: %s cat IMAGE:PART/PATH\n\nWrites one file of a FAT or ext2/3/4 partition to the "
		     "standard output\n(IMAGE:/PATH when the image has no table).\n", SDIMG_PROG);
}

/* `cat` has no option but --help, which cli_parse() answers. */
static int take_no_option(void *ctx, int key, char *arg)
{
	(void)ctx;
	(void)key;
	(void)arg;
	return EXIT_OK;
}

int cmd_cat(int argc, char **argv)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	static const struct cli_command cat = {
		.name = "cat", .options = options, .usage = cat_usage, .take = take_no_option,
		.n_args = 1, .other_args = "one IMAGE:PART/PATH, please",
	};
	int first, status = cli_parse(&cat, argc, argv, NULL, &first);

	if (status != CLI_GO)
		return status;
	return cli_ls_run(argv[first], true, false, false, stdout, stderr);
}
