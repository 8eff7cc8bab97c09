/* build_part: `raw` and `partition` sections, with `fat` and the content entries. */
#include "layouts/build_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"
#include "layouts/schema.h"
#include "layouts/values.h"

#define GPT_NAME_UNITS 36 /* UTF-16 code units of a GPT partition name (UEFI 5.3.3) */

static const char *const part_type_names[] = { "raw", "fat", "fat12", "fat16", "fat32", NULL };

static void sect_init(struct builder *b, struct sect *s, cfg_t *cfg, const char *parent)
{
	s->cfg = cfg;
	s->no = schema_section_number(cfg);
	const char *title = b->scan->sections[s->no].title;
	snprintf(s->what, sizeof(s->what), "%.100s%s%s '%.180s'", parent ? parent : "",
		 parent ? ": " : "", cfg_name(cfg), title ? title : "");
}

/* ------------------------------------------------------------------ raw */

static int build_raw(struct builder *b, cfg_t *cfg, struct layout_raw *r)
{
	struct sect s;
	int bad = 0, rc;

	sect_init(b, &s, cfg, NULL);
	r->loc = scan_section_loc(b->scan, s.no);
	if (!(r->name = strdup(b->scan->sections[s.no].title)))
		return -ENOMEM;
	if (!*r->name)
		bad |= sect_error(b, &s, "a raw region needs a name") < 0;
	rc = get_size(b, &s, "offset", SIZE_ANY, &r->offset);
	if (rc == 0)
		rc = sect_error(b, &s, "'offset' is required (the byte offset in the image)");
	bad |= rc < 0;
	rc = get_string(b, &s, "from", &r->from);
	if (rc == 0)
		rc = sect_error(b, &s, "'from' is required (the file whose bytes go there)");
	bad |= rc < 0;
	bad |= get_size(b, &s, "size", SIZE_NONZERO, &r->size) < 0;
	return bad ? -EINVAL : 0;
}

/*
 * Builds every section @name of @top into a new array of @elem-byte items (*@ret_array,
 * *@ret_n counting those built so far, so that freeing works after a failure) with @build.
 * Returns 0, -ENOMEM, or -EINVAL when any section was wrong (each one reported).
 */
static int build_each(struct builder *b, cfg_t *top, const char *name, size_t elem,
		      int (*build)(struct builder *, cfg_t *, void *), void **ret_array,
		      size_t *ret_n)
{
	unsigned n = cfg_size(top, name);
	int bad = 0;

	*ret_array = calloc(n ? n : 1, elem);
	if (!*ret_array)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		int rc = build(b, cfg_getnsec(top, name, i), (char *)*ret_array + i * elem);
		(*ret_n)++;
		if (rc == -ENOMEM)
			return rc;
		bad |= rc < 0;
	}
	return bad ? -EINVAL : 0;
}

static int build_raw_item(struct builder *b, cfg_t *cfg, void *item)
{
	return build_raw(b, cfg, item);
}

int build_raws(struct builder *b, cfg_t *top)
{
	return build_each(b, top, "raw", sizeof(*b->l->raws), build_raw_item,
			  (void **)&b->l->raws, &b->l->n_raws);
}

/* ------------------------------------------------------------------ fat { } */

static int check_label(struct builder *b, struct sect *s, const char *label)
{
	if (strlen(label) > 11)
		return key_error(b, s, "label", "'%s' is longer than 11 characters", label);
	for (const char *p = label; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c < 0x20 || c >= 0x7f || strchr("\"*+,./:;<=>?[\\]|", c))
			return key_error(b, s, "label",
					 "'%s': '%c' cannot stand in a FAT volume label (use A-Z, "
					 "0-9, space and !#$%%&'()-@^_`{}~)",
					 label, c >= 0x20 && c < 0x7f ? c : '?');
	}
	for (const char *p = label; *p; p++)
		if (*p >= 'a' && *p <= 'z') {
			struct layout_loc loc = key_loc(b, s, "label");
			diag_warning(b->d, "%s:%d: %s: label: '%s' has lower-case letters, which DOS "
					   "and Windows show in upper case", loc.file, loc.line, s->what, label);
			break;
		}
	return 0;
}

