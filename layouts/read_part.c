/* SPDX-License-Identifier: MIT */
/* read_part: the `raw` and `partition` sections of the top level (LAYOUT.md). */
#include "layouts/read_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"
#include "layouts/values.h"

#define GPT_NAME_UNITS 36 /* UTF-16 code units of a GPT partition name (UEFI 5.3.3) */

/* ------------------------------------------------------------------ raw */

/* What a raw region or a raw partition writes: the keys from, skip, fill, fill-byte, sparse
 * and holes. */
struct input_keys {
	char **from;
	uint64_t *skip;
	bool *fill;
	uint8_t *fill_byte;
	bool *dense;
	struct layout_range **holes;
	size_t *n_holes;
	struct layout_loc *skip_loc, *holes_loc;
};

static int read_holes(struct reader *r, const struct sect *s, const struct input_keys *in)
{
	const char *text = layout_key_text(s, "holes");
	struct why why;

	*in->holes_loc = layout_key_loc(s, "holes");
	if (!text)
		return 0;
	int rc = layout_value_ranges(text, in->holes, in->n_holes, &why);
	if (rc == -ENOMEM)
		return rc;
	return rc < 0 ? layout_key_error(r, s, "holes", "%s", why.text) : 0;
}

/* Reads the keys of @in. */
static int read_input(struct reader *r, const struct sect *s, const struct input_keys *in)
{
	int rc;

	if ((rc = layout_key_strdup(s, "from", in->from)) < 0)
		return rc;
	layout_key_u64(s, "skip", in->skip);
	*in->skip_loc = layout_key_loc(s, "skip");
	layout_key_bool(s, "fill", in->fill);
	uint64_t byte = 0;
	layout_key_u64(s, "fill-byte", &byte); /* the schema keeps it within 0-255 */
	*in->fill_byte = (uint8_t)byte;
	bool sparse = true;
	layout_key_bool(s, "sparse", &sparse);
	*in->dense = !sparse;
	return read_holes(r, s, in);
}

/* The rules between the keys of @in; "needs from or fill" is the caller's. */
static int check_input(struct reader *r, const struct sect *s, const struct input_keys *in)
{
	int bad = 0;

	if (layout_key_text(s, "fill-byte") && !*in->fill)
		bad |= layout_key_error(r, s, "fill-byte",
					"is the byte 'fill = true' writes, and there is no "
					"'fill = true'") < 0;
	if (*in->dense && !*in->from)
		bad |= layout_key_error(r, s, "sparse",
					"'false' writes the zeros of 'from', and there is no "
					"'from'") < 0;
	if (!*in->from && layout_key_text(s, "skip"))
		bad |= layout_key_error(r, s, "skip",
					"leaves out the first bytes of 'from', and "
					"there is no 'from'") < 0;
	return bad ? -EINVAL : 0;
}

/* Holes must lie inside a region whose size the layout gives. */
static int check_holes_fit(struct reader *r, const struct sect *s, const struct layout_range *h,
			   size_t n, uint64_t size)
{
	if (!n || !h || h[n - 1].end <= size) /* !h: for a static analyser (n is 0 then) */
		return 0;
	return layout_key_error(r, s, "holes", "%llu-%llu ends past the %llu bytes of the region",
				(unsigned long long)h[n - 1].start,
				(unsigned long long)h[n - 1].end, (unsigned long long)size);
}

static int read_raw(struct reader *r, const struct sect *s, struct layout_raw *raw)
{
	const struct input_keys in = { &raw->from,      &raw->skip,     &raw->fill,
				       &raw->fill_byte, &raw->dense,    &raw->holes,
				       &raw->n_holes,   &raw->skip_loc, &raw->holes_loc };
	int rc, bad = 0;

	raw->loc = layout_sect_loc(s);
	if (!(raw->name = strdup(s->node->title)))
		return -ENOMEM;
	if (!*raw->name)
		bad |= layout_sect_error(r, s, "a raw region needs a name") < 0;
	if (!layout_key_u64(s, "offset", &raw->offset))
		bad |= layout_sect_error(r, s,
					 "'offset' is required (the byte offset in the "
					 "image)") < 0;
	if ((rc = read_input(r, s, &in)) == -ENOMEM)
		return rc;
	bad |= rc < 0;
	bad |= check_input(r, s, &in) < 0;
	if (layout_tree_sub(s->node, "uboot-env"))
		return (rc = layout_read_uboot_env(r, s, raw)) < 0 ? rc : bad ? -EINVAL : 0;
	if (!raw->from && !raw->fill)
		bad |= layout_sect_error(r, s,
					 "'from' is required (the file whose bytes go "
					 "there), or 'fill = true' (zeros)") < 0;
	raw->size_set = layout_key_u64(s, "size", &raw->size);
	if (raw->fill && !raw->size_set)
		bad |= layout_key_error(r, s, "fill", "needs the region's 'size'") < 0;
	if (raw->size_set)
		bad |= check_holes_fit(r, s, raw->holes, raw->n_holes, raw->size) < 0;
	return bad ? -EINVAL : 0;
}

