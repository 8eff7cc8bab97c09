/* SPDX-License-Identifier: MIT */
/* manifest: the per-card manifest beside the image (common/cards.h; see builder_priv.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/array.h"
#include "common/bytes.h"
#include "common/cards.h"
#include "common/uboot_env.h"
#include "exfat/ondisk.h"
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
		.partition = strdup(p->name),
		.volume = vol,
		.path = strdup(n->path),
		.template = strdup(content_text(n)),
		.reserve = p->entries[n->source].reserve,
		.fat_type = (unsigned)g->type,
		.cluster_size = g->cluster_size,
		.first_cluster = (uint32_t)((at.data - g->data_offset) / g->cluster_size + 2),
		.clusters = (uint32_t)(at.room / g->cluster_size),
		.data = vol + at.data,
		.entry = vol + at.entry,
		.n_fats = g->fats,
	};
	for (unsigned k = 0; k < g->fats && k < 2; k++)
		ret->fats[k] = vol +
			       ((uint64_t)g->reserved + (uint64_t)k * g->fat_sectors) * FAT_SECTOR;
	if (g->type == FAT_32) { /* FSInfo in sector 1, its backup in sector 7 (fat/write.c) */
		ret->fsinfo[0] = vol + FAT_SECTOR;
		ret->fsinfo[1] = vol + 7 * FAT_SECTOR;
		ret->n_fsinfo = 2;
	}
	return ret->partition && ret->path && ret->template ? 0 : -ENOMEM;
}

/* The per-card file of content node @n of exFAT partition @i, placed as exfat/ wrote it: the
 * allocation bitmap is in the heap's first cluster (the writer's order, exfat/write.c). */
static int exfat_card_file(const struct build *b, size_t i, const struct content_node *n,
			   struct cards_file *ret)
{
	const struct layout_partition *p = &b->l->parts[i];
	const struct part_state *ps = &b->parts[i];
	const struct exfat_geom *g = &ps->exfat_geom;
	uint64_t vol = build_region_of(b, i)->start, heap = (uint64_t)g->heap_offset * EXFAT_SECTOR;
	struct exfat_place at;

	if (exfat_tree_file_place(ps->exfat_tree, n->path, &at) < 0 || !at.data)
		return diag_error(b->d, "%s: per-card file %s was not placed", p->name, n->path);
	*ret = (struct cards_file){
		.kind = CARDS_EXFAT_FILE,
		.partition = strdup(p->name),
		.volume = vol,
		.path = strdup(n->path),
		.template = strdup(content_text(n)),
		.reserve = p->entries[n->source].reserve,
		.cluster_size = g->cluster_size,
		.first_cluster = (uint32_t)((at.data - heap) / g->cluster_size +
					    EXFAT_FIRST_CLUSTER),
		.clusters = (uint32_t)(at.room / g->cluster_size),
		.data = vol + at.data,
		.entry = vol + at.entries,
		.set_count = at.count,
		.bitmap = vol + heap,
	};
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
		/* FSI_Free_Count: bytes 488-491 of the FSInfo sector (fatgen103 §5) */
		if (pread(b->image.fd, le, 4, (off_t)(f->fsinfo[0] + 488)) != 4)
			return diag_error(b->d, "%s: cannot read back FSInfo", b->o->output);
		uint32_t free_now = get_le32(le);
		for (size_t j = 0; j < m->n_files; j++)
			if (m->files[j].fsinfo[0] == f->fsinfo[0])
				free_now += (uint32_t)((strlen(m->files[j].template) +
							m->files[j].cluster_size - 1) /
						       m->files[j].cluster_size);
		f->free_base = free_now;
	}
	return 0;
}

/* ---- disk-id = per-card, volume-id = per-card ---- */

