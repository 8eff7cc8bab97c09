/* The state of one `sdimg build` and its steps (private to mkimage/). */
#ifndef SDIMG_MKIMAGE_BUILD_STATE_H
#define SDIMG_MKIMAGE_BUILD_STATE_H

#include <signal.h>
#include <stdbool.h>
#include <time.h>

#include "fat/fat.h"
#include "mkimage/build.h"
#include "mkimage/build_priv.h"
#include "mkimage/content.h"

/* What one layout partition needs while it is built. */
struct part_state {
	char *from;                /* raw: the host image file (owned) */
	uint64_t from_size;
	struct content content;    /* FAT: the files, overlaid */
	struct fat_tree *tree;     /* FAT: the tree fat/ writes (owned) */
	struct fat_opts opts;      /* FAT: the layout's fat { } settings */
	struct fat_geom geom;      /* FAT: the geometry chosen for the planned size */
	struct fat_sd_layout sd;   /* FAT with sd-format */
};

struct build {
	const struct layout *l;
	const struct build_options *o;
	struct diag *d;
	struct part_state *parts;  /* one per layout partition */
	uint64_t *part_sizes;      /* what the contents need, for size = auto */
	uint64_t *part_starts;     /* starts sd-format dictates */
	char **raw_from;           /* host file of each raw region (owned) */
	uint64_t *raw_sizes;
	uint8_t *mbr_types;        /* resolved MBR type of each partition */
	struct plan *plan;
	struct output out;
	struct timespec t0;
	bool tty, progress_shown, signals_blocked;
	sigset_t old_mask;
};

/* build_state.c */
int build_state_init(struct build *b);
void build_state_release(struct build *b);
int prepare_inputs(struct build *b);

/* build_plan.c */
int plan_with_contents(struct build *b);
int choose_geometries(struct build *b);

/* build_write.c */
int write_raw_regions(struct build *b);
int write_partitions(struct build *b);
void report_partitions(struct build *b);

/* archive_data.c: after fat_write(), the bytes of the files that come from archives. */
int arc_write_files(struct build *b, struct part_state *ps, uint64_t vol_offset);

/* build.c */
void build_progress(struct build *b, const char *what, const char *name);
bool build_interrupted(struct build *b);

/* The plan region of layout partition @i, or NULL. */
const struct plan_region *build_region_of(const struct build *b, size_t i);

#endif
