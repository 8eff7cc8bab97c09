/* SPDX-License-Identifier: MIT */
/* caps: what a file system can hold of a partition's content, judged in one place (see
 * contents.h). */
#include "mkimage/contents/contents.h"

#include <errno.h>

#include "common/units.h"
#include "exfat/exfat.h"
#include "fat/fat.h"

const struct content_caps content_caps_fat = {
	.name = "FAT",
	.file_limit = 1ull << 32,
	.links = false,
	.specials = false,
	.owners = false,
	.xattrs = false,
	.path_key = fat_path_key,
};

const struct content_caps content_caps_exfat = {
	.name = "exFAT",
	.file_limit = 0, /* DataLength is 64 bits (exFAT specification §7.6.6) */
	.links = false,
	.specials = false,
	.owners = false,
	.xattrs = false,
	.path_key = exfat_path_key,
};

/* The kind of an entry of type @mode that a file system may not hold, as messages name it. */
static const char *kind_name(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFIFO:
		return "fifo";
	case S_IFSOCK:
		return "socket";
	case S_IFCHR:
	case S_IFBLK:
		return "device node";
	case S_IFLNK:
		return "symbolic link";
	default:
		return "special file";
	}
}

int content_caps_check(const struct content_caps *caps, mode_t mode, const char *host,
		       const char *name, struct diag *d)
{
	bool special = S_ISFIFO(mode) || S_ISSOCK(mode) || S_ISCHR(mode) || S_ISBLK(mode);

	if (S_ISREG(mode) || S_ISDIR(mode) || (S_ISLNK(mode) && caps->links) ||
	    (special && caps->specials))
		return 0;
	/* "an exFAT", "an ext4", "a FAT" */
	const char *an = caps->name[0] == 'e' ? "an" : "a";

	if (name)
		return diag_error(d, "%s: %s: a %s cannot go on %s %s file system", host, name,
				  kind_name(mode), an, caps->name);
	return diag_error(d, "%s: a %s cannot go on %s %s file system", host, kind_name(mode), an,
			  caps->name);
}

int content_caps_check_size(const struct content_caps *caps, uint64_t size, const char *host,
			    const char *name, struct diag *d)
{
	char limit[32];

	if (!caps->file_limit || size < caps->file_limit)
		return 0;
	units_human(caps->file_limit, limit, sizeof(limit));
	return diag_error(d, "%s: %s: %llu bytes; a %s file must be smaller than %s", host, name,
			  (unsigned long long)size, caps->name, limit);
}