static int read_raw_item(struct reader *r, const struct sect *s, void *item)
{
	return read_raw(r, s, item);
}

/*
 * Reads every top-level section @name into a new array of @elem-byte items (*@ret_array,
 * *@ret_n counting those read so far, so that freeing works after a failure) with @read.
 * Returns 0, -ENOMEM, or -EINVAL when any section was wrong (each one reported).
 */
static int read_each(struct reader *r, const char *name, size_t elem,
		     int (*read)(struct reader *, const struct sect *, void *), void **ret_array,
		     size_t *ret_n)
{
	const struct tree_section *top = r->doc->top;
	size_t n = 0;
	int bad = 0;

	for (size_t i = 0; i < top->n_subs; i++)
		n += strcmp(top->subs[i]->spec->name, name) == 0;
	*ret_array = calloc(n ? n : 1, elem);
	if (!*ret_array)
		return -ENOMEM;
	for (size_t i = 0; i < top->n_subs; i++) {
		struct sect s;
		if (strcmp(top->subs[i]->spec->name, name) != 0)
			continue;
		layout_sect_init(&s, top->subs[i]);
		int rc = read(r, &s, (char *)*ret_array + *ret_n * elem);
		(*ret_n)++;
		if (rc == -ENOMEM)
			return rc;
		bad |= rc < 0;
	}
	return bad ? -EINVAL : 0;
}

int layout_read_raws(struct reader *r)
{
	return read_each(r, "raw", sizeof(*r->l->raws), read_raw_item, (void **)&r->l->raws,
			 &r->l->n_raws);
}

/* ------------------------------------------------------------------ partition */

static void read_part_size(const struct sect *s, struct layout_partition *p)
{
	const struct key_value *v = layout_key_value(s, "size");

	p->size_loc = layout_key_loc(s, "size");
	if (!v || (v->word && strcmp(v->word, "auto") == 0)) {
		p->size_kind = LAYOUT_SIZE_AUTO;
	} else if (v->word) {
		p->size_kind = LAYOUT_SIZE_GROW;
	} else {
		p->size_kind = LAYOUT_SIZE_FIXED;
		p->size = v->n;
	}
}

static int read_mbr_type(struct reader *r, const struct sect *s, struct layout_partition *p)
{
	uint64_t v;

	if (!layout_key_u64(s, "mbr-type", &v))
		return 0;
	p->mbr_type = (uint8_t)v;
	p->mbr_type_loc = layout_key_loc(s, "mbr-type");
	if (v == 0x05 || v == 0x0f || v == 0x85)
		return layout_key_error(r, s, "mbr-type",
					"0x%02llx is an extended partition type; "
					"sdimg makes the extended partition itself",
					(unsigned long long)v);
	if (r->l->image.hybrid && !p->hybrid)
		return layout_key_error(r, s, "mbr-type",
					"only a partition the hybrid MBR mirrors "
					"(hybrid = true) has an MBR type byte");
	if (r->l->image.table != LAYOUT_TABLE_MBR && !r->l->image.hybrid)
		return layout_key_error(r, s, "mbr-type", "only an mbr table has type bytes");
	return 0;
}

/* hybrid = true: the partition has an entry in the hybrid MBR as well (validate.c counts). */
static int read_hybrid(struct reader *r, const struct sect *s, struct layout_partition *p)
{
	p->hybrid_loc = layout_key_loc(s, "hybrid");
	if (!layout_key_bool(s, "hybrid", &p->hybrid) || !p->hybrid)
		return 0;
	if (!r->l->image.hybrid)
		return layout_key_error(r, s, "hybrid",
					"only a hybrid table (image { table = "
					"hybrid }) mirrors partitions in its MBR");
	if (!p->in_table)
		return layout_key_error(r, s, "hybrid",
					"the partition is not in the table "
					"(in-table = false): the MBR cannot mirror it");
	return 0;
}

