/* SPDX-License-Identifier: MIT */
/*
 * exfat/tree: the tree of an exFAT volume (exfat.h): fat/'s tree of folders and files with
 * exFAT's names (UTF-16, §7.7.3's characters refused, compared through the up-case table of
 * §7.2.5) and exFAT's directory entry sets (§7.4: a File entry, a Stream Extension entry and
 * one File Name entry per 15 units of the name).
 */
#include "exfat/write_priv.h"

#include "common/utf8.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct exfat_tree *exfat_tree_new(int64_t timestamp)
{
	struct exfat_tree *t = calloc(1, sizeof(*t));

	if (t && !(t->ft = fat_tree_new(timestamp))) {
		free(t);
		return NULL;
	}
	return t;
}

int exfat_tree_expect(struct exfat_tree *t, size_t nodes)
{
	return fat_tree_expect(t->ft, nodes);
}

void exfat_tree_free(struct exfat_tree *t)
{
	if (!t)
		return;
	fat_tree_free(t->ft);
	free(t);
}

int exfat_tree_add_dir(struct exfat_tree *t, const char *path, const struct fat_meta *m,
		       struct diag *d)
{
	t->prepared = false;
	t->cluster_size = 0;
	return fat_tree_add_dir(t->ft, path, m, d);
}

int exfat_tree_add_file(struct exfat_tree *t, const char *path, uint64_t size,
			const struct fat_source *src, const struct fat_meta *m, struct diag *d)
{
	t->prepared = false;
	t->cluster_size = 0;
	return fat_tree_add_node(t->ft, path, size, src, m, d);
}

unsigned exfat_node_set(const struct fat_node *n)
{
	return 2u + (n->n16 + EXFAT_NAME_UNITS_PER_ENTRY - 1) / EXFAT_NAME_UNITS_PER_ENTRY;
}

/* @s for a message, into @out (@cap bytes): control characters, the backslash and, where
 * @high, every byte of 0x80 and above (a name that is not UTF-8) as \xNN, so that a
 * terminal shows what the name holds. Returns @out. */
