/* SPDX-License-Identifier: MIT */
/*
 * wks_place: where wic puts each partition (oe-core scripts/lib/wic/plugins/imager/direct.py,
 * PartitionedImage.layout_partitions()), in 512-byte sectors:
 *  - the first partition starts after the table: 1 sector for msdos, 34 for gpt (protective
 *    MBR, GPT header, 32 sectors of entries);
 *  - on msdos with more than four partitions in the table, the fourth and later ones are
 *    logical (numbered from 5), and each first skips one sector for its EBR;
 *  - then --align (KiB) moves the start up to the next multiple of it, counted from the
 *    image's first byte; --offset (KiB or sectors: a whole sector) puts it there, and an offset
 *    behind the space already taken is an error;
 *  - the next partition's space starts where this one ends; sizes are whole KiB;
 *  - the image ends with the last partition, and on gpt 34 sectors later (the backup
 *    entries and header, one sector more than they take).
 * A partition whose size wic takes from its contents leaves the rest unknown here: sdimg's
 * own placement, given the same `align`, puts it where wic's rules would.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mkimage/importer/wks.h"

#define MBR_OVERHEAD 1
#define GPT_OVERHEAD 34

/*
 * How wic sizes @p (Partition.get_rootfs_size() and the source plugins) and the size the
 * layout pins, in sectors: --fixed-size; --size for a partition no source fills; for a
 * rawcopy --size, which a larger file would grow; for files put together by wic (a root file
 * system, IMAGE_BOOT_FILES) (files + max(--size - files, --extra-space)) x --overhead-factor
 * KiB, which is --size x factor while the files take at most --size - --extra-space. Only
 * what follows the files alone (no --size) is not known before the build.
 */
static enum wks_sizing sizing(const struct wks_part *p, uint64_t *ret)
{
	*ret = 0;
	if (p->fixed_kib) {
		*ret = p->fixed_kib * 2;
		return WKS_EXACT;
	}
	if (!p->source || strcmp(p->source, "empty") == 0) {
		*ret = p->size_kib * 2;
		return WKS_EXACT;
	}
	if (!p->size_kib)
		return WKS_FROM_FILES;
	if (strcmp(p->source, "rawcopy") == 0) {
		*ret = p->size_kib * 2;
		return WKS_AT_LEAST;
	}
	*ret = (uint64_t)floor((double)p->size_kib * p->factor) * 2;
	return WKS_FACTOR;
}

/* The layout's name of @p: its mount point's words joined by '_' ("/" is root, "/boot/efi"
 * boot_efi), else its label, else partN; a name taken already gets -2, -3, ... */
static int name_part(struct wks *w, size_t i, struct diag *d)
{
	struct wks_part *p = &w->parts[i];
	const char *from = p->mountpoint ? p->mountpoint : p->label;
	char base[64] = "", name[80];
	size_t n = 0;

	if (from && strcmp(from, "/") == 0)
		from = "root";
	for (const char *s = from ? from : ""; *s && n + 1 < sizeof(base); s++) {
		if (isalnum((unsigned char)*s) || *s == '-' || *s == '_')
			base[n++] = *s;
		else if (n && base[n - 1] != '_')
			base[n++] = '_';
	}
	while (n && base[n - 1] == '_')
		n--;
	base[n] = '\0';
	if (!n)
		snprintf(base, sizeof(base), "part%zu", i + 1);
	snprintf(name, sizeof(name), "%s", base);
	for (unsigned k = 2;; k++) {
		bool taken = false;
		for (size_t j = 0; j < i; j++)
			taken |= strcmp(w->parts[j].name, name) == 0;
		if (!taken)
			break;
		snprintf(name, sizeof(name), "%s-%u", base, k);
	}
	p->name = strdup(name);
	return p->name ? 0 : diag_errno(d, -ENOMEM, "%s:%d: out of memory", p->file, p->line);
}

int import_wks_place(struct wks *w, struct diag *d)
{
	size_t in_table = 0;
	unsigned realpart = 0;
	uint64_t offset = 0;
	bool known = true;

	for (size_t i = 0; i < w->n_parts; i++)
		in_table += !w->parts[i].no_table;
	for (size_t i = 0; i < w->n_parts; i++) {
		struct wks_part *p = &w->parts[i];
		int rc = name_part(w, i, d);
		if (rc)
			return rc;
		if (strcmp(p->disk, w->parts[0].disk) != 0)
			return diag_error(d,
					  "%s:%d: part --ondisk %s: wic makes one image per disk, "
					  "and the first partition is on %s: choose one with "
					  "--image DISK",
					  p->file, p->line, p->disk, w->parts[0].disk);
		realpart += !p->no_table;
		if (i == 0)
			offset += w->gpt ? GPT_OVERHEAD : MBR_OVERHEAD;
		p->logical = !w->gpt && in_table > 4 && realpart > 3;
		if (p->logical && p->no_table)
			return diag_error(d,
					  "%s:%d: part --no-table: after three partitions of a "
					  "table "
					  "with more than four, wic makes it a logical partition "
					  "all "
					  "the same; put it before them",
					  p->file, p->line);
		if (p->logical)
			offset += 1; /* the EBR's sector, before the alignment */
		if (p->align_kib && offset % (p->align_kib * 2))
			offset += p->align_kib * 2 - offset % (p->align_kib * 2);
		if (p->has_offset) {
			if (known && p->offset / 512 < offset)
				return diag_error(d,
						  "%s:%d: part --offset %llu: the partitions "
						  "before "
						  "end at %llu (wic: could not place)",
						  p->file, p->line, (unsigned long long)p->offset,
						  (unsigned long long)offset * 512);
			offset = p->offset / 512;
			known = true;
		}
		p->start = offset;
		p->start_known = known;
		p->sizing = sizing(p, &p->size);
		p->size_known = p->sizing != WKS_FROM_FILES;
		p->number = p->no_table ? 0 : p->logical ? realpart + 1 : realpart;
		offset += p->size;
		known = known && p->size_known;
	}
	w->image_known = known;
	w->image_sectors = offset + (w->gpt ? GPT_OVERHEAD : 0);
	return 0;
}
