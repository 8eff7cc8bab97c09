/* SPDX-License-Identifier: MIT */
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
			const char *c = j < l->n_raws ? l->raws[j].name
						      : l->parts[j - l->n_raws].name;
			struct layout_loc lc = j < l->n_raws ? l->raws[j].loc
							     : l->parts[j - l->n_raws].loc;
			if (strcmp(a, c) == 0) {
				bad |= diag_error(r->d,
						  "%s:%d: the name '%s' is taken (by %s:%d); "
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
			bad |= diag_error(r->d,
					  "%s:%d: partition '%s': size = grow is only for the "
					  "last partition ('%s' comes after it)",
					  s->file, s->line, p->name, l->parts[i + 1].name) < 0;
		else if (p->size_kind == LAYOUT_SIZE_GROW && !l->image.size_set)
			bad |= diag_error(r->d,
					  "%s:%d: partition '%s': size = grow needs the image "
					  "size (image { size = ... })",
					  s->file, s->line, p->name) < 0;
		if (p->size_kind == LAYOUT_SIZE_AUTO && p->type == LAYOUT_PART_RAW && !p->from)
			bad |= diag_error(r->d,
					  "%s:%d: partition '%s': size = auto on a raw "
					  "partition needs 'from' (or give a size)",
					  s->file, s->line, p->name) < 0;
	}
	return bad ? -EINVAL : 0;
}

/* What the SD formatter's rules choose that the layout set anyway (NULL: nothing). */
static const char *sd_format_chooses(const struct layout_partition *p)
{
	const struct layout_fat *f = &p->fat;
	const struct layout_exfat *x = &p->exfat;

	if (layout_part_is_exfat(p))
		return x->cluster_size_set || x->data_align_set
			       ? "it chooses cluster-size and data-align itself"
			       : NULL;
	if (f->cluster_size_set || f->reserved_set || f->data_align_set || f->root_entries_set ||
	    f->fats_set)
		return "it chooses cluster-size, fats, root-entries, reserved and data-align "
		       "itself";
	return NULL;
}

static int check_sd_format(struct reader *r, const struct layout_partition *p)
{
	const struct layout *l = r->l;
	const struct layout_loc *f = layout_part_is_exfat(p) ? &p->exfat.loc : &p->fat.loc;
	const char *why = NULL;

	if (!layout_part_sd_format(p))
		return 0;
	if (l->n_parts != 1 || l->image.table != LAYOUT_TABLE_MBR)
		why = layout_part_is_exfat(p)
			      ? "it formats a whole card: one exFAT partition on an mbr table"
			      : "it formats a whole card: one FAT partition on an mbr table";
	else if (p->size_kind != LAYOUT_SIZE_GROW || !l->image.size_set)
		why = "it needs the card size (image { size = ... }) and size = grow";
	else if (p->start_set || p->align_set)
		why = p->start_set ? "it chooses the partition start itself; remove 'start'"
				   : "it chooses the partition start itself; remove 'align'";
	else
		why = sd_format_chooses(p);
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
		return diag_error(r->d,
				  "%s:%d: partition '%s': table = none holds one partition "
				  "at most (a bare file system)",
				  s->file, s->line, l->parts[1].name);
	}
	if (l->n_parts == 1 && l->parts[0].bootable) {
		const struct layout_loc *s = &l->parts[0].loc;
		return diag_error(r->d, "%s:%d: partition '%s': bootable needs a partition table",
				  s->file, s->line, l->parts[0].name);
	}
	return 0;
}

/* The first partition or region past @max of those that @counts; NULL when there are not
 * that many. */
static const struct layout_loc *past_limit(const struct layout *l, size_t max, bool in_table,
					   size_t *ret_n)
{
	const struct layout_loc *past = NULL;
	size_t n = in_table ? 0 : l->n_raws;

	if (n > max)
		past = &l->raws[max].loc;
	for (size_t i = 0; i < l->n_parts; i++) {
		if (l->parts[i].in_table != in_table)
			continue;
		if (n++ == max && !past)
			past = &l->parts[i].loc;
	}
	*ret_n = n;
	return past;
}

/* The table's own limit, checked before anything that grows with the count. */
static int check_counts(struct reader *r)
{
	const struct layout *l = r->l;
	size_t max = l->image.table == LAYOUT_TABLE_GPT ? LAYOUT_GPT_MAX_PARTITIONS
							: LAYOUT_MBR_MAX_PARTITIONS;
	const char *what = l->image.table == LAYOUT_TABLE_GPT
				   ? "a GPT holds %zu at most"
				   : "an MBR holds %zu at most (3 primary and 56 logical)";
	const struct layout_loc *past;
	size_t n;
	char why[64];

	if (l->image.table != LAYOUT_TABLE_NONE && (past = past_limit(l, max, true, &n))) {
		snprintf(why, sizeof(why), what, max);
		return diag_error(r->d, "%s:%d: %zu partitions in the table: %s", past->file,
				  past->line, n, why);
	}
	if ((past = past_limit(l, LAYOUT_MAX_UNTABLED, false, &n)))
		return diag_error(r->d,
				  "%s:%d: %zu raw regions and partitions out of the table: "
				  "a layout holds %d at most",
				  past->file, past->line, n, LAYOUT_MAX_UNTABLED);
	return 0;
}

