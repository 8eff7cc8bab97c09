/* SPDX-License-Identifier: MIT */
/* schema: the key table of the layout language, and the checks it drives (see schema.h). */
#include "layouts/schema.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Choices, in the order of the enums they stand for (layouts.h). */
/* "hybrid" is a gpt whose MBR mirrors some partitions (read_image.c) */
static const char *const table_words[] = { "mbr", "gpt", "none", "hybrid", NULL };
static const char *const hybrid_ee_words[] = { "first", "last", NULL };
static const char *const mtime_words[] = { "fixed", "source", NULL };
static const char *const part_type_words[] = { "raw",   "fat",  "fat12", "fat16",
					       "fat32", "ext4", "exfat", NULL };
/* A partition size may also be one of these instead of a byte count. */
static const char *const part_size_words[] = { "auto", "grow", NULL };
/* An id may also be set anew on every card (sdimg personalize, flash --card-values). */
static const char *const per_card_words[] = { "per-card", NULL };
static const char *const owners_words[] = { "host", "root", NULL };
static const char *const links_words[] = { "inside", "follow", "refuse",
					   NULL }; /* enum layout_links */

#define STRING(n)                               \
	{                                       \
		.name = (n), .type = KEY_STRING \
	}
#define SIZE(n, f)                                          \
	{                                                   \
		.name = (n), .type = KEY_SIZE, .flags = (f) \
	}
#define UINT(n, lo, hi)                                                 \
	{                                                               \
		.name = (n), .type = KEY_UINT, .min = (lo), .max = (hi) \
	}
#define BOOL(n)                               \
	{                                     \
		.name = (n), .type = KEY_BOOL \
	}
#define CHOICE(n, w)                                          \
	{                                                     \
		.name = (n), .type = KEY_CHOICE, .words = (w) \
	}
#define TYPED(n, t)                      \
	{                                \
		.name = (n), .type = (t) \
	}
#define END                  \
	{                    \
		.name = NULL \
	}

static const struct key_spec fat_keys[] = {
	STRING("label"),
	SIZE("cluster-size", KEY_NONZERO),
	UINT("fats", 1, 2),
	SIZE("data-align", KEY_SECTORS | KEY_NONZERO),
	BOOL("sd-format"),
	UINT("root-entries", 16, 65520),
	UINT("reserved", 1, 65535),
	{ .name = "volume-id",
	  .type = KEY_UINT,
	  .min = 0,
	  .max = UINT32_MAX,
	  .words = per_card_words },
	STRING("oem-name"),
	END,
};
static const struct key_spec exfat_keys[] = {
	STRING("label"),
	SIZE("cluster-size", KEY_NONZERO),
	SIZE("data-align", KEY_SECTORS | KEY_NONZERO),
	BOOL("sd-format"),
	UINT("volume-id", 0, UINT32_MAX),
	TYPED("guid", KEY_GUID),
	END,
};
static const struct key_spec ext4_keys[] = {
	STRING("label"),
	TYPED("uuid", KEY_GUID),
	SIZE("block-size", KEY_NONZERO),
	UINT("inode-size", 128, 1024),
	UINT("inodes", 16, UINT32_MAX),
	UINT("reserved", 0, 50),
	BOOL("journal"),
	STRING("features"),
	END,
};
static const struct key_spec tree_keys[] = {
	STRING("from"),
	UINT("strip", 0, 255),
	STRING("include"),
	STRING("exclude"),
	UINT("owner", 0, UINT32_MAX - 1),
	UINT("group", 0, UINT32_MAX - 1),
	CHOICE("owners", owners_words),
	CHOICE("links", links_words),
	END,
};
static const struct key_spec file_keys[] = {
	STRING("from"),
	STRING("content"),
	BOOL("first"),
	TYPED("attrs", KEY_ATTRS),
	BOOL("per-card"),
	SIZE("reserve", KEY_NONZERO),
	BOOL("ids"),
	UINT("owner", 0, UINT32_MAX - 1),
	UINT("group", 0, UINT32_MAX - 1),
	END,
};
static const struct key_spec dir_keys[] = {
	UINT("owner", 0, UINT32_MAX - 1),
	UINT("group", 0, UINT32_MAX - 1),
	END,
};

