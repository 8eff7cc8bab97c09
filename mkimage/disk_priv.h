/* disk internals shared by disk.c, disk_gpt.c and disk_probe.c (private to mkimage/). */
#ifndef SDIMG_MKIMAGE_DISK_PRIV_H
#define SDIMG_MKIMAGE_DISK_PRIV_H

#include "mkimage/disk.h"

/* Whether the disk shows a GPT: "EFI PART" at LBA 1 or in its last sector. */
bool gpt_signature_present(const struct disk *k);

/* Sets k->gpt_primary_ok / gpt_backup_ok from the headers' signatures and CRCs. */
void gpt_check_headers(struct disk *k);

/* Probes every partition's content (or, without a table, the whole disk). */
int probe_all(struct disk *k, struct diag *d);

#endif
