/* SPDX-License-Identifier: MIT */
/* browse_fat: `ls` and `cat` on a FAT volume, through fat/'s reader (reader_priv.h). */
#include <string.h>
#include <time.h>

#include "mkimage/reader/reader_priv.h"

static const char *fat_label(const struct disk_part *p)
{
	return p->fat.info.label;
}

static int fat_open(int fd, const struct disk_part *p, const char *image, struct diag *d,
		    void **ret)
{
	struct fat_vol *v = NULL;
	int rc = fat_vol_open(fd, p->start, p->size, &v, d);

	(void)image; /* fat/ names no image: browse.c puts the address before its messages */
	*ret = v;
	return rc;
}

/* `ls -l`: attributes (d r h s a), size, time (UTC), 8.3 name, name. */
static void print_entry(const struct reader_listing *o, const struct fat_dirent *e)
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

static int on_folder(void *ctx, const char *path)
{
	reader_print_heading(((const struct reader_listing *)ctx)->out, path);
	return 0;
}

static int fat_list(void *fs, const char *path, const struct reader_listing *how, struct diag *d)
{
	static const struct fat_walk_fns fns = { .folder = on_folder, .entry = on_entry };
	struct reader_listing o = *how; /* the callbacks' context */

	return o.recursive ? fat_vol_walk(fs, path, READER_LS_DEPTH_MAX, &fns, &o, d)
			   : fat_vol_list(fs, path, on_entry, &o, d);
}

static int fat_read(void *fs, const char *path, int (*out)(void *ctx, const void *buf, size_t len),
		    void *ctx, struct diag *d)
{
	return fat_vol_read(fs, path, out, ctx, d);
}

static void fat_close(void *fs)
{
	fat_vol_close(fs);
}

const struct reader_browse_ops reader_browse_fat = {
	.content = CONTENT_FAT,
	.label = fat_label,
	.open = fat_open,
	.list = fat_list,
	.read = fat_read,
	.close = fat_close,
};
