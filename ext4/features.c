/* SPDX-License-Identifier: MIT */
/* features: the `features` text of an ext4 { } section ("^metadata_csum,uninit_bg") over the
 * superblock's feature words (the names are mke2fs's, the bits the on-disk format's). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ext4/ext4_priv.h"

struct feature {
	const char *name;
	int word; /* 0 compat, 1 incompat, 2 ro_compat */
	uint32_t bit;
};

static const struct feature features[] = {
	{ "ext_attr", 0, EXT2_FEATURE_COMPAT_EXT_ATTR },
	{ "dir_index", 0, EXT2_FEATURE_COMPAT_DIR_INDEX },
	{ "64bit", 1, EXT4_FEATURE_INCOMPAT_64BIT },
	{ "flex_bg", 1, EXT4_FEATURE_INCOMPAT_FLEX_BG },
	{ "metadata_csum", 2, EXT4_FEATURE_RO_COMPAT_METADATA_CSUM },
	{ "uninit_bg", 2, EXT4_FEATURE_RO_COMPAT_GDT_CSUM },
	{ "huge_file", 2, EXT4_FEATURE_RO_COMPAT_HUGE_FILE },
	{ "dir_nlink", 2, EXT4_FEATURE_RO_COMPAT_DIR_NLINK },
	{ "extra_isize", 2, EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE },
};

int ext4_features_check(const char *text, char *why, size_t n)
{
	uint32_t words[3] = { EXT4_DEFAULT_COMPAT, EXT4_DEFAULT_INCOMPAT, EXT4_DEFAULT_RO_COMPAT };
	return ext4_features_apply(text, words, why, n);
}

int ext4_features_apply(const char *text, uint32_t words[3], char *why, size_t n)
{
	for (const char *p = text; p && *p;) {
		size_t len = strcspn(p, ", ");
		bool off = *p == '^';
		const struct feature *f = NULL;
		for (size_t i = 0; len && i < sizeof(features) / sizeof(features[0]); i++)
			if (strlen(features[i].name) == len - off &&
			    !strncmp(features[i].name, p + off, len - off))
				f = &features[i];
		if (len && !f) {
			snprintf(why, n,
				 "'%.*s' is not one of ext_attr, dir_index, 64bit, flex_bg, "
				 "metadata_csum, uninit_bg, huge_file, dir_nlink, extra_isize "
				 "(each "
				 "with ^ to turn it off)",
				 (int)len, p);
			return -EINVAL;
		}
		if (f && off)
			words[f->word] &= ~f->bit;
		else if (f)
			words[f->word] |= f->bit;
		p += len;
		p += strspn(p, ", ");
	}
	if ((words[2] & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) &&
	    (words[2] & EXT4_FEATURE_RO_COMPAT_GDT_CSUM)) {
		snprintf(why, n,
			 "metadata_csum and uninit_bg exclude each other (turn metadata_csum "
			 "off: ^metadata_csum,uninit_bg)");
		return -EINVAL;
	}
	return 0;
}
