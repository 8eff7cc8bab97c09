/* SPDX-License-Identifier: MIT */
/*
 * fatwrite: test driver that writes a bare FAT volume (no partition table) from a host folder.
 *
 *   fatwrite [-t 12|16|32] [-c CLUSTER] [-f FATS] [-e ROOT_ENTRIES] [-r RESERVED]
 *            [-a DATA_ALIGN] [-o OFFSET] [-l LABEL] [-i VOLID] [-n OEM] [-T TIME] [-F NFD]
 *            [-1 FATPATH] [-S] [-s] [-U] OUT SIZE|auto DIR
 *
 * OUT is created (or truncated) with OFFSET + SIZE bytes and the volume is written at OFFSET.
 * SIZE "auto" uses fat_min_size(). -1 marks one FAT path ("/MLO") `first` in its folder.
 * -S lays SIZE out as a whole SD card (fat_sd_format()): the volume goes at the partition
 * start the SD formatter uses, to the end of the card; -o is then ignored. -s prints the geometry. Files get their own mtime unless
 * -T fixes one. At most NFD files (default 256) are read through their fd (copy_file_range);
 * the rest through the read callback, which opens the file on each call. -U adds each folder's
 * entries in the order the host lists them (readdir) instead of sorted, so that the library's
 * own order is all that decides the volume's.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fat/fat.h"

struct run {
	struct fat_tree *tree;
	struct diag d;
	int fixed_time;
	int64_t time;
	int fd_budget;
	const char *first; /* FAT path given the first flag */
	int sd;            /* -S: SIZE is a whole SD card */
	int listed_order;  /* -U: entries added as readdir gives them */
	char **paths;      /* host paths handed to the callback, freed at the end */
	size_t n_paths;
};

static int read_path(void *ctx, uint64_t off, void *buf, size_t len)
{
	int fd = open((const char *)ctx, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = pread(fd, buf, len, (off_t)off);
	close(fd);
	return n == (ssize_t)len ? 0 : n < 0 ? -EIO : -ENODATA;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_entry(struct run *run, const char *host, const char *fat, const struct stat *st);

/* Adds the contents of host folder @host under FAT path @fat, in sorted order (-U: listed). */
static int add_dir(struct run *run, const char *host, const char *fat)
{
	DIR *dir = opendir(host);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int r = 0;

	if (!dir)
		return fprintf(stderr, "fatwrite: %s: %s\n", host, strerror(errno)), -1;
	while ((e = readdir(dir))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			names = realloc(names, cap * sizeof(*names));
		}
		names[n++] = strdup(e->d_name);
	}
	closedir(dir);
	if (n && !run->listed_order) /* qsort takes no NULL array, not even of no names */
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		char *h, *f;
		struct stat st;
		if (!r && asprintf(&h, "%s/%s", host, names[i]) >= 0) {
			if (asprintf(&f, "%s/%s", fat, names[i]) >= 0) {
				r = stat(h, &st) ? -1 : add_entry(run, h, f, &st);
				free(f);
			}
			free(h);
		}
		free(names[i]);
	}
	free(names);
	return r;
}

static int add_entry(struct run *run, const char *host, const char *fat, const struct stat *st)
{
	struct fat_meta m = { .mtime = run->fixed_time ? run->time : st->st_mtim.tv_sec,
			      .mtime_ns = run->fixed_time ? 0 : (uint32_t)st->st_mtim.tv_nsec,
			      .attrs = S_ISDIR(st->st_mode) ? 0 : FAT_ATTR_ARCHIVE,
			      .origin = host,
			      .first = run->first && !strcmp(run->first, fat) };
	struct fat_source src = { .fd = -1 };

	if (S_ISDIR(st->st_mode))
		return fat_tree_add_dir(run->tree, fat, &m, &run->d) ? -1 : add_dir(run, host, fat);
	if (run->fd_budget > 0) {
		src.fd = open(host, O_RDONLY | O_CLOEXEC);
		run->fd_budget--;
	} else {
		src.read = read_path;
	}
	run->paths = realloc(run->paths, (run->n_paths + 1) * sizeof(*run->paths));
	run->paths[run->n_paths++] = src.ctx = strdup(host);
	return fat_tree_add_file(run->tree, fat, (uint64_t)st->st_size, &src, &m, &run->d) ? -1 : 0;
}

