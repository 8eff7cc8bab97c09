/* SPDX-License-Identifier: MIT */
/*
 * genimage: the import of a genimage configuration (private to importer/). genimage.c reads
 * the configuration and places the partitions as genimage does, genimage_write.c writes the
 * hdimage's layout, genimage_flash.c a flash image's.
 */
#ifndef SDIMG_IMPORTER_GENIMAGE_H
#define SDIMG_IMPORTER_GENIMAGE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/diag.h"
#include "mkimage/importer/gcfg.h"
#include "mkimage/importer/importer.h"

#define SECTOR 512u
#define GPT_ARRAY_BYTES (128u * 128u)
#define GPT_BACKUP_BYTES (GPT_ARRAY_BYTES + SECTOR)
#define MAX_PARTS 128

enum table_kind { TABLE_MBR, TABLE_GPT, TABLE_HYBRID, TABLE_NONE };

/* One partition of the hdimage with genimage's placement of it. */
struct gpart {
	const struct gcfg_node *n;
	const struct gcfg_node *child; /* the config's image it names, or NULL */
	const char *child_type;        /* that image's type section ("vfat", ...) */
	const char *image;             /* the `image` key, or NULL */
	bool in_table;
	bool fill;       /* `fill`: the image, then zeros to the partition's end */
	bool sparse;     /* `sparse = false`: the image's zeros are written too */
	char holes[256]; /* sdimg's `holes` for genimage's, or "" */
	bool logical;
	bool fixed_off_grid; /* in the table at the config's `offset`, off the 4 MiB grid */
	uint64_t offset, size, align;
};

struct gimport {
	const char *path;
	const struct import_options *o;
	struct diag *d;
	const struct gcfg_node *root, *hd_image, *hd;
	enum table_kind table;
	uint64_t align, image_size, gpt_location;
	uint64_t data_end; /* the end of the last image written: where genimage's file ends */
	unsigned extended; /* MBR: the entry of the extended partition, or 0 */
	bool fill;         /* hdimage's `fill`: the file is as long as the image */
	unsigned entries;  /* partitions in the table so far */
	struct gpart parts[MAX_PARTS];
	size_t n_parts;
	bool off_grid;
};

/* An error at the line of config node @n: @fmt with one %s, @what. */
int import_genimage_at(struct gimport *g, const struct gcfg_node *n, const char *fmt,
		       const char *what);
/* The type section ("vfat", "ext4", ...) of image section @img, or NULL. */
const struct gcfg_node *import_genimage_image_type(const struct gcfg_node *img);
/* The image section titled @name, or NULL. */
const struct gcfg_node *import_genimage_find_image(const struct gcfg_node *root, const char *name);
/* Key @key of section @s as a size (0 when absent). */
int import_genimage_key_size(struct gimport *g, const struct gcfg_node *s, const char *key,
			     uint64_t *ret);
/* Key @key of section @s as genimage's boolean, @dflt when absent. */
int import_genimage_key_bool(struct gimport *g, const struct gcfg_node *s, const char *key,
			     bool dflt, bool *ret);
/* Refuses a key of @s that is not in @known (NULL-ended); sections titled @section pass. */
int import_genimage_only_keys(struct gimport *g, const struct gcfg_node *s,
			      const char *const *known, const char *section, const char *what);
/* The size of input @name (a file or folder below the input path), and whether a folder. */
int import_genimage_input_size(struct gimport *g, const char *name, uint64_t *ret, bool *is_dir);
/* @v rounded up to a multiple of @a (@v when @a <= 1). */
uint64_t import_genimage_round_up(uint64_t v, uint64_t a);

/* @s as a quoted layout string; @s as a layout name (quoted when it needs to be). */
void import_genimage_put_quoted(FILE *out, const char *s);
void import_genimage_put_name(FILE *out, const char *s);
/* The hdimage's layout: image, partitions and raw regions, placed by genimage.c. */
void import_genimage_write(struct gimport *g, FILE *out);
/* A flash image's layout: raw regions at its partitions' offsets, 0xff between. */
int import_genimage_flash(struct gimport *g, FILE *out);

#endif
