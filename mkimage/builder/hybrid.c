/* SPDX-License-Identifier: MIT */
/*
 * hybrid: the MBR of table = hybrid (see builder_priv.h). Sector 0 of a GPT normally holds
 * one protective entry of type 0xEE over the whole disk (UEFI 2.10, 5.2.3); a hybrid MBR
 * keeps a smaller 0xEE entry and describes up to three of the GPT's partitions as MBR
 * partitions too, for firmware that reads only an MBR. The 0xEE entry covers LBA 1 up to the
 * sector before the first mirrored partition, as gdisk makes it: the GPT's own structures
 * and anything else before that partition stay protected from MBR-only tools.
 */
#include "mkimage/builder/builder.h"
#include "mkimage/builder/tables.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "common/bytes.h"
#include "common/mbr.h"

#define SECTOR 512u

static void put_entry(uint8_t *e, bool active, uint8_t type, uint64_t start_lba, uint64_t n_lba)
{
	e[MBR_ENT_BOOT] = active ? MBR_BOOT_ACTIVE : 0;
	e[MBR_ENT_TYPE] = type;
	mbr_chs(start_lba, e + MBR_ENT_START_CHS);
	mbr_chs(start_lba + n_lba - 1, e + MBR_ENT_END_CHS);
	put_le32(e + MBR_ENT_START_LBA, (uint32_t)start_lba); /* the plan keeps both in 32 bits */
	put_le32(e + MBR_ENT_SIZE_LBA, (uint32_t)n_lba);
}

/* The plan's regions of the partitions with `hybrid`, in layout order (at most three). */
static size_t mirrored_regions(const struct layout *l, const struct plan *p,
			       const struct plan_region *ret[MBR_N_ENTRIES - 1])
{
	size_t n = 0;

	for (size_t k = 0; k < l->n_parts && n < MBR_N_ENTRIES - 1; k++)
		for (size_t i = 0; l->parts[k].hybrid && i < p->n_regions; i++)
			if (p->regions[i].kind == PLAN_PARTITION &&
			    p->regions[i].part == &l->parts[k])
				ret[n++] = &p->regions[i];
	return n;
}

/* Bytes 440-511 of sector 0: disk signature, the four entries, 0x55 0xAA. */
static int hybrid_tail(const struct layout *l, const struct plan *p, const uint8_t *mbr_types,
		       struct sha256 *sha, uint8_t tail[SECTOR - MBR_DISK_SIGNATURE])
{
	const struct plan_region *mirrored[MBR_N_ENTRIES - 1];
	size_t n = mirrored_regions(l, p, mirrored);
	size_t ee_slot = l->image.hybrid_ee_last ? n : 0, slot = ee_slot ? 0 : 1;
	uint8_t *entries = tail + (MBR_ENTRIES - MBR_DISK_SIGNATURE);
	uint64_t first = UINT64_MAX;
	uint32_t disk_id;
	int rc = build_id_mbr_disk(sha, l->image.seed, &disk_id);

	memset(tail, 0, SECTOR - MBR_DISK_SIGNATURE);
	put_le32(tail, disk_id);
	for (size_t j = 0; j < n; j++) {
		const struct plan_region *r = mirrored[j];
		put_entry(entries + slot++ * MBR_ENTRY_SIZE, r->part->bootable,
			  mbr_types[r->part - l->parts], r->start / SECTOR, r->size / SECTOR);
		if (r->start < first)
			first = r->start;
	}
	put_entry(entries + ee_slot * MBR_ENTRY_SIZE, false, MBR_TYPE_GPT_PROTECTIVE, 1,
		  first / SECTOR - 1);
	tail[MBR_SIGNATURE - MBR_DISK_SIGNATURE] = 0x55;
	tail[MBR_SIGNATURE - MBR_DISK_SIGNATURE + 1] = 0xaa;
	return rc;
}

int build_write_hybrid_mbr(const struct layout *l, const struct plan *p, const uint8_t *mbr_types,
			   int fd, const char *path, struct sha256 *sha, struct diag *d)
{
	uint8_t tail[SECTOR - MBR_DISK_SIGNATURE];
	ssize_t put;

	if (hybrid_tail(l, p, mbr_types, sha, tail) < 0)
		return -EIO;
	put = pwrite(fd, tail, sizeof(tail), MBR_DISK_SIGNATURE);
	if (put == (ssize_t)sizeof(tail))
		return 0;
	return diag_error(d, "%s: writing the hybrid MBR: %s", path,
			  put < 0 ? strerror(errno) : "short write");
}
