/* SPDX-License-Identifier: MIT */
/* sdcard: the SD Association's allocation unit of a card (sdcard.h). */
#include "common/sdcard.h"

#include <stddef.h>

#define SDCARD_SECTOR 512u
#define SDXC_MIN_SECTORS (1ull << 26) /* SDHC cards have up to 2^26 sectors (32 GiB) */

/* The SDXC rows of SD Part 2's format parameter table: card sectors up to, boundary unit. */
static const struct {
	uint64_t max_sectors;
	uint64_t unit; /* bytes */
} sdxc_units[] = {
	{ 1ull << 28, 16u << 20 }, /* up to 128 GiB */
	{ 1ull << 30, 32u << 20 }, /* up to 512 GiB */
	{ 1ull << 32, 64u << 20 }, /* up to 2 TiB */
};

uint64_t sdcard_allocation_unit(uint64_t card_bytes)
{
	uint64_t sectors = card_bytes / SDCARD_SECTOR;

	if (sectors <= SDXC_MIN_SECTORS)
		return 0;
	for (size_t i = 0; i < sizeof(sdxc_units) / sizeof(sdxc_units[0]); i++)
		if (sectors <= sdxc_units[i].max_sectors)
			return sdxc_units[i].unit;
	return 0;
}

uint64_t sdcard_default_align(uint64_t card_bytes)
{
	uint64_t unit = sdcard_allocation_unit(card_bytes);

	return unit > SDCARD_SDHC_UNIT ? unit : SDCARD_SDHC_UNIT;
}
