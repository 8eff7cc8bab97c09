/* SPDX-License-Identifier: MIT */
/*
 * plan: every byte range of the image, resolved from a layout (layouts/layouts.h) without
 * any I/O: where each partition, raw region and partition table starts and how large it
 * is, and whether it fits. The builder writes what the plan says; `sdimg plan` shows it.
 *
 *   struct layout --plan_resolve()--> struct plan --the builder--> the image
 *
 * Inside: plan.c resolves the image and its tables, parts.c places the partitions (and
 * the EBRs of logical ones), check.c checks what the result must satisfy.
 *
 * Ownership: a struct plan owns its regions and is freed with plan_free(). A plan borrows
 * names from the layout it was built from: free the plan first.
 * Errors: 0 or a negative errno; every problem is one line in the struct diag the caller
 * passes, naming "FILE:LINE: ...".
 */
#ifndef SDIMG_PLAN_H
#define SDIMG_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"
#include "layouts/layouts.h"

enum plan_kind {
	PLAN_PARTITION,
	PLAN_RAW,
	PLAN_MBR,
	PLAN_EBR,
	PLAN_GPT_HEADER,
	PLAN_GPT_ENTRIES,
	PLAN_GPT_BACKUP,
};

/* One byte range of the image. */
struct plan_region {
	enum plan_kind kind;
	const char *name; /* borrowed from the layout, or a fixed string for tables */
	unsigned number;  /* partition number in the table (MBR logical: 5, 6, ...); 0 if none */
	uint64_t start;
	uint64_t size;
	bool start_pending; /* follows a size that waits for the contents */
	bool size_pending;  /* size = auto (or a raw file's size) waits for the contents */
	bool logical;       /* an MBR logical partition */
	const struct layout_partition *part; /* PLAN_PARTITION */
	const struct layout_raw *raw;        /* PLAN_RAW */
	struct layout_loc loc; /* where the layout declares it (tables: the image section) */
};

struct plan {
	uint64_t image_size;
	bool image_size_pending;
	enum layout_table table;
	uint64_t align;
	uint64_t first_usable; /* GPT: first byte a partition may use */
	uint64_t last_usable;  /* GPT: one past the last byte a partition may use */
	bool gpt_backup;       /* GPT: the backup area ends the image (a PLAN_GPT_BACKUP region) */
	bool hybrid;           /* GPT: sector 0 holds a hybrid MBR (table = hybrid) */
	struct plan_region *regions; /* in disk order (pending ones after the known) */
	size_t n_regions;
	bool has_extended;        /* MBR: partitions 5.. live in an extended partition ... */
	unsigned extended_number; /* ... whose entry is this one (1..4) */
	uint64_t extended_start, extended_size;
};

/* What the builder has measured: sizes that `auto` (and a raw region without size) wait
 * for, in bytes; NULL arrays or 0 entries mean "not known yet". */
struct plan_inputs {
	const uint64_t *part_sizes;  /* one per layout partition */
	const uint64_t *raw_sizes;   /* one per raw region */
	const uint64_t *part_starts; /* starts the contents dictate (sd-format); 0 = none */
};

/*
 * Resolves every byte range of @l. @in may be NULL (`sdimg plan`: pending sizes stay
 * pending). Problems (overlaps, a region past the end, too many GPT partitions, an MBR
 * partition beyond 2 TiB) are errors in @d; a start off the alignment grid is a warning.
 * Returns 0 and a new plan in *@ret_plan (free with plan_free()), or a negative errno.
 */
int plan_resolve(const struct layout *l, const struct plan_inputs *in, struct diag *d,
		 struct plan **ret_plan);

void plan_free(struct plan *p);

/* "partition", "raw", "mbr", "ebr", "gpt-header", "gpt-entries", "gpt-backup". */
const char *plan_kind_name(enum plan_kind k);

/*
 * Partition @i's number in @l's table, 0 when it is not in the table; *@ret_logical says
 * whether it is a logical partition of the MBR's extended one. Entries before the extended
 * one are numbered in layout order, logical partitions 5, 6, ..., primary partitions after
 * the extended entry take the entries after it.
 */
unsigned plan_partition_number(const struct layout *l, size_t i, bool *ret_logical);

/* The size of `size = auto` partition @p whose contents measured @measured bytes: with its
 * `extra`, rounded up to its `align` (to a sector for a raw partition that takes its file's
 * size: see plan/parts.c). */
uint64_t plan_auto_size(const struct layout_partition *p, uint64_t measured);

/* The largest power of two (up to 1 TiB) that divides @offset; 0 divides by anything. */
uint64_t plan_alignment_of(uint64_t offset);

#endif
