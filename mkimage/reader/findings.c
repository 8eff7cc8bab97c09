/* findings: what on a card is off the erase-block grid or inconsistent (see reader.h). */
#include "mkimage/reader/reader.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/units.h"
#include "layouts/layouts.h"

__attribute__((format(printf, 5, 6))) static int add(struct findings *f, const char *severity,
						     const char *code, unsigned part,
						     const char *fmt, ...)
{
	va_list ap;

	if (array_grow((void **)&f->v, &f->cap, f->n + 1, sizeof(*f->v)) < 0)
		return -ENOMEM;
	struct finding *x = &f->v[f->n++];
	x->severity = severity;
	x->code = code;
	x->partition = part;
	va_start(ap, fmt);
	vsnprintf(x->message, sizeof(x->message), fmt, ap);
	va_end(ap);
	return 0;
}

static void grid(uint64_t bytes, char *buf, size_t n)
{
	units_human(bytes, buf, n);
}

/* @bytes as a layout writes a size: "4M", "16K", "512". */
static const char *layout_size(uint64_t bytes, char *buf, size_t n)
{
	static const char units[] = "TGMK";

	for (int i = 0; i < 4; i++) {
		uint64_t u = 1ull << (10 * (4 - i));
		if (bytes >= u && bytes % u == 0) {
			snprintf(buf, n, "%llu%c", (unsigned long long)(bytes / u), units[i]);
			return buf;
		}
	}
	snprintf(buf, n, "%llu", (unsigned long long)bytes);
	return buf;
}

static int check_start(const struct disk_part *p, uint64_t eb, struct findings *f)
{
	char g[32], a[32], l[32];

	if (!p->number || p->start % eb == 0)
		return 0;
	grid(eb, g, sizeof(g));
	grid(plan_alignment_of(p->start), a, sizeof(a));
	return add(f, "warning", "start-misaligned", p->number,
		   "partition %u starts at byte %llu (sector %llu), off the %s grid (aligned to %s "
		   "only): writes straddle erase blocks; start it at byte %llu (in the layout: "
		   "start = %llus, or leave start out with align = %s)",
		   p->number, (unsigned long long)p->start, (unsigned long long)(p->start / 512), g, a,
		   (unsigned long long)((p->start + eb - 1) / eb * eb),
		   (unsigned long long)((p->start + eb - 1) / eb * eb / 512), layout_size(eb, l, sizeof(l)));
}

static int check_fat_volume(const struct disk *k, const struct disk_part *p, uint64_t eb,
			    struct findings *f)
{
	const struct fat_info *i = &p->fat.info;
	uint64_t data = p->start + i->data_offset;
	char g[32], l[32];
	int rc = 0;

	grid(eb, g, sizeof(g));
	if (data % eb)
		rc |= add(f, "warning", "data-misaligned", p->number,
			  "the FAT data area (cluster 2) starts at byte %llu, %llu bytes past the %s "
			  "grid: every cluster straddles erase blocks; sdimg's fat { data-align = %s } "
			  "(its default) pads the reserved sectors to put it on the grid",
			  (unsigned long long)data, (unsigned long long)(data % eb), g,
			  layout_size(eb, l, sizeof(l)));
	if ((uint64_t)i->hidden_sectors * 512 != p->start)
		rc |= add(f, "warning", "hidden-sectors", p->number,
			  "the boot sector says the volume starts at sector %u (hidden sectors), the "
			  "partition starts at sector %llu; some boot loaders locate files by it",
			  i->hidden_sectors, (unsigned long long)(p->start / 512));
	if ((uint64_t)i->total_sectors * 512 > p->size || p->start + (uint64_t)i->total_sectors * 512 > k->size)
		rc |= add(f, "error", "beyond-end", p->number,
			  "the FAT volume counts %u sectors but only %llu are there: it runs past the "
			  "end of its partition or the device", i->total_sectors,
			  (unsigned long long)((p->start + p->size > k->size ? k->size - p->start : p->size) / 512));
	else if ((uint64_t)i->total_sectors * 512 != p->size && p->number)
		rc |= add(f, "warning", "total-sectors", p->number,
			  "the boot sector counts %u sectors, the partition has %llu: TI boot ROMs "
			  "(AM335x and others) refuse such a card; sdimg writes the partition's exact size",
			  i->total_sectors, (unsigned long long)(p->size / 512));
	return rc;
}

