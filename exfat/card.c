/* SPDX-License-Identifier: MIT */
/* exfat/card: a per-card file set in place on a written volume (see exfat.h). */
#include "exfat/exfat.h"

#include "common/bytes.h"

/* The clusters a content of @len bytes uses. */
static uint32_t used(const struct exfat_card_file *f, uint64_t len)
{
	return (uint32_t)((len + f->cluster_size - 1) / f->cluster_size);
}

/* Bit index of cluster @c in the bitmap (§7.1.5: bit 0 is cluster 2). */
static uint64_t bit_of(uint32_t c)
{
	return (uint64_t)c - EXFAT_FIRST_CLUSTER;
}

uint64_t exfat_card_bitmap_start(const struct exfat_card_file *f)
{
	return bit_of(f->first_cluster) / 8;
}

uint64_t exfat_card_bitmap_len(const struct exfat_card_file *f)
{
	uint64_t last = bit_of(f->first_cluster) + (f->clusters ? f->clusters - 1 : 0);

	return last / 8 + 1 - exfat_card_bitmap_start(f);
}

void exfat_card_bitmap(const struct exfat_card_file *f, uint64_t len, uint8_t *bitmap)
{
	uint64_t base = exfat_card_bitmap_start(f) * 8;
	uint32_t u = used(f, len);

	for (uint32_t i = 0; i < f->clusters; i++) {
		uint64_t b = bit_of(f->first_cluster) + i - base;
		uint8_t mask = (uint8_t)(1u << (b % 8));
		bitmap[b / 8] = (uint8_t)(i < u ? bitmap[b / 8] | mask : bitmap[b / 8] & ~mask);
	}
}

void exfat_card_entries(const struct exfat_card_file *f, uint64_t len, uint8_t *set)
{
	uint8_t *s = set + EXFAT_DENTRY_SIZE; /* the Stream Extension entry (§7.6) */

	s[EXFAT_SE_FLAGS] = (uint8_t)(EXFAT_SE_ALLOCATIONPOSSIBLE |
				      (len ? EXFAT_SE_NOFATCHAIN : 0));
	put_le64(s + EXFAT_SE_VALIDDATALENGTH, len);
	put_le32(s + EXFAT_DE_FIRSTCLUSTER, len ? f->first_cluster : 0);
	put_le64(s + EXFAT_DE_DATALENGTH, len);
	put_le16(set + EXFAT_FE_SETCHECKSUM, exfat_set_checksum(set, f->count));
}