static int add_volume(const struct build *b, size_t i, struct cards_manifest *m)
{
	const struct fat_geom *g = &b->parts[i].geom;
	uint64_t vol = build_region_of(b, i)->start;
	/* BS_VolID: byte 39 on FAT12/16, 67 on FAT32 (fatgen103 §3.2, §3.3), whose backup boot
	 * sector in sector 6 holds it too */
	struct cards_volume v = { .partition = strdup(b->l->parts[i].name), .volume = vol };
	struct cards_volume *vs = realloc(m->volumes, (m->n_volumes + 1) * sizeof(*vs));

	if (vs)
		m->volumes = vs;
	if (!vs || !v.partition) {
		free(v.partition);
		return -ENOMEM;
	}
	v.volume_id[v.n_volume_id++] = vol + (g->type == FAT_32 ? 67 : 39);
	if (g->type == FAT_32)
		v.volume_id[v.n_volume_id++] = vol + 6 * FAT_SECTOR + 67;
	m->volumes[m->n_volumes++] = v;
	return 0;
}

static int add_parts(const struct build *b, struct cards_manifest *m)
{
	bool gpt = b->plan->table == LAYOUT_TABLE_GPT;

	m->mbr_disk_id = !gpt;
	if (gpt) {
		m->gpt_headers[m->n_gpt_headers++] = FAT_SECTOR;
		if (b->plan->gpt_backup)
			m->gpt_headers[m->n_gpt_headers++] = b->plan->image_size - FAT_SECTOR;
	}
	m->parts = calloc(b->plan->n_regions + 1, sizeof(*m->parts));
	if (!m->parts)
		return -ENOMEM;
	for (size_t k = 0; k < b->plan->n_regions; k++) {
		const struct plan_region *r = &b->plan->regions[k];
		if (r->kind != PLAN_PARTITION || !r->number)
			continue;
		struct cards_part *p = &m->parts[m->n_parts++];
		p->number = r->number;
		p->per_card_uuid = gpt && !r->part->uuid_set;
		if (!(p->name = strdup(r->part->name)))
			return -ENOMEM;
	}
	return 0;
}

/* The texts an id of this image goes by, which a file that is not per-card must not hold
 * (that file would name the image's id, not the card's): *@ret_n of them into @texts. Returns 0
 * or -EIO (the ids' hasher failed: its diag says so). */
static int id_texts(const struct build *b, const struct cards_manifest *m, char texts[][40],
		    size_t max, size_t *ret_n)
{
	const struct layout *l = b->l;
	size_t n = 0;
	struct layout_guid g;
	uint32_t disk_id;
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < m->n_parts && n < max; i++) {
		if (m->mbr_disk_id) {
			rc = build_id_mbr_disk(b->sha, l->image.seed, &disk_id);
			snprintf(texts[n++], 40, "%08x-%02x", disk_id, m->parts[i].number);
		} else if (m->parts[i].per_card_uuid) {
			rc = build_id_partition_uuid(b->sha, l->image.seed, m->parts[i].name, &g);
			layout_guid_text(&g, texts[n++]);
		}
	}
	if (rc == 0 && m->n_gpt_headers && n < max) {
		rc = build_id_gpt_disk(b->sha, l->image.seed, &g);
		layout_guid_text(&g, texts[n++]);
	}
	for (size_t i = 0; i < l->n_parts && n < max; i++)
		if (layout_part_is_fat(&l->parts[i]) && l->parts[i].fat.volume_id_per_card) {
			uint32_t v = b->parts[i].opts.volume_id;
			snprintf(texts[n++], 40, "%04X-%04X", v >> 16, v & 0xFFFF);
		}
	*ret_n = n;
	return rc;
}

/* Whether @hay (@len bytes) holds @text in lower or in upper case (as ids are written). */
static bool holds_text(const char *hay, size_t len, const char *text)
{
	char lower[40], upper[40];
	size_t tl = strlen(text);

	for (size_t i = 0; i <= tl; i++) {
		lower[i] = (char)tolower((unsigned char)text[i]);
		upper[i] = (char)toupper((unsigned char)text[i]);
	}
	return tl && (memmem(hay, len, lower, tl) || memmem(hay, len, upper, tl));
}

#define SCAN_CHUNK (1u << 20)
#define SCAN_KEEP 40u /* an id's text is shorter: a chunk keeps the previous one's tail */

