/* SPDX-License-Identifier: MIT */
/* table: the partition table through libfdisk (or a bare volume), the free stretches, and
 * the probes (reader.h). */
#include "mkimage/reader/reader.h"

#include <errno.h>
#include <fcntl.h>
#include <libfdisk.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/array.h"
#include "common/bytes.h"
#include "common/gpt.h"
#include "common/simg.h"
#include "mkimage/reader/reader_priv.h"

int reader_size_of(int fd, uint64_t *ret)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISBLK(st.st_mode))
		return ioctl(fd, BLKGETSIZE64, ret) < 0 ? -errno : 0;
	if (!S_ISREG(st.st_mode))
		return -ENOTBLK;
	*ret = (uint64_t)st.st_size;
	return 0;
}

static void part_from_fdisk(struct fdisk_context *cxt, struct fdisk_partition *pa,
			    struct disk_part *p)
{
	struct fdisk_parttype *t = fdisk_partition_get_type(pa);
	const char *name = fdisk_partition_get_name(pa), *uuid = fdisk_partition_get_uuid(pa);
	uint64_t attrs = 0;

	p->number = (unsigned)fdisk_partition_get_partno(pa) + 1;
	p->start = (uint64_t)fdisk_partition_get_start(pa) * 512;
	p->size = (uint64_t)fdisk_partition_get_size(pa) * 512;
	p->bootable = fdisk_partition_is_bootable(pa) == 1;
	if (fdisk_is_label(cxt, GPT) &&
	    fdisk_gpt_get_partition_attrs(cxt, p->number - 1, &attrs) == 0)
		p->bootable = (attrs >> 2) & 1; /* LegacyBIOSBootable (UEFI 2.10, table 5.8) */
	if (t && fdisk_parttype_get_string(t))
		snprintf(p->type, sizeof(p->type), "%s", fdisk_parttype_get_string(t));
	else if (t)
		snprintf(p->type, sizeof(p->type), "0x%02x", fdisk_parttype_get_code(t));
	if (t && fdisk_parttype_get_name(t))
		snprintf(p->type_name, sizeof(p->type_name), "%s", fdisk_parttype_get_name(t));
	snprintf(p->name, sizeof(p->name), "%s", name ? name : "");
	snprintf(p->uuid, sizeof(p->uuid), "%s", uuid ? uuid : "");
	if (fdisk_partition_is_container(pa))
		p->content = CONTENT_CONTAINER;
}

static int add_part(struct disk *k, size_t *cap, const struct disk_part *p)
{
	if (array_grow((void **)&k->parts, cap, k->n_parts + 1, sizeof(*k->parts)) < 0)
		return -ENOMEM;
	k->parts[k->n_parts++] = *p;
	return 0;
}

static int read_partitions(struct disk *k, struct fdisk_context *cxt)
{
	struct fdisk_table *tb = NULL;
	struct fdisk_iter *it = fdisk_new_iter(FDISK_ITER_FORWARD);
	struct fdisk_partition *pa = NULL;
	size_t cap = 0;
	int rc = it ? fdisk_get_partitions(cxt, &tb) : -ENOMEM;

	while (rc == 0 && fdisk_table_next_partition(tb, it, &pa) == 0) {
		struct disk_part p = { 0 };
		part_from_fdisk(cxt, pa, &p);
		rc = add_part(k, &cap, &p);
	}
	fdisk_free_iter(it);
	fdisk_unref_table(tb);
	return rc;
}

struct range {
	uint64_t start, end;
};

