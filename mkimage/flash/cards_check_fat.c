/* SPDX-License-Identifier: MIT */
/*
 * cards_check_fat: a fat-file of a per-card manifest against the FAT volume it names (see
 * flash_priv.h), for cards_check.c: the volume's geometry puts its FATs, clusters, entry and
 * FSInfo sectors where the manifest says, each entry is the one its path names, and the
 * image holds what a card with the template as its content would.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/bytes.h"
#include "fat/fat.h"
#include "mkimage/flash/flash_priv.h"

/* FSInfo (fatgen103 §5): FSI_LeadSig "RRaA" at 0, FSI_StrucSig "rrAa" at 484 */
#define FSI_STRUCSIG 484
#define DIR_ENTRY 32u /* a directory entry (§6) */
#define DIR_ATTR_DIR_OR_LABEL 0x18

/* "NAME.EXT" of the short directory entry @e, as the reader names it. */
static void short_name(const uint8_t *e, char out[13])
{
	size_t o = 0;

	for (int i = 0; i < 11; i++) {
		if (i == 8 && e[8] != ' ')
			out[o++] = '.';
		if (e[i] != ' ')
			out[o++] = (char)e[i];
	}
	out[o] = '\0';
}

/* ---------------------------------------------------------------- names */

#define NAMES_DEPTH_MAX 64u /* as deep as the builder nests folders */

/* A per-card file sought among its volume's entries by its path: the keys (fat_path_key())
 * of its folder and of its name, and the first entry of that name in that folder. */
struct sought {
	uint64_t volume;
	char *folder, *name; /* owned */
	size_t file;         /* its index in the manifest */
	bool found;
	struct fat_dirent_id {
		char short_name[13];
		uint32_t first_cluster, size;
	} entry;
};

/* By volume, folder and name: each folder's files together, found by halving. */
static int cmp_sought(const void *a, const void *b)
{
	const struct sought *x = a, *y = b;
	int r;

	if (x->volume != y->volume)
		return x->volume < y->volume ? -1 : 1;
	if ((r = strcmp(x->folder, y->folder)) != 0 || (r = strcmp(x->name, y->name)) != 0)
		return r;
	return (x->file > y->file) - (x->file < y->file);
}

static int cmp_sought_file(const void *a, const void *b)
{
	const struct sought *x = a, *y = b;

	return (x->file > y->file) - (x->file < y->file);
}

/* One volume's walk: its sought files (v, n, sorted), the key of the folder being listed. */
struct names_walk {
	struct sought *v;
	size_t n;
	char *folder;
};

static int walk_folder(void *ctx, const char *path)
{
	struct names_walk *w = ctx;

	free(w->folder);
	w->folder = fat_path_key(path);
	return w->folder ? 0 : -ENOMEM;
}

/* The files sought in the folder being listed by the name @key take @e, unless an earlier
 * entry was theirs. */
