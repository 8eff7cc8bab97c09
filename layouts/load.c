/* SPDX-License-Identifier: MIT */
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

/* -I's folders in order, or else the folder of the layout file @name. */
static int set_input_dirs(struct layout *l, const char *name, const struct layout_options *opts)
{
	size_t n = opts && opts->n_input_dirs ? opts->n_input_dirs : 1;

	if (!(l->input_dirs = calloc(n, sizeof(*l->input_dirs))))
		return -ENOMEM;
	for (; l->n_input_dirs < n; l->n_input_dirs++) {
		char *dir = opts && opts->n_input_dirs ? strdup(opts->input_dirs[l->n_input_dirs])
						       : path_dir(name);
		if (!dir)
			return -ENOMEM;
		l->input_dirs[l->n_input_dirs] = dir;
	}
	return 0;
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
		rc = l->path ? set_input_dirs(l, name, opts) : -ENOMEM;
		if (rc == 0)
			rc = read_layout(&r);
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
	char why[160];
	int rc = layout_read_text_file(path, LAYOUT_TEXT_MAX, &text);

	if (rc < 0)
		return diag_error(d, "%s: %s", path,
				  layout_read_text_problem(rc, why, sizeof(why)));
	rc = layout_load_text(path, text, opts, d, ret_layout);
	free(text);
	return rc;
}

static void entry_release(struct layout_entry *e)
{
	for (size_t i = 0; i < e->n_include; i++)
		free(e->include[i]);
	free(e->include);
	for (size_t i = 0; i < e->n_exclude; i++)
		free(e->exclude[i]);
	free(e->exclude);
	free(e->path);
	free(e->from);
	free(e->content);
}

static void partition_release(struct layout_partition *p)
{
	free(p->name);
	free(p->from);
	free(p->off_grid);
	free(p->holes);
	free(p->label);
	free(p->fat.label);
	free(p->fat.oem_name);
	free(p->ext4.label);
	free(p->ext4.features);
	free(p->exfat.label);
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
		free(l->raws[i].holes);
		layout_uboot_env_free(l->raws[i].env);
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
	for (size_t i = 0; i < l->n_input_dirs; i++)
		free(l->input_dirs[i]);
	free(l->input_dirs);
	free(l);
}
