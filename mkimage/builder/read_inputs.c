/* SPDX-License-Identifier: MIT */
/* read_inputs: the state and inputs of a build, read and checked before anything is written. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/sha256.h"
#include "common/uboot_env.h"
#include "mkimage/builder/builder_priv.h"
#include "mkimage/contents/contents.h"

_Static_assert(LAYOUT_ATTR_READONLY == FAT_ATTR_READONLY && LAYOUT_ATTR_HIDDEN == FAT_ATTR_HIDDEN &&
		       LAYOUT_ATTR_SYSTEM == FAT_ATTR_SYSTEM &&
		       LAYOUT_ATTR_ARCHIVE == FAT_ATTR_ARCHIVE,
	       "a layout's attrs are FAT's DIR_Attr bits");

int build_state_init(struct build *b)
{
	size_t np = b->l->n_parts ? b->l->n_parts : 1, nr = b->l->n_raws ? b->l->n_raws : 1;

	b->parts = calloc(np, sizeof(*b->parts));
	b->part_sizes = calloc(np, sizeof(*b->part_sizes));
	b->part_starts = calloc(np, sizeof(*b->part_starts));
	b->mbr_types = calloc(np, sizeof(*b->mbr_types));
	b->raw_from = calloc(nr, sizeof(*b->raw_from));
	b->raw_sizes = calloc(nr, sizeof(*b->raw_sizes));
	b->raw_listed = calloc(nr, sizeof(*b->raw_listed));
	b->raw_envs = calloc(nr, sizeof(*b->raw_envs));
	if (!b->parts || !b->part_sizes || !b->part_starts || !b->mbr_types || !b->raw_from ||
	    !b->raw_sizes || !b->raw_listed || !b->raw_envs)
		return -ENOMEM;
	/* every build takes digests of a few bytes (ids, seeds: the built-in SHA-256 serves
	 * them); one that hashes the image (a checksum file, a bmap, the per-card manifest)
	 * loads libcrypto here, so that a libcrypto that cannot be loaded stops it before
	 * anything is read or written */
	if (b->o->sha256 || b->o->bmap || b->per_card)
		return sha256_new(&b->sha, b->d);
	return sha256_new_builtin(&b->sha, b->d);
}

void build_state_release(struct build *b)
{
	for (size_t i = 0; b->parts && i < b->l->n_parts; i++) {
		free(b->parts[i].from);
		content_release(&b->parts[i].content);
		fat_tree_free(b->parts[i].tree);
		exfat_tree_free(b->parts[i].exfat_tree);
	}
	for (size_t i = 0; b->raw_from && i < b->l->n_raws; i++)
		free(b->raw_from[i]);
	for (size_t i = 0; b->raw_envs && i < b->l->n_raws; i++)
		uboot_env_release(&b->raw_envs[i]);
	free(b->raw_envs);
	free(b->parts);
	free(b->part_sizes);
	free(b->part_starts);
	free(b->mbr_types);
	free(b->raw_from);
	free(b->raw_sizes);
	free(b->raw_listed);
	sha256_free(b->sha);
	plan_free(b->plan);
	build_file_abort(&b->image);
	build_file_abort(&b->compressed);
	build_file_abort(&b->bmap);
	build_file_abort(&b->sha256);
	build_file_abort(&b->cards);
	free(b->cards_path);
	build_map_release(&b->map);
}

/*
 * A host image file (@from, found in l->input_dirs): its resolved path and size; it must be
 * a regular file. With @missing_ok a file that does not exist is a warning, and -ENOENT.
 */
static int stat_input(const struct layout *l, const char *from, const struct layout_loc *loc,
		      const char *what, bool missing_ok, struct diag *d, char **ret_path,
		      uint64_t *ret_size, struct build_listed *ret_listed)
{
	struct stat st;
	struct diag scratch;
	char place[400], *path = NULL;
	int rc;

	snprintf(place, sizeof(place), "%s:%d: %s: ", loc->file, loc->line, what);
	diag_init(&scratch);
	rc = layout_input_path(l, from, place, missing_ok ? &scratch : d, &path);
	diag_release(&scratch);
	if (rc == -EINVAL && missing_ok) {
		diag_warning(d,
			     "%s%s is in none of the input folders (yet): its size, and what "
			     "follows from it, stay pending",
			     place, from);
		return -ENOENT;
	}
	if (rc < 0)
		return rc;
	*ret_path = path;
	if (stat(path, &st) < 0) {
		int e = errno;
		if (e != ENOENT || !missing_ok)
			return diag_error(d, "%s%s: %s", place, path, strerror(e));
		diag_warning(d,
			     "%s%s does not exist (yet): its size, and what follows from it, "
			     "stay pending",
			     place, path);
		return -ENOENT;
	}
	if (!S_ISREG(st.st_mode))
		return diag_error(d, "%s%s is not a regular file", place, path);
	*ret_size = (uint64_t)st.st_size;
	if (ret_listed)
		*ret_listed = (struct build_listed){ fileid_of(&st), (uint64_t)st.st_size };
	return 0;
}