static int check_oem_name(struct builder *b, struct sect *s, const char *oem)
{
	if (strlen(oem) > 8)
		return key_error(b, s, "oem-name", "'%s' is longer than 8 characters", oem);
	for (const char *p = oem; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			return key_error(b, s, "oem-name", "'%s' must be printable ASCII", oem);
	return 0;
}

static int read_fat_keys(struct builder *b, struct sect *s, struct layout_fat *f)
{
	uint64_t v;
	int rc, bad = 0;

	if ((rc = get_string(b, s, "label", &f->label)) > 0)
		rc = check_label(b, s, f->label);
	bad |= rc < 0;
	if ((rc = get_string(b, s, "oem-name", &f->oem_name)) > 0)
		rc = check_oem_name(b, s, f->oem_name);
	bad |= rc < 0;
	if ((rc = get_size(b, s, "cluster-size", SIZE_NONZERO, &v)) > 0) {
		if (v < 512 || v > 65536 || (v & (v - 1)))
			rc = key_error(b, s, "cluster-size",
				       "%llu is not a power of two from 512 to 64K",
				       (unsigned long long)v);
		f->cluster_size = (uint32_t)v;
	}
	bad |= rc < 0;
	if ((rc = get_uint(b, s, "fats", 1, 2, &v)) > 0)
		f->fats = (unsigned)v;
	bad |= rc < 0;
	rc = get_size(b, s, "data-align", SIZE_SECTORS | SIZE_NONZERO, &f->data_align);
	f->data_align_set = rc > 0;
	bad |= rc < 0;
	bad |= get_bool(b, s, "sd-format", &f->sd_format) < 0;
	if ((rc = get_uint(b, s, "root-entries", 16, 65520, &v)) > 0) {
		if (v % 16)
			rc = key_error(b, s, "root-entries",
				       "%llu is not a multiple of 16 (the root directory fills "
				       "whole 512-byte sectors)", (unsigned long long)v);
		f->root_entries = (unsigned)v;
	}
	bad |= rc < 0;
	if ((rc = get_uint(b, s, "reserved", 1, 65535, &v)) > 0)
		f->reserved = (unsigned)v;
	bad |= rc < 0;
	if ((rc = get_uint(b, s, "volume-id", 0, UINT32_MAX, &v)) > 0) {
		f->volume_id_set = true;
		f->volume_id = (uint32_t)v;
	}
	bad |= rc < 0;
	return bad ? -EINVAL : 0;
}

static int build_fat(struct builder *b, struct sect *ps, struct layout_partition *p)
{
	struct layout_fat *f = &p->fat;
	struct sect s = { .no = scan_find_section(b->scan, ps->no, "fat") };

	*f = (struct layout_fat){
		.fats = 2, .data_align = b->l->image.align, .root_entries = 512,
		.oem_name = strdup("MSWIN4.1"),
	};
	if (!f->oem_name)
		return -ENOMEM;
	f->loc = p->loc;
	if (!cfg_size(ps->cfg, "fat"))
		return 0;
	s.cfg = cfg_getsec(ps->cfg, "fat");
	snprintf(s.what, sizeof(s.what), "%.280s: fat", ps->what);
	f->loc = scan_section_loc(b->scan, s.no);
	if (!layout_part_is_fat(p))
		return sect_error(b, &s, "a fat { } section needs type = fat, fat12, fat16 or fat32");
	int rc = read_fat_keys(b, &s, f);
	if (rc == 0 && f->root_entries != 512 && schema_get(s.cfg, "root-entries") &&
	    p->type == LAYOUT_PART_FAT32)
		rc = key_error(b, &s, "root-entries", "FAT32 has no fixed root directory");
	return rc;
}

/* ------------------------------------------------------------------ entries */

static int check_entry_path(struct builder *b, struct sect *s, const char *path,
			    enum layout_entry_kind kind)
{
	if (path[0] != '/')
		return sect_error(b, s, "the path must be absolute inside the partition ('/%s')",
				  path);
	if (kind != LAYOUT_ENTRY_TREE && path[1] == '\0')
		return sect_error(b, s, "'/' is the root directory itself");
	for (const char *p = path + 1; *p;) {
		size_t n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return sect_error(b, s, "'%s' has an empty, '.' or '..' component", path);
		p += n;
		if (*p == '/' && p[1] == '\0')
			return sect_error(b, s, "'%s' must not end in '/'", path);
		if (*p)
			p++;
	}
	return 0;
}

static int read_entry_keys(struct builder *b, struct sect *s, struct layout_entry *e)
{
	uint64_t v;
	int rc, bad = 0;

	if (e->kind == LAYOUT_ENTRY_DIR)
		return 0;
	bad |= get_string(b, s, "from", &e->from) < 0;
	if (e->kind == LAYOUT_ENTRY_TREE) {
		if (!e->from)
			bad |= sect_error(b, s, "'from' is required (a directory or an archive)") < 0;
		if ((rc = get_uint(b, s, "strip", 0, 255, &v)) > 0)
			e->strip = (unsigned)v;
		bad |= rc < 0;
		return bad ? -EINVAL : 0;
	}
	rc = get_string(b, s, "content", &e->content);
	bad |= rc < 0;
	if (rc > 0 && e->from)
		bad |= key_error(b, s, "content", "'from' and 'content' are both set; keep one") < 0;
	else if (rc == 0 && !e->from)
		bad |= sect_error(b, s, "needs 'from' (a host file) or 'content' (its text)") < 0;
	bad |= get_bool(b, s, "first", &e->first) < 0;
	const char *attrs = schema_get(s->cfg, "attrs");
	struct why why;
	if (attrs && value_attrs(attrs, &e->attrs, &why) < 0)
		bad |= key_error(b, s, "attrs", "%s", why.text) < 0;
	return bad ? -EINVAL : 0;
}

static int build_entry(struct builder *b, struct sect *ps, cfg_t *cfg, enum layout_entry_kind kind,
		       struct layout_entry *e)
{
	struct sect s;

	sect_init(b, &s, cfg, ps->what);
	e->kind = kind;
	e->loc = scan_section_loc(b->scan, s.no);
	if (!(e->path = strdup(b->scan->sections[s.no].title)))
		return -ENOMEM;
	int rc = check_entry_path(b, &s, e->path, kind);
	int rc2 = read_entry_keys(b, &s, e);
	return rc < 0 ? rc : rc2;
}

struct entry_ref {
	size_t no;
	enum layout_entry_kind kind;
	cfg_t *cfg;
};

static int entry_ref_order(const void *a, const void *b)
{
	const struct entry_ref *x = a, *y = b;

	return x->no < y->no ? -1 : x->no > y->no;
}

/* The entries in file order: the scan numbered every section as it met it. */
static struct entry_ref *entries_in_order(cfg_t *part, size_t *ret_n)
{
	static const char *const kinds[] = { "tree", "file", "dir" };
	size_t n = 0, total = 0;

	for (int k = 0; k < 3; k++)
		total += cfg_size(part, kinds[k]);
	struct entry_ref *refs = calloc(total ? total : 1, sizeof(*refs));
	if (!refs)
		return NULL;
	for (int k = 0; k < 3; k++)
		for (unsigned i = 0; i < cfg_size(part, kinds[k]); i++) {
			cfg_t *e = cfg_getnsec(part, kinds[k], i);
			refs[n++] = (struct entry_ref){ schema_section_number(e),
							(enum layout_entry_kind)k, e };
		}
	qsort(refs, n, sizeof(*refs), entry_ref_order);
	*ret_n = n;
	return refs;
}

static int build_entries(struct builder *b, struct sect *ps, struct layout_partition *p)
{
	size_t n = 0;
	int bad = 0;
	struct entry_ref *refs = entries_in_order(ps->cfg, &n);

	if (!refs || !(p->entries = calloc(n ? n : 1, sizeof(*p->entries)))) {
		free(refs);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		int rc = build_entry(b, ps, refs[i].cfg, refs[i].kind, &p->entries[i]);
		p->n_entries = i + 1;
		if (rc == -ENOMEM) {
			free(refs);
			return rc;
		}
		bad |= rc < 0;
	}
	free(refs);
	if (n && !layout_part_is_fat(p)) {
		struct layout_loc loc = p->entries[0].loc;
		return diag_error(b->d, "%s:%d: %s: tree, file and dir need a FAT partition "
					"(type = fat, fat12, fat16 or fat32)",
				  loc.file, loc.line, ps->what);
	}
	return bad ? -EINVAL : 0;
}

/* ------------------------------------------------------------------ partition */

static int read_part_size(struct builder *b, struct sect *s, struct layout_partition *p)
{
	const char *v = schema_get(s->cfg, "size");

	p->size_loc = key_loc(b, s, "size");
	if (!v || strcmp(v, "auto") == 0) {
		p->size_kind = LAYOUT_SIZE_AUTO;
		return 0;
	}
	if (strcmp(v, "grow") == 0) {
		p->size_kind = LAYOUT_SIZE_GROW;
		return 0;
	}
	p->size_kind = LAYOUT_SIZE_FIXED;
	int rc = get_size(b, s, "size", SIZE_SECTORS | SIZE_NONZERO, &p->size);
	return rc < 0 ? rc : 0;
}

static int read_table_keys(struct builder *b, struct sect *s, struct layout_partition *p)
{
	enum layout_table table = b->l->image.table;
	struct why why;
	uint64_t v;
	int rc, bad = 0;
	const char *gpt_only[] = { "gpt-type", "uuid", "label" };

	if ((rc = get_uint(b, s, "mbr-type", 1, 255, &v)) > 0) {
		if (v == 0x05 || v == 0x0f || v == 0x85)
			rc = key_error(b, s, "mbr-type", "0x%02llx is an extended partition type; "
					 "sdimg makes the extended partition itself", (unsigned long long)v);
		else if (table != LAYOUT_TABLE_MBR)
			rc = key_error(b, s, "mbr-type", "only an mbr table has type bytes");
		p->mbr_type = (uint8_t)v;
	}
	bad |= rc < 0;
	for (size_t i = 0; i < 3; i++)
		if (schema_get(s->cfg, gpt_only[i]) && table != LAYOUT_TABLE_GPT)
			bad |= key_error(b, s, gpt_only[i], "only a gpt table has it") < 0;
	const char *t = schema_get(s->cfg, "gpt-type");
	if (t && value_gpt_type(t, &p->gpt_type, &why) < 0)
		bad |= key_error(b, s, "gpt-type", "%s", why.text) < 0;
	const char *u = schema_get(s->cfg, "uuid");
	if (u && value_guid(u, &p->uuid, &why) < 0)
		bad |= key_error(b, s, "uuid", "%s", why.text) < 0;
	p->uuid_set = u != NULL;
	if ((rc = get_string(b, s, "label", &p->label)) > 0) {
		long units = utf8_utf16_units(p->label);
		if (units < 0)
			rc = key_error(b, s, "label", "is not valid UTF-8");
		else if (units > GPT_NAME_UNITS)
			rc = key_error(b, s, "label", "'%s' is longer than the %d UTF-16 units a GPT "
					 "partition name holds", p->label, GPT_NAME_UNITS);
	}
	bad |= rc < 0;
	return bad ? -EINVAL : 0;
}

static void set_type_defaults(struct layout_partition *p)
{
	struct why why;

	value_gpt_type(layout_part_is_fat(p) ? "msdata" : "linux", &p->gpt_type, &why);
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
		p->mbr_type = 0x83;
		break;
	case LAYOUT_PART_FAT:
		p->mbr_type = 0; /* follows the FAT type chosen for the size */
		break;
	}
}

