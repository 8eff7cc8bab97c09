/* SPDX-License-Identifier: MIT */
/*
 * fat/readdir: directories of an opened volume: walking entries (bounded: a directory holds
 * at most 65,536 entries), reassembling long names (ordinals and checksum checked), path
 * lookup and reading files along their cluster chains.
 */
#include "fat/read_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/utf8.h"
#include "fat/ondisk.h"

#define DIR_BYTES_MAX (65536u * FAT_DIRENT_SIZE)
#define LFN_ENTRIES_MAX 20

/* Calls @fn for each raw 32-byte entry up to the end marker; @fn returns 0 to go on. */
typedef int (*raw_fn)(void *ctx, const uint8_t *e);

/* Walks the entries in @len bytes at volume byte @off (one cluster or root sector), read into
 * @blk: a buffer of this walk's own, so that @fn may list or read the volume again. */
static int walk_block(struct fat_vol *v, uint8_t *blk, uint64_t off, size_t len, raw_fn fn,
		      void *ctx, bool *end, struct diag *d)
{
	int r = fat_rd_pread(v, blk, len, off, d);

	for (size_t i = 0; !r && i < len; i += FAT_DIRENT_SIZE) {
		if (blk[i + DIR_NAME] == DIR_NAME_END) {
			*end = true;
			return 0;
		}
		r = fn(ctx, blk + i);
	}
	return r;
}

/* Walks the directory at cluster @first (0: the root). @seen (or NULL) has a bit per cluster:
 * a cluster already marked in it is an error (shared by two folders, or a loop), and each
 * cluster walked is marked. @path (or NULL) names the directory in messages. */
static int walk_dir(struct fat_vol *v, uint32_t first, uint8_t *seen, const char *path, raw_fn fn,
		    void *ctx, struct diag *d)
{
	const char *pre = path ? path : "", *sep = path ? ": " : "";
	uint32_t steps = DIR_BYTES_MAX / v->info.cluster_size + 1, c = first;
	uint8_t *blk = malloc(v->info.cluster_size);
	bool end = false;
	int r = blk ? 0 : -ENOMEM;

	if (!first && v->info.type != FAT_32) { /* the fixed FAT12/16 root directory */
		uint64_t len = (uint64_t)v->info.root_entries * FAT_DIRENT_SIZE;
		for (uint64_t o = 0; o < len && !r && !end; o += FAT_SECTOR)
			r = walk_block(v, blk, v->root_off + o,
				       len - o < FAT_SECTOR ? len - o : FAT_SECTOR, fn, ctx, &end,
				       d);
		goto out;
	}
	if (!first)
		c = v->root_cluster;
	while (!r && !end) {
		if (!fat_rd_valid_cluster(v, c)) {
			r = diag_error(d,
				       "%s%sa directory's cluster chain leads to cluster %" PRIu32
				       ", outside 2..%" PRIu32,
				       pre, sep, c, v->info.clusters + 1);
			break;
		}
		if (!steps--) {
			r = diag_error(d,
				       "%s%sa directory is longer than 65536 entries (its cluster "
				       "chain loops?)",
				       pre, sep);
			break;
		}
		if (seen && fat_rd_seen_before(seen, c)) {
			r = diag_error(d,
				       "%s%sits cluster %" PRIu32 " is also another folder's, or "
				       "its own (folders that share clusters or loop)",
				       pre, sep, c);
			break;
		}
		r = walk_block(v, blk, fat_rd_cluster_off(v, c), v->info.cluster_size, fn, ctx,
			       &end, d);
		if (!r && !end)
			r = fat_rd_next(v, c, &c, d);
		if (!r && fat_rd_end(v, c))
			break;
	}
out:
	free(blk);
	return r;
}

/* Long-name reassembly state between the LFN entries and their short entry. */
struct lfn_state {
	uint16_t u[LFN_ENTRIES_MAX * FAT_LFN_UNITS];
	int count, expect; /* expect: the ordinal still missing (0: complete) */
	uint8_t sum;
	bool on;
};

static void lfn_add(struct lfn_state *l, const uint8_t *e)
{
	int ord = e[LDIR_ORD] & FAT_LFN_ORD_MASK;

	if (e[LDIR_ORD] & FAT_LFN_LAST) {
		l->on = ord >= 1 && ord <= LFN_ENTRIES_MAX;
		l->count = l->expect = ord;
		l->sum = e[LDIR_CHKSUM];
	} else if (!l->on || !l->expect || ord != l->expect || e[LDIR_CHKSUM] != l->sum) {
		/* a name already complete (expect 0) takes no more entries: an ordinal 0 after
		 * ordinal 1 would index before the buffer */
		l->on = false;
	}
	if (!l->on)
		return;
	for (unsigned j = 0; j < FAT_LFN_UNITS; j++)
		l->u[(unsigned)(ord - 1) * FAT_LFN_UNITS + j] = get_le16(e +
									 fat_lfn_unit_offset(j));
	l->expect = ord - 1;
}

