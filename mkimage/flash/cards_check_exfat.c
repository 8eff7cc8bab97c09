/* SPDX-License-Identifier: MIT */
/*
 * cards_check_exfat: an exfat-file of a per-card manifest against the exFAT volume it names
 * (see flash_priv.h), as cards_check.c checks a fat-file against its FAT volume: the
 * volume's geometry puts its clusters, its entry set and its bits of the allocation bitmap
 * where the manifest says, the set is the one its path names, and the image holds what a
 * card with the template as its content would.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bytes.h"
#include "common/utf8.h"
#include "exfat/exfat.h"
#include "exfat/ondisk.h"
#include "mkimage/flash/flash_priv.h"

#define NAME_UNITS_PER_ENTRY 15u /* FileName of a File Name entry (exFAT specification §7.7) */

struct xcheck {
	int fd;
	const char *image;
	const struct cards_file *f;
	struct exfat_vol *v;
	const struct exfat_info *in;
	char *why;
	size_t why_len;
	struct diag *d;
};

/* Why the manifest is wrong, into x->why; -EINVAL. */
__attribute__((format(printf, 2, 3))) static int wrong(struct xcheck *x, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(x->why, x->why_len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int read_at(const struct xcheck *x, void *buf, size_t len, uint64_t at)
{
	ssize_t got = pread(x->fd, buf, len, (off_t)at);

	if (got < 0 || (size_t)got != len)
		return diag_error(x->d, "%s: cannot read %zu bytes at %" PRIu64 ": %s", x->image,
				  len, at, got < 0 ? strerror(errno) : "too short");
	return 0;
}

/* The image's byte offset of cluster @c. */
static uint64_t cluster_at(const struct xcheck *x, uint32_t c)
{
	return x->f->volume + (uint64_t)x->in->heap_offset * EXFAT_SECTOR +
	       (uint64_t)(c - EXFAT_FIRST_CLUSTER) * x->in->cluster_size;
}

/* Its clusters, its data, its set and the bitmap where the volume's geometry has them. */
static int check_geometry(struct xcheck *x)
{
	const struct cards_file *f = x->f;
	const struct exfat_info *in = x->in;
	struct exfat_card_file xf = flash_exfat_file(f);
	uint64_t heap = cluster_at(x, EXFAT_FIRST_CLUSTER);
	uint64_t end = heap + (uint64_t)in->clusters * in->cluster_size;
	uint64_t set_end = f->entry + (uint64_t)f->set_count * EXFAT_DENTRY_SIZE;

	if (f->cluster_size != in->cluster_size)
		return wrong(x, "the volume is exFAT of %" PRIu32 "-byte clusters, not %" PRIu32,
			     in->cluster_size, f->cluster_size);
	if (!f->clusters ||
	    (uint64_t)f->first_cluster + f->clusters > (uint64_t)in->clusters + EXFAT_FIRST_CLUSTER)
		return wrong(x, "clusters %" PRIu32 "-%" PRIu64 " are not all in the volume",
			     f->first_cluster, (uint64_t)f->first_cluster + f->clusters - 1);
	if (f->data != cluster_at(x, f->first_cluster))
		return wrong(x,
			     "its data at byte %" PRIu64 " is not where cluster %" PRIu32 " starts",
			     f->data, f->first_cluster);
	if (f->bitmap != cluster_at(x, in->bitmap_cluster) ||
	    exfat_card_bitmap_start(&xf) + exfat_card_bitmap_len(&xf) > in->bitmap_bytes)
		return wrong(x, "byte %" PRIu64 " is not the volume's allocation bitmap",
			     f->bitmap);
	if (f->entry < heap || set_end > end || (f->entry - heap) % EXFAT_DENTRY_SIZE ||
	    (f->entry < f->data + (uint64_t)f->clusters * f->cluster_size && set_end > f->data))
		return wrong(x,
			     "its entry set at byte %" PRIu64 " is in no directory of the volume",
			     f->entry);
	return 0;
}

/* The name the set @set holds (UTF-8 into @out), or "" when its entries are not a File
 * entry, a Stream Extension and File Name entries of the set's size. */
static void set_name(const struct xcheck *x, const uint8_t *set, char *out, size_t cap)
{
	unsigned n = x->f->set_count, len = set[EXFAT_DENTRY_SIZE + EXFAT_SE_NAMELENGTH];
	uint16_t units[EXFAT_NAME_MAX];

	out[0] = '\0';
	if (set[0] != EXFAT_TYPE_FILE || set[EXFAT_FE_SECONDARYCOUNT] != n - 1 ||
	    set[EXFAT_DENTRY_SIZE] != EXFAT_TYPE_STREAM || !len ||
	    (len + NAME_UNITS_PER_ENTRY - 1) / NAME_UNITS_PER_ENTRY != n - 2)
		return;
	for (unsigned i = 0; i < len; i++) {
		const uint8_t *e = set + (2 + i / NAME_UNITS_PER_ENTRY) * EXFAT_DENTRY_SIZE;
		if (e[0] != EXFAT_TYPE_NAME)
			return;
		units[i] = get_le16(e + EXFAT_FN_FILENAME + 2 * (i % NAME_UNITS_PER_ENTRY));
	}
	if (utf8_from_utf16(units, len, out, cap) < 0)
		out[0] = '\0';
}

/* The listing's entry of the sought name. */
struct sought {
	const char *key;
	struct exfat_dirent e;
	bool found;
};

static int take(void *ctx, const struct exfat_dirent *e)
{
	struct sought *s = ctx;
	char *k = exfat_path_key(e->name);

	if (!k)
		return -ENOMEM;
	if (!s->found && strcmp(k, s->key) == 0) {
		s->e = *e;
		s->found = true;
	}
	free(k);
	return 0;
}

/* The set at f->entry is the one the volume finds at f->path: its name, first cluster and
 * length. */
static int check_path(struct xcheck *x, const uint8_t *set)
{
	const struct cards_file *f = x->f;
	const char *slash = strrchr(f->path, '/');
	char name[EXFAT_NAME_MAX * 3 + 1];
	struct sought s = { 0 };
	struct diag scratch;
	int rc = 0;

	if (!slash)
		return wrong(x, "the path does not start with /");
	char *folder = strndup(f->path, (size_t)(slash - f->path));
	char *key = exfat_path_key(slash + 1);
	set_name(x, set, name, sizeof(name));
	char *set_key = exfat_path_key(name);
	if (!folder || !key || !set_key)
		rc = -ENOMEM;
	s.key = key;
	diag_init(&scratch);
	/* a folder that cannot be listed leaves the file unfound: refused below */
	if (rc == 0 && exfat_vol_list(x->v, *folder ? folder : "/", take, &s, &scratch) == -ENOMEM)
		rc = -ENOMEM;
	diag_release(&scratch);
	const uint8_t *se = set + EXFAT_DENTRY_SIZE;
	if (rc == 0 && !s.found)
		rc = wrong(x, "the volume has no file at this path");
	else if (rc == 0 && (strcmp(key, set_key) != 0 ||
			     s.e.first_cluster != get_le32(se + EXFAT_DE_FIRSTCLUSTER) ||
			     s.e.size != get_le64(se + EXFAT_DE_DATALENGTH)))
		rc = wrong(x, "the entry set at byte %" PRIu64 " is not the file's", f->entry);
	free(folder);
	free(key);
	free(set_key);
	return rc;
}

/* The image holds what a card with the template as its content would: the template at its
 * data, its set's lengths and SetChecksum, its bits in the allocation bitmap. */
static int check_template(struct xcheck *x, uint8_t *set)
{
	const struct cards_file *f = x->f;
	struct exfat_card_file xf = flash_exfat_file(f);
	size_t tlen = strlen(f->template), slen = (size_t)f->set_count * EXFAT_DENTRY_SIZE;
	size_t blen = (size_t)exfat_card_bitmap_len(&xf);
	size_t most = (tlen > blen ? tlen : blen) + 1;
	uint8_t *buf = malloc(most), *want = malloc(most > slen ? most : slen);
	int rc = buf && want ? read_at(x, buf, tlen, f->data) : -ENOMEM;

	if (rc == 0 && memcmp(buf, f->template, tlen) != 0)
		rc = wrong(x, "the image does not hold its template at byte %" PRIu64, f->data);
	if (rc == 0) {
		memcpy(want, set, slen);
		exfat_card_entries(&xf, tlen, want);
		if (set[0] != EXFAT_TYPE_FILE || memcmp(want, set, slen) != 0)
			rc = wrong(x,
				   "the entry set at byte %" PRIu64 " does not name a file of "
				   "%zu bytes from cluster %" PRIu32,
				   f->entry, tlen, tlen ? f->first_cluster : 0);
	}
	uint64_t at = f->bitmap + exfat_card_bitmap_start(&xf);
	if (rc == 0 && (rc = read_at(x, buf, blen, at)) == 0) {
		memcpy(want, buf, blen);
		exfat_card_bitmap(&xf, tlen, want);
		if (memcmp(want, buf, blen) != 0)
			rc = wrong(x,
				   "the allocation bitmap does not mark clusters %" PRIu32
				   "-%" PRIu64 " as the template's length says",
				   f->first_cluster, (uint64_t)f->first_cluster + f->clusters - 1);
	}
	free(buf);
	free(want);
	return rc;
}

int flash_exfat_card_check(int fd, const char *image, const struct cards_file *f,
			   uint64_t part_size, char *why, size_t why_len, struct diag *d)
{
	struct xcheck x = { .fd = fd,
			    .image = image,
			    .f = f,
			    .why = why,
			    .why_len = why_len,
			    .d = d };
	uint8_t *set = malloc((size_t)f->set_count * EXFAT_DENTRY_SIZE);
	struct diag scratch;
	int rc = set ? 0 : -ENOMEM;

	diag_init(&scratch);
	if (rc == 0 && (rc = exfat_vol_open(fd, f->volume, part_size, &x.v, &scratch)) < 0)
		rc = rc == -ENOMEM
			     ? rc
			     : wrong(&x,
				     "the partition at byte %" PRIu64 " holds no exFAT "
				     "volume: %s",
				     f->volume, scratch.n ? scratch.msgs[0].text : strerror(-rc));
	diag_release(&scratch);
	if (rc == 0) {
		x.in = exfat_vol_info(x.v);
		rc = check_geometry(&x);
	}
	if (rc == 0)
		rc = read_at(&x, set, (size_t)f->set_count * EXFAT_DENTRY_SIZE, f->entry);
	if (rc == 0)
		rc = check_template(&x, set);
	if (rc == 0)
		rc = check_path(&x, set);
	exfat_vol_close(x.v);
	free(set);
	return rc;
}
