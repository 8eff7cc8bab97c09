/* SPDX-License-Identifier: MIT */
/*
 * genimage: a genimage configuration's hdimage image as a layout. The placement is
 * genimage's (as its hdimage handler lays partitions out: every start after the previous
 * partition in the list, rounded up to `align`, 512 bytes unless set; a partition from an
 * image file as large as the file, rounded up to `align` when it is in the table; a GPT
 * image ending on a 4 KiB boundary after the backup table), computed here and pinned with
 * explicit keys, so that the imported card has the partition table genimage writes. A flash
 * image (a NOR flash's: partitions one after the other, the bytes they leave 0xff) becomes
 * raw regions with `fill-byte = 0xff`, byte for byte genimage's file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/path.h"
#include "mkimage/importer/genimage.h"

int import_genimage_at(struct gimport *g, const struct gcfg_node *n, const char *fmt,
		       const char *what)
{
	char msg[512];

	snprintf(msg, sizeof(msg), fmt, what ? what : "");
	return diag_error(g->d, "%s:%u: %s", n->file, n->line, msg);
}

/* The type section of image @img (hdimage, vfat, ext4, ...), or NULL. */
const struct gcfg_node *import_genimage_image_type(const struct gcfg_node *img)
{
	for (size_t i = 0; i < img->n_kids; i++)
		if (img->kids[i].section && strcmp(img->kids[i].name, "partition") &&
		    !img->kids[i].title)
			return &img->kids[i];
	return NULL;
}

const struct gcfg_node *import_genimage_find_image(const struct gcfg_node *root, const char *name)
{
	for (size_t i = 0; i < root->n_kids; i++) {
		const struct gcfg_node *k = &root->kids[i];
		if (k->section && !strcmp(k->name, "image") && k->title && !strcmp(k->title, name))
			return k;
	}
	return NULL;
}

/* Picks the hdimage or flash image: o->image, or the only one. */
static int pick_hdimage(struct gimport *g)
{
	size_t n = 0;

	for (size_t i = 0; i < g->root->n_kids; i++) {
		const struct gcfg_node *k = &g->root->kids[i];
		const struct gcfg_node *t;
		if (!k->section || strcmp(k->name, "image") || !k->title)
			continue;
		t = import_genimage_image_type(k);
		if (!t || (strcmp(t->name, "hdimage") && strcmp(t->name, "flash")))
			continue;
		if (g->o->image && strcmp(g->o->image, k->title))
			continue;
		if (n++ == 0) {
			g->hd_image = k;
			g->hd = t;
		}
	}
	if (n == 1)
		return 0;
	if (g->o->image)
		return diag_error(g->d, "%s: no hdimage image '%s'", g->path, g->o->image);
	if (n == 0)
		return diag_error(g->d, "%s: no hdimage image: nothing to import", g->path);
	return diag_error(g->d, "%s: %zu hdimage images: choose one with --image NAME", g->path, n);
}

int import_genimage_key_size(struct gimport *g, const struct gcfg_node *s, const char *key,
			     uint64_t *ret)
{
	const struct gcfg_node *k = import_gcfg_key(s, key);

	*ret = 0;
	if (!k)
		return 0;
	if (k->n_values != 1 || import_gcfg_size(k->values[0], ret))
		return diag_error(g->d, "%s:%u: %s: not a size: '%s'", k->file, k->line, key,
				  k->n_values ? k->values[0] : "");
	return 0;
}

int import_genimage_key_bool(struct gimport *g, const struct gcfg_node *s, const char *key,
			     bool dflt, bool *ret)
{
	const struct gcfg_node *k = import_gcfg_key(s, key);

	*ret = dflt;
	if (k && (k->n_values != 1 || import_gcfg_bool(k->values[0], ret)))
		return diag_error(g->d, "%s:%u: %s: not a boolean: '%s'", k->file, k->line, key,
				  k->n_values ? k->values[0] : "");
	return 0;
}

