/* SPDX-License-Identifier: MIT */
/*
 * fat/dostime: DOS date/time in UTC (fatgen103 "Date and Time Formats"): the date counts
 * from 1980 (7 bits of years: up to 2107), the time has 2 s resolution, and the creation
 * time adds a tenths field of 10 ms units (0..199). Civil dates are computed here from day
 * counts so that neither the TZ variable nor the C library's zone tables play any part.
 */
#include "fat/fat.h"

/* Days since 1970-01-01 of a proleptic Gregorian date (era arithmetic, 400-year cycles). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	int64_t era;
	unsigned doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = (unsigned)(z - era * 146097);
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int64_t)yoe + era * 400 + (*m <= 2);
}

int fat_dos_time(int64_t t, uint32_t ns, uint16_t *ret_date, uint16_t *ret_time, uint8_t *ret_tenth)
{
	const int64_t lo = days_from_civil(1980, 1, 1) * 86400;
	const int64_t hi = days_from_civil(2108, 1, 1) * 86400 - 1;
	int clamped = 0;
	int64_t y, days, secs;
	unsigned m, d;

	if (ns >= 1000000000u)
		ns = 999999999u;
	if (t < lo || t > hi) {
		t = t < lo ? lo : hi;
		ns = t == lo ? 0 : 999999999u;
		clamped = 1;
	}
	days = t / 86400;
	secs = t % 86400;
	civil_from_days(days, &y, &m, &d);
	*ret_date = (uint16_t)(((y - 1980) << 9) | (m << 5) | d);
	*ret_time = (uint16_t)(((secs / 3600) << 11) | (((secs / 60) % 60) << 5) | (secs % 60) / 2);
	*ret_tenth = (uint8_t)((secs % 2) * 100 + ns / 10000000u);
	return clamped;
}

int64_t fat_dos_time_decode(uint16_t date, uint16_t time)
{
	unsigned m = (date >> 5) & 0xF, d = date & 0x1F;

	if (m < 1 || m > 12)
		m = 1;
	if (d < 1)
		d = 1;
	return days_from_civil(1980 + (date >> 9), m, d) * 86400 + (time >> 11) * 3600 +
	       ((time >> 5) & 0x3F) * 60 + (time & 0x1F) * 2;
}