static int read_part_keys(struct builder *b, struct sect *s, struct layout_partition *p)
{
	unsigned choice;
	int rc, bad = 0;

	if ((rc = get_choice(b, s, "type", part_type_names, &choice)) > 0)
		p->type = (enum layout_part_type)choice;
	bad |= rc < 0;
	set_type_defaults(p);
	rc = get_size(b, s, "start", SIZE_SECTORS, &p->start);
	p->start_set = rc > 0;
	p->start_loc = key_loc(b, s, "start");
	bad |= rc < 0;
	bad |= read_part_size(b, s, p) < 0;
	bad |= get_size(b, s, "extra", SIZE_SECTORS, &p->extra) < 0;
	if (schema_get(s->cfg, "extra") && p->size_kind != LAYOUT_SIZE_AUTO)
		bad |= key_error(b, s, "extra", "only adds to size = auto") < 0;
	if ((rc = get_string(b, s, "from", &p->from)) > 0 && layout_part_is_fat(p))
		rc = key_error(b, s, "from", "a FAT partition is filled with tree, file and dir; "
				 "'from' copies an image into a raw partition");
	bad |= rc < 0;
	bad |= get_bool(b, s, "bootable", &p->bootable) < 0;
	bad |= get_bool(b, s, "in-table", &p->in_table) < 0;
	bad |= read_table_keys(b, s, p) < 0;
	return bad ? -EINVAL : 0;
}

