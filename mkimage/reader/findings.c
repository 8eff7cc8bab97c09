/* SPDX-License-Identifier: MIT */
/* findings: what on a card is off the erase-block grid or inconsistent (see reader.h). */
#include "mkimage/reader/reader.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/array.h"
#include "common/sdcard.h"
#include "common/units.h"
#include "layouts/layouts.h"
#include "plan/plan.h"

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
		   p->number, (unsigned long long)p->start, (unsigned long long)(p->start / 512), g,
		   a, (unsigned long long)((p->start + eb - 1) / eb * eb),
		   (unsigned long long)((p->start + eb - 1) / eb * eb / 512),
		   units_layout(eb, l, sizeof(l)));
}

/* Whether fat_params() accepts @o (with data-align @align) for the volume of @p and gives
 * the FAT type @type, the data area on @align; else its message in @why. Advice is printed
 * only when following it builds. */
static bool settings_fit(const struct disk_part *p, struct fat_opts o, enum fat_type type,
			 uint64_t align, struct fat_geom *ret, char *why, size_t why_len)
{
	const struct fat_info *i = &p->fat.info;
	struct fat_geom g;
	struct diag scratch;

	diag_init(&scratch);
	o.data_align = align;
	bool ok = fat_params(&o, (uint64_t)i->total_sectors * 512, p->start, &g, &scratch) == 0 &&
		  g.type == type && (!align || (p->start + g.data_offset) % align == 0);
	if (why)
		snprintf(why, why_len, "%s", scratch.n ? scratch.msgs[0].text : "");
	if (ok && ret)
		*ret = g;
	diag_release(&scratch);
	return ok;
}

/* Whether @o works both without data alignment and on the grid @eb (the builder's default
 * data-align is the image's align, 4M unless set). */
static bool settings_work(const struct disk_part *p, struct fat_opts o, enum fat_type type,
			  uint64_t eb, struct fat_geom *ret)
{
	return settings_fit(p, o, type, 0, ret, NULL, 0) &&
	       settings_fit(p, o, type, eb, NULL, NULL, 0);
}

/* The volume's own settings, as a layout would give them (FATs and root entries). */
static struct fat_opts volume_opts(const struct fat_info *i)
{
	struct fat_opts o = { .type = i->type, .cluster_size = i->cluster_size, .fats = i->fats };

	if (i->type != FAT_32 && i->root_entries % 16 == 0)
		o.root_entries = i->root_entries;
	return o;
}

uint64_t reader_card_grid(const struct disk *k, uint64_t eb)
{
	uint64_t au = sdcard_default_align(k->size);

	return au > eb ? au : eb;
}

/* How a finding names the grid of a data area or heap that is not the card's own. */
#define STEP_REACHED                                                                           \
	" (the largest step of the card's grid that a default build of this volume, with the " \
	"clusters it uses, reaches)"
#define SD_UNIT " (the SD allocation unit of this capacity)"

/* The clusters a volume's files and folders use: @marked as the FAT (links of chains) or the
 * allocation bitmap says, @held as the tree references them (UINT64_MAX: not walked), both
 * without exFAT's bitmap and up-case table. */
struct volume_use {
	uint64_t marked, held;
	uint64_t kept; /* the clusters per-card files keep beyond their data (their reserve) */
};

static uint64_t clusters_of(uint64_t bytes, uint32_t cluster_size)
{
	return (bytes + cluster_size - 1) / cluster_size;
}

static struct volume_use volume_use(const struct disk_part *p)
{
	struct volume_use u = { 0, UINT64_MAX, 0 };

	if (p->content == CONTENT_EXFAT) {
		const struct disk_exfat *e = &p->exfat;
		uint64_t meta = clusters_of(e->info.bitmap_bytes, e->info.cluster_size) +
				clusters_of(e->info.upcase_bytes, e->info.cluster_size);
		uint64_t used = e->info.clusters - (uint64_t)e->free_clusters;
		u.marked = e->counted && used > meta ? used - meta : 0;
		if (e->counted && e->walked) {
			u.held = e->held;
			u.kept = e->kept;
		}
	} else {
		u.marked = p->fat.counted ? p->fat.chained : 0;
		if (p->fat.counted && p->fat.walked) {
			u.held = p->fat.held;
			u.kept = p->fat.kept;
		}
	}
	return u;
}

/* What a default build of @p reaches on the card's grid @card (0: none), with the clusters its
 * files and folders hold, and its per-card files keep, as its files (as the FAT or the
 * allocation bitmap marks them when the tree could not be walked). */
