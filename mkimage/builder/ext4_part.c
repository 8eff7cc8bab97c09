/* SPDX-License-Identifier: MIT */
/* ext4_part: an ext4 partition from its tree, file and dir entries, in layout order (a host
 * folder through ext4_folder.c, an archive through ext4_archive.c), written through ext4/
 * at the partition's region of the image: its parameters, its check, its write and the
 * measure of `size = auto`. */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ext4/ext4.h"
#include "mkimage/builder/builder_priv.h"
#include "mkimage/contents/contents.h"

static struct ext4_meta meta_of(const struct ext4_walk *w, const struct stat *st, uint32_t perm)
{
	struct ext4_meta m = { .uid = w->e->owner_set ? w->e->owner : 0,
			       .gid = w->e->group_set ? w->e->group : 0,
			       .perm = perm };
	m.mtime = content_mtime(&w->b->l->image, st ? &st->st_mtim : NULL, &m.mtime_ns);
	return m;
}

/* A `file` entry's text, handed out as its bytes. */
struct text_reader {
	const char *p;
	size_t left;
};

static long read_text(void *ctx, void *buf, size_t len)
{
	struct text_reader *t = ctx;
	size_t n = len < t->left ? len : t->left;

	memcpy(buf, t->p, n);
	t->p += n;
	t->left -= n;
	return (long)n;
}

/* The folder at @path (absolute, "/" the root), made with 0:0, 0755 and the timestamp
 * where it is missing; its inode in @ret_ino. */
int build_ext4_folder_at(struct ext4_walk *w, const char *path, uint32_t *ret_ino)
{
	struct ext4_meta m = { .perm = 0755, .mtime = w->b->l->image.timestamp };
	uint32_t dir = EXT4_ROOT;
	char name[256];

	for (const char *p = path + 1; *p;) {
		size_t n = strcspn(p, "/");
		bool is_dir;
		uint32_t ino;
		if (n >= sizeof(name))
			return diag_error(w->b->d, "%s:%d: '%s': a name longer than 255 bytes",
					  w->e->loc.file, w->e->loc.line, path);
		memcpy(name, p, n);
		name[n] = '\0';
		int rc = ext4_lookup(w->v, dir, name, &ino, &is_dir);
		if (rc == 0 && !is_dir)
			return diag_error(w->b->d, "%s:%d: '%s': '%s' is not a folder",
					  w->e->loc.file, w->e->loc.line, path, name);
		if (rc < 0 && (rc = ext4_add_dir(w->v, dir, name, &m, path, &ino)) < 0)
			return rc;
		dir = ino;
		p += n + (p[n] == '/');
	}
	*ret_ino = dir;
	return 0;
}

/* Splits @path into its folder (made where missing) and last name (pointing into @path). */
static int parent_at(struct ext4_walk *w, const char *path, uint32_t *ret_dir,
		     const char **ret_name)
{
	const char *slash = strrchr(path, '/');
	char *dir = strndup(path, (size_t)(slash - path) + (slash == path));

	if (!dir)
		return -ENOMEM;
	int rc = build_ext4_folder_at(w, dir, ret_dir);
	free(dir);
	*ret_name = slash + 1;
	return rc;
}

/* A tree entry from a host folder or an archive, through its include and exclude when it
 * has them; a pattern that matched nothing is then a warning naming the layout line. */
static int add_tree(struct ext4_walk *w, const char *host)
{
	const struct layout_entry *e = w->e;
	struct content_filter filter;
	struct stat st;
	int rc;

	if (stat(host, &st) < 0)
		return diag_error(w->b->d, "%s:%d: tree '%s': %s: %s", e->loc.file, e->loc.line,
				  e->path, host, strerror(errno));
	if (!e->n_include && !e->n_exclude)
		return S_ISDIR(st.st_mode) ? build_ext4_folder(w, host, &st)
					   : build_ext4_archive(w, host);
	if ((rc = content_filter_init(&filter, e)) < 0)
		return rc;
	w->filter = &filter;
	rc = S_ISDIR(st.st_mode) ? build_ext4_folder(w, host, &st) : build_ext4_archive(w, host);
	w->filter = NULL;
	if (rc == 0) {
		char place[600];
		snprintf(place, sizeof(place), "%s:%d: partition '%s': tree '%s': ", e->loc.file,
			 e->loc.line, w->p->name, e->path);
		content_filter_warn(&filter, place, w->b->d);
	}
	content_filter_release(&filter);
	return rc;
}

