/* SPDX-License-Identifier: MIT */
/* fat/geom: the naming and CHS fields of a geometry (label, OEM name, serial, heads). */
#include "fat/params_priv.h"

#include <string.h>

/* CHS geometry by capacity (SD Specifications Part 2 File System Specification, Appendix C): up to @max_mib MiB. */
static const struct {
	uint32_t max_mib;
	uint16_t heads, sec_per_track;
} chs_rows[] = {
	{ 2, 2, 16 },      { 16, 2, 32 },           { 32, 4, 32 },    { 128, 8, 32 },
	{ 256, 16, 32 },   { 504, 16, 63 },         { 1008, 32, 63 }, { 2016, 64, 63 },
	{ 4032, 128, 63 }, { UINT32_MAX, 255, 63 },
};

/* Characters a short name (and so a volume label) cannot hold (fatgen103 "FAT Directory Structure", DIR_Name). */
static int label_char_ok(unsigned char c)
{
	return c >= 0x20 && c < 0x7F && !strchr("\"*+,./:;<=>?[\\]|", c);
}

static int set_label(struct fat_geom *g, const char *label, struct diag *d)
{
	size_t n = label ? strlen(label) : 0;

	memcpy(g->label, "NO NAME    ", 11);
	g->has_label = n > 0;
	if (!n)
		return 0;
	if (n > 11)
		return diag_error(d, "label \"%s\" is longer than 11 characters", label);
	if (label[0] == ' ')
		return diag_error(d, "label \"%s\" starts with a space", label);
	memset(g->label, ' ', 11);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)label[i];
		if (!label_char_ok(c))
			return diag_error(d,
					  "label \"%s\": character '%c' is not allowed in a FAT "
					  "label (use A-Z, 0-9, space and $%%'-_@~`!(){}^#&)",
					  label, c >= 0x20 && c < 0x7F ? c : '?');
		/* as given, lower case too, as mkfs.fat writes it: LABEL= and by-label match */
		g->label[i] = c;
	}
	return 0;
}

int fat_geom_names(struct fat_geom *g, const struct fat_opts *o, uint64_t vol_bytes, struct diag *d)
{
	const char *oem = o->oem_name ? o->oem_name : "MSWIN4.1";
	size_t n = strlen(oem), i = 0;
	uint64_t mib = vol_bytes >> 20;

	if (n > 8)
		return diag_error(d, "oem-name \"%s\" is longer than 8 characters", oem);
	for (size_t k = 0; k < n; k++)
		if ((unsigned char)oem[k] < 0x20 || (unsigned char)oem[k] >= 0x7F)
			return diag_error(d, "oem-name \"%s\": use printable ASCII", oem);
	memset(g->oem_name, ' ', 8);
	memcpy(g->oem_name, oem, n);
	g->volume_id = o->volume_id;
	while (mib > chs_rows[i].max_mib || (mib == chs_rows[i].max_mib && vol_bytes % (1 << 20)))
		i++;
	g->heads = chs_rows[i].heads;
	g->sec_per_track = chs_rows[i].sec_per_track;
	return set_label(g, o->label, d);
}
