/* inspect_out: `sdimg inspect` as text or as JSON (private to mkimage/). */
#ifndef SDIMG_MKIMAGE_INSPECT_OUT_H
#define SDIMG_MKIMAGE_INSPECT_OUT_H

#include "mkimage/disk.h"
#include "mkimage/findings.h"

/* Both print on stdout and return the exit status (0, or 1 when the output fails). */
int inspect_print_text(const struct disk *k, const struct findings *f, uint64_t erase_block);
int inspect_print_json(const struct disk *k, const struct findings *f, uint64_t erase_block);

#endif
