/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: a layout and a few files through `sdimg build` (mkimage/builder: contents,
 * plan, table, volumes, bmap and checksums) and back through our reader: what the builder
 * wrote must read back. The layout's partition table must read without error, and when every
 * byte of the image comes from the builder (no raw region, no partition copied from a file)
 * the reader must find as many FAT volumes as the layout has (in the table, or the one volume
 * of an image without a table when it starts the image), each must open, and every file listed must read back at the
 * size its entry gives. A failure there is a crash (abort), so libFuzzer keeps the input.
 *
 * Input: the layout text, then up to four payloads, each after a line "%%": the files a, b,
 * sub/c and sub/d of the input folder (created once per process in /dev/shm or $TMPDIR;
 * the layout names them relative to it: `from = "a"`, `tree "/" { from = "sub" }`). A layout
 * that mentions `include` is skipped, and so is one whose `from` leads out of the input
 * folder: the target reads no host file but its own. Images the plan makes larger than
 * 64 MiB are skipped (the language describes terabytes in a few bytes, and writing the FAT of
 * such a volume takes seconds); sizes that wait for the contents are small here, and a file
 * size limit (RLIMIT_FSIZE, 256 MiB) stops the rest with EFBIG.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/path.h"
#include "fat/fat.h"
#include "layouts/layouts.h"
#include "mkimage/builder/builder.h"
#include "mkimage/reader/reader.h"
#include "plan/plan.h"

#define MAX_IMAGE (64u << 20)
#define FILE_LIMIT (256u << 20)
#define N_PAYLOADS 4

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const payload_names[N_PAYLOADS] = { "a", "b", "sub/c", "sub/d" };

/* The folders and files of this process (set up once). */
struct place {
	char dir[200]; /* the process's own folder */
	char in[256];  /* dir/in: the input folder */
	char image[256], bmap[256], sums[256];
	FILE *quiet; /* /dev/null, for the build's report */
};

static struct place *place(void)
{
	static struct place p;
	return &p;
}

static void fail(const char *what, const char *where, const struct diag *d)
{
	fprintf(stderr, "fuzz_build: %s: %s\n", what, where);
	diag_print(d, stderr, "fuzz_build");
	abort();
}

static void remove_place(void)
{
	struct place *p = place();
	char path[512];

	for (size_t i = 0; i < N_PAYLOADS; i++) {
		snprintf(path, sizeof(path), "%.250s/%s", p->in, payload_names[i]);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%.250s/sub", p->in);
	rmdir(path);
	rmdir(p->in);
	unlink(p->image);
	unlink(p->bmap);
	unlink(p->sums);
	rmdir(p->dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct place *p = place();
	const char *tmp = getenv("TMPDIR");
	struct rlimit lim = { FILE_LIMIT, FILE_LIMIT };
	char sub[512];

	(void)argc;
	(void)argv;
	/* as main() does: EFBIG instead of a signal past the limit, UTF-8 archive names */
	signal(SIGXFSZ, SIG_IGN);
	if (!setlocale(LC_CTYPE, "C.UTF-8"))
		setlocale(LC_CTYPE, "");
	setrlimit(RLIMIT_FSIZE, &lim);
	snprintf(p->dir, sizeof(p->dir), "%.150s/sdimg-fuzz-build-XXXXXX",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm"
		 : tmp                         ? tmp
					       : "/tmp");
	if (!mkdtemp(p->dir) || !(p->quiet = fopen("/dev/null", "w"))) {
		perror("fuzz_build: setting up");
		exit(1);
	}
	snprintf(p->in, sizeof(p->in), "%.190s/in", p->dir);
	snprintf(sub, sizeof(sub), "%.250s/sub", p->in);
	snprintf(p->image, sizeof(p->image), "%.190s/card.img", p->dir);
	snprintf(p->bmap, sizeof(p->bmap), "%.190s/card.bmap", p->dir);
	snprintf(p->sums, sizeof(p->sums), "%.190s/card.sha256", p->dir);
	if (mkdir(p->in, 0755) < 0 || mkdir(sub, 0755) < 0) {
		perror("fuzz_build: setting up");
		exit(1);
	}
	atexit(remove_place);
	return 0;
}

/* Writes payload @i (@len bytes, or empty). */
static void write_payload(size_t i, const uint8_t *buf, size_t len)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%.250s/%s", place()->in, payload_names[i]);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, buf, len) != (ssize_t)len) {
		perror(path);
		abort();
	}
	close(fd);
}