/* "NAME.EXT" of a short entry; @display applies the NT lower-case flags. */
static void short_name(const uint8_t *e, char *out, bool display)
{
	size_t o = 0;

	for (int i = 0; i < DIR_NAME_LEN; i++) {
		uint8_t c = i == 0 && e[DIR_NAME] == DIR_NAME_KANJI ? DIR_NAME_FREE
								    : e[DIR_NAME + i];
		bool lower = display &&
			     (e[DIR_NTRES] & (i < 8 ? FAT_NTRES_LOWER_BASE : FAT_NTRES_LOWER_EXT));
		if (i == 8 && e[DIR_NAME + 8] != ' ')
			out[o++] = '.';
		if (c == ' ')
			continue;
		if (c < 0x20 || c >= 0x7F)
			c = '?';
		out[o++] = (char)(lower && c >= 'A' && c <= 'Z' ? c + 32 : c);
	}
	out[o] = 0;
}

static void cook_entry(const struct fat_vol *v, struct lfn_state *l, const uint8_t *e,
		       struct fat_dirent *de)
{
	int n = 0;

	short_name(e, de->short_name, false);
	de->attrs = e[DIR_ATTR];
	de->size = get_le32(e + DIR_FILESIZE);
	de->first_cluster = get_le16(e + DIR_FSTCLUSLO) |
			    (v->info.type == FAT_32 ? (uint32_t)get_le16(e + DIR_FSTCLUSHI) << 16
						    : 0);
	de->mtime = fat_dos_time_decode(get_le16(e + DIR_WRTDATE), get_le16(e + DIR_WRTTIME));
	if (l->on && l->expect == 0 && fat_lfn_checksum(e) == l->sum) {
		while (n < l->count * FAT_LFN_UNITS && l->u[n])
			n++;
		if (n && utf8_from_utf16(l->u, (size_t)n, de->name, sizeof(de->name)) > 0)
			return;
	}
	short_name(e, de->name, true);
}

struct cooked {
	struct fat_vol *v;
	struct lfn_state l;
	int (*fn)(void *ctx, const struct fat_dirent *e);
	void *ctx;
};

static int cook(void *ctx, const uint8_t *e)
{
	struct cooked *w = ctx;
	struct fat_dirent de;

	if (e[DIR_NAME] != DIR_NAME_FREE &&
	    (e[DIR_ATTR] & FAT_ATTR_LONG_NAME_MASK) == FAT_ATTR_LONG_NAME) {
		lfn_add(&w->l, e);
		return 0;
	}
	if (e[DIR_NAME] == DIR_NAME_FREE || (e[DIR_ATTR] & FAT_ATTR_VOLUME) || e[DIR_NAME] == '.') {
		w->l.on = false;
		return 0;
	}
	cook_entry(w->v, &w->l, e, &de);
	w->l.on = false;
	return w->fn(w->ctx, &de);
}

int fat_rd_list(struct fat_vol *v, uint32_t first, uint8_t *seen, const char *path,
		int (*fn)(void *ctx, const struct fat_dirent *e), void *ctx, struct diag *d)
{
	struct cooked w = { .v = v, .fn = fn, .ctx = ctx };

	return walk_dir(v, first, seen, path, cook, &w, d);
}

/* Upper-cased UTF-16 of a UTF-8 name, for comparisons; returns the length or < 0. */
static int folded(const char *s, uint16_t *u)
{
	int n = utf8_to_utf16(s, u, FAT_LFN_MAX + 1);

	for (int i = 0; i < n; i++)
		u[i] = fat_upcase(u[i]);
	return n;
}

struct find {
	uint16_t want[FAT_LFN_MAX + 1];
	int n;
	struct fat_dirent found;
};

static int match(void *ctx, const struct fat_dirent *e)
{
	struct find *f = ctx;
	uint16_t u[FAT_LFN_MAX + 1];
	int n = folded(e->name, u);

	if ((n == f->n && !memcmp(u, f->want, (size_t)n * 2)) ||
	    ((n = folded(e->short_name, u)) == f->n && !memcmp(u, f->want, (size_t)n * 2))) {
		f->found = *e;
		return 1;
	}
	return 0;
}