static int read_table_kind(struct gimport *g)
{
	const char *t = import_gcfg_str(g->hd, "partition-table-type");
	bool gpt, table;
	int r;

	if (t) {
		static const char *const names[] = { "mbr", "gpt", "hybrid", "none" };
		for (size_t i = 0; i < 4; i++)
			if (!strcmp(t, names[i])) {
				g->table = (enum table_kind)i;
				return 0;
			}
		return import_genimage_at(g, import_gcfg_key(g->hd, "partition-table-type"),
					  "partition-table-type: '%s' is none of mbr, gpt, hybrid, "
					  "none",
					  t);
	}
	/* genimage's older spellings */
	if ((r = import_genimage_key_bool(g, g->hd, "gpt", false, &gpt)) ||
	    (r = import_genimage_key_bool(g, g->hd, "partition-table", true, &table)))
		return r;
	g->table = !table ? TABLE_NONE : gpt ? TABLE_GPT : TABLE_MBR;
	return 0;
}

/*
 * Every key of @s is one of @known: any other (genimage's `fill`, `gpt-no-backup`, a
 * partition's `hidden`, ...) changes the card in a way the import does not translate, and
 * one a genimage does not know is refused all the same. Sections other than @section
 * (NULL: none) are refused too.
 */
int import_genimage_only_keys(struct gimport *g, const struct gcfg_node *s,
			      const char *const *known, const char *section, const char *what)
{
	for (size_t i = 0; i < s->n_kids; i++) {
		const struct gcfg_node *k = &s->kids[i];
		bool ok = false;
		if (k->section) {
			ok = section && !strcmp(k->name, section);
			if (!ok && k == g->hd)
				ok = s == g->hd_image;
		}
		for (size_t j = 0; !k->section && known[j] && !ok; j++)
			ok = !strcmp(k->name, known[j]);
		if (!ok)
			return diag_error(g->d,
					  "%s:%u: %s: '%s' cannot be imported: sdimg would write "
					  "another card",
					  k->file, k->line, what, k->name);
	}
	return 0;
}

static int read_hdimage(struct gimport *g)
{
	static const char *const hd_keys[] = { "partition-table-type", "gpt",
					       "partition-table",      "align",
					       "disk-signature",       "disk-uuid",
					       "extended-partition",   "fill",
					       "gpt-location",         NULL };
	static const char *const image_keys[] = { "size", NULL };
	int r;

	if ((r = read_table_kind(g)) ||
	    (r = import_genimage_key_size(g, g->hd, "align", &g->align)) ||
	    (r = import_genimage_key_size(g, g->hd, "gpt-location", &g->gpt_location)) ||
	    (r = import_genimage_key_size(g, g->hd_image, "size", &g->image_size)) ||
	    (r = import_genimage_key_bool(g, g->hd, "fill", false, &g->fill)))
		return r;
	if ((r = import_genimage_only_keys(g, g->hd, hd_keys, NULL, "hdimage")) ||
	    (r = import_genimage_only_keys(g, g->hd_image, image_keys, "partition",
					   g->hd_image->title)))
		return r;
	if (g->table == TABLE_HYBRID)
		return import_genimage_at(g, g->hd,
					  "hdimage: partition-table-type = hybrid cannot be "
					  "imported: genimage's "
					  "0xEE entry covers only the GPT header and entries, "
					  "sdimg's reaches the "
					  "first mirrored partition; by hand, table = hybrid with "
					  "hybrid-ee = last "
					  "puts it after the mirrored entries as genimage does%s",
					  NULL);
	if (!g->align)
		g->align = g->table == TABLE_NONE ? 1 : SECTOR;
	if (g->table != TABLE_NONE && g->align % SECTOR)
		return import_genimage_at(g, g->hd,
					  "hdimage: align must be a multiple of 512 bytes%s", NULL);
	if (!g->gpt_location)
		g->gpt_location = 2 * SECTOR;
	return 0;
}

/* The size of input file @name: found in the input folders (else the config's folder). */
int import_genimage_input_size(struct gimport *g, const char *name, uint64_t *ret, bool *is_dir)
{
	const char *const *dirs = g->o->input_dirs;
	size_t n = g->o->n_input_dirs;
	char *own = path_dir(g->path);
	const char *fallback[1] = { own };
	int found = -ENOENT;

	if (!own)
		return -ENOMEM;
	if (!n) {
		dirs = fallback;
		n = 1;
	}
	for (size_t i = 0; i < n && found; i++) {
		char *p = path_join(dirs[i], name);
		struct stat st;
		if (!p) {
			found = -ENOMEM;
			break;
		}
		if (stat(p, &st) == 0) {
			if (import_inputs_note(g->o->inputs, p) < 0) {
				free(p);
				found = -ENOMEM;
				break;
			}
			*ret = (uint64_t)st.st_size;
			if (is_dir)
				*is_dir = S_ISDIR(st.st_mode);
			found = 0;
		}
		free(p);
	}
	free(own);
	return found;
}