static void input_of_raw(const struct layout *l, size_t i, const char *path,
			 struct build_input *ret)
{
	const struct layout_raw *r = &l->raws[i];

	*ret = (struct build_input){ .path = path,
				     .skip = r->skip,
				     .fill = r->fill,
				     .fill_byte = r->fill_byte,
				     .dense = r->dense,
				     .holes = r->holes,
				     .n_holes = r->n_holes,
				     .skip_loc = r->skip_loc,
				     .holes_loc = r->holes_loc };
	snprintf(ret->name, sizeof(ret->name), "raw '%.200s'", r->name);
}

static void input_of_part(const struct layout *l, size_t i, const char *path,
			  struct build_input *ret)
{
	const struct layout_partition *p = &l->parts[i];

	*ret = (struct build_input){ .path = path,
				     .skip = p->skip,
				     .fill = p->fill,
				     .fill_byte = p->fill_byte,
				     .dense = p->dense,
				     .holes = p->holes,
				     .n_holes = p->n_holes,
				     .skip_loc = p->skip_loc,
				     .holes_loc = p->holes_loc };
	snprintf(ret->name, sizeof(ret->name), "partition '%.200s'", p->name);
}

void build_input_of_raw(const struct build *b, size_t i, struct build_input *ret)
{
	input_of_raw(b->l, i, b->raw_from[i], ret);
	ret->listed = b->raw_listed[i];
}

void build_input_of_part(const struct build *b, size_t i, struct build_input *ret)
{
	input_of_part(b->l, i, b->parts[i].from, ret);
	ret->listed = b->parts[i].from_listed;
}

/*
 * The bytes @in copies from its file of @file_size bytes (those after `skip`) in *@ret;
 * `skip` must lie inside the file and the holes inside those bytes.
 */
static int input_bytes(const struct build_input *in, uint64_t file_size, struct diag *d,
		       uint64_t *ret)
{
	const struct layout_range *last = in->n_holes ? &in->holes[in->n_holes - 1] : NULL;

	if (in->skip > file_size)
		return diag_error(d, "%s:%d: %s: skip %llu is past the end of %s (%llu bytes)",
				  in->skip_loc.file, in->skip_loc.line, in->name,
				  (unsigned long long)in->skip, in->path,
				  (unsigned long long)file_size);
	*ret = file_size - in->skip;
	if (last && last->end > *ret)
		return diag_error(d,
				  "%s:%d: %s: holes: %llu-%llu ends past the %llu bytes of "
				  "%s%s",
				  in->holes_loc.file, in->holes_loc.line, in->name,
				  (unsigned long long)last->start, (unsigned long long)last->end,
				  (unsigned long long)*ret, in->path,
				  in->skip ? " after skip" : "");
	return 0;
}

/*
 * Raw region @i of @l: its input resolved and checked, and its size on the card: its `size`,
 * else its input's (after `skip`). The one place that decides how large a raw region is (the
 * plan of `sdimg plan` and of a build both come from here). With @missing_ok (`sdimg plan`)
 * a missing input is a warning and -ENOENT; the size is then 0 (pending) unless the layout
 * gives it.
 */
static int raw_region_input(const struct layout *l, size_t i, bool missing_ok, struct diag *d,
			    char **ret_path, uint64_t *ret_size, struct build_listed *ret_listed)
{
	const struct layout_raw *r = &l->raws[i];
	struct build_input in;
	uint64_t size = 0;

	*ret_size = r->size_set ? r->size : 0;
	if (!r->from)
		return 0; /* fill: the layout gives its size */
	input_of_raw(l, i, NULL, &in);
	int rc = stat_input(l, r->from, &r->loc, in.name, missing_ok, d, ret_path, &size,
			    ret_listed);
	in.path = *ret_path;
	if (rc == 0)
		rc = input_bytes(&in, size, d, &size);
	if (rc < 0)
		return rc;
	if (r->size_set && size > r->size)
		return diag_error(d, "%s:%d: %s: %s is %llu bytes%s, the region has %llu",
				  r->loc.file, r->loc.line, in.name, in.path,
				  (unsigned long long)size, r->skip ? " after skip" : "",
				  (unsigned long long)r->size);
	if (size == 0 && !r->size_set)
		return diag_error(d, "%s:%d: %s: %s is empty%s (give the region a size)",
				  r->loc.file, r->loc.line, in.name, in.path,
				  r->skip ? " after skip" : "");
	*ret_size = r->size_set ? r->size : size;
	return 0;
}

