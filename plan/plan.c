/* SPDX-License-Identifier: MIT */
/*
 * plan: every byte range of the image, resolved from the layout without any I/O.
 * Table geometry: MBR (bytes 440-511: disk signature, four entries, 0x55AA), EBRs one
 * sector before each logical partition, GPT header at LBA 1, 128 entries of 128 bytes at
 * `gpt-entries`, backup entries and header in the last 33 sectors unless gpt-backup =
 * false (UEFI 2.10, 5.3).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "layouts/layouts.h"
#include "plan/plan.h"
#include "plan/plan_priv.h"

const char *plan_kind_name(enum plan_kind k)
{
	static const char *const names[] = { "partition",  "raw",         "mbr",       "ebr",
					     "gpt-header", "gpt-entries", "gpt-backup" };
	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

uint64_t plan_alignment_of(uint64_t offset)
{
	uint64_t a = 1;

	if (offset == 0)
		return 0;
	while (a < (1ull << 40) && offset % (a * 2) == 0)
		a *= 2;
	return a;
}

uint64_t plan_align_up(uint64_t v, uint64_t a)
{
	uint64_t r = v % a;
	return r ? v + (a - r) : v;
}

int plan_add_region(struct planner *pl, const struct plan_region *r)
{
	struct plan *p = pl->p;

	if (array_grow((void **)&p->regions, &pl->cap, p->n_regions + 1, sizeof(*p->regions)) < 0)
		return -ENOMEM;
	p->regions[p->n_regions++] = *r;
	return 0;
}

static int add_front_tables(struct planner *pl)
{
	const struct layout_image *im = &pl->l->image;
	struct plan_region r = { .loc = im->loc };
	int rc = 0;

	if (im->table == LAYOUT_TABLE_NONE)
		return 0;
	r.kind = PLAN_MBR;
	r.name = im->hybrid                      ? "hybrid-mbr"
		 : im->table == LAYOUT_TABLE_GPT ? "protective-mbr"
						 : "mbr";
	r.start = MBR_TABLE_START;
	r.size = LAYOUT_SECTOR - MBR_TABLE_START;
	rc = plan_add_region(pl, &r);
	if (rc || im->table != LAYOUT_TABLE_GPT)
		return rc;
	r = (struct plan_region){ .kind = PLAN_GPT_HEADER,
				  .name = "gpt-header",
				  .start = LAYOUT_SECTOR,
				  .size = LAYOUT_SECTOR,
				  .loc = im->loc };
	rc = plan_add_region(pl, &r);
	r = (struct plan_region){ .kind = PLAN_GPT_ENTRIES,
				  .name = "gpt-entries",
				  .start = im->gpt_entries,
				  .size = GPT_ENTRIES_BYTES,
				  .loc = im->gpt_entries_loc.file ? im->gpt_entries_loc : im->loc };
	pl->p->first_usable = im->gpt_entries + GPT_ENTRIES_BYTES;
	return rc ? rc : plan_add_region(pl, &r);
}

static int add_raws(struct planner *pl)
{
	const struct layout *l = pl->l;

	for (size_t i = 0; i < l->n_raws; i++) {
		const struct layout_raw *raw = &l->raws[i];
		uint64_t known = pl->in && pl->in->raw_sizes ? pl->in->raw_sizes[i] : 0;
		struct plan_region r = {
			.kind = PLAN_RAW,
			.name = raw->name,
			.start = raw->offset,
			.raw = raw,
			.size = raw->size_set ? raw->size : known,
			.loc = raw->loc,
		};
		r.size_pending = r.size == 0;
		int rc = plan_add_region(pl, &r);
		if (rc)
			return rc;
	}
	return 0;
}

/* The bytes the backup GPT takes at the end of the image: none without a GPT or with
 * gpt-backup = false. */
static uint64_t backup_bytes(const struct planner *pl)
{
	const struct layout_image *im = &pl->l->image;

	return im->table == LAYOUT_TABLE_GPT && im->gpt_backup ? GPT_BACKUP_BYTES : 0;
}

static uint64_t image_end_limit(const struct planner *pl)
{
	/* without a size the image ends where its last region does: nothing grows to it */
	uint64_t size = pl->l->image.size_set ? pl->l->image.size : 0;

	return size >= backup_bytes(pl) ? size - backup_bytes(pl) : size;
}