int fat_rd_lookup(struct fat_vol *v, const char *path, struct fat_dirent *ret, struct diag *d)
{
	struct find f;
	const char *p = path;
	char comp[1024];

	memset(ret, 0, sizeof(*ret));
	ret->attrs = FAT_ATTR_DIR;
	for (;;) {
		size_t len;
		int r;
		while (*p == '/')
			p++;
		if (!*p)
			return 0;
		len = strcspn(p, "/");
		if (!(ret->attrs & FAT_ATTR_DIR))
			return diag_errno(d, -ENOTDIR, "%s: %s is not a directory", path,
					  ret->name);
		if (len >= sizeof(comp) ||
		    (f.n = (memcpy(comp, p, len), comp[len] = 0, folded(comp, f.want))) <= 0)
			return diag_errno(d, -ENOENT, "%s: no such file or directory", path);
		if (ret->first_cluster == 0 && p != path + strspn(path, "/"))
			return diag_error(d, "%s: a directory without a cluster", path);
		r = fat_rd_list(v, ret->first_cluster, NULL, path, match, &f, d);
		if (r < 0)
			return r;
		if (!r)
			return diag_errno(d, -ENOENT, "%s: no such file or directory", path);
		*ret = f.found;
		p += len;
	}
}

int fat_vol_list(struct fat_vol *v, const char *path,
		 int (*fn)(void *ctx, const struct fat_dirent *e), void *ctx, struct diag *d)
{
	struct fat_dirent dir;
	int r = fat_rd_lookup_dir(v, path, &dir, d);

	return r ? r : fat_rd_list(v, dir.first_cluster, NULL, path, fn, ctx, d);
}

int fat_rd_lookup_dir(struct fat_vol *v, const char *path, struct fat_dirent *ret, struct diag *d)
{
	int r = fat_rd_lookup(v, path, ret, d);

	if (r)
		return r;
	if (!(ret->attrs & FAT_ATTR_DIR))
		return diag_errno(d, -ENOTDIR, "%s: not a directory", path);
	if (!ret->first_cluster && path[strspn(path, "/")])
		return diag_error(d, "%s: a directory without a cluster", path);
	return 0;
}

uint8_t *fat_rd_seen_new(const struct fat_vol *v)
{
	/* calloc'd pages stay untouched except where the walk goes */
	return calloc(((size_t)v->info.clusters + 2) / 8 + 1, 1);
}

bool fat_rd_seen_before(uint8_t *seen, uint32_t c)
{
	uint8_t bit = (uint8_t)(1u << (c % 8));
	bool was = seen[c / 8] & bit;

	seen[c / 8] |= bit;
	return was;
}

/* Streams the @size bytes of the chain from @c to @fn; a chain that loops, leaves the data
 * area or ends early is an error naming @path. @seen has a bit per cluster. */
static int stream_chain(struct fat_vol *v, const char *path, uint32_t c, uint32_t size,
			uint8_t *seen, int (*fn)(void *ctx, const void *buf, size_t len), void *ctx,
			struct diag *d)
{
	for (uint32_t left = size; left;) {
		size_t len = left < v->info.cluster_size ? left : v->info.cluster_size;
		int r;
		if (!fat_rd_valid_cluster(v, c))
			return diag_error(d,
					  "%s: cluster chain leads to cluster %" PRIu32
					  " after %" PRIu32 " of %" PRIu32 " bytes",
					  path, c, size - left, size);
		if (fat_rd_seen_before(seen, c))
			return diag_error(d,
					  "%s: cluster chain loops back to cluster %" PRIu32
					  " after %" PRIu32 " of %" PRIu32 " bytes",
					  path, c, size - left, size);
		r = fat_rd_pread(v, v->cbuf, len, fat_rd_cluster_off(v, c), d);
		if (!r)
			r = fn(ctx, v->cbuf, len);
		if (r)
			return r;
		left -= (uint32_t)len;
		if (left && (r = fat_rd_next(v, c, &c, d)))
			return r;
		if (left && fat_rd_end(v, c))
			return diag_error(d,
					  "%s: cluster chain ends after %" PRIu32 " of %" PRIu32
					  " bytes",
					  path, size - left, size);
	}
	return 0;
}

int fat_vol_read(struct fat_vol *v, const char *path,
		 int (*fn)(void *ctx, const void *buf, size_t len), void *ctx, struct diag *d)
{
	struct fat_dirent f;
	uint8_t *seen;
	int r = fat_rd_lookup(v, path, &f, d);

	if (r)
		return r;
	if (f.attrs & FAT_ATTR_DIR)
		return diag_errno(d, -EISDIR, "%s: is a directory", path);
	if (f.size / v->info.cluster_size > v->info.clusters)
		return diag_error(d,
				  "%s: its size (%" PRIu32 " bytes) is larger than the volume's "
				  "data area (%" PRIu32 " clusters of %" PRIu32 " bytes)",
				  path, f.size, v->info.clusters, v->info.cluster_size);
	seen = fat_rd_seen_new(v);
	if (!seen)
		return diag_errno(d, -ENOMEM, "%s: out of memory", path);
	r = stream_chain(v, path, f.first_cluster, f.size, seen, fn, ctx, d);
	free(seen);
	return r;
}
