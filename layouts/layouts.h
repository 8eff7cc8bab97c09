/* SPDX-License-Identifier: MIT */
/*
 * layouts: the layout language of sdimg (see LAYOUT.md in the documentation).
 *
 *   layout text --layout_load()--> struct layout --plan_resolve() (plan/plan.h)--> struct plan
 *
 * layout_load() parses a layout file (with its includes and ${VAR}s) and validates every
 * key; it reads the layout files and nothing else. layout_input_path() finds an input file
 * in the input folders (inputs.c), for whoever reads it.
 *
 * Inside: lex.c turns each file into tokens, parse.c reads them into a section tree
 * (section_tree.h) checked against the one key table of the language (schema.c; foreign.c tells
 * other tools' words), read_*.c turn the tree into a struct layout, validate.c checks
 * the rules that span sections and query.c answers questions about the result.
 *
 * Ownership: a struct layout owns all its strings and arrays and is freed with
 * layout_free().
 * Errors: 0 or a negative errno; every problem is one line in the struct diag the caller
 * passes, naming "FILE:LINE: ...".
 */
#ifndef SDIMG_LAYOUTS_H
#define SDIMG_LAYOUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"
#include "common/sdcard.h"

#define LAYOUT_SECTOR 512u
#define LAYOUT_DEFAULT_ALIGN \
	SDCARD_SDHC_UNIT /* the SDHC boundary unit; sdcard_default_align() above 32 GiB */
#define LAYOUT_DEFAULT_TIMESTAMP 315532800 /* 1980-01-01 00:00:00 UTC */
#define LAYOUT_GPT_MAX_PARTITIONS 128
/* MBR: 3 primary entries and 56 logical ones (numbers 5..60) is the most that fdisk and
 * sfdisk handle (their MBR code stops at partition number 60) */
#define LAYOUT_MBR_MAX_PARTITIONS 59
#define LAYOUT_MBR_MAX_LOGICAL 56
/* raw regions plus partitions kept out of the table: no card has nearly as many */
#define LAYOUT_MAX_UNTABLED 1024
#define LAYOUT_MAX_BYTES (1ull << 60) /* no size or offset is larger (1 EiB) */
#define LAYOUT_MAX_ALIGN (1ull << 40) /* nor an alignment (1 TiB) */

/* Where a value was written: the file (owned by the layout) and its 1-based line. */
struct layout_loc {
	const char *file;
	int line;
};

enum layout_table { LAYOUT_TABLE_MBR, LAYOUT_TABLE_GPT, LAYOUT_TABLE_NONE };

enum layout_mtime { LAYOUT_MTIME_FIXED, LAYOUT_MTIME_SOURCE };
/* A tree's `owners` on ext4: unset (a host folder's own owners where the build runs as root,
 * else 0:0; an archive's as its entries say), the source's (`host`), or 0:0 (`root`). */
enum layout_owners { LAYOUT_OWNERS_UNSET, LAYOUT_OWNERS_HOST, LAYOUT_OWNERS_ROOT };
/* A FAT tree's `links`: which symbolic links it follows (FAT has none: a followed link is a
 * copy of what it names). Those whose target lies inside the tree (the default, whoever runs
 * the build), every one that resolves (`follow`), or none: any link is an error (`refuse`). */
enum layout_links { LAYOUT_LINKS_INSIDE, LAYOUT_LINKS_FOLLOW, LAYOUT_LINKS_REFUSE };

enum layout_part_type {
	LAYOUT_PART_RAW,
	LAYOUT_PART_FAT, /* FAT12/16/32 chosen by size */
	LAYOUT_PART_FAT12,
	LAYOUT_PART_FAT16,
	LAYOUT_PART_FAT32,
	LAYOUT_PART_EXT4,  /* an ext4 file system built from tree, file and dir */
	LAYOUT_PART_EXFAT, /* an exFAT file system built from tree, file and dir */
};

enum layout_size_kind { LAYOUT_SIZE_FIXED, LAYOUT_SIZE_AUTO, LAYOUT_SIZE_GROW };

enum layout_entry_kind { LAYOUT_ENTRY_TREE, LAYOUT_ENTRY_FILE, LAYOUT_ENTRY_DIR };

/* FAT attribute bits as the directory entry stores them (fatgen103, DIR_Attr). */
enum layout_attr {
	LAYOUT_ATTR_READONLY = 0x01,
	LAYOUT_ATTR_HIDDEN = 0x02,
	LAYOUT_ATTR_SYSTEM = 0x04,
	LAYOUT_ATTR_ARCHIVE = 0x20,
};

