/* SPDX-License-Identifier: MIT */
/*
 * genimage_write: the layout of a genimage hdimage, from the partitions genimage.c placed:
 * every partition pinned at genimage's offset and size, its file system or image, and the
 * raw regions of the images outside the table.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/path.h"
#include "mkimage/importer/genimage.h"

void import_genimage_put_quoted(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\' || *s == '$')
			fputc('\\', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/* A section's name: as it is when it is a plain word of letters, digits, '_', '-' and '.',
 * else quoted (genimage takes any string: "boot part"). */
void import_genimage_put_name(FILE *out, const char *s)
{
	bool plain = *s != '\0';

	for (const char *c = s; *c && plain; c++)
		plain = isalnum((unsigned char)*c) || strchr("_-.", *c);
	if (plain)
		fputs(s, out);
	else
		import_genimage_put_quoted(out, s);
}

/* genimage's partition-type-uuid shortcuts and names as sdimg's GPT type words. */
static const char *gpt_type_word(const char *v, char *buf, size_t n)
{
	static const char *const same[][2] = {
		{ "L", "linux" },
		{ "S", "swap" },
		{ "H", "linux-home" },
		{ "U", "esp" },
		{ "V", "lvm" },
		{ "R", "raid" },
		{ "F", "msdata" },
		{ "esp", "esp" },
		{ "uefi", "esp" },
		{ "linux", "linux" },
		{ "swap", "swap" },
		{ "home", "linux-home" },
		{ "xbootldr", "xbootldr" },
		{ "srv", "linux-srv" },
		{ "var", "linux-var" },
		{ "tmp", "linux-var-tmp" },
	};
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++)
		if (!strcmp(v, same[i][0]))
			return same[i][1];
	if (!strncmp(v, "root-", 5) || !strncmp(v, "usr-", 4)) {
		snprintf(buf, n, "linux-%s", v);
		return buf;
	}
	return v;
}

static void put_files(FILE *out, struct gimport *g, const struct gcfg_node *vfat)
{
	for (size_t i = 0; i < vfat->n_kids; i++) {
		const struct gcfg_node *k = &vfat->kids[i];
		if (!k->section && !strcmp(k->name, "files")) {
			for (size_t j = 0; j < k->n_values; j++) {
				const char *v = k->values[j], *base = strrchr(v, '/');
				uint64_t sz;
				bool dir = false;
				base = base && base[1] ? base + 1 : v;
				if (import_genimage_input_size(g, v, &sz, &dir) == 0 && dir) {
					fprintf(out, "    tree \"/%s\" { from = ", base);
					char *slash = path_join(v, "");
					import_genimage_put_quoted(out, slash ? slash : v);
					free(slash);
				} else {
					fprintf(out, "    file \"/%s\" { from = ", base);
					import_genimage_put_quoted(out, v);
				}
				fprintf(out, " }\n");
			}
		} else if (k->section && !strcmp(k->name, "file") && k->title) {
			const char *img = import_gcfg_str(k, "image");
			uint64_t sz;
			bool dir = false;
			if (!img)
				continue;
			dir = import_genimage_input_size(g, img, &sz, &dir) == 0 && dir;
			fprintf(out, "    %s \"/%s\" { from = ", dir ? "tree" : "file", k->title);
			import_genimage_put_quoted(out, img);
			fprintf(out, " }\n");
		}
	}
}

/* genimage's `fill` and `sparse = false` of a partition, the same keys of a raw one. */
static void put_fill(FILE *out, const struct gpart *p)
{
	if (p->fill)
		fprintf(out, "    fill = true   # %s\n",
			p->image ? "the image, then zeros to the end" : "zeros written");
	if (p->image && !p->sparse)
		fprintf(out, "    sparse = false   # the image's zeros written too\n");
}

static void put_partition(FILE *out, struct gimport *g, const struct gpart *p)
{
	const char *mbr_type = import_gcfg_str(p->n, "partition-type");
	const char *gpt_type = import_gcfg_str(p->n, "partition-type-uuid");
	const char *uuid = import_gcfg_str(p->n, "partition-uuid");
	const struct gcfg_node *t = p->child ? import_genimage_image_type(p->child) : NULL;
	bool fat = t && !strcmp(t->name, "vfat");
	bool ext4 = t && !strcmp(t->name, "ext4");
	bool bootable = false, primary = false;
	char buf[64];

	import_genimage_key_bool(g, p->n, "bootable", false, &bootable);
	import_genimage_key_bool(g, p->n, "forced-primary", false, &primary);
	fputs("\npartition ", out);
	import_genimage_put_name(out, p->n->title);
	fputs(" {\n", out);
	if (fat)
		fprintf(out, "    type = fat   # genimage's vfat image '%s'\n", p->child->title);
	else if (ext4)
		fprintf(out, "    type = ext4  # genimage's ext4 image '%s', from its root tree\n",
			p->child->title);
	fprintf(out, "    start = %" PRIu64 "\n", p->offset);
	if (p->fixed_off_grid)
		fprintf(out, "    off-grid = \"genimage's fixed offset\"\n");
	fprintf(out, "    size = %" PRIu64 "\n", p->size);
	if (p->image && !fat && !ext4) {
		fprintf(out, "    from = ");
		import_genimage_put_quoted(out, p->image);
		if (p->child)
			fprintf(out, "   # the %s image genimage makes",
				p->child_type ? p->child_type : "");
		fputc('\n', out);
		if (p->holes[0])
			fprintf(out, "    holes = \"%s\"\n", p->holes);
	}
	if (!fat && !ext4)
		put_fill(out, p);
	if (g->table == TABLE_MBR)
		fprintf(out, "    mbr-type = %s\n", mbr_type);
	if (g->table == TABLE_GPT) {
		fprintf(out, "    gpt-type = %s\n",
			gpt_type ? gpt_type_word(gpt_type, buf, sizeof(buf)) : "linux");
		if (uuid)
			fprintf(out, "    uuid = %s\n", uuid);
	}
	if (bootable)
		fprintf(out, "    bootable = true\n");
	if (primary)
		fprintf(out, "    primary = true\n");
	if (fat) {
		const char *label = import_gcfg_str(t, "label");
		const char *args = import_gcfg_str(t, "extraargs");
		if (label) {
			fprintf(out, "    fat { label = ");
			import_genimage_put_quoted(out, label);
			fprintf(out, " }\n");
		}
		/* the volume is sdimg's: its FAT type and cluster size are chosen by size */
		if (args)
			fprintf(out,
				"    # genimage's mkdosfs arguments '%s': set `type` and `fat { }` "
				"keys to match\n",
				args);
		put_files(out, g, t);
	} else if (ext4) {
		const char *label = import_gcfg_str(t, "label");
		const char *mp = import_gcfg_str(p->child, "mountpoint");
		if (label) {
			fprintf(out, "    ext4 { label = ");
			import_genimage_put_quoted(out, label);
			fprintf(out, " }\n");
		}
		fprintf(out,
			"    tree \"/\" { from = \"${ROOTPATH}/%s\" }   # genimage --rootpath\n",
			mp ? mp : "");
	}
	fprintf(out, "}\n");
}