/*
 * Raw partition @i of @l with a `from`: its input resolved and checked, the bytes it copies
 * (after `skip`) in *@ret_size; with size = auto that size is what the plan rounds up.
 * @missing_ok as above.
 */
static int raw_partition_input(const struct layout *l, size_t i, bool missing_ok, struct diag *d,
			       char **ret_path, uint64_t *ret_size, struct build_listed *ret_listed)
{
	const struct layout_partition *p = &l->parts[i];
	struct build_input in;
	uint64_t file_size = 0;

	*ret_size = 0;
	input_of_part(l, i, NULL, &in);
	int rc = stat_input(l, p->from, &p->loc, in.name, missing_ok, d, ret_path, &file_size,
			    ret_listed);
	in.path = *ret_path;
	if (rc == 0)
		rc = input_bytes(&in, file_size, d, ret_size);
	if (rc == 0 && p->size_kind == LAYOUT_SIZE_AUTO && !*ret_size)
		rc = diag_error(d, "%s:%d: %s: %s is empty%s (give the partition a size)",
				p->loc.file, p->loc.line, in.name, in.path,
				p->skip ? " after skip" : "");
	return rc;
}

static int prepare_raws(struct build *b)
{
	int bad = 0;

	for (size_t i = 0; i < b->l->n_raws; i++) {
		int rc = raw_region_input(b->l, i, false, b->d, &b->raw_from[i], &b->raw_sizes[i],
					  &b->raw_listed[i]);
		if (rc == -ENOMEM)
			return rc;
		bad |= rc < 0;
	}
	return bad ? -EINVAL : 0;
}

static enum fat_type fat_type_of(enum layout_part_type t)
{
	switch (t) {
	case LAYOUT_PART_FAT12:
		return FAT_12;
	case LAYOUT_PART_FAT16:
		return FAT_16;
	case LAYOUT_PART_FAT32:
		return FAT_32;
	default:
		return FAT_AUTO;
	}
}

/* An EFI system partition: gpt-type = esp, or mbr-type 0xef (UEFI 2.10, 5.2.2 and 13.3). */
static bool is_esp(const struct layout *l, const struct layout_partition *p)
{
	const char *alias = layout_gpt_type_alias(&p->gpt_type);

	if (l->image.table == LAYOUT_TABLE_GPT)
		return alias && strcmp(alias, "esp") == 0;
	return l->image.table == LAYOUT_TABLE_MBR && p->mbr_type == 0xef;
}

/* Returns 0 or -EIO (@sha failed: its diag says so). */
static int fat_opts_of(const struct layout *l, const struct layout_partition *p, struct sha256 *sha,
		       struct fat_opts *o)
{
	const struct layout_fat *f = &p->fat;
	uint32_t volume_id = f->volume_id;
	int rc = f->volume_id_set ? 0 : build_id_volume(sha, l->image.seed, p->name, &volume_id);

	*o = (struct fat_opts){
		.type = fat_type_of(p->type),
		.cluster_size = f->cluster_size_set ? f->cluster_size : 0,
		.fats = f->fats,
		.root_entries = f->root_entries_set ? f->root_entries : 0, /* 0: fat/ decides */
		.reserved = f->reserved_set ? f->reserved : 0,
		/* reserved sectors fixed by hand switch the default alignment off */
		.data_align = f->reserved_set && !f->data_align_set ? 0 : f->data_align,
		.data_align_lower = !f->data_align_set, /* the partition's align: lowered where
							 * it leaves too little room */
		.label = f->label,
		.volume_id = volume_id,
		.oem_name = f->oem_name,
		.esp = is_esp(l, p),
	};
	return rc;
}

int build_sd_format(const struct layout *l, size_t i, struct sha256 *sha, struct diag *d,
		    struct fat_sd_layout *ret)
{
	const struct layout_partition *p = &l->parts[i];
	struct fat_opts o;
	struct diag scratch;

	if (fat_opts_of(l, p, sha, &o) < 0)
		return -EIO;
	diag_init(&scratch);
	return build_relay(d, p, &p->loc, &scratch,
			   fat_sd_format(&o, l->image.size / FAT_SECTOR, ret, &scratch));
}