static void take_entry(struct names_walk *w, const char *key, const struct fat_dirent *e)
{
	size_t lo = 0, hi = w->n;

	while (lo < hi) { /* the first (folder, name) not below the one listed */
		size_t mid = lo + (hi - lo) / 2;
		int r = strcmp(w->v[mid].folder, w->folder);
		if ((r ? r : strcmp(w->v[mid].name, key)) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < w->n && strcmp(w->v[lo].folder, w->folder) == 0 &&
	       strcmp(w->v[lo].name, key) == 0;
	     lo++)
		if (!w->v[lo].found) {
			struct fat_dirent_id *id = &w->v[lo].entry;
			snprintf(id->short_name, sizeof(id->short_name), "%s", e->short_name);
			id->first_cluster = e->first_cluster;
			id->size = e->size;
			w->v[lo].found = true;
		}
}

/* An entry of the folder being listed, matched by its long and its short name. */
static int walk_entry(void *ctx, const struct fat_dirent *e)
{
	char *a = fat_path_key(e->name), *b = fat_path_key(e->short_name);

	if (a && b) {
		take_entry(ctx, a, e);
		take_entry(ctx, b, e);
	}
	free(a);
	free(b);
	return a && b ? 0 : -ENOMEM;
}

/* The files of v[0..n) (one volume's) found in one walk over its folders. */
static int find_in_volume(const struct flash_checker *c, struct sought *v, size_t n)
{
	const struct cards_file *f = &c->m->files[v[0].file];
	static const struct fat_walk_fns fns = { .folder = walk_folder, .entry = walk_entry };
	struct names_walk w = { .v = v, .n = n, .folder = fat_path_key("/") };
	struct diag scratch;
	struct flash_fat_volume vol;
	char what[160];
	int rc;

	snprintf(what, sizeof(what), "%s:%s", f->partition, f->path);
	if (!w.folder)
		return -ENOMEM;
	if ((rc = flash_check_fat_open(c, what, f->volume, &vol)) == 0) {
		diag_init(&scratch);
		/* a folder the walk cannot list leaves its files unfound: refused by the caller */
		if (fat_vol_walk(vol.v, "/", NAMES_DEPTH_MAX, &fns, &w, &scratch) == -ENOMEM)
			rc = -ENOMEM;
		diag_release(&scratch);
	}
	fat_vol_close(vol.v);
	free(w.folder);
	return rc;
}

/* The entry at f->entry is the one the volume finds at f->path (@s: what it found there):
 * its short name, first cluster and size. */
static int check_entry_name(const struct flash_checker *c, const struct cards_file *f,
			    const struct sought *s)
{
	uint8_t e[DIR_ENTRY];
	char what[160], raw[13];
	int rc = flash_check_read_at(c, e, sizeof(e), f->entry);

	if (rc < 0)
		return rc;
	snprintf(what, sizeof(what), "%s:%s", f->partition, f->path);
	short_name(e, raw);
	if (!s->found)
		return flash_refuse(c, what, "the volume has no file at this path");
	/* DIR_FstClusLO, and DIR_FstClusHI on FAT32 (fatgen103 §6) */
	uint32_t first = get_le16(e + 26) |
			 (f->fat_type == (unsigned)FAT_32 ? (uint32_t)get_le16(e + 20) << 16 : 0u);
	if (strcmp(s->entry.short_name, raw) != 0 || s->entry.first_cluster != first ||
	    s->entry.size != get_le32(e + 28))
		return flash_refuse(c, what,
				    "the directory entry at byte %" PRIu64 " (%s) is not the "
				    "file's (%s)",
				    f->entry, raw, s->entry.short_name);
	return 0;
}

/* Each per-card FAT file's path finds, in its volume, its directory entry (its short name,
 * first cluster and size): one walk over each volume's folders for all of them (an exFAT
 * file's path is checked with its entry set, cards_check_exfat.c). */
int flash_check_fat_names(const struct flash_checker *c)
{
	const struct cards_manifest *m = c->m;
	struct sought *v = calloc(m->n_files + 1, sizeof(*v));
	size_t n = 0;
	int rc = v ? 0 : -ENOMEM;

	for (size_t i = 0; rc == 0 && i < m->n_files; i++) {
		const struct cards_file *f = &m->files[i];
		const char *slash = strrchr(f->path, '/');
		if (f->kind != CARDS_FAT_FILE)
			continue;
		char *folder = slash ? strndup(f->path, (size_t)(slash - f->path)) : NULL;
		v[n] = (struct sought){ .volume = f->volume,
					.file = i,
					.folder = folder ? fat_path_key(*folder ? folder : "/")
							 : NULL,
					.name = fat_path_key(slash ? slash + 1 : f->path) };
		free(folder);
		if (!slash) {
			char what[160];
			snprintf(what, sizeof(what), "%s:%s", f->partition, f->path);
			rc = flash_refuse(c, what, "the path does not start with /");
		} else if (!v[n].folder || !v[n].name) {
			rc = -ENOMEM;
		}
		n++;
	}
	if (rc == 0 && n)
		qsort(v, n, sizeof(*v), cmp_sought);
	for (size_t g = 0, e; rc == 0 && g < n; g = e) {
		for (e = g; e < n && v[e].volume == v[g].volume; e++)
			;
		rc = find_in_volume(c, v + g, e - g);
	}
	if (rc == 0 && n)
		qsort(v, n, sizeof(*v), cmp_sought_file);
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = check_entry_name(c, &m->files[v[i].file], &v[i]);
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].folder);
		free(v[i].name);
	}
	free(v);
	return rc;
}

/* Where the FAT geometry puts the file's FATs, clusters, entry and FSInfo. */
static int check_geometry(const struct flash_checker *c, const struct flash_fat_volume *v,
			  const struct cards_file *f, const char *what)
{
	const struct fat_info *in = v->info;
	uint64_t bps = in->bytes_per_sector,
		 root = v->start + (in->reserved + (uint64_t)in->fats * in->fat_sectors) * bps;
	uint64_t data = v->start + in->data_offset;
	uint64_t end = data + (uint64_t)in->clusters * in->cluster_size;

	if (f->fat_type != (unsigned)in->type || f->cluster_size != in->cluster_size ||
	    f->n_fats != in->fats)
		return flash_refuse(c, what,
				    "the volume is FAT%u of %u-byte clusters and %u FATs, not "
				    "what the manifest says",
				    (unsigned)in->type, in->cluster_size, in->fats);
	for (unsigned k = 0; k < f->n_fats; k++)
		if (f->fats[k] != v->start + (in->reserved + (uint64_t)k * in->fat_sectors) * bps)
			return flash_refuse(c, what, "FAT %u is not at byte %" PRIu64, k + 1,
					    f->fats[k]);
	if (f->first_cluster < 2 || (uint64_t)f->first_cluster + f->clusters > in->clusters + 2ull)
		return flash_refuse(c, what,
				    "clusters %" PRIu32 "-%" PRIu64 " are not all in the volume",
				    f->first_cluster, (uint64_t)f->first_cluster + f->clusters - 1);
	if (f->data != data + (uint64_t)(f->first_cluster - 2) * in->cluster_size)
		return flash_refuse(c, what,
				    "its data at byte %" PRIu64 " is not where cluster %" PRIu32
				    " starts",
				    f->data, f->first_cluster);
	bool in_root = in->type != FAT_32 && f->entry >= root && f->entry + DIR_ENTRY <= data &&
		       (f->entry - root) % DIR_ENTRY == 0;
	bool in_data = f->entry >= data && f->entry + DIR_ENTRY <= end &&
		       (f->entry - data) % DIR_ENTRY == 0 &&
		       (f->entry < f->data ||
			f->entry >= f->data + (uint64_t)f->clusters * f->cluster_size);
	if (!in_root && !in_data)
		return flash_refuse(c, what,
				    "its directory entry at byte %" PRIu64 " is in no directory "
				    "of the volume",
				    f->entry);
	if ((in->type == FAT_32) != (f->n_fsinfo == 2) ||
	    (f->n_fsinfo && (f->fsinfo[0] != v->start + v->fsinfo ||
			     f->fsinfo[1] != v->start + v->bk_boot + v->fsinfo)))
		return flash_refuse(c, what, "its FSInfo sectors are not the volume's");
	return 0;
}

