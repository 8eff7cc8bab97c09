/* SPDX-License-Identifier: MIT */
/*
 * exfat/upcase: the up-case table of §7.2.5.1 ("Recommended Up-case Table"), which every
 * volume sdimg writes holds and by which its names are compared (§7.2.5: names are equal when
 * their up-cased forms are).
 *
 * The table maps each UTF-16 unit to its upper case. sdimg keeps it as its own compact
 * description, derived from the recommended table: the runs of units that change (each a first
 * unit, a count, the delta added to each and the step between them: 2 where upper and lower
 * case alternate), and the ranges the table's compression writes as identity runs (§7.2.5.1:
 * 0xFFFF, then the number of units that map to themselves). Every other unit is written as its
 * mapping, unit by unit, as the recommended table is. The result is 5,836 bytes with the
 * TableChecksum 0xE619D30D (test_exfat_upcase).
 */
#include "exfat/exfat.h"

#include "common/bytes.h"

struct upcase_run {
	uint16_t first; /* the first unit that changes */
	uint16_t count; /* units in the run */
	int16_t delta;  /* added to each: its upper case */
	uint8_t step;   /* 1: consecutive units; 2: every other one */
};

/* Sorted by first unit; no two overlap. */
static const struct upcase_run upcase_runs[] = {
	{ 0x0061, 26, -32, 1 },   { 0x00E0, 23, -32, 1 }, { 0x00F8, 7, -32, 1 },
	{ 0x00FF, 1, 121, 1 },    { 0x0101, 24, -1, 2 },  { 0x0133, 3, -1, 2 },
	{ 0x013A, 8, -1, 2 },     { 0x014B, 23, -1, 2 },  { 0x017A, 3, -1, 2 },
	{ 0x0180, 1, 195, 1 },    { 0x0183, 2, -1, 2 },   { 0x0188, 1, -1, 1 },
	{ 0x018C, 1, -1, 1 },     { 0x0192, 1, -1, 1 },   { 0x0195, 1, 97, 1 },
	{ 0x0199, 1, -1, 1 },     { 0x019A, 1, 163, 1 },  { 0x019E, 1, 130, 1 },
	{ 0x01A1, 3, -1, 2 },     { 0x01A8, 1, -1, 1 },   { 0x01AD, 1, -1, 1 },
	{ 0x01B0, 1, -1, 1 },     { 0x01B4, 2, -1, 2 },   { 0x01B9, 1, -1, 1 },
	{ 0x01BD, 1, -1, 1 },     { 0x01BF, 1, 56, 1 },   { 0x01C6, 1, -2, 1 },
	{ 0x01C9, 1, -2, 1 },     { 0x01CC, 1, -2, 1 },   { 0x01CE, 8, -1, 2 },
	{ 0x01DD, 1, -79, 1 },    { 0x01DF, 9, -1, 2 },   { 0x01F3, 1, -2, 1 },
	{ 0x01F5, 1, -1, 1 },     { 0x01F9, 20, -1, 2 },  { 0x0223, 9, -1, 2 },
	{ 0x023A, 1, 10795, 1 },  { 0x023C, 1, -1, 1 },   { 0x023E, 1, 10792, 1 },
	{ 0x0242, 1, -1, 1 },     { 0x0247, 5, -1, 2 },   { 0x0253, 1, -210, 1 },
	{ 0x0254, 1, -206, 1 },   { 0x0256, 2, -205, 1 }, { 0x0259, 1, -202, 1 },
	{ 0x025B, 1, -203, 1 },   { 0x0260, 1, -205, 1 }, { 0x0263, 1, -207, 1 },
	{ 0x0268, 1, -209, 1 },   { 0x0269, 1, -211, 1 }, { 0x026B, 1, 10743, 1 },
	{ 0x026F, 1, -211, 1 },   { 0x0272, 1, -213, 1 }, { 0x0275, 1, -214, 1 },
	{ 0x027D, 1, 10727, 1 },  { 0x0280, 1, -218, 1 }, { 0x0283, 1, -218, 1 },
	{ 0x0288, 1, -218, 1 },   { 0x0289, 1, -69, 1 },  { 0x028A, 2, -217, 1 },
	{ 0x028C, 1, -71, 1 },    { 0x0292, 1, -219, 1 }, { 0x037B, 3, 130, 1 },
	{ 0x03AC, 1, -38, 1 },    { 0x03AD, 3, -37, 1 },  { 0x03B1, 17, -32, 1 },
	{ 0x03C2, 1, -31, 1 },    { 0x03C3, 9, -32, 1 },  { 0x03CC, 1, -64, 1 },
	{ 0x03CD, 2, -63, 1 },    { 0x03D9, 12, -1, 2 },  { 0x03F2, 1, 7, 1 },
	{ 0x03F8, 1, -1, 1 },     { 0x03FB, 1, -1, 1 },   { 0x0430, 32, -32, 1 },
	{ 0x0450, 16, -80, 1 },   { 0x0461, 17, -1, 2 },  { 0x048B, 27, -1, 2 },
	{ 0x04C2, 7, -1, 2 },     { 0x04CF, 1, -15, 1 },  { 0x04D1, 34, -1, 2 },
	{ 0x0561, 38, -48, 1 },   { 0x1D7D, 1, 3814, 1 }, { 0x1E01, 75, -1, 2 },
	{ 0x1EA1, 45, -1, 2 },    { 0x1F00, 8, 8, 1 },    { 0x1F10, 6, 8, 1 },
	{ 0x1F20, 8, 8, 1 },      { 0x1F30, 8, 8, 1 },    { 0x1F40, 6, 8, 1 },
	{ 0x1F51, 4, 8, 2 },      { 0x1F60, 8, 8, 1 },    { 0x1F70, 2, 74, 1 },
	{ 0x1F72, 4, 86, 1 },     { 0x1F76, 2, 100, 1 },  { 0x1F78, 2, 128, 1 },
	{ 0x1F7A, 2, 112, 1 },    { 0x1F7C, 2, 126, 1 },  { 0x1F80, 8, 8, 1 },
	{ 0x1F90, 8, 8, 1 },      { 0x1FA0, 8, 8, 1 },    { 0x1FB0, 2, 8, 1 },
	{ 0x1FB3, 1, 9, 1 },      { 0x1FCC, 1, -9, 1 },   { 0x1FD0, 2, 8, 1 },
	{ 0x1FE0, 2, 8, 1 },      { 0x1FE5, 1, 7, 1 },    { 0x1FFC, 1, -9, 1 },
	{ 0x214E, 1, -28, 1 },    { 0x2170, 16, -16, 1 }, { 0x2184, 1, -1, 1 },
	{ 0x24D0, 26, -26, 1 },   { 0x2C30, 47, -48, 1 }, { 0x2C61, 1, -1, 1 },
	{ 0x2C68, 3, -1, 2 },     { 0x2C76, 1, -1, 1 },   { 0x2C81, 50, -1, 2 },
	{ 0x2D00, 38, -7264, 1 }, { 0xFF41, 26, -32, 1 },
};

