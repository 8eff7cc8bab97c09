/* SPDX-License-Identifier: MIT */
/*
 * exfat/readpath: paths of an opened volume: lookup (names compared through the volume's own
 * up-case table, §7.2), listing a folder by path and reading a file's bytes (a contiguous run
 * for NoFatChain, §7.6.2, else its FAT chain; bytes past ValidDataLength read as zeros,
 * §7.6.5). Every cluster number and length is checked before a byte is read.
 */
#include "exfat/read_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"

/* How deep exfat_vol_read()'s check of the whole volume follows folders (a path of 2048
 * folders is already past what Linux's PATH_MAX of 4096 bytes lets a program open). */
#define EXFAT_CHECK_DEPTH_MAX 2048u

int exfat_rd_dir_extent(const struct exfat_vol *v, const struct exfat_dirent *e, const char *path,
			struct exfat_extent *ret, struct diag *d)
{
	uint64_t cs = v->info.cluster_size;

	if (!(e->attrs & EXFAT_ATTR_DIRECTORY))
		return diag_errno(d, -ENOTDIR, "%s: not a directory", path);
	if (!e->size || !exfat_rd_valid_cluster(v, e->first_cluster))
		return diag_error(d,
				  "%s: a directory of %" PRIu64 " bytes at cluster %" PRIu32
				  ": a directory has clusters inside the heap's 2..%" PRIu64,
				  path, e->size, e->first_cluster, (uint64_t)v->info.clusters + 1);
	if (e->size > EXFAT_DIR_BYTES_MAX)
		return diag_error(d,
				  "%s: a directory of %" PRIu64
				  " bytes: at most 256 MiB (8,388,608 "
				  "entries)",
				  path, e->size);
	*ret = (struct exfat_extent){ .first = e->first_cluster,
				      .contiguous = e->contiguous,
				      .clusters = (e->size + cs - 1) / cs };
	/* a run is checked whole: the entries of its first cluster may end it early */
	if (e->contiguous && ret->clusters > (uint64_t)v->info.clusters + 2 - e->first_cluster)
		return diag_error(d,
				  "%s: a directory of %" PRIu64 " clusters from cluster %" PRIu32
				  " runs past the heap's last cluster %" PRIu64,
				  path, ret->clusters, e->first_cluster,
				  (uint64_t)v->info.clusters + 1);
	return 0;
}

struct exfat_extent exfat_rd_file_extent(const struct exfat_vol *v, const struct exfat_dirent *e)
{
	uint64_t cs = v->info.cluster_size;

	return (struct exfat_extent){ .first = e->first_cluster,
				      .contiguous = e->contiguous,
				      .clusters = e->size / cs + (e->size % cs != 0) };
}

int exfat_rd_claim(struct exfat_vol *v, const struct exfat_extent *x, uint8_t *seen,
		   const char *path, struct diag *d)
{
	struct exfat_chain ch;
	uint32_t c;
	int r;

	if (!x->clusters)
		return 0;
	/* each cluster is checked: a run past the heap ends at its first one outside */
	exfat_rd_chain_init(&ch, x, seen, path, x->clusters);
	while ((r = exfat_rd_chain_next(v, &ch, &c, d)) > 0)
		;
	return r;
}

struct find {
	const struct exfat_vol *v;
	uint16_t want[EXFAT_NAME_MAX]; /* up-cased */
	unsigned n;
	struct exfat_rd_entry found;
};

static int match(void *ctx, const struct exfat_rd_entry *e)
{
	struct find *f = ctx;

	if (e->name_len != f->n)
		return 0;
	for (unsigned k = 0; k < f->n; k++)
		if (f->v->upcase[e->name[k]] != f->want[k])
			return 0;
	f->found = *e;
	return 1;
}

int exfat_rd_lookup(struct exfat_vol *v, const char *path, struct exfat_rd_entry *ret,
		    struct diag *d)
{
	struct find *f = malloc(sizeof(*f));
	struct exfat_extent dir = exfat_rd_root(v);
	const char *p = path;
	char comp[EXFAT_NAME_MAX * 4 + 1];
	int r = 0;

	if (!f)
		return diag_errno(d, -ENOMEM, "%s: out of memory", path);
	memset(ret, 0, sizeof(*ret));
	ret->e.attrs = EXFAT_ATTR_DIRECTORY;
	f->v = v;
	for (;;) {
		size_t len;
		int n;
		while (*p == '/')
			p++;
		if (!*p)
			break;
		len = strcspn(p, "/");
		if (!(ret->e.attrs & EXFAT_ATTR_DIRECTORY)) {
			r = diag_errno(d, -ENOTDIR, "%s: %s is not a directory", path, ret->e.name);
			break;
		}
		if (p != path + strspn(path, "/") &&
		    (r = exfat_rd_dir_extent(v, &ret->e, path, &dir, d)))
			break;
		n = len < sizeof(comp) ? (memcpy(comp, p, len), comp[len] = 0,
					  utf8_to_utf16(comp, f->want, EXFAT_NAME_MAX))
				       : -1;
		if (n <= 0) {
			r = diag_errno(d, -ENOENT, "%s: no such file or directory", path);
			break;
		}
		f->n = (unsigned)n;
		for (unsigned k = 0; k < f->n; k++)
			f->want[k] = v->upcase[f->want[k]];
		r = exfat_rd_list(v, &dir, NULL, path, match, f, d);
		if (r < 0)
			break;
		if (!r) {
			r = diag_errno(d, -ENOENT, "%s: no such file or directory", path);
			break;
		}
		r = 0;
		*ret = f->found;
		p += len;
	}
	free(f);
	return r;
}

