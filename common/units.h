/* units: byte counts as text for people ("256 MiB", "1.75 GiB", "72 B"). */
#ifndef SDIMG_UNITS_H
#define SDIMG_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Writes @bytes in binary units into @buf (@n bytes): exact ones whole, others with two
 * decimals. */
void units_human(uint64_t bytes, char *buf, size_t n);

#endif