/* A GUID in its text order (the bytes of "00112233-4455-..." left to right). */
struct layout_guid {
	uint8_t b[16];
};

/*
 * A value the layout may leave out has a `_set` flag beside it: without the flag the value
 * means nothing, and its default is decided where it is used. No value stands for "not
 * set".
 */
struct layout_image {
	bool size_set;
	uint64_t size; /* with size_set; else the plan derives it */
	enum layout_table table;
	uint64_t align;
	bool disk_id_set;
	bool disk_id_per_card;     /* disk-id = per-card: the disk id (gpt: and every partition's
				   GUID without `uuid`) is set anew on every card */
	uint32_t mbr_id;           /* with table = mbr */
	struct layout_guid gpt_id; /* with table = gpt */
	char *seed; /* never NULL: the layout's own or the hex SHA-256 of its bytes */
	int64_t timestamp;
	bool timestamp_from_env; /* SOURCE_DATE_EPOCH gave it: mtime = source clamps to it */
	enum layout_mtime mtime;
	uint64_t gpt_entries;   /* byte offset of the GPT entry array */
	bool gpt_backup;        /* gpt: the backup header and array end the image (true unless
				 * gpt-backup = false) */
	bool hybrid;            /* table = hybrid: a gpt (table is LAYOUT_TABLE_GPT) whose MBR
				 * mirrors the partitions with `hybrid` */
	bool hybrid_ee_last;    /* hybrid-ee = last: the 0xEE entry after the mirrored ones */
	unsigned extended_slot; /* mbr: extended-partition (1..4), 0 when not set */
	struct layout_loc loc, size_loc, gpt_entries_loc, table_loc, extended_loc;
};

/* Bytes [start, end) counted from the first byte of a raw region or partition. */
struct layout_range {
	uint64_t start, end;
};

/* A variable of a U-Boot environment given in the layout: `var "NAME" { value = ... }`. */
struct layout_env_var {
	char *name;
	char *value;   /* with per_card: a template, each ${NAME} a card's value */
	bool per_card; /* set by sdimg personalize and flash --card-values */
	struct layout_loc loc;
};

/* A raw region holding a U-Boot environment: `uboot-env { }` (common/uboot_env.h). */
struct layout_uboot_env {
	uint64_t size;               /* of one copy (CONFIG_ENV_SIZE) */
	bool redundant;              /* two copies, each with a flags byte */
	uint64_t offset_redund;      /* with redundant: the second copy's first byte in the image
				   (CONFIG_ENV_OFFSET_REDUND), by default right after the first */
	uint8_t pad;                 /* pad-byte: after the data (mkenvimage's 0xff by default) */
	char *vars_file;             /* vars: a text in mkenvimage's form, an input file, or NULL */
	struct layout_env_var *vars; /* the layout's own, after those of vars_file */
	size_t n_vars;
	struct layout_loc loc, size_loc, vars_loc;
};

struct layout_raw {
	char *name;
	uint64_t offset;
	char *from;                 /* NULL: fill is set */
	uint64_t skip;              /* bytes at the start of `from` that are not copied */
	bool fill;                  /* every byte written: from's, then fill_byte to the end */
	uint8_t fill_byte;          /* fill-byte: what fill writes (0, or 0xff for NOR flash) */
	bool dense;                 /* sparse = false: the zeros of from written and mapped */
	struct layout_range *holes; /* not written (a table sits there): sorted, disjoint */
	size_t n_holes;
	bool size_set;
	uint64_t size;                /* with size_set; else the file's size less skip, known at
				   build time */
	struct layout_uboot_env *env; /* uboot-env { }: the region holds it (and from and fill
					 are not set), or NULL */
	struct layout_loc loc, skip_loc, holes_loc;
};

struct layout_fat {
	char *label; /* NULL: "NO NAME" */
	bool cluster_size_set;
	uint32_t cluster_size; /* with cluster_size_set; else the SD specification's choice */
	bool fats_set;
	unsigned fats; /* 2 unless set */
	bool data_align_set;
	uint64_t data_align; /* the image's align unless set */
	bool sd_format;
	bool root_entries_set;
	unsigned root_entries; /* with root_entries_set; else fat/ decides (512 on FAT12/16) */
	bool reserved_set;
	unsigned reserved; /* with reserved_set; else computed */
	bool volume_id_set;
	uint32_t volume_id;
	bool volume_id_per_card; /* volume-id = per-card: set anew on every card */
	char *oem_name;          /* never NULL */
	struct layout_loc loc;
};

