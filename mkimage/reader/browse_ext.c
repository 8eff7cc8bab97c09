/* SPDX-License-Identifier: MIT */
/*
 * browse_ext: `ls` and `cat` on an ext2/3/4 volume, through ext4/'s reader (reader_priv.h).
 * `ls -l` as `ls -ln` prints it: mode, owner, group, size, time (UTC).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ext4/ext4.h"
#include "mkimage/reader/reader_priv.h"

static const char *ext_label(const struct disk_part *p)
{
	return p->ext.label;
}

static int ext_open(int fd, const struct disk_part *p, const char *image, struct diag *d,
		    void **ret)
{
	struct ext4_volume *v = NULL;
	int rc = ext4_open_read(fd, p->start, p->size, d, &v);

	(void)image; /* the caller names the image before ext4's messages */
	*ret = v;
	return rc;
}

/* One folder's listing, and for -R its subfolders, to list after it. */
struct ext_lister {
	FILE *out;
	bool longer;
	char **dirs; /* subfolders met, for -R (NULL: not recursive) */
	size_t n_dirs;
	bool recursive;
};

static void mode_text(uint32_t mode, char out[11])
{
	static const char types[16] = {
		[1] = 'p', [2] = 'c', [4] = 'd', [6] = 'b', [8] = '-', [10] = 'l', [12] = 's'
	};
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

static int list_ext_dir(struct ext4_volume *v, const char *path, const struct reader_listing *o,
			unsigned depth, struct diag *d)
{
	struct ext_lister ls = { .out = o->out, .longer = o->longer, .recursive = o->recursive };
	int rc = depth > READER_LS_DEPTH_MAX ? diag_error(d, "%s: folders nested too deeply", path)
					     : ext4_list(v, path, on_ext_entry, &ls, d);

	for (size_t i = 0; rc == 0 && i < ls.n_dirs; i++) {
		char *sub = NULL;
		if (asprintf(&sub, "%s%s%s", path, strcmp(path, "/") ? "/" : "", ls.dirs[i]) < 0)
			rc = -ENOMEM;
		else {
			reader_print_heading(o->out, sub);
			rc = list_ext_dir(v, sub, o, depth + 1, d);
		}
		free(sub);
	}
	for (size_t i = 0; i < ls.n_dirs; i++)
		free(ls.dirs[i]);
	free(ls.dirs);
	return rc;
}

static int ext_list(void *fs, const char *path, const struct reader_listing *how, struct diag *d)
{
	return list_ext_dir(fs, path, how, 0, d);
}

static int ext_read(void *fs, const char *path, int (*out)(void *ctx, const void *buf, size_t len),
		    void *ctx, struct diag *d)
{
	return ext4_read_file(fs, path, out, ctx, d);
}

static void ext_close(void *fs)
{
	ext4_discard(fs);
}

const struct reader_browse_ops reader_browse_ext = {
	.content = CONTENT_EXT,
	.label = ext_label,
	.open = ext_open,
	.list = ext_list,
	.read = ext_read,
	.close = ext_close,
};
