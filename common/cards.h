/*
 * cards: the per-card manifest, IMAGE.cards.json, that a build writes beside an image whose
 * layout has per-card values, and the templates it holds. The builder writes it, `sdimg
 * personalize` and `sdimg flash --card-values` read it (the format: README.md, "Per-card
 * values"). Byte offsets count from the image's first byte.
 */
#ifndef SDIMG_COMMON_CARDS_H
#define SDIMG_COMMON_CARDS_H

#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"

#define CARDS_FORMAT "sdimg-cards 1"

/* A FAT file whose content is a template filled in for each card. */
struct cards_file {
	char *partition;        /* the layout's partition name (owned) */
	char *path;             /* its FAT path (owned) */
	char *template;         /* its content, ${NAME} standing for a card's value (owned) */
	uint64_t reserve;       /* the most bytes a card's content may take */
	unsigned fat_type;      /* 12, 16 or 32 */
	uint32_t cluster_size;
	uint32_t first_cluster; /* its clusters: first_cluster .. + clusters - 1 */
	uint32_t clusters;
	uint64_t data;          /* its first cluster's first byte */
	uint64_t entry;         /* its short directory entry */
	uint64_t fats[2];       /* each FAT's first byte, n_fats of them */
	unsigned n_fats;
	uint64_t fsinfo[2];     /* FAT32: the FSInfo sector and its backup; n_fsinfo of them */
	unsigned n_fsinfo;
	uint32_t free_base;     /* FAT32: free clusters with every per-card file of the volume
				   empty */
};

struct cards_manifest {
	uint64_t image_size;
	struct cards_file *files;
	size_t n_files;
};

/* A card's value of ${name}. */
struct cards_var {
	const char *name;
	const char *value;
};

/* The manifest's JSON text in *@ret (free() it). Returns 0 or -ENOMEM. */
int cards_manifest_text(const struct cards_manifest *m, char **ret);

/* Reads the manifest @path into @m (zero it first; release it with cards_manifest_release(),
 * also after a failure). Returns 0 or -EINVAL/-errno with a message naming @path in @d. */
int cards_manifest_read(const char *path, struct cards_manifest *m, struct diag *d);

void cards_manifest_release(struct cards_manifest *m);

/*
 * @template with each ${NAME} replaced by the value of NAME in @vars (@n of them), in a new
 * string in *@ret (free() it). A name without a value is an error naming it and @where.
 * Returns 0, -EINVAL with a message in @d, or -ENOMEM.
 */
int cards_render(const char *template, const struct cards_var *vars, size_t n,
		 const char *where, char **ret, struct diag *d);

#endif