static void print_geom(const struct fat_geom *g, uint64_t size)
{
	printf("size=%" PRIu64 " type=%d cluster=%u reserved=%u fats=%u fat_sectors=%u "
	       "root_entries=%u clusters=%u data_offset=%" PRIu64 " hidden=%u\n",
	       size, g->type, g->cluster_size, g->reserved, g->fats, g->fat_sectors,
	       g->root_entries, g->clusters, g->data_offset, g->hidden_sectors);
}

static int parse_opts(int argc, char **argv, struct fat_opts *o, struct run *run, uint64_t *offset,
		      int *show)
{
	int c;

	while ((c = getopt(argc, argv, "t:c:f:e:r:a:o:l:i:n:T:F:1:SsU")) != -1) {
		switch (c) {
		case 't':
			o->type = (enum fat_type)atoi(optarg);
			break;
		case 'c':
			o->cluster_size = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'f':
			o->fats = (unsigned)atoi(optarg);
			break;
		case 'e':
			o->root_entries = (unsigned)atoi(optarg);
			break;
		case 'r':
			o->reserved = (unsigned)atoi(optarg);
			break;
		case 'a':
			o->data_align = strtoull(optarg, NULL, 0);
			break;
		case 'o':
			*offset = strtoull(optarg, NULL, 0);
			break;
		case 'l':
			o->label = optarg;
			break;
		case 'i':
			o->volume_id = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'n':
			o->oem_name = optarg;
			break;
		case 'T':
			run->fixed_time = 1;
			run->time = strtoll(optarg, NULL, 0);
			break;
		case 'F':
			run->fd_budget = atoi(optarg);
			break;
		case '1':
			run->first = optarg;
			break;
		case 'S':
			run->sd = 1;
			break;
		case 's':
			*show = 1;
			break;
		case 'U':
			run->listed_order = 1;
			break;
		default:
			return -1;
		}
	}
	return argc - optind == 3 ? 0 : -1;
}

static int build(struct run *run, const struct fat_opts *o, const char *out, const char *size_arg,
		 uint64_t offset, int show)
{
	struct fat_geom g;
	uint64_t size;
	int fd, r;

	if (!strcmp(size_arg, "auto")) {
		if (fat_min_size(run->tree, o, offset, &size, &run->d))
			return -1;
	} else {
		size = strtoull(size_arg, NULL, 0);
	}
	if (run->sd) {
		struct fat_sd_layout l;
		if (fat_sd_format(o, size / 512, &l, &run->d))
			return -1;
		g = l.geom;
		offset = (uint64_t)l.part_start * 512;
		size -= offset;
	} else if (fat_params_for_tree(run->tree, o, size, offset, &g, &run->d)) {
		return -1;
	}
	if (show)
		print_geom(&g, size);
	fd = open(out, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)(offset + size)))
		return fprintf(stderr, "fatwrite: %s: %s\n", out, strerror(errno)), -1;
	r = fat_write(run->tree, &g, fd, offset, &run->d);
	if (close(fd) && !r)
		r = -errno;
	return r ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct fat_opts o = { .volume_id = 0x5D1A0001 };
	struct run run = { .fd_budget = 256 };
	uint64_t offset = 0;
	int show = 0, r = 1;

	diag_init(&run.d);
	if (parse_opts(argc, argv, &o, &run, &offset, &show)) {
		fprintf(stderr, "usage: fatwrite [options] OUT SIZE|auto DIR\n");
		return 2;
	}
	run.tree = fat_tree_new(run.fixed_time ? run.time : 315532800);
	if (run.tree && !add_dir(&run, argv[optind + 2], "") &&
	    !build(&run, &o, argv[optind], argv[optind + 1], offset, show))
		r = 0;
	diag_print(&run.d, stderr, "fatwrite");
	fat_tree_free(run.tree);
	for (size_t i = 0; i < run.n_paths; i++)
		free(run.paths[i]);
	free(run.paths);
	diag_release(&run.d);
	return r;
}
