/* table: the partition table through libfdisk, the free stretches, and the probes (reader.h). */
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
	if (fdisk_is_label(cxt, GPT) && fdisk_gpt_get_partition_attrs(cxt, p->number - 1, &attrs) == 0)
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

static int by_start(const void *a, const void *b)
{
	const struct disk_part *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * The free stretches between the table's own structures, the partitions and the end.
 * Computed here: libfdisk's free-space list asserts (aborts) on some broken tables.
 */
static int find_gaps(struct disk *k)
{
	uint64_t pos = 512, end = k->size, first = 0, last = 0;
	size_t cap = 0;
	uint8_t h[512];

	if (!strcmp(k->table, "gpt") && pread(k->fd, h, sizeof(h), 512) == 512) {
		first = get_le64(h + 40) * 512; /* FirstUsableLBA, LastUsableLBA (UEFI 5.3.2) */
		last = (get_le64(h + 48) + 1) * 512;
		pos = first > pos && first < k->size ? first : 34 * 512;
		end = last > pos && last <= k->size ? last : k->size;
	}
	struct disk_part *sorted = malloc((k->n_parts ? k->n_parts : 1) * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	if (k->n_parts)
		memcpy(sorted, k->parts, k->n_parts * sizeof(*sorted));
	if (k->n_parts > 1)
		qsort(sorted, k->n_parts, sizeof(*sorted), by_start);
	for (size_t i = 0; i <= k->n_parts; i++) {
		bool container = i < k->n_parts && sorted[i].content == CONTENT_CONTAINER;
		uint64_t next = i < k->n_parts ? sorted[i].start : end;
		if (container)
			continue;
		/* an EBR's sector before a logical partition is not free space */
		if (next > pos + 512 && next <= end &&
		    array_grow((void **)&k->gaps, &cap, k->n_gaps + 1, sizeof(*k->gaps)) == 0)
			k->gaps[k->n_gaps++] = (struct disk_gap){ pos, next - pos };
		if (i < k->n_parts && sorted[i].start + sorted[i].size > pos)
			pos = sorted[i].start + sorted[i].size;
	}
	free(sorted);
	return 0;
}

static int read_table(struct disk *k, struct diag *d)
{
	struct fdisk_context *cxt = fdisk_new_context();
	char *id = NULL;
	int rc;

	if (!cxt)
		return -ENOMEM;
	rc = fdisk_assign_device_by_fd(cxt, k->fd, k->path, 1);
	if (rc < 0) {
		fdisk_unref_context(cxt);
		return diag_error(d, "%s: cannot read it as a disk: %s", k->path, strerror(-rc));
	}
	if (!fdisk_has_label(cxt)) {
		/* libfdisk refuses a GPT with a broken header; the report still says so */
		snprintf(k->table, sizeof(k->table), "%s", reader_gpt_present(k) ? "gpt" : "none");
		k->table_unreadable = !strcmp(k->table, "gpt");
	} else {
		snprintf(k->table, sizeof(k->table), "%s", fdisk_is_label(cxt, GPT) ? "gpt" : "mbr");
		if (fdisk_get_disklabel_id(cxt, &id) == 0 && id)
			snprintf(k->id, sizeof(k->id), "%s", id);
		free(id);
		rc = read_partitions(k, cxt);
		if (rc == 0)
			rc = find_gaps(k);
	}
	fdisk_deassign_device(cxt, 1);
	fdisk_unref_context(cxt);
	return rc;
}

int reader_read_disk(struct disk *k, const char *path, int fd, struct diag *d)
{
	int rc;

	memset(k, 0, sizeof(*k));
	k->path = path;
	k->fd = fd;
	rc = reader_size_of(fd, &k->size);
	if (rc < 0)
		return diag_error(d, "%s: %s", path,
				  rc == -ENOTBLK ? "not an image file or a block device" : strerror(-rc));
	if (k->size < 512)
		return diag_error(d, "%s: %llu bytes: too small for a disk image", path,
				  (unsigned long long)k->size);
	rc = read_table(k, d);
	if (rc == 0 && !strcmp(k->table, "gpt"))
		reader_check_gpt(k);
	if (rc == 0)
		rc = reader_probe_all(k, d);
	if (rc == -ENOMEM)
		diag_error(d, "%s: out of memory", path);
	return rc;
}

void reader_release_disk(struct disk *k)
{
	free(k->parts);
	free(k->gaps);
	memset(k, 0, sizeof(*k));
}

int reader_open(const char *path, struct diag *d)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		int e = errno;
		diag_error(d, "%s: %s", path, strerror(e));
		return -e;
	}
	if (fstat(fd, &st) < 0 || (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))) {
		close(fd);
		return diag_error(d, "%s: neither an image file nor a block device", path);
	}
	/* reads wait for the data again */
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		int e = errno;
		close(fd);
		diag_error(d, "%s: %s", path, strerror(e));
		return -e;
	}
	return fd;
}