static int set_image_size(struct planner *pl)
{
	struct plan *p = pl->p;
	uint64_t end = 0, backup = backup_bytes(pl);

	if (pl->l->image.size_set) {
		p->image_size = pl->l->image.size;
	} else {
		for (size_t i = 0; i < p->n_regions; i++) {
			const struct plan_region *r = &p->regions[i];
			if (r->start_pending || r->size_pending)
				p->image_size_pending = true;
			else if (r->start + r->size > end)
				end = r->start + r->size;
		}
		p->image_size = plan_align_up(end, p->align) + backup;
		if (p->image_size == 0)
			p->image_size = p->align;
	}
	p->last_usable = image_end_limit(pl);
	if (p->table != LAYOUT_TABLE_GPT || p->image_size_pending)
		return 0;
	if (p->image_size < backup + p->first_usable) {
		const struct layout_image *im = &pl->l->image;
		struct layout_loc loc = im->size_loc.file ? im->size_loc : im->loc;
		return diag_error(pl->d,
				  "%s:%d: image: size %llu is too small for a GPT with its "
				  "entries at %llu",
				  loc.file, loc.line, (unsigned long long)p->image_size,
				  (unsigned long long)im->gpt_entries);
	}
	p->last_usable = p->image_size - backup;
	if (!backup)
		return 0;
	struct plan_region r = { .kind = PLAN_GPT_BACKUP,
				 .name = "gpt-backup",
				 .start = p->last_usable,
				 .size = backup,
				 .loc = pl->l->image.loc };
	return plan_add_region(pl, &r);
}

/*
 * GPT: the first usable LBA moves past every raw region and out-of-table partition that lies
 * before the first partition of the table, so that a partitioning tool adding a partition to
 * the card later cannot put it on a boot loader (LAYOUT.md, "What sdimg build writes").
 */
static void protect_boot_loaders(struct planner *pl)
{
	struct plan *p = pl->p;
	uint64_t first = UINT64_MAX, end = p->first_usable;

	if (p->table != LAYOUT_TABLE_GPT)
		return;
	for (size_t i = 0; i < p->n_regions; i++) {
		const struct plan_region *r = &p->regions[i];
		if (r->kind == PLAN_PARTITION && r->number && !r->start_pending && r->start < first)
			first = r->start;
	}
	for (size_t i = 0; i < p->n_regions; i++) {
		const struct plan_region *r = &p->regions[i];
		bool loader = r->kind == PLAN_RAW || (r->kind == PLAN_PARTITION && !r->number);
		if (loader && !r->start_pending && !r->size_pending &&
		    r->start + r->size <= first && r->start + r->size > end)
			end = r->start + r->size;
	}
	end = plan_align_up(end, LAYOUT_SECTOR);
	if (!p->image_size_pending && end > p->last_usable)
		end = p->last_usable; /* no room is left for another partition */
	p->first_usable = end;
}

static int region_order(const void *a, const void *b)
{
	const struct plan_region *x = a, *y = b;
	bool px = x->start_pending, py = y->start_pending;

	if (px != py)
		return px ? 1 : -1;
	if (!px && x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->kind != y->kind) /* an EBR sorts before the partition it describes */
		return x->kind == PLAN_EBR ? -1 : y->kind == PLAN_EBR ? 1 : 0;
	return 0;
}

int plan_resolve(const struct layout *l, const struct plan_inputs *in, struct diag *d,
		 struct plan **ret_plan)
{
	struct plan *p = calloc(1, sizeof(*p));
	struct planner pl = { .l = l, .in = in, .d = d, .p = p };
	size_t errors = d->errors;
	int rc;

	if (!p)
		return diag_error(d, "%s: out of memory", l->path);
	p->table = l->image.table;
	p->align = l->image.align;
	p->gpt_backup = backup_bytes(&pl) != 0;
	p->hybrid = l->image.hybrid;
	rc = add_front_tables(&pl);
	if (rc == 0)
		rc = add_raws(&pl);
	if (rc == 0)
		rc = plan_place_partitions(&pl);
	if (rc == 0)
		rc = set_image_size(&pl);
	if (rc == 0)
		rc = plan_resolve_grow(&pl);
	if (rc == 0)
		protect_boot_loaders(&pl);
	if (rc == 0 && p->n_regions) /* an image of nothing has no array to sort */
		qsort(p->regions, p->n_regions, sizeof(*p->regions), region_order);
	if (rc == 0)
		rc = plan_check(&pl);
	if (rc == -ENOMEM)
		diag_error(d, "%s: out of memory", l->path);
	if (rc < 0 || d->errors > errors) {
		plan_free(p);
		return rc < 0 ? rc : -EINVAL;
	}
	*ret_plan = p;
	return 0;
}

void plan_free(struct plan *p)
{
	if (!p)
		return;
	free(p->regions);
	free(p);
}
