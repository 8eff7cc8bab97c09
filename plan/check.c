/* SPDX-License-Identifier: MIT */
/* check: what the resolved geometry must satisfy (overlaps, ends, table limits). */
#include <errno.h>
#include <stdio.h>

#include "plan/plan_priv.h"

static bool known(const struct plan_region *r)
{
	return !r->start_pending && !r->size_pending;
}

/* "partition 'boot' (4194304-272629759)" */
static const char *describe(const struct plan_region *r, char *buf, size_t n)
{
	if (r->kind == PLAN_PARTITION || r->kind == PLAN_RAW)
		snprintf(buf, n, "%s '%s' (bytes %llu-%llu)", plan_kind_name(r->kind), r->name,
			 (unsigned long long)r->start,
			 (unsigned long long)(r->start + r->size - 1));
	else if (r->kind == PLAN_EBR)
		snprintf(buf, n, "the EBR of logical partition %u (bytes %llu-%llu)", r->number,
			 (unsigned long long)r->start,
			 (unsigned long long)(r->start + r->size - 1));
	else
		snprintf(buf, n, "the %s (bytes %llu-%llu)", plan_kind_name(r->kind),
			 (unsigned long long)r->start,
			 (unsigned long long)(r->start + r->size - 1));
	return buf;
}

/* Whether the layout declares the region (rather than the partition table). */
static bool user_region(const struct plan_region *r)
{
	return r->kind == PLAN_PARTITION || r->kind == PLAN_RAW || r->kind == PLAN_EBR;
}

/* Whether @r writes a file the layout may give holes: a raw region or raw partition. */
static bool takes_holes(const struct plan_region *r)
{
	return r->kind == PLAN_RAW ||
	       (r->kind == PLAN_PARTITION && r->part->type == LAYOUT_PART_RAW);
}

/* For @r over the MBR @mbr: the holes that leave the MBR's bytes to the table, counted
 * from @r's start as `holes` counts them. A boot loader written at 0 usually brings a
 * sector 0 of its own whose bytes 440-511 (the disk signature and the partition table,
 * UEFI 2.10, 5.2.1) are meant for the table; "" where that is no help. */
static const char *mbr_holes_hint(const struct plan_region *r, const struct plan_region *mbr,
				  char *buf, size_t n)
{
	uint64_t from = mbr->start > r->start ? mbr->start - r->start : 0;
	uint64_t to = mbr->start + mbr->size - r->start;

	if (mbr->kind != PLAN_MBR || !takes_holes(r))
		return "";
	if (to > r->size)
		to = r->size;
	snprintf(buf, n,
		 "; if the file leaves those bytes to the partition table, say so with "
		 "holes = \"%llu-%llu\"",
		 (unsigned long long)from, (unsigned long long)to);
	return buf;
}

/* Reports that @b overlaps @a (a before b on disk), naming the user's region first. */
static int report_overlap(struct planner *pl, const struct plan_region *a,
			  const struct plan_region *b)
{
	char da[160], db[160], hint[200];

	if (!user_region(b) && user_region(a)) {
		const struct plan_region *t = a;
		a = b;
		b = t;
	}
	return diag_error(pl->d, "%s:%d: %s overlaps %s%s", b->loc.file, b->loc.line,
			  describe(b, db, sizeof(db)), describe(a, da, sizeof(da)),
			  mbr_holes_hint(b, a, hint, sizeof(hint)));
}

/* The holes of a raw region or raw partition (offsets from its start): *@n of them. */
static const struct layout_range *holes_of(const struct plan_region *r, size_t *n)
{
	if (r->kind == PLAN_RAW) {
		*n = r->raw->n_holes;
		return r->raw->holes;
	}
	*n = r->kind == PLAN_PARTITION ? r->part->n_holes : 0;
	return r->kind == PLAN_PARTITION ? r->part->holes : NULL;
}

/* Whether the holes of @r cover every byte of [from, to): nothing of @r is written there. */
static bool within_holes(const struct plan_region *r, uint64_t from, uint64_t to)
{
	size_t n;
	const struct layout_range *h = holes_of(r, &n);
	uint64_t pos = from;

	for (size_t i = 0; i < n && pos < to; i++) {
		if (r->start + h[i].end <= pos)
			continue;
		if (r->start + h[i].start > pos)
			return false;
		pos = r->start + h[i].end;
	}
	return pos >= to;
}

static int check_overlaps(struct planner *pl)
{
	const struct plan *p = pl->p;
	int bad = 0;

	for (size_t i = 0; i < p->n_regions; i++) {
		const struct plan_region *b = &p->regions[i];
		if (!known(b))
			continue;
		for (size_t j = 0; j < i; j++) {
			const struct plan_region *a = &p->regions[j];
			if (!known(a) || a->start + a->size <= b->start ||
			    b->start + b->size <= a->start)
				continue;
			uint64_t from = a->start > b->start ? a->start : b->start;
			uint64_t to = a->start + a->size < b->start + b->size ? a->start + a->size
									      : b->start + b->size;
			if (within_holes(a, from, to) || within_holes(b, from, to))
				continue; /* one of them writes nothing there */
			bad |= report_overlap(pl, a, b) < 0;
		}
	}
	return bad ? -EINVAL : 0;
}

