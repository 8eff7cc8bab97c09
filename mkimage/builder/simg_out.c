/* SPDX-License-Identifier: MIT */
/*
 * simg_out: the image as Android sparse files (builder_priv.h; the format: common/simg.h),
 * made from the map of the build, the ranges its bmap lists: mapped blocks become RAW
 * chunks (FILL where a block is one 32-bit word repeated), the rest DONT_CARE. With
 * --simg-max-size the chunks are spread over several files of at most that size, each a
 * sparse image of the whole device (DONT_CARE around its own chunks), a RAW chunk cut where
 * it does not fit, as img2simg and fastboot split. One file without a checksum is planned
 * and written in one pass (simg_plan_write()), each mapped byte of the image read once;
 * the bytes of input files copied verbatim are read from the files themselves where nothing
 * else reads the image (direct.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sha256.h"
#include "common/simg.h"
#include "mkimage/builder/builder_priv.h"

char *build_simg_name(const char *simg, size_t i, size_t n)
{
	size_t len = strlen(simg);
	char *name = NULL;

	if (!n)
		return strdup(simg);
	if (len > 5 && strcmp(simg + len - 5, ".simg") == 0)
		len -= 5;
	return asprintf(&name, "%.*s.%zu.simg", (int)len, simg, i) < 0 ? NULL : name;
}

static bool interrupted(void *build)
{
	return build_interrupted(build);
}

static void hash(void *sha, const void *p, size_t len)
{
	sha256_update(sha, p, len);
}

/* Creates the @n files; signals are held from then on (a hidden name must not outlive the
 * process). */
static int create_files(struct build *b, size_t n)
{
	const struct build_options *o = b->o;
	bool split = o->simg_max_size != 0;
	int rc = 0;

	if (!(b->simg = calloc(n, sizeof(*b->simg))) ||
	    (o->sha256 && !(b->simg_sha = calloc(n, sizeof(*b->simg_sha)))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		b->simg[i] = (struct build_file)BUILD_FILE_INIT;
	b->n_simg = n;
	if (!b->signals_blocked)
		build_hold_signals(b);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		char *name = build_simg_name(o->simg, i, split ? n : 0);
		rc = name ? build_file_create(&b->simg[i], name, "the sparse image", 0, b->d)
			  : -ENOMEM;
		free(name);
	}
	return rc;
}

static int write_files(struct build *b, const struct simg_image *im, const struct simg *s,
		       const struct simg_piece *pieces)
{
	struct sha256 *sha = NULL;
	int rc = b->o->sha256 ? sha256_new(&sha, b->d) : 0;

	for (size_t i = 0; rc == 0 && i < b->n_simg; i++) {
		struct simg_write w = {
			.image = *im,
			.out = b->simg[i].fd,
			.out_name = b->simg[i].path,
			.crc = b->o->simg_crc,
			.sink = sha ? hash : NULL,
			.sink_ctx = sha,
			.stop = interrupted,
			.stop_ctx = b,
		};
		build_progress(b, "writing", b->simg[i].path);
		rc = simg_write(s, &pieces[i], &w, b->d);
		if (rc == 0 && sha && sha256_final(sha, b->simg_sha[i]) < 0)
			rc = -EIO;
	}
	sha256_free(sha);
	return rc;
}

/* One file, no digest of it: planned and written in one pass, each byte read once. */
static int write_in_one_pass(struct build *b, const struct simg_image *im,
			     const struct simg_range *ranges)
{
	const struct build_options *o = b->o;
	int rc = simg_size_problem(b->plan->image_size, o->simg_block_size, o->simg, b->d);

	if (rc == 0)
		rc = create_files(b, 1);
	if (rc < 0)
		return rc;
	build_progress(b, "writing", b->simg[0].path);
	return simg_plan_write(b->plan->image_size, o->simg_block_size, ranges, b->map.n,
			       &(struct simg_write){ .image = *im,
						     .out = b->simg[0].fd,
						     .out_name = b->simg[0].path,
						     .crc = o->simg_crc,
						     .stop = interrupted,
						     .stop_ctx = b },
			       b->d);
}

/* The plan first, then the files: split, or with their digests. */
static int write_planned(struct build *b, const struct simg_image *im,
			 const struct simg_range *ranges)
{
	const struct build_options *o = b->o;
	struct simg_piece *pieces = NULL;
	struct simg s = { 0 };
	size_t n = 0;
	int rc = simg_size_problem(b->plan->image_size, o->simg_block_size, o->simg, b->d);

	build_progress(b, "mapping", o->simg);
	if (rc == 0)
		rc = simg_plan(im, b->plan->image_size, o->simg_block_size, ranges, b->map.n, &s,
			       b->d);
	if (rc == 0)
		rc = simg_split(&s, o->simg_max_size, o->simg_crc, &pieces, &n, b->d);
	if (rc == 0 && n > BUILD_MAX_SIMG_FILES)
		rc = diag_error(b->d,
				"%s: --simg-max-size %llu makes %zu sparse files, more than %d: "
				"give a larger size",
				o->simg, (unsigned long long)o->simg_max_size, n,
				BUILD_MAX_SIMG_FILES);
	if (rc == 0)
		rc = create_files(b, n);
	if (rc == 0)
		rc = write_files(b, im, &s, pieces);
	free(pieces);
	simg_release(&s);
	return rc;
}

int build_write_simg(struct build *b)
{
	const struct build_options *o = b->o;
	struct simg_range *ranges = calloc(b->map.n ? b->map.n : 1, sizeof(*ranges));
	struct simg_image im;
	int rc = ranges ? 0 : -ENOMEM;

	build_direct_image(b, &im);
	for (size_t i = 0; rc == 0 && i < b->map.n; i++)
		ranges[i] = (struct simg_range){ b->map.v[i].start, b->map.v[i].end };
	if (rc == 0)
		rc = o->sha256 || o->simg_max_size ? write_planned(b, &im, ranges)
						   : write_in_one_pass(b, &im, ranges);
	if (rc == 0)
		rc = build_direct_check(b);
	/* a scratch image that only fed the sparse files is let go now: freeing its pages
	 * overlaps the writeback the commit's fsync() then waits for, instead of following it */
	if (rc == 0 && !o->write_raw)
		build_file_abort(&b->image);
	if (rc == -ENOMEM)
		diag_error(b->d, "%s: out of memory", o->simg);
	free(ranges);
	return rc;
}

void build_simg_release(struct build *b)
{
	for (size_t i = 0; i < b->n_simg; i++)
		build_file_abort(&b->simg[i]);
	free(b->simg);
	free(b->simg_sha);
	b->simg = NULL;
	b->simg_sha = NULL;
	b->n_simg = 0;
}