int exfat_rd_lookup_dir(struct exfat_vol *v, const char *path, struct exfat_extent *ret,
			struct diag *d)
{
	struct exfat_rd_entry *e = malloc(sizeof(*e));
	int r = e ? exfat_rd_lookup(v, path, e, d) : diag_errno(d, -ENOMEM, "out of memory");

	if (!r && !path[strspn(path, "/")])
		*ret = exfat_rd_root(v);
	else if (!r)
		r = exfat_rd_dir_extent(v, &e->e, path, ret, d);
	free(e);
	return r;
}

struct public_list {
	int (*fn)(void *ctx, const struct exfat_dirent *e);
	void *ctx;
};

static int to_public(void *ctx, const struct exfat_rd_entry *e)
{
	struct public_list *p = ctx;

	return p->fn(p->ctx, &e->e);
}

int exfat_vol_list(struct exfat_vol *v, const char *path,
		   int (*fn)(void *ctx, const struct exfat_dirent *e), void *ctx, struct diag *d)
{
	struct public_list p = { fn, ctx };
	struct exfat_extent dir;
	int r = exfat_rd_lookup_dir(v, path, &dir, d);

	return r ? r : exfat_rd_list(v, &dir, NULL, path, to_public, &p, d);
}

/* Streams the bytes of @f (its extent @x) to @fn, a cluster at a time; what lies past its
 * ValidDataLength is zeros, not read. */
static int stream(struct exfat_vol *v, const char *path, const struct exfat_dirent *f,
		  const struct exfat_extent *x, uint8_t *seen,
		  int (*fn)(void *ctx, const void *buf, size_t len), void *ctx, struct diag *d)
{
	uint64_t cs = v->info.cluster_size, done = 0;
	struct exfat_chain ch;
	uint32_t c;
	int r;

	exfat_rd_chain_init(&ch, x, seen, path, x->clusters);
	while (done < f->size && (r = exfat_rd_chain_next(v, &ch, &c, d)) > 0) {
		size_t len = (size_t)(f->size - done < cs ? f->size - done : cs);
		size_t real = f->valid_size <= done ? 0
			      : f->valid_size - done < (uint64_t)len
				      ? (size_t)(f->valid_size - done)
				      : len;
		if (real && (r = exfat_rd_pread(v, v->cbuf, real, exfat_rd_cluster_off(v, c), d)))
			return r;
		memset(v->cbuf + real, 0, len - real);
		if ((r = fn(ctx, v->cbuf, len)))
			return r;
		done += len;
	}
	return done < f->size ? r : 0;
}

/* Walks the whole volume, every cluster of every file and folder claimed once. */
static int check_links(struct exfat_vol *v, struct diag *d)
{
	static const struct exfat_walk_fns none = { 0 };

	return exfat_vol_walk(v, "/", EXFAT_CHECK_DEPTH_MAX, &none, NULL, d);
}

int exfat_vol_read(struct exfat_vol *v, const char *path,
		   int (*fn)(void *ctx, const void *buf, size_t len), void *ctx, struct diag *d)
{
	struct exfat_rd_entry *e = malloc(sizeof(*e));
	uint64_t cs = v->info.cluster_size;
	struct exfat_extent x;
	uint8_t *seen = NULL;
	int r = e ? exfat_rd_lookup(v, path, e, d) : diag_errno(d, -ENOMEM, "out of memory");

	if (r)
		goto out;
	if (e->e.attrs & EXFAT_ATTR_DIRECTORY) {
		r = diag_errno(d, -EISDIR, "%s: is a directory", path);
		goto out;
	}
	x = exfat_rd_file_extent(v, &e->e);
	if (e->e.size / cs > v->info.clusters) {
		r = diag_error(d,
			       "%s: its size (%" PRIu64
			       " bytes) is larger than the volume's heap (%" PRIu32
			       " clusters of %" PRIu32 " bytes)",
			       path, e->e.size, v->info.clusters, v->info.cluster_size);
		goto out;
	}
	if (e->e.size && !x.contiguous && !(seen = exfat_rd_seen_new(v))) {
		r = diag_errno(d, -ENOMEM, "%s: out of memory", path);
		goto out;
	}
	/* every file and folder's clusters first, so that a file sharing its clusters with
	 * another is refused before a byte of it is given out */
	if (e->e.size)
		r = check_links(v, d);
	if (!r && e->e.size)
		r = stream(v, path, &e->e, &x, seen, fn, ctx, d);
out:
	free(seen);
	free(e);
	return r;
}
