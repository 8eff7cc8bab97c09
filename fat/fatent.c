/* SPDX-License-Identifier: MIT */
/* fat/fatent: FAT12/16/32 entry access, one ops table per width (fatgen103 §4). */
#include "fat/write_priv.h"

#include "common/bytes.h"

/* FAT12: entry c sits in the 16 bits at byte c * 3 / 2; odd entries use the high 12. */
static uint32_t get12(const uint8_t *fat, uint32_t c)
{
	uint16_t x = get_le16(fat + c + c / 2);
	return c & 1 ? x >> 4 : x & 0x0FFF;
}

static void set12(uint8_t *fat, uint32_t c, uint32_t v)
{
	uint8_t *p = fat + c + c / 2;
	uint16_t x = get_le16(p);

	x = c & 1 ? (uint16_t)((x & 0x000F) | (v << 4)) : (uint16_t)((x & 0xF000) | (v & 0x0FFF));
	put_le16(p, x);
}

static uint32_t get16(const uint8_t *fat, uint32_t c)
{
	return get_le16(fat + 2 * c);
}

static void set16(uint8_t *fat, uint32_t c, uint32_t v)
{
	put_le16(fat + 2 * c, (uint16_t)v);
}

/* FAT32 entries are 28 bits; the top 4 are reserved (zero when formatting). */
static uint32_t get32(const uint8_t *fat, uint32_t c)
{
	return get_le32(fat + 4 * c) & 0x0FFFFFFF;
}

static void set32(uint8_t *fat, uint32_t c, uint32_t v)
{
	put_le32(fat + 4 * c, v & 0x0FFFFFFF);
}

static const struct fat_ent_ops fat12_ops = { 12, 0xFFF, 0xFF8, 0xFF7, get12, set12 };
static const struct fat_ent_ops fat16_ops = { 16, 0xFFFF, 0xFFF8, 0xFFF7, get16, set16 };
static const struct fat_ent_ops fat32_ops = {
	32, 0x0FFFFFFF, 0x0FFFFFF8, 0x0FFFFFF7, get32, set32
};

const struct fat_ent_ops *fat_ent_ops(enum fat_type type)
{
	return type == FAT_12 ? &fat12_ops : type == FAT_16 ? &fat16_ops : &fat32_ops;
}

uint64_t fat_ent_bytes(enum fat_type type, uint64_t n)
{
	return (n * (unsigned)type + 7) / 8;
}
