/* SPDX-License-Identifier: MIT */
/*
 * map: the byte ranges of the image that must read back as written (builder_priv.h). The
 * writers record what they give meaning to; the rest of the image may hold anything.
 */
#include <errno.h>
#include <stdlib.h>

#include "common/array.h"
#include "layouts/layouts.h"
#include "mkimage/builder/map.h"
#include "plan/plan.h"

int build_map_add(struct build_map *m, uint64_t start, uint64_t len)
{
	if (!len)
		return 0;
	if (array_grow((void **)&m->v, &m->cap, m->n + 1, sizeof(*m->v)) < 0)
		return -ENOMEM;
	m->v[m->n++] = (struct build_range){ .start = start, .end = start + len };
	return 0;
}

int build_map_add_tables(struct build_map *m, const struct plan *p)
{
	for (size_t i = 0; i < p->n_regions; i++) {
		const struct plan_region *r = &p->regions[i];
		int rc = 0;
		switch (r->kind) {
		case PLAN_MBR: /* the whole of sector 0: boot code, signature and table */
			rc = build_map_add(m, 0, LAYOUT_SECTOR);
			break;
		case PLAN_EBR:
		case PLAN_GPT_HEADER:
		case PLAN_GPT_ENTRIES:
		case PLAN_GPT_BACKUP:
			rc = build_map_add(m, r->start, r->size);
			break;
		default:
			break;
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int compare_start(const void *a, const void *b)
{
	const struct build_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

void build_map_to_blocks(struct build_map *m, uint64_t block, uint64_t image_size)
{
	size_t n = 0;

	for (size_t i = 0; i < m->n; i++) {
		uint64_t end = m->v[i].end < image_size ? m->v[i].end : image_size;
		if (m->v[i].start >= end)
			continue;
		m->v[n].start = m->v[i].start / block * block;
		m->v[n].end = end % block ? end + (block - end % block) : end;
		n++;
	}
	if (n > 1)
		qsort(m->v, n, sizeof(*m->v), compare_start);
	m->n = 0;
	for (size_t i = 0; i < n; i++) {
		if (m->n && m->v[i].start <= m->v[m->n - 1].end) {
			if (m->v[i].end > m->v[m->n - 1].end)
				m->v[m->n - 1].end = m->v[i].end;
			continue;
		}
		m->v[m->n++] = m->v[i];
	}
}

uint64_t build_map_bytes(const struct build_map *m, uint64_t image_size)
{
	uint64_t total = 0;

	for (size_t i = 0; i < m->n; i++)
		total += (m->v[i].end < image_size ? m->v[i].end : image_size) - m->v[i].start;
	return total;
}

void build_map_release(struct build_map *m)
{
	free(m->v);
	*m = (struct build_map){ 0 };
}
