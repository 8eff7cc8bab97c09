/* SPDX-License-Identifier: MIT */
/* parts: where each partition starts and how large it is (LAYOUT.md, "partition"). */
#include <errno.h>
#include <stdlib.h>

#include "plan/plan_priv.h"

/*
 * Automatic starts (LAYOUT.md, "partition", `start`). A partition without `start` begins at
 * the first multiple of its alignment after the partition listed before it where neither it
 * nor the EBR before a logical partition overlaps a fixed region: a table structure, a raw
 * region, a partition with a `start` (listed anywhere), or one placed before it.
 */

/* What places the partitions: one region per layout partition, in layout order. */
struct placing {
	struct planner *pl;
	struct plan_region *parts;
	bool *placed; /* parts[i] has its start (or knows it is pending) */
};

/* A byte range an automatic start keeps clear of. */
struct obstacle {
	uint64_t start, end; /* end excluded; UINT64_MAX: to the end of the image (grow) */
	bool end_pending;    /* its size waits for an input or the contents */
};

/* The bytes a placed partition keeps from others: itself, and the EBR before a logical one. */
static bool partition_obstacle(const struct plan_region *r, struct obstacle *ret)
{
	if (r->start_pending)
		return false;
	ret->start = r->logical ? r->start - LAYOUT_SECTOR : r->start;
	ret->end_pending = r->size_pending;
	ret->end = r->part->size_kind == LAYOUT_SIZE_GROW ? UINT64_MAX : r->start + r->size;
	return true;
}

/* The fixed region that holds a byte of [@from, @to), other than partition @self. */
static bool find_obstacle(const struct placing *pc, size_t self, uint64_t from, uint64_t to,
			  struct obstacle *ret)
{
	const struct plan *p = pc->pl->p;
	struct obstacle o;

	for (size_t i = 0; i < p->n_regions; i++) { /* tables and raw regions so far */
		const struct plan_region *r = &p->regions[i];
		o = (struct obstacle){ .start = r->start,
				       .end = r->start + r->size,
				       .end_pending = r->size_pending };
		if (o.start < to && (o.end_pending || o.end > from)) {
			*ret = o;
			return true;
		}
	}
	for (size_t i = 0; i < pc->pl->l->n_parts; i++) {
		if (i == self || !pc->placed[i] || !partition_obstacle(&pc->parts[i], &o))
			continue;
		if (o.start < to && (o.end_pending || o.end > from)) {
			*ret = o;
			return true;
		}
	}
	return false;
}

/* The least a partition whose size is not known yet will take: a size rounds up to align. */
static uint64_t least_extent(const struct plan_region *r)
{
	const struct layout_partition *part = r->part;

	if (part->size_kind == LAYOUT_SIZE_GROW)
		return LAYOUT_SECTOR;
	if (!r->size_pending)
		return r->size;
	return plan_align_up(1 + part->extra, part->align);
}

/*
 * Sets the automatic start of @r (partition @i) at or after @cursor. Leaves it pending when
 * it depends on a size not known yet: an obstacle's, or its own while a fixed region lies
 * ahead of it. A fixed region in the space a `grow` partition grows into stays where it is:
 * the overlap is reported as such.
 */
static void automatic_start(const struct placing *pc, size_t i, uint64_t cursor,
			    struct plan_region *r)
{
	uint64_t a = r->part->align, before = r->logical ? LAYOUT_SECTOR : 0;
	uint64_t start = plan_align_up(cursor + before, a), need = least_extent(r);
	struct obstacle o;

	while (find_obstacle(pc, i, start - before, start + need, &o)) {
		if (o.end_pending) {
			r->start_pending = true;
			return;
		}
		if (o.end == UINT64_MAX)
			break;
		start = plan_align_up(o.end + before, a);
	}
	r->start = start;
	r->start_pending = r->size_pending && find_obstacle(pc, i, start - before, UINT64_MAX, &o);
}

/*
 * A raw partition with a fixed `start`, a `from`, no `size` and no `align` of its own is as
 * large as its file (less `skip`, plus `extra`), rounded up to a whole sector only: such a
 * partition is a boot loader at the place a boot ROM reads, and the next one often starts
 * where the file ends (rounding it up to the image's `align` would make them overlap). An
 * automatic start, or the partition's own `align`, keeps the rounding to `align`.
 */
static bool takes_file_size(const struct layout_partition *p)
{
	return p->type == LAYOUT_PART_RAW && p->from && p->start_set && !p->align_set &&
	       p->size_kind == LAYOUT_SIZE_AUTO;
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
	return plan_auto_size(p, measured);
}

uint64_t plan_auto_size(const struct layout_partition *p, uint64_t measured)
{
	if (takes_file_size(p))
		return plan_align_up(measured + p->extra, LAYOUT_SECTOR);
	return plan_align_up(measured + p->extra, p->align);
}

