/*
 * gpt_move: put the primary GPT entry array where the layout says (private to mkimage/).
 * libfdisk always writes it at LBA 2; this moves it and fixes the primary header.
 */
#ifndef SDIMG_MKIMAGE_GPT_MOVE_H
#define SDIMG_MKIMAGE_GPT_MOVE_H

#include <stdint.h>

#include "common/diag.h"

/* CRC-32 as GPT uses it (IEEE 802.3, reflected, initial and final 0xFFFFFFFF). */
uint32_t gpt_crc32(const void *data, size_t len);

/*
 * Moves the 128-entry array from LBA 2 to @entries_lba in the image @fd, zeroes where it was,
 * and updates the primary header's PartitionEntryLBA and HeaderCRC32 (UEFI 2.10, 5.3.2).
 * The backup header and array are untouched (the array's CRC does not change).
 * Returns 0 or a negative errno with a message naming @path in @d.
 */
int gpt_move_entries(int fd, uint64_t entries_lba, const char *path, struct diag *d);

#endif