static const uint8_t *find_mark(const uint8_t *p, const uint8_t *end)
{
	static const char mark[] = "\n%%\n";

	for (; p + 4 <= end; p++)
		if (!memcmp(p, mark, 4))
			return p;
	return end;
}

/* Splits the input: the layout text (returned, NUL-terminated) and the payloads. */
static char *split_input(const uint8_t *data, size_t size)
{
	const uint8_t *end = data + size, *cut = find_mark(data, end);
	char *text = strndup((const char *)data, (size_t)(cut - data));

	for (size_t i = 0; i < N_PAYLOADS; i++) {
		const uint8_t *from = cut < end ? cut + 4 : end;
		cut = find_mark(from, end);
		write_payload(i, from, (size_t)(cut - from));
	}
	return text;
}

/* Whether the host path @from (relative to the input folder) stays inside it. */
static bool inside(const char *from)
{
	const struct place *p = place();
	char *joined, real[PATH_MAX];
	size_t len = strlen(p->in);
	bool ok;

	if (!from)
		return true;
	/* joined as the builder joins it: an absolute path stays as it is */
	if (!(joined = path_join(p->in, from)))
		return false;
	ok = realpath(joined, real) ? !strncmp(real, p->in, len) && (real[len] == '/' || !real[len])
				    : errno == ENOENT; /* nothing there: the build says so */
	free(joined);
	return ok;
}

static bool reads_only_inputs(const struct layout *l)
{
	for (size_t i = 0; i < l->n_raws; i++)
		if (!inside(l->raws[i].from))
			return false;
	for (size_t i = 0; i < l->n_parts; i++) {
		if (!inside(l->parts[i].from))
			return false;
		for (size_t j = 0; j < l->parts[i].n_entries; j++)
			if (!inside(l->parts[i].entries[j].from))
				return false;
	}
	return true;
}

/* Whether the plan (sizes that wait for the contents aside) stays within MAX_IMAGE. */
static bool small_enough(const struct layout *l, struct diag *d)
{
	struct plan *p = NULL;
	bool ok = true;

	if (plan_resolve(l, NULL, d, &p) < 0)
		return true; /* the build meets the same problem and stops there */
	ok = p->image_size <= MAX_IMAGE;
	for (size_t i = 0; ok && i < p->n_regions; i++)
		ok = p->regions[i].start <= MAX_IMAGE && p->regions[i].size <= MAX_IMAGE;
	plan_free(p);
	return ok;
}

/* Everything the image holds is the builder's own. */
static bool all_built(const struct layout *l)
{
	if (l->n_raws)
		return false;
	for (size_t i = 0; i < l->n_parts; i++)
		if (l->parts[i].from)
			return false;
	return true;
}

struct walk {
	struct fat_vol *v;
	char path[1024];
	unsigned budget; /* entries left: the walk stays short */
	struct diag *d;
};

static int count(void *ctx, const void *buf, size_t len)
{
	(void)buf;
	*(uint64_t *)ctx += len;
	return 0;
}

static int visit(void *ctx, const struct fat_dirent *e)
{
	struct walk *w = ctx;
	size_t len = strlen(w->path), name_len = strlen(e->name);
	uint64_t got = 0;

	if (!w->budget)
		return 1;
	w->budget--;
	if (len + name_len + 2 > sizeof(w->path))
		return 0;
	w->path[len] = '/';
	memcpy(w->path + len + 1, e->name, name_len + 1);
	if (e->attrs & FAT_ATTR_DIR) {
		if (fat_vol_list(w->v, w->path, visit, w, w->d) < 0)
			fail("a folder we wrote does not list", w->path, w->d);
	} else if (fat_vol_read(w->v, w->path, count, &got, w->d) != 0 || got != e->size) {
		fail("a file we wrote does not read back at its size", w->path, w->d);
	}
	w->path[len] = '\0';
	return w->budget ? 0 : 1;
}