static uint64_t volume_reaches(const struct disk_part *p, uint64_t card)
{
	struct volume_use u = volume_use(p);
	uint64_t used = u.held != UINT64_MAX ? u.held + u.kept : u.marked;

	if (p->content == CONTENT_EXFAT) {
		const struct disk_exfat *e = &p->exfat;
		struct exfat_opts x = { .cluster_size = e->info.cluster_size,
					.heap_align = card,
					.heap_align_lower = true };
		return exfat_reached_heap_align(&x, e->info.vol_sectors * 512, p->start, used);
	}
	/* the builder's rule for a default data-align of the card's grid on this volume */
	const struct disk_fat *f = &p->fat;
	struct fat_opts o = volume_opts(&f->info);
	o.data_align = card;
	o.data_align_lower = true;
	return fat_reached_data_align(&o, (uint64_t)f->info.total_sectors * 512, p->start, used);
}

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/* A FAT or allocation bitmap that marks other clusters in use than the files and folders hold:
 * more (clusters lost: info) or fewer (a damaged FAT or bitmap, whose next write may take a
 * file's clusters: warning). Either is said, since the data area or heap is judged by what
 * they hold. */
static int check_clusters_held(const struct disk_part *p, struct findings *f)
{
	struct volume_use u = volume_use(p);
	bool exfat = p->content == CONTENT_EXFAT, more = u.marked > u.held;
	uint64_t files = exfat ? p->exfat.files : p->fat.files;
	uint64_t dirs = exfat ? p->exfat.dirs : p->fat.dirs;
	const char *what = exfat ? "allocation bitmap" : "FAT";

	if (u.held == UINT64_MAX || u.marked == u.held)
		return 0;
	return add(f, more ? "info" : "warning", more ? "clusters-unheld" : "clusters-unmarked",
		   p->number,
		   "the %s marks %llu cluster%s in use%s, %llu %s than the %llu cluster%s its "
		   "%llu file%s and %llu folder%s hold (%s); its %s is judged by the clusters "
		   "they hold",
		   what, (unsigned long long)u.marked, plural(u.marked),
		   exfat ? " besides its own and the up-case table's" : "",
		   (unsigned long long)(more ? u.marked - u.held : u.held - u.marked),
		   more ? "more" : "fewer", (unsigned long long)u.held, plural(u.held),
		   (unsigned long long)files, plural(files), (unsigned long long)dirs, plural(dirs),
		   more ? (exfat ? "clusters lost, or a damaged bitmap"
				 : "clusters lost, or a damaged FAT")
			: (exfat ? "a damaged bitmap: a write may reuse a file's clusters"
				 : "a damaged FAT: a write may reuse a file's clusters"),
		   exfat ? "cluster heap" : "data area");
}

/* What is true of the clusters of a data area or heap at byte @data off the grid @unit. */
static void straddle_text(uint64_t data, uint32_t cluster_size, uint64_t unit, char *buf, size_t n)
{
	char g[32];

	grid(unit, g, sizeof(g));
	if (data % cluster_size == 0)
		snprintf(buf, n, "its clusters start off the %s grid", g);
	else if (cluster_size >= unit)
		snprintf(buf, n, "every cluster straddles a boundary of the %s grid", g);
	else
		snprintf(buf, n, "one cluster in %llu straddles a boundary of the %s grid",
			 (unsigned long long)(unit / cluster_size), g);
}

uint64_t reader_volume_grid(const struct disk *k, const struct disk_part *p, uint64_t eb)
{
	if ((p->content != CONTENT_FAT && p->content != CONTENT_EXFAT) || p->content_error[0])
		return eb;
	uint64_t card = reader_card_grid(k, eb), reached = volume_reaches(p, card);

	return reached ? reached : eb;
}

static int check_data_area(const struct disk *k, const struct disk_part *p, uint64_t eb,
			   struct findings *f)
{
	const struct fat_info *i = &p->fat.info;
	uint64_t data = p->start + i->data_offset, unit = reader_volume_grid(k, p, eb);
	struct fat_opts o = volume_opts(i);
	uint64_t card = reader_card_grid(k, eb);
	const char *sd = unit < card ? STEP_REACHED : unit > eb ? SD_UNIT : "";
	char g[32], l[32], why[240], straddle[128];