/* The image holds what a card with the template as its content would: the template at
 * data, the entry's first cluster and size, the chain in each FAT and the free count. */
static int check_template(const struct flash_checker *c, const struct cards_file *f,
			  const char *what)
{
	const struct fat_card_file ff = { .type = (enum fat_type)f->fat_type,
					  .cluster_size = f->cluster_size,
					  .first_cluster = f->first_cluster,
					  .clusters = f->clusters };
	size_t tlen = strlen(f->template), flen = (size_t)fat_card_fat_len(&ff);
	size_t most = (tlen > flen ? tlen : flen) + DIR_ENTRY; /* what buf holds at a time */
	uint8_t *buf = malloc(most), *want = malloc(most);
	int rc = buf && want ? flash_check_read_at(c, buf, tlen, f->data) : -ENOMEM;

	if (rc == 0 && memcmp(buf, f->template, tlen) != 0)
		rc = flash_refuse(c, what, "the image does not hold its template at byte %" PRIu64,
				  f->data);
	if (rc == 0 && (rc = flash_check_read_at(c, buf, DIR_ENTRY, f->entry)) == 0) {
		memcpy(want, buf, DIR_ENTRY);
		fat_card_entry(&ff, tlen, want);
		if (memcmp(want, buf, DIR_ENTRY) != 0 || buf[0] == 0 || buf[0] == 0xE5 ||
		    (buf[11] & DIR_ATTR_DIR_OR_LABEL))
			rc = flash_refuse(c, what,
					  "the directory entry at byte %" PRIu64 " does not name "
					  "a file of %zu bytes from cluster %" PRIu32,
					  f->entry, tlen, tlen ? f->first_cluster : 0);
	}
	for (unsigned k = 0; rc == 0 && k < f->n_fats; k++) {
		uint64_t at = f->fats[k] + fat_card_fat_start(&ff);
		if ((rc = flash_check_read_at(c, buf, flen, at)) < 0)
			break;
		memcpy(want, buf, flen);
		fat_card_chain(&ff, tlen, want);
		if (memcmp(want, buf, flen) != 0)
			rc = flash_refuse(c, what,
					  "FAT %u does not chain clusters %" PRIu32 "-%" PRIu32
					  " as the template's length says",
					  k + 1, f->first_cluster,
					  f->first_cluster + f->clusters - 1);
	}
	free(buf);
	free(want);
	return rc;
}

/* FAT32: each FSInfo sector holds free-base less what the volume's templates use. */
static int check_fsinfo(const struct flash_checker *c, const struct cards_file *f, const char *what)
{
	uint32_t free_count = f->free_base - c->fsinfo_used[f - c->m->files];
	uint8_t s[FAT_SECTOR], want[FAT_SECTOR];
	int rc = 0;

	for (unsigned k = 0; rc == 0 && k < f->n_fsinfo; k++) {
		if ((rc = flash_check_read_at(c, s, sizeof(s), f->fsinfo[k])) < 0)
			break;
		memcpy(want, s, sizeof(s));
		fat_card_fsinfo(want, free_count);
		if (memcmp(s, "RRaA", 4) != 0 || memcmp(s + FSI_STRUCSIG, "rrAa", 4) != 0 ||
		    memcmp(want, s, sizeof(s)) != 0)
			rc = flash_refuse(c, what,
					  "the FSInfo sector at byte %" PRIu64 " does not count "
					  "%" PRIu32 " free clusters",
					  f->fsinfo[k], free_count);
	}
	return rc;
}

int flash_check_fat_file(const struct flash_checker *c, const struct flash_fat_volume *v,
			 const struct cards_file *f, const char *what)
{
	int rc = check_geometry(c, v, f, what);

	if (rc == 0)
		rc = check_template(c, f, what);
	return rc == 0 ? check_fsinfo(c, f, what) : rc;
}
