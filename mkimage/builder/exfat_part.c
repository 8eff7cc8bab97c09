/* SPDX-License-Identifier: MIT */
/*
 * exfat_part: the build of an exFAT partition, between the layout and exfat/: the settings of
 * its `exfat { }`, the whole SDXC card with sd-format, its size = auto, its geometry for the
 * planned size, its write (then the data pass of its archives) and its line in the report.
 * Its files come through the content model as FAT's do (read_inputs.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/units.h"
#include "mkimage/builder/builder_priv.h"

/*
 * A GUID in the form Microsoft's structures store it (the exFAT specification's VolumeGuid,
 * as GPT's, UEFI 2.10 Appendix A): its first three fields little-endian, the rest in text
 * order.
 */
static void guid_on_disk(const struct layout_guid *g, uint8_t out[16])
{
	static const uint8_t order[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };

	for (unsigned k = 0; k < 16; k++)
		out[k] = g->b[order[k]];
}

int build_exfat_opts(const struct layout *l, const struct layout_partition *p, struct sha256 *sha,
		     struct exfat_opts *o, uint8_t guid[16])
{
	const struct layout_exfat *x = &p->exfat;
	uint32_t volume_id = x->volume_id;
	int rc = x->volume_id_set ? 0
				  : build_id_exfat_volume(sha, l->image.seed, p->name, &volume_id);

	if (x->guid_set)
		guid_on_disk(&x->guid, guid);
	*o = (struct exfat_opts){
		.cluster_size = x->cluster_size_set ? x->cluster_size : 0,
		.heap_align = x->data_align,
		/* the partition's align: lowered where it leaves too little room */
		.heap_align_lower = !x->data_align_set,
		.label = x->label,
		.volume_id = volume_id,
		.guid = x->guid_set ? guid : NULL,
	};
	return rc;
}

/* A card sd-format = true cannot make exFAT of: one the SD formatter writes as FAT (SDSC,
 * SDHC), which fat_sd_format() knows. -EINVAL with a message, or 0. */
static int check_sdxc(const struct layout *l, const struct layout_partition *p, struct diag *d)
{
	struct fat_sd_layout fat;
	struct diag scratch;
	char size[32];

	diag_init(&scratch);
	int rc = fat_sd_format(NULL, l->image.size / FAT_SECTOR, &fat, &scratch);
	diag_release(&scratch);
	if (rc < 0)
		return 0; /* SDXC (or larger) */
	units_human(l->image.size, size, sizeof(size));
	return diag_error(d,
			  "%s:%d: partition '%s': sd-format: a card of %s is not SDXC (above 32 "
			  "GiB): the SD formatter writes FAT%d there (type = fat with fat { "
			  "sd-format = true })",
			  p->exfat.loc.file, p->exfat.loc.line, p->name, size, (int)fat.geom.type);
}

int build_sd_format_exfat(const struct layout *l, size_t i, struct sha256 *sha, struct diag *d,
			  struct exfat_sd_layout *ret)
{
	const struct layout_partition *p = &l->parts[i];
	struct exfat_opts o;
	uint8_t guid[16];
	struct diag scratch;

	memset(ret, 0, sizeof(*ret));
	if (check_sdxc(l, p, d) < 0)
		return -EINVAL;
	if (build_exfat_opts(l, p, sha, &o, guid) < 0)
		return -EIO;
	diag_init(&scratch);
	return build_relay(d, p, &p->exfat.loc, &scratch,
			   exfat_sd_format(&o, l->image.size / EXFAT_SECTOR, ret, &scratch));
}

int build_exfat_min_size(struct build *b, size_t i, uint64_t start, uint64_t *ret)
{
	const struct layout_partition *p = &b->l->parts[i];
	struct part_state *ps = &b->parts[i];
	struct diag scratch;

	diag_init(&scratch);
	return build_relay(b->d, p, &p->loc, &scratch,
			   exfat_min_size(ps->exfat_tree, &ps->exfat_opts, start, ret, &scratch));
}

/* mbr-type set by hand to another byte than exFAT's 0x07 (the type Microsoft and the SD
 * Association give exFAT partitions): an error where sd-format fixes the byte, else a
 * warning, since some devices take the partition for the file system the byte names. */
static int check_mbr_type(struct build *b, const struct layout_partition *p)
{
	if (!p->mbr_type_loc.file || p->mbr_type == 0x07)
		return 0;
	if (p->exfat.sd_format)
		return diag_error(b->d,
				  "%s:%d: partition '%s': mbr-type 0x%02x, but exfat { sd-format = "
				  "true } writes the type byte 0x07, as the SD Association's "
				  "formatter does; drop mbr-type",
				  p->mbr_type_loc.file, p->mbr_type_loc.line, p->name, p->mbr_type);
	diag_warning(b->d,
		     "%s:%d: partition '%s': mbr-type 0x%02x on an exFAT volume, whose type "
		     "byte is 0x07 (some devices go by the byte and take the partition for "
		     "another file system)",
		     p->mbr_type_loc.file, p->mbr_type_loc.line, p->name, p->mbr_type);
	return 0;
}

int build_choose_exfat(struct build *b, size_t i, const struct plan_region *r)
{
	const struct layout_partition *p = &b->l->parts[i];
	struct part_state *ps = &b->parts[i];
	struct diag scratch;

	b->mbr_types[i] = p->mbr_type;
	if (check_mbr_type(b, p) < 0)
		return -EINVAL;
	if (p->exfat.sd_format) {
		ps->exfat_geom = ps->exfat_sd.geom;
		return 0;
	}
	diag_init(&scratch);
	/* the volume is as large as the partition: messages point at its size */
	return build_relay(b->d, p, p->size_loc.file ? &p->size_loc : &p->loc, &scratch,
			   exfat_params_for_tree(ps->exfat_tree, &ps->exfat_opts, r->size, r->start,
						 &ps->exfat_geom, &scratch));
}

/* Where exfat/ put a file's bytes (a content_place_fn). */
static int file_data(const void *vol, const char *path, uint64_t *ret)
{
	struct exfat_place at;
	int rc = exfat_tree_file_place(vol, path, &at);

	*ret = at.data;
	return rc;
}

static bool stop_requested(void *build)
{
	return build_interrupted(build);
}

int build_write_exfat(struct build *b, size_t i)
{
	const struct plan_region *r = build_region_of(b, i);
	struct part_state *ps = &b->parts[i];
	int rc = exfat_write_or_stop(ps->exfat_tree, &ps->exfat_geom, b->image.fd, r->start,
				     b->o->output, stop_requested, b, b->d);

	if (rc == 0)
		rc = build_map_add(&b->map, r->start, exfat_tree_used_bytes(ps->exfat_tree));
	if (rc == 0)
		rc = content_write_archive_data(&ps->content, file_data, ps->exfat_tree,
						b->image.fd, r->start, b->o->output, stop_requested,
						b, b->d);
	return rc;
}

void build_report_exfat(const struct build *b, size_t i, FILE *out)
{
	const struct plan_region *r = build_region_of(b, i);
	const struct exfat_geom *g = &b->parts[i].exfat_geom;
	char cluster[32];

	units_human(g->cluster_size, cluster, sizeof(cluster));
	fprintf(out, ", exFAT, %s clusters x %u, FAT at byte %llu, cluster heap at byte %llu",
		cluster, g->clusters,
		(unsigned long long)(r->start + (uint64_t)g->fat_offset * EXFAT_SECTOR),
		(unsigned long long)(r->start + (uint64_t)g->heap_offset * EXFAT_SECTOR));
}
