/* plan: sizes from the contents, the final plan, and each FAT volume's geometry. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/units.h"
#include "mkimage/builder/builder_priv.h"

const struct plan_region *build_region_of(const struct build *b, size_t i)
{
	for (size_t k = 0; b->plan && k < b->plan->n_regions; k++)
		if (b->plan->regions[k].kind == PLAN_PARTITION &&
		    b->plan->regions[k].part == &b->l->parts[i])
			return &b->plan->regions[k];
	return NULL;
}

/* Passes fat/'s messages on, each placed at @loc of the partition that caused them. */
static int relay_at(struct build *b, const struct layout_partition *p,
		    const struct layout_loc *loc, struct diag *scratch, int rc)
{
	for (size_t k = 0; k < scratch->n; k++) {
		const struct diag_msg *m = &scratch->msgs[k];
		if (m->level == DIAG_ERROR)
			diag_error(b->d, "%s:%d: partition '%s': %s", loc->file, loc->line, p->name,
				   m->text);
		else
			diag_warning(b->d, "%s:%d: partition '%s': %s", loc->file, loc->line,
				     p->name, m->text);
	}
	diag_release(scratch);
	return rc;
}

static int relay(struct build *b, const struct layout_partition *p, struct diag *scratch, int rc)
{
	return relay_at(b, p, &p->loc, scratch, rc);
}

static int sd_format_layout(struct build *b, size_t i)
{
	const struct layout_partition *p = &b->l->parts[i];
	struct part_state *ps = &b->parts[i];
	struct diag scratch;

	diag_init(&scratch);
	int rc = fat_sd_format(&ps->opts, b->l->image.size / FAT_SECTOR, &ps->sd, &scratch);
	if (rc == 0)
		b->part_starts[i] = (uint64_t)ps->sd.part_start * FAT_SECTOR;
	return relay(b, p, &scratch, rc);
}

/* The plan as far as the sizes are known; NULL when it cannot be made. */
static struct plan *plan_so_far(struct build *b)
{
	const struct plan_inputs in = { .part_sizes = b->part_sizes, .raw_sizes = b->raw_sizes,
					.part_starts = b->part_starts };
	struct plan *p = NULL;
	struct diag scratch;

	diag_init(&scratch);
	plan_resolve(b->l, &in, &scratch, &p);
	diag_release(&scratch);
	return p;
}

/* size = auto: the smallest volume that holds the files where the partition starts. */
static int measure_fat(struct build *b, size_t i)
{
	struct plan *p = plan_so_far(b);
	const struct plan_region *r = NULL;
	struct diag scratch;
	int rc = 0;

	b->plan = p;
	r = build_region_of(b, i);
	b->plan = NULL;
	diag_init(&scratch);
	if (r && !r->start_pending)
		rc = fat_min_size(b->parts[i].tree, &b->parts[i].opts, r->start, &b->part_sizes[i],
				  &scratch);
	plan_free(p);
	return relay(b, &b->l->parts[i], &scratch, rc);
}

int build_plan_with_contents(struct build *b)
{
	const struct plan_inputs in = { .part_sizes = b->part_sizes, .raw_sizes = b->raw_sizes,
					.part_starts = b->part_starts };
	int bad = 0;

	for (size_t i = 0; i < b->l->n_parts; i++) {
		const struct layout_partition *p = &b->l->parts[i];
		int rc = 0;
		if (layout_part_is_fat(p) && p->fat.sd_format)
			rc = sd_format_layout(b, i);
		else if (layout_part_is_fat(p) && p->size_kind == LAYOUT_SIZE_AUTO)
			rc = measure_fat(b, i);
		if (rc == -ENOMEM)
			return rc;
		bad |= rc < 0;
	}
	if (bad)
		return -EINVAL;
	int rc = plan_resolve(b->l, &in, b->d, &b->plan);
	for (size_t k = 0; rc == 0 && k < b->plan->n_regions; k++) {
		const struct plan_region *r = &b->plan->regions[k];
		if (r->start_pending || r->size_pending) /* measured above: never expected */
			rc = diag_error(b->d, "%s:%d: %s '%s': its place on the card is unknown",
					r->loc.file, r->loc.line, plan_kind_name(r->kind), r->name);
	}
	return rc;
}

static int check_fits(struct build *b, size_t i, const struct plan_region *r, uint64_t need,
		      const char *what)
{
	const struct layout_partition *p = &b->l->parts[i];
	char has[32], needs[32];

	if (need <= r->size)
		return 0;
	units_human(need, needs, sizeof(needs));
	units_human(r->size, has, sizeof(has));
	return diag_error(b->d, "%s:%d: partition '%s': %s %s, the partition has %s",
			  p->size_loc.file ? p->size_loc.file : p->loc.file,
			  p->size_loc.file ? p->size_loc.line : p->loc.line, p->name, what, needs, has);
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

/* mbr-type set by hand to a byte that names another FAT type than the volume has. */
static void warn_mbr_type(struct build *b, const struct layout_partition *p,
			  const struct part_state *ps)
{
	enum fat_type says = fat_type_of_mbr(p->mbr_type);

	if (!p->mbr_type_loc.file || says == FAT_AUTO || says == ps->geom.type)
		return;
	diag_warning(b->d, "%s:%d: partition '%s': mbr-type 0x%02x says FAT%d, but the volume is "
			   "FAT%d, whose type byte is 0x%02x", p->mbr_type_loc.file,
		     p->mbr_type_loc.line, p->name, p->mbr_type, says, ps->geom.type,
		     mbr_type_of(ps->geom.type));
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
		rc = relay_at(b, p, p->size_loc.file ? &p->size_loc : &p->loc, &scratch,
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
		else if (p->from)
			rc = check_fits(b, i, r, b->parts[i].from_size, "its image needs");
		if (rc == -ENOMEM)
			return rc;
		bad |= rc < 0;
	}
	return bad ? -EINVAL : 0;
}