static int check_cluster_size(const struct disk_part *p, struct findings *f)
{
	const struct fat_info *i = &p->fat.info;
	struct fat_geom g;
	struct diag scratch;
	char have[32], want[32], l[32];
	int rc = 0;

	diag_init(&scratch);
	if (fat_params(NULL, (uint64_t)i->total_sectors * 512, p->start, &g, &scratch) == 0 &&
	    (i->cluster_size * 4 <= g.cluster_size || i->cluster_size >= g.cluster_size * 4)) {
		grid(i->cluster_size, have, sizeof(have));
		grid(g.cluster_size, want, sizeof(want));
		rc = add(f, "info", "cluster-size", p->number,
			 "clusters of %s; the SD specification gives %s for a volume of this size "
			 "(fat { cluster-size = %s }, or leave it out)", have, want,
			 layout_size(g.cluster_size, l, sizeof(l)));
	}
	diag_release(&scratch);
	if (rc == 0 && i->fats == 2)
		rc = add(f, "info", "two-fats", p->number,
			 "two FATs: each cluster allocation is written twice; fat { fats = 1 } is faster "
			 "on flash (keep two where a boot ROM wants them, as TI's do)");
	return rc;
}

static int compare_start(const void *a, const void *b)
{
	const struct disk_part *x = *(const struct disk_part *const *)a;
	const struct disk_part *y = *(const struct disk_part *const *)b;

	return x->start < y->start ? -1 : x->start > y->start ? 1 : (x->number > y->number) -
									(x->number < y->number);
}

/* Partitions that share bytes (an extended partition holds its logical ones: not counted).
 * In start order, each is compared with the one reaching furthest before it. */
static int check_overlaps(const struct disk *k, struct findings *f)
{
	const struct disk_part **v = calloc(k->n_parts ? k->n_parts : 1, sizeof(*v));
	const struct disk_part *reach = NULL;
	size_t n = 0;
	int rc = v ? 0 : -ENOMEM;

	for (size_t i = 0; v && i < k->n_parts; i++)
		if (k->parts[i].content != CONTENT_CONTAINER && k->parts[i].size)
			v[n++] = &k->parts[i];
	if (n > 1)
		qsort(v, n, sizeof(*v), compare_start);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		if (reach && v[i]->start < reach->start + reach->size) {
			uint64_t end = reach->start + reach->size < v[i]->start + v[i]->size
					       ? reach->start + reach->size
					       : v[i]->start + v[i]->size;
			rc = add(f, "error", "overlap", v[i]->number,
				 "partitions %u and %u overlap: bytes %llu-%llu belong to both, so "
				 "writing one destroys the other; give each its own range in the layout",
				 reach->number, v[i]->number, (unsigned long long)v[i]->start,
				 (unsigned long long)end - 1);
		}
		if (!reach || v[i]->start + v[i]->size > reach->start + reach->size)
			reach = v[i];
	}
	free(v);
	return rc;
}

int reader_compute_findings(const struct disk *k, uint64_t eb, struct findings *f)
{
	int rc = 0;

	if (k->table_unreadable)
		rc |= add(f, "error", "table-unreadable", 0,
			  "the disk has a GPT signature, but the table cannot be read (libfdisk refuses "
			  "it); its partitions are not listed");
	if (!strcmp(k->table, "gpt") && !k->gpt_primary_ok)
		rc |= add(f, "error", "gpt-primary-invalid", 0,
			  "the primary GPT header or its entry array fails its signature or CRC check");
	if (!strcmp(k->table, "gpt") && !k->gpt_backup_ok)
		rc |= add(f, "error", "gpt-backup-invalid", 0,
			  "the backup GPT header or its entry array (at the end of the disk) fails its "
			  "signature or CRC check");
	rc |= check_overlaps(k, f);
	for (size_t n = 0; n < k->n_parts; n++) {
		const struct disk_part *p = &k->parts[n];
		if (p->content == CONTENT_CONTAINER)
			continue;
		if (p->start + p->size > k->size)
			rc |= add(f, "error", "beyond-end", p->number,
				  "partition %u ends at byte %llu, past the end of the device (%llu bytes)",
				  p->number, (unsigned long long)(p->start + p->size),
				  (unsigned long long)k->size);
		rc |= check_start(p, eb, f);
		if (p->content == CONTENT_FAT && p->content_error[0])
			rc |= add(f, "error", "fat-unreadable", p->number, "%s", p->content_error);
		else if (p->content == CONTENT_FAT)
			rc |= check_fat_volume(k, p, eb, f) | check_cluster_size(p, f);
	}
	return rc ? -ENOMEM : 0;
}

size_t reader_count_problems(const struct findings *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n; i++)
		n += strcmp(f->v[i].severity, "info") != 0;
	return n;
}

void reader_release_findings(struct findings *f)
{
	free(f->v);
	memset(f, 0, sizeof(*f));
}
