/* SPDX-License-Identifier: MIT */
/* units: byte counts as text for people (see units.h). */
#include "common/units.h"

#include <stdio.h>

void units_human(uint64_t bytes, char *buf, size_t n)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	unsigned u = 0;
	uint64_t scale = 1;

	while (u + 1 < sizeof(units) / sizeof(units[0]) && bytes / scale >= 1024) {
		scale *= 1024;
		u++;
	}
	if (bytes % scale == 0)
		snprintf(buf, n, "%llu %s", (unsigned long long)(bytes / scale), units[u]);
	else
		snprintf(buf, n, "%.2f %s", (double)bytes / (double)scale, units[u]);
}

const char *units_layout(uint64_t bytes, char *buf, size_t n)
{
	static const char units[] = "KMGT";
	int u = -1;

	while (bytes >= 1024 && bytes % 1024 == 0 && u < 3) {
		bytes /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, n, "%llu", (unsigned long long)bytes);
	else
		snprintf(buf, n, "%llu%c", (unsigned long long)bytes, units[u]);
	return buf;
}