	if (data % unit == 0)
		return 0;
	straddle_text(data, i->cluster_size, unit, straddle, sizeof(straddle));
	grid(unit, g, sizeof(g));
	units_layout(unit, l, sizeof(l));
	if (settings_fit(p, o, i->type, unit, NULL, why, sizeof(why)))
		return add(f, "warning", "data-misaligned", p->number,
			   "the FAT data area (cluster 2) starts at byte %llu, %llu bytes past the "
			   "%s grid%s: %s; sdimg pads the reserved sectors to put it on the grid "
			   "with fat { data-align = %s } (the default data-align is the image's "
			   "align: unless set, 4M, or the SD allocation unit of an image above "
			   "32 GiB)",
			   (unsigned long long)data, (unsigned long long)(data % unit), g, sd,
			   straddle, l);
	return add(f, "warning", "data-misaligned", p->number,
		   "the FAT data area (cluster 2) starts at byte %llu, %llu bytes past the %s "
		   "grid%s: %s; fat { data-align = %s } does not fit this volume's clusters "
		   "and FATs%s%s",
		   (unsigned long long)data, (unsigned long long)(data % unit), g, sd, straddle, l,
		   why[0] ? ": " : "", why);
}

static int check_fat_volume(const struct disk *k, const struct disk_part *p, uint64_t eb,
			    struct findings *f)
{
	const struct fat_info *i = &p->fat.info;
	int rc = check_clusters_held(p, f) | check_data_area(k, p, eb, f);

	if ((uint64_t)i->hidden_sectors * 512 != p->start)
		rc |= add(f, "warning", "hidden-sectors", p->number,
			  "the boot sector says the volume starts at sector %u (hidden sectors), "
			  "the "
			  "partition starts at sector %llu; some boot loaders locate files by it",
			  i->hidden_sectors, (unsigned long long)(p->start / 512));
	if ((uint64_t)i->total_sectors * 512 > p->size ||
	    p->start + (uint64_t)i->total_sectors * 512 > k->size)
		rc |= add(f, "error", "beyond-end", p->number,
			  "the FAT volume counts %u sectors but only %llu are there: it runs past "
			  "the "
			  "end of its partition or the device",
			  i->total_sectors,
			  (unsigned long long)((p->start + p->size > k->size ? k->size - p->start
									     : p->size) /
					       512));
	else if ((uint64_t)i->total_sectors * 512 != p->size && p->number)
		rc |= add(f, "warning", "total-sectors", p->number,
			  "the boot sector counts %u sectors, the partition has %llu: TI boot ROMs "
			  "(AM335x and others) refuse such a card; sdimg writes the partition's "
			  "exact size",
			  i->total_sectors, (unsigned long long)(p->size / 512));
	return rc;
}

/* An ext volume that claims more bytes than its partition (for a bare volume, the image: one
 * cut short) holds: reading it fails past that point. */
static int check_ext_volume(const struct disk_part *p, struct findings *f)
{
	if (p->ext.size <= p->size)
		return 0;
	return add(f, "error", "beyond-end", p->number,
		   "the ext volume claims %llu bytes but only %llu are there: it runs past the end "
		   "of its partition or the image",
		   (unsigned long long)p->ext.size, (unsigned long long)p->size);
}

/* The cluster size the SD Association gives an exFAT card of @sectors (SD Part 2 File System
 * Specification, the SDXC rows of its format parameter table). Up to 32 GiB a card is SDHC,
 * formatted FAT32 by the specification: the cluster size is then the exFAT specification's
 * default for the size (4 KiB up to 256 MiB, 32 KiB above). Above 2 TiB (SDUC) the table
 * ends: 0. */
static uint32_t exfat_sd_cluster(uint64_t sectors)
{
	if (sectors <= (1ull << 19))
		return 4096;
	if (sectors <= (1ull << 26))
		return 32768;
	if (sectors <= (1ull << 28))
		return 128u << 10;
	if (sectors <= (1ull << 30))
		return 256u << 10;
	if (sectors <= (1ull << 32))
		return 512u << 10;
	return 0;
}

