/* SPDX-License-Identifier: MIT */
/*
 * exfat/sdformat: a whole SDXC card laid out as the SD Association's formatter does
 * (exfat.h, exfat_sd_format()). SD Specifications Part 2 File System Specification, the
 * format parameters of SDXC cards (exFAT): by capacity, the cluster size and the boundary
 * unit BU; the partition starts at BU, the FAT at BU / 2 from the volume's start and fills
 * the half BU up to the cluster heap, which starts at BU from the volume's start, so the heap
 * is on a multiple of BU from the card's start. One FAT; MBR partition type 0x07.
 */
#include "exfat/write_priv.h"

#include "common/units.h"

#include <errno.h>
#include <inttypes.h>

#define SDXC_MIN (1ull << 26) /* SDHC cards have up to 2^26 sectors (32 GiB) */
#define SDXC_MAX (1ull << 32) /* SDXC cards have up to 2^32 sectors (2 TiB) */
#define SDXC_MBR_TYPE 0x07u

/* The SDXC rows of SD Part 2's format parameter table: card sectors up to, cluster, BU. */
static const struct {
	uint64_t max_sectors;
	uint32_t cluster;  /* bytes */
	uint32_t boundary; /* sectors */
} sdxc_rows[] = {
	{ 1ull << 28, 128u << 10, 32768 },  /* up to 128 GiB: 128 KiB clusters, BU 16 MiB */
	{ 1ull << 30, 256u << 10, 65536 },  /* up to 512 GiB: 256 KiB, BU 32 MiB */
	{ 1ull << 32, 512u << 10, 131072 }, /* up to 2 TiB: 512 KiB, BU 64 MiB */
};

int exfat_sd_format(const struct exfat_opts *o, uint64_t card_sectors, struct exfat_sd_layout *ret,
		    struct diag *d)
{
	struct exfat_geom *g = &ret->geom;
	char a[16], b[16], c[16];
	size_t i = 0;

	if (card_sectors <= SDXC_MIN)
		return diag_error(d,
				  "a card of %s (%" PRIu64 " sectors) is not SDXC: SDXC cards, "
				  "which the SD formatter writes as exFAT, have more than 32 GiB "
				  "(2^26 sectors); fat { sd-format = true } lays out smaller cards",
				  units_layout(card_sectors * EXFAT_SECTOR, a, sizeof(a)),
				  card_sectors);
	if (card_sectors > SDXC_MAX)
		return diag_error(d,
				  "a card of %s (%" PRIu64 " sectors): SDXC cards have at most "
				  "2 TiB (2^32 sectors), the largest the SD format table covers",
				  units_layout(card_sectors * EXFAT_SECTOR, a, sizeof(a)),
				  card_sectors);
	while (card_sectors > sdxc_rows[i].max_sectors)
		i++;
	if (o && o->cluster_size && o->cluster_size != sdxc_rows[i].cluster)
		return diag_error(d,
				  "cluster size %s: the SD format of a card of %s uses %s (leave "
				  "the cluster size unset, or sd-format off)",
				  units_layout(o->cluster_size, a, sizeof(a)),
				  units_layout(card_sectors * EXFAT_SECTOR, b, sizeof(b)),
				  units_layout(sdxc_rows[i].cluster, c, sizeof(c)));
	ret->boundary = sdxc_rows[i].boundary;
	ret->part_start = ret->boundary;
	ret->part_sectors = card_sectors - ret->boundary;
	ret->mbr_type = SDXC_MBR_TYPE;
	g->part_offset = ret->part_start;
	g->vol_sectors = ret->part_sectors;
	g->fat_offset = ret->boundary / 2;
	g->fat_length = ret->boundary / 2;
	g->heap_offset = ret->boundary;
	g->cluster_size = sdxc_rows[i].cluster;
	g->cluster_shift = (uint8_t)(i + 8); /* 256, 512 and 1024 sectors */
	g->clusters = (uint32_t)((ret->part_sectors - g->heap_offset) /
				 (g->cluster_size / EXFAT_SECTOR));
	return exfat_geom_names(o, g, d);
}
