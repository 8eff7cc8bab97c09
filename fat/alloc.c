/* SPDX-License-Identifier: MIT */
/*
 * fat/alloc: turns the tree into directory entries and clusters: name checks, sorting,
 * short names, entry counts, cluster allocation and the minimum volume size.
 */
#include "fat/name_priv.h"
#include "fat/ondisk.h"
#include "fat/params_priv.h"
#include "fat/tree_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"

#define DIR_ENTRIES_MAX 65536u /* fatgen103: a directory holds at most 65,536 entries */

/* A set of 11-byte short names (open addressing; the table never fills past half). */
struct sfn_set {
	uint8_t (*keys)[11];
	bool *used;
	size_t cap;
};

static int sfn_set_init(struct sfn_set *s, size_t n)
{
	s->cap = 16;
	while (s->cap < 2 * n + 2)
		s->cap *= 2;
	s->keys = calloc(s->cap, sizeof(*s->keys));
	s->used = calloc(s->cap, sizeof(*s->used));
	return s->keys && s->used ? 0 : -ENOMEM;
}

static void sfn_set_release(struct sfn_set *s)
{
	free(s->keys);
	free(s->used);
}

/* Adds @k; returns 1 when it was new, 0 when already present. */
static int sfn_set_add(struct sfn_set *s, const uint8_t k[11])
{
	uint32_t h = 2166136261u;
	size_t i;

	for (int j = 0; j < 11; j++)
		h = (h ^ k[j]) * 16777619u;
	for (i = h & (s->cap - 1); s->used[i]; i = (i + 1) & (s->cap - 1))
		if (!memcmp(s->keys[i], k, 11))
			return 0;
	s->used[i] = true;
	memcpy(s->keys[i], k, 11);
	return 1;
}

