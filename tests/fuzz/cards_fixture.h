/* SPDX-License-Identifier: MIT */
/*
 * What the per-card fuzz targets (fuzz_cards.c, fuzz_personalize.c) share: two images with
 * per-card files and ids, built once per process into a private folder (removed at exit)
 * with the per-card manifests their build writes, and the proof that a card's bytes are
 * right: with the patches applied to a copy of the image, the reader finds in each per-card
 * file its template filled with the card's values and the ids it reads from the card's own
 * table and boot sectors (what `sdimg personalize` and `flash --card-values` promise).
 */
#ifndef SDIMG_FUZZ_CARDS_FIXTURE_H
#define SDIMG_FUZZ_CARDS_FIXTURE_H

#include <ctype.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/cards.h"
#include "fat/fat.h"
#include "layouts/layouts.h"
#include "mkimage/builder/builder.h"
#include "mkimage/flash/flash.h"
#include "mkimage/reader/reader.h"

/* Layout text: "\\${" keeps a template's ${NAME} from the layout's own expansion. */
static const char *const fixture_layouts[][2] = {
	{ "mbr", "image { table = mbr align = 512 seed = \"cards-mbr\" timestamp = 1700000000"
		 " disk-id = per-card }\n"
		 "partition boot { type = fat16 fat { label = \"BOOT\" data-align = 512"
		 " cluster-size = 512 volume-id = per-card }\n"
		 " file \"/cmdline.txt\" { content = \"root=PARTUUID=\\${PARTUUID_root}"
		 " disk=\\${DISK_ID} vol=\\${VOLUME_ID_boot} sn=\\${SERIAL}\\n\""
		 " per-card = true reserve = 512 }\n"
		 " file \"/etc/A long serial file name.conf\" { content = \"serial=\\${SERIAL}\\n"
		 "host=\\${HOST}\\n$ {x} $\\${SERIAL}}\\n\" per-card = true reserve = 2K }\n"
		 " file \"/plain.txt\" { content = \"the same on every card\" } }\n"
		 "partition root { size = 64K }\n" },
	{ "gpt",
	  "image { table = gpt align = 512 seed = \"cards-gpt\" timestamp = 1700000000"
	  " disk-id = per-card }\n"
	  "partition efi { type = fat32 fat { label = \"EFI\" data-align = 512 cluster-size = 512"
	  " fats = 1 volume-id = per-card }\n"
	  " file \"/id.txt\" { content = \"\\${DISK_ID} \\${PARTUUID_efi} \\${PARTUUID_data}"
	  " \\${VOLUME_ID_efi} \\${SERIAL}\" per-card = true reserve = 1K }\n"
	  " file \"/deep/er/serial\" { content = \"\\${SERIAL}\" per-card = true reserve = 600 }"
	  " }\n"
	  "partition data { type = fat12 fat { data-align = 512 volume-id = per-card }"
	  " file \"/x.txt\" { content = \"\\${HOST}\\${HOST}\" per-card = true reserve = 512 } }\n"
	  "partition fixed { uuid = \"0b78710c-e3d7-49c0-8387-019e177cd1da\" size = 16K }\n" },
};

#define FIXTURE_IMAGES (sizeof(fixture_layouts) / sizeof(fixture_layouts[0]))

struct fixture_image {
	int fd;   /* the image as built (read-only use) */
	int work; /* a copy that patches go onto, restored after each input */
	uint64_t size;
	char manifest_path[300];
	struct cards_manifest m; /* its manifest as read */
};

struct fixture {
	char dir[200];
	FILE *quiet;
	struct fixture_image img[FIXTURE_IMAGES];
};

static struct fixture *fixture(void)
{
	static struct fixture f;
	return &f;
}

static void fixture_remove(void)
{
	struct fixture *f = fixture();
	char path[300];

	for (size_t i = 0; i < FIXTURE_IMAGES; i++) {
		snprintf(path, sizeof(path), "%.200s/%s", f->dir, fixture_layouts[i][0]);
		unlink(path);
		unlink(f->img[i].manifest_path);
	}
	rmdir(f->dir);
}

static void fixture_die(const char *what, struct diag *d)
{
	if (d)
		diag_print(d, stderr, "fuzz cards fixture");
	fprintf(stderr, "fuzz cards fixture: %s\n", what);
	exit(1);
}