uint64_t import_genimage_round_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

/* The size of what partition @p holds: the config image's `size` or the input file's. */
static int content_size(struct gimport *g, struct gpart *p, uint64_t *ret)
{
	int r;

	if (p->child) {
		if ((r = import_genimage_key_size(g, p->child, "size", ret)))
			return r;
		if (*ret)
			return 0;
		return import_genimage_at(g, p->child,
					  "image '%s': its size is not set, and the import cannot "
					  "know the "
					  "size genimage will give it: set `size`",
					  p->child->title);
	}
	r = import_genimage_input_size(g, p->image, ret, NULL);
	if (r == -ENOENT)
		return import_genimage_at(g, p->n,
					  "image '%s' is not there: the import needs its size to "
					  "place the "
					  "partitions as genimage does (give its folder with -I "
					  "DIR)",
					  p->image);
	return r;
}

/* genimage's `holes = { "(START; END)", ... }` (byte ranges of the partition's image that
 * are not written) as sdimg's `holes = "START-END, ..."`. */
static int read_holes(struct gimport *g, const struct gcfg_node *n, struct gpart *p)
{
	const struct gcfg_node *k = import_gcfg_key(n, "holes");
	size_t used = 0;

	for (size_t i = 0; k && i < k->n_values; i++) {
		char a[32], b[32], close;
		uint64_t start, end;
		int w;
		if (sscanf(k->values[i], " (%31[^;]; %31[^)]%c", a, b, &close) != 3 ||
		    close != ')' || import_gcfg_size(a, &start) || import_gcfg_size(b, &end) ||
		    end <= start)
			return import_genimage_at(g, k, "holes: '%s' is no \"(START; END)\"",
						  k->values[i]);
		w = snprintf(p->holes + used, sizeof(p->holes) - used, "%s%" PRIu64 "-%" PRIu64,
			     used ? ", " : "", start, end);
		if (w < 0 || (size_t)w >= sizeof(p->holes) - used)
			return import_genimage_at(g, k, "holes: too many ranges%s", NULL);
		used += (size_t)w;
	}
	return 0;
}

/*
 * MBR: the entry of the extended partition (genimage's `extended-partition`, else 4 when
 * more than four partitions are in the table), into g->extended.
 */
static int count_entries(struct gimport *g)
{
	const struct gcfg_node *k = import_gcfg_key(g->hd, "extended-partition");
	unsigned n = 0;
	uint64_t v = 0;

	for (size_t i = 0; i < g->hd_image->n_kids; i++) {
		const struct gcfg_node *s = &g->hd_image->kids[i];
		bool in = true;
		int r;
		if (!s->section || strcmp(s->name, "partition"))
			continue;
		if ((r = import_genimage_key_bool(g, s, "in-partition-table", true, &in)))
			return r;
		n += in;
	}
	if (k && (k->n_values != 1 || import_gcfg_size(k->values[0], &v) || v > 4))
		return import_genimage_at(g, k, "extended-partition: '%s' is no entry 0 to 4",
					  k->n_values ? k->values[0] : "");
	if (g->table != TABLE_MBR)
		return 0;
	g->extended = v ? (unsigned)v : n > 4 ? 4 : 0;
	return 0;
}

/*
 * A logical partition (in the table, at or after the extended entry, not forced-primary):
 * genimage keeps `align` bytes before it for its EBR. sdimg's EBR is the sector before the
 * partition, so only genimage's 512-byte alignment puts it at the same place.
 */
