/* SPDX-License-Identifier: MIT */
/* sdcard: the SD Association's allocation unit of a card, by its capacity. */
#ifndef SDIMG_SDCARD_H
#define SDIMG_SDCARD_H

#include <stdint.h>

/*
 * The boundary unit (the allocation unit a card erases and writes as one) that the SD
 * Specifications Part 2 File System Specification gives an SDXC card of @card_bytes, in
 * bytes: 16 MiB up to 128 GiB, 32 MiB up to 512 GiB, 64 MiB up to 2 TiB. 0 for a card of
 * 32 GiB or less (SDSC and SDHC: their largest unit is 4 MiB, the default alignment) and
 * for one above 2 TiB, where the SDXC table ends. The default `align` of an image of that
 * size, and the grid `inspect` judges such a card's FAT and exFAT volumes against.
 */
uint64_t sdcard_allocation_unit(uint64_t card_bytes);

/* The boundary unit of an SDHC card, the largest of SD Part 1's AU_SIZE table up to 32 GB. */
#define SDCARD_SDHC_UNIT (4u << 20)

/*
 * The grid a default build of a card of @card_bytes puts its partitions, FAT data areas and
 * exFAT cluster heaps on, and the one `inspect` judges such a card against: its SDXC
 * allocation unit (sdcard_allocation_unit()), else SDCARD_SDHC_UNIT.
 */
uint64_t sdcard_default_align(uint64_t card_bytes);

#endif