static const char *shown(const char *s, bool high, char *out, size_t cap)
{
	size_t o = 0;

	for (; *s && o + 5 < cap; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c == 0x7F || c == '\\' || (high && c >= 0x80))
			o += (size_t)snprintf(out + o, cap - o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	out[o] = 0;
	return out;
}

/* Converts and checks the name of @n (§7.7.3: 1..255 units, no forbidden character, not
 * "." or ".."; tree.c of fat/ refuses those already), and no trailing dot. */
static int prepare_name(struct arena *a, struct fat_node *n, struct diag *d)
{
	uint16_t buf[EXFAT_NAME_MAX];
	char where[4096], text[4 * 4096 + 1];
	int len = utf8_to_utf16(n->name, buf, EXFAT_NAME_MAX);

	if (len == -EILSEQ)
		return diag_error(d, "%s: the name is not valid UTF-8",
				  shown(fat_node_where(n, where, sizeof(where)), true, text,
					sizeof(text)));
	if (len < 0)
		return diag_error(d, "%s: the name is longer than the 255 UTF-16 units exFAT holds",
				  fat_node_where(n, where, sizeof(where)));
	for (int i = 0; i < len; i++)
		if (exfat_unit_forbidden(buf[i]))
			return diag_error(d,
					  "%s: the name holds a character exFAT names may not "
					  "hold (control characters and \" * / : < > ? \\ |)",
					  shown(fat_node_where(n, where, sizeof(where)), false,
						text, sizeof(text)));
	/* the Linux exfat driver (unless mounted keep_last_dots) and Windows drop a trailing
	 * dot when they look a name up, so such a file could not be reached */
	if (len > 0 && buf[len - 1] == '.')
		return diag_error(d,
				  "%s: the name ends with a dot, which exFAT drivers strip "
				  "(the file could not be opened by its name)",
				  fat_node_where(n, where, sizeof(where)));
	return fat_node_set_u16(a, n, buf, (size_t)len);
}

/* Names compared as exFAT compares them: by their up-cased units (§7.2.5). */
static int cmp_upcased(const void *a, const void *b)
{
	const struct fat_node *x = *(const struct fat_node *const *)a;
	const struct fat_node *y = *(const struct fat_node *const *)b;

	for (size_t i = 0; i < x->n16 && i < y->n16; i++) {
		uint16_t cx = x->u16[i], cy = y->u16[i];
		if (cx == cy)
			continue;
		cx = exfat_upcase(cx);
		cy = exfat_upcase(cy);
		if (cx != cy)
			return cx < cy ? -1 : 1;
	}
	return (x->n16 > y->n16) - (x->n16 < y->n16);
}

static int prepare_dir(struct exfat_tree *t, struct fat_node *dir, struct diag *d)
{
	uint64_t entries = 0;
	char where[4096];
	struct arena names = { 0 }; /* the UTF-16 names, while they are compared */
	int r = 0;

	for (size_t i = 0; i < dir->n_kids && !r; i++) {
		r = prepare_name(&names, dir->kids[i], d);
		if (!r && dir->kids[i]->n16 > t->max_name)
			t->max_name = dir->kids[i]->n16;
	}
	if (!r && dir->n_kids) {
		qsort(dir->kids, dir->n_kids, sizeof(*dir->kids), fat_node_cmp_order);
		r = fat_dir_check_equal(dir, cmp_upcased, "exFAT", d);
	}
	fat_dir_drop_u16(dir);
	arena_free(&names);
	if (r || !dir->n_kids)
		goto out;
	for (size_t i = 0; i < dir->n_kids && !r; i++) {
		entries += exfat_node_set(dir->kids[i]);
		if (dir->kids[i]->is_dir)
			r = prepare_dir(t, dir->kids[i], d);
	}
	/* the root's own entries (label, bitmap, up-case table, GUID) are at most 4 */
	if (!r && (entries + 4) * EXFAT_DENTRY_SIZE > EXFAT_DIR_MAX)
		r = diag_error(d,
			       "%s: %" PRIu64 " directory entries (3 or more per file); an exFAT "
			       "directory holds at most 256 MiB of them (%u)",
			       fat_node_where(dir, where, sizeof(where)), entries,
			       EXFAT_DIR_MAX / EXFAT_DENTRY_SIZE - 4);
out:
	dir->n_entries = (uint32_t)entries;
	return r;
}

int exfat_tree_prepare(struct exfat_tree *t, struct diag *d)
{
	int r;

	if (t->prepared)
		return 0;
	t->max_name = 0;
	r = prepare_dir(t, &t->ft->root, d);
	t->prepared = r == 0;
	return r;
}

unsigned exfat_root_head(const struct exfat_geom *g)
{
	/* the label entry is there even without a label (CharacterCount 0), as mkfs.exfat
	 * writes it: readers such as dump.exfat take the root's first entries for label,
	 * bitmap and up-case table */
	return 3u + (g->has_guid ? 1u : 0u);
}

uint64_t exfat_bitmap_bytes(uint32_t clusters)
{
	return ((uint64_t)clusters + 7) / 8;
}

static uint64_t clusters_of(uint64_t bytes, uint32_t cluster_size)
{
	return (bytes + cluster_size - 1) / cluster_size;
}

/* Clusters of folder @n, whose entries are @head more than its files' (at least one). */
static uint64_t dir_clusters(const struct fat_node *n, unsigned head, uint32_t cluster_size)
{
	uint64_t c = clusters_of(((uint64_t)n->n_entries + head) * EXFAT_DENTRY_SIZE, cluster_size);

	return c ? c : 1;
}

/* Gives each child of @dir its clusters in entry order, then recurses (as fat/ does). */
static void alloc_dir(struct fat_node *dir, uint32_t cluster_size, uint64_t *next)
{
	for (size_t i = 0; i < dir->n_kids; i++) {
		struct fat_node *n = dir->kids[i];
		uint64_t bytes = n->size > fat_node_reserve(n) ? n->size : fat_node_reserve(n);
		uint64_t c = n->is_dir ? dir_clusters(n, 0, cluster_size)
				       : clusters_of(bytes, cluster_size);
		n->n_clusters = c <= UINT32_MAX ? (uint32_t)c : 0;
		n->cluster = c && *next <= UINT32_MAX ? (uint32_t)*next : 0;
		*next += c;
	}
	for (size_t i = 0; i < dir->n_kids; i++)
		if (dir->kids[i]->is_dir)
			alloc_dir(dir->kids[i], cluster_size, next);
}

uint64_t exfat_tree_alloc(struct exfat_tree *t, const struct exfat_geom *g)
{
	struct fat_node *root = &t->ft->root;
	uint64_t next = EXFAT_FIRST_CLUSTER;

	next += clusters_of(exfat_bitmap_bytes(g->clusters), g->cluster_size);
	next += clusters_of(EXFAT_UPCASE_BYTES, g->cluster_size);
	root->cluster = (uint32_t)next;
	root->n_clusters = (uint32_t)dir_clusters(root, exfat_root_head(g), g->cluster_size);
	next += root->n_clusters;
	alloc_dir(root, g->cluster_size, &next);
	return next - EXFAT_FIRST_CLUSTER;
}

static uint64_t cluster_off(const struct exfat_tree *t, uint32_t c)
{
	return t->heap_offset + (uint64_t)(c - EXFAT_FIRST_CLUSTER) * t->cluster_size;
}

int exfat_tree_file_place(const struct exfat_tree *t, const char *path, struct exfat_place *ret)
{
	const struct fat_node *n, *dir;
	uint64_t k;

	if (!t->cluster_size)
		return -EINVAL;
	n = fat_tree_find(t->ft, path);
	if (!n || n->is_dir)
		return -ENOENT;
	dir = n->parent;
	k = dir->parent ? 0 : t->root_head;
	for (size_t i = 0; i < dir->n_kids && dir->kids[i] != n; i++)
		k += exfat_node_set(dir->kids[i]);
	ret->data = n->cluster ? cluster_off(t, n->cluster) : 0;
	ret->room = (uint64_t)n->n_clusters * t->cluster_size;
	ret->entries = cluster_off(t, dir->cluster) + k * EXFAT_DENTRY_SIZE;
	ret->count = exfat_node_set(n);
	return 0;
}

uint64_t exfat_tree_used_bytes(const struct exfat_tree *t)
{
	return t->cluster_size ? cluster_off(t, t->next_free) : 0;
}

char *exfat_path_key(const char *path)
{
	size_t len = strlen(path), out = 0;
	/* a character of k UTF-8 bytes up-cases to one of at most 3 (BMP) or itself (k = 4) */
	char *key = malloc(len * 3 + 1);
	const char *p = path;

	if (!key)
		return NULL;
	while (*p) {
		uint32_t cp;
		unsigned char c = (unsigned char)*p;
		if (c < 0x80) { /* ASCII, most paths' bytes: a-z up-case to A-Z, the rest stays */
			key[out++] = (char)(c >= 'a' && c <= 'z' ? c - ('a' - 'A') : c);
			p++;
			continue;
		}
		if (utf8_decode(&p, &cp)) {
			key[out++] = *p++; /* not UTF-8: the byte as it is */
			continue;
		}
		uint16_t u[2] = { (uint16_t)cp, 0 };
		size_t n = 1;
		if (cp > 0xFFFF) {
			u[0] = (uint16_t)(0xD800 + ((cp - 0x10000) >> 10));
			u[1] = (uint16_t)(0xDC00 + ((cp - 0x10000) & 0x3FF));
			n = 2;
		} else {
			u[0] = exfat_upcase(u[0]);
		}
		int w = utf8_from_utf16(u, n, key + out, len * 3 + 1 - out);
		out += w > 0 ? (size_t)w : 0;
	}
	key[out] = 0;
	return key;
}
