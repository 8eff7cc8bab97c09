/* SPDX-License-Identifier: MIT */
/*
 * browse: a partition's file system for `ls` and `cat` (reader.h). Which partition an
 * address names, then one table of operations per kind of file system: another kind adds
 * its file (as browse_fat.c, browse_exfat.c, browse_ext.c) and one line to `kinds`.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mkimage/reader/reader_priv.h"

static const struct reader_browse_ops *const kinds[] = { &reader_browse_fat, &reader_browse_exfat,
							 &reader_browse_ext };

struct reader_volume {
	const struct reader_browse_ops *ops;
	void *fs;
	const char *image, *part; /* borrowed: the address the messages name */
	unsigned number;
	uint64_t end, image_size; /* the partition's end past the image's: said once read */
};

/* The operations for what @p holds, or NULL when no kind reads it. */
static const struct reader_browse_ops *ops_of(const struct disk_part *p)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (kinds[i]->content == p->content)
			return kinds[i];
	return NULL;
}

static const char *label_of(const struct disk_part *p)
{
	const struct reader_browse_ops *ops = ops_of(p);
	return ops ? ops->label(p) : "";
}

/* The partition @part names: a number, a GPT name, then a volume label (which FAT, exFAT and
 * ext compare without case). */
static const struct disk_part *find_part(const struct disk *k, const char *part, struct diag *d,
					 const char *image)
{
	char *end = NULL;
	unsigned long no = part && *part ? strtoul(part, &end, 10) : 0;

	if (!strcmp(k->table, "none") && (!part || !*part))
		return k->n_parts ? &k->parts[0] : NULL;
	if (!part || !*part) {
		diag_error(d,
			   "%s: which partition? name it: %s:1/PATH (a number, a GPT name or a "
			   "volume label)",
			   image, image);
		return NULL;
	}
	for (size_t i = 0; i < k->n_parts; i++)
		if (end && !*end && k->parts[i].number == no)
			return &k->parts[i];
	const struct disk_part *found = NULL;
	for (size_t i = 0; i < k->n_parts; i++) {
		const struct disk_part *p = &k->parts[i];
		if (strcmp(p->name, part) != 0)
			continue;
		if (found) { /* GPT names need not differ */
			diag_error(d,
				   "%s: partitions %u and %u are both named '%s': name one by its "
				   "number",
				   image, found->number, p->number, part);
			return NULL;
		}
		found = p;
	}
	if (found)
		return found;
	for (size_t i = 0; i < k->n_parts; i++) {
		const struct disk_part *p = &k->parts[i];
		const char *label = label_of(p);
		if (!*label || strcasecmp(label, part) != 0)
			continue;
		if (found) {
			diag_error(d,
				   "%s: partitions %u and %u are both labelled '%s': name one by "
				   "its number",
				   image, found->number, p->number, part);
			return NULL;
		}
		found = p;
	}
	if (!found)
		diag_error(d, "%s: no partition '%s' (a number, a GPT name or a volume label)",
			   image, part);
	return found;
}

/* The messages of the file system in @inner, each after the volume's address, into @d. */
static void relay_messages(const char *image, const char *part, struct diag *inner, struct diag *d)
{
	if (part && !*part) /* "card.img:/a" names a bare volume as "card.img" does */
		part = NULL;
	for (size_t i = 0; i < inner->n; i++) {
		const char *msg = inner->msgs[i].text;
		char *text = reader_visible_dup(msg);
		/* "card.img:1/a: ...", "card.img:/a: ..." (a bare volume), "card.img:1: ..." */
		diag_error(d, "%s%s%s%s%s", image, part ? ":" : "", part ? part : "",
			   *msg != '/' ? ": "
			   : part      ? ""
				       : ":",
			   text ? text : msg);
		free(text);
	}
	diag_release(inner);
}

int reader_volume_open(const struct disk *k, int fd, const char *image, const char *part,
		       struct diag *d, struct reader_volume **ret)
{
	const struct disk_part *p = find_part(k, part, d, image);
	const struct reader_browse_ops *ops = p ? ops_of(p) : NULL;
	struct reader_volume *v;
	struct diag inner; /* the file system speaks of its boot sector: say whose */
	int rc;

	*ret = NULL;
	if (!p)
		return -EINVAL;
	if (p->start >= k->size)
		return diag_error(d,
				  "%s: partition %u lies outside the image: it starts at byte "
				  "%llu, "
				  "the image has %llu bytes",
				  image, p->number, (unsigned long long)p->start,
				  (unsigned long long)k->size);
	if (!p->size)
		return diag_error(d,
				  "%s: partition %u is 0 bytes long (its table entry gives it no "
				  "sectors)",
				  image, p->number);
	if (!ops)
		return diag_error(d, "%s: partition %u holds no FAT, exFAT or ext file system",
				  image, p->number);
	v = calloc(1, sizeof(*v));
	if (!v)
		return diag_error(d, "%s: out of memory", image);
	*v = (struct reader_volume){ .ops = ops,
				     .image = image,
				     .part = part,
				     .number = p->number,
				     .end = p->start + p->size,
				     .image_size = k->size };
	diag_init(&inner);
	rc = ops->open(fd, p, image, &inner, &v->fs);
	relay_messages(image, part, &inner, d);
	if (rc < 0) {
		reader_volume_close(v);
		return rc;
	}
	*ret = v;
	return 0;
}

/* After a listing or a file read whole: a partition that runs past the end of the image
 * (its table entry wrong, or the image cut short) is read only as far as its file system
 * reaches, which may be inside the image; say so, since other files may not be there. */
static void warn_beyond_end(const struct reader_volume *v, int rc, struct diag *d)
{
	if (rc == 0 && v->end > v->image_size)
		diag_warning(d,
			     "%s: partition %u ends at byte %llu, past the end of the image (%llu "
			     "bytes): the table is wrong or the image is cut short",
			     v->image, v->number, (unsigned long long)v->end,
			     (unsigned long long)v->image_size);
}

int reader_volume_list(struct reader_volume *v, const char *path, const struct reader_listing *how,
		       struct diag *d)
{
	struct diag inner; /* the file system names paths in the volume: say which volume */
	int rc;

	diag_init(&inner);
	rc = v->ops->list(v->fs, path, how, &inner);
	relay_messages(v->image, v->part, &inner, d);
	warn_beyond_end(v, rc, d);
	return rc;
}

int reader_volume_read(struct reader_volume *v, const char *path,
		       int (*out)(void *ctx, const void *buf, size_t len), void *ctx,
		       struct diag *d)
{
	struct diag inner;
	int rc;

	diag_init(&inner);
	rc = v->ops->read(v->fs, path, out, ctx, &inner);
	relay_messages(v->image, v->part, &inner, d);
	warn_beyond_end(v, rc, d);
	return rc;
}

void reader_volume_close(struct reader_volume *v)
{
	if (!v)
		return;
	if (v->fs)
		v->ops->close(v->fs);
	free(v);
}
