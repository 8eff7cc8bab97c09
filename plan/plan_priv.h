/* SPDX-License-Identifier: MIT */
/* plan internals, shared by plan.c, parts.c and check.c (private to plan/). */
#ifndef SDIMG_PLAN_PRIV_H
#define SDIMG_PLAN_PRIV_H

#include "layouts/layouts.h"
#include "plan/plan.h"

#define MBR_TABLE_START 440u            /* disk signature at 440, entries at 446 */
#define GPT_ENTRIES_BYTES (128u * 128u) /* 128 entries of 128 bytes */
#define GPT_BACKUP_BYTES (GPT_ENTRIES_BYTES + LAYOUT_SECTOR) /* backup entries + header */
#define MBR_MAX_SECTORS (1ull << 32)                         /* 32-bit LBA fields of an MBR entry */
#define PLAN_MAX_END (1ull << 62) /* no region ends later: sums cannot wrap */

struct planner {
	const struct layout *l;
	const struct plan_inputs *in;
	struct diag *d;
	struct plan *p;
	size_t cap;
	const char *last_logical;  /* the logical partition placed last (NULL: none yet) ... */
	uint64_t last_logical_end; /* ... and where it ends (0: unknown) */
};

uint64_t plan_align_up(uint64_t v, uint64_t a);
int plan_add_region(struct planner *pl, const struct plan_region *r);

/* Places every partition (and the EBRs of logical ones); parts.c. */
int plan_place_partitions(struct planner *pl);
/* Sizes a `grow` partition once the image size is known, then the extended partition. */
int plan_resolve_grow(struct planner *pl);
/* Overlaps, regions past the end, table limits; check.c. */
int plan_check(struct planner *pl);

#endif
