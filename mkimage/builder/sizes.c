/* SPDX-License-Identifier: MIT */
/* sizes: sizes from the contents, the final plan, and each FAT or exFAT volume's geometry. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "mkimage/builder/builder_priv.h"

int build_relay(struct diag *d, const struct layout_partition *p, const struct layout_loc *loc,
		struct diag *scratch, int rc)
{
	for (size_t k = 0; k < scratch->n; k++) {
		const struct diag_msg *m = &scratch->msgs[k];
		if (m->level == DIAG_ERROR)
			diag_error(d, "%s:%d: partition '%s': %s", loc->file, loc->line, p->name,
				   m->text);
		else if (m->level == DIAG_NOTE)
			diag_note(d, "%s:%d: partition '%s': %s", loc->file, loc->line, p->name,
				  m->text);
		else
			diag_warning(d, "%s:%d: partition '%s': %s", loc->file, loc->line, p->name,
				     m->text);
	}
	diag_release(scratch);
	return rc;
}

static int relay(struct build *b, const struct layout_partition *p, struct diag *scratch, int rc)
{
	return build_relay(b->d, p, &p->loc, scratch, rc);
}

static int sd_format_layout(struct build *b, size_t i)
{
	struct part_state *ps = &b->parts[i];
	int rc;

	if (layout_part_is_exfat(&b->l->parts[i])) {
		rc = build_sd_format_exfat(b->l, i, b->sha, b->d, &ps->exfat_sd);
		if (rc == 0)
			b->part_starts[i] = ps->exfat_sd.part_start * EXFAT_SECTOR;
		return rc;
	}
	rc = build_sd_format(b->l, i, b->sha, b->d, &ps->sd);
	if (rc == 0)
		b->part_starts[i] = (uint64_t)ps->sd.part_start * FAT_SECTOR;
	return rc;
}

/* The plan as far as the sizes are known; NULL when it cannot be made. */
static struct plan *plan_so_far(struct build *b)
{
	const struct plan_inputs in = { .part_sizes = b->part_sizes,
					.raw_sizes = b->raw_sizes,
					.part_starts = b->part_starts };
	struct plan *p = NULL;
	struct diag scratch;

	diag_init(&scratch);
	plan_resolve(b->l, &in, &scratch, &p);
	diag_release(&scratch);
	return p;
}

/* FAT or exFAT with size = auto, measured from its files. */
static bool measured_fat(const struct layout_partition *p)
{
	return (layout_part_is_fat(p) || layout_part_is_exfat(p)) && !layout_part_sd_format(p) &&
	       p->size_kind == LAYOUT_SIZE_AUTO;
}

/* The smallest FAT or exFAT volume at byte @start for partition @i's files. */
static int min_size(struct build *b, size_t i, uint64_t start, uint64_t *ret)
{
	struct diag scratch;

	if (layout_part_is_exfat(&b->l->parts[i]))
		return build_exfat_min_size(b, i, start, ret);
	diag_init(&scratch);
	return relay(b, &b->l->parts[i], &scratch,
		     fat_min_size(b->parts[i].tree, &b->parts[i].opts, start, ret, &scratch));
}

/*
 * size = auto on FAT and exFAT: the smallest volume that holds the files where the partition starts.
 * The start can depend on the size (an automatic start moves past a fixed region the
 * partition would overlap) and the size on the start (the data area's grid counts from the
 * start of the image), so each volume is measured where the plan with the sizes known so far
 * puts it, until no start moves. Unmeasured volumes count as the least they can be, and a
 * size never shrinks, so the starts only move forward and this ends.
 */
static int measure_fats(struct build *b)
{
	size_t n = b->l->n_parts, rounds = n + b->l->n_raws + 2, moved = n;
	uint64_t *measured_at = calloc(n ? n : 1, sizeof(*measured_at)); /* UINT64_MAX: not yet */
	int rc = measured_at ? 0 : -ENOMEM;

	for (size_t i = 0; i < n && rc == 0; i++) {
		measured_at[i] = UINT64_MAX;
		if (measured_fat(&b->l->parts[i]))
			b->part_sizes[i] = 1; /* the least a volume holds */
	}
	for (size_t round = 0; rc == 0 && round < rounds; round++) {
		struct plan *p = plan_so_far(b);
		moved = n;
		if (!p) /* the final plan reports why */
			break;
		b->plan = p;
		for (size_t i = 0; i < n && rc != -ENOMEM; i++) {
			const struct plan_region *r = build_region_of(b, i);
			if (!measured_fat(&b->l->parts[i]) || r->start_pending ||
			    r->start == measured_at[i])
				continue;
			uint64_t need = 0;
			int one = min_size(b, i, r->start, &need);
			if (one < 0 && rc != -ENOMEM)
				rc = one;
			if (need > b->part_sizes[i])
				b->part_sizes[i] = need;
			measured_at[i] = r->start;
			moved = i;
		}
		b->plan = NULL;
		plan_free(p);
		if (moved == n)
			break;
	}
	free(measured_at);
	if (rc == 0 && moved < n) {
		const struct layout_partition *p = &b->l->parts[moved];
		rc = diag_error(b->d,
				"%s:%d: partition '%s': size = auto: its start does not "
				"settle (give it a size or a start)",
				p->loc.file, p->loc.line, p->name);
	}
	return rc;
}