/* The partition type of an exFAT volume: 0x07 on MBR, Microsoft basic data on GPT. */
static int check_exfat_type(const struct disk *k, const struct disk_part *p, struct findings *f)
{
	if (!p->number)
		return 0;
	if (!strcmp(k->table, "mbr") && strcasecmp(p->type, "0x07") != 0)
		return add(f, "warning", "partition-type", p->number,
			   "an exFAT volume in a partition of type %s: SD Part 2 and Windows "
			   "expect "
			   "type 0x07 (in the layout: mbr-type = 0x07)",
			   p->type);
	if (!strcmp(k->table, "gpt") &&
	    strcasecmp(p->type, "EBD0A0A2-B9E5-4433-87C0-68B6B72699C7") != 0)
		return add(f, "warning", "partition-type", p->number,
			   "an exFAT volume in a partition of type %s: Windows and cameras expect "
			   "Microsoft basic data (in the layout: gpt-type = msdata)",
			   p->type);
	return 0;
}

/* Where the heap lies against the erase-block grid, or the card's allocation unit where the
 * SD table gives a larger one; the partition start against that unit. */
static int check_exfat_heap(const struct disk *k, const struct disk_part *p, uint64_t eb,
			    struct findings *f)
{
	const struct exfat_info *i = &p->exfat.info;
	uint64_t unit = reader_volume_grid(k, p, eb), card = reader_card_grid(k, eb);
	uint64_t heap = p->start + (uint64_t)i->heap_offset * 512;
	char g[32], c[32], ck[32];
	int rc = 0;

	grid(unit, g, sizeof(g));
	grid(card, c, sizeof(c));
	units_layout(card, ck, sizeof(ck));
	if (p->number && p->start % eb == 0 && p->start % card)
		rc |= add(f, "warning", "start-misaligned", p->number,
			  "partition %u starts at byte %llu, off the %s allocation unit the SD "
			  "specification gives a card of this capacity; the next unit boundary is "
			  "byte %llu (in the layout: align = %s, the default when image { size } "
			  "gives this capacity)",
			  p->number, (unsigned long long)p->start, c,
			  (unsigned long long)((p->start + card - 1) / card * card), ck);
	/* sdimg's default (data-align = the partition's align, which on an SDXC capacity is its
	 * allocation unit) keeps the heap on this grid */
	if (heap % unit == 0)
		return rc;
	/* sd-format lays out a card of one partition: with others, the keys of the unit */
	size_t parts = 0;
	for (size_t n = 0; n < k->n_parts; n++)
		parts += k->parts[n].size != 0;
	char fix[400], key[32];
	units_layout(unit, key, sizeof(key));
	char straddle[128];
	straddle_text(heap, i->cluster_size, unit, straddle, sizeof(straddle));
	/* data-align counts from the start of the image: align only where the start is off */
	if (unit < card || !p->number || p->start % unit == 0)
		snprintf(fix, sizeof(fix), "%s; exfat { data-align = %s } puts it there", straddle,
			 key);
	else if (parts <= 1 && !strcmp(k->table, "mbr"))
		snprintf(fix, sizeof(fix),
			 "%s; exfat { sd-format = true } (with image { size } and size = grow) "
			 "lays "
			 "the card out on it, as the SD formatter does (or align and data-align = "
			 "%s)",
			 straddle, key);
	else
		snprintf(fix, sizeof(fix),
			 "%s; align = %s and exfat { data-align = %s } put it there", straddle, key,
			 key);
	return rc | add(f, "warning", "heap-misaligned", p->number,
			"the exFAT cluster heap (cluster 2) starts at byte %llu, %llu bytes past "
			"the %s grid%s: %s",
			(unsigned long long)heap, (unsigned long long)(heap % unit), g,
			unit < card ? STEP_REACHED
			: unit > eb ? SD_UNIT
				    : "",
			fix);
}

static int check_exfat_volume(const struct disk *k, const struct disk_part *p, uint64_t eb,
			      struct findings *f)
{
	const struct exfat_info *i = &p->exfat.info;
	uint32_t sd_cluster = exfat_sd_cluster(k->size / 512);
	char have[32], want[32];
	int rc = check_exfat_type(k, p, f) | check_clusters_held(p, f) |
		 check_exfat_heap(k, p, eb, f);

