/* SPDX-License-Identifier: MIT */
/*
 * build: layout -> contents -> plan -> one image file (see builder.h).
 * The contents are gathered first, so `size = auto` is the exact smallest size that holds
 * them; then every byte range is planned, and each region is written once.
 */
#include "mkimage/builder/builder.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/units.h"
#include "mkimage/builder/builder_priv.h"
#include "mkimage/builder/output.h"
#include "mkimage/builder/tables.h"

static bool interrupted(void *build)
{
	return build_interrupted(build);
}

/* An image without per-card values has no manifest: one an earlier build left beside it
 * would describe another image. A name too long for its file system holds nothing to
 * remove. */
static void drop_old_cards(struct build *b)
{
	char *old = NULL;

	if (asprintf(&old, "%s" BUILD_CARDS_SUFFIX, b->o->output) < 0)
		return;
	if (unlink(old) < 0 && errno != ENOENT && errno != ENAMETOOLONG)
		diag_warning(b->d, "%s: %s (it belongs to an earlier image)", old, strerror(errno));
	free(old);
}

/* With --simg-max-size, removes the numbered sparse files past this build's last that an
 * earlier build with more pieces left (NAME.5.simg after a build of 3): flashed, or given
 * to simg2img by a glob, they would overwrite this image's bytes with the older one's. */
static void drop_stale_pieces(struct build *b)
{
	for (size_t i = b->n_simg; b->o->simg_max_size && i < BUILD_MAX_SIMG_FILES; i++) {
		char *old = build_simg_name(b->o->simg, i, BUILD_MAX_SIMG_FILES);
		if (old && unlink(old) < 0 && errno != ENOENT && errno != ENAMETOOLONG)
			diag_warning(b->d, "%s: %s (a piece of an earlier image: remove it)", old,
				     strerror(errno));
		free(old);
	}
}

/* Removes the hidden names that dead builds (SIGKILL, a crash: no lock held) left for
 * @output + @suffix. */
static void remove_dead_of(const char *output, const char *suffix)
{
	char *name = NULL;

	if (asprintf(&name, "%s%s", output, suffix) < 0)
		return;
	build_file_remove_dead(name);
	free(name);
}

/* Every name a build derives from the image's (the bmap, the checksums, the compressed
 * copies, the per-card manifest) is the build's whether or not this one writes it: the
 * hidden names that killed builds left for them go, else a build with --bmap killed and
 * then one without would leave the bmap's hidden name for good. */
static void remove_dead_derived(const struct build *b)
{
	static const enum build_compression kinds[] = { BUILD_COMPRESS_ZSTD, BUILD_COMPRESS_XZ,
							BUILD_COMPRESS_GZIP };

	remove_dead_of(b->o->output, ".bmap");
	remove_dead_of(b->o->output, ".sha256");
	remove_dead_of(b->o->output, BUILD_CARDS_SUFFIX);
	remove_dead_of(b->o->output, ".simg");
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		remove_dead_of(b->o->output, build_compression_suffix(kinds[i]));
}

/* Puts every output in place together: the image (unless only its compressed copy is
 * wanted), the compressed copy, the bmap, the checksums, the per-card manifest (or no
 * manifest: an older one goes). The set is locked meanwhile: another build to the same
 * names puts its set in place before or after, never files of both. */
static int commit(struct build *b)
{
	struct build_file *files[BUILD_MAX_FILES];
	const char *names[BUILD_MAX_FILES];
	struct build_lock lock;
	size_t n = 0;

	if (b->o->write_raw)
		files[n++] = &b->image;
	if (b->o->compress)
		files[n++] = &b->compressed;
	if (b->o->bmap)
		files[n++] = &b->bmap;
	if (b->o->sha256)
		files[n++] = &b->sha256;
	if (b->cards_path)
		files[n++] = &b->cards;
	for (size_t i = 0; i < b->n_simg; i++)
		files[n++] = &b->simg[i];
	for (size_t i = 0; i < n; i++)
		names[i] = files[i]->path;
	if (!b->o->write_raw) /* the manifest's folder, which a build without one cleans */
		names[n] = b->o->output;
	/* waits while another build puts its set in place; before the signals are held
	 * where nothing has a name yet, so that one may end the wait */
	int rc = build_files_lock(names, n + !b->o->write_raw, &lock);
	if (rc < 0)
		return rc;
	if (!b->signals_blocked) /* the files get names now: no signal may leave them behind */
		build_hold_signals(b);
	rc = build_interrupted(b) ? -EINTR : build_files_commit(files, n, interrupted, b, b->d);
	build_file_abort(&b->image); /* when it was not committed: the unnamed file goes */
	b->placed = rc == 0;
	if (rc == 0 && !b->cards_path)
		drop_old_cards(b);
	if (rc == 0 && b->o->simg)
		drop_stale_pieces(b);
	if (rc == 0)
		remove_dead_derived(b);
	build_files_unlock(&lock);
	return rc;
}

