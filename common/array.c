/* SPDX-License-Identifier: MIT */
/* array: growing a heap array in place (see array.h). */
#include "common/array.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

int array_grow(void **v, size_t *cap, size_t need, size_t elem)
{
	size_t cap2 = *cap ? *cap : 16;

	if (need <= *cap)
		return 0;
	while (cap2 < need) {
		if (cap2 > SIZE_MAX / 2)
			return -ENOMEM;
		cap2 *= 2;
	}
	if (elem && cap2 > SIZE_MAX / elem)
		return -ENOMEM;
	void *p = realloc(*v, cap2 * elem);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = cap2;
	return 0;
}