static int add_ebr(struct planner *pl, const struct plan_region *part)
{
	struct plan_region ebr = {
		.kind = PLAN_EBR,
		.name = "ebr",
		.start = part->start - LAYOUT_SECTOR,
		.size = LAYOUT_SECTOR,
		.number = part->number,
		.loc = part->loc,
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
	return diag_error(pl->d,
			  "%s:%d: logical partition '%s' starts at byte %llu, before '%s' "
			  "(listed before it) ends: list logical partitions in disk order",
			  r->loc.file, r->loc.line, r->name, (unsigned long long)r->start, prev);
}

unsigned plan_partition_number(const struct layout *l, size_t i, bool *ret_logical)
{
	unsigned ext = layout_extended_slot(l); /* validate.c checked what it makes */
	unsigned logical = 4, forced = 0, in_table = 0, number = 0;

	*ret_logical = false;
	for (size_t k = 0; k <= i; k++) {
		const struct layout_partition *part = &l->parts[k];
		in_table += part->in_table;
		/* before the extended entry: entry k; logical: 5, 6, ...; primary after it:
		 * the entries after the extended one */
		bool after = ext && part->in_table && in_table >= ext;
		*ret_logical = after && !part->primary;
		number = !part->in_table ? 0
			 : *ret_logical  ? ++logical
			 : after         ? ext + ++forced
					 : in_table;
	}
	return number;
}

/* Each partition's number, size, and the start it is given (`start`, or the contents'). */
static int place_fixed(struct placing *pc)
{
	struct planner *pl = pc->pl;
	const struct layout *l = pl->l;
	struct plan *p = pl->p;
	unsigned ext = layout_extended_slot(l);

	p->has_extended = ext != 0;
	p->extended_number = ext;
	for (size_t i = 0; i < l->n_parts; i++) {
		const struct layout_partition *part = &l->parts[i];
		struct plan_region *r = &pc->parts[i];
		*r = (struct plan_region){ .kind = PLAN_PARTITION,
					   .name = part->name,
					   .part = part,
					   .loc = part->loc };
		r->number = plan_partition_number(l, i, &r->logical);
		r->size = known_size(pl, i, &r->size_pending);
		uint64_t dictated = pl->in && pl->in->part_starts ? pl->in->part_starts[i] : 0;
		if (!dictated && !part->start_set)
			continue;
		r->start = dictated ? dictated : part->start;
		pc->placed[i] = true;
		if (check_end(pl, r) < 0)
			return -EINVAL;
	}
	return 0;
}

/* The others in layout order, each after the one listed before it. */
static int place_automatic(struct placing *pc)
{
	const struct layout *l = pc->pl->l;
	uint64_t cursor = l->image.table == LAYOUT_TABLE_NONE  ? 0
			  : l->image.table == LAYOUT_TABLE_GPT ? pc->pl->p->first_usable
							       : LAYOUT_SECTOR;
	bool after_pending = false;

	for (size_t i = 0; i < l->n_parts; i++) {
		struct plan_region *r = &pc->parts[i];
		if (!pc->placed[i] && after_pending)
			r->start_pending = true;
		else if (!pc->placed[i])
			automatic_start(pc, i, cursor, r);
		r->size_pending |= r->start_pending && l->parts[i].size_kind == LAYOUT_SIZE_GROW;
		pc->placed[i] = true;
		if (check_end(pc->pl, r) < 0)
			return -EINVAL;
		after_pending = r->start_pending || r->size_pending;
		cursor = r->start + r->size;
	}
	return 0;
}

int plan_place_partitions(struct planner *pl)
{
	size_t n = pl->l->n_parts ? pl->l->n_parts : 1;
	struct placing pc = { .pl = pl,
			      .parts = calloc(n, sizeof(*pc.parts)),
			      .placed = calloc(n, sizeof(*pc.placed)) };
	int rc = pc.parts && pc.placed ? 0 : -ENOMEM;

	if (rc == 0)
		rc = place_fixed(&pc);
	if (rc == 0)
		rc = place_automatic(&pc);
	for (size_t i = 0; rc == 0 && i < pl->l->n_parts; i++) {
		const struct plan_region *r = &pc.parts[i];
		if (check_logical_order(pl, r) < 0)
			rc = -EINVAL;
		else if (plan_add_region(pl, r) < 0 ||
			 (r->logical && !r->start_pending && add_ebr(pl, r) < 0))
			rc = -ENOMEM;
	}
	free(pc.parts);
	free(pc.placed);
	return rc;
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
			return diag_error(pl->d,
					  "%s:%d: partition '%s': size = grow leaves it no "
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
