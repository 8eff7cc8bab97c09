/* SPDX-License-Identifier: MIT */
/* fat/card: a per-card file set in place on a written volume (see fat.h). */
#include "fat/fat.h"

#include "common/bytes.h"
#include "fat/ondisk.h"
#include "fat/write_priv.h"

/* The first entry of the FAT bytes fat_card_chain() sees: even, so that a FAT12 pair of
 * entries (3 bytes) never straddles its start. */
static uint32_t base_entry(const struct fat_card_file *f)
{
	return f->first_cluster & ~1u;
}

uint64_t fat_card_fat_start(const struct fat_card_file *f)
{
	return fat_ent_bytes(f->type, base_entry(f));
}

uint64_t fat_card_fat_len(const struct fat_card_file *f)
{
	uint64_t end = (uint64_t)f->first_cluster + f->clusters;

	/* FAT12: the last entry's 16-bit access reads one byte past its own 12 bits */
	return fat_ent_bytes(f->type, end) - fat_card_fat_start(f) + (f->type == FAT_12);
}

uint32_t fat_card_used(const struct fat_card_file *f, uint64_t len)
{
	return (uint32_t)((len + f->cluster_size - 1) / f->cluster_size);
}

void fat_card_chain(const struct fat_card_file *f, uint64_t len, uint8_t *fat)
{
	const struct fat_ent_ops *ops = fat_ent_ops(f->type);
	uint32_t base = base_entry(f), used = fat_card_used(f, len);

	for (uint32_t i = 0; i < f->clusters; i++) {
		uint32_t v = i >= used ? 0 : i + 1 < used ? f->first_cluster + i + 1 : ops->eoc;
		uint8_t *p = fat + 4 * (f->first_cluster + i - base);
		if (f->type == FAT_32) /* the top 4 bits are reserved: kept (fatgen103 §4) */
			put_le32(p, (get_le32(p) & 0xF0000000u) | v);
		else
			ops->set(fat, f->first_cluster + i - base, v);
	}
}

void fat_card_entry(const struct fat_card_file *f, uint64_t len, uint8_t e[32])
{
	uint32_t cluster = len ? f->first_cluster : 0;

	put_le16(e + DIR_FSTCLUSHI, (uint16_t)(cluster >> 16));
	put_le16(e + DIR_FSTCLUSLO, (uint16_t)cluster);
	put_le32(e + DIR_FILESIZE, (uint32_t)len);
}

void fat_card_fsinfo(uint8_t s[FAT_SECTOR], uint32_t free_count)
{
	put_le32(s + FSI_FREE_COUNT, free_count);
}