static int place_logical(struct gimport *g, const struct gcfg_node *n, struct gpart *p,
			 uint64_t *now)
{
	bool primary;
	int r;

	if (!p->in_table)
		return 0;
	g->entries++;
	if ((r = import_genimage_key_bool(g, n, "forced-primary", false, &primary)))
		return r;
	p->logical = g->extended && g->entries >= g->extended && !primary;
	if (!p->logical)
		return 0;
	if (g->align != SECTOR)
		return import_genimage_at(g, n,
					  "partition '%s': a logical partition with an align of "
					  "more than 512: "
					  "genimage's EBR would not be the sector before it, "
					  "sdimg's is",
					  n->title);
	if (import_gcfg_key(n, "offset"))
		return import_genimage_at(g, n,
					  "partition '%s': a logical partition with an offset "
					  "cannot be "
					  "imported",
					  n->title);
	if (*now == 0)
		*now = SECTOR;
	*now = import_genimage_round_up(*now, g->align) + g->align;
	return 0;
}

static int read_part(struct gimport *g, const struct gcfg_node *n, uint64_t *now)
{
	static const char *const known[] = { "offset",
					     "size",
					     "align",
					     "image",
					     "in-partition-table",
					     "partition-type",
					     "partition-type-uuid",
					     "partition-uuid",
					     "bootable",
					     "forced-primary",
					     "autoresize",
					     "holes",
					     "fill",
					     "sparse",
					     NULL };
	struct gpart *p;
	int r;

	if (g->n_parts == MAX_PARTS)
		return import_genimage_at(g, n, "more than 128 partitions%s", NULL);
	p = &g->parts[g->n_parts++];
	memset(p, 0, sizeof(*p));
	p->n = n;
	if (!n->title)
		return import_genimage_at(g, n, "a partition without a name%s", NULL);
	if ((r = import_genimage_only_keys(g, n, known, NULL, n->title)) ||
	    (r = import_genimage_key_bool(g, n, "in-partition-table", true, &p->in_table)) ||
	    (r = import_genimage_key_size(g, n, "offset", &p->offset)) ||
	    (r = import_genimage_key_size(g, n, "size", &p->size)) ||
	    (r = import_genimage_key_size(g, n, "align", &p->align)) || (r = read_holes(g, n, p)) ||
	    (r = import_genimage_key_bool(g, n, "fill", false, &p->fill)) ||
	    (r = import_genimage_key_bool(g, n, "sparse", true, &p->sparse)))
		return r;
	if (g->table == TABLE_NONE)
		p->in_table = false;
	if (!p->align)
		p->align = p->in_table || g->table == TABLE_NONE ? g->align : 1;
	if (p->in_table && p->align % g->align)
		return import_genimage_at(g, n,
					  "partition '%s': align is no multiple of the hdimage's",
					  n->title);
	p->image = import_gcfg_str(n, "image");
	if (p->image) {
		p->child = import_genimage_find_image(g->root, p->image);
		const struct gcfg_node *t = p->child ? import_genimage_image_type(p->child) : NULL;
		p->child_type = t ? t->name : NULL;
	}
	if ((r = place_logical(g, n, p, now)))
		return r;
	if (!import_gcfg_key(n, "offset") || (p->in_table && !p->offset)) {
		if (!p->in_table && g->table != TABLE_NONE)
			return import_genimage_at(g, n,
						  "partition '%s': outside the table without an "
						  "offset (genimage "
						  "puts it at 0, over the partition table)",
						  n->title);
		if (*now == 0 && g->table != TABLE_NONE)
			*now = g->table == TABLE_MBR ? SECTOR : g->gpt_location + GPT_ARRAY_BYTES;
		p->offset = import_genimage_round_up(*now, p->align);
	} else if (p->in_table && p->offset < *now) {
		return import_genimage_at(g, n, "partition '%s' overlaps the partition before it",
					  n->title);
	}
	bool autoresize;
	if ((r = import_genimage_key_bool(g, n, "autoresize", false, &autoresize)))
		return r;
	if (autoresize) {
		uint64_t end = g->image_size - (g->table == TABLE_GPT ? GPT_BACKUP_BYTES : 0);
		if (!g->image_size || end <= p->offset)
			return import_genimage_at(g, n,
						  "partition '%s': autoresize needs the image's "
						  "size",
						  n->title);
		/* genimage rounds the rest down to the partition's alignment */
		p->size = (end - p->offset) / p->align * p->align;
	}
	if (p->image && g->table == TABLE_NONE) {
		uint64_t c;
		if ((r = content_size(g, p, &c)))
			return r;
		g->data_end = p->offset + c > g->data_end ? p->offset + c : g->data_end;
	}
	if (!p->size && p->image) {
		uint64_t c;
		if ((r = content_size(g, p, &c)))
			return r;
		p->size = p->in_table ? import_genimage_round_up(c, p->align) : c;
	}
	if (!p->size)
		return import_genimage_at(g, n, "partition '%s': its size is zero", n->title);
	if (p->in_table && (p->offset % SECTOR || p->size % SECTOR))
		return import_genimage_at(g, n,
					  "partition '%s': its start and size must be whole "
					  "sectors",
					  n->title);
	/* an offset the config gives off the grid is the board's (a boot ROM reads a loader
	 * there): acknowledged, it stays; the others follow genimage's placement and can move */
	if (p->in_table && p->offset % IMPORT_SD_GRID && import_gcfg_key(n, "offset"))
		p->fixed_off_grid = true;
	else if (p->in_table && p->offset % IMPORT_SD_GRID)
		g->off_grid = true;
	/* a filled partition's zeros are written: without a table the file reaches its end */
	if (p->fill && g->table == TABLE_NONE && p->offset + p->size > g->data_end)
		g->data_end = p->offset + p->size;
	*now = p->offset + p->size;
	return 0;
}

