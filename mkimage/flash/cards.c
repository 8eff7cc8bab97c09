/* cards: one card's own bytes, from the per-card manifest (see flash.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fat/fat.h"
#include "mkimage/flash/flash.h"

/* A new patch of @len bytes at @offset, holding what the image (with the earlier patches)
 * has there. */
static int add_patch(struct flash_patches *p, int fd, const char *image, uint64_t offset,
		     size_t len, struct diag *d, uint8_t **ret)
{
	struct flash_patch *v = realloc(p->v, (p->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	p->v = v;
	uint8_t *bytes = calloc(1, len ? len : 1);
	if (!bytes)
		return -ENOMEM;
	p->v[p->n++] = (struct flash_patch){ .offset = offset, .len = len, .bytes = bytes };
	ssize_t got = pread(fd, bytes, len, (off_t)offset);
	if (got < 0 || (size_t)got != len)
		return diag_error(d, "%s: cannot read %zu bytes at %llu: %s", image, len,
				  (unsigned long long)offset, got < 0 ? strerror(errno) : "too short");
	/* what earlier patches changed here stays changed (two files' FAT entries may share
	 * bytes) */
	struct flash_patches earlier = { .v = p->v, .n = p->n - 1 };
	flash_patches_overlay(&earlier, offset, bytes, len);
	*ret = bytes;
	return 0;
}

static struct fat_card_file fat_file(const struct cards_file *f)
{
	return (struct fat_card_file){ .type = (enum fat_type)f->fat_type,
				       .cluster_size = f->cluster_size,
				       .first_cluster = f->first_cluster, .clusters = f->clusters };
}

/* One per-card file filled with @content (@len bytes, at most its reserve). */
static int file_patches(const struct cards_file *f, const char *content, size_t len, int fd,
			const char *image, struct flash_patches *p, struct diag *d)
{
	struct fat_card_file ff = fat_file(f);
	uint8_t *b;
	int rc = add_patch(p, fd, image, f->data, (size_t)f->reserve, d, &b);

	if (rc < 0)
		return rc;
	memset(b, 0, (size_t)f->reserve);
	memcpy(b, content, len);
	if ((rc = add_patch(p, fd, image, f->entry, 32, d, &b)) < 0)
		return rc;
	fat_card_entry(&ff, len, b);
	for (unsigned k = 0; k < f->n_fats; k++) {
		rc = add_patch(p, fd, image, f->fats[k] + fat_card_fat_start(&ff),
			       (size_t)fat_card_fat_len(&ff), d, &b);
		if (rc < 0)
			return rc;
		fat_card_chain(&ff, len, b);
	}
	return 0;
}

/* FAT32: each volume's FSInfo free count, with the clusters its per-card files now use. */
static int fsinfo_patches(const struct cards_manifest *m, const size_t *lens, int fd,
			  const char *image, struct flash_patches *p, struct diag *d)
{
	for (size_t i = 0; i < m->n_files; i++) {
		const struct cards_file *f = &m->files[i];
		bool first = true;
		uint32_t free_count = f->free_base;
		for (size_t j = 0; j < m->n_files; j++) {
			const struct cards_file *g = &m->files[j];
			if (!g->n_fsinfo || g->fsinfo[0] != f->fsinfo[0])
				continue;
			first &= j >= i;
			struct fat_card_file gf = fat_file(g);
			free_count -= fat_card_used(&gf, lens[j]);
		}
		for (unsigned k = 0; first && k < f->n_fsinfo; k++) {
			uint8_t *b;
			int rc = add_patch(p, fd, image, f->fsinfo[k], FAT_SECTOR, d, &b);
			if (rc < 0)
				return rc;
			fat_card_fsinfo(b, free_count);
		}
	}
	return 0;
}

int flash_cards_patches(const struct cards_manifest *m, const struct cards_var *vars,
			size_t n_vars, int fd, const char *image, struct flash_patches *ret,
			struct diag *d)
{
	size_t *lens = calloc(m->n_files + 1, sizeof(*lens));
	int rc = lens ? 0 : -ENOMEM;

	*ret = (struct flash_patches){ 0 };
	for (size_t i = 0; rc == 0 && i < m->n_files; i++) {
		const struct cards_file *f = &m->files[i];
		char where[600], *content = NULL;
		snprintf(where, sizeof(where), "%s:%s", f->partition, f->path);
		rc = cards_render(f->template, vars, n_vars, where, &content, d);
		if (rc == 0 && strlen(content) > f->reserve)
			rc = diag_error(d, "%s: the card's content takes %zu bytes, more than its "
					   "reserve of %llu", where, strlen(content),
					(unsigned long long)f->reserve);
		if (rc == 0) {
			lens[i] = strlen(content);
			rc = file_patches(f, content, lens[i], fd, image, ret, d);
		}
		free(content);
	}
	if (rc == 0)
		rc = fsinfo_patches(m, lens, fd, image, ret, d);
	free(lens);
	return rc;
}

void flash_patches_overlay(const struct flash_patches *p, uint64_t offset, void *buf,
			   size_t len)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct flash_patch *x = &p->v[i];
		uint64_t lo = x->offset > offset ? x->offset : offset;
		uint64_t hi = x->offset + x->len < offset + len ? x->offset + x->len : offset + len;
		if (lo < hi)
			memcpy((uint8_t *)buf + (lo - offset), x->bytes + (lo - x->offset),
			       (size_t)(hi - lo));
	}
}

void flash_patches_release(struct flash_patches *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i].bytes);
	free(p->v);
	*p = (struct flash_patches){ 0 };
}
