/* inputs: the state and inputs of a build, read and checked before anything is written. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/path.h"
#include "mkimage/builder/builder_priv.h"
#include "mkimage/contents/contents.h"

_Static_assert(LAYOUT_ATTR_READONLY == FAT_ATTR_READONLY && LAYOUT_ATTR_HIDDEN == FAT_ATTR_HIDDEN &&
		       LAYOUT_ATTR_SYSTEM == FAT_ATTR_SYSTEM && LAYOUT_ATTR_ARCHIVE == FAT_ATTR_ARCHIVE,
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
	if (!b->parts || !b->part_sizes || !b->part_starts || !b->mbr_types || !b->raw_from ||
	    !b->raw_sizes)
		return -ENOMEM;
	return 0;
}

void build_state_release(struct build *b)
{
	for (size_t i = 0; b->parts && i < b->l->n_parts; i++) {
		free(b->parts[i].from);
		content_release(&b->parts[i].content);
		fat_tree_free(b->parts[i].tree);
	}
	for (size_t i = 0; b->raw_from && i < b->l->n_raws; i++)
		free(b->raw_from[i]);
	free(b->parts);
	free(b->part_sizes);
	free(b->part_starts);
	free(b->mbr_types);
	free(b->raw_from);
	free(b->raw_sizes);
	plan_free(b->plan);
	build_file_abort(&b->image);
	build_file_abort(&b->compressed);
	build_file_abort(&b->bmap);
	build_file_abort(&b->sha256);
	build_map_release(&b->map);
}

/* A host image file: its resolved path and size; it must be a readable regular file. */
static int stat_input(struct build *b, const char *from, const struct layout_loc *loc,
		      const char *what, char **ret_path, uint64_t *ret_size)
{
	struct stat st;
	char *path = path_join(b->l->input_dir, from);

	if (!path)
		return -ENOMEM;
	*ret_path = path;
	if (stat(path, &st) < 0)
		return diag_error(b->d, "%s:%d: %s: %s: %s", loc->file, loc->line, what, path,
				  strerror(errno));
	if (!S_ISREG(st.st_mode))
		return diag_error(b->d, "%s:%d: %s: %s is not a regular file", loc->file, loc->line,
				  what, path);
	*ret_size = (uint64_t)st.st_size;
	return 0;
}

static int prepare_raws(struct build *b)
{
	int bad = 0;

	for (size_t i = 0; i < b->l->n_raws; i++) {
		const struct layout_raw *r = &b->l->raws[i];
		char what[300];
		uint64_t size = 0;
		snprintf(what, sizeof(what), "raw '%.200s'", r->name);
		int rc = stat_input(b, r->from, &r->loc, what, &b->raw_from[i], &size);
		if (rc == -ENOMEM)
			return rc;
		if (rc == 0 && r->size_set && size > r->size)
			rc = diag_error(b->d, "%s:%d: %s: %s is %llu bytes, the region has %llu",
					r->loc.file, r->loc.line, what, b->raw_from[i],
					(unsigned long long)size, (unsigned long long)r->size);
		else if (rc == 0 && size == 0 && !r->size_set)
			rc = diag_error(b->d, "%s:%d: %s: %s is empty (give the region a size)",
					r->loc.file, r->loc.line, what, b->raw_from[i]);
		b->raw_sizes[i] = r->size_set ? r->size : size;
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

static void fat_opts_of(const struct layout *l, const struct layout_partition *p,
			struct fat_opts *o)
{
	const struct layout_fat *f = &p->fat;

	*o = (struct fat_opts){
		.type = fat_type_of(p->type),
		.cluster_size = f->cluster_size_set ? f->cluster_size : 0,
		.fats = f->fats,
		.root_entries = f->root_entries_set ? f->root_entries : 0, /* 0: fat/ decides */
		.reserved = f->reserved_set ? f->reserved : 0,
		/* reserved sectors fixed by hand switch the default alignment off */
		.data_align = f->reserved_set && !f->data_align_set ? 0 : f->data_align,
		.label = f->label,
		.volume_id = f->volume_id_set ? f->volume_id : build_id_volume(l->image.seed, p->name),
		.oem_name = f->oem_name,
		.esp = is_esp(l, p),
	};
}

static int read_text(void *ctx, uint64_t off, void *buf, size_t len)
{
	memcpy(buf, (const char *)ctx + off, len);
	return 0;
}

/* The gathered files into fat/'s tree. */
static int fill_tree(struct build *b, struct part_state *ps)
{
	ps->tree = fat_tree_new(b->l->image.timestamp);
	if (!ps->tree)
		return -ENOMEM;
	int bad = 0;
	for (size_t i = 0; i < ps->content.n; i++) {
		const struct content_node *n = &ps->content.nodes[i];
		if (n->removed)
			continue;
		/* the layout's attrs are FAT's DIR_Attr bits, passed through as they are */
		struct fat_meta m = { .mtime = n->mtime, .mtime_ns = n->mtime_ns,
				      .attrs = (uint8_t)n->attrs, .first = n->first,
				      .origin = n->origin };
		struct fat_source src = { .path = n->host_path, .fd = -1,
					  .read = n->text ? read_text : NULL, .ctx = (void *)n->text,
					  .deferred = n->archive != 0 };
		int rc = n->is_dir ? fat_tree_add_dir(ps->tree, n->path, &m, b->d)
				   : fat_tree_add_file(ps->tree, n->path, n->size, &src, &m, b->d);
		if (rc == -ENOMEM)
			return rc;
		bad |= rc < 0;
	}
	return bad ? -EINVAL : 0;
}

static int prepare_partition(struct build *b, size_t i)
{
	const struct layout_partition *p = &b->l->parts[i];
	struct part_state *ps = &b->parts[i];
	char what[300];
	int rc;

	snprintf(what, sizeof(what), "partition '%.200s'", p->name);
	if (!layout_part_is_fat(p)) {
		b->mbr_types[i] = p->mbr_type;
		if (!p->from)
			return 0;
		rc = stat_input(b, p->from, &p->loc, what, &ps->from, &ps->from_size);
		if (rc == 0 && p->size_kind == LAYOUT_SIZE_AUTO && !ps->from_size)
			rc = diag_error(b->d, "%s:%d: %s: %s is empty (give the partition a size)",
					p->loc.file, p->loc.line, what, ps->from);
		if (rc == 0 && p->size_kind == LAYOUT_SIZE_AUTO)
			b->part_sizes[i] = ps->from_size;
		return rc;
	}
	fat_opts_of(b->l, p, &ps->opts);
	rc = content_gather(b->l, p, &ps->content, b->d);
	if (rc == 0)
		rc = fill_tree(b, ps);
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
