/* validate: rules that involve more than one key (LAYOUT.md). */
#include "layouts/read_priv.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static int check_unique_names(struct reader *r)
{
	const struct layout *l = r->l;
	size_t n = l->n_raws + l->n_parts;
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		const char *a = i < l->n_raws ? l->raws[i].name : l->parts[i - l->n_raws].name;
		struct layout_loc la = i < l->n_raws ? l->raws[i].loc : l->parts[i - l->n_raws].loc;
		for (size_t j = 0; j < i; j++) {
			const char *c = j < l->n_raws ? l->raws[j].name : l->parts[j - l->n_raws].name;
			struct layout_loc lc =
				j < l->n_raws ? l->raws[j].loc : l->parts[j - l->n_raws].loc;
			if (strcmp(a, c) == 0) {
				bad |= diag_error(r->d, "%s:%d: the name '%s' is taken (by %s:%d); "
							"raw regions and partitions need unique names",
						  la.file, la.line, a, lc.file, lc.line) < 0;
				break;
			}
		}
	}
	return bad ? -EINVAL : 0;
}

static int check_sizes(struct reader *r)
{
	const struct layout *l = r->l;
	int bad = 0;

	for (size_t i = 0; i < l->n_parts; i++) {
		const struct layout_partition *p = &l->parts[i];
		const struct layout_loc *s = &p->size_loc;
		if (p->size_kind == LAYOUT_SIZE_GROW && i + 1 < l->n_parts)
			bad |= diag_error(r->d, "%s:%d: partition '%s': size = grow is only for the "
						"last partition ('%s' comes after it)",
					  s->file, s->line, p->name, l->parts[i + 1].name) < 0;
		else if (p->size_kind == LAYOUT_SIZE_GROW && !l->image.size_set)
			bad |= diag_error(r->d, "%s:%d: partition '%s': size = grow needs the image "
						"size (image { size = ... })",
					  s->file, s->line, p->name) < 0;
		if (p->size_kind == LAYOUT_SIZE_AUTO && p->type == LAYOUT_PART_RAW && !p->from)
			bad |= diag_error(r->d, "%s:%d: partition '%s': size = auto on a raw "
						"partition needs 'from' (or give a size)",
					  s->file, s->line, p->name) < 0;
	}
	return bad ? -EINVAL : 0;
}

static int check_sd_format(struct reader *r, const struct layout_partition *p)
{
	const struct layout *l = r->l;
	const struct layout_loc *f = &p->fat.loc;
	const char *why = NULL;

	if (!p->fat.sd_format)
		return 0;
	if (l->n_parts != 1 || l->image.table != LAYOUT_TABLE_MBR)
		why = "it formats a whole card: one FAT partition on an mbr table";
	else if (p->size_kind != LAYOUT_SIZE_GROW || !l->image.size_set)
		why = "it needs the card size (image { size = ... }) and size = grow";
	else if (p->start_set || p->align_set)
		why = p->start_set ? "it chooses the partition start itself; remove 'start'"
				   : "it chooses the partition start itself; remove 'align'";
	else if (p->fat.cluster_size_set || p->fat.reserved_set || p->fat.data_align_set ||
		 p->fat.root_entries_set || p->fat.fats_set)
		why = "it chooses cluster-size, fats, root-entries, reserved and data-align itself";
	if (!why)
		return 0;
	return diag_error(r->d, "%s:%d: partition '%s': sd-format = true: %s", f->file, f->line,
			  p->name, why);
}

static int check_table_none(struct reader *r)
{
	const struct layout *l = r->l;

	if (l->image.table != LAYOUT_TABLE_NONE)
		return 0;
	if (l->n_parts > 1) {
		const struct layout_loc *s = &l->parts[1].loc;
		return diag_error(r->d, "%s:%d: partition '%s': table = none holds one partition "
					"at most (a bare file system)", s->file, s->line, l->parts[1].name);
	}
	if (l->n_parts == 1 && l->parts[0].bootable) {
		const struct layout_loc *s = &l->parts[0].loc;
		return diag_error(r->d, "%s:%d: partition '%s': bootable needs a partition table",
				  s->file, s->line, l->parts[0].name);
	}
	return 0;
}

/* Length of the directory part of @path ("/a/b" -> 2 for "/a"; "/b" -> 0). */
static size_t dir_len(const char *path)
{
	const char *slash = strrchr(path, '/');
	return (size_t)(slash - path);
}

static int check_first(struct reader *r, const struct layout_partition *p)
{
	int bad = 0;

	for (size_t i = 0; i < p->n_entries; i++) {
		const struct layout_entry *e = &p->entries[i];
		if (!e->first)
			continue;
		for (size_t j = 0; j < i; j++) {
			const struct layout_entry *o = &p->entries[j];
			size_t n = dir_len(e->path);
			if (!o->first || dir_len(o->path) != n || strncasecmp(e->path, o->path, n) ||
			    strcasecmp(e->path, o->path) == 0)
				continue;
			bad |= diag_error(r->d, "%s:%d: partition '%s': '%s' and '%s' (line %d) both "
						"ask to be first in their directory",
					  e->loc.file, e->loc.line, p->name, e->path, o->path,
					  o->loc.line) < 0;
		}
	}
	return bad ? -EINVAL : 0;
}

int layout_validate(struct reader *r)
{
	int bad = 0;

	bad |= check_unique_names(r) < 0;
	bad |= check_sizes(r) < 0;
	bad |= check_table_none(r) < 0;
	for (size_t i = 0; i < r->l->n_parts; i++) {
		bad |= check_sd_format(r, &r->l->parts[i]) < 0;
		bad |= check_first(r, &r->l->parts[i]) < 0;
	}
	return bad ? -EINVAL : 0;
}
