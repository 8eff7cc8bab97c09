/* SPDX-License-Identifier: MIT */
/*
 * foreign: the words of other image tools (genimage's configuration, wic's kickstart
 * options) that a user moving a layout over types where sdimg has another name, each with
 * what sdimg says instead (see schema.h).
 */
#include <stddef.h>
#include <string.h>

#include "layouts/schema.h"

static const struct {
	const char *section; /* the section kind the word was met in ("" the top level) */
	const char *word;
	const char *hint; /* what to write instead, as the message shows it */
} foreign_words[] = {
	/* genimage: hdimage { } and its partition sections */
	{ "", "hdimage", "'image'" },
	{ "", "vfat", "'partition NAME { type = fat }'" },
	{ "image", "partition-table-type", "'table'" },
	{ "image", "gpt", "'table = gpt'" },
	{ "image", "disk-uuid", "'disk-id'" },
	{ "image", "disk-signature", "'disk-id'" },
	{ "image", "gpt-location", "'gpt-entries'" },
	{ "image", "fill", "no key: the image file always has all of its size" },
	{ "partition", "offset", "'start'" },
	{ "partition", "image", "'from'" },
	{ "partition", "partition-type", "'mbr-type'" },
	{ "partition", "partition-type-uuid", "'gpt-type'" },
	{ "partition", "partition-uuid", "'uuid'" },
	{ "partition", "in-partition-table", "'in-table'" },
	{ "partition", "autoresize", "'size = grow'" },
	{ "partition", "files", "tree and file sections" },
	{ "partition", "forced-primary", "'primary'" },
	{ "partition", "imageoffset", "'skip'" },
	{ "raw", "image", "'from'" },
	{ "raw", "imageoffset", "'skip'" },
	{ "fat", "files", "tree and file sections in the partition" },
	{ "fat", "file", "a file section in the partition, beside fat { }" },
	{ "tree", "image", "'from'" },
	{ "file", "image", "'from'" },
	/* wic: the options of a kickstart `part` line, without their dashes */
	{ "image", "ptable", "'table'" },
	{ "partition", "fstype", "'type'" },
	{ "partition", "source", "'from'" },
	{ "partition", "sourceparams", "'from'" },
	{ "partition", "part-name", "'label'" },
	{ "partition", "part-type", "'gpt-type'" },
	{ "partition", "system-id", "'mbr-type'" },
	{ "partition", "active", "'bootable'" },
	{ "partition", "extra-space", "'extra'" },
	{ "partition", "fixed-size", "'size'" },
	{ "partition", "fsuuid", "fat { volume-id }" },
};

const char *layout_foreign_hint(const char *section, const char *word)
{
	for (size_t i = 0; i < sizeof(foreign_words) / sizeof(foreign_words[0]); i++)
		if (!strcmp(foreign_words[i].section, section) &&
		    !strcmp(foreign_words[i].word, word))
			return foreign_words[i].hint;
	return NULL;
}
