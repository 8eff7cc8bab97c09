/* SPDX-License-Identifier: MIT */
/* units: byte counts as text for people ("256 MiB", "1.75 GiB", "72 B") and for layouts ("4M"). */
#ifndef SDIMG_UNITS_H
#define SDIMG_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Writes @bytes in binary units into @buf (@n bytes): exact ones whole, others with two
 * decimals. */
void units_human(uint64_t bytes, char *buf, size_t n);

/* Writes @bytes as a layout writes a size into @buf (@n bytes): in the largest of K, M, G
 * and T that holds it whole ("4M", "16K", "1536K"), else in bytes ("512"). Returns @buf. */
const char *units_layout(uint64_t bytes, char *buf, size_t n);

#endif