static const struct section_spec fat_section = { "fat", false, false, fat_keys, NULL };
static const struct section_spec ext4_section = { "ext4", false, false, ext4_keys, NULL };
static const struct section_spec exfat_section = { "exfat", false, false, exfat_keys, NULL };
static const struct section_spec tree_section = { "tree", true, true, tree_keys, NULL };
static const struct section_spec file_section = { "file", true, true, file_keys, NULL };
static const struct section_spec dir_section = { "dir", true, true, dir_keys, NULL };

static const struct key_spec partition_keys[] = {
	CHOICE("type", part_type_words),
	SIZE("start", KEY_SECTORS),
	STRING("off-grid"),
	SIZE("align", KEY_SECTORS | KEY_NONZERO),
	{ .name = "size",
	  .type = KEY_SIZE,
	  .flags = KEY_SECTORS | KEY_NONZERO,
	  .words = part_size_words },
	SIZE("extra", KEY_SECTORS),
	STRING("from"),
	SIZE("skip", 0),
	BOOL("fill"),
	UINT("fill-byte", 0, 255),
	BOOL("sparse"),
	TYPED("holes", KEY_RANGES),
	BOOL("bootable"),
	BOOL("hybrid"),
	BOOL("primary"),
	TYPED("mbr-type", KEY_MBR_TYPE),
	TYPED("gpt-type", KEY_GPT_TYPE),
	TYPED("uuid", KEY_GUID),
	STRING("label"),
	BOOL("in-table"),
	END,
};
static const struct section_spec *const partition_sections[] = {
	&fat_section,  &ext4_section, &exfat_section, &tree_section,
	&file_section, &dir_section,  NULL,
};
static const struct section_spec partition_section = {
	"partition", true, true, partition_keys, partition_sections,
};

/* A U-Boot environment (read_env.c) and its variables given in the layout. */
static const struct key_spec env_var_keys[] = {
	STRING("value"),
	BOOL("per-card"),
	END,
};
static const struct section_spec env_var_section = { "var", true, true, env_var_keys, NULL };
static const struct key_spec uboot_env_keys[] = {
	SIZE("size", KEY_NONZERO), BOOL("redundant"), SIZE("offset-redund", 0),
	UINT("pad-byte", 0, 255),  STRING("vars"),    END,
};
static const struct section_spec *const uboot_env_sections[] = { &env_var_section, NULL };
static const struct section_spec uboot_env_section = {
	"uboot-env", false, false, uboot_env_keys, uboot_env_sections,
};

static const struct key_spec raw_keys[] = {
	SIZE("offset", 0),
	STRING("from"),
	SIZE("skip", 0),
	BOOL("fill"),
	UINT("fill-byte", 0, 255),
	BOOL("sparse"),
	TYPED("holes", KEY_RANGES),
	SIZE("size", KEY_NONZERO),
	END,
};
static const struct section_spec *const raw_sections[] = { &uboot_env_section, NULL };
static const struct section_spec raw_section = { "raw", true, true, raw_keys, raw_sections };

static const struct key_spec image_keys[] = {
	SIZE("size", KEY_NONZERO), /* whole sectors unless table = none: read_image.c */
	CHOICE("table", table_words),
	SIZE("align", KEY_SECTORS | KEY_NONZERO),
	TYPED("disk-id", KEY_DISK_ID),
	STRING("seed"),
	UINT("timestamp", 0, LAYOUT_TIMESTAMP_MAX),
	CHOICE("mtime", mtime_words),
	SIZE("gpt-entries", KEY_SECTORS),
	BOOL("gpt-backup"),
	CHOICE("hybrid-ee", hybrid_ee_words),
	UINT("extended-partition", 1, 4),
	END,
};
static const struct section_spec image_section = { "image", false, false, image_keys, NULL };

static const struct key_spec top_keys[] = { END };
static const struct section_spec *const top_sections[] = {
	&image_section,
	&raw_section,
	&partition_section,
	NULL,
};
static const struct section_spec top_section = { "", false, false, top_keys, top_sections };

const struct section_spec *layout_schema_top(void)
{
	return &top_section;
}

const struct key_spec *layout_schema_key(const struct section_spec *s, const char *name)
{
	for (const struct key_spec *k = s->keys; k->name; k++)
		if (strcmp(k->name, name) == 0)
			return k;
	return NULL;
}