/* Why a `file` entry cannot take a host entry of @mode (not a regular file). */
static const char *not_regular(mode_t mode)
{
	return S_ISFIFO(mode)   ? "a fifo, not a regular file"
	       : S_ISSOCK(mode) ? "a socket, not a regular file"
	       : S_ISDIR(mode)  ? "a folder, not a regular file (a tree entry takes folders)"
				: "a device node, not a regular file";
}

static int add_file(struct ext4_walk *w, const char *host)
{
	const struct layout_entry *e = w->e;
	struct text_reader t = { e->content, e->content ? strlen(e->content) : 0 };
	const char *name;
	uint32_t dir;
	struct stat st;
	int rc = parent_at(w, e->path, &dir, &name);

	if (rc < 0 || !host) {
		struct ext4_meta m = meta_of(w, NULL, 0644);
		return rc < 0 ? rc
			      : ext4_add_file(w->v, dir, name, &m, t.left, read_text, &t, e->path,
					      NULL);
	}
	/* Without O_NONBLOCK, opening a fifo waits for a writer that never comes; a regular
	 * file reads the same either way. */
	int fd = open(host, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		rc = diag_error(w->b->d, "%s:%d: file '%s': %s: %s", e->loc.file, e->loc.line,
				e->path, host, strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		rc = diag_error(w->b->d, "%s:%d: file '%s': %s: %s", e->loc.file, e->loc.line,
				e->path, host, not_regular(st.st_mode));
	} else {
		struct ext4_meta m = meta_of(w, &st, st.st_mode & 07777);
		struct ext4_host_reader r = { .fd = fd, .host = host, .d = w->b->d };
		rc = ext4_add_file(w->v, dir, name, &m, (uint64_t)st.st_size, build_ext4_read_fd,
				   &r, host, NULL);
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

/* One entry of the partition; what went wrong names its layout line (FILE:LINE), before
 * the entry's own place (its source's path, or the archive and the name in it). */
static int add_entry(struct ext4_walk *w)
{
	const struct layout_entry *e = w->e;
	size_t first = w->b->d->n;
	char *host = NULL, place[600];
	int rc = 0;

	snprintf(place, sizeof(place), "%s:%d: ", e->loc.file, e->loc.line);

	if (e->from && (rc = layout_input_path(w->b->l, e->from, place, w->b->d, &host)) < 0)
		return rc;
	if (e->kind == LAYOUT_ENTRY_TREE) {
		assert(host); /* the layout reader refuses a tree without 'from' */
		rc = add_tree(w, host);
	} else if (e->kind == LAYOUT_ENTRY_FILE) {
		rc = add_file(w, host);
	} else {
		uint32_t ino;
		struct ext4_meta m = meta_of(w, NULL, 0755);
		if ((rc = build_ext4_folder_at(w, e->path, &ino)) == 0)
			rc = ext4_add_dir(w->v, ino, NULL, &m, e->path, NULL);
	}
	free(host);
	if (rc < 0)
		diag_prefix(w->b->d, first, place);
	return rc;
}

/* Returns 0 or -EIO (the ids' hasher failed: its diag says so). */
static int params_of(const struct build *b, const struct layout_partition *p,
		     struct ext4_params *ret)
{
	const struct layout *l = b->l;
	const struct layout_ext4 *x = &p->ext4;
	struct layout_guid uuid;

	*ret = (struct ext4_params){ .label = x->label,
				     .block_size = x->block_size,
				     .inode_size = x->inode_size,
				     .inodes = x->inodes_set ? x->inodes : 0,
				     .reserved_percent = x->reserved,
				     .journal = x->journal,
				     .features = x->features,
				     .timestamp = l->image.timestamp };
	int rc = build_id_ext4(b->sha, l->image.seed, p->name, &uuid, ret->hash_seed);
	memcpy(ret->uuid, x->uuid_set ? x->uuid.b : uuid.b, 16);
	return rc;
}

struct map_ctx {
	struct build *b;
	uint64_t start;
};

static int map_range(void *ctx, uint64_t start, uint64_t len)
{
	struct map_ctx *m = ctx;
	return build_map_add(&m->b->map, m->start + start, len);
}

/* The volume of @size bytes at @start of @fd with partition @p's entries: 0 with the volume
 * in *@ret, or a negative errno (-ENOSPC: too small) with the messages in @d. With @used
 * non-NULL (3 of them), what the volume used when made empty, when every entry was in and
 * when its folders were indexed; with @stretch non-NULL, the empty volume's
 * ext4_free_stretch(). */
static int fill_volume(struct build *b, const struct layout_partition *p,
		       const struct ext4_params *params, int fd, uint64_t start, uint64_t size,
		       struct diag *d, struct ext4_usage *used, uint64_t *stretch,
		       struct ext4_volume **ret)
{
	struct ext4_walk w = { .b = b, .p = p };
	struct diag *keep = b->d;
	int rc;

	b->d = d;
	if ((rc = ext4_create(fd, start, size, params, b->o->output, d, &w.v)) < 0) {
		b->d = keep;
		return rc;
	}
	if (used)
		ext4_get_usage(w.v, &used[0]);
	if (stretch)
		*stretch = ext4_free_stretch(w.v);
	for (size_t k = 0; rc == 0 && k < p->n_entries; k++) {
		w.e = &p->entries[k];
		rc = add_entry(&w);
	}
	if (rc == 0 && used)
		ext4_get_usage(w.v, &used[1]);
	if (rc == 0)
		rc = ext4_index_folders(w.v);
	if (rc == 0 && used)
		ext4_get_usage(w.v, &used[2]);
	free(w.links);
	free(w.data);
	b->d = keep;
	if (rc < 0)
		ext4_discard(w.v);
	else
		*ret = w.v;
	return rc;
}

int build_check_ext4(struct build *b, size_t i)
{
	const struct layout_partition *p = &b->l->parts[i];
	char why[256];

	if (ext4_features_check(p->ext4.features, why, sizeof(why)) < 0)
		return diag_error(b->d, "%s:%d: partition '%s': ext4: features: %s",
				  p->ext4.loc.file, p->ext4.loc.line, p->name, why);
	return 0;
}

/*
 * Partition @i of a size set in the layout was too small (@d holds what ran out): that, in
 * one line that names the size key and the size the entries need, found as size = auto finds
 * it (in units of the partition's align, at most 1 MiB). Where inodes is set, the size that holds them is not sought: a count of inodes too
 * small is not fixed by any size.
 */
static void too_small(struct build *b, size_t i, struct diag *d)
{
	const struct layout_partition *p = &b->l->parts[i];
	const struct layout_loc *loc = p->size_loc.file ? &p->size_loc : &p->loc;
	const char *why = d->n ? d->msgs[d->n - 1].text : "the entries do not fit";
	struct diag *keep = b->d, scratch;
	uint64_t need = 0;
	int rc = -ENOSPC;

	diag_init(&scratch);
	b->d = &scratch;
	if (!p->ext4.inodes_set)
		rc = build_measure_ext4(b, i, &need);
	if (rc == 0 && need <= build_region_of(b, i)->size)
		rc = -ENOSPC; /* a trial's count is no better than the build's */
	b->d = keep;
	diag_release(&scratch);
	char tail[200];
	/* the measure's unit is the partition's align up to 1 MiB, whole KiB at least: said
	 * as found, not rounded up to a MiB it does not need */
	if (rc == 0 && need % (1u << 20) == 0)
		snprintf(tail, sizeof(tail),
			 "partition '%s' needs size = %" PRIu64 "M or more (or "
			 "size = auto)",
			 p->name, need >> 20);
	else if (rc == 0)
		snprintf(tail, sizeof(tail),
			 "partition '%s' needs size = %" PRIu64 "K or more (or "
			 "size = auto)",
			 p->name, (need + 1023) >> 10);
	else
		snprintf(tail, sizeof(tail), "partition '%s' needs a larger size", p->name);
	if (!strncmp(why, loc->file, strlen(loc->file))) /* it names its entry's line */
		diag_error(b->d, "%s: %s", why, tail);
	else
		diag_error(b->d, "%s:%d: %s: %s", loc->file, loc->line, why, tail);
	diag_release(d);
}

/* What a partition's entries take beyond an empty volume: blocks and inodes. */
struct ext4_need {
	uint64_t blocks, inodes;
	uint64_t reserved_inodes; /* an empty volume's: the reserved ones, lost+found */
};

/* What a volume's entries took, from its usage when empty, with every entry in and with
 * its folders indexed: the most blocks it held past the empty volume's. */
static void need_of(const struct ext4_usage used[3], struct ext4_need *ret)
{
	uint64_t most = used[1].used_blocks > used[2].used_blocks ? used[1].used_blocks
								  : used[2].used_blocks;
	ret->blocks = most - used[0].used_blocks;
	ret->inodes = used[2].used_inodes - used[0].used_inodes;
	ret->reserved_inodes = used[0].used_inodes;
}

static int size_for(struct build *b, size_t i, const struct ext4_need *need, uint64_t *ret,
		    uint64_t *ret_inodes);

/* Whether measured sizes @a and @b of partition @i give it the same size in the plan. */
static bool same_partition(const struct build *b, size_t i, uint64_t a, uint64_t c)
{
	return plan_auto_size(&b->l->parts[i], a) == plan_auto_size(&b->l->parts[i], c);
}

/* Whether the volume @v of partition @i, which took @need, is as small as a volume with its
 * entries can be: what it took but for its extent tree blocks (the part a volume's layout
 * decides: a file's blocks after a run of zeros go elsewhere, and may lie in more runs), which
 * every volume takes, already needs a partition of its size. 1 it is, 0 it is not, or an
 * error. */
static int smallest_already(struct build *b, size_t i, struct ext4_volume *v,
			    const struct ext4_need *need)
{
	struct ext4_need least = *need;
	uint64_t tree_blocks, size, inodes;
	int rc = ext4_tree_blocks(v, &tree_blocks);

	if (rc < 0)
		return rc;
	least.blocks -= tree_blocks < least.blocks ? tree_blocks : least.blocks;
	rc = size_for(b, i, &least, &size, &inodes);
	if (rc < 0)
		return rc;
	return same_partition(b, i, size, b->part_sizes[i]) && inodes == b->parts[i].ext4_inodes;
}

/* Whether the volume @v of partition @i, whose size was counted (ext4_count.c), has the
 * size it needs: it took what a trial's volume takes (ext4_usage_holds(): @stretch, its
 * empty form's fewest free blocks between used ranges, and the trial's, kept when counted),
 * which is what the count said, or other blocks that need the same partition and inodes;
 * or, where it may not have (a file's zeros before more of its bytes), no smaller partition
 * could hold what it took (smallest_already()). 1 it has; 0 it has not, with how a build
 * again sizes it in b->ext4_redo[i]; or an error. */
static int count_held(struct build *b, size_t i, struct ext4_volume *v,
		      const struct ext4_usage used[3], uint64_t stretch)
{
	const struct part_state *ps = &b->parts[i];
	struct build_ext4_redo *redo = &b->ext4_redo[i];
	struct ext4_need need;
	uint64_t size, inodes;
	int rc;

	need_of(used, &need);
	if (ps->ext4_trial_stretch < stretch)
		stretch = ps->ext4_trial_stretch;
	if (!ext4_usage_holds(v, stretch)) {
		rc = smallest_already(b, i, v, &need);
		redo->trial = rc == 0;
		return rc;
	}
	if (need.blocks == ps->ext4_count_blocks &&
	    need.reserved_inodes + need.inodes == ps->ext4_count_inodes)
		return 1;
	/* zeros at the ends of files, which the count took as bytes */
	rc = size_for(b, i, &need, &size, &inodes);
	if (rc < 0)
		return rc;
	if (same_partition(b, i, size, b->part_sizes[i]) && inodes == ps->ext4_inodes)
		return 1;
	*redo = (struct build_ext4_redo){ .known = true,
					  .blocks = need.blocks,
					  .inodes = need.inodes,
					  .reserved_inodes = need.reserved_inodes };
	return 0;
}

int build_write_ext4(struct build *b, size_t i)
{
	const struct layout_partition *p = &b->l->parts[i];
	const struct plan_region *r = build_region_of(b, i);
	struct ext4_params params;
	struct ext4_volume *v;
	struct diag scratch;

	if (params_of(b, p, &params) < 0)
		return -EIO;
	if (!p->ext4.inodes_set && b->parts[i].ext4_inodes)
		params.inodes = b->parts[i].ext4_inodes;
	diag_init(&scratch);
	bool counted = b->parts[i].ext4_counted;
	struct ext4_usage used[3];
	uint64_t stretch = 0;
	int rc = fill_volume(b, p, &params, b->image.fd, r->start, r->size, &scratch,
			     counted ? used : NULL, counted ? &stretch : NULL, &v);
	int held = counted && rc == -ENOSPC ? 0
		   : counted && rc == 0     ? count_held(b, i, v, used, stretch)
					    : 1;
	if (held <= 0) {
		/* the count was not what the build took: the image is built again, this
		 * partition sized by a trial (which says nothing of this one), or by what it
		 * took */
		if (rc == 0)
			ext4_discard(v);
		diag_release(&scratch);
		if (held == 0 && rc == -ENOSPC)
			b->ext4_redo[i].trial = true;
		b->redo = held == 0;
		return held < 0 ? held : -EAGAIN;
	}
	if (rc == -ENOSPC && p->size_kind != LAYOUT_SIZE_AUTO)
		too_small(b, i, &scratch);
	else
		diag_take(b->d, &scratch);
	if (rc == -ENOSPC && p->size_kind == LAYOUT_SIZE_AUTO)
		diag_note(b->d,
			  "partition '%s': the files took more blocks than measured: give "
			  "it an 'extra'",
			  p->name);
	if (rc < 0)
		return rc;
	struct map_ctx mc = { b, r->start };
	rc = ext4_used_ranges(v, map_range, &mc);
	if (rc < 0) {
		ext4_discard(v);
		return rc;
	}
	return ext4_finish(v);
}

/* A scratch file of @size bytes of zeros (@fd, a memfd). */
static int scratch_of(struct build *b, const struct layout_partition *p, int fd, uint64_t size)
{
	if (ftruncate(fd, 0) < 0 || ftruncate(fd, (off_t)size) < 0)
		return diag_error(b->d, "measuring partition '%s': %s", p->name, strerror(errno));
	return 0;
}

/* The one trial: the entries built at @size in the scratch file @fd, taking the blocks the
 * build takes but writing nothing (ext4_params.measure), what they took in @ret: 0,
 * -ENOSPC (too small; its message kept in @d), or an error of the inputs (its messages in
 * b->d, said once, as a build would have said them). The blocks counted are the most the
 * volume held: after the last entry, or after the folders were indexed. */
static int trial(struct build *b, const struct layout_partition *p,
		 const struct ext4_params *params, int fd, uint64_t size, struct diag *d,
		 struct ext4_need *ret)
{
	struct ext4_volume *v = NULL;
	struct ext4_usage used[3];
	int rc = scratch_of(b, p, fd, size);

	if (rc < 0)
		return rc;
	rc = fill_volume(b, p, params, fd, 0, size, d, used, NULL, &v);
	ext4_discard(v);
	if (rc < 0 && rc != -ENOSPC)
		diag_take(b->d, d);
	if (rc < 0)
		return rc;
	need_of(used, ret);
	return 0;
}

/* Whether the empty volume of @size bytes with @params has @need free: 0 it has, -ENOSPC
 * it has not (or is too small for its own tables and journal), else an error. An empty
 * volume is cheap: its tables are placed in memory, its journal is not written. */
static int room_at(struct build *b, const struct layout_partition *p,
		   const struct ext4_params *params, int fd, uint64_t size,
		   const struct ext4_need *need)
{
	struct ext4_volume *v = NULL;
	struct ext4_usage u;
	struct diag scratch;
	int rc = scratch_of(b, p, fd, size);

	if (rc < 0)
		return rc;
	diag_init(&scratch);
	rc = ext4_create(fd, 0, size, params, b->o->output, &scratch, &v);
	if (rc == 0) {
		ext4_get_usage(v, &u);
		if (u.blocks - u.used_blocks < need->blocks ||
		    u.inodes - u.used_inodes < need->inodes)
			rc = -ENOSPC;
	}
	ext4_discard(v);
	if (rc < 0 && rc != -ENOSPC)
		diag_take(b->d, &scratch);
	diag_release(&scratch);
	return rc;
}

/* The smallest size in whole @unit whose empty volume has room for @need, sought as trial
 * builds sought it: doubling from 4 MiB, then halving the gap. */
static int smallest_room(struct build *b, const struct layout_partition *p,
			 const struct ext4_params *params, int fd, uint64_t unit,
			 const struct ext4_need *need, uint64_t *ret)
{
	uint64_t lo = 0, hi = ((4ull << 20) + unit - 1) / unit * unit;
	int rc;

	while ((rc = room_at(b, p, params, fd, hi, need)) == -ENOSPC && hi < LAYOUT_MAX_BYTES / 2) {
		lo = hi;
		hi *= 2;
	}
	while (rc == 0 && hi - lo > unit) {
		uint64_t mid = lo + (hi - lo) / unit / 2 * unit;
		int one = room_at(b, p, params, fd, mid, need);
		if (one == 0)
			hi = mid;
		else if (one == -ENOSPC)
			lo = mid;
		else
			rc = one;
	}
	*ret = hi;
	return rc;
}

/* The trial's volumes: large enough for most trees at the first, then larger. */
#define TRIAL_FIRST (16ull << 30)
#define TRIAL_LAST (4ull << 40)

/* Partition @i's need counted from its tree's walk (ext4_count.c) for the trial's volume of
 * @params in @fd: 0, 1 when the count does not serve it (a trial then finds the need), or
 * -EINTR, -ENOMEM. The empty trial volume gives the reserved inodes, the room the count
 * must fit (else the trial would take a larger volume) and its fewest free blocks between
 * used ranges, which bounds the files the count is sure of. */
static int count_need(struct build *b, size_t i, const struct ext4_params *params, int fd,
		      struct ext4_need *ret)
{
	struct part_state *ps = &b->parts[i];
	struct ext4_volume *v = NULL;
	struct ext4_count_sum sum;
	struct ext4_usage u;
	struct diag scratch;
	int rc;

	diag_init(&scratch);
	rc = ftruncate(fd, 0) < 0 || ftruncate(fd, (off_t)TRIAL_FIRST) < 0
		     ? -errno
		     : ext4_create(fd, 0, TRIAL_FIRST, params, b->o->output, &scratch, &v);
	diag_release(&scratch);
	if (rc < 0)
		return 1;
	ext4_get_usage(v, &u);
	uint64_t stretch = ext4_free_stretch(v);
	if ((rc = build_count_ext4(b, i, params, &build_ext4_caps, stretch, &sum)) != 0) {
		ext4_discard(v);
		return rc;
	}
	/* where the count is not sure of every extent tree block, the most a volume takes
	 * (the build then checks that no smaller partition holds what it took) */
	uint64_t blocks = sum.sure ? sum.blocks : sum.most;
	/* room to spare: what a trial holds for a moment while it indexes folders; and every
	 * inode in the trial volume's first flex group, as ext4_usage_holds() asks */
	if (u.blocks - u.used_blocks < blocks + 1024 ||
	    u.used_inodes + sum.inodes > ext4_flex_inodes(v))
		rc = 1;
	ext4_discard(v);
	if (rc)
		return rc;
	*ret = (struct ext4_need){ blocks, sum.inodes, u.used_inodes };
	ps->ext4_trial_stretch = stretch;
	ps->ext4_count_blocks = blocks;
	ps->ext4_count_inodes = u.used_inodes + sum.inodes;
	return 0;
}

/* The inodes of a size = auto volume without a set count: those the entries take, a
 * quarter more, and one per 16 KiB of its `extra` (LAYOUT.md), over the reserved ones. */
static uint64_t inodes_for(const struct layout_partition *p, uint64_t reserved, uint64_t taken)
{
	return reserved + taken + taken / 4 + p->extra / 16384;
}

/* The scratch file a measure of partition @p works in (a memfd), and its volumes' @params:
 * the descriptor, or a negative errno (told). */
static int measure_start(struct build *b, const struct layout_partition *p,
			 struct ext4_params *params)
{
	int fd = memfd_create("sdimg-ext4-measure", MFD_CLOEXEC);

	if (fd < 0)
		return diag_error(b->d, "measuring partition '%s': %s", p->name, strerror(errno));
	if (params_of(b, p, params) < 0) {
		close(fd);
		return -EIO;
	}
	return fd;
}

int build_measure_ext4(struct build *b, size_t i, uint64_t *ret)
{
	const struct layout_partition *p = &b->l->parts[i];
	bool own_inodes = p->size_kind == LAYOUT_SIZE_AUTO && !p->ext4.inodes_set;
	struct ext4_params params;
	struct ext4_need need = { 0, 0, 0 };
	struct diag scratch;
	uint64_t size = TRIAL_FIRST;
	int rc, fd = measure_start(b, p, &params);

	if (fd < 0)
		return fd;
	params.measure = true;
	/* what a build before took, where it could say it; else counted from the tree's walk
	 * where the count serves it, the build checking it; else one build of the entries, in
	 * a volume larger than they need, counts what they take */
	const struct build_ext4_redo *redo = b->ext4_redo ? &b->ext4_redo[i] : NULL;
	if (redo && redo->known) {
		need = (struct ext4_need){ redo->blocks, redo->inodes, redo->reserved_inodes };
		rc = 0;
	} else {
		rc = own_inodes && redo && !redo->trial ? count_need(b, i, &params, fd, &need) : 1;
		b->parts[i].ext4_counted = rc == 0;
	}
	diag_init(&scratch);
	while (rc == 1 && (rc = trial(b, p, &params, fd, size, &scratch, &need)) == -ENOSPC &&
	       size < TRIAL_LAST) {
		diag_release(&scratch);
		diag_init(&scratch);
		size *= 16;
		rc = 1;
	}
	if (rc == -ENOSPC)
		diag_take(b->d, &scratch);
	diag_release(&scratch);
	params.measure = false;
	/* a set count is kept: a larger volume would round its inode tables up to hold them,
	 * a silent fix-up of a size no one asked for */
	if (rc == 0 && p->ext4.inodes_set && need.reserved_inodes + need.inodes > p->ext4.inodes)
		rc = diag_error(b->d,
				"%s:%d: partition '%s': its files take %" PRIu64
				" inodes, more than inodes = %" PRIu64 " (raise it, or leave it "
				"out: size = auto then counts them)",
				p->ext4.loc.file, p->ext4.loc.line, p->name,
				need.reserved_inodes + need.inodes, p->ext4.inodes);
	close(fd);
	return rc == 0 ? size_for(b, i, &need, ret, &b->parts[i].ext4_inodes) : rc;
}

/* The size partition @i has for its entries' @need (in units of its align, at most 1 MiB),
 * and its inode count (0: the layout's, or the default). */
static int size_for(struct build *b, size_t i, const struct ext4_need *need, uint64_t *ret,
		    uint64_t *ret_inodes)
{
	const struct layout_partition *p = &b->l->parts[i];
	struct ext4_params params;
	uint64_t bs, unit;
	int rc, fd = measure_start(b, p, &params);

	if (fd < 0)
		return fd;
	bs = params.block_size;
	/* sizes sought in whole units: the partition's align, from one block up to 1 MiB */
	unit = p->align < bs           ? bs
	       : p->align > (1u << 20) ? 1u << 20
				       : (p->align + bs - 1) / bs * bs;
	*ret_inodes = 0;
	if (p->size_kind == LAYOUT_SIZE_AUTO && !p->ext4.inodes_set)
		*ret_inodes = params.inodes = inodes_for(p, need->reserved_inodes, need->inodes);
	/* the smallest empty volume with room for that */
	rc = smallest_room(b, p, &params, fd, unit, need, ret);
	close(fd);
	return rc;
}