static void put_raw(FILE *out, const struct gimport *g, const struct gpart *p)
{
	uint64_t size = p->size;

	/* without a table, genimage's file ends where its last copied bytes do: a size
	 * reserved past that end reserves nothing */
	if (g->table == TABLE_NONE && p->offset + size > g->image_size)
		size = g->image_size - p->offset;
	fputs("\nraw ", out);
	import_genimage_put_name(out, p->n->title);
	fprintf(out, " {   # outside the table\n    offset = %" PRIu64 "\n", p->offset);
	if (p->image) {
		fprintf(out, "    from = ");
		import_genimage_put_quoted(out, p->image);
		fputc('\n', out);
	}
	fprintf(out, "    size = %" PRIu64 "\n", size);
	if (p->holes[0])
		fprintf(out, "    holes = \"%s\"\n", p->holes);
	put_fill(out, p);
	fprintf(out, "}\n");
}

/*
 * sdimg's first usable LBA is past the GPT entries and the raw regions before the first
 * partition; genimage's is the first partition's start. Zeros written over the space
 * between (genimage's image holds zeros there too) make them agree.
 */
static void put_gpt_gap(FILE *out, struct gimport *g)
{
	uint64_t first = UINT64_MAX, end = g->gpt_location + GPT_ARRAY_BYTES;

	for (size_t i = 0; i < g->n_parts; i++)
		if (g->parts[i].in_table && g->parts[i].offset < first)
			first = g->parts[i].offset;
	for (size_t i = 0; i < g->n_parts; i++) {
		const struct gpart *p = &g->parts[i];
		if (!p->in_table && p->image && p->offset < first && p->offset + p->size > end)
			end = p->offset + p->size;
	}
	end = import_genimage_round_up(end, SECTOR);
	if (first == UINT64_MAX || end >= first)
		return;
	fprintf(out,
		"\n# genimage's first usable LBA is the first partition's start: zeros up to it\n"
		"raw gpt-first-usable { offset = %" PRIu64 " size = %" PRIu64 " fill = true }\n",
		end, first - end);
}

static void put_image(FILE *out, struct gimport *g)
{
	static const char *const tables[] = { "mbr", "gpt", "hybrid", "none" };
	const char *sig = import_gcfg_str(g->hd, "disk-signature");
	const char *uuid = import_gcfg_str(g->hd, "disk-uuid");

	fprintf(out, "# imported by sdimg import from %s: genimage image '%s'\n", g->path,
		g->hd_image->title);
	if (g->table != TABLE_NONE)
		fprintf(out,
			"# Every start and size is genimage's, pinned; so is its align of %" PRIu64
			" bytes (sdimg's default is 4M).\n",
			g->align);
	fprintf(out, "image {\n    table = %s\n", tables[g->table]);
	if (g->table != TABLE_NONE)
		fprintf(out, "    align = %" PRIu64 "\n", g->align);
	if (g->image_size)
		fprintf(out, "    size = %" PRIu64 "\n", g->image_size);
	if (g->extended)
		fprintf(out,
			"    extended-partition = %u   # its EBRs link with type 0x05, "
			"genimage's with 0x0f\n",
			g->extended);
	if (g->table == TABLE_MBR) {
		if (!sig || !*sig)
			fprintf(out, "    disk-id = 0x00000000   # genimage's default signature\n");
		else if (strcmp(sig, "random"))
			fprintf(out, "    disk-id = %s\n", sig);
	}
	if (g->table == TABLE_GPT) {
		if (uuid)
			fprintf(out, "    disk-id = %s\n", uuid);
		if (g->gpt_location != 2 * SECTOR)
			fprintf(out, "    gpt-entries = %" PRIu64 "\n", g->gpt_location);
	}
	fprintf(out, "}\n");
}

void import_genimage_write(struct gimport *g, FILE *out)
{
	put_image(out, g);
	if (g->table == TABLE_GPT)
		put_gpt_gap(out, g);
	for (size_t i = 0; i < g->n_parts; i++) {
		const struct gpart *p = &g->parts[i];
		if (p->in_table)
			put_partition(out, g, p);
		else if (p->image || p->fill)
			put_raw(out, g, p);
		else
			fprintf(out,
				"\n# partition '%s' (outside the table, no image): nothing "
				"written at %" PRIu64 "\n",
				p->n->title, p->offset);
	}
}
