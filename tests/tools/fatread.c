/* SPDX-License-Identifier: MIT */
/*
 * fatread: test driver for the reader. Prints what the boot sector says and, given OUTDIR,
 * extracts every directory and file of the volume there through fat_vol_list/fat_vol_read.
 *
 *   fatread [-o OFFSET] IMG [OUTDIR]
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fat/fat.h"

struct ex {
	struct fat_vol *v;
	struct diag *d;
	const char *fat_dir; /* path in the volume */
	const char *host_dir;
	int fd; /* the file being extracted */
};

static int extract_dir(struct fat_vol *v, const char *fat_dir, const char *host_dir,
		       struct diag *d);

static int put_bytes(void *ctx, const void *buf, size_t len)
{
	struct ex *x = ctx;

	return write(x->fd, buf, len) == (ssize_t)len ? 0 : -EIO;
}

static int one(void *ctx, const struct fat_dirent *e)
{
	struct ex *x = ctx, f = *x;
	char *fat = NULL, *host = NULL;
	int r = -ENOMEM;

	if (asprintf(&fat, "%s/%s", x->fat_dir, e->name) < 0 ||
	    asprintf(&host, "%s/%s", x->host_dir, e->name) < 0)
		goto out;
	if (e->attrs & FAT_ATTR_DIR) {
		r = mkdir(host, 0755) ? -errno : extract_dir(x->v, fat, host, x->d);
		goto out;
	}
	f.fd = open(host, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	r = f.fd < 0 ? -errno : fat_vol_read(x->v, fat, put_bytes, &f, x->d);
	if (f.fd >= 0)
		close(f.fd);
out:
	free(fat);
	free(host);
	return r;
}

static int extract_dir(struct fat_vol *v, const char *fat_dir, const char *host_dir, struct diag *d)
{
	struct ex x = { v, d, fat_dir, host_dir, -1 };

	return fat_vol_list(v, fat_dir[0] ? fat_dir : "/", one, &x, d);
}

static void print_info(const struct fat_info *i)
{
	printf("type=%d bytes_per_sector=%u cluster_size=%u fats=%u reserved=%u root_entries=%u "
	       "fat_sectors=%u clusters=%u data_offset=%" PRIu64 " hidden=%u total=%u "
	       "volume_id=%08X label=%s oem=%s\n",
	       i->type, i->bytes_per_sector, i->cluster_size, i->fats, i->reserved, i->root_entries,
	       i->fat_sectors, i->clusters, i->data_offset, i->hidden_sectors, i->total_sectors,
	       i->volume_id, i->label, i->oem_name);
}

int main(int argc, char **argv)
{
	struct fat_vol *v = NULL;
	struct diag d;
	uint64_t off = 0;
	int c, fd, r = 1;

	while ((c = getopt(argc, argv, "o:")) != -1) {
		if (c != 'o')
			return 2;
		off = strtoull(optarg, NULL, 0);
	}
	if (argc - optind < 1 || argc - optind > 2) {
		fprintf(stderr, "usage: fatread [-o OFFSET] IMG [OUTDIR]\n");
		return 2;
	}
	diag_init(&d);
	fd = open(argv[optind], O_RDONLY);
	if (fd < 0) {
		perror(argv[optind]);
		return 1;
	}
	if (!fat_vol_open(fd, off, 0, &v, &d)) {
		print_info(fat_vol_info(v));
		r = argc - optind == 2 && extract_dir(v, "", argv[optind + 1], &d) ? 1 : 0;
	}
	diag_print(&d, stderr, "fatread");
	fat_vol_close(v);
	diag_release(&d);
	close(fd);
	return r;
}
