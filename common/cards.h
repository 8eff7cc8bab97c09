/* SPDX-License-Identifier: MIT */
/*
 * cards: the per-card manifest, IMAGE.cards.json, that a build writes beside an image whose
 * layout has per-card values, and the templates it holds. The builder writes it, `sdimg
 * personalize` and `sdimg flash --card-values` read it (the format: README.md, "Per-card
 * values"). Byte offsets count from the image's first byte.
 */
#ifndef SDIMG_COMMON_CARDS_H
#define SDIMG_COMMON_CARDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"

#define CARDS_FORMAT "sdimg-cards 2"
#define CARDS_FORMAT_OLD "sdimg-cards 1" /* without "image": refused, the image to be built again */
#define CARDS_MBR_DISK_ID 440u           /* the MBR disk signature's byte */
/* The most a manifest may hold (README.md, "Per-card values"): a larger one is refused before
 * it is read, one of more fields, volumes or ranges before any is checked */
#define CARDS_MANIFEST_MAX_BYTES (16u << 20)
#define CARDS_MAX_FIELDS 32768u
#define CARDS_MAX_PARTITIONS 128u /* a GPT's usual entry array; numbers are 1 to 128 */

/* What a per-card file lies in: its manifest "kind" */
enum cards_kind {
	CARDS_FAT_FILE,   /* "fat-file": a FAT12/16/32 volume's */
	CARDS_EXFAT_FILE, /* "exfat-file": an exFAT volume's */
};

/* A FAT or exFAT file whose content is a template filled in for each card. */
struct cards_file {
	enum cards_kind kind;
	char *partition;   /* the layout's partition name (owned) */
	uint64_t volume;   /* the first byte of its partition, the volume's boot sector */
	char *path;        /* its FAT path (owned) */
	char *template;    /* its content, ${NAME} standing for a card's value (owned) */
	uint64_t reserve;  /* the most bytes a card's content may take */
	unsigned fat_type; /* 12, 16 or 32 */
	uint32_t cluster_size;
	uint32_t first_cluster; /* its clusters: first_cluster .. + clusters - 1 */
	uint32_t clusters;
	uint64_t data;    /* its first cluster's first byte */
	uint64_t entry;   /* its short directory entry */
	uint64_t fats[2]; /* each FAT's first byte, n_fats of them */
	unsigned n_fats;
	uint64_t fsinfo[2]; /* FAT32: the FSInfo sector and its backup; n_fsinfo of them */
	unsigned n_fsinfo;
	uint32_t free_base; /* FAT32: free clusters with every per-card file of the volume
				   empty */
	/* exFAT: `entry` is its File entry, the first of the set_count entries of its set
	 * (File, Stream Extension, File Names: exFAT specification §7.4); `bitmap` is the
	 * allocation bitmap's first byte (§7.1.5: its bit 0 is cluster 2); fat_type,
	 * fats and fsinfo are unused */
	unsigned set_count;
	uint64_t bitmap;
};

/* A partition of the table, for the ${PARTUUID_NAME} of templates. */
struct cards_part {
	char *name;         /* the layout's partition name (owned) */
	unsigned number;    /* its number in the table (gpt: its entry is number - 1) */
	bool per_card_uuid; /* gpt: its unique GUID is set anew on every card */
};

/* A FAT volume with volume-id = per-card: where its BS_VolID fields are. */
struct cards_volume {
	char *partition;       /* owned */
	uint64_t volume;       /* the first byte of its partition, the volume's boot sector */
	uint64_t volume_id[2]; /* the boot sector's field and (FAT32) its backup's */
	unsigned n_volume_id;
};

/* Bytes [start, end) of the image. */
struct cards_range {
	uint64_t start, end;
};

/* A variable of a U-Boot environment: its value, or with per_card a template. */
struct cards_env_var {
	char *name;     /* owned */
	char *template; /* owned: ${NAME} stands for a card's value when per_card */
	bool per_card;
};