/* An exFAT partition's `exfat { }`: the keys FAT has under the same names mean the same. */
struct layout_exfat {
	char *label; /* NULL: none (at most 11 UTF-16 units) */
	bool cluster_size_set;
	uint32_t cluster_size; /* with cluster_size_set; else chosen by size (exfat/) */
	bool data_align_set;
	uint64_t data_align; /* the cluster heap's alignment from the disk start: the
			      * partition's align unless set */
	bool sd_format;      /* the whole SDXC card as the SD formatter lays it out */
	bool volume_id_set;
	uint32_t volume_id; /* with volume_id_set; else derived from the seed */
	bool guid_set;
	struct layout_guid guid; /* with guid_set: a Volume GUID entry */
	struct layout_loc loc;
};

struct layout_ext4 {
	char *label; /* NULL: none (at most 16 bytes) */
	bool uuid_set;
	struct layout_guid uuid; /* with uuid_set; else derived from the seed */
	uint32_t block_size;     /* 4096 unless set */
	uint32_t inode_size;     /* 256 unless set */
	bool inodes_set;
	uint64_t inodes;   /* with inodes_set; else one per 16 KiB */
	unsigned reserved; /* percent of blocks kept for root (0 unless set) */
	bool journal;      /* true unless set */
	char *features;    /* as written (the builder checks the names), or NULL */
	struct layout_loc loc;
};

struct layout_entry {
	enum layout_entry_kind kind;
	char *path;     /* absolute path inside the partition, as written */
	char *from;     /* tree, file: host path as written (NULL for content) */
	char *content;  /* file: literal content, or NULL */
	unsigned strip; /* tree */
	char **include; /* tree: fnmatch(3) patterns, n_include of them (owned) */
	size_t n_include;
	char **exclude; /* tree: fnmatch(3) patterns, n_exclude of them (owned) */
	size_t n_exclude;
	bool first;     /* file */
	unsigned attrs; /* file: enum layout_attr bits */
	bool owner_set, group_set;
	uint32_t owner, group;     /* ext4: with owner_set / group_set; else 0 */
	enum layout_owners owners; /* tree on ext4: whose owners its entries keep */
	enum layout_links links;   /* tree on FAT: which symbolic links are followed */
	bool per_card;             /* file: content is a template filled in for each card
				   (sdimg personalize, sdimg flash --card-values) */
	uint64_t reserve;          /* file with per_card: bytes its clusters hold for any card */
	bool ids; /* file: ${DISK_ID}, ${PARTUUID_NAME}, ${VOLUME_ID_NAME} in content are the
		     image's ids, filled in by build_fill_ids() */
	struct layout_loc loc;
};

struct layout_partition {
	char *name;
	enum layout_part_type type;
	bool start_set;
	uint64_t start;
	char *off_grid; /* with start_set: why the start is off the alignment grid (a boot ROM
			   reads it there), which the plan then does not warn about; or NULL */
	bool align_set;
	uint64_t align; /* the image's unless align_set: an automatic start, an auto size */
	enum layout_size_kind size_kind;
	uint64_t size; /* with LAYOUT_SIZE_FIXED */
	uint64_t extra;
	char *from;
	uint64_t skip;              /* raw: bytes at the start of `from` that are not copied */
	bool fill;                  /* raw: every byte written: from's, then fill_byte */
	uint8_t fill_byte;          /* raw: fill-byte, what fill writes */
	bool dense;                 /* raw: sparse = false: the zeros of from written and mapped */
	struct layout_range *holes; /* raw: not written; sorted, disjoint */
	size_t n_holes;
	bool bootable;
	bool hybrid;  /* table = hybrid: mirrored in the MBR */
	bool primary; /* mbr: a primary entry although listed after logical ones */
	uint8_t mbr_type;
	struct layout_loc mbr_type_loc; /* where mbr-type is set; file NULL: the default */
	struct layout_guid gpt_type;
	bool uuid_set;
	struct layout_guid uuid;
	char *label; /* GPT partition name, never NULL */
	bool in_table;
	struct layout_fat fat;     /* meaningful for FAT types */
	struct layout_ext4 ext4;   /* meaningful for ext4 */
	struct layout_exfat exfat; /* meaningful for exFAT */
	struct layout_entry *entries;
	size_t n_entries;
	struct layout_loc loc, start_loc, size_loc, skip_loc, holes_loc, hybrid_loc, primary_loc,
		align_loc;
};

struct layout {
	char *path;        /* the layout file as given */
	char **input_dirs; /* where relative `from` paths are looked up, in order (owned;
				   at least one) */
	size_t n_input_dirs;
	struct layout_image image;
	struct layout_raw *raws;
	size_t n_raws;
	struct layout_partition *parts;
	size_t n_parts;
	char **files; /* every file read (the layout and its includes), owned */
	size_t n_files;
};

