/* SPDX-License-Identifier: MIT */
/*
 * exfatwrite: test driver that writes a bare exFAT volume (no partition table) from a host
 * folder, as fatwrite does for FAT.
 *
 *   exfatwrite [-c CLUSTER] [-a HEAP_ALIGN] [-L] [-o OFFSET] [-l LABEL] [-i VOLID] [-g GUID]
 *              [-T TIME] [-F NFD] [-P] [-1 PATH] [-r PATH=BYTES] [-S] [-s] [-U]
 *              OUT SIZE|auto DIR
 *
 * OUT is created (or truncated) with OFFSET + SIZE bytes and the volume is written at OFFSET.
 * SIZE "auto" uses exfat_min_size(). -L lets the library lower HEAP_ALIGN (a default's
 * heap_align_lower). -g takes 32 hex digits. -1 marks one path `first` in its folder; -r gives
 * one file a reserve. -S lays SIZE out as a whole SDXC card (exfat_sd_format()): the volume
 * goes at the partition start the SD formatter uses; -o is then ignored. -s prints the
 * geometry, and with -r the file's place. Files get their own mtime unless -T fixes one. At
 * most NFD files (default 256) are read through their fd, the rest through the read callback,
 * which opens the file on each call; -P names every file by its host path instead (the
 * library opens it when it copies it). -U adds each folder's entries in the order the host
 * lists them (readdir) instead of sorted.
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

#include "exfat/exfat.h"

struct run {
	struct exfat_tree *tree;
	struct diag d;
	int fixed_time;
	int64_t time;
	int fd_budget;
	int by_path;       /* -P */
	const char *first; /* path given the first flag */
	const char *reserve_path;
	uint64_t reserve;
	int sd;           /* -S: SIZE is a whole SD card */
	int listed_order; /* -U: entries added as readdir gives them */
	char **paths;     /* host paths handed to the callback, freed at the end */
	size_t n_paths;
	int *fds;
	size_t n_fds;
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

static int add_entry(struct run *run, const char *host, const char *path, const struct stat *st);

/* Adds the contents of host folder @host under @path, in sorted order (-U: listed). */
static int add_dir(struct run *run, const char *host, const char *path)
{
	DIR *dir = opendir(host);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int r = 0;

	if (!dir)
		return fprintf(stderr, "exfatwrite: %s: %s\n", host, strerror(errno)), -1;
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
	if (n && !run->listed_order)
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		char *h, *f;
		struct stat st;
		if (!r && asprintf(&h, "%s/%s", host, names[i]) >= 0) {
			if (asprintf(&f, "%s/%s", path, names[i]) >= 0) {
				r = lstat(h, &st) ? -1 : add_entry(run, h, f, &st);
				free(f);
			}
			free(h);
		}
		free(names[i]);
	}
	free(names);
	return r;
}

static int add_entry(struct run *run, const char *host, const char *path, const struct stat *st)
{
	struct fat_meta m = { .mtime = run->fixed_time ? run->time : st->st_mtim.tv_sec,
			      .mtime_ns = run->fixed_time ? 0 : (uint32_t)st->st_mtim.tv_nsec,
			      .attrs = S_ISDIR(st->st_mode) ? 0 : FAT_ATTR_ARCHIVE,
			      .origin = host,
			      .first = run->first && !strcmp(run->first, path),
			      .reserve = run->reserve_path && !strcmp(run->reserve_path, path)
						 ? run->reserve
						 : 0 };
	struct fat_source src = { .fd = -1 };

	if (S_ISDIR(st->st_mode))
		return exfat_tree_add_dir(run->tree, path, &m, &run->d) ? -1
									: add_dir(run, host, path);
	if (!S_ISREG(st->st_mode))
		return 0;
	if (run->by_path) {
		src.path = host;
		src.listed = fileid_of(st);
	} else if (run->fd_budget > 0) {
		src.fd = open(host, O_RDONLY | O_CLOEXEC);
		run->fd_budget--;
		run->fds = realloc(run->fds, (run->n_fds + 1) * sizeof(*run->fds));
		run->fds[run->n_fds++] = src.fd;
	} else {
		src.read = read_path;
		run->paths = realloc(run->paths, (run->n_paths + 1) * sizeof(*run->paths));
		run->paths[run->n_paths++] = src.ctx = strdup(host);
	}
	return exfat_tree_add_file(run->tree, path, (uint64_t)st->st_size, &src, &m, &run->d) ? -1
											      : 0;
}