static int check_ends(struct planner *pl)
{
	const struct plan *p = pl->p;
	char desc[160];
	int bad = 0;

	if (p->image_size_pending)
		return 0;
	for (size_t i = 0; i < p->n_regions; i++) {
		const struct plan_region *r = &p->regions[i];
		if (!known(r) || r->start + r->size <= p->image_size)
			continue;
		bad |= diag_error(pl->d, "%s:%d: %s runs past the end of the image (%llu bytes)",
				  r->loc.file, r->loc.line, describe(r, desc, sizeof(desc)),
				  (unsigned long long)p->image_size) < 0;
	}
	return bad ? -EINVAL : 0;
}

static int check_table_limits(struct planner *pl, const struct plan_region *r)
{
	const struct plan *p = pl->p;
	char desc[160];

	if (p->table == LAYOUT_TABLE_GPT && !r->start_pending && r->number &&
	    r->start < p->first_usable)
		return diag_error(pl->d,
				  "%s:%d: %s starts before byte %llu, the first a GPT "
				  "partition may use (after the entry array at gpt-entries)",
				  r->loc.file, r->loc.line, describe(r, desc, sizeof(desc)),
				  (unsigned long long)p->first_usable);
	if (p->table == LAYOUT_TABLE_MBR && r->number && known(r) &&
	    (r->start + r->size) / LAYOUT_SECTOR > MBR_MAX_SECTORS)
		return diag_error(pl->d,
				  "%s:%d: %s ends beyond 2 TiB, which an MBR cannot "
				  "describe (use table = gpt)",
				  r->loc.file, r->loc.line, describe(r, desc, sizeof(desc)));
	if (p->hybrid && r->part->hybrid && known(r) &&
	    (r->start + r->size) / LAYOUT_SECTOR > MBR_MAX_SECTORS)
		return diag_error(pl->d,
				  "%s:%d: %s ends beyond 2 TiB, which the hybrid MBR cannot "
				  "describe (leave it to the GPT alone: hybrid = false)",
				  r->part->hybrid_loc.file, r->part->hybrid_loc.line,
				  describe(r, desc, sizeof(desc)));
	return 0;
}

/* A primary partition inside the extended partition would break the EBR chain. */
static int check_extended(struct planner *pl, const struct plan_region *r)
{
	const struct plan *p = pl->p;
	char desc[160];

	if (!p->has_extended || !p->extended_size || r->logical || !r->number || !known(r) ||
	    r->start + r->size <= p->extended_start ||
	    r->start >= p->extended_start + p->extended_size)
		return 0;
	return diag_error(pl->d,
			  "%s:%d: %s lies inside the extended partition (bytes %llu-%llu) "
			  "that holds the logical partitions",
			  r->loc.file, r->loc.line, describe(r, desc, sizeof(desc)),
			  (unsigned long long)p->extended_start,
			  (unsigned long long)(p->extended_start + p->extended_size - 1));
}

static void warn_off_grid(struct planner *pl, const struct plan_region *r)
{
	const struct layout_partition *part = r->part;
	uint64_t a = part->align;

	if (!part->start_set || part->start % a == 0 || part->off_grid)
		return;
	diag_warning(pl->d,
		     "%s:%d: partition '%s': start %llu is off the %llu-byte alignment "
		     "grid (it is aligned to %llu bytes); writes across erase blocks are slower",
		     part->start_loc.file, part->start_loc.line, part->name,
		     (unsigned long long)part->start, (unsigned long long)a,
		     (unsigned long long)plan_alignment_of(part->start));
}

/* The holes of a region lie inside it (a size the layout gives is checked when it is read;
 * `grow` is known only now). */
static int check_holes(struct planner *pl, const struct plan_region *r)
{
	size_t n;
	const struct layout_range *h = holes_of(r, &n);
	struct layout_loc loc = r->kind == PLAN_RAW ? r->raw->holes_loc : r->part->holes_loc;

	if (!n || !known(r) || h[n - 1].end <= r->size)
		return 0;
	return diag_error(pl->d,
			  "%s:%d: %s '%s': holes: %llu-%llu ends past the %llu bytes of "
			  "the %s",
			  loc.file, loc.line, plan_kind_name(r->kind), r->name,
			  (unsigned long long)h[n - 1].start, (unsigned long long)h[n - 1].end,
			  (unsigned long long)r->size, plan_kind_name(r->kind));
}

int plan_check(struct planner *pl)
{
	const struct plan *p = pl->p;
	int bad = 0;

	bad |= check_overlaps(pl) < 0;
	bad |= check_ends(pl) < 0;
	for (size_t i = 0; i < p->n_regions; i++) {
		const struct plan_region *r = &p->regions[i];
		if (r->kind == PLAN_RAW || r->kind == PLAN_PARTITION)
			bad |= check_holes(pl, r) < 0;
		if (r->kind != PLAN_PARTITION)
			continue;
		bad |= check_table_limits(pl, r) < 0;
		bad |= check_extended(pl, r) < 0;
		warn_off_grid(pl, r);
	}
	return bad ? -EINVAL : 0;
}
