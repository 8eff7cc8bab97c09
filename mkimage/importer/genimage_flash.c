/* SPDX-License-Identifier: MIT */
/*
 * genimage_flash: a genimage flash image (a NOR flash's: partitions one after the other, the
 * bytes they leave 0xff) as raw regions with `fill-byte = 0xff`, byte for byte genimage's file.
 */
#include <inttypes.h>
#include <string.h>

#include "mkimage/importer/genimage.h"

/* The size of the flash the image names with `flashtype`: pebsize times numpebs. */
static int flash_size(struct gimport *g, uint64_t *ret)
{
	const char *type = import_gcfg_str(g->hd_image, "flashtype");
	const struct gcfg_node *f = NULL;
	uint64_t peb, n;
	int r;

	for (size_t i = 0; type && i < g->root->n_kids && !f; i++) {
		const struct gcfg_node *k = &g->root->kids[i];
		if (k->section && !strcmp(k->name, "flash") && k->title && !strcmp(k->title, type))
			f = k;
	}
	if (!f)
		return import_genimage_at(g, g->hd_image,
					  "image '%s': no flashtype names a flash section",
					  g->hd_image->title);
	if ((r = import_genimage_key_size(g, f, "pebsize", &peb)) ||
	    (r = import_genimage_key_size(g, f, "numpebs", &n)))
		return r;
	if (!peb || !n || peb > UINT64_MAX / n)
		return import_genimage_at(g, f, "flash '%s': pebsize and numpebs must be set",
					  f->title);
	*ret = peb * n;
	return 0;
}

/* Erased flash between the partitions (and after the last): 0xff that genimage writes. */
static void put_erased(FILE *out, uint64_t from, uint64_t to, unsigned *n)
{
	if (from < to)
		fprintf(out,
			"\nraw erased-%u { offset = %" PRIu64 " size = %" PRIu64
			" fill = true fill-byte = 0xff }\n",
			++*n, from, to - from);
}

static void put_flash_part(FILE *out, const struct gcfg_node *n, const char *image, uint64_t offset,
			   uint64_t size)
{
	fputs("\nraw ", out);
	import_genimage_put_name(out, n->title);
	fprintf(out, " {\n    offset = %" PRIu64 "\n    size = %" PRIu64 "\n", offset, size);
	if (image) {
		fprintf(out, "    from = ");
		import_genimage_put_quoted(out, image);
		fputc('\n', out);
	}
	fprintf(out, "    fill = true\n    fill-byte = 0xff   # erased flash%s\n}\n",
		image ? " after the image" : "");
}

/* One partition of a flash image at or after *@now; the last one without size takes the
 * rest of the flash (genimage refuses that on any other). */
static int flash_part(struct gimport *g, FILE *out, const struct gcfg_node *n, bool last,
		      uint64_t end, uint64_t *now, unsigned *erased)
{
	static const char *const known[] = { "offset", "size", "image", NULL };
	uint64_t offset, size;
	int r;

	if (!n->title)
		return import_genimage_at(g, n, "a partition without a name%s", NULL);
	if ((r = import_genimage_only_keys(g, n, known, NULL, n->title)) ||
	    (r = import_genimage_key_size(g, n, "offset", &offset)) ||
	    (r = import_genimage_key_size(g, n, "size", &size)))
		return r;
	if (offset && offset < *now)
		return import_genimage_at(g, n, "partition '%s' overlaps the partition before it",
					  n->title);
	if (!offset)
		offset = *now;
	if (!size && !last)
		return import_genimage_at(g, n,
					  "partition '%s': only the last partition may have no "
					  "size (genimage "
					  "refuses it too)",
					  n->title);
	if (!size && offset < end)
		size = end - offset;
	if (!size || offset > end || size > end - offset)
		return import_genimage_at(g, n, "partition '%s' does not fit in the flash",
					  n->title);
	put_erased(out, *now, offset, erased);
	put_flash_part(out, n, import_gcfg_str(n, "image"), offset, size);
	*now = offset + size;
	return 0;
}

/* A flash image: a layout without a table, as long as the flash, its erased bytes 0xff. */
int import_genimage_flash(struct gimport *g, FILE *out)
{
	static const char *const flash_keys[] = { NULL };
	static const char *const image_keys[] = { "flashtype", "size", NULL };
	uint64_t end = 0, now = 0;
	unsigned erased = 0;
	size_t last = 0;
	int r;

	if ((r = import_genimage_only_keys(g, g->hd, flash_keys, NULL, "flash")) ||
	    (r = import_genimage_only_keys(g, g->hd_image, image_keys, "partition",
					   g->hd_image->title)) ||
	    (r = flash_size(g, &end)))
		return r;
	for (size_t i = 0; i < g->hd_image->n_kids; i++)
		if (g->hd_image->kids[i].section && !strcmp(g->hd_image->kids[i].name, "partition"))
			last = i;
	fprintf(out, "# imported by sdimg import from %s: genimage flash image '%s'\n", g->path,
		g->hd_image->title);
	fprintf(out, "image {\n    table = none\n    size = %" PRIu64 "   # the flash's\n}\n", end);
	for (size_t i = 0; i < g->hd_image->n_kids && !r; i++) {
		const struct gcfg_node *k = &g->hd_image->kids[i];
		if (k->section && !strcmp(k->name, "partition"))
			r = flash_part(g, out, k, i == last, end, &now, &erased);
	}
	if (!r)
		put_erased(out, now, end, &erased);
	return r;
}
