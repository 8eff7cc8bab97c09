/* SPDX-License-Identifier: MIT */
/*
 * exfat/params: the geometry of an exFAT volume (exfat.h, exfat_params()): cluster size,
 * FatOffset, FatLength, ClusterHeapOffset and ClusterCount, each within the limits of §3.1
 * of the exFAT specification.
 */
#include "exfat/write_priv.h"

#include "common/units.h"
#include "common/utf8.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

uint32_t exfat_default_cluster(uint64_t vol_bytes)
{
	/* the specification's and SD Part 2's recommendations, as Windows' format applies them */
	if (vol_bytes <= (256ull << 20))
		return 4u << 10;
	if (vol_bytes <= (32ull << 30))
		return 32u << 10;
	return 128u << 10;
}

static unsigned log2u(uint64_t v)
{
	unsigned k = 0;

	while (v > 1) {
		v >>= 1;
		k++;
	}
	return k;
}

bool exfat_unit_forbidden(uint16_t u)
{
	/* §7.7.3 Table 35: the control codes 0x00-0x1F and " * / : < > ? \ | */
	return u < 0x20 || (u < 0x80 && strchr("\"*/:<>?\\|", (char)u));
}

/* A valid label: 0..11 UTF-16 units (§7.3.2), none of the characters names may not hold. */
static int put_label(const char *label, struct exfat_geom *g, struct diag *d)
{
	char shown[128];
	int n = utf8_to_utf16(label, g->label, EXFAT_LABEL_MAX);

	if (n == -EILSEQ)
		return diag_error(d, "label \"%s\": not valid UTF-8",
				  utf8_shown(label, shown, sizeof(shown)));
	if (n < 0)
		return diag_error(d, "label \"%s\": longer than the 11 UTF-16 units exFAT holds",
				  utf8_shown(label, shown, sizeof(shown)));
	for (int i = 0; i < n; i++)
		if (exfat_unit_forbidden(g->label[i]))
			return diag_error(d,
					  "label \"%s\": holds a character exFAT names may not "
					  "hold (control characters and \" * / : < > ? \\ |)",
					  utf8_shown(label, shown, sizeof(shown)));
	g->label_len = (uint8_t)n;
	return 0;
}

int exfat_geom_names(const struct exfat_opts *o, struct exfat_geom *g, struct diag *d)
{
	memset(g->label, 0, sizeof(g->label));
	g->label_len = 0;
	g->volume_id = o ? o->volume_id : 0;
	g->has_guid = o && o->guid;
	if (g->has_guid)
		memcpy(g->guid, o->guid, sizeof(g->guid));
	return o && o->label && *o->label ? put_label(o->label, g, d) : 0;
}

/* FAT sectors for @clusters clusters: entries 0 and 1 and one of 4 bytes each (§4.1). */
static uint64_t fat_sectors(uint64_t clusters)
{
	return ((clusters + 2) * 4 + EXFAT_SECTOR - 1) / EXFAT_SECTOR;
}

int exfat_layout(const struct exfat_opts *o, uint64_t vol_sectors, uint64_t vol_offset,
		 uint32_t cluster_size, uint64_t align, struct exfat_geom *g, struct diag *d)
{
	uint32_t spc = cluster_size / EXFAT_SECTOR;
	uint64_t off = vol_offset / EXFAT_SECTOR, bound, fat_len, heap, count;
	char a[16], b[16], c[16];

	memset(g, 0, sizeof(*g));
	if (vol_sectors < EXFAT_VOLUME_MIN)
		return diag_error(d, "a volume of %s: exFAT volumes are at least 1 MiB",
				  units_layout(vol_sectors * EXFAT_SECTOR, a, sizeof(a)));
	bound = (vol_sectors - EXFAT_FAT_OFFSET_MIN) / spc;
	fat_len = fat_sectors(bound < EXFAT_MAX_CLUSTERS ? bound : EXFAT_MAX_CLUSTERS);
	heap = EXFAT_FAT_OFFSET_MIN + fat_len;
	if (align) {
		uint64_t al = align / EXFAT_SECTOR;
		heap = (off + heap + al - 1) / al * al - off;
	}
	if (heap > UINT32_MAX)
		return diag_error(d,
				  "the cluster heap would start at sector %" PRIu64 "; exFAT's "
				  "ClusterHeapOffset holds at most 2^32 - 1 (§3.1.7)",
				  heap);
	count = heap < vol_sectors ? (vol_sectors - heap) / spc : 0;
	if (!count)
		return diag_error(d,
				  "a volume of %s leaves no cluster of %s after its boot regions "
				  "and FAT%s",
				  units_layout(vol_sectors * EXFAT_SECTOR, a, sizeof(a)),
				  units_layout(cluster_size, b, sizeof(b)),
				  align ? " and the padding that aligns its cluster heap" : "");
	if (count > EXFAT_MAX_CLUSTERS) {
		uint64_t works = cluster_size;
		while ((vol_sectors - heap) / (works / EXFAT_SECTOR) > EXFAT_MAX_CLUSTERS)
			works *= 2;
		units_human(vol_sectors * EXFAT_SECTOR, a, sizeof(a));
		units_human(cluster_size, b, sizeof(b));
		return diag_error(d,
				  "a volume of %s has %" PRIu64 " clusters of %s; exFAT holds at "
				  "most 4294967285 (§3.1.9); a cluster size of %s or more works",
				  a, count, b, units_layout(works, c, sizeof(c)));
	}
	g->part_offset = off;
	g->vol_sectors = vol_sectors;
	g->fat_offset = EXFAT_FAT_OFFSET_MIN;
	g->fat_length = (uint32_t)fat_len;
	g->heap_offset = (uint32_t)heap;
	g->clusters = (uint32_t)count;
	g->cluster_size = cluster_size;
	g->cluster_shift = (uint8_t)log2u(spc);
	return exfat_geom_names(o, g, d);
}

static int check_opts(const struct exfat_opts *o, uint64_t vol_bytes, uint64_t vol_offset,
		      struct diag *d)
{
	char a[16];

	if (vol_bytes % EXFAT_SECTOR || vol_offset % EXFAT_SECTOR)
		return diag_error(d,
				  "an exFAT volume's size and offset are whole 512-byte sectors");
	if (o->cluster_size &&
	    (o->cluster_size < EXFAT_SECTOR || o->cluster_size > (1u << EXFAT_MAX_CLUSTER_SHIFT) ||
	     (o->cluster_size & (o->cluster_size - 1))))
		return diag_error(d,
				  "cluster size %s: exFAT's is a power of two from 512 bytes to "
				  "32 MiB (§3.1.9)",
				  units_layout(o->cluster_size, a, sizeof(a)));
	if (o->heap_align % EXFAT_SECTOR)
		return diag_error(d,
				  "data-align %s: the cluster heap starts on a sector, so its "
				  "alignment is a multiple of 512 bytes",
				  units_layout(o->heap_align, a, sizeof(a)));
	return 0;
}

int exfat_params(const struct exfat_opts *o, uint64_t vol_bytes, uint64_t vol_offset,
		 struct exfat_geom *ret, struct diag *d)
{
	static const struct exfat_opts none;
	int r;

	o = o ? o : &none;
	r = check_opts(o, vol_bytes, vol_offset, d);
	if (r)
		return r;
	return exfat_layout(o, vol_bytes / EXFAT_SECTOR, vol_offset,
			    o->cluster_size ? o->cluster_size : exfat_default_cluster(vol_bytes),
			    o->heap_align, ret, d);
}