/* The first of @texts (@n) that host file @path holds, read a chunk at a time; -1: none. */
static int host_holds(const char *path, char texts[][40], size_t n, char *buf)
{
	FILE *f = fopen(path, "rb");
	size_t have = 0, got;
	int found = -1;

	if (!f)
		return -1;
	while (found < 0 && (got = fread(buf + have, 1, SCAN_CHUNK, f)) > 0) {
		have += got;
		for (size_t t = 0; t < n && found < 0; t++)
			if (holds_text(buf, have, texts[t]))
				found = (int)t;
		size_t keep = have < SCAN_KEEP ? have : SCAN_KEEP;
		memmove(buf, buf + have - keep, keep);
		have = keep;
	}
	fclose(f);
	return found;
}

/* A per-card id whose image value a file that is not per-card names verbatim: refused. */
static int check_verbatim(const struct build *b, const struct cards_manifest *m)
{
	char texts[LAYOUT_GPT_MAX_PARTITIONS + 64][40];
	size_t n = 0;
	int bad = 0;

	if (id_texts(b, m, texts, sizeof(texts) / sizeof(texts[0]), &n) < 0)
		return -EIO;
	char *buf = n ? malloc(SCAN_CHUNK + SCAN_KEEP) : NULL;

	if (n && !buf)
		return -ENOMEM;
	for (size_t i = 0; n && i < b->l->n_parts; i++) {
		const struct content *c = &b->parts[i].content;
		for (size_t k = 0; layout_part_is_fat(&b->l->parts[i]) && k < c->n; k++) {
			const struct content_node *nd = &c->nodes[k];
			int t = -1;
			if (nd->removed || nd->is_dir ||
			    b->l->parts[i].entries[nd->source].per_card)
				continue;
			const char *text = content_text(nd);
			for (size_t x = 0; text && x < n && t < 0; x++)
				if (holds_text(text, strlen(text), texts[x]))
					t = (int)x;
			char host[CONTENT_HOST_PATH_MAX];
			const char *host_path = content_host_path(nd, host, sizeof(host));
			if (!text && host_path)
				t = host_holds(host_path, texts, n, buf);
			if (t < 0)
				continue;
			bad = 1;
			diag_error(b->d,
				   "%s: %s holds %s, an id that is per-card: the card's own id "
				   "would differ (make the file per-card and write the id's "
				   "${VARIABLE})",
				   host_path && !nd->origin ? host_path
				   : nd->origin             ? nd->origin
							    : nd->path,
				   nd->path, texts[t]);
		}
	}
	free(buf);
	return bad ? -EINVAL : 0;
}

static int gather_ids(const struct build *b, struct cards_manifest *m)
{
	int rc = 0;

	if (b->l->image.disk_id_per_card)
		rc = add_parts(b, m);
	for (size_t i = 0; rc == 0 && i < b->l->n_parts; i++)
		if (layout_part_is_fat(&b->l->parts[i]) && b->l->parts[i].fat.volume_id_per_card)
			rc = add_volume(b, i, m);
	return rc == 0 ? check_verbatim(b, m) : rc;
}

/* ---- U-Boot environments with per-card variables ---- */

/* Whether layout variable @name of @env is per-card. */
static bool var_per_card(const struct layout_uboot_env *env, const char *name)
{
	for (size_t k = 0; k < env->n_vars; k++)
		if (strcmp(env->vars[k].name, name) == 0)
			return env->vars[k].per_card;
	return false;
}

/* Raw region @i's environment, as written, into @e. */
static int card_env(const struct build *b, size_t i, struct cards_env *e)
{
	const struct layout_raw *r = &b->l->raws[i];
	const struct uboot_env *w = &b->raw_envs[i];

	e->region = strdup(r->name);
	e->size = r->env->size;
	e->pad = r->env->pad;
	e->copies[e->n_copies++] = r->offset;
	if (r->env->redundant)
		e->copies[e->n_copies++] = r->env->offset_redund;
	e->vars = calloc(w->n + 1, sizeof(*e->vars));
	if (!e->region || !e->vars)
		return -ENOMEM;
	for (size_t k = 0; k < w->n; k++) {
		struct cards_env_var *v = &e->vars[e->n_vars++];
		v->name = strdup(w->vars[k].name);
		v->template = strdup(w->vars[k].value);
		v->per_card = var_per_card(r->env, w->vars[k].name);
		if (!v->name || !v->template)
			return -ENOMEM;
	}
	return 0;
}

