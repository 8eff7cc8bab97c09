/* SPDX-License-Identifier: MIT */
/* browse_exfat: `ls` and `cat` on an exFAT volume, through exfat/'s reader (reader_priv.h).
 * `ls -l` as on FAT, without the 8.3 name exFAT does not have: attributes (d r h s a), size,
 * time (UTC), name. */
#include <time.h>

#include "mkimage/reader/reader_priv.h"

static const char *exfat_label(const struct disk_part *p)
{
	return p->exfat.info.label;
}

static int exfat_open(int fd, const struct disk_part *p, const char *image, struct diag *d,
		      void **ret)
{
	struct exfat_vol *v = NULL;
	int rc = exfat_vol_open(fd, p->start, p->size, &v, d);

	(void)image; /* exfat/ names no image: browse.c puts the address before its messages */
	*ret = v;
	return rc;
}

static int on_entry(void *ctx, const struct exfat_dirent *e)
{
	const struct reader_listing *o = ctx;
	bool dir = e->attrs & EXFAT_ATTR_DIRECTORY;

	if (o->longer) {
		char when[32];
		time_t t = (time_t)e->mtime;
		struct tm tm;
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", gmtime_r(&t, &tm));
		fprintf(o->out, "%c%c%c%c%c %13llu %s  ", dir ? 'd' : '-',
			e->attrs & EXFAT_ATTR_READONLY ? 'r' : '-',
			e->attrs & EXFAT_ATTR_HIDDEN ? 'h' : '-',
			e->attrs & EXFAT_ATTR_SYSTEM ? 's' : '-',
			e->attrs & EXFAT_ATTR_ARCHIVE ? 'a' : '-', (unsigned long long)e->size,
			when);
	}
	reader_fputs_visible(e->name, o->out);
	fprintf(o->out, "%s\n", dir ? "/" : "");
	return 0;
}

static int on_folder(void *ctx, const char *path)
{
	reader_print_heading(((const struct reader_listing *)ctx)->out, path);
	return 0;
}

static int exfat_list(void *fs, const char *path, const struct reader_listing *how, struct diag *d)
{
	static const struct exfat_walk_fns fns = { .folder = on_folder, .entry = on_entry };
	struct reader_listing o = *how; /* the callbacks' context */

	return o.recursive ? exfat_vol_walk(fs, path, READER_LS_DEPTH_MAX, &fns, &o, d)
			   : exfat_vol_list(fs, path, on_entry, &o, d);
}

static int exfat_read(void *fs, const char *path,
		      int (*out)(void *ctx, const void *buf, size_t len), void *ctx, struct diag *d)
{
	return exfat_vol_read(fs, path, out, ctx, d);
}

static void exfat_close(void *fs)
{
	exfat_vol_close(fs);
}

const struct reader_browse_ops reader_browse_exfat = {
	.content = CONTENT_EXFAT,
	.label = exfat_label,
	.open = exfat_open,
	.list = exfat_list,
	.read = exfat_read,
	.close = exfat_close,
};
