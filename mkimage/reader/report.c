/* SPDX-License-Identifier: MIT */
/* report: the report of `sdimg inspect`, for people and for scripts (reader.h). */
#include "mkimage/reader/reader.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "common/utf8.h"

/* 0 when the standard output took everything printed on it (flushed), else -EIO with a
 * message. */
static int stdout_status(struct diag *d)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	return diag_errno(d, -EIO, "cannot write the standard output: %s",
			  strerror(errno ? errno : EIO));
}

static const char *const backup_names[] = { "valid", "missing", "INVALID" };

static const char *content_name(const struct disk_part *p)
{
	static const char *const names[] = { "unknown", "fat", "ext", "extended", "exfat" };
	return names[p->content];
}

/* A GUID as text, its first three fields little-endian (the Microsoft GUID layout, which
 * the exFAT Volume GUID entry stores, §7.5.2.3). */
static void guid_text(const uint8_t g[16], char out[37])
{
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 g[3], g[2], g[1], g[0], g[5], g[4], g[7], g[6], g[8], g[9], g[10], g[11], g[12],
		 g[13], g[14], g[15]);
}

/* ", N files in M folders", in the singular where a count is 1. */
static void print_tree_counts(uint64_t files, uint64_t dirs)
{
	printf(", %llu file%s in %llu folder%s", (unsigned long long)files, files == 1 ? "" : "s",
	       (unsigned long long)dirs, dirs == 1 ? "" : "s");
}

static void print_exfat(const struct disk_part *p)
{
	const struct exfat_info *i = &p->exfat.info;
	char cl[32], used[32], avail[32], guid[37];

	if (p->content_error[0]) {
		printf("      exFAT, unreadable: ");
		reader_fputs_visible(p->content_error, stdout);
		printf("\n");
		return;
	}
	units_human(i->cluster_size, cl, sizeof(cl));
	printf("      exFAT \"");
	reader_fputs_visible(i->label, stdout);
	printf("\" serial %04X-%04X, %s clusters x %u, %u FAT%s of %u sectors at sector %u, "
	       "root at cluster %u\n",
	       i->volume_id >> 16, i->volume_id & 0xffff, cl, i->clusters, i->fats,
	       i->fats == 1 ? "" : "s", i->fat_length, i->fat_offset, i->root_cluster);
	printf("      cluster heap at byte %llu (sector %u of the volume), volume %llu sectors, "
	       "partition offset %llu",
	       (unsigned long long)(p->start + (uint64_t)i->heap_offset * 512), i->heap_offset,
	       (unsigned long long)i->vol_sectors, (unsigned long long)i->part_offset);
	if (i->percent_in_use != EXFAT_PERCENT_UNKNOWN)
		printf(", %u%% in use", i->percent_in_use);
	if (i->has_guid) {
		guid_text(i->guid, guid);
		printf(", GUID %s", guid);
	}
	printf("\n");
	if (!p->exfat.counted)
		return;
	units_human((uint64_t)(i->clusters - p->exfat.free_clusters) * i->cluster_size, used,
		    sizeof(used));
	units_human((uint64_t)p->exfat.free_clusters * i->cluster_size, avail, sizeof(avail));
	printf("      %s used, %s free", used, avail);
	if (p->exfat.walked)
		print_tree_counts(p->exfat.files, p->exfat.dirs);
	printf("\n");
}

static void print_content(const struct disk_part *p)
{
	const struct fat_info *i = &p->fat.info;
	char cl[32], used[32], size[32];

	if (p->content == CONTENT_FAT && p->content_error[0]) {
		printf("      FAT, unreadable: ");
		reader_fputs_visible(p->content_error, stdout);
		printf("\n");
	} else if (p->content == CONTENT_FAT) {
		units_human(i->cluster_size, cl, sizeof(cl));
		units_human((uint64_t)(i->clusters - p->fat.free_clusters) * i->cluster_size, used,
			    sizeof(used));
		printf("      FAT%d \"", (int)i->type);
		reader_fputs_visible(i->label, stdout);
		printf("\" serial %04X-%04X, %s clusters x %u, %u FAT%s of %u sectors, "
		       "%u reserved, %u root entries\n",
		       i->volume_id >> 16, i->volume_id & 0xffff, cl, i->clusters, i->fats,
		       i->fats == 1 ? "" : "s", i->fat_sectors, i->reserved, i->root_entries);
		printf("      data area at byte %llu, hidden sectors %u, total sectors %u, %s used",
		       (unsigned long long)(p->start + i->data_offset), i->hidden_sectors,
		       i->total_sectors, used);
		if (p->fat.walked)
			print_tree_counts(p->fat.files, p->fat.dirs);
		printf("\n");
	} else if (p->content == CONTENT_EXFAT) {
		print_exfat(p);
	} else if (p->content == CONTENT_EXT) {
		units_human(p->ext.size, size, sizeof(size));
		printf("      %s \"", p->ext.kind);
		reader_fputs_visible(p->ext.label, stdout);
		printf("\" UUID %s, %u-byte blocks, %s\n", p->ext.uuid, p->ext.block_size, size);
	}
}