static int gather_envs(const struct build *b, struct cards_manifest *m)
{
	m->envs = calloc(b->l->n_raws + 1, sizeof(*m->envs));
	if (!m->envs)
		return -ENOMEM;
	for (size_t i = 0; i < b->l->n_raws; i++) {
		const struct layout_uboot_env *env = b->l->raws[i].env;
		bool any = false;
		for (size_t k = 0; env && k < env->n_vars; k++)
			any |= env->vars[k].per_card;
		if (!any)
			continue;
		int rc = card_env(b, i, &m->envs[m->n_envs++]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int gather(const struct build *b, struct cards_manifest *m)
{
	size_t cap = m->n_files; /* of m->files, grown by array_grow() */
	int rc = gather_ids(b, m);

	if (rc == 0)
		rc = gather_envs(b, m);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < b->l->n_parts; i++) {
		const struct content *c = &b->parts[i].content;
		bool exfat = layout_part_is_exfat(&b->l->parts[i]);
		if (!layout_part_is_fat(&b->l->parts[i]) && !exfat)
			continue;
		for (size_t k = 0; k < c->n; k++) {
			const struct content_node *n = &c->nodes[k];
			if (n->removed || n->is_dir || !b->l->parts[i].entries[n->source].per_card)
				continue;
			if (array_grow((void **)&m->files, &cap, m->n_files + 1,
				       sizeof(*m->files)) < 0)
				return -ENOMEM;
			/* filled, then counted: cards_manifest_release() frees what a counted slot
			 * holds, and a failed card_file() leaves only what it allocated */
			m->files[m->n_files] = (struct cards_file){ 0 };
			int rc = exfat ? exfat_card_file(b, i, n, &m->files[m->n_files])
				       : card_file(b, i, n, &m->files[m->n_files]);
			m->n_files++;
			if (rc < 0)
				return rc;
		}
	}
	return set_free_base(b, m);
}

/* The image the manifest belongs to: the ranges its bmap maps (build_finish() turns the same
 * records into the same blocks), cut at the image's end, and SHA-256 over their bytes, read
 * back from the page cache the writers just filled; the holes are never read. */
static int bind_image(const struct build *b, struct cards_manifest *m)
{
	uint64_t size = b->plan->image_size;
	size_t errors = b->d->errors;
	struct build_map blocks = { .v = malloc((b->map.n + 1) * sizeof(*blocks.v)),
				    .n = b->map.n,
				    .cap = b->map.n + 1 };
	int rc = 0;

	m->mapped = calloc(b->map.n + 1, sizeof(*m->mapped));
	if (!blocks.v || !m->mapped) {
		free(blocks.v);
		return -ENOMEM;
	}
	memcpy(blocks.v, b->map.v, b->map.n * sizeof(*blocks.v));
	build_map_to_blocks(&blocks, BMAP_BLOCK_SIZE, size);
	for (size_t i = 0; i < blocks.n; i++)
		m->mapped[m->n_mapped++] = (struct cards_range){
			blocks.v[i].start, blocks.v[i].end < size ? blocks.v[i].end : size
		};
	free(blocks.v);
	/* the digest in a local first: given a field of @m, the call would leave all of @m
	 * unknown to a static analyser, which then takes m->mapped for leaked */
	uint8_t digest[sizeof(m->mapped_sha256)];
	rc = cards_digest(b->image.fd, m->mapped, m->n_mapped, b->sha, digest, b->d);
	if (rc == 0)
		memcpy(m->mapped_sha256, digest, sizeof(digest));
	if (rc < 0 && rc != -ENOMEM && b->d->errors == errors)
		rc = diag_error(b->d, "%s: reading the image back for its per-card manifest: %s",
				b->o->output, strerror(-rc));
	return rc;
}

int build_write_cards(struct build *b)
{
	struct cards_manifest m = { .image_size = b->plan->image_size };
	char *text = NULL;
	int rc = (m.seed = strdup(b->l->image.seed)) ? gather(b, &m) : -ENOMEM;

	if (rc == 0 && (m.n_files || m.n_parts || m.n_volumes || m.n_envs)) {
		rc = bind_image(b, &m);
		if (rc == 0 &&
		    asprintf(&b->cards_path, "%s" BUILD_CARDS_SUFFIX, b->o->output) < 0) {
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