static int read_parts(struct gimport *g)
{
	uint64_t now = 0;
	int r = count_entries(g);

	for (size_t i = 0; i < g->hd_image->n_kids && !r; i++) {
		const struct gcfg_node *k = &g->hd_image->kids[i];
		if (k->section && !strcmp(k->name, "partition"))
			r = read_part(g, k, &now);
	}
	if (r)
		return r;
	if (g->table == TABLE_GPT && !g->image_size)
		g->image_size = import_genimage_round_up(now + GPT_BACKUP_BYTES, 4096);
	/* without a table, genimage's file ends with the last bytes it copied, or with the
	 * last region when the hdimage has `fill` */
	if (g->table == TABLE_NONE && !g->image_size)
		g->image_size = g->fill ? now : g->data_end;
	if (g->image_size && g->image_size < now && import_gcfg_key(g->hd_image, "size"))
		return import_genimage_at(g, g->hd_image,
					  "image '%s': the partitions exceed its size",
					  g->hd_image->title);
	return 0;
}

/* Checks what a vfat image holds: its `files`, `file NAME { image }` and `label`. */
static int check_vfat(struct gimport *g, const struct gcfg_node *vfat)
{
	for (size_t i = 0; i < vfat->n_kids; i++) {
		const struct gcfg_node *k = &vfat->kids[i];
		if (k->section ? strcmp(k->name, "file") || !import_gcfg_str(k, "image")
			       : strcmp(k->name, "files") && strcmp(k->name, "label") &&
					 strcmp(k->name, "extraargs"))
			return import_genimage_at(g, k, "vfat: '%s' cannot be imported", k->name);
	}
	return 0;
}

static int check_parts(struct gimport *g)
{
	int r;

	for (size_t i = 0; i < g->n_parts; i++) {
		const struct gpart *p = &g->parts[i];
		const struct gcfg_node *t = p->child ? import_genimage_image_type(p->child) : NULL;
		if (!p->in_table && !p->image)
			continue;
		if (!p->in_table && (p->child_type && (!strcmp(p->child_type, "vfat") ||
						       !strcmp(p->child_type, "ext4"))))
			return import_genimage_at(g, p->n,
						  "partition '%s': a file system outside the table "
						  "cannot "
						  "be imported",
						  p->n->title);
		if (t && (!strcmp(t->name, "vfat") || !strcmp(t->name, "ext4")) &&
		    (p->fill || !p->sparse))
			return import_genimage_at(g, p->n,
						  "partition '%s': fill or sparse on a file system "
						  "sdimg makes "
						  "cannot be imported",
						  p->n->title);
		if (t && !strcmp(t->name, "vfat") && (r = check_vfat(g, t)))
			return r;
		if (t && !strcmp(t->name, "ext4") && import_gcfg_key(p->n, "size"))
			return import_genimage_at(g, p->n,
						  "partition '%s': a size other than its ext4 "
						  "image's cannot "
						  "be imported",
						  p->n->title);
		if (g->table == TABLE_MBR && p->in_table &&
		    !import_gcfg_key(p->n, "partition-type"))
			return import_genimage_at(g, p->n,
						  "partition '%s': no partition-type: genimage "
						  "writes type 0 (an "
						  "empty entry to most tools), which a layout "
						  "cannot; set the type",
						  p->n->title);
		if (g->table == TABLE_MBR && import_gcfg_key(p->n, "partition-type-uuid"))
			return import_genimage_at(g, import_gcfg_key(p->n, "partition-type-uuid"),
						  "partition-type-uuid on an MBR%s", NULL);
		if (g->table == TABLE_GPT && import_gcfg_key(p->n, "partition-type"))
			return import_genimage_at(g, import_gcfg_key(p->n, "partition-type"),
						  "partition-type on a GPT (genimage refuses it "
						  "too)%s",
						  NULL);
	}
	return 0;
}