static int read_table_keys(struct reader *r, const struct sect *s, struct layout_partition *p)
{
	static const char *const gpt_only[] = { "gpt-type", "uuid" };
	const struct key_value *v;
	int rc, bad = 0;
	char shown[200];

	bad |= read_hybrid(r, s, p) < 0;
	p->primary_loc = layout_key_loc(s, "primary");
	if (layout_key_bool(s, "primary", &p->primary) && r->l->image.table != LAYOUT_TABLE_MBR)
		bad |= layout_key_error(r, s, "primary",
					"only an mbr table has primary and "
					"logical partitions") < 0;
	bad |= read_mbr_type(r, s, p) < 0;
	for (size_t i = 0; i < 2; i++)
		if (layout_key_text(s, gpt_only[i]) && r->l->image.table != LAYOUT_TABLE_GPT)
			bad |= layout_key_error(r, s, gpt_only[i], "only a gpt table has it") < 0;
	/* genimage and wic users reach for it to name the file system */
	if (layout_key_text(s, "label") && r->l->image.table != LAYOUT_TABLE_GPT)
		bad |= layout_key_error(r, s, "label",
					"it names a GPT partition, and only a gpt "
					"table has names; a FAT volume's label is fat { label = "
					"\"...\" }") < 0;
	if ((v = layout_key_value(s, "gpt-type")))
		p->gpt_type = v->guid;
	if ((v = layout_key_value(s, "uuid")))
		p->uuid = v->guid;
	p->uuid_set = v != NULL;
	if ((rc = layout_key_strdup(s, "label", &p->label)) < 0)
		return rc;
	long units = rc ? utf8_utf16_units(p->label) : 0;
	if (units < 0)
		bad |= layout_key_error(r, s, "label", "is not valid UTF-8") < 0;
	else if (units > GPT_NAME_UNITS)
		bad |= layout_key_error(r, s, "label",
					"'%s' is longer than the %d UTF-16 units a "
					"GPT partition name holds",
					utf8_shown(p->label, shown, sizeof(shown)),
					GPT_NAME_UNITS) < 0;
	return bad ? -EINVAL : 0;
}

static void set_type_defaults(struct layout_partition *p)
{
	struct why why;

	layout_value_gpt_type(layout_part_is_fat(p) || layout_part_is_exfat(p) ? "msdata" : "linux",
			      &p->gpt_type, &why);
	switch (p->type) {
	case LAYOUT_PART_FAT12:
		p->mbr_type = 0x01;
		break;
	case LAYOUT_PART_FAT16:
		p->mbr_type = 0x0e;
		break;
	case LAYOUT_PART_FAT32:
		p->mbr_type = 0x0c;
		break;
	case LAYOUT_PART_RAW:
	case LAYOUT_PART_EXT4:
		p->mbr_type = 0x83;
		break;
	case LAYOUT_PART_FAT:
		p->mbr_type = 0; /* follows the FAT type chosen for the size */
		break;
	case LAYOUT_PART_EXFAT:
		p->mbr_type = 0x07; /* exFAT (as NTFS and IFS) */
		break;
	}
}

static int read_part_input(struct reader *r, const struct sect *s, struct layout_partition *p)
{
	static const char *const raw_only[] = { "skip", "fill", "fill-byte", "sparse", "holes" };
	const struct input_keys in = { &p->from,      &p->skip,     &p->fill,
				       &p->fill_byte, &p->dense,    &p->holes,
				       &p->n_holes,   &p->skip_loc, &p->holes_loc };
	int rc = read_input(r, s, &in), bad = rc < 0;

	if (rc == -ENOMEM)
		return rc;
	if (layout_part_has_files(p)) {
		if (p->from)
			bad |= layout_key_error(r, s, "from",
						"a%s partition is filled with tree, "
						"file and dir; 'from' copies an image into a raw "
						"partition",
						layout_part_is_fat(p)     ? " FAT"
						: layout_part_is_exfat(p) ? "n exFAT"
									  : "n ext4") < 0;
		for (size_t i = 0; i < sizeof(raw_only) / sizeof(raw_only[0]); i++)
			if (layout_key_text(s, raw_only[i]))
				bad |= layout_key_error(r, s, raw_only[i],
							"only a raw partition has "
							"it") < 0;
		return bad ? -EINVAL : 0;
	}
	bad |= check_input(r, s, &in) < 0;
	if (p->holes && !p->from && !p->fill)
		bad |= layout_key_error(r, s, "holes",
					"needs 'from' or 'fill = true' (holes are "
					"bytes of those that are not written)") < 0;
	if (p->size_kind == LAYOUT_SIZE_FIXED)
		bad |= check_holes_fit(r, s, p->holes, p->n_holes, p->size) < 0;
	return bad ? -EINVAL : 0;
}

