/* plan_parts: where each partition starts and how large it is (LAYOUT.md, "partition"). */
#include <errno.h>

#include "layouts/plan_priv.h"

/* Whether a known region holds a byte of [from, to). */
static const struct plan_region *occupied(const struct plan *p, uint64_t from, uint64_t to)
{
	for (size_t i = 0; i < p->n_regions; i++) {
		const struct plan_region *r = &p->regions[i];
		if (r->start_pending || r->kind == PLAN_PARTITION)
			continue;
		uint64_t size = r->size_pending ? 1 : r->size;
		if (r->start < to && r->start + size > from)
			return r;
	}
	return NULL;
}

/*
 * The next multiple of the alignment at or after @cursor whose @before bytes ahead (an
 * EBR) and first byte are free of tables and raw regions.
 */
static uint64_t default_start(const struct planner *pl, uint64_t cursor, uint64_t before)
{
	uint64_t a = pl->p->align;
	uint64_t start = plan_align_up(cursor + before, a);
	const struct plan_region *r;

	while ((r = occupied(pl->p, start - before, start + 1)))
		start = plan_align_up(r->start + (r->size_pending ? 1 : r->size) + before, a);
	return start;
}

static uint64_t known_size(const struct planner *pl, size_t i, bool *ret_pending)
{
	const struct layout_partition *p = &pl->l->parts[i];
	uint64_t measured = pl->in && pl->in->part_sizes ? pl->in->part_sizes[i] : 0;

	*ret_pending = false;
	switch (p->size_kind) {
	case LAYOUT_SIZE_FIXED:
		return p->size;
	case LAYOUT_SIZE_GROW:
		return 0; /* plan_resolve_grow() */
	case LAYOUT_SIZE_AUTO:
		break;
	}
	if (!measured) {
		*ret_pending = true;
		return 0;
	}
	return plan_align_up(measured + p->extra, pl->p->align);
}

static int add_ebr(struct planner *pl, const struct plan_region *part)
{
	struct plan_region ebr = {
		.kind = PLAN_EBR, .name = "ebr", .start = part->start - LAYOUT_SECTOR,
		.size = LAYOUT_SECTOR, .number = part->number, .loc = part->loc,
	};
	struct plan *p = pl->p;

	if (!p->extended_start || ebr.start < p->extended_start)
		p->extended_start = ebr.start;
	return plan_add_region(pl, &ebr);
}

/* A region must end before PLAN_MAX_END, so that no sum of positions can wrap. */
static int check_end(struct planner *pl, const struct plan_region *r)
{
	if (r->start_pending || (r->start <= PLAN_MAX_END && r->size <= PLAN_MAX_END - r->start))
		return 0;
	return diag_error(pl->d, "%s:%d: partition '%s' would end beyond 4 EiB", r->loc.file,
			  r->loc.line, r->name);
}

/* Logical partitions are chained by their EBRs in disk order: the layout must list them so. */
static int check_logical_order(struct planner *pl, const struct plan_region *r)
{
	const char *prev = pl->last_logical;
	uint64_t prev_end = pl->last_logical_end;

	if (!r->logical || r->start_pending)
		return 0;
	pl->last_logical = r->name;
	pl->last_logical_end = r->size_pending ? 0 : r->start + r->size;
	if (!prev || !prev_end || r->start >= prev_end)
		return 0;
	return diag_error(pl->d, "%s:%d: logical partition '%s' starts at byte %llu, before '%s' "
				 "(listed before it) ends: list logical partitions in disk order",
			  r->loc.file, r->loc.line, r->name, (unsigned long long)r->start, prev);
}

int plan_place_partitions(struct planner *pl)
{
	const struct layout *l = pl->l;
	struct plan *p = pl->p;
	unsigned ext = layout_extended_slot(l); /* validate.c checked what it makes */
	uint64_t cursor = l->image.table == LAYOUT_TABLE_NONE ? 0
			  : l->image.table == LAYOUT_TABLE_GPT ? p->first_usable
							       : LAYOUT_SECTOR;
	unsigned logical = 4, forced = 0, in_table = 0;
	bool after_pending = false;

	p->has_extended = ext != 0;
	p->extended_number = ext;
	for (size_t i = 0; i < l->n_parts; i++) {
		const struct layout_partition *part = &l->parts[i];
		struct plan_region r = { .kind = PLAN_PARTITION, .name = part->name, .part = part,
					 .loc = part->loc };
		in_table += part->in_table;
		/* before the extended entry: entry k; logical: 5, 6, ...; primary after it:
		 * the entries after the extended one */
		bool after = ext && part->in_table && in_table >= ext;
		r.logical = after && !part->primary;
		if (part->in_table)
			r.number = r.logical ? ++logical : after ? ext + ++forced : in_table;
		uint64_t dictated = pl->in && pl->in->part_starts ? pl->in->part_starts[i] : 0;
		if (dictated)
			r.start = dictated;
		else if (part->start_set)
			r.start = part->start;
		else if (after_pending)
			r.start_pending = true;
		else
			r.start = default_start(pl, cursor, r.logical ? LAYOUT_SECTOR : 0);
		r.size = known_size(pl, i, &r.size_pending);
		r.size_pending |= r.start_pending && part->size_kind == LAYOUT_SIZE_GROW;
		if (check_end(pl, &r) < 0 || check_logical_order(pl, &r) < 0)
			return -EINVAL;
		if (plan_add_region(pl, &r) < 0 || (r.logical && !r.start_pending && add_ebr(pl, &r) < 0))
			return -ENOMEM;
		after_pending = r.start_pending || r.size_pending;
		cursor = r.start + r.size;
	}
	return 0;
}

int plan_resolve_grow(struct planner *pl)
{
	struct plan *p = pl->p;

	for (size_t i = 0; i < p->n_regions; i++) {
		struct plan_region *r = &p->regions[i];
		if (r->kind != PLAN_PARTITION || r->part->size_kind != LAYOUT_SIZE_GROW ||
		    r->start_pending)
			continue;
		if (r->start >= p->last_usable)
			return diag_error(pl->d, "%s:%d: partition '%s': size = grow leaves it no "
						 "room: it starts at %llu, the usable space ends at %llu",
					  r->part->size_loc.file, r->part->size_loc.line, r->name,
					  (unsigned long long)r->start,
					  (unsigned long long)p->last_usable);
		r->size = p->last_usable - r->start;
	}
	for (size_t i = 0; i < p->n_regions; i++) {
		const struct plan_region *r = &p->regions[i];
		if (r->logical && !r->start_pending && !r->size_pending &&
		    r->start + r->size > p->extended_start + p->extended_size)
			p->extended_size = r->start + r->size - p->extended_start;
	}
	return 0;
}