int build_plan_with_contents(struct build *b)
{
	const struct plan_inputs in = { .part_sizes = b->part_sizes,
					.raw_sizes = b->raw_sizes,
					.part_starts = b->part_starts };
	int bad = 0;

	for (size_t i = 0; i < b->l->n_parts; i++) {
		const struct layout_partition *p = &b->l->parts[i];
		int rc = layout_part_sd_format(p) ? sd_format_layout(b, i) : 0;
		if (rc == -ENOMEM)
			return rc;
		bad |= rc < 0;
	}
	int rc = bad ? -EINVAL : measure_fats(b);
	if (rc < 0)
		return rc;
	rc = plan_resolve(b->l, &in, b->d, &b->plan);
	for (size_t k = 0; rc == 0 && k < b->plan->n_regions; k++) {
		const struct plan_region *r = &b->plan->regions[k];
		if (r->start_pending || r->size_pending) /* measured above: never expected */
			rc = diag_error(b->d, "%s:%d: %s '%s': its place on the card is unknown",
					r->loc.file, r->loc.line, plan_kind_name(r->kind), r->name);
	}
	return rc;
}

int build_check_fits(const struct layout_partition *p, uint64_t need, uint64_t size,
		     const char *what, struct diag *d)
{
	char has[32], needs[32];

	if (need <= size)
		return 0;
	units_human(need, needs, sizeof(needs));
	units_human(size, has, sizeof(has));
	return diag_error(d, "%s:%d: partition '%s': %s %s, the partition has %s",
			  p->size_loc.file ? p->size_loc.file : p->loc.file,
			  p->size_loc.file ? p->size_loc.line : p->loc.line, p->name, what, needs,
			  has);
}

/* The type byte that says @type (LAYOUT.md: 0x01 FAT12, 0x0e FAT16 (LBA), 0x0c FAT32 (LBA)). */
static uint8_t mbr_type_of(enum fat_type type)
{
	return type == FAT_12 ? 0x01 : type == FAT_16 ? 0x0e : 0x0c;
}

static uint8_t mbr_type_for(const struct part_state *ps, const struct layout_partition *p)
{
	if (p->mbr_type)
		return p->mbr_type;
	if (p->fat.sd_format)
		return ps->sd.mbr_type;
	return mbr_type_of(ps->geom.type);
}

/* The FAT type an MBR type byte names (hidden variants too), or FAT_AUTO for other bytes. */
static enum fat_type fat_type_of_mbr(uint8_t t)
{
	switch (t & ~0x10) {
	case 0x01:
		return FAT_12;
	case 0x04:
	case 0x06:
	case 0x0e:
		return FAT_16;
	case 0x0b:
	case 0x0c:
		return FAT_32;
	default:
		return FAT_AUTO;
	}
}

/* Whether mbr-type is 0x0c (FAT32, LBA) on a FAT16 that sdimg chose (type = fat): the byte
 * genimage configurations give every FAT boot partition, whatever its size. Systems read
 * the FAT type from the volume (the count of its clusters, fatgen103), not from this byte,
 * so the mismatch is worth knowing but nothing to fix. */
static bool mbr_type_fat32_on_chosen_fat16(const struct layout_partition *p,
					   const struct part_state *ps)
{
	return p->mbr_type == 0x0c && p->type == LAYOUT_PART_FAT && ps->geom.type == FAT_16;
}

/* mbr-type set by hand to a byte that names another FAT type than the volume has: a
 * warning, or a note where the mismatch is the common one above. */
static void warn_mbr_type(struct build *b, const struct layout_partition *p,
			  const struct part_state *ps)
{
	enum fat_type says = fat_type_of_mbr(p->mbr_type);

	if (!p->mbr_type_loc.file || says == FAT_AUTO || says == ps->geom.type)
		return;
	if (mbr_type_fat32_on_chosen_fat16(p, ps)) {
		diag_note(b->d,
			  "%s:%d: partition '%s': mbr-type 0x0c says FAT32, but the volume sdimg "
			  "chose is FAT16, whose type byte is 0x0e; the byte is written as given "
			  "(systems read the FAT type from the volume)",
			  p->mbr_type_loc.file, p->mbr_type_loc.line, p->name);
		return;
	}
	diag_warning(b->d,
		     "%s:%d: partition '%s': mbr-type 0x%02x says FAT%d, but the volume is "
		     "FAT%d, whose type byte is 0x%02x",
		     p->mbr_type_loc.file, p->mbr_type_loc.line, p->name, p->mbr_type, says,
		     ps->geom.type, mbr_type_of(ps->geom.type));
}

static int choose_fat(struct build *b, size_t i, const struct plan_region *r)
{
	const struct layout_partition *p = &b->l->parts[i];
	struct part_state *ps = &b->parts[i];
	struct diag scratch;
	int rc = 0;

	diag_init(&scratch);
	if (p->fat.sd_format)
		ps->geom = ps->sd.geom;
	else /* the volume is as large as the partition: messages point at its size */
		rc = build_relay(b->d, p, p->size_loc.file ? &p->size_loc : &p->loc, &scratch,
				 fat_params_for_tree(ps->tree, &ps->opts, r->size, r->start,
						     &ps->geom, &scratch));
	b->mbr_types[i] = mbr_type_for(ps, p);
	if (rc == 0)
		warn_mbr_type(b, p, ps);
	return rc;
}

int build_choose_geometries(struct build *b)
{
	int bad = 0;

	for (size_t i = 0; i < b->l->n_parts; i++) {
		const struct layout_partition *p = &b->l->parts[i];
		const struct plan_region *r = build_region_of(b, i);
		int rc = 0;
		if (layout_part_is_fat(p))
			rc = choose_fat(b, i, r);
		else if (layout_part_is_exfat(p))
			rc = build_choose_exfat(b, i, r);
		else if (p->from)
			rc = build_check_fits(p, b->parts[i].from_size, r->size, "its image needs",
					      b->d);
		if (rc == -ENOMEM)
			return rc;
		bad |= rc < 0;
	}
	return bad ? -EINVAL : 0;
}