/* The heading of the findings: the grid the card is judged against, and each FAT or exFAT
 * volume whose data area or heap is judged against another (what a default build reaches). */
static void print_grids(const struct disk *k, uint64_t eb)
{
	uint64_t card = reader_card_grid(k, eb);
	char grid[32];

	units_human(card, grid, sizeof(grid));
	printf("\nSD alignment (%s grid%s", grid,
	       card > eb ? ", the SD allocation unit of this capacity" : "");
	for (size_t n = 0; n < k->n_parts; n++) {
		const struct disk_part *p = &k->parts[n];
		uint64_t v = reader_volume_grid(k, p, eb);
		if ((p->content == CONTENT_FAT || p->content == CONTENT_EXFAT) && v != card &&
		    !p->content_error[0]) {
			units_human(v, grid, sizeof(grid));
			printf("; partition %u's %s: %s", p->number,
			       p->content == CONTENT_EXFAT ? "cluster heap" : "data area", grid);
		}
	}
	printf("): ");
}

int reader_print_text(const struct disk *k, const struct findings *f, uint64_t eb, struct diag *d)
{
	char size[32];

	units_human(k->size, size, sizeof(size));
	printf("%s: %s (%llu bytes), table %s", k->path, size, (unsigned long long)k->size,
	       k->table);
	if (k->id[0])
		printf(", disk id %s", k->id);
	if (!strcmp(k->table, "gpt"))
		printf(", primary GPT %s, backup GPT %s%s", k->gpt_primary_ok ? "valid" : "INVALID",
		       backup_names[k->gpt_backup], k->hybrid_mbr ? ", hybrid MBR" : "");
	printf("\n\n%-3s %12s %12s  %-10s %-38s %s\n", "NO", "START", "END", "SIZE", "TYPE",
	       "CONTENT");
	for (size_t n = 0; n < k->n_parts; n++) {
		const struct disk_part *p = &k->parts[n];
		char type[160];
		units_human(p->size, size, sizeof(size));
		snprintf(type, sizeof(type), "%s%s%s%s", p->type[0] ? p->type : "-",
			 p->type_name[0] ? " (" : "", p->type_name, p->type_name[0] ? ")" : "");
		char end[24] = "-"; /* a partition of 0 bytes has no last byte */
		if (p->size)
			snprintf(end, sizeof(end), "%llu",
				 (unsigned long long)(p->start + p->size - 1));
		printf("%-3u %12llu %12s  %-10s %-38s %s%s%s", p->number,
		       (unsigned long long)p->start, end, size, type, content_name(p),
		       p->bootable ? ", bootable" : "", p->name[0] ? ", name " : "");
		reader_fputs_visible(p->name, stdout);
		printf("\n");
		print_content(p);
	}
	for (size_t n = 0; n < k->n_gaps; n++) {
		units_human(k->gaps[n].size, size, sizeof(size));
		printf("free: bytes %llu-%llu (%s)\n", (unsigned long long)k->gaps[n].start,
		       (unsigned long long)(k->gaps[n].start + k->gaps[n].size - 1), size);
	}
	print_grids(k, eb);
	printf(reader_count_problems(f) ? "%zu problem(s)\n" : "no problems\n",
	       reader_count_problems(f));
	for (size_t n = 0; n < f->n; n++)
		printf("  %-7s %-19s %s\n", f->v[n].severity, f->v[n].code, f->v[n].message);
	return stdout_status(d);
}

