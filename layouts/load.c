/* load: layout_load() and friends (see layouts.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/path.h"
#include "layouts/read_priv.h"
#include "layouts/readfile.h"

/* The layout from its tree: every section, then the rules that span sections. */
static int read_layout(struct reader *r)
{
	int rc = layout_read_image(r);
	int rc_raws, rc_parts;

	if (rc == -ENOMEM)
		return rc;
	rc_raws = layout_read_raws(r);
	if (rc_raws == -ENOMEM)
		return rc_raws;
	rc_parts = layout_read_partitions(r);
	if (rc_parts == -ENOMEM)
		return rc_parts;
	if (rc || rc_raws || rc_parts)
		return -EINVAL;
	return layout_validate(r);
}

int layout_load_text(const char *name, const char *text, const struct layout_options *opts,
		     struct diag *d, struct layout **ret_layout)
{
	struct doc doc;
	struct layout *l = calloc(1, sizeof(*l));
	int rc;

	if (!l)
		return diag_error(d, "%s: out of memory", name);
	rc = layout_parse(name, text, opts, d, &doc);
	if (rc == 0) {
		struct reader r = { .doc = &doc, .d = d, .l = l, .opts = opts };
		l->path = strdup(name);
		l->input_dir = opts && opts->input_dir ? strdup(opts->input_dir) : path_dir(name);
		rc = l->path && l->input_dir ? read_layout(&r) : -ENOMEM;
		if (rc == -ENOMEM)
			diag_error(d, "%s: out of memory", name);
	}
	/* the file names are referenced by every loc: they move to the layout */
	l->files = layout_doc_take_files(&doc, &l->n_files);
	layout_doc_release(&doc);
	if (rc < 0) {
		layout_free(l);
		return rc;
	}
	*ret_layout = l;
	return 0;
}

int layout_load(const char *path, const struct layout_options *opts, struct diag *d,
		struct layout **ret_layout)
{
	char *text = NULL;
	int rc = layout_read_text_file(path, &text);

	if (rc == -EILSEQ)
		return diag_error(d, "%s: not a text file (it holds a NUL byte)", path);
	if (rc < 0)
		return diag_error(d, "%s: %s", path, strerror(-rc));
	rc = layout_load_text(path, text, opts, d, ret_layout);
	free(text);
	return rc;
}

static void entry_release(struct layout_entry *e)
{
	free(e->path);
	free(e->from);
	free(e->content);
}

static void partition_release(struct layout_partition *p)
{
	free(p->name);
	free(p->from);
	free(p->label);
	free(p->fat.label);
	free(p->fat.oem_name);
	for (size_t i = 0; i < p->n_entries; i++)
		entry_release(&p->entries[i]);
	free(p->entries);
}

void layout_free(struct layout *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n_raws; i++) {
		free(l->raws[i].name);
		free(l->raws[i].from);
	}
	free(l->raws);
	for (size_t i = 0; i < l->n_parts; i++)
		partition_release(&l->parts[i]);
	free(l->parts);
	free(l->image.seed);
	for (size_t i = 0; i < l->n_files; i++)
		free(l->files[i]);
	free(l->files);
	free(l->path);
	free(l->input_dir);
	free(l);
}

const char *layout_part_type_name(enum layout_part_type t)
{
	static const char *const names[] = { "raw", "fat", "fat12", "fat16", "fat32" };
	return (unsigned)t < 5 ? names[t] : "?";
}

const char *layout_table_name(enum layout_table t)
{
	static const char *const names[] = { "mbr", "gpt", "none" };
	return (unsigned)t < 3 ? names[t] : "?";
}

unsigned layout_extended_slot(const struct layout *l)
{
	size_t n = 0;

	if (l->image.table != LAYOUT_TABLE_MBR)
		return 0;
	if (l->image.extended_slot)
		return l->image.extended_slot;
	for (size_t i = 0; i < l->n_parts; i++)
		n += l->parts[i].in_table;
	return n > 4 ? 4 : 0;
}

bool layout_part_is_fat(const struct layout_partition *p)
{
	return p->type != LAYOUT_PART_RAW;
}
