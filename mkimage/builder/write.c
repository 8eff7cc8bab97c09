/* write: raw regions, raw partitions and FAT volumes into the image. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "common/units.h"
#include "mkimage/builder/builder_priv.h"

/* Copies the host file @path to @offset; it may not have grown past @room meanwhile. */
static int copy_input(struct build *b, const char *path, uint64_t offset, uint64_t room)
{
	struct stat st;
	int rc, fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return diag_error(b->d, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0)
		rc = diag_error(b->d, "%s: %s", path, strerror(errno));
	else if ((uint64_t)st.st_size > room)
		rc = diag_error(b->d, "%s: grew to %llu bytes while the image was built", path,
				(unsigned long long)st.st_size);
	else
		rc = build_copy_file(fd, (uint64_t)st.st_size, b->image.fd, offset, path, &b->map,
				     b->d);
	close(fd);
	return rc;
}

int build_write_raw_regions(struct build *b)
{
	for (size_t i = 0; i < b->l->n_raws; i++) {
		const struct layout_raw *r = &b->l->raws[i];
		build_progress(b, "writing raw region", r->name);
		/* a raw region is boot code or data read by offset: all of it matters */
		int rc = build_map_add(&b->map, r->offset, b->raw_sizes[i]);
		if (rc == 0)
			rc = copy_input(b, b->raw_from[i], r->offset, b->raw_sizes[i]);
		if (rc == 0 && build_interrupted(b))
			rc = -EINTR;
		if (rc < 0)
			return rc;
	}
	return 0;
}

static bool stop_requested(void *build)
{
	return build_interrupted(build);
}

static int write_partition(struct build *b, size_t i)
{
	const struct layout_partition *p = &b->l->parts[i];
	const struct plan_region *r = build_region_of(b, i);
	struct part_state *ps = &b->parts[i];

	build_progress(b, "writing partition", p->name);
	if (layout_part_is_fat(p)) {
		int rc = fat_write(ps->tree, &ps->geom, b->image.fd, r->start, b->d);
		if (rc == 0)
			rc = build_map_add(&b->map, r->start, fat_tree_used_bytes(ps->tree));
		return rc < 0 ? rc
			      : content_write_archive_data(&ps->content, ps->tree, b->image.fd,
							   r->start, b->o->output, stop_requested, b,
							   b->d);
	}
	if (ps->from)
		return copy_input(b, ps->from, r->start, r->size);
	return 0;
}

int build_write_partitions(struct build *b)
{
	for (size_t i = 0; i < b->l->n_parts; i++) {
		int rc = write_partition(b, i);
		if (rc == 0 && build_interrupted(b))
			rc = -EINTR;
		if (rc < 0)
			return rc;
	}
	return 0;
}

void build_report_partitions(struct build *b)
{
	FILE *out = b->o->report;

	for (size_t i = 0; i < b->l->n_parts; i++) {
		const struct layout_partition *p = &b->l->parts[i];
		const struct plan_region *r = build_region_of(b, i);
		const struct fat_geom *g = &b->parts[i].geom;
		char size[32], cluster[32];
		units_human(r->size, size, sizeof(size));
		fprintf(out, "  %-12s start %llu, size %llu (%s)", p->name, (unsigned long long)r->start,
			(unsigned long long)r->size, size);
		if (r->number && b->l->image.table == LAYOUT_TABLE_GPT) {
			const char *alias = layout_gpt_type_alias(&p->gpt_type);
			char guid[37];
			layout_guid_text(&p->gpt_type, guid);
			fprintf(out, ", partition %u, type %s", r->number, alias ? alias : guid);
		} else if (r->number) {
			fprintf(out, ", partition %u, type 0x%02x", r->number, b->mbr_types[i]);
		}
		if (layout_part_is_fat(p)) {
			units_human(g->cluster_size, cluster, sizeof(cluster));
			fprintf(out, ", FAT%d, %s clusters x %u, %u FAT%s, data area at byte %llu",
				(int)g->type, cluster, g->clusters, g->fats, g->fats == 1 ? "" : "s",
				(unsigned long long)(r->start + g->data_offset));
		} else if (b->parts[i].from) {
			fprintf(out, ", from %s", b->parts[i].from);
		}
		fputc('\n', out);
	}
}