/* A copy of @fd (@size bytes) in a memfd, all-zero blocks left as holes. */
static int fixture_copy(int fd, uint64_t size)
{
	int w = memfd_create("fuzz-card", MFD_CLOEXEC);
	static uint8_t buf[65536];
	static const uint8_t zeros[65536];

	if (w < 0 || ftruncate(w, (off_t)size) < 0)
		fixture_die("memfd", NULL);
	for (uint64_t at = 0; at < size; at += sizeof(buf)) {
		ssize_t n = pread(fd, buf, sizeof(buf), (off_t)at);
		if (n < 0)
			fixture_die("reading an image", NULL);
		if (memcmp(buf, zeros, (size_t)n) && pwrite(w, buf, (size_t)n, (off_t)at) != n)
			fixture_die("copying an image", NULL);
	}
	return w;
}

static void fixture_build(size_t i)
{
	struct fixture *f = fixture();
	struct fixture_image *im = &f->img[i];
	const char *const dirs[] = { f->dir };
	const struct layout_options opts = { .input_dirs = dirs, .n_input_dirs = 1 };
	struct layout *l = NULL;
	char path[300];
	struct diag d;

	snprintf(path, sizeof(path), "%.200s/%s", f->dir, fixture_layouts[i][0]);
	snprintf(im->manifest_path, sizeof(im->manifest_path), "%.200s.cards.json", path);
	const struct build_options bo = { .output = path,
					  .write_raw = true,
					  .verbosity = BUILD_QUIET,
					  .report = f->quiet };
	diag_init(&d);
	if (layout_load_text("fuzz_cards.layout", fixture_layouts[i][1], &opts, &d, &l) < 0 ||
	    build_image_file(l, &bo, &d) < 0)
		fixture_die("building an image", &d);
	layout_free(l);
	if ((im->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 ||
	    cards_manifest_read(im->manifest_path, &im->m, &d) < 0)
		fixture_die("reading an image back", &d);
	im->size = (uint64_t)lseek(im->fd, 0, SEEK_END);
	if (flash_cards_check(&im->m, im->manifest_path, im->fd, path, im->size, &d) < 0)
		fixture_die("the manifest its build wrote fails the check", &d);
	im->work = fixture_copy(im->fd, im->size);
	diag_release(&d);
}

/* Builds the images once per process (LLVMFuzzerInitialize). */
static void fixture_init(const char *name)
{
	struct fixture *f = fixture();
	const char *tmp = getenv("TMPDIR");

	snprintf(f->dir, sizeof(f->dir), "%.150s/sdimg-fuzz-%s-XXXXXX",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm"
		 : tmp                         ? tmp
					       : "/tmp",
		 name);
	if (!mkdtemp(f->dir) || !(f->quiet = fopen("/dev/null", "w")))
		fixture_die("setting up", NULL);
	atexit(fixture_remove);
	for (size_t i = 0; i < FIXTURE_IMAGES; i++)
		fixture_build(i);
}

/* Each patch of @p onto @im's copy (@undo false), or the image's own bytes back there. */
static void fixture_apply(struct fixture_image *im, const struct flash_patches *p, bool undo)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct flash_patch *x = &p->v[i];
		uint8_t *buf = malloc(x->len ? x->len : 1);
		if (!buf)
			fixture_die("out of memory", NULL);
		if (undo) {
			if (pread(im->fd, buf, x->len, (off_t)x->offset) != (ssize_t)x->len)
				fixture_die("a patch beyond the image", NULL);
		} else {
			memset(buf, 0, x->len);
			memcpy(buf, x->bytes, x->len - x->zero_tail);
		}
		if (pwrite(im->work, buf, x->len, (off_t)x->offset) != (ssize_t)x->len)
			fixture_die("patching the copy", NULL);
		free(buf);
	}
}

#define FIXTURE_VARS 64

struct fixture_vars {
	struct cards_var v[FIXTURE_VARS];
	char text[FIXTURE_VARS][2][120];
	size_t n;
};

/* ${@name} is @value (GUIDs in lower case when @lower, as templates get them). */
static void fixture_var(struct fixture_vars *vs, const char *name, const char *value, bool lower)
{
	if (vs->n == FIXTURE_VARS)
		fixture_die("too many variables", NULL);
	snprintf(vs->text[vs->n][0], sizeof(vs->text[0][0]), "%s", name);
	snprintf(vs->text[vs->n][1], sizeof(vs->text[0][1]), "%s", value);
	for (char *c = vs->text[vs->n][1]; lower && *c; c++)
		*c = (char)tolower((unsigned char)*c);
	vs->v[vs->n] = (struct cards_var){ vs->text[vs->n][0], vs->text[vs->n][1] };
	vs->n++;
}

