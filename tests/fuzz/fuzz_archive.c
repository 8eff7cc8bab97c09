/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: any bytes as the archive of a layout's `tree` entry (tar, cpio, zip, ... in
 * any compression libarchive reads), through all a FAT partition's contents go through in
 * `sdimg build`: the listing into the content model (mkimage/contents), fat/'s tree, the
 * volume written into memory, the data pass that streams the archive's bytes to their
 * clusters, and then our reader, which must find every file of the model at its size and read
 * all of it. A difference is a crash (abort), so libFuzzer keeps the input.
 *
 * Input: byte 0 picks the `tree` entry (destination, strip, a `file` before or after it) and
 * the FAT type; the rest is the archive, handed to the same code as a host file through
 * /proc/self/fd of a memfd. Run with -max_len=65536 or more: deep paths and many entries
 * need room. Contents over 16 MiB are skipped (an archive of a few KB may describe files of
 * gigabytes, all zeros, which would make one execution write and read that much); so are
 * volumes over 64 MiB.
 */
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fat/fat.h"
#include "layouts/layouts.h"
#include "mkimage/contents/contents.h"

#define MAX_CONTENT (16u << 20)
#define MAX_VOLUME (64u << 20)

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const entries[] = {
	"tree \"/\" { from = \"%s\" }",
	"tree \"/\" { from = \"%s\" strip = 1 }",
	"tree \"/deep/er\" { from = \"%s\" }",
	"tree \"/x\" { from = \"%s\" strip = 2 }",
	"file \"/a\" { content = \"first\" } tree \"/\" { from = \"%s\" }",
	"tree \"/\" { from = \"%s\" } file \"/a\" { content = \"last\" } dir \"/b/c\" {}",
	"file \"/boot.bin\" { content = \"x\" first = true } tree \"/\" { from = \"%s\" }",
	"tree \"/\" { from = \"%s\" } tree \"/\" { from = \"%s\" strip = 1 }",
};

static const enum fat_type types[] = { FAT_AUTO, FAT_12, FAT_16, FAT_32 };

static void fail(const char *what, const char *path, const struct diag *d)
{
	fprintf(stderr, "fuzz_archive: %s: %s\n", what, path);
	diag_print(d, stderr, "fuzz_archive");
	abort();
}

static int read_text(void *ctx, uint64_t off, void *buf, size_t len)
{
	memcpy(buf, (const char *)ctx + off, len);
	return 0;
}

/* The model into fat/'s tree, as the builder does it. */
/* Where fat/ put a file (a content_place_fn). */
static int file_offset(const void *vol, const char *path, uint64_t *ret)
{
	return fat_tree_file_offset(vol, path, ret);
}

static struct fat_tree *tree_of(const struct content *c, struct diag *d)
{
	struct fat_tree *t = fat_tree_new(0);
	int bad = 0;

	for (size_t i = 0; t && i < c->n; i++) {
		const struct content_node *n = &c->nodes[i];
		if (n->removed)
			continue;
		struct fat_meta m = { .mtime = n->mtime,
				      .mtime_ns = n->mtime_ns,
				      .attrs = (uint8_t)n->attrs,
				      .first = n->first,
				      .origin = n->origin };
		struct fat_source src = { .path = n->host_path,
					  .fd = -1,
					  .read = n->text ? read_text : NULL,
					  .ctx = (void *)n->text,
					  .deferred = n->archive != 0 };
		bad |= (n->is_dir ? fat_tree_add_dir(t, n->path, &m, d)
				  : fat_tree_add_file(t, n->path, n->size, &src, &m, d)) < 0;
	}
	if (t && bad) {
		fat_tree_free(t);
		t = NULL;
	}
	return t;
}

static int count(void *ctx, const void *buf, size_t len)
{
	(void)buf;
	*(uint64_t *)ctx += len;
	return 0;
}

static int count_entry(void *ctx, const struct fat_dirent *e)
{
	(void)e;
	++*(size_t *)ctx;
	return 0;
}

/* How many live nodes of @c lie right inside the folder @dir ("" for the root). */
static size_t children_of(const struct content *c, const char *dir)
{
	size_t len = strlen(dir), n = 0;

	for (size_t j = 0; j < c->n; j++) {
		const char *p = c->nodes[j].path;
		n += !c->nodes[j].removed && !strncmp(p, dir, len) && p[len] == '/' && p[len + 1] &&
		     !strchr(p + len + 1, '/');
	}
	return n;
}

