/* cards: the per-card manifest beside the image (common/cards.h; see builder_priv.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cards.h"
#include "fat/fat.h"
#include "mkimage/builder/builder_priv.h"

/* The per-card file of content node @n of partition @i, placed as fat/ wrote it. */
static int card_file(const struct build *b, size_t i, const struct content_node *n,
		     struct cards_file *ret)
{
	const struct layout_partition *p = &b->l->parts[i];
	const struct part_state *ps = &b->parts[i];
	const struct fat_geom *g = &ps->geom;
	uint64_t vol = build_region_of(b, i)->start;
	struct fat_place at;

	if (fat_tree_file_place(ps->tree, n->path, &at) < 0 || !at.data)
		return diag_error(b->d, "%s: per-card file %s was not placed", p->name, n->path);
	*ret = (struct cards_file){
		.partition = strdup(p->name), .path = strdup(n->path), .template = strdup(n->text),
		.reserve = p->entries[n->source].reserve, .fat_type = (unsigned)g->type,
		.cluster_size = g->cluster_size,
		.first_cluster = (uint32_t)((at.data - g->data_offset) / g->cluster_size + 2),
		.clusters = (uint32_t)(at.room / g->cluster_size), .data = vol + at.data,
		.entry = vol + at.entry, .n_fats = g->fats,
	};
	for (unsigned k = 0; k < g->fats && k < 2; k++)
		ret->fats[k] = vol + ((uint64_t)g->reserved + (uint64_t)k * g->fat_sectors) * FAT_SECTOR;
	if (g->type == FAT_32) { /* FSInfo in sector 1, its backup in sector 7 (fat/write.c) */
		ret->fsinfo[0] = vol + FAT_SECTOR;
		ret->fsinfo[1] = vol + 7 * FAT_SECTOR;
		ret->n_fsinfo = 2;
	}
	return ret->partition && ret->path && ret->template ? 0 : -ENOMEM;
}

/* FAT32: the free clusters of each volume with all its per-card files empty, from what the
 * image's FSInfo says with the templates in them. */
static int set_free_base(const struct build *b, struct cards_manifest *m)
{
	for (size_t i = 0; i < m->n_files; i++) {
		struct cards_file *f = &m->files[i];
		uint8_t le[4];
		if (!f->n_fsinfo)
			continue;
		if (pread(b->image.fd, le, 4, (off_t)(f->fsinfo[0] + 488)) != 4)
			return diag_error(b->d, "%s: cannot read back FSInfo", b->o->output);
		uint32_t free_now = (uint32_t)le[0] | (uint32_t)le[1] << 8 | (uint32_t)le[2] << 16 |
				    (uint32_t)le[3] << 24;
		for (size_t j = 0; j < m->n_files; j++)
			if (m->files[j].fsinfo[0] == f->fsinfo[0])
				free_now += (uint32_t)((strlen(m->files[j].template) +
							m->files[j].cluster_size - 1) /
						       m->files[j].cluster_size);
		f->free_base = free_now;
	}
	return 0;
}

static int gather(const struct build *b, struct cards_manifest *m)
{
	for (size_t i = 0; i < b->l->n_parts; i++) {
		const struct content *c = &b->parts[i].content;
		if (!layout_part_is_fat(&b->l->parts[i]))
			continue;
		for (size_t k = 0; k < c->n; k++) {
			const struct content_node *n = &c->nodes[k];
			if (n->removed || n->is_dir || !b->l->parts[i].entries[n->source].per_card)
				continue;
			struct cards_file *v = realloc(m->files, (m->n_files + 1) * sizeof(*v));
			if (!v)
				return -ENOMEM;
			m->files = v;
			int rc = card_file(b, i, n, &m->files[m->n_files++]);
			if (rc < 0)
				return rc;
		}
	}
	return set_free_base(b, m);
}

int build_write_cards(struct build *b)
{
	struct cards_manifest m = { .image_size = b->plan->image_size };
	char *text = NULL;
	int rc = gather(b, &m);

	if (rc == 0 && m.n_files) {
		if (asprintf(&b->cards_path, "%s.cards.json", b->o->output) < 0) {
			b->cards_path = NULL;
			rc = -ENOMEM;
		}
		if (rc == 0)
			rc = build_file_create(&b->cards, b->cards_path, "the per-card manifest", 0,
					       b->d);
		if (rc == 0)
			rc = cards_manifest_text(&m, &text);
		for (size_t off = 0, len = text ? strlen(text) : 0; rc == 0 && off < len;) {
			ssize_t w = write(b->cards.fd, text + off, len - off);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				rc = diag_error(b->d, "%s: %s", b->cards_path, strerror(errno));
			else
				off += (size_t)w;
		}
	}
	free(text);
	cards_manifest_release(&m);
	return rc;
}