/* The ids the card @im's copy holds where @m says, as the variables templates name them by. */
static void fixture_card_ids(struct fixture_image *im, const struct cards_manifest *m,
			     struct fixture_vars *vs)
{
	struct disk k;
	struct diag d;
	char name[120], text[120];

	diag_init(&d);
	if (reader_read_disk_uncounted(&k, "card", im->work, &d) < 0)
		fixture_die("the card has no table the reader reads", &d);
	const char *disk = strncmp(k.id, "0x", 2) ? k.id : k.id + 2;
	if (m->mbr_disk_id || m->n_gpt_headers)
		fixture_var(vs, "DISK_ID", disk, true);
	for (size_t i = 0; i < m->n_parts; i++) {
		const struct disk_part *p = NULL;
		for (size_t j = 0; j < k.n_parts; j++)
			if (k.parts[j].number == m->parts[i].number)
				p = &k.parts[j];
		if (!p || (!m->mbr_disk_id && !m->parts[i].per_card_uuid))
			continue;
		snprintf(name, sizeof(name), "PARTUUID_%.100s", m->parts[i].name);
		if (m->mbr_disk_id)
			snprintf(text, sizeof(text), "%.40s-%02x", disk, m->parts[i].number);
		else
			snprintf(text, sizeof(text), "%.40s", p->uuid);
		fixture_var(vs, name, text, true);
	}
	reader_release_disk(&k);
	for (size_t i = 0; i < m->n_volumes; i++) {
		struct fat_vol *v;
		if (fat_vol_open(im->work, m->volumes[i].volume, 0, &v, &d) < 0)
			fixture_die("a volume of the card does not open", &d);
		uint32_t id = fat_vol_info(v)->volume_id;
		fat_vol_close(v);
		snprintf(name, sizeof(name), "VOLUME_ID_%.100s", m->volumes[i].partition);
		snprintf(text, sizeof(text), "%04X-%04X", id >> 16, id & 0xFFFF);
		fixture_var(vs, name, text, false);
	}
	diag_release(&d);
}

struct fixture_read {
	char *buf;
	size_t len, cap;
};

static int fixture_take(void *ctx, const void *buf, size_t len)
{
	struct fixture_read *r = ctx;

	if (r->len + len > r->cap)
		return -1;
	memcpy(r->buf + r->len, buf, len);
	r->len += len;
	return 0;
}

/* Aborts (a finding) unless each per-card file @m names on @im's copy, read through its
 * volume, holds its template filled with @given (@n, fewer than FIXTURE_VARS less the ids)
 * and the card's ids. */
static void fixture_prove(struct fixture_image *im, const struct cards_manifest *m,
			  const struct cards_var *given, size_t n)
{
	struct fixture_vars vs = { .n = 0 };
	struct diag d;

	diag_init(&d);
	for (size_t i = 0; i < n && vs.n < FIXTURE_VARS; i++)
		vs.v[vs.n++] = given[i];
	fixture_card_ids(im, m, &vs);
	for (size_t i = 0; i < m->n_files; i++) {
		const struct cards_file *f = &m->files[i];
		struct fixture_read r = { .len = 0 };
		struct fat_vol *v = NULL;
		char *want = NULL;
		if (cards_render(f->template, vs.v, vs.n, f->path, &want, &d) < 0 ||
		    !(r.buf = malloc(r.cap = strlen(want) + 1)) ||
		    fat_vol_open(im->work, f->volume, 0, &v, &d) < 0)
			fixture_die("a card's file cannot be proven", &d);
		if (fat_vol_read(v, f->path, fixture_take, &r, &d) < 0 || r.len != strlen(want) ||
		    memcmp(r.buf, want, r.len)) {
			diag_print(&d, stderr, "fuzz cards");
			fprintf(stderr, "%s: the card holds \"%.*s\", not \"%s\"\n", f->path,
				(int)r.len, r.buf, want);
			abort();
		}
		fat_vol_close(v);
		free(want);
		free(r.buf);
	}
	diag_release(&d);
}

#endif