static void check_folder(struct fat_vol *v, const struct content *c, const char *dir,
			 struct diag *d)
{
	size_t listed = 0;

	if (fat_vol_list(v, *dir ? dir : "/", count_entry, &listed, d) != 0)
		fail("a folder of the model does not list", *dir ? dir : "/", d);
	if (listed != children_of(c, dir))
		fail("a folder lists another number of entries than the model puts in it",
		     *dir ? dir : "/", d);
}

/* Every live node of @c is in @v: each folder lists as many entries as the model puts in
 * it, each file reads back at its size. */
static void check_volume(struct fat_vol *v, const struct content *c, struct diag *d)
{
	check_folder(v, c, "", d);
	for (size_t i = 0; i < c->n; i++) {
		const struct content_node *n = &c->nodes[i];
		uint64_t got = 0;
		if (n->removed || !strcmp(n->path, "/"))
			continue;
		if (n->is_dir) {
			check_folder(v, c, n->path, d);
			continue;
		}
		if (fat_vol_read(v, n->path, count, &got, d) != 0)
			fail("a file of the model does not read back", n->path, d);
		if (got != n->size)
			fail("a file reads back at another size than the model's", n->path, d);
	}
}

static int archive_fd(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz-archive", MFD_CLOEXEC);

	if (fd >= 0 && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* The layout that reads the archive at @host with entry @pick. */
static struct layout *layout_of(const char *host, unsigned pick, struct diag *d)
{
	static const char *const dirs[] = { "/" };
	static const struct layout_options opts = { .input_dirs = dirs, .n_input_dirs = 1 };
	char body[512], text[1024];
	struct layout *l = NULL;

	snprintf(body, sizeof(body), entries[pick % (sizeof(entries) / sizeof(entries[0]))], host,
		 host);
	snprintf(text, sizeof(text),
		 "image { mtime = source }\npartition p {\n type = fat\n %s\n}\n", body);
	return layout_load_text("fuzz.layout", text, &opts, d, &l) == 0 ? l : NULL;
}

static void run(const struct layout *l, enum fat_type type, struct diag *d)
{
	const struct fat_opts fo = { .type = type, .label = "FUZZ", .volume_id = 1 };
	struct content c = { 0 };
	struct fat_tree *t = NULL;
	struct fat_vol *v = NULL;
	struct fat_geom g;
	uint64_t total = 0, bytes = 0;
	int vfd = -1;

	if (content_gather(l, &l->parts[0], &c, d) < 0)
		goto out;
	for (size_t i = 0; i < c.n; i++)
		total += c.nodes[i].removed || c.nodes[i].is_dir ? 0 : c.nodes[i].size;
	if (total > MAX_CONTENT || !(t = tree_of(&c, d)))
		goto out;
	if (fat_min_size(t, &fo, 0, &bytes, d) < 0 || bytes > MAX_VOLUME ||
	    fat_params_for_tree(t, &fo, bytes, 0, &g, d) < 0)
		goto out;
	vfd = memfd_create("fuzz-volume", MFD_CLOEXEC);
	if (vfd < 0 || ftruncate(vfd, (off_t)bytes) < 0)
		goto out;
	if (fat_write(t, &g, vfd, 0, d) < 0)
		fail("fat_write failed on a tree fat_min_size measured", "/", d);
	if (content_write_archive_data(&c, file_offset, t, vfd, 0, "fuzz.img", NULL, NULL, d) < 0)
		goto out; /* the data pass meets what the listing skipped past: a damaged entry */
	if (fat_vol_open(vfd, 0, bytes, &v, d) < 0)
		fail("our reader refuses the volume we wrote", "/", d);
	check_volume(v, &c, d);
out:
	fat_vol_close(v);
	if (vfd >= 0)
		close(vfd);
	fat_tree_free(t);
	content_release(&c);
}

/* As main() does: libarchive converts entry names to the locale's character set. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (!setlocale(LC_CTYPE, "C.UTF-8"))
		setlocale(LC_CTYPE, "");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char host[64];
	struct layout *l;
	struct diag d;
	int afd;

	if (size < 1 || (afd = archive_fd(data + 1, size - 1)) < 0)
		return 0;
	snprintf(host, sizeof(host), "/proc/self/fd/%d", afd);
	diag_init(&d);
	l = layout_of(host, data[0] & 7, &d);
	if (!l)
		fail("the fixed layout does not load", host, &d);
	run(l, types[(data[0] >> 3) & 3], &d);
	layout_free(l);
	diag_release(&d);
	close(afd);
	return 0;
}
