/* SPDX-License-Identifier: MIT */
/* write_regions: raw regions, raw partitions and FAT volumes into the image. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "common/units.h"
#include "mkimage/builder/builder_priv.h"

/* One raw region or raw partition being written. */
struct region_write {
	const struct build_input *in;
	uint64_t offset;    /* its first byte in the image */
	uint64_t size;      /* its bytes */
	bool map_all;       /* a raw region: every byte of it outside the holes matters */
	int src_fd;         /* `from` open, or -1 */
	uint64_t src_bytes; /* the bytes of `from` after skip */
};

/*
 * Bytes [start, end) of the region, outside its holes: those of `from` that lie there, then
 * with fill the fill byte up to @end. The copy leaves the file's zeros as holes of the image
 * file unless sparse = false: those zeros are written first, then the copy over them.
 */
static int write_piece(struct build *b, const struct region_write *w, uint64_t start, uint64_t end)
{
	const struct build_input *in = w->in;
	uint64_t file_end = w->src_fd < 0 || start >= w->src_bytes ? start
			    : end < w->src_bytes                   ? end
								   : w->src_bytes;
	/* filled bytes must reach the card, and boot code is read by offset: all of it;
	 * sparse = false: all of the file's bytes; else the file's extents (the copy's) */
	uint64_t mapped_end = w->map_all || in->fill ? end : in->dense ? file_end : start;
	int rc = 0;

	if (mapped_end > start)
		rc = build_map_add(&b->map, w->offset + start, mapped_end - start);
	/* (zeros the sparse writer would not read: it reads the file there) */
	if (rc == 0 && in->dense && file_end > start && !b->direct.on)
		rc = build_write_bytes(b, w->offset + start, file_end - start, 0, in->name);
	if (rc == 0 && file_end > start)
		rc = build_copy_file(b, w->src_fd, in->skip + start, in->skip + file_end,
				     w->offset + start, in->path, &b->map);
	if (rc == 0 && in->fill && end > file_end)
		rc = build_write_bytes(b, w->offset + file_end, end - file_end, in->fill_byte,
				       in->name);
	return rc;
}

/* The region's bytes between its holes (sorted and disjoint), each written once. */
static int write_pieces(struct build *b, const struct region_write *w)
{
	const struct build_input *in = w->in;
	uint64_t pos = 0;

	for (size_t i = 0; i <= in->n_holes && pos < w->size; i++) {
		uint64_t end = i < in->n_holes && in->holes[i].start < w->size ? in->holes[i].start
									       : w->size;
		int rc = end > pos ? write_piece(b, w, pos, end) : 0;
		if (rc < 0)
			return rc;
		if (i < in->n_holes && in->holes[i].end > pos)
			pos = in->holes[i].end;
	}
	return 0;
}

/* Writes @in into the region [@offset, @offset + @size): its file from `skip` on (which may
 * not have grown past the region meanwhile), or zeros with fill; never its holes. */
static int write_input(struct build *b, const struct build_input *in, uint64_t offset,
		       uint64_t size, bool map_all)
{
	struct region_write w = { .in = in,
				  .offset = offset,
				  .size = size,
				  .map_all = map_all,
				  .src_fd = -1 };
	struct stat st;
	int rc = 0;

	if (!in->path)
		return write_pieces(b, &w);
	if ((w.src_fd = open(in->path, O_RDONLY | O_CLOEXEC)) < 0)
		return diag_error(b->d, "%s: %s", in->path, strerror(errno));
	if (fstat(w.src_fd, &st) < 0)
		rc = diag_error(b->d, "%s: %s", in->path, strerror(errno));
	else if (!fileid_same(&in->listed.id, in->listed.size, &st))
		rc = diag_error(b->d,
				"%s: changed while the image was built (it is not the file "
				"of %llu bytes that was measured)",
				in->path, (unsigned long long)in->listed.size);
	else if ((uint64_t)st.st_size < in->skip)
		rc = diag_error(b->d,
				"%s: shrank to %llu bytes, less than skip, while the image "
				"was built",
				in->path, (unsigned long long)st.st_size);
	else if ((uint64_t)st.st_size - in->skip > size)
		rc = diag_error(b->d, "%s: grew to %llu bytes while the image was built", in->path,
				(unsigned long long)st.st_size);
	w.src_bytes = rc == 0 ? (uint64_t)st.st_size - in->skip : 0;
	if (rc == 0)
		rc = write_pieces(b, &w);
	close(w.src_fd);
	return rc;
}