/* The start of partition @i of @l, with sd-format, in *@ret (bytes): FAT's or exFAT's. */
static int sd_format_start(const struct layout *l, size_t i, struct sha256 *sha, struct diag *d,
			   uint64_t *ret)
{
	struct fat_sd_layout sd;
	struct exfat_sd_layout exfat_sd;
	int rc;

	*ret = 0;
	if (layout_part_is_exfat(&l->parts[i])) {
		rc = build_sd_format_exfat(l, i, sha, d, &exfat_sd);
		if (rc == 0)
			*ret = exfat_sd.part_start * EXFAT_SECTOR;
	} else {
		rc = build_sd_format(l, i, sha, d, &sd);
		if (rc == 0)
			*ret = (uint64_t)sd.part_start * FAT_SECTOR;
	}
	return rc;
}

/* The messages of checking an input (@rc its result) into @d, from @scratch: all of them,
 * except that a missing file whose size the plan does not wait for (@sized: the layout gives
 * the size) is not worth a warning. */
static void keep_input_messages(struct diag *d, struct diag *scratch, int rc, bool sized)
{
	if (rc != -ENOENT || !sized)
		diag_take(d, scratch);
	diag_release(scratch);
}

/* build_plan_inputs() with @sha for the ids an sd-format partition's layout takes. A `from`
 * is checked as a build checks it (skip, holes, and that it fits a size the layout gives)
 * whether or not the plan waits for its size. */
static int plan_inputs(const struct layout *l, struct sha256 *sha, struct diag *d,
		       uint64_t *raw_sizes, uint64_t *part_sizes, uint64_t *part_starts)
{
	int bad = 0;

	for (size_t i = 0; i < l->n_raws; i++) {
		char *path = NULL;
		struct diag scratch;
		diag_init(&scratch);
		int rc = raw_region_input(l, i, true, &scratch, &path, &raw_sizes[i], NULL);
		free(path);
		keep_input_messages(d, &scratch, rc, l->raws[i].size_set);
		if (rc == -ENOMEM)
			return rc;
		bad |= rc < 0 && rc != -ENOENT;
	}
	for (size_t i = 0; i < l->n_parts; i++) {
		const struct layout_partition *p = &l->parts[i];
		char *path = NULL;
		uint64_t size = 0;
		part_sizes[i] = part_starts[i] = 0;
		if (layout_part_sd_format(p)) {
			int rc = sd_format_start(l, i, sha, d, &part_starts[i]);
			bad |= rc < 0;
		}
		if (layout_part_is_fat(p) || layout_part_is_exfat(p) || !p->from)
			continue;
		struct diag scratch;
		diag_init(&scratch);
		int rc = raw_partition_input(l, i, true, &scratch, &path, &size, NULL);
		free(path);
		if (rc == 0 && p->size_kind == LAYOUT_SIZE_FIXED)
			rc = build_check_fits(p, size, p->size, "its image needs", &scratch);
		keep_input_messages(d, &scratch, rc, p->size_kind != LAYOUT_SIZE_AUTO);
		if (rc == -ENOMEM)
			return rc;
		bad |= rc < 0 && rc != -ENOENT;
		if (rc == 0 && p->size_kind == LAYOUT_SIZE_AUTO)
			part_sizes[i] = size;
	}
	return bad ? -EINVAL : 0;
}

int build_plan_inputs(const struct layout *l, struct diag *d, uint64_t *raw_sizes,
		      uint64_t *part_sizes, uint64_t *part_starts)
{
	struct sha256 *sha = NULL;
	bool sd_format = false;
	int rc = 0;

	for (size_t i = 0; i < l->n_parts; i++)
		sd_format |= layout_part_sd_format(&l->parts[i]);
	if (sd_format)
		rc = sha256_new_builtin(&sha, d);
	if (rc == 0)
		rc = plan_inputs(l, sha, d, raw_sizes, part_sizes, part_starts);
	sha256_free(sha);
	return rc;
}

static int read_text(void *ctx, uint64_t off, void *buf, size_t len)
{
	memcpy(buf, (const char *)ctx + off, len);
	return 0;
}

/* Node @n of the model, gathered for partition @p, into its tree in @ps (fat/'s or
 * exfat/'s, which take the same sources and metadata). */