static json_t *json_fat(const struct disk_part *p)
{
	const struct fat_info *i = &p->fat.info;
	json_t *o = json_object();

	if (p->content_error[0]) {
		json_object_set_new(o, "error", utf8_json_string(p->content_error));
		return o;
	}
	json_object_set_new(o, "type", json_integer(i->type));
	json_object_set_new(o, "cluster_size", json_integer(i->cluster_size));
	json_object_set_new(o, "clusters", json_integer(i->clusters));
	json_object_set_new(o, "fats", json_integer(i->fats));
	json_object_set_new(o, "fat_sectors", json_integer(i->fat_sectors));
	json_object_set_new(o, "reserved", json_integer(i->reserved));
	json_object_set_new(o, "root_entries", json_integer(i->root_entries));
	json_object_set_new(o, "data_offset",
			    json_integer((json_int_t)(p->start + i->data_offset)));
	json_object_set_new(o, "hidden_sectors", json_integer(i->hidden_sectors));
	json_object_set_new(o, "total_sectors", json_integer(i->total_sectors));
	json_object_set_new(o, "label", utf8_json_string(i->label));
	json_object_set_new(o, "serial", json_integer(i->volume_id));
	json_object_set_new(o, "used_bytes",
			    json_integer((json_int_t)(i->clusters - p->fat.free_clusters) *
					 i->cluster_size));
	json_object_set_new(o, "free_bytes",
			    json_integer((json_int_t)p->fat.free_clusters * i->cluster_size));
	json_object_set_new(o, "files",
			    p->fat.walked ? json_integer((json_int_t)p->fat.files) : json_null());
	json_object_set_new(o, "dirs",
			    p->fat.walked ? json_integer((json_int_t)p->fat.dirs) : json_null());
	return o;
}

static json_t *json_exfat(const struct disk_part *p)
{
	const struct exfat_info *i = &p->exfat.info;
	json_t *o = json_object();
	char guid[37];

	if (p->content_error[0]) {
		json_object_set_new(o, "error", utf8_json_string(p->content_error));
		return o;
	}
	json_object_set_new(o, "cluster_size", json_integer(i->cluster_size));
	json_object_set_new(o, "clusters", json_integer(i->clusters));
	json_object_set_new(o, "fats", json_integer(i->fats));
	json_object_set_new(o, "fat_offset", json_integer(i->fat_offset));
	json_object_set_new(o, "fat_sectors", json_integer(i->fat_length));
	json_object_set_new(o, "heap_offset", json_integer(i->heap_offset));
	json_object_set_new(o, "data_offset",
			    json_integer((json_int_t)(p->start + (uint64_t)i->heap_offset * 512)));
	json_object_set_new(o, "root_cluster", json_integer(i->root_cluster));
	json_object_set_new(o, "volume_sectors", json_integer((json_int_t)i->vol_sectors));
	json_object_set_new(o, "partition_offset", json_integer((json_int_t)i->part_offset));
	json_object_set_new(o, "label", utf8_json_string(i->label));
	json_object_set_new(o, "serial", json_integer(i->volume_id));
	guid_text(i->guid, guid);
	json_object_set_new(o, "guid", i->has_guid ? json_string(guid) : json_null());
	json_object_set_new(o, "percent_in_use",
			    i->percent_in_use == EXFAT_PERCENT_UNKNOWN
				    ? json_null()
				    : json_integer(i->percent_in_use));
	json_object_set_new(o, "used_bytes",
			    p->exfat.counted ? json_integer((json_int_t)(i->clusters -
									 p->exfat.free_clusters) *
							    i->cluster_size)
					     : json_null());
	json_object_set_new(o, "free_bytes",
			    p->exfat.counted ? json_integer((json_int_t)p->exfat.free_clusters *
							    i->cluster_size)
					     : json_null());
	json_object_set_new(o, "files",
			    p->exfat.walked ? json_integer((json_int_t)p->exfat.files)
					    : json_null());
	json_object_set_new(o, "dirs",
			    p->exfat.walked ? json_integer((json_int_t)p->exfat.dirs)
					    : json_null());
	return o;
}