/* Whether @l has per-card values: a build writes a per-card manifest for them. */
static bool has_per_card_values(const struct layout *l)
{
	bool any = l->image.disk_id_per_card;

	for (size_t i = 0; i < l->n_raws; i++)
		for (size_t k = 0; l->raws[i].env && k < l->raws[i].env->n_vars; k++)
			any |= l->raws[i].env->vars[k].per_card;

	for (size_t i = 0; i < l->n_parts; i++) {
		const struct layout_partition *p = &l->parts[i];
		any |= layout_part_is_fat(p) && p->fat.volume_id_per_card;
		for (size_t k = 0; k < p->n_entries; k++) /* FAT's and exFAT's */
			any |= p->entries[k].per_card;
	}
	return any;
}

/* Every output's name fits its file system: before any work. The per-card manifest's is
 * checked only for a layout with per-card values: without them no manifest is written
 * (and none can be at a name too long). */
static int check_output_names(const struct layout *l, const struct build_options *o, struct diag *d)
{
	int rc = o->write_raw ? build_file_check_name(o->output, "the image", d) : 0;

	if (rc == 0 && o->compress)
		rc = build_file_check_name(o->compressed, "the compressed image", d);
	if (rc == 0 && o->bmap)
		rc = build_file_check_name(o->bmap, "the bmap", d);
	if (rc == 0 && o->sha256)
		rc = build_file_check_name(o->sha256, "the checksum file", d);
	if (rc == 0 && o->simg) {
		char *last = build_simg_name(o->simg, BUILD_MAX_SIMG_FILES - 1,
					     o->simg_max_size ? BUILD_MAX_SIMG_FILES : 0);
		rc = last ? build_file_check_name(last, "the sparse image", d) : -ENOMEM;
		free(last);
	}
	/* personalize and flash --card-values write a card's values into one whole image;
	 * pieces of it would each need the manifest, and none could be personalized */
	if (rc == 0 && o->simg_max_size && has_per_card_values(l))
		return diag_error(d,
				  "%s: the layout has per-card values, which pieces of a sparse "
				  "image cannot take: build it without --simg-max-size and "
				  "personalize or flash that",
				  l->path);
	if (rc == 0 && has_per_card_values(l)) {
		char *cards = NULL;
		if (asprintf(&cards, "%s" BUILD_CARDS_SUFFIX, o->output) < 0)
			return -ENOMEM;
		rc = build_file_check_name(cards, "the per-card manifest", d);
		free(cards);
	}
	return rc;
}

static int write_everything(struct build *b)
{
	/* held from before its creation: a signal between the creation of a hidden name and
	 * the hold would leave the name behind; an unnamed image lets one end the process */
	build_hold_signals(b);
	/* with only the compressed copy wanted, the image is never put at its name */
	int rc = (b->o->write_raw ? build_file_create
				  : build_file_create_scratch)(&b->image, b->o->output, "the image",
							       b->plan->image_size, b->d);

	if (rc == 0 && !b->image.tmp_path)
		build_release_signals(b);
	if (rc < 0)
		return rc;
	build_follow_start(b);
	rc = build_write_table(b->l, b->plan, b->mbr_types, b->image.fd, b->o->output, b->sha,
			       b->d);
	if (rc == 0)
		rc = build_map_add_tables(&b->map, b->plan);
	if (rc == 0)
		rc = build_write_raw_regions(b);
	if (rc == 0)
		build_follow_advance(b, b->l->n_parts, 0);
	if (rc == 0)
		rc = build_write_partitions(b);
	if (rc == 0)
		rc = build_write_cards(b);
	if (rc == 0 && build_interrupted(b))
		rc = -EINTR;
	if (rc == 0)
		rc = build_finish(b);
	build_follow_stop(b); /* (taken by build_finish() when it got that far) */
	if (rc == 0)
		rc = commit(b);
	return rc;
}

/* What is on disk at @path, for people: its size ("12.5 MiB"), or "?". */
static void size_on_disk(const char *path, bool allocated, char *buf, size_t n)
{
	struct stat st;

	if (stat(path, &st) < 0)
		snprintf(buf, n, "?");
	else
		units_human(allocated ? (uint64_t)st.st_blocks * 512 : (uint64_t)st.st_size, buf,
			    n);
}

/* The sparse files: "card.simg: 301 MiB sparse image, blocks of 4 KiB", or for several,
 * the first and last names and their number. */
static void report_simg(struct build *b)
{
	const struct build_options *o = b->o;
	char *first = build_simg_name(o->simg, 0, o->simg_max_size ? b->n_simg : 0);
	char *last = build_simg_name(o->simg, b->n_simg - 1, o->simg_max_size ? b->n_simg : 0);
	uint64_t total = 0;
	char size[32];

	for (size_t i = 0; first && last && i < b->n_simg; i++) {
		struct stat st;
		char *name = build_simg_name(o->simg, i, o->simg_max_size ? b->n_simg : 0);
		if (name && stat(name, &st) == 0)
			total += (uint64_t)st.st_size;
		free(name);
	}
	units_human(total, size, sizeof(size));
	if (first && last && b->n_simg > 1)
		fprintf(o->report, "%s .. %s: %zu sparse files, %s, blocks of %u bytes\n", first,
			last, b->n_simg, size, o->simg_block_size);
	else if (first)
		fprintf(o->report, "%s: %s sparse image, blocks of %u bytes\n", first, size,
			o->simg_block_size);
	free(first);
	free(last);
}