static void print_geom(const struct exfat_geom *g, uint64_t size, uint64_t offset)
{
	printf("size=%" PRIu64 " offset=%" PRIu64 " cluster=%u fat_offset=%u fat_length=%u "
	       "heap_offset=%u clusters=%u part_offset=%" PRIu64 "\n",
	       size, offset, g->cluster_size, g->fat_offset, g->fat_length, g->heap_offset,
	       g->clusters, g->part_offset);
}

static int parse_guid(const char *s, uint8_t guid[16])
{
	if (strlen(s) != 32)
		return -1;
	for (int i = 0; i < 16; i++) {
		unsigned v;
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		guid[i] = (uint8_t)v;
	}
	return 0;
}

static int parse_opts(int argc, char **argv, struct exfat_opts *o, struct run *run,
		      uint64_t *offset, int *show, uint8_t guid[16])
{
	int c;

	while ((c = getopt(argc, argv, "c:a:Lo:l:i:g:T:F:P1:r:SsU")) != -1) {
		switch (c) {
		case 'c':
			o->cluster_size = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'a':
			o->heap_align = strtoull(optarg, NULL, 0);
			break;
		case 'L':
			o->heap_align_lower = true;
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
		case 'g':
			if (parse_guid(optarg, guid))
				return -1;
			o->guid = guid;
			break;
		case 'T':
			run->fixed_time = 1;
			run->time = strtoll(optarg, NULL, 0);
			break;
		case 'F':
			run->fd_budget = atoi(optarg);
			break;
		case 'P':
			run->by_path = 1;
			break;
		case '1':
			run->first = optarg;
			break;
		case 'r': {
			char *eq = strchr(optarg, '=');
			if (!eq)
				return -1;
			*eq = 0;
			run->reserve_path = optarg;
			run->reserve = strtoull(eq + 1, NULL, 0);
			break;
		}
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

static void print_place(struct run *run)
{
	struct exfat_place p;

	if (run->reserve_path && !exfat_tree_file_place(run->tree, run->reserve_path, &p))
		printf("place data=%" PRIu64 " room=%" PRIu64 " entries=%" PRIu64 " count=%u\n",
		       p.data, p.room, p.entries, p.count);
	printf("used=%" PRIu64 "\n", exfat_tree_used_bytes(run->tree));
}

static int build(struct run *run, const struct exfat_opts *o, const char *out, const char *size_arg,
		 uint64_t offset, int show)
{
	struct exfat_geom g;
	uint64_t size;
	int fd, r;

	if (!strcmp(size_arg, "auto")) {
		if (exfat_min_size(run->tree, o, offset, &size, &run->d))
			return -1;
	} else {
		size = strtoull(size_arg, NULL, 0);
	}
	if (run->sd) {
		struct exfat_sd_layout l;
		if (exfat_sd_format(o, size / 512, &l, &run->d))
			return -1;
		g = l.geom;
		offset = l.part_start * 512;
		size -= offset;
	} else if (exfat_params_for_tree(run->tree, o, size, offset, &g, &run->d)) {
		return -1;
	}
	if (show)
		print_geom(&g, size, offset);
	fd = open(out, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)(offset + size)))
		return fprintf(stderr, "exfatwrite: %s: %s\n", out, strerror(errno)), -1;
	r = exfat_write_or_stop(run->tree, &g, fd, offset, out, NULL, NULL, &run->d);
	if (close(fd) && !r)
		r = -errno;
	if (!r && show)
		print_place(run);
	return r ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct exfat_opts o = { .volume_id = 0x5D1A0001 };
	struct run run = { .fd_budget = 256 };
	uint8_t guid[16];
	uint64_t offset = 0;
	int show = 0, r = 1;

	diag_init(&run.d);
	if (parse_opts(argc, argv, &o, &run, &offset, &show, guid)) {
		fprintf(stderr, "usage: exfatwrite [options] OUT SIZE|auto DIR\n");
		return 2;
	}
	run.tree = exfat_tree_new(run.fixed_time ? run.time : 315532800);
	if (run.tree && !add_dir(&run, argv[optind + 2], "") &&
	    !build(&run, &o, argv[optind], argv[optind + 1], offset, show))
		r = 0;
	diag_print(&run.d, stderr, "exfatwrite");
	exfat_tree_free(run.tree);
	for (size_t i = 0; i < run.n_paths; i++)
		free(run.paths[i]);
	for (size_t i = 0; i < run.n_fds; i++)
		close(run.fds[i]);
	free(run.paths);
	free(run.fds);
	diag_release(&run.d);
	return r;
}