int build_write_raw_regions(struct build *b)
{
	for (size_t i = 0; i < b->l->n_raws; i++) {
		const struct layout_raw *r = &b->l->raws[i];
		struct build_input in;
		build_progress(b, "writing raw region", r->name);
		if (r->env) {
			int rc = build_write_uboot_env(b, i);
			if (rc < 0)
				return rc;
			continue;
		}
		build_input_of_raw(b, i, &in);
		/* a raw region is boot code or data read by offset: all of it matters */
		int rc = write_input(b, &in, r->offset, b->raw_sizes[i], true);
		if (rc == 0 && build_interrupted(b))
			rc = -EINTR;
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The stop callback of fat/ and contents/. */
static bool stop_requested(void *build)
{
	return build_interrupted(build);
}

/* The stop callback of fat/ for a FAT partition whose files are all written by fat/ (no
 * archive's): it also tells the digests' thread how far the volume is written, the map's
 * record of the volume made first (fat/ has placed every cluster by then). */
struct fat_following {
	struct build *b;
	size_t part;
	bool mapped;
	int rc; /* the record's failure (-ENOMEM) */
};

static bool fat_stop_following(void *ctx)
{
	struct fat_following *x = ctx;
	struct build *b = x->b;
	const struct fat_tree *t = b->parts[x->part].tree;

	if (!x->mapped && x->rc == 0) {
		x->rc = build_map_add(&b->map, build_region_of(b, x->part)->start,
				      fat_tree_used_bytes(t));
		x->mapped = x->rc == 0;
	}
	if (x->mapped)
		build_follow_advance(b, x->part, fat_tree_written_below(t));
	return x->rc < 0 || build_interrupted(b);
}

/* Where fat/ put a file's bytes (a content_place_fn). */
static int fat_file_data(const void *vol, const char *path, uint64_t *ret)
{
	return fat_tree_file_offset(vol, path, ret);
}

static int write_partition(struct build *b, size_t i)
{
	const struct layout_partition *p = &b->l->parts[i];
	const struct plan_region *r = build_region_of(b, i);
	struct part_state *ps = &b->parts[i];

	build_progress(b, "writing partition", p->name);
	if (layout_part_is_fat(p)) {
		struct fat_following x = { .b = b, .part = i };
		bool follow = b->follow && ps->content.n_archives == 0;
		int rc = fat_write_or_stop(ps->tree, &ps->geom, b->image.fd, r->start, b->o->output,
					   follow ? fat_stop_following : stop_requested,
					   follow ? (void *)&x : (void *)b, b->d);
		if (x.rc < 0)
			rc = x.rc; /* -ENOMEM: the build tells it */
		if (rc == 0 && !x.mapped)
			rc = build_map_add(&b->map, r->start, fat_tree_used_bytes(ps->tree));
		return rc < 0 ? rc
			      : content_write_archive_data(&ps->content, fat_file_data, ps->tree,
							   b->image.fd, r->start, b->o->output,
							   stop_requested, b, b->d);
	}
	if (layout_part_is_exfat(p))
		return build_write_exfat(b, i);
	if (p->type == LAYOUT_PART_EXT4)
		return build_write_ext4(b, i);
	struct build_input in;
	build_input_of_part(b, i, &in);
	return write_input(b, &in, r->start, r->size, false);
}

int build_write_partitions(struct build *b)
{
	for (size_t i = 0; i < b->l->n_parts; i++) {
		int rc = write_partition(b, i);
		if (rc == 0 && build_interrupted(b))
			rc = -EINTR;
		if (rc < 0)
			return rc;
		build_follow_advance(b, i, UINT64_MAX);
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
		fprintf(out, "  %-12s start %llu, size %llu (%s)", p->name,
			(unsigned long long)r->start, (unsigned long long)r->size, size);
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
				(int)g->type, cluster, g->clusters, g->fats,
				g->fats == 1 ? "" : "s",
				(unsigned long long)(r->start + g->data_offset));
		} else if (layout_part_is_exfat(p)) {
			build_report_exfat(b, i, out);
		} else if (p->type == LAYOUT_PART_EXT4) {
			fprintf(out, ", ext4");
		} else if (b->parts[i].from) {
			fprintf(out, ", from %s", b->parts[i].from);
		} else if (p->fill) {
			fprintf(out, ", zeros");
		}
		fputc('\n', out);
	}
}