const struct section_spec *layout_schema_section(const struct section_spec *s, const char *name)
{
	for (const struct section_spec *const *c = s->sections; c && *c; c++)
		if (strcmp((*c)->name, name) == 0)
			return *c;
	return NULL;
}

/* Keeps @cand in *@best when it is closer to @name than what *@best holds. */
static void closer(const char *name, const char *cand, const char **best, unsigned *best_d)
{
	unsigned dist = layout_edit_distance(name, cand);

	if (dist < *best_d) {
		*best_d = dist;
		*best = cand;
	}
}

const char *layout_schema_suggest(const struct section_spec *s, const char *name, bool section)
{
	const char *best = NULL;
	unsigned best_d = ~0u;
	size_t len = strlen(name);

	for (const struct key_spec *k = s->keys; k->name && !section; k++)
		closer(name, k->name, &best, &best_d);
	for (const struct section_spec *const *c = s->sections; c && *c && section; c++)
		closer(name, (*c)->name, &best, &best_d);
	return best_d <= (len > 6 ? len / 3 : 2) ? best : NULL;
}

/* "raw, fat, fat12, fat16 or fat32" */
static void list_words(const char *const *words, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned i = 0; words[i] && len < n; i++) {
		snprintf(buf + len, n - len, "%s%s", i ? (words[i + 1] ? ", " : " or ") : "",
			 words[i]);
		len = strlen(buf);
	}
}

static int check_choice(const struct key_spec *k, const char *text, struct key_value *ret,
			struct why *why)
{
	char list[96];

	for (unsigned i = 0; k->words[i]; i++)
		if (strcmp(text, k->words[i]) == 0) {
			ret->n = i;
			ret->word = k->words[i];
			return 0;
		}
	list_words(k->words, list, sizeof(list));
	snprintf(why->text, sizeof(why->text), "'%.40s' is not one of %s", text, list);
	return -EINVAL;
}

static int check_size(const struct key_spec *k, const char *text, struct key_value *ret,
		      struct why *why)
{
	for (unsigned i = 0; k->words && k->words[i]; i++)
		if (strcmp(text, k->words[i]) == 0) {
			ret->word = k->words[i];
			return 0;
		}
	if (layout_value_size(text, &ret->n, why) < 0)
		return -EINVAL;
	if ((k->flags & KEY_NONZERO) && ret->n == 0) {
		snprintf(why->text, sizeof(why->text), "must not be 0");
		return -EINVAL;
	}
	if ((k->flags & KEY_SECTORS) && ret->n % LAYOUT_SECTOR) {
		snprintf(why->text, sizeof(why->text), "%.60s is not a multiple of 512 bytes",
			 text);
		return -EINVAL;
	}
	return 0;
}

int layout_schema_value(const struct key_spec *k, const char *text, struct key_value *ret,
			struct why *why)
{
	bool b = false;
	unsigned attrs = 0;
	int rc = 0;

	*ret = (struct key_value){ 0 };
	switch (k->type) {
	case KEY_STRING:
	case KEY_DISK_ID:
		return 0;
	case KEY_SIZE:
		return check_size(k, text, ret, why);
	case KEY_UINT:
		for (unsigned i = 0; k->words && k->words[i]; i++)
			if (strcmp(text, k->words[i]) == 0) {
				ret->word = k->words[i];
				return 0;
			}
		return layout_value_uint(text, k->min, k->max, &ret->n, why);
	case KEY_BOOL:
		rc = layout_value_bool(text, &b, why);
		ret->n = b;
		return rc;
	case KEY_CHOICE:
		return check_choice(k, text, ret, why);
	case KEY_GUID:
		return layout_value_guid(text, &ret->guid, why);
	case KEY_GPT_TYPE:
		return layout_value_gpt_type(text, &ret->guid, why);
	case KEY_RANGES:
		return layout_value_ranges(text, NULL, NULL, why);
	case KEY_MBR_TYPE:
		return layout_value_mbr_type(text, &ret->n, why);
	case KEY_ATTRS:
		rc = layout_value_attrs(text, &attrs, why);
		ret->n = attrs;
		return rc;
	}
	return -EINVAL;
}
