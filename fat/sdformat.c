/* SPDX-License-Identifier: MIT */
/*
 * fat/sdformat: the SD Association formatter's layout of a whole card (SD Specifications Part 2
 * File System Specification: format parameters, FAT12/16 and FAT32 layout algorithms):
 * FAT12/16 move the partition start so that the data area lands on a boundary unit (BU);
 * FAT32 starts the partition at one BU and pads the reserved sectors instead.
 */
#include "fat/params_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

struct sd_class {
	uint32_t max_sectors;
	enum fat_type type;
	uint32_t spc, bu;
};

/* SD Part 2 format parameters: capacity (sectors, inclusive) -> FS, SC, BU; SDXC (exFAT) is not here. */
static const struct sd_class sd_classes[] = {
	{ 1u << 14, FAT_12, 16, 16 },  { 1u << 17, FAT_12, 32, 32 },
	{ 1u << 19, FAT_16, 32, 64 },  { 1u << 21, FAT_16, 32, 128 },
	{ 1u << 22, FAT_16, 64, 128 }, { 1u << 26, FAT_32, 64, 8192 },
};

#define SD_RDE 512u
#define SD_ITER_MAX 100000

static uint32_t ceil_div(uint64_t a, uint64_t b)
{
	return (uint32_t)((a + b - 1) / b);
}

struct sd_out {
	uint32_t nom, rsc, sf, count;
};

/* §1.4 steps 1-7: FAT12/16, RSC = 1, RDE = 512. Returns 0 or -ERANGE (card too small). */
static int sd_fat1216(uint64_t ts, uint32_t bits, uint32_t sc, uint32_t bu, struct sd_out *r)
{
	uint64_t sf = ceil_div((ts / sc) * bits, 4096), nom, ssa, sf2;
	int iter = 0;

	for (;;) {
		ssa = 1 + 2 * sf + SD_RDE * 32 / FAT_SECTOR;
		nom = bu - ssa % bu;
		if (nom != bu)
			nom += bu;
		for (;;) {
			if (ts <= nom + ssa || ++iter > SD_ITER_MAX)
				return -ERANGE;
			r->count = (uint32_t)((ts - nom - ssa) / sc);
			sf2 = ceil_div(((uint64_t)r->count + 2) * bits, 4096);
			if (sf2 <= sf)
				break;
			nom += bu;
		}
		if (sf2 == sf)
			break;
		sf = sf2;
	}
	r->nom = (uint32_t)nom;
	r->rsc = 1;
	r->sf = (uint32_t)sf;
	return 0;
}

/* §1.5 steps 1-7: FAT32, NOM = BU, RSC pads the system area to a BU multiple. */
static int sd_fat32(uint64_t ts, uint32_t sc, uint32_t bu, struct sd_out *r)
{
	uint64_t sf = ceil_div((ts / sc) * 32, 4096), rsc, ssa, sf2;
	int iter = 0;

	for (;;) {
		rsc = bu - (2 * sf) % bu;
		if (rsc < 9)
			rsc += bu;
		ssa = rsc + 2 * sf;
		for (;;) {
			if (ts <= bu + ssa || ++iter > SD_ITER_MAX)
				return -ERANGE;
			r->count = (uint32_t)((ts - bu - ssa) / sc);
			sf2 = ceil_div(((uint64_t)r->count + 2) * 32, 4096);
			if (sf2 <= sf)
				break;
			ssa += bu;
			rsc += bu;
		}
		if (sf2 == sf)
			break;
		sf--;
	}
	if (rsc > 0xFFFF)
		return -ERANGE;
	r->nom = bu;
	r->rsc = (uint32_t)rsc;
	r->sf = (uint32_t)sf;
	return 0;
}

