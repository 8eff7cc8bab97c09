/* SPDX-License-Identifier: MIT */
/*
 * array: growing a heap array in place, the one way all modules do it.
 */
#ifndef SDIMG_ARRAY_H
#define SDIMG_ARRAY_H

#include <stddef.h>

/*
 * Makes room for at least @need elements of @elem bytes in the array *@v of capacity
 * *@cap, doubling it (from 16) as often as needed; *@v and *@cap are updated.
 * Returns 0, or -ENOMEM (the array is then unchanged) also when the size would overflow.
 */
int array_grow(void **v, size_t *cap, size_t need, size_t elem);

#endif