static void report(struct build *b, double secs)
{
	const struct build_options *o = b->o;
	char size[32], written[32], mapped[32];
	size_t parts = 0;

	for (size_t i = 0; i < b->plan->n_regions; i++)
		parts += b->plan->regions[i].kind == PLAN_PARTITION;
	units_human(b->plan->image_size, size, sizeof(size));
	/* what the file holds on disk: the bytes that are not zero */
	/* the file that stands for the image: the raw one, else the compressed one, else the
	 * first sparse file */
	char *simg0 = o->write_raw || o->compress
			      ? NULL
			      : build_simg_name(o->simg, 0, o->simg_max_size ? b->n_simg : 0);
	const char *main_name = o->write_raw ? o->output : o->compress ? o->compressed : simg0;
	if (!main_name)
		return;
	size_on_disk(main_name, o->write_raw, written, sizeof(written));
	fprintf(o->report, "%s: %s image, %zu partition%s, %s written in %.2f s\n", main_name, size,
		parts, parts == 1 ? "" : "s", written, secs);
	free(simg0);
	if (o->compress && o->write_raw) {
		size_on_disk(o->compressed, false, written, sizeof(written));
		fprintf(o->report, "%s: %s compressed\n", o->compressed, written);
	}
	if (o->bmap) {
		units_human(build_map_bytes(&b->map, b->plan->image_size), mapped, sizeof(mapped));
		fprintf(o->report, "%s: %s mapped in %zu range%s\n", o->bmap, mapped, b->map.n,
			b->map.n == 1 ? "" : "s");
	}
	if (o->simg)
		report_simg(b);
	if (o->sha256)
		fprintf(o->report, "%s: SHA-256 of the image file%s\n", o->sha256,
			(size_t)o->write_raw + (o->compress != BUILD_COMPRESS_NONE) + b->n_simg > 1
				? "s"
				: "");
}

/* One build of the image; an ext4 partition whose size was counted, and whose build took
 * other than the count said, sets *@redo (its messages are then to be dropped) and
 * @ext4[i], how the build again sizes it. */
static int build_once(const struct layout *l, const struct build_options *o, struct diag *d,
		      struct build_ext4_redo *ext4, bool *redo)
{
	struct build b = { .l = l,
			   .ext4_redo = ext4,
			   .o = o,
			   .d = d,
			   .image = BUILD_FILE_INIT,
			   .compressed = BUILD_FILE_INIT,
			   .bmap = BUILD_FILE_INIT,
			   .sha256 = BUILD_FILE_INIT,
			   .cards = BUILD_FILE_INIT,
			   .per_card = has_per_card_values(l) };
	int rc;

	b.direct.on = build_direct_wanted(o, b.per_card);
	clock_gettime(CLOCK_MONOTONIC, &b.t0);
	build_stop_signals(&b.stop_signals);
	b.tty = isatty(STDERR_FILENO) && o->verbosity != BUILD_QUIET;
	rc = check_output_names(l, o, d);
	if (rc == 0)
		rc = build_state_init(&b);
	if (rc == 0)
		rc = build_read_inputs(&b);
	if (rc == 0)
		rc = build_plan_with_contents(&b);
	if (rc == 0)
		rc = build_choose_geometries(&b);
	if (rc == 0 && o->verbosity == BUILD_VERBOSE)
		build_report_partitions(&b);
	if (rc == 0)
		rc = write_everything(&b);
	build_progress_done(&b);
	if (rc == 0 && o->verbosity != BUILD_QUIET)
		report(&b, build_seconds(&b));
	build_state_release(&b);
	/* once the outputs are being put in place a signal can no longer change the outcome:
	 * on success the held signals stay blocked (the caller exits with success, and a
	 * pending one dies with the process); on failure a pending one ends the process now,
	 * every file of the build removed and the older ones untouched */
	build_simg_release(&b);
	build_direct_release(&b);
	if (b.signals_blocked && !b.placed)
		build_release_signals(&b);
	*redo = rc == -EAGAIN && b.redo;
	if (*redo)
		return rc;
	if (rc == -ENOMEM)
		return diag_errno(d, rc, "%s: out of memory", o->output);
	return rc < 0 ? rc : d->errors ? -EINVAL : 0;
}

int build_image_file(const struct layout *l, const struct build_options *o, struct diag *d)
{
	struct build_ext4_redo *ext4 = calloc(l->n_parts ? l->n_parts : 1, sizeof(*ext4));
	bool redo = false;
	struct diag first;

	if (!ext4)
		return diag_errno(d, -ENOMEM, "%s: out of memory", o->output);
	diag_init(&first);
	int rc = build_once(l, o, &first, ext4, &redo);
	if (redo) {
		diag_release(&first);
		rc = build_once(l, o, d, ext4, &redo);
	} else {
		diag_take(d, &first);
	}
	free(ext4);
	return rc;
}