static json_t *json_part(const struct disk_part *p)
{
	json_t *o = json_object();

	json_object_set_new(o, "number", json_integer(p->number));
	json_object_set_new(o, "start", json_integer((json_int_t)p->start));
	json_object_set_new(o, "end",
			    p->size ? json_integer((json_int_t)(p->start + p->size - 1))
				    : json_null());
	json_object_set_new(o, "size", json_integer((json_int_t)p->size));
	json_object_set_new(o, "type", json_string(p->type));
	json_object_set_new(o, "type_name", utf8_json_string(p->type_name));
	json_object_set_new(o, "name", utf8_json_string(p->name));
	json_object_set_new(o, "uuid", json_string(p->uuid));
	json_object_set_new(o, "bootable", json_boolean(p->bootable));
	json_object_set_new(o, "content", json_string(content_name(p)));
	if (p->content == CONTENT_FAT)
		json_object_set_new(o, "fat", json_fat(p));
	if (p->content == CONTENT_EXFAT)
		json_object_set_new(o, "exfat", json_exfat(p));
	if (p->content == CONTENT_EXT) {
		json_t *e = json_object();
		json_object_set_new(e, "kind", json_string(p->ext.kind));
		json_object_set_new(e, "label", utf8_json_string(p->ext.label));
		json_object_set_new(e, "uuid", json_string(p->ext.uuid));
		json_object_set_new(e, "block_size", json_integer(p->ext.block_size));
		json_object_set_new(e, "size", json_integer((json_int_t)p->ext.size));
		json_object_set_new(o, "ext", e);
	}
	return o;
}

int reader_print_json(const struct disk *k, const struct findings *f, uint64_t eb, struct diag *d)
{
	json_t *root = json_object(), *image = json_object(), *parts = json_array(),
	       *gaps = json_array(), *finds = json_array();

	json_object_set_new(image, "path", utf8_json_string(k->path));
	json_object_set_new(image, "size", json_integer((json_int_t)k->size));
	json_object_set_new(image, "table", json_string(k->table));
	json_object_set_new(image, "id", k->id[0] ? json_string(k->id) : json_null());
	json_object_set_new(image, "erase_block", json_integer((json_int_t)eb));
	json_object_set_new(image, "grid", json_integer((json_int_t)reader_card_grid(k, eb)));
	if (!strcmp(k->table, "gpt")) {
		json_t *g = json_object();
		json_object_set_new(g, "primary_valid", json_boolean(k->gpt_primary_ok));
		json_object_set_new(g, "backup_valid",
				    json_boolean(k->gpt_backup == DISK_GPT_BACKUP_VALID));
		json_object_set_new(g, "backup",
				    json_string(k->gpt_backup == DISK_GPT_BACKUP_VALID ? "valid"
						: k->gpt_backup == DISK_GPT_BACKUP_MISSING
							? "missing"
							: "invalid"));
		json_object_set_new(g, "mbr", json_string(k->hybrid_mbr ? "hybrid" : "protective"));
		json_object_set_new(image, "gpt", g);
	}
	for (size_t n = 0; n < k->n_parts; n++) {
		json_t *part = json_part(&k->parts[n]);
		if (k->parts[n].content == CONTENT_FAT || k->parts[n].content == CONTENT_EXFAT)
			json_object_set_new(part, "grid",
					    json_integer(
						    (json_int_t)reader_volume_grid(k, &k->parts[n],
										   eb)));
		json_array_append_new(parts, part);
	}
	for (size_t n = 0; n < k->n_gaps; n++) {
		json_t *g = json_object();
		json_object_set_new(g, "start", json_integer((json_int_t)k->gaps[n].start));
		json_object_set_new(g, "size", json_integer((json_int_t)k->gaps[n].size));
		json_array_append_new(gaps, g);
	}
	for (size_t n = 0; n < f->n; n++) {
		json_t *x = json_object();
		json_object_set_new(x, "severity", json_string(f->v[n].severity));
		json_object_set_new(x, "code", json_string(f->v[n].code));
		json_object_set_new(x, "partition", json_integer(f->v[n].partition));
		json_object_set_new(x, "message", json_string(f->v[n].message));
		json_array_append_new(finds, x);
	}
	json_object_set_new(root, "image", image);
	json_object_set_new(root, "partitions", parts);
	json_object_set_new(root, "free", gaps);
	json_object_set_new(root, "findings", finds);
	int rc = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(root);
	if (rc == 0)
		return stdout_status(d);
	/* jansson fails where a write failed, or where memory ran out */
	rc = stdout_status(d);
	return rc < 0 ? rc : diag_errno(d, -ENOMEM, "the report as JSON: out of memory");
}
