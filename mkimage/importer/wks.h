/* SPDX-License-Identifier: MIT */
/*
 * wks: wic's kickstart files (private to importer/). A .wks is read into a struct wks
 * (import_wks_parse), placed by wic's rules (import_wks_place) and written as a layout
 * (import_wks_write). The tests call the three steps one by one.
 */
#ifndef SDIMG_IMPORTER_WKS_H
#define SDIMG_IMPORTER_WKS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/diag.h"
#include "mkimage/importer/importer.h"

/* How wic sizes a partition, and so the layout. */
enum wks_sizing {
	WKS_EXACT,      /* --fixed-size, or --size without a --source that fills it */
	WKS_AT_LEAST,   /* rawcopy with --size: that, or the file when larger (pinned) */
	WKS_FACTOR,     /* from the files, with --size: size x factor while they fit (pinned) */
	WKS_FROM_FILES, /* from the files alone: size = auto */
};

/* One `part` line, its options as wic's kickstart parser reads them (sizes in KiB, as wic
 * keeps them; --offset in bytes). */
struct wks_part {
	const char *file; /* the .wks (or included file) that holds it; borrowed from struct wks */
	int line;
	char *text;       /* the line as written (before ${VAR} is replaced) */
	char *mountpoint; /* the positional word: "/", "/boot", "swap"; NULL when none */
	char *fstype;     /* --fstype, "vfat" when not given (wic's default) */
	char *source, *sourceparams, *rootfs_dir, *label, *part_name, *part_type, *uuid, *fsuuid;
	char *disk; /* --ondisk / --ondrive, "sda" when not given */
	char **exclude;
	size_t n_exclude;
	uint32_t system_id; /* --system-id, 0 when not given */
	uint64_t align_kib, size_kib, fixed_kib, extra_kib, offset;
	bool has_offset, has_extra, has_factor;
	double factor; /* --overhead-factor */
	bool active, no_table, use_uuid, use_label, no_fstab_update;
	/* placement (import_wks_place): in 512-byte sectors */
	uint64_t start, size;
	enum wks_sizing sizing;
	bool start_known, size_known; /* known unless WKS_FROM_FILES */
	unsigned number;              /* in the table (0: --no-table); 5.. for logical ones */
	bool logical;
	char *name; /* the layout's partition name */
};

struct wks {
	struct wks_part *parts;
	size_t n_parts;
	char **files; /* every file read: the .wks and what it includes (owned) */
	size_t n_files;
	bool gpt;     /* bootloader --ptable gpt */
	char *diskid; /* bootloader --diskid */
	int bootloader_line;
	const char *bootloader_file;
	/* placement: the image's size in sectors when every size is known */
	uint64_t image_sectors;
	bool image_known;
};

/* The kickstart's sizes when not given, as wic's parser sets them: 10 MiB of extra space
 * and an overhead factor of 1.3 for a partition whose size follows its contents. */
#define WKS_DEFAULT_EXTRA_KIB 10240u
#define WKS_DEFAULT_FACTOR 1.3

/*
 * Reads the kickstart @text of @path (its `include` lines from the folder of the file that
 * names them) into @w, ${VAR} replaced from o->sets (a variable not set stays as written:
 * the layout then asks for it at build time). Returns 0, or -EINVAL with "FILE:LINE: ..."
 * in @d for what wic refuses or sdimg cannot give.
 */
int import_wks_parse(const char *path, const char *text, const struct import_options *o,
		     struct wks *w, struct diag *d);

/* Keeps the partitions of @w that are --ondisk @disk (wic makes an image per disk: --image
 * chooses one). Returns 0, or -EINVAL when none is. */
int import_wks_select_disk(struct wks *w, const char *disk, struct diag *d);

/* Places the partitions of @w by wic's rules (its first offset, --align, --offset, the EBR
 * sector of each logical partition) and names them. Returns 0 or -EINVAL with a message. */
int import_wks_place(struct wks *w, struct diag *d);

/* Writes the layout of a placed @w onto @out, @path named in its comments; the summary line
 * goes into @d. Returns 0, or -EIO when @out failed. */
int import_wks_write(const struct wks *w, const char *path, FILE *out, struct diag *d);

/* import_wks() for the kickstart @text of @path (read already): the fuzz target's door. */
int import_wks_text(const char *path, const char *text, const struct import_options *o, FILE *out,
		    struct diag *d);

/* Frees what @w owns and leaves it empty. */
void import_wks_release(struct wks *w);

#endif