/* off-grid: why a start is where the grid is not (a boot ROM reads it there); the plan then
 * does not warn about it. */
static int read_off_grid(struct reader *r, const struct sect *s, struct layout_partition *p)
{
	int rc = layout_key_strdup(s, "off-grid", &p->off_grid);

	if (rc <= 0)
		return rc;
	if (!*p->off_grid)
		return layout_key_error(r, s, "off-grid",
					"says why the start is off the grid (\"the boot ROM "
					"reads it there\"): it must not be empty");
	if (!p->start_set)
		return layout_key_error(r, s, "off-grid",
					"needs 'start' (the place that is off the grid)");
	return 0;
}

static int read_part_keys(struct reader *r, const struct sect *s, struct layout_partition *p)
{
	uint64_t v;
	int rc, bad = 0;

	if (layout_key_u64(s, "type", &v))
		p->type = (enum layout_part_type)v;
	set_type_defaults(p);
	p->start_set = layout_key_u64(s, "start", &p->start);
	p->start_loc = layout_key_loc(s, "start");
	if ((rc = read_off_grid(r, s, p)) == -ENOMEM)
		return rc;
	bad |= rc < 0;
	p->align_set = layout_key_u64(s, "align", &p->align);
	p->align_loc = layout_key_loc(s, "align");
	if (!p->align_set)
		p->align = r->l->image.align;
	else if (p->align > LAYOUT_MAX_ALIGN)
		bad |= layout_key_error(r, s, "align", "%llu is larger than 1 TiB",
					(unsigned long long)p->align) < 0;
	read_part_size(s, p);
	if (layout_key_u64(s, "extra", &p->extra) && p->size_kind != LAYOUT_SIZE_AUTO)
		bad |= layout_key_error(r, s, "extra", "only adds to size = auto") < 0;
	if ((rc = read_part_input(r, s, p)) == -ENOMEM)
		return rc;
	bad |= rc < 0;
	layout_key_bool(s, "bootable", &p->bootable);
	layout_key_bool(s, "in-table", &p->in_table);
	if ((rc = read_table_keys(r, s, p)) == -ENOMEM)
		return rc;
	bad |= rc < 0;
	return bad ? -EINVAL : 0;
}

/* Without a label, a GPT names the partition after the section: that name must fit. */
static int check_name_as_label(struct reader *r, const struct sect *s,
			       const struct layout_partition *p)
{
	long units = utf8_utf16_units(p->label);

	if (r->l->image.table != LAYOUT_TABLE_GPT || layout_key_text(s, "label"))
		return 0;
	if (units < 0)
		return layout_sect_error(r, s,
					 "the name is not valid UTF-8: set a 'label' that is");
	if (units > GPT_NAME_UNITS)
		return layout_sect_error(r, s,
					 "the name is longer than the %d UTF-16 units of a "
					 "GPT partition name: set a shorter 'label'",
					 GPT_NAME_UNITS);
	return 0;
}

static int read_partition(struct reader *r, const struct sect *s, struct layout_partition *p)
{
	int rc, bad = 0;

	p->loc = layout_sect_loc(s);
	p->in_table = true;
	if (!(p->name = strdup(s->node->title)))
		return -ENOMEM;
	if (!*p->name)
		bad |= layout_sect_error(r, s, "a partition needs a name") < 0;
	if ((rc = read_part_keys(r, s, p)) == -ENOMEM)
		return rc;
	bad |= rc < 0;
	if (!p->label && !(p->label = strdup(p->name)))
		return -ENOMEM;
	bad |= check_name_as_label(r, s, p) < 0;
	if ((rc = layout_read_fat(r, s, p)) == -ENOMEM)
		return rc;
	bad |= rc < 0;
	if ((rc = layout_read_ext4(r, s, p)) == -ENOMEM)
		return rc;
	bad |= rc < 0;
	if ((rc = layout_read_exfat(r, s, p)) == -ENOMEM)
		return rc;
	bad |= rc < 0;
	if ((rc = layout_read_entries(r, s, p)) == -ENOMEM)
		return rc;
	bad |= rc < 0;
	return bad ? -EINVAL : 0;
}

static int read_partition_item(struct reader *r, const struct sect *s, void *item)
{
	return read_partition(r, s, item);
}

int layout_read_partitions(struct reader *r)
{
	return read_each(r, "partition", sizeof(*r->l->parts), read_partition_item,
			 (void **)&r->l->parts, &r->l->n_parts);
}