static int by_start(const void *a, const void *b)
{
	const struct range *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int add_range(struct range **v, size_t *n, size_t *cap, uint64_t start, uint64_t size)
{
	if (!size)
		return 0;
	if (array_grow((void **)v, cap, *n + 1, sizeof(**v)) < 0)
		return -ENOMEM;
	(*v)[(*n)++] = (struct range){ start, start + size };
	return 0;
}

/* The GPT header at @lba and the entry array it points to, as ranges (whatever their CRCs). */
static int add_gpt_structures(const struct disk *k, uint64_t lba, struct range **v, size_t *n,
			      size_t *cap)
{
	uint8_t h[512];

	if (lba >= k->size / 512 || pread(k->fd, h, sizeof(h), (off_t)(lba * 512)) != 512 ||
	    memcmp(h + GPT_HDR_SIGNATURE, GPT_SIGNATURE, GPT_SIGNATURE_LEN) != 0)
		return 0;
	uint64_t bytes = (uint64_t)get_le32(h + GPT_HDR_ENTRY_COUNT) *
			 get_le32(h + GPT_HDR_ENTRY_SIZE);
	uint64_t at = get_le64(h + GPT_HDR_ENTRIES_LBA);
	int rc = add_range(v, n, cap, lba * 512, 512);
	if (rc == 0 && at < k->size / 512)
		rc = add_range(v, n, cap, at * 512,
			       bytes < k->size - at * 512 ? bytes : k->size - at * 512);
	return rc;
}

/* What the table itself occupies besides sector 0: every EBR, both GPT headers and arrays. */
static int add_table_structures(const struct disk *k, struct range **v, size_t *n, size_t *cap)
{
	uint64_t ebr[256];
	int rc = 0;

	if (!strcmp(k->table, "gpt"))
		return add_gpt_structures(k, GPT_HEADER_LBA, v, n, cap) ||
				       add_gpt_structures(k, k->gpt_backup_lba, v, n, cap)
			       ? -ENOMEM
			       : 0;
	size_t count = reader_ebr_sectors(k, ebr, sizeof(ebr) / sizeof(*ebr));
	for (size_t i = 0; rc == 0 && i < count; i++)
		rc = add_range(v, n, cap, ebr[i] * 512, 512);
	return rc;
}

/*
 * The free stretches between the table's own structures, the partitions and the end (for a
 * GPT: within its usable LBAs). Computed here: libfdisk's free-space list asserts (aborts) on
 * some broken tables.
 */
static int find_gaps(struct disk *k)
{
	uint64_t pos = 512, end = k->size, first, last;
	size_t n = 0, cap = 0, gcap = 0;
	struct range *v = NULL;
	uint8_t h[512];
	int rc = 0;

	if (!strcmp(k->table, "gpt") && pread(k->fd, h, sizeof(h), 512) == 512) {
		first = get_le64(h + GPT_HDR_FIRST_USABLE) * 512;
		last = (get_le64(h + GPT_HDR_LAST_USABLE) + 1) * 512;
		pos = first > pos && first < k->size ? first : 34 * 512;
		end = last > pos && last <= k->size ? last : k->size;
	}
	for (size_t i = 0; rc == 0 && i < k->n_parts; i++)
		if (k->parts[i].content != CONTENT_CONTAINER)
			rc = add_range(&v, &n, &cap, k->parts[i].start, k->parts[i].size);
	if (rc == 0)
		rc = add_table_structures(k, &v, &n, &cap);
	if (rc == 0 && n > 1)
		qsort(v, n, sizeof(*v), by_start);
	for (size_t i = 0; rc == 0 && i <= n && pos < end; i++) {
		uint64_t next = i < n && v[i].start < end ? v[i].start : end;
		if (next > pos) {
			if (array_grow((void **)&k->gaps, &gcap, k->n_gaps + 1, sizeof(*k->gaps)) <
			    0)
				rc = -ENOMEM;
			else
				k->gaps[k->n_gaps++] = (struct disk_gap){ pos, next - pos };
		}
		if (i < n && v[i].end > pos)
			pos = v[i].end;
	}
	free(v);
	return rc;
}

/* A protective (0xEE) record in the MBR sector @s. */
static bool mbr_protective(const uint8_t s[512])
{
	struct reader_mbr_entry e[4];

	reader_mbr_entries(s, e);
	for (unsigned i = 0; i < 4; i++)
		if (e[i].used && e[i].type == MBR_TYPE_GPT_PROTECTIVE)
			return true;
	return false;
}

/* The GPT libfdisk could not read as one (it refuses a primary whose backup lies past the
 * end, and then sees the protective MBR): the primary, read directly when it is intact. */
static int read_gpt_directly(struct disk *k, struct fdisk_context *cxt)
{
	int rc;

	snprintf(k->table, sizeof(k->table), "gpt");
	k->n_parts = 0;
	rc = reader_read_primary_gpt(k, cxt);
	if (rc == -EINVAL) {
		k->table_unreadable = true;
		return 0;
	}
	return rc;
}

static int read_table(struct disk *k, struct diag *d)
{
	struct fdisk_context *cxt;
	uint8_t s0[512];
	char *id = NULL;
	int rc;

	if (pread(k->fd, s0, sizeof(s0), 0) != (ssize_t)sizeof(s0))
		return diag_error(d, "%s: cannot read its first sector", k->path);
	bool gpt = reader_gpt_present(k);
	/* mkfs.fat and `table = none` write a volume's boot sector, 55 AA included, where an
	 * MBR would be: a valid BPB without a plausible partition record is no MBR; an exFAT
	 * boot sector (mkfs.exfat on a whole card) names itself, and its boot code fills the
	 * records' place */
	if (!gpt && (exfat_boot_sector_claimed(s0) ||
		     (fat_boot_sector_valid(s0) && !reader_mbr_plausible(s0, k->size / 512)))) {
		snprintf(k->table, sizeof(k->table), "none");
		return 0;
	}
	cxt = fdisk_new_context();
	if (!cxt)
		return -ENOMEM;
	rc = fdisk_assign_device_by_fd(cxt, k->fd, k->path, 1);
	if (rc < 0) {
		fdisk_unref_context(cxt);
		return diag_error(d, "%s: cannot read it as a disk: %s", k->path, strerror(-rc));
	}
	bool label = fdisk_has_label(cxt), as_gpt = label && fdisk_is_label(cxt, GPT);
	if (gpt && !as_gpt && (!label || mbr_protective(s0))) {
		rc = read_gpt_directly(k, cxt);
	} else if (!label) {
		snprintf(k->table, sizeof(k->table), "none");
	} else {
		snprintf(k->table, sizeof(k->table), "%s", as_gpt ? "gpt" : "mbr");
		if (fdisk_get_disklabel_id(cxt, &id) == 0 && id)
			snprintf(k->id, sizeof(k->id), "%s", id);
		free(id);
		rc = read_partitions(k, cxt);
	}
	/* not fdisk_deassign_device(): on a descriptor it was given, it fsync()s it, which on a
	 * card asks the device to flush its cache; the context lets go of it without that */
	fdisk_unref_context(cxt);
	return rc;
}

static int read_disk(struct disk *k, const char *path, int fd, bool count, struct diag *d)
{
	int rc;

	memset(k, 0, sizeof(*k));
	k->path = path;
	k->fd = fd;
	rc = reader_size_of(fd, &k->size);
	if (rc < 0)
		return diag_error(d, "%s: %s", path,
				  rc == -ENOTBLK ? "not an image file or a block device"
						 : strerror(-rc));
	if (k->size < 512)
		return diag_error(d, "%s: %llu bytes: too small for a disk image", path,
				  (unsigned long long)k->size);
	rc = read_table(k, d);
	if (rc == 0 && !strcmp(k->table, "gpt"))
		reader_check_gpt(k);
	if (rc == 0 && !k->table_unreadable && strcmp(k->table, "none") != 0)
		rc = find_gaps(k);
	if (rc == 0)
		rc = reader_probe_all(k, count, d);
	return rc == -ENOMEM ? diag_errno(d, rc, "%s: out of memory", path) : rc;
}

int reader_read_disk(struct disk *k, const char *path, int fd, struct diag *d)
{
	return read_disk(k, path, fd, true, d);
}

int reader_read_disk_uncounted(struct disk *k, const char *path, int fd, struct diag *d)
{
	return read_disk(k, path, fd, false, d);
}

void reader_release_disk(struct disk *k)
{
	free(k->parts);
	free(k->gaps);
	memset(k, 0, sizeof(*k));
}

/* An Android sparse image file @fd (common/simg.h) as the image it holds, in an unnamed
 * file (@fd closed); any other file as it is. */
static int open_sparse(int fd, const char *path, uint64_t size, struct diag *d)
{
	uint8_t magic[4];
	struct simg s;
	int out = -1;

	if (pread(fd, magic, sizeof(magic), 0) != (ssize_t)sizeof(magic) ||
	    !simg_is_sparse(magic, sizeof(magic)))
		return fd;
	int rc = simg_open_expanded(fd, size, path, &s, &out, d);
	close(fd);
	simg_release(&s);
	return rc < 0 ? rc : out;
}

int reader_open(const char *path, struct diag *d)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return diag_errno(d, -errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))) {
		close(fd);
		return diag_error(d, "%s: neither an image file nor a block device", path);
	}
	/* reads wait for the data again */
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		int e = errno;
		close(fd);
		return diag_errno(d, -e, "%s: %s", path, strerror(e));
	}
	return S_ISREG(st.st_mode) ? open_sparse(fd, path, (uint64_t)st.st_size, d) : fd;
}