/* A hybrid MBR has four entries: the 0xEE one and up to three mirrored partitions. */
static int check_hybrid(struct reader *r)
{
	const struct layout *l = r->l;
	const struct layout_partition *mirrored[3];
	size_t n = 0;

	if (!l->image.hybrid)
		return 0;
	for (size_t i = 0; i < l->n_parts; i++) {
		const struct layout_partition *p = &l->parts[i];
		if (!p->hybrid)
			continue;
		if (n == 3)
			return diag_error(r->d,
					  "%s:%d: partition '%s': hybrid = true: a hybrid MBR "
					  "mirrors three partitions at most ('%s', '%s' and '%s' "
					  "already)",
					  p->hybrid_loc.file, p->hybrid_loc.line, p->name,
					  mirrored[0]->name, mirrored[1]->name, mirrored[2]->name);
		mirrored[n++] = p;
	}
	if (n == 0)
		return diag_error(r->d,
				  "%s:%d: image: table = hybrid mirrors no partition in its "
				  "MBR: set hybrid = true on one to three partitions (or use "
				  "table = gpt)",
				  l->image.table_loc.file, l->image.table_loc.line);
	return 0;
}

/* A partition of an mbr table at or after the extended entry: logical unless `primary`, and
 * then every later one primary too, with four MBR entries in all. */
static int check_after_extended(struct reader *r, const struct layout_partition *p, unsigned ext,
				unsigned *entries, const struct layout_partition **forced)
{
	if (p->primary) {
		if (!*forced)
			*forced = p;
		if (++*entries <= 4)
			return 0;
		return diag_error(r->d,
				  "%s:%d: partition '%s': primary = true: the MBR has four "
				  "entries, and the extended partition is entry %u: %u primary "
				  "partitions after it do not fit (set extended-partition lower)",
				  p->primary_loc.file, p->primary_loc.line, p->name, ext,
				  *entries - ext);
	}
	if (!*forced)
		return 1;
	return diag_error(r->d,
			  "%s:%d: partition '%s' would be a logical partition after the "
			  "primary partition '%s' (primary = true): list the logical partitions "
			  "first, or make this one primary too",
			  p->loc.file, p->loc.line, p->name, (*forced)->name);
}

/* Which partitions of an mbr table are primary, which logical: extended-partition and
 * primary (layout_extended_slot()). */
static int check_mbr_entries(struct reader *r)
{
	const struct layout *l = r->l;
	const struct layout_partition *forced = NULL;
	unsigned ext = layout_extended_slot(l), k = 0, entries = ext, logical = 0;
	int bad = 0;

	for (size_t i = 0; l->image.table == LAYOUT_TABLE_MBR && i < l->n_parts; i++) {
		const struct layout_partition *p = &l->parts[i];
		if (!p->in_table)
			continue;
		if (!ext || ++k < ext) {
			if (p->primary)
				bad |= diag_error(r->d,
						  "%s:%d: partition '%s': primary = true is for a "
						  "partition listed after logical ones; this one "
						  "is "
						  "primary already",
						  p->primary_loc.file, p->primary_loc.line,
						  p->name) < 0;
			continue;
		}
		int rc = check_after_extended(r, p, ext, &entries, &forced);
		bad |= rc < 0;
		logical += rc > 0;
		if (rc > 0 && logical == LAYOUT_MBR_MAX_LOGICAL + 1)
			bad |= diag_error(r->d,
					  "%s:%d: partition '%s': %u logical partitions: an MBR "
					  "holds %d at most (numbers 5 to 60, the most fdisk and "
					  "sfdisk handle)",
					  p->loc.file, p->loc.line, p->name, logical,
					  LAYOUT_MBR_MAX_LOGICAL) < 0;
	}
	if (ext && !logical && !bad) {
		const struct layout_loc *loc = l->image.extended_loc.file ? &l->image.extended_loc
									  : &l->image.loc;
		return diag_error(r->d,
				  "%s:%d: image: extended-partition = %u: no partition would "
				  "be logical in it (the table holds %u partitions, and primary = "
				  "true keeps a partition out)",
				  loc->file, loc->line, ext, k);
	}
	return bad ? -EINVAL : 0;
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
			if (!o->first || dir_len(o->path) != n ||
			    strncasecmp(e->path, o->path, n) || strcasecmp(e->path, o->path) == 0)
				continue;
			bad |= diag_error(r->d,
					  "%s:%d: partition '%s': '%s' and '%s' (line %d) both "
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

	if (check_counts(r) < 0)
		return -EINVAL;
	bad |= check_unique_names(r) < 0;
	bad |= check_sizes(r) < 0;
	bad |= check_table_none(r) < 0;
	bad |= check_hybrid(r) < 0;
	bad |= check_mbr_entries(r) < 0;
	for (size_t i = 0; i < r->l->n_parts; i++) {
		bad |= check_sd_format(r, &r->l->parts[i]) < 0;
		bad |= check_first(r, &r->l->parts[i]) < 0;
	}
	return bad ? -EINVAL : 0;
}