static int build_partition(struct builder *b, cfg_t *cfg, struct layout_partition *p)
{
	struct sect s;
	int rc, bad = 0;

	sect_init(b, &s, cfg, NULL);
	p->loc = scan_section_loc(b->scan, s.no);
	p->in_table = true;
	if (!(p->name = strdup(b->scan->sections[s.no].title)))
		return -ENOMEM;
	if (!*p->name)
		bad |= sect_error(b, &s, "a partition needs a name") < 0;
	bad |= read_part_keys(b, &s, p) < 0;
	if (!p->label && !(p->label = strdup(p->name)))
		return -ENOMEM;
	long units = utf8_utf16_units(p->label);
	if (b->l->image.table == LAYOUT_TABLE_GPT && !schema_get(s.cfg, "label") && units < 0)
		bad |= sect_error(b, &s, "the name is not valid UTF-8: set a 'label' that is") < 0;
	else if (b->l->image.table == LAYOUT_TABLE_GPT && !schema_get(s.cfg, "label") &&
		 units > GPT_NAME_UNITS)
		bad |= sect_error(b, &s, "the name is longer than the %d UTF-16 units of a GPT "
					 "partition name: set a shorter 'label'", GPT_NAME_UNITS) < 0;
	if ((rc = build_fat(b, &s, p)) == -ENOMEM)
		return rc;
	bad |= rc < 0;
	if ((rc = build_entries(b, &s, p)) == -ENOMEM)
		return rc;
	bad |= rc < 0;
	return bad ? -EINVAL : 0;
}

static int build_partition_item(struct builder *b, cfg_t *cfg, void *item)
{
	return build_partition(b, cfg, item);
}

int build_partitions(struct builder *b, cfg_t *top)
{
	return build_each(b, top, "partition", sizeof(*b->l->parts), build_partition_item,
			  (void **)&b->l->parts, &b->l->n_parts);
}