/* Options other than names must be unset or equal to what the SD formatter uses. */
static int sd_check_opts(const struct fat_opts *o, const struct sd_class *c, struct diag *d)
{
	if (o->type != FAT_AUTO && o->type != c->type)
		return diag_error(d,
				  "sd-format: the SD formatter uses FAT%d on this card, not FAT%d; "
				  "drop the type or sd-format",
				  c->type, o->type);
	if (o->cluster_size && o->cluster_size != c->spc * FAT_SECTOR)
		return diag_error(d,
				  "sd-format: the SD formatter uses cluster-size %uK on this card; "
				  "drop cluster-size or sd-format",
				  c->spc / 2);
	if (o->fats && o->fats != 2)
		return diag_error(d, "sd-format: the SD formatter uses 2 FATs; drop fats or "
				     "sd-format");
	if (o->root_entries && (c->type == FAT_32 || o->root_entries != SD_RDE))
		return diag_error(d,
				  "sd-format: the SD formatter uses %u root entries here; drop "
				  "root-entries or sd-format",
				  c->type == FAT_32 ? 0 : SD_RDE);
	if (o->reserved)
		return diag_error(d, "sd-format computes the reserved sectors; drop reserved or "
				     "sd-format");
	return 0;
}

static uint8_t sd_mbr_type(enum fat_type type, uint32_t start, uint32_t size)
{
	if (type == FAT_12)
		return 0x01;
	if (type == FAT_16)
		return size < 65536 ? 0x04 : 0x06;
	return (uint64_t)start + size <= 16450560u ? 0x0B : 0x0C;
}

static void sd_fill(struct fat_sd_layout *ret, enum fat_type type, uint32_t spc, uint32_t bu,
		    uint64_t ts, const struct sd_out *s)
{
	struct fat_geom *g = &ret->geom;

	ret->part_start = s->nom;
	ret->part_sectors = (uint32_t)(ts - s->nom);
	ret->boundary = bu;
	ret->mbr_type = sd_mbr_type(type, ret->part_start, ret->part_sectors);
	g->type = type;
	g->sec_per_clus = spc;
	g->cluster_size = spc * FAT_SECTOR;
	g->reserved = s->rsc;
	g->fats = 2;
	g->fat_sectors = s->sf;
	g->root_entries = type == FAT_32 ? 0 : SD_RDE;
	g->root_sectors = g->root_entries * 32 / FAT_SECTOR;
	g->clusters = s->count;
	g->total_sectors = ret->part_sectors;
	g->hidden_sectors = s->nom;
	g->data_offset = (uint64_t)(s->rsc + 2 * s->sf + g->root_sectors) * FAT_SECTOR;
}

int fat_sd_format(const struct fat_opts *o, uint64_t card_sectors, struct fat_sd_layout *ret,
		  struct diag *d)
{
	static const struct fat_opts none;
	const struct sd_class *c = sd_classes;
	enum fat_type type;
	struct sd_out s;
	int r;

	if (!o)
		o = &none;
	memset(ret, 0, sizeof(*ret));
	if (card_sectors > sd_classes[5].max_sectors)
		return diag_error(d,
				  "sd-format: a card of %" PRIu64 " sectors is SDXC, which the SD "
				  "formatter writes as exFAT: use type = exfat with exfat { "
				  "sd-format = true }, or sd-format = false for FAT32",
				  card_sectors);
	while (card_sectors > c->max_sectors)
		c++;
	r = sd_check_opts(o, c, d);
	if (r)
		return r;
	type = c->type;
	r = type == FAT_32 ? sd_fat32(card_sectors, c->spc, c->bu, &s)
			   : sd_fat1216(card_sectors, type, c->spc, c->bu, &s);
	/* the table's FAT12 can overflow (2^17 sectors: 4093 clusters): the count decides */
	if (!r && type == FAT_12 && s.count >= 4085) {
		type = FAT_16;
		r = sd_fat1216(card_sectors, 16, c->spc, c->bu, &s);
	}
	if (r || (type == FAT_16 && s.count < 4085) || (type == FAT_32 && s.count < 65525))
		return diag_error(d,
				  "sd-format: a card of %" PRIu64 " sectors is too small for the "
				  "SD formatter's FAT%d layout",
				  card_sectors, type);
	if (!fat_count_ok(type, s.count))
		diag_warning(d,
			     "sd-format: %" PRIu32 " clusters is within 16 of a FAT type limit "
			     "(4085/65525), as the SD formatter writes it; some drivers may "
			     "misjudge the FAT type",
			     s.count);
	sd_fill(ret, type, c->spc, c->bu, card_sectors, &s);
	return fat_geom_names(&ret->geom, o, card_sectors * FAT_SECTOR, d);
}
