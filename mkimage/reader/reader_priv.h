/* Internals shared by table.c, gpt_check.c and probe.c (private to mkimage/reader/). */
#ifndef SDIMG_MKIMAGE_READER_PRIV_H
#define SDIMG_MKIMAGE_READER_PRIV_H

#include "mkimage/reader/reader.h"

/* Whether the disk shows a GPT: "EFI PART" at LBA 1 or in its last sector. */
bool reader_gpt_present(const struct disk *k);

/* Sets k->gpt_primary_ok / gpt_backup_ok from the headers' signatures and CRCs. */
void reader_check_gpt(struct disk *k);

/* Probes every partition's content (or, without a table, the whole disk). */
int reader_probe_all(struct disk *k, struct diag *d);

#endif