	if (i->part_offset && i->part_offset * 512 != p->start)
		rc |= add(f, "warning", "partition-offset", p->number,
			  "the boot sector says the volume starts at sector %llu "
			  "(PartitionOffset), "
			  "the partition starts at sector %llu",
			  (unsigned long long)i->part_offset, (unsigned long long)(p->start / 512));
	if (i->flags & (EXFAT_FLAG_VOLUMEDIRTY | EXFAT_FLAG_MEDIAFAILURE))
		rc |= add(f, "warning", "volume-dirty", p->number,
			  "the boot sector's VolumeFlags say%s%s: the volume was not unmounted "
			  "cleanly, or its medium failed; fsck.exfat checks it",
			  i->flags & EXFAT_FLAG_VOLUMEDIRTY ? " VolumeDirty" : "",
			  i->flags & EXFAT_FLAG_MEDIAFAILURE ? " MediaFailure" : "");
	if (sd_cluster && i->cluster_size != sd_cluster) {
		grid(i->cluster_size, have, sizeof(have));
		grid(sd_cluster, want, sizeof(want));
		rc |= add(f, "info", "cluster-size", p->number,
			  "clusters of %s; for an exFAT card of this capacity the %s gives %s",
			  have,
			  sdcard_allocation_unit(k->size) ? "SD specification"
							  : "exFAT specification",
			  want);
	}
	return rc;
}

static bool far_apart(uint32_t a, uint32_t b)
{
	return a * 4ull <= b || a >= b * 4ull;
}

/*
 * Clusters far from what sdimg would choose for this volume. The advice keeps the volume's
 * FAT type: a cluster size that needs another type fails to build where the layout fixes
 * the type. Each suggestion is checked with fat_params() before it is printed.
 */
static int check_cluster_size(const struct disk_part *p, uint64_t eb, struct findings *f)
{
	const struct fat_info *i = &p->fat.info;
	struct fat_opts o = volume_opts(i), sd = o, typed = o;
	struct fat_geom sd_g, typed_g;
	char have[32], want[32], l[32];
	int rc = 0;

	sd.type = FAT_AUTO;
	sd.cluster_size = typed.cluster_size = 0;
	grid(i->cluster_size, have, sizeof(have));
	if (settings_work(p, sd, i->type, eb, &sd_g)) {
		/* sdimg's own choice keeps the type: with or without a fixed type it builds */
		struct fat_opts any = o;
		o.cluster_size = any.cluster_size = sd_g.cluster_size;
		any.type = FAT_AUTO;
		grid(sd_g.cluster_size, want, sizeof(want));
		if (far_apart(i->cluster_size, sd_g.cluster_size) &&
		    settings_work(p, o, i->type, eb, NULL) &&
		    settings_work(p, any, i->type, eb, NULL))
			rc = add(f, "info", "cluster-size", p->number,
				 "clusters of %s; for a FAT%d volume of this size sdimg chooses %s "
				 "(its "
				 "default, capped by the SD specification's table): fat { "
				 "cluster-size "
				 "= %s }, or leave cluster-size out",
				 have, (int)i->type, want,
				 units_layout(sd_g.cluster_size, l, sizeof(l)));
	} else if (settings_work(p, typed, i->type, eb, &typed_g)) {
		/* sdimg would choose another type: the nearest size that keeps this one */
		o.cluster_size = typed_g.cluster_size;
		grid(typed_g.cluster_size, want, sizeof(want));
		if (far_apart(i->cluster_size, typed_g.cluster_size) &&
		    settings_work(p, o, i->type, eb, NULL))
			rc = add(f, "info", "cluster-size", p->number,
				 "clusters of %s; for FAT%d at this size sdimg chooses %s: type = "
				 "fat%d "
				 "with fat { cluster-size = %s }, or with cluster-size left out",
				 have, (int)i->type, want, (int)i->type,
				 units_layout(typed_g.cluster_size, l, sizeof(l)));
	}
	if (rc == 0 && i->fats == 2)
		rc = add(f, "info", "two-fats", p->number,
			 "two FATs: each cluster allocation is written twice; fat { fats = 1 } is "
			 "faster "
			 "on flash (keep two where a boot ROM wants them, as TI's do)");
	return rc;
}

static int compare_start(const void *a, const void *b)
{
	const struct disk_part *x = *(const struct disk_part *const *)a;
	const struct disk_part *y = *(const struct disk_part *const *)b;

	return x->start < y->start   ? -1
	       : x->start > y->start ? 1
				     : (x->number > y->number) - (x->number < y->number);
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
				 "writing one destroys the other; give each its own range in the "
				 "layout",
				 reach->number, v[i]->number, (unsigned long long)v[i]->start,
				 (unsigned long long)end - 1);
		}
		if (!reach || v[i]->start + v[i]->size > reach->start + reach->size)
			reach = v[i];
	}
	free(v);
	return rc;
}