/* One VAR=VALUE given on the command line; it wins over the environment. */
struct layout_var {
	const char *name;
	const char *value;
};

/*
 * The limits of the layout language (LAYOUT.md, "Limits"), each checked before the work
 * it bounds: a real layout is a few KiB, and a hostile one (an include bomb, a huge
 * variable) must fail at once, not after minutes and gigabytes.
 */
#define LAYOUT_TEXT_MAX \
	(1u << 20)                   /* bytes of the layout, every file it includes (each
					time it is included) and every ${VAR} value put in */
#define LAYOUT_VALUE_MAX (64u << 10) /* bytes of one ${VAR}'s value */
#define LAYOUT_INCLUDES_MAX 256      /* include() calls read, in all */
#define LAYOUT_INCLUDE_DEPTH_MAX 16  /* includes nested in includes */
#define LAYOUT_DEFAULT_DEPTH_MAX 8   /* ${A:-${B:-...}} defaults nested in defaults */

struct layout_options {
	const char *const *input_dirs; /* -I DIR, n_input_dirs of them, searched in order for
					 `from` files and (after the including file's folder)
					 includes; none: the directory of the layout file */
	size_t n_input_dirs;
	const struct layout_var *vars; /* --set VAR=VALUE, n_vars of them */
	size_t n_vars;
	bool use_environment;          /* ${VAR} may come from the process environment */
	const char *source_date_epoch; /* $SOURCE_DATE_EPOCH as the caller found it, or NULL */
};

/*
 * Parses and validates the layout file @path.
 * @opts may be NULL (environment on, no --set variables, input dir = the layout's folder).
 * On success *@ret_layout is a new layout the caller frees with layout_free().
 * Returns 0, or a negative errno with one line per problem in @d.
 */
int layout_load(const char *path, const struct layout_options *opts, struct diag *d,
		struct layout **ret_layout);

/* Same, from text already in memory; @name is used in messages and for includes. */
int layout_load_text(const char *name, const char *text, const struct layout_options *opts,
		     struct diag *d, struct layout **ret_layout);

/*
 * The host path of the input file @from (a `from` of the layout): @from itself when it is
 * absolute, else the first of l->input_dirs that holds it (as lstat() sees it: a dangling
 * link is found, and reported by whoever opens it). With one input folder that is the
 * path in it, found or not, for the caller to report. Returns 0 with a new string in
 * *@ret_path (free() it); -EINVAL when no folder holds it, with the message "@place@from:
 * in none of the input folders: DIR1, DIR2" in @d; or -ENOMEM.
 */
int layout_input_path(const struct layout *l, const char *from, const char *place, struct diag *d,
		      char **ret_path);

/* Frees a layout and everything it owns. Accepts NULL. */
void layout_free(struct layout *l);

/* @g as upper-case GUID text ("0FC63DAF-8483-4772-8E79-3D69D8477DE4"). */
void layout_guid_text(const struct layout_guid *g, char out[37]);

/* The alias of a GPT partition type GUID ("esp", "linux", ...), or NULL. */
const char *layout_gpt_type_alias(const struct layout_guid *g);

/*
 * Parses a size as the layout language writes it ("512", "8K", "4M", "8192s", ...).
 * Returns 0, or -EINVAL with the reason in @why (@n bytes).
 */
int layout_parse_size(const char *text, uint64_t *ret, char *why, size_t n);

/* "raw", "fat", "fat12", ..., "ext4", "exfat"; "mbr", "gpt", "none". */
const char *layout_part_type_name(enum layout_part_type t);
const char *layout_table_name(enum layout_table t);
/* FAT12, FAT16 or FAT32 (not exFAT). */
bool layout_part_is_fat(const struct layout_partition *p);
bool layout_part_is_exfat(const struct layout_partition *p);
/* Whether @p is laid out by an SD formatter's rules: fat { sd-format } or exfat { sd-format }. */
bool layout_part_sd_format(const struct layout_partition *p);
/* A partition sdimg fills with files: FAT, exFAT or ext4. */
bool layout_part_has_files(const struct layout_partition *p);

/*
 * The MBR entry (1..4) of the extended partition of @l: extended-partition, else 4 when
 * more than four partitions are in an mbr table; 0 when there is none. Partitions in the
 * table from that place on are logical, except those with `primary`.
 */
unsigned layout_extended_slot(const struct layout *l);

#endif