/* A %NAME% of a template (a board's script replaces it before genimage runs) in @s. */
static int refuse_placeholders(struct gimport *g, const struct gcfg_node *s)
{
	for (size_t i = 0; i < s->n_kids; i++) {
		const struct gcfg_node *k = &s->kids[i];
		int r;
		if (k->section) {
			if ((r = refuse_placeholders(g, k)))
				return r;
			continue;
		}
		for (size_t j = 0; j < k->n_values; j++) {
			const char *a = strchr(k->values[j], '%'),
				   *b = a ? strchr(a + 1, '%') : NULL;
			if (b && b > a + 1 &&
			    strspn(a + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
				    (size_t)(b - a - 1))
				return diag_error(g->d,
						  "%s:%u: %s: '%.*s' is a template's placeholder: "
						  "fill "
						  "the template in first",
						  k->file, k->line, k->name, (int)(b - a + 1), a);
		}
	}
	return 0;
}

/* refuse_placeholders() over the hdimage image and the images its partitions name. */
static int refuse_template(struct gimport *g)
{
	int r = refuse_placeholders(g, g->hd_image);

	for (size_t i = 0; i < g->hd_image->n_kids && !r; i++) {
		const struct gcfg_node *k = &g->hd_image->kids[i];
		const char *img = k->section ? import_gcfg_str(k, "image") : NULL;
		const struct gcfg_node *child = img ? import_genimage_find_image(g->root, img)
						    : NULL;
		if (child)
			r = refuse_placeholders(g, child);
	}
	return r;
}

/* ---- a flash image: partitions one after the other, every byte they leave 0xff */

static int translate(struct gimport *g, FILE *out)
{
	int r;

	if ((r = pick_hdimage(g)) || (r = refuse_template(g)))
		return r;
	if (!strcmp(g->hd->name, "flash"))
		return import_genimage_flash(g, out);
	if ((r = read_hdimage(g)) || (r = read_parts(g)) || (r = check_parts(g)))
		return r;
	import_genimage_write(g, out);
	if (g->extended)
		diag_note(g->d,
			  "%s: the EBRs of the logical partitions link to the next with type 0x05, "
			  "where genimage writes 0x0f: the partitions are the same",
			  g->path);
	if (g->off_grid)
		diag_note(g->d,
			  "%s: partitions are off the 4 MiB erase-block grid: delete the "
			  "`align` and `start` lines to move them",
			  g->path);
	return 0;
}

int import_genimage(const char *path, const struct import_options *o, FILE *out, struct diag *d)
{
	struct gimport g = { .path = path, .o = o, .d = d };
	struct gcfg_node *root;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	int r = import_gcfg_parse_file(path, o, d, &root);

	if (r)
		return r;
	g.root = root;
	mem = open_memstream(&text, &len);
	if (!mem) {
		import_gcfg_free(root);
		return diag_errno(d, -ENOMEM, "%s: out of memory", path);
	}
	r = translate(&g, mem);
	if (fclose(mem) && !r)
		r = diag_errno(d, -ENOMEM, "%s: out of memory", path);
	if (!r && fwrite(text, 1, len, out) != len)
		r = diag_errno(d, -EIO, "%s: cannot write the layout", path);
	free(text);
	import_gcfg_free(root);
	return r;
}