/* The FAT volumes of @l a reader can find: those the table lists; without a table, the one
 * volume when it starts the image (SIZE_MAX: not known before the contents are measured). */
static size_t fat_volumes_built(const struct layout *l, struct diag *d)
{
	struct plan *p = NULL;
	size_t n = 0;

	if (l->image.table != LAYOUT_TABLE_NONE) {
		for (size_t i = 0; i < l->n_parts; i++)
			n += layout_part_is_fat(&l->parts[i]) && l->parts[i].in_table;
		return n;
	}
	if (plan_resolve(l, NULL, d, &p) < 0)
		return SIZE_MAX;
	for (size_t i = 0; i < p->n_regions && n != SIZE_MAX; i++) {
		const struct plan_region *r = &p->regions[i];
		if (r->kind == PLAN_PARTITION && layout_part_is_fat(r->part))
			n = r->start_pending ? SIZE_MAX : r->start == 0;
	}
	plan_free(p);
	return n;
}

static size_t fat_volumes_found(const struct disk *k)
{
	size_t n = 0;

	for (size_t i = 0; i < k->n_parts; i++)
		n += k->parts[i].content == CONTENT_FAT;
	return n;
}

static void check_image(const struct layout *l, struct diag *d)
{
	const char *image = place()->image;
	struct disk k = { 0 };
	struct findings f = { 0 };
	int fd;

	/* without a table and without a file system (nothing, raw regions, a raw partition) the
	 * image is no disk image the reader knows: nothing to read back */
	if (l->image.table == LAYOUT_TABLE_NONE &&
	    (!l->n_parts || !layout_part_has_files(&l->parts[0])))
		return;
	fd = reader_open(image, d);
	if (fd < 0)
		fail("the image we built does not open", image, d);
	if (reader_read_disk(&k, image, fd, d) < 0)
		fail("the image we built does not read back", image, d);
	reader_compute_findings(&k, 4u << 20, &f);
	size_t built = all_built(l) ? fat_volumes_built(l, d) : SIZE_MAX;
	if (built != SIZE_MAX && fat_volumes_found(&k) != built)
		fail("the reader finds another number of FAT volumes than we built", image, d);
	for (size_t i = 0; all_built(l) && i < k.n_parts; i++) {
		const struct disk_part *p = &k.parts[i];
		struct walk w = { .budget = 2000, .d = d };
		if (p->content != CONTENT_FAT)
			continue;
		if (p->content_error[0] || fat_vol_open(fd, p->start, p->size, &w.v, d) < 0)
			fail("a FAT volume we built does not open", p->content_error, d);
		if (fat_vol_list(w.v, "/", visit, &w, d) < 0)
			fail("the root folder of a volume we built does not list", image, d);
		fat_vol_close(w.v);
	}
	reader_release_findings(&f);
	reader_release_disk(&k);
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct layout_var vars[] = { { "A", "a" }, { "B", "4M" } };
	struct place *p = place();
	const char *const dirs[] = { p->in };
	const struct layout_options opts = { .input_dirs = dirs,
					     .n_input_dirs = 1,
					     .vars = vars,
					     .n_vars = 2 };
	const struct build_options bo = { .output = p->image,
					  .write_raw = true,
					  .bmap = p->bmap,
					  .sha256 = p->sums,
					  .verbosity = BUILD_QUIET,
					  .report = p->quiet };
	char name[512];
	struct layout *l = NULL;
	struct diag d;
	char *text;

	text = split_input(data, size);
	if (!text || strstr(text, "include")) {
		free(text);
		return 0;
	}
	diag_init(&d);
	snprintf(name, sizeof(name), "%.250s/card.layout", p->in);
	if (layout_load_text(name, text, &opts, &d, &l) == 0 && reads_only_inputs(l) &&
	    small_enough(l, &d) && build_image_file(l, &bo, &d) == 0) {
		check_image(l, &d);
		unlink(p->image);
		unlink(p->bmap);
		unlink(p->sums);
	}
	layout_free(l);
	diag_release(&d);
	free(text);
	return 0;
}