int fat_node_cmp_order(const void *a, const void *b)
{
	const struct fat_node *x = *(const struct fat_node *const *)a;
	const struct fat_node *y = *(const struct fat_node *const *)b;

	if (x->first != y->first)
		return x->first ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_fat_equal(const void *a, const void *b)
{
	const struct fat_node *x = *(const struct fat_node *const *)a;
	const struct fat_node *y = *(const struct fat_node *const *)b;

	for (size_t i = 0; i < x->n16 && i < y->n16; i++) {
		uint16_t cx = fat_upcase(x->u16[i]), cy = fat_upcase(y->u16[i]);
		if (cx != cy)
			return cx < cy ? -1 : 1;
	}
	return (x->n16 > y->n16) - (x->n16 < y->n16);
}

/* Converts and checks the name of @n. */
static int prepare_name(struct arena *a, struct fat_node *n, struct diag *d)
{
	uint16_t buf[FAT_LFN_MAX + 1];
	char where[4096];
	const char *why;
	int len = utf8_to_utf16(n->name, buf, FAT_LFN_MAX + 1);

	if (len == -EILSEQ)
		return diag_error(d, "%s: the name is not valid UTF-8",
				  fat_node_where(n, where, sizeof(where)));
	why = len < 0 ? "is longer than 255 UTF-16 units" : fat_name_problem(buf, (size_t)len);
	if (why)
		return diag_error(d, "%s: the name %s", fat_node_where(n, where, sizeof(where)),
				  why);
	return fat_node_set_u16(a, n, buf, (size_t)len);
}

int fat_dir_check_equal(struct fat_node *dir, int (*cmp)(const void *, const void *),
			const char *fs, struct diag *d)
{
	struct fat_node **v = malloc(dir->n_kids * sizeof(*v));
	char a[4096], b[4096];
	int r = 0;

	if (!v)
		return -ENOMEM;
	memcpy(v, dir->kids, dir->n_kids * sizeof(*v));
	if (dir->n_kids > 1)
		qsort(v, dir->n_kids, sizeof(*v), cmp);
	for (size_t i = 1; i < dir->n_kids && !r; i++)
		if (!cmp(&v[i - 1], &v[i]))
			r = diag_error(d, "%s and %s: %s sees these names as equal",
				       fat_node_where(v[i - 1], a, sizeof(a)),
				       fat_node_where(v[i], b, sizeof(b)), fs);
	free(v);
	return r;
}

/* Plain 8.3 names keep their own short name; all others get the first free candidate. */
static int assign_short_names(struct fat_node *dir, struct diag *d)
{
	struct sfn_set set;
	struct fat_basis b;
	char where[4096];
	int r = sfn_set_init(&set, dir->n_kids);

	for (int pass = 0; pass < 2 && !r; pass++)
		for (size_t i = 0; i < dir->n_kids && !r; i++) {
			struct fat_node *n = dir->kids[i];
			unsigned k = 0;
			fat_basis(n->u16, n->n16, &b);
			if ((b.fits && b.case_ok) != (pass == 0))
				continue;
			n->ntres = b.fits && b.case_ok ? b.ntres : 0;
			n->n_lfn = b.fits && b.case_ok ? 0
						       : (uint8_t)((n->n16 + FAT_LFN_UNITS - 1) /
								   FAT_LFN_UNITS);
			for (k = b.fits ? 0 : 1;; k++) {
				if (fat_sfn_candidate(&b, n->u16, n->n16, k, n->sfn)) {
					r = diag_error(d, "%s: no free short name",
						       fat_node_where(n, where, sizeof(where)));
					break;
				}
				if (sfn_set_add(&set, n->sfn))
					break;
			}
		}
	sfn_set_release(&set);
	return r;
}

/* The names of @dir's children checked, sorted and given short names, with their UTF-16
 * names in @a (forgotten once done: the tree keeps none). */
static int prepare_names(struct arena *a, struct fat_node *dir, struct diag *d)
{
	int r = 0;

	for (size_t i = 0; i < dir->n_kids && !r; i++)
		r = prepare_name(a, dir->kids[i], d);
	if (!r && dir->n_kids) {
		qsort(dir->kids, dir->n_kids, sizeof(*dir->kids), fat_node_cmp_order);
		r = fat_dir_check_equal(dir, cmp_fat_equal, "FAT", d);
	}
	if (!r && dir->n_kids)
		r = assign_short_names(dir, d);
	fat_dir_drop_u16(dir);
	arena_free(a);
	return r;
}

static int prepare_dir(struct fat_tree *t, struct fat_node *dir, struct diag *d)
{
	char where[4096];
	uint64_t entries = dir->parent ? 2 : 0;
	struct arena names = { 0 };
	int r = prepare_names(&names, dir, d);

	if (r || !dir->n_kids)
		goto out;
	for (size_t i = 0; i < dir->n_kids; i++)
		entries += 1 + dir->kids[i]->n_lfn;
	for (size_t i = 0; i < dir->n_kids && !r; i++)
		if (dir->kids[i]->is_dir)
			r = prepare_dir(t, dir->kids[i], d);
	if (!r && entries + (dir->parent ? 0 : 1) > DIR_ENTRIES_MAX)
		r = diag_error(d,
			       "%s: %" PRIu64 " directory entries (long names included); a FAT "
			       "directory holds at most 65536",
			       fat_node_where(dir, where, sizeof(where)), entries);
out:
	dir->n_entries = (uint32_t)entries;
	return r;
}

uint32_t fat_dir_entries(const struct fat_tree *t, const struct fat_node *n,
			 const struct fat_geom *g)
{
	return n->n_entries + (n == &t->root && g->has_label ? 1 : 0);
}

/* Adds the clusters the children of @dir (and all below) need at each cluster size: a file's
 * size or its per-card reserve, whichever is larger, as alloc_dir() allocates them. */
static void count_need(const struct fat_node *dir, uint64_t need[8])
{
	for (size_t i = 0; i < dir->n_kids; i++) {
		const struct fat_node *n = dir->kids[i];
		uint64_t file = n->size > fat_node_reserve(n) ? n->size : fat_node_reserve(n);
		uint64_t bytes = n->is_dir ? (uint64_t)n->n_entries * FAT_DIRENT_SIZE : file;
		for (unsigned k = 0; k < 8; k++) {
			uint64_t c = (bytes + (512u << k) - 1) >> (9 + k);
			need[k] += n->is_dir && !c ? 1 : c; /* a folder has at least one */
		}
		if (n->is_dir)
			count_need(n, need);
	}
}

int fat_tree_prepare(struct fat_tree *t, struct diag *d)
{
	int r;

	if (t->prepared)
		return 0;
	r = prepare_dir(t, &t->root, d);
	if (r == 0) {
		memset(t->need, 0, sizeof(t->need));
		count_need(&t->root, t->need);
	}
	t->prepared = r == 0;
	return r;
}

static uint32_t dir_clusters(const struct fat_tree *t, const struct fat_node *n,
			     const struct fat_geom *g)
{
	uint64_t bytes = (uint64_t)fat_dir_entries(t, n, g) * FAT_DIRENT_SIZE;
	uint64_t c = (bytes + g->cluster_size - 1) / g->cluster_size;

	return c ? (uint32_t)c : 1;
}

/* Gives each child of @dir its clusters in entry order, then recurses. */
static void alloc_dir(const struct fat_tree *t, struct fat_node *dir, const struct fat_geom *g,
		      uint64_t *next)
{
	for (size_t i = 0; i < dir->n_kids; i++) {
		struct fat_node *n = dir->kids[i];
		uint64_t bytes = n->size > fat_node_reserve(n) ? n->size : fat_node_reserve(n);
		uint64_t c = n->is_dir ? dir_clusters(t, n, g)
				       : (bytes + g->cluster_size - 1) / g->cluster_size;
		n->n_clusters = (uint32_t)c;
		n->cluster = c && *next <= UINT32_MAX ? (uint32_t)*next : 0;
		*next += c;
	}
	for (size_t i = 0; i < dir->n_kids; i++)
		if (dir->kids[i]->is_dir)
			alloc_dir(t, dir->kids[i], g, next);
}

/* Gives every node of @t its clusters on @g; returns how many they are. */
static uint64_t tree_alloc_clusters(struct fat_tree *t, const struct fat_geom *g)
{
	uint64_t next = 2;

	t->root.cluster = 0;
	t->root.n_clusters = 0;
	if (g->type == FAT_32) {
		t->root.cluster = 2;
		t->root.n_clusters = dir_clusters(t, &t->root, g);
		next += t->root.n_clusters;
	}
	alloc_dir(t, &t->root, g, &next);
	return next - 2;
}

/* Clusters @t (prepared) needs on @g, from the counts fat_tree_prepare() made. */
static uint64_t tree_clusters(struct fat_tree *t, const struct fat_geom *g)
{
	uint64_t root = g->type == FAT_32 ? dir_clusters(t, &t->root, g) : 0;

	for (unsigned k = 0; k < 8; k++)
		if (g->cluster_size == 512u << k)
			return root + t->need[k];
	return tree_alloc_clusters(t, g); /* fat_params() gives no other size */
}

static int root_fits(const struct fat_tree *t, const struct fat_geom *g)
{
	return g->type == FAT_32 || fat_dir_entries(t, &t->root, g) <= g->root_entries;
}

int fat_tree_alloc(struct fat_tree *t, const struct fat_geom *g, uint32_t *ret_next, struct diag *d)
{
	uint64_t need;
	int r = fat_tree_prepare(t, d);

	if (r)
		return r;
	if (!root_fits(t, g))
		return diag_error(d,
				  "/: the root directory needs %u entries (long names "
				  "included) but root-entries is %u; raise root-entries to %u "
				  "or use FAT32",
				  fat_dir_entries(t, &t->root, g), g->root_entries,
				  (fat_dir_entries(t, &t->root, g) + 15) / 16 * 16);
	need = tree_alloc_clusters(t, g);
	if (need > g->clusters) {
		char cs[16];
		return diag_errno(d, -ENOSPC,
				  "the files need %" PRIu64 " clusters of %s but the "
				  "volume has %" PRIu32,
				  need, units_layout(g->cluster_size, cs, sizeof(cs)), g->clusters);
	}
	*ret_next = (uint32_t)(need + 2);
	return 0;
}

/* @o with the root directory sized for @t when root-entries is unset. */
static struct fat_opts root_sized(const struct fat_tree *t, const struct fat_opts *o)
{
	struct fat_opts r = *o;

	if (!r.root_entries)
		r.root_entries_min = t->root.n_entries + (r.label && *r.label ? 1 : 0);
	return r;
}

/* The FAT type FAT_AUTO should give a volume that fat_min_size() picks (FAT_AUTO: any). */
static enum fat_type preferred(const struct fat_opts *o)
{
	if (o->type != FAT_AUTO || o->cluster_size)
		return FAT_AUTO;
	return o->esp ? FAT_32 : FAT_16;
}

static int min_size(struct fat_tree *t, const struct fat_opts *o, uint64_t vol_offset,
		    uint64_t *ret_sectors, struct diag *d, enum fat_why *ret_why);

/*
 * Whether @t fits @g: the FAT12/16 root directory, then the clusters. With @advise, the error
 * for clusters that are short names the smallest volume that holds them.
 */
static int tree_check(struct fat_tree *t, const struct fat_opts *o, const struct fat_geom *g,
		      uint64_t vol_offset, int advise, struct diag *d, enum fat_why *why)
{
	uint32_t entries = fat_dir_entries(t, &t->root, g);
	uint64_t need, sectors;
	char cs[16], size[16], more[64] = "";

	*why = FAT_WHY_SETTINGS;
	if (!root_fits(t, g) && o->root_entries)
		return diag_error(d,
				  "the root directory needs %" PRIu32 " entries (a long name "
				  "takes one more for each 13 characters) but root-entries is %u; "
				  "raise it to %" PRIu32 " or leave it unset (then it is sized to "
				  "the files)",
				  entries, o->root_entries, (entries + 15) / 16 * 16);
	if (!root_fits(t, g))
		return diag_error(d,
				  "the root directory needs %" PRIu32 " entries, more than the "
				  "%u a FAT%d root directory holds; use fat32 or put files into "
				  "folders",
				  entries, FAT_ROOT_ENTRIES_MAX, g->type);
	need = tree_clusters(t, g);
	*why = FAT_WHY_SMALL;
	if (need <= g->clusters) {
		*why = FAT_WHY_OK;
		return 0;
	}
	if (advise) {
		struct diag quiet;
		enum fat_why stuck_why;
		diag_init(&quiet);
		if (!min_size(t, o, vol_offset, &sectors, &quiet, &stuck_why))
			snprintf(more, sizeof(more), "; size = %s or more holds them",
				 units_layout((sectors * FAT_SECTOR + (1u << 20) - 1) >> 20 << 20,
					      size, sizeof(size)));
		diag_release(&quiet);
	}
	return diag_error(d,
			  "the files and folders need %" PRIu64 " clusters of %s but this "
			  "%s FAT%d volume has %" PRIu32 "%s",
			  need, units_layout(g->cluster_size, cs, sizeof(cs)),
			  units_layout((uint64_t)g->total_sectors * FAT_SECTOR, size, sizeof(size)),
			  g->type, g->clusters, more);
}

static int holds_tree(void *ctx, const struct fat_geom *g)
{
	struct fat_tree *t = ctx;

	return root_fits(t, g) && tree_clusters(t, g) <= g->clusters;
}

/* fat_params_for_tree() on @o already root_sized(); @advise as for tree_check(). */
static int params_for_tree(struct fat_tree *t, const struct fat_opts *o, uint64_t sectors,
			   uint64_t vol_offset, int advise, struct fat_geom *g, struct diag *d,
			   enum fat_why *why)
{
	const struct fat_holds h = { .fn = holds_tree, .ctx = t };
	int r = fat_params_why(o, sectors * FAT_SECTOR, vol_offset, t ? &h : NULL, g, d, why);

	if (!t) /* the volume's own settings only */
		return r;

	return r ? r : tree_check(t, o, g, vol_offset, advise, d, why);
}

/*
 * The rule by which a default data-align (the partition's align, not one the layout sets) is
 * lowered where it does not work: halved, down to one sector, until @works accepts the
 * alignment. Returns the alignment taken, or 0 when none works. A volume of a fixed size
 * (lower_data_align()) and size = auto (min_size_lowering()) both go by it.
 */
static uint64_t lower_align_until(uint64_t from, bool (*works)(void *ctx, uint64_t align),
				  void *ctx)
{
	for (uint64_t a = from / 2; a >= FAT_SECTOR; a /= 2)
		if (works(ctx, a))
			return a;
	return 0;
}

/* A volume of a fixed size, for lower_align_until(). */
struct fixed_try {
	struct fat_tree *t;
	const struct fat_opts *o;
	uint64_t sectors, vol_offset;
	bool any_size;
	struct fat_geom *g;
	uint64_t need; /* without @t: the clusters the volume must have */
};

static bool fixed_works(void *ctx, uint64_t align)
{
	struct fixed_try *x = ctx;
	struct fat_opts lo = *x->o;
	struct diag quiet;
	enum fat_why why;

	lo.data_align = align;
	diag_init(&quiet);
	int r = params_for_tree(x->t, &lo, x->sectors, x->vol_offset, 0, x->g, &quiet, &why);
	diag_release(&quiet);
	return r == 0 && (x->t || x->g->clusters >= x->need) &&
	       (x->any_size || x->g->cluster_size <= align);
}

/*
 * The largest data alignment below @o->data_align with which @sectors hold @t (quietly), in
 * @g: one at least the cluster size it gives, or with @any_size down to one sector; 0 when
 * none does. Without @t, @need is the clusters the volume must have.
 */
static uint64_t lower_data_align(struct fat_tree *t, const struct fat_opts *o, uint64_t sectors,
				 uint64_t vol_offset, bool any_size, struct fat_geom *g,
				 uint64_t need)
{
	struct fixed_try x = { t, o, sectors, vol_offset, any_size, g, need };

	return lower_align_until(o->data_align, fixed_works, &x);
}

uint64_t fat_reached_data_align(const struct fat_opts *o, uint64_t vol_bytes, uint64_t vol_offset,
				uint64_t need)
{
	struct fat_geom g;
	struct diag quiet;
	enum fat_why why;

	if (!o->data_align || vol_bytes % FAT_SECTOR)
		return 0;
	diag_init(&quiet);
	int r = params_for_tree(NULL, o, vol_bytes / FAT_SECTOR, vol_offset, 0, &g, &quiet, &why);
	diag_release(&quiet);
	if (r == 0 && g.clusters >= need)
		return o->data_align;
	return o->data_align_lower ? lower_data_align(NULL, o, vol_bytes / FAT_SECTOR, vol_offset,
						      false, &g, need)
				   : 0;
}

/* Appends to the error, @d's last message, what @o->data_align's padding takes of @g (a
 * geometry that fat_params() found but that the files do not fit) and the data-align that
 * would leave the room (@fits; 0: none does). */
static void explain_padding(const struct fat_opts *o, const struct fat_geom *g, uint64_t fits,
			    struct diag *d)
{
	uint32_t base = g->type == FAT_32 ? 32 : 1; /* fatgen103's reserved sectors */
	char a[16], pad[24], lo[16], text[200];
	int n;

	if (g->reserved <= base)
		return;
	units_human((uint64_t)(g->reserved - base) * FAT_SECTOR, pad, sizeof(pad));
	n = snprintf(text, sizeof(text),
		     " (data-align %s, the partition's align, pads %s before the data area",
		     units_layout(o->data_align, a, sizeof(a)), pad);
	if (fits)
		snprintf(text + n, sizeof(text) - (size_t)n,
			 "; fat { data-align = %s } leaves the room)",
			 units_layout(fits, lo, sizeof(lo)));
	else
		snprintf(text + n, sizeof(text) - (size_t)n, ")");
	diag_suffix(d, d->n - 1, text);
}

/* fat_params_for_tree() on @o already root_sized() whose data_align may be lowered. */
static int params_lowering_align(struct fat_tree *t, const struct fat_opts *o, uint64_t sectors,
				 uint64_t vol_offset, struct fat_geom *g, struct diag *d)
{
	struct diag first;
	struct fat_geom lg;
	enum fat_why why;
	char a[16], lo[16], size[16];
	uint64_t lower;
	int r;

	diag_init(&first);
	r = params_for_tree(t, o, sectors, vol_offset, 1, g, &first, &why);
	if (r == 0 || !(lower = lower_data_align(t, o, sectors, vol_offset, false, &lg, 0))) {
		diag_take(d, &first);
		diag_release(&first);
		if (r && why == FAT_WHY_SMALL && g->total_sectors == sectors)
			explain_padding(o, g,
					lower_data_align(t, o, sectors, vol_offset, true, &lg, 0),
					d);
		return r;
	}
	diag_release(&first);
	*g = lg;
	diag_note(d,
		  "data-align %s (the partition's align) leaves too little room in this %s "
		  "volume; its data area starts on a multiple of %s instead (fat { data-align } "
		  "sets it)",
		  units_layout(o->data_align, a, sizeof(a)),
		  units_layout(sectors * FAT_SECTOR, size, sizeof(size)),
		  units_layout(lower, lo, sizeof(lo)));
	return 0;
}

int fat_params_for_tree(struct fat_tree *t, const struct fat_opts *o, uint64_t vol_bytes,
			uint64_t vol_offset, struct fat_geom *ret, struct diag *d)
{
	static const struct fat_opts none;
	struct fat_opts so;
	enum fat_why why;
	int r = fat_tree_prepare(t, d);

	if (r)
		return r;
	so = root_sized(t, o ? o : &none);
	if (vol_bytes % FAT_SECTOR)
		return fat_params(&so, vol_bytes, vol_offset, ret, d);
	if (so.data_align_lower && so.data_align)
		return params_lowering_align(t, &so, vol_bytes / FAT_SECTOR, vol_offset, ret, d);
	return params_for_tree(t, &so, vol_bytes / FAT_SECTOR, vol_offset, 1, ret, d, &why);
}

/* Whether a volume of @sectors holds @t with @o (quietly); @why says why not. */
static int size_fits(struct fat_tree *t, const struct fat_opts *o, uint64_t sectors,
		     uint64_t vol_offset, enum fat_why *why)
{
	struct fat_geom g;
	struct diag quiet;
	enum fat_type want = preferred(o);
	int ok;

	diag_init(&quiet);
	ok = !params_for_tree(t, o, sectors, vol_offset, 0, &g, &quiet, why);
	diag_release(&quiet);
	if (ok && want != FAT_AUTO && (want == FAT_32 ? g.type != FAT_32 : g.type == FAT_12)) {
		*why = FAT_WHY_SMALL;
		ok = 0;
	}
	return ok;
}

/* Posts the error of a search that a larger volume cannot help, as @sectors shows it (@was). */
static void stuck(struct fat_tree *t, const struct fat_opts *o, uint64_t sectors,
		  uint64_t vol_offset, enum fat_why was, struct diag *d)
{
	struct fat_geom g;
	struct diag loud;
	enum fat_why why;
	char size[16];

	diag_init(&loud);
	params_for_tree(t, o, sectors, vol_offset, 0, &g, &loud, &why);
	units_layout(sectors * FAT_SECTOR, size, sizeof(size));
	for (size_t k = 0; k < loud.n; k++)
		if (loud.msgs[k].level == DIAG_ERROR) {
			if (was == FAT_WHY_SETTINGS) /* the same at any size */
				diag_error(d, "%s", loud.msgs[k].text);
			else
				diag_error(d,
					   "no volume size holds these files with these settings "
					   "(at %s: %s)",
					   size, loud.msgs[k].text);
			break;
		}
	if (!loud.errors)
		diag_error(d, "no volume size holds these files with these settings");
	diag_release(&loud);
}

/* fat_min_size() on @o already root_sized(), in sectors. */
static int min_size(struct fat_tree *t, const struct fat_opts *o, uint64_t vol_offset,
		    uint64_t *ret_sectors, struct diag *d, enum fat_why *ret_why)
{
	uint64_t lo = 0, hi = 16; /* size_fits(lo) is false, size_fits(hi) is being searched */
	enum fat_why why;

	*ret_why = FAT_WHY_OK;
	while (!size_fits(t, o, hi, vol_offset, &why)) {
		if (why == FAT_WHY_STUCK || why == FAT_WHY_SETTINGS) {
			*ret_why = why;
			stuck(t, o, hi, vol_offset, why, d);
			return -EINVAL;
		}
		lo = hi;
		if (hi >= UINT32_MAX)
			return diag_error(d, "no FAT volume up to 2T holds these files with these "
					     "settings");
		hi = hi * 2 > UINT32_MAX ? UINT32_MAX : hi * 2;
	}
	/* bisection: "fits" mostly grows with the size; hi always fits */
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (size_fits(t, o, mid, vol_offset, &why))
			hi = mid;
		else
			lo = mid;
	}
	*ret_sectors = hi;
	return 0;
}