/* The ranges the recommended table compresses as identity runs (§7.2.5.1). */
static const struct {
	uint16_t first;
	uint16_t count;
} upcase_identity[] = {
	{ 0x0587, 6134 },
	{ 0x2185, 843 },
	{ 0x24EA, 1862 },
	{ 0x2D26, 53787 },
};

#define N_RUNS (sizeof(upcase_runs) / sizeof(upcase_runs[0]))
#define N_IDENTITY (sizeof(upcase_identity) / sizeof(upcase_identity[0]))
#define UPCASE_COMPRESSED 0xFFFFu /* §7.2.5.1: an identity run follows */

/* The upper case of @c by @r, or @c when @r does not hold it. */
static uint16_t run_map(const struct upcase_run *r, uint16_t c)
{
	unsigned off = (unsigned)c - r->first;

	if (c < r->first || off % r->step || off / r->step >= r->count)
		return c;
	return (uint16_t)(c + r->delta);
}

uint16_t exfat_upcase(uint16_t c)
{
	size_t lo = 0, hi = N_RUNS;

	/* ASCII, most names' units: the table maps a-z to A-Z and keeps the rest */
	if (c < 0x80)
		return c >= 'a' && c <= 'z' ? (uint16_t)(c - ('a' - 'A')) : c;
	/* the last run whose first unit is c or below */
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (upcase_runs[mid].first <= c)
			lo = mid;
		else
			hi = mid;
	}
	return run_map(&upcase_runs[lo], c);
}

void exfat_upcase_table(uint8_t out[EXFAT_UPCASE_BYTES])
{
	size_t pos = 0, id = 0;

	for (uint32_t c = 0; c <= 0xFFFFu;) {
		if (id < N_IDENTITY && c == upcase_identity[id].first) {
			put_le16(out + pos, UPCASE_COMPRESSED);
			put_le16(out + pos + 2, upcase_identity[id].count);
			pos += 4;
			c += upcase_identity[id++].count;
			continue;
		}
		put_le16(out + pos, exfat_upcase((uint16_t)c));
		pos += 2;
		c++;
	}
}