static int check_gpt_backup(const struct disk *k, struct findings *f)
{
	uint64_t sectors = k->size / 512;

	if (k->gpt_backup == DISK_GPT_BACKUP_INVALID)
		return add(f, "error", "gpt-backup-invalid", 0,
			   "the backup GPT header or its entry array (at LBA %llu) fails its "
			   "signature "
			   "or CRC check",
			   (unsigned long long)k->gpt_backup_lba);
	if (k->gpt_backup == DISK_GPT_BACKUP_MISSING && k->gpt_backup_lba >= sectors)
		return add(f, "warning", "gpt-backup-missing", 0,
			   "no backup GPT: the primary header puts it at LBA %llu, past the end of "
			   "the "
			   "image (%llu sectors): the image is cut short, or was made without one; "
			   "a "
			   "damaged primary cannot be restored",
			   (unsigned long long)k->gpt_backup_lba, (unsigned long long)sectors);
	if (k->gpt_backup == DISK_GPT_BACKUP_MISSING)
		return add(f, "warning", "gpt-backup-missing", 0,
			   "no backup GPT: LBA %llu, where it belongs, holds no GPT header; a "
			   "damaged "
			   "primary cannot be restored",
			   (unsigned long long)k->gpt_backup_lba);
	return 0;
}

/* A hybrid MBR: legacy firmware sees its records, so each should match a GPT partition. */
static int check_hybrid(const struct disk *k, struct findings *f)
{
	char list[64] = "";
	size_t len = 0;
	int rc = 0;

	if (!k->hybrid_mbr)
		return 0;
	for (size_t i = 0; i < k->n_mirrors; i++) {
		const struct disk_mirror *m = &k->mirrors[i];
		if (m->gpt_number)
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%u",
						len ? ", " : "", m->gpt_number);
		else
			rc |= add(f, "warning", "hybrid-mbr-mismatch", 0,
				  "the hybrid MBR lists bytes %llu-%llu (type 0x%02x), which no "
				  "GPT "
				  "partition covers exactly: MBR-only firmware and the GPT "
				  "disagree",
				  (unsigned long long)m->start,
				  (unsigned long long)(m->start + m->size - 1), m->type);
		if (len >= sizeof(list))
			len = sizeof(list) - 1;
	}
	return rc | add(f, "info", "hybrid-mbr", 0,
			"hybrid MBR: besides the protective 0xEE record it lists %s%s for firmware "
			"that reads only the MBR; tools that rewrite the GPT may leave it stale",
			len ? "GPT partition(s) " : "other partitions", list);
}

int reader_compute_findings(const struct disk *k, uint64_t eb, struct findings *f)
{
	int rc = 0;

	if (k->table_unreadable)
		rc |= add(f, "error", "table-unreadable", 0,
			  "the disk has a GPT signature, but the table cannot be read (libfdisk "
			  "refuses "
			  "it); its partitions are not listed");
	if (!strcmp(k->table, "gpt") && !k->gpt_primary_ok)
		rc |= add(f, "error", "gpt-primary-invalid", 0,
			  "the primary GPT header or its entry array fails its signature or CRC "
			  "check");
	if (!strcmp(k->table, "gpt") && !k->table_unreadable)
		rc |= check_gpt_backup(k, f) | check_hybrid(k, f);
	rc |= check_overlaps(k, f);
	for (size_t n = 0; n < k->n_parts; n++) {
		const struct disk_part *p = &k->parts[n];
		if (p->content == CONTENT_CONTAINER)
			continue;
		if (p->start + p->size > k->size)
			rc |= add(f, "error", "beyond-end", p->number,
				  "partition %u ends at byte %llu, past the end of the image or "
				  "device (%llu "
				  "bytes): it cannot be read whole",
				  p->number, (unsigned long long)(p->start + p->size),
				  (unsigned long long)k->size);
		rc |= check_start(p, eb, f);
		if (p->content == CONTENT_FAT && p->content_error[0])
			rc |= add(f, "error", "fat-unreadable", p->number, "%s", p->content_error);
		else if (p->content == CONTENT_FAT)
			rc |= check_fat_volume(k, p, eb, f) | check_cluster_size(p, eb, f);
		else if (p->content == CONTENT_EXFAT && p->content_error[0])
			rc |= add(f, "error", "exfat-unreadable", p->number, "%s",
				  p->content_error);
		else if (p->content == CONTENT_EXFAT)
			rc |= check_exfat_volume(k, p, eb, f);
		else if (p->content == CONTENT_EXT && p->start + p->size <= k->size)
			rc |= check_ext_volume(p, f);
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