/* size = auto, for lower_align_until(): a volume size exists with this data-align. */
struct auto_try {
	struct fat_tree *t;
	const struct fat_opts *o;
	uint64_t vol_offset, *sectors;
};

static bool auto_works(void *ctx, uint64_t align)
{
	struct auto_try *x = ctx;
	struct fat_opts lo = *x->o;
	struct diag quiet;
	enum fat_why why;

	lo.data_align = align;
	diag_init(&quiet);
	int r = min_size(x->t, &lo, x->vol_offset, x->sectors, &quiet, &why);
	diag_release(&quiet);
	return r == 0;
}

/* min_size(); a default data-align that no volume size can reach (its padding needs more
 * than the 65535 reserved sectors a FAT boot sector counts) is lowered by the rule of a volume
 * of a fixed size, which then takes the same alignment at the size found (or a larger one). */
static int min_size_lowering(struct fat_tree *t, const struct fat_opts *o, uint64_t vol_offset,
			     uint64_t *ret_sectors, struct diag *d)
{
	struct auto_try x = { t, o, vol_offset, ret_sectors };
	struct diag first;
	enum fat_why why;

	diag_init(&first);
	int r = min_size(t, o, vol_offset, ret_sectors, &first, &why);
	if (r && why == FAT_WHY_SETTINGS && o->data_align_lower && o->data_align &&
	    lower_align_until(o->data_align, auto_works, &x))
		r = 0;
	else
		diag_take(d, &first);
	diag_release(&first);
	return r;
}

int fat_min_size(struct fat_tree *t, const struct fat_opts *o, uint64_t vol_offset,
		 uint64_t *ret_bytes, struct diag *d)
{
	static const struct fat_opts none;
	struct fat_opts so;
	uint64_t sectors;
	int r = fat_tree_prepare(t, d);

	if (r)
		return r;
	so = root_sized(t, o ? o : &none);
	r = min_size_lowering(t, &so, vol_offset, &sectors, d);
	if (!r)
		*ret_bytes = sectors * FAT_SECTOR;
	return r;
}