static int add_to_tree(struct build *b, const struct layout_partition *p, struct part_state *ps,
		       const struct content_node *n)
{
	char host[CONTENT_HOST_PATH_MAX];
	const char *host_path = content_host_path(n, host, sizeof(host));
	/* the layout's attrs are FAT's DIR_Attr bits, passed through as they are; a host
	 * file's origin is the same string as its path (fat/ stores it once) */
	struct fat_meta m = { .mtime = n->mtime,
			      .mtime_ns = n->mtime_ns,
			      .attrs = (uint8_t)n->attrs,
			      .first = n->first,
			      .origin = n->origin ? n->origin : host_path };
	struct fat_source src = { .path = host_path,
				  .listed = n->host_id,
				  .fd = -1,
				  .read = content_text(n) ? read_text : NULL,
				  .ctx = (void *)content_text(n),
				  .deferred = n->archive != 0 };

	if (!n->is_dir && p->entries[n->source].per_card)
		m.reserve = p->entries[n->source].reserve;
	if (ps->exfat_tree)
		return n->is_dir ? exfat_tree_add_dir(ps->exfat_tree, n->path, &m, b->d)
				 : exfat_tree_add_file(ps->exfat_tree, n->path, n->size, &src, &m,
						       b->d);
	return n->is_dir ? fat_tree_add_dir(ps->tree, n->path, &m, b->d)
			 : fat_tree_add_file(ps->tree, n->path, n->size, &src, &m, b->d);
}

/*
 * The gathered files into fat/'s or exfat/'s tree, from the last to the first (a folder's metadata is
 * the same whether it comes before or after what it holds). What fat/ copied is freed from
 * the model as it goes: without archives the model is taken apart from its end, so a tree of
 * many files is never held twice; with them, all but what the data pass reads. A layout with
 * per-card values keeps the model whole: the card manifest is made from it.
 */
static int fill_tree(struct build *b, const struct layout_partition *p, struct part_state *ps)
{
	struct content *c = &ps->content;
	bool data_pass = c->n_archives != 0,
	     keep = b->per_card; /* the manifest is made from the model */
	int bad = 0;

	/* the model is no longer searched; its index gives its room to the tree's, which is
	 * made as large as the model's nodes need at once (not grown, held twice, as they
	 * come) */
	if (!data_pass && !keep)
		content_drop_index(c);
	if (layout_part_is_exfat(p))
		ps->exfat_tree = exfat_tree_new(b->l->image.timestamp);
	else
		ps->tree = fat_tree_new(b->l->image.timestamp);
	if (!ps->tree && !ps->exfat_tree)
		return -ENOMEM;
	if ((ps->tree ? fat_tree_expect(ps->tree, c->n) : exfat_tree_expect(ps->exfat_tree, c->n)) <
	    0)
		return -ENOMEM;
	for (size_t i = c->n; i-- > 0;) {
		int rc = c->nodes[i].removed ? 0 : add_to_tree(b, p, ps, &c->nodes[i]);
		if (rc == -ENOMEM)
			return rc;
		bad |= rc < 0;
		if (keep)
			continue;
		if (data_pass)
			content_shed(c, i);
		else
			content_drop_last(c);
	}
	if (!data_pass && !keep)
		content_release(c);
	return bad ? -EINVAL : 0;
}

static int prepare_partition(struct build *b, size_t i)
{
	const struct layout_partition *p = &b->l->parts[i];
	struct part_state *ps = &b->parts[i];
	int rc;

	if (!layout_part_is_fat(p) && !layout_part_is_exfat(p)) {
		b->mbr_types[i] = p->mbr_type;
		if (p->type == LAYOUT_PART_EXT4 && (rc = build_check_ext4(b, i)) < 0)
			return rc;
		if (p->type == LAYOUT_PART_EXT4 && p->size_kind == LAYOUT_SIZE_AUTO)
			return build_measure_ext4(b, i, &b->part_sizes[i]);
		if (!p->from)
			return 0;
		rc = raw_partition_input(b->l, i, false, b->d, &ps->from, &ps->from_size,
					 &ps->from_listed);
		if (rc == 0 && p->size_kind == LAYOUT_SIZE_AUTO)
			b->part_sizes[i] = ps->from_size;
		return rc;
	}
	if (layout_part_is_exfat(p))
		rc = build_exfat_opts(b->l, p, b->sha, &ps->exfat_opts, ps->exfat_guid);
	else
		rc = fat_opts_of(b->l, p, b->sha, &ps->opts);
	if (rc == 0)
		rc = content_gather(b->l, p, &ps->content, b->d);
	if (rc == 0)
		rc = fill_tree(b, p, ps);
	return rc;
}

int build_read_inputs(struct build *b)
{
	int bad = prepare_raws(b) < 0;

	for (size_t i = 0; i < b->l->n_parts; i++) {
		int rc = prepare_partition(b, i);
		if (rc == -ENOMEM)
			return rc;
		bad |= rc < 0;
	}
	return bad ? -EINVAL : 0;
}