/* A U-Boot environment with per-card variables (common/uboot_env.h): every copy is written
 * anew for each card, its CRC with it. */
struct cards_env {
	char *region;       /* the layout's raw region (owned) */
	uint64_t copies[2]; /* each copy's first byte; two for a redundant environment */
	unsigned n_copies;
	uint64_t size;              /* of one copy */
	uint8_t pad;                /* the byte after the data */
	struct cards_env_var *vars; /* in order (owned) */
	size_t n_vars;
};

struct cards_manifest {
	uint64_t image_size;
	/* the image it belongs to: the ranges of it the build wrote (ascending, apart, as its
	 * bmap maps them), and SHA-256 over their bytes in order (cards_digest()) */
	struct cards_range *mapped;
	size_t n_mapped;
	uint8_t mapped_sha256[32];
	char *seed; /* the layout's seed: per-card ids derive from it (owned) */
	struct cards_file *files;
	size_t n_files;
	bool mbr_disk_id;        /* mbr, disk-id = per-card: the signature at byte 440 */
	uint64_t gpt_headers[2]; /* gpt, disk-id = per-card: the headers, n_gpt_headers of them */
	unsigned n_gpt_headers;
	struct cards_part *parts; /* with disk-id = per-card: every partition of the table */
	size_t n_parts;
	struct cards_volume *volumes;
	size_t n_volumes;
	struct cards_env *envs; /* "uboot-envs" */
	size_t n_envs;
};

/* A card's value of ${name}. */
struct cards_var {
	const char *name;
	const char *value;
};

/*
 * SHA-256 of the bytes of @fd in @ranges (@n), in order, into @out, with @sha (NULL: one of
 * its own, for a message in @d when there is none). Reads only those ranges, never a hole
 * between them. Returns 0, -EIO (a short read; @sha failed: its diag says so), -errno or
 * -ENOMEM.
 */
struct sha256;
int cards_digest(int fd, const struct cards_range *ranges, size_t n, struct sha256 *sha,
		 uint8_t out[32], struct diag *d);

/* The manifest's JSON text in *@ret (free() it). Returns 0 or -ENOMEM. */
int cards_manifest_text(const struct cards_manifest *m, char **ret);

/* Reads the manifest @path into @m (zero it first; release it with cards_manifest_release(),
 * also after a failure). Returns 0 or -EINVAL/-errno with a message naming @path in @d. */
int cards_manifest_read(const char *path, struct cards_manifest *m, struct diag *d);

void cards_manifest_release(struct cards_manifest *m);

/*
 * Why @name cannot be one of a card's variables, or NULL when it can: a variable's name is
 * letters, digits and _, not starting with a digit (no control character, no space: a name
 * goes into each card's ids and its report), and never one of the ids a card derives from
 * its values (DISK_ID, PARTUUID_*, VOLUME_ID_*), whose text the manifest's tables hold.
 */
const char *cards_var_name_problem(const char *name);

/*
 * @template with each ${NAME} replaced by the value of NAME in @vars (@n of them), in a new
 * string in *@ret (free() it). A name without a value is an error naming it and @where.
 * Returns 0, -EINVAL with a message in @d, or -ENOMEM.
 */
int cards_render(const char *template, const struct cards_var *vars, size_t n, const char *where,
		 char **ret, struct diag *d);

/*
 * As cards_render(), for the ids of an image (a `file` with `ids = true`): each ${NAME} of
 * an id (DISK_ID, PARTUUID_*, VOLUME_ID_*) is replaced by its value in @vars, one without a
 * value is an error naming it and @where; any other ${NAME} stays as it is (a U-Boot
 * script's ${bootargs}).
 */
int cards_render_ids(const char *template, const struct cards_var *vars, size_t n,
		     const char *where, char **ret, struct diag *d);

/* The name of the first ${NAME} of an id (DISK_ID, PARTUUID_*, VOLUME_ID_*) in @template,
 * its length in *@len; NULL when there is none. */
const char *cards_next_id(const char *template, size_t *len);

#endif
