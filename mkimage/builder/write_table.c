/* SPDX-License-Identifier: MIT */
/*
 * write_table: the partition table (MBR with its EBRs, or GPT) through libfdisk, exactly as
 * planned (see builder_priv.h).
 * libfdisk (as util-linux 2.38 ships it) on an image file: the grain is set to one sector
 * before the device is assigned and every size is explicit, so nothing is rounded; the
 * first LBA is lowered to 1 on MBR so that an EBR sits in the sector before its logical
 * partition; every id is given, so nothing random is written.
 */
#include <errno.h>
#include <libfdisk.h>
#include <stdio.h>
#include <string.h>

#include "common/bytes.h"
#include "common/mbr.h"
#include "mkimage/builder/builder.h"
#include "mkimage/builder/tables.h"

#define GPT_ATTR_LEGACY_BIOS_BOOTABLE (1ull << 2) /* UEFI 2.10, table 5.8 */
#define MBR_TYPE_EXTENDED_LBA 0x0f

struct table_ctx {
	struct fdisk_context *cxt;
	const struct layout *l;
	const struct plan *p;
	const char *path;
	struct sha256 *sha; /* for the ids the layout leaves unset */
	struct diag *d;
};

static int fdisk_fail(struct table_ctx *t, int rc, const char *what)
{
	return diag_error(t->d, "%s: partition table: %s: %s", t->path, what,
			  strerror(rc < 0 ? -rc : EIO));
}

static size_t part_index(const struct layout *l, const struct layout_partition *part)
{
	return (size_t)(part - l->parts);
}

/* @uuid (text) and @r's label on a GPT; neither for the extended partition (@r NULL). */
static int add_partition(struct table_ctx *t, size_t partno, uint64_t start, uint64_t size,
			 struct fdisk_parttype *type, const struct plan_region *r, const char *uuid)
{
	struct fdisk_partition *pa = fdisk_new_partition();
	int rc;

	if (!pa)
		return -ENOMEM;
	fdisk_partition_set_partno(pa, partno);
	fdisk_partition_set_start(pa, start / LAYOUT_SECTOR);
	fdisk_partition_set_size(pa, size / LAYOUT_SECTOR);
	fdisk_partition_size_explicit(pa, 1);
	rc = fdisk_partition_set_type(pa, type);
	if (rc == 0 && r && t->l->image.table == LAYOUT_TABLE_GPT) {
		rc = fdisk_partition_set_uuid(pa, uuid);
		if (rc == 0)
			rc = fdisk_partition_set_name(pa, r->part->label);
	}
	if (rc == 0)
		rc = fdisk_add_partition(t->cxt, pa, NULL);
	fdisk_unref_partition(pa);
	return rc;
}

static struct fdisk_parttype *mbr_type(int code)
{
	struct fdisk_parttype *type = fdisk_new_parttype();

	if (type && fdisk_parttype_set_code(type, code) < 0) {
		fdisk_unref_parttype(type);
		return NULL;
	}
	return type;
}

static struct fdisk_parttype *gpt_type(const struct layout_guid *g)
{
	struct fdisk_parttype *type = fdisk_new_parttype();
	char text[37];

	layout_guid_text(g, text);
	if (type && fdisk_parttype_set_typestr(type, text) < 0) {
		fdisk_unref_parttype(type);
		return NULL;
	}
	return type;
}

static int add_region(struct table_ctx *t, const struct plan_region *r, const uint8_t *mbr_types)
{
	bool gpt = t->l->image.table == LAYOUT_TABLE_GPT;
	struct layout_guid g = r->part->uuid;
	char uuid[37];
	int rc = 0;

	if (gpt && !r->part->uuid_set)
		rc = build_id_partition_uuid(t->sha, t->l->image.seed, r->part->name, &g);
	if (rc < 0)
		return rc;
	layout_guid_text(&g, uuid);
	struct fdisk_parttype *type = gpt ? gpt_type(&r->part->gpt_type)
					  : mbr_type(mbr_types[part_index(t->l, r->part)]);
	if (!type)
		return -ENOMEM;
	rc = add_partition(t, r->number - 1, r->start, r->size, type, r, uuid);
	fdisk_unref_parttype(type);
	if (rc == 0 && r->part->bootable && gpt)
		rc = fdisk_gpt_set_partition_attrs(t->cxt, r->number - 1,
						   GPT_ATTR_LEGACY_BIOS_BOOTABLE);
	else if (rc == 0 && r->part->bootable)
		rc = fdisk_toggle_partition_flag(t->cxt, r->number - 1, DOS_FLAG_ACTIVE);
	if (rc < 0) {
		char what[300];
		snprintf(what, sizeof(what), "partition '%.200s'", r->name);
		return fdisk_fail(t, rc, what);
	}
	return 0;
}

static int add_extended(struct table_ctx *t)
{
	struct fdisk_parttype *type = mbr_type(MBR_TYPE_EXTENDED_LBA);
	int rc;

	if (!type)
		return -ENOMEM;
	rc = add_partition(t, t->p->extended_number - 1, t->p->extended_start, t->p->extended_size,
			   type, NULL, NULL);
	fdisk_unref_parttype(type);
	return rc < 0 ? fdisk_fail(t, rc, "the extended partition") : 0;
}

static int add_all(struct table_ctx *t, const uint8_t *mbr_types)
{
	bool extended_done = false;

	for (size_t i = 0; i < t->p->n_regions; i++) {
		const struct plan_region *r = &t->p->regions[i];
		if (r->kind != PLAN_PARTITION || !r->number)
			continue;
		if (r->logical && !extended_done) {
			int rc = add_extended(t);
			if (rc < 0)
				return rc;
			extended_done = true;
		}
		int rc = add_region(t, r, mbr_types);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int create_mbr(struct table_ctx *t)
{
	char id[16];
	uint32_t disk_id = t->l->image.mbr_id;
	int rc = t->l->image.disk_id_set ? 0
					 : build_id_mbr_disk(t->sha, t->l->image.seed, &disk_id);

	if (rc < 0)
		return rc;
	rc = fdisk_create_disklabel(t->cxt, "dos");
	snprintf(id, sizeof(id), "0x%08x", disk_id);
	if (rc == 0)
		fdisk_set_first_lba(t->cxt, 1); /* EBRs right before their logical partitions */
	if (rc == 0)
		rc = fdisk_set_disklabel_id_from_string(t->cxt, id);
	return rc < 0 ? fdisk_fail(t, rc, "creating the MBR") : 0;
}

static int create_gpt(struct table_ctx *t)
{
	struct fdisk_script *s = fdisk_new_script(t->cxt);
	struct layout_guid g = t->l->image.gpt_id;
	char id[37], first[24], last[24];
	int rc;

	if (!s)
		return -ENOMEM;
	if (!t->l->image.disk_id_set && build_id_gpt_disk(t->sha, t->l->image.seed, &g) < 0) {
		fdisk_unref_script(s);
		return -EIO;
	}
	layout_guid_text(&g, id);
	snprintf(first, sizeof(first), "%llu",
		 (unsigned long long)((t->p->first_usable + LAYOUT_SECTOR - 1) / LAYOUT_SECTOR));
	snprintf(last, sizeof(last), "%llu",
		 (unsigned long long)(t->p->last_usable / LAYOUT_SECTOR - 1));
	rc = fdisk_script_set_header(s, "label", "gpt");
	if (rc == 0)
		rc = fdisk_script_set_header(s, "label-id", id);
	if (rc == 0)
		rc = fdisk_script_set_header(s, "first-lba", first);
	if (rc == 0)
		rc = fdisk_script_set_header(s, "last-lba", last);
	if (rc == 0)
		rc = fdisk_script_set_header(s, "table-length", "128");
	if (rc == 0)
		rc = fdisk_set_script(t->cxt, s);
	if (rc == 0)
		rc = fdisk_create_disklabel(t->cxt, "gpt");
	fdisk_set_script(t->cxt, NULL);
	fdisk_unref_script(s);
	return rc < 0 ? fdisk_fail(t, rc, "creating the GPT") : 0;
}

static int write_table(struct table_ctx *t, int fd, const uint8_t *mbr_types)
{
	bool gpt = t->l->image.table == LAYOUT_TABLE_GPT;
	int rc;

	fdisk_save_user_grain(t->cxt, LAYOUT_SECTOR); /* before the device: no rounding */
	rc = fdisk_assign_device_by_fd(t->cxt, fd, t->path, 0);
	if (rc < 0)
		return fdisk_fail(t, rc, "opening the image");
	fdisk_disable_dialogs(t->cxt, 1);
	rc = gpt ? create_gpt(t) : create_mbr(t);
	if (rc == 0)
		rc = add_all(t, mbr_types);
	if (rc == 0 && (rc = fdisk_write_disklabel(t->cxt)) < 0)
		rc = fdisk_fail(t, rc, "writing");
	/* not fdisk_deassign_device(): it fsync()s the descriptor it was given, a journal
	 * commit of the image in the middle of its build that the fsync() before it is named
	 * makes needless; fdisk_unref_context() lets go of it without that */
	return rc;
}

/*
 * libfdisk ends a GPT's protective entry at CHS 0xFFFFFF whatever the disk's size; UEFI 2.10
 * §5.2.3 asks for the CHS of the entry's last LBA where it can be represented (see
 * mbr_protective_end_chs()). Set once the entry's size is final (gpt-backup = false changes
 * it); the entry's other bytes stay as they are.
 */
static int set_protective_end_chs(int fd, const char *path, struct diag *d)
{
	uint8_t e[MBR_ENTRY_SIZE];
	int rc = build_pread_all(fd, e, sizeof(e), MBR_ENTRIES);

	if (rc == 0 && e[MBR_ENT_TYPE] != MBR_TYPE_GPT_PROTECTIVE)
		rc = -EILSEQ;
	if (rc == 0) {
		uint64_t last = (uint64_t)get_le32(e + MBR_ENT_START_LBA) +
				get_le32(e + MBR_ENT_SIZE_LBA) - 1;
		mbr_protective_end_chs(last, e + MBR_ENT_END_CHS);
		rc = build_pwrite_all(fd, e + MBR_ENT_END_CHS, 3, MBR_ENTRIES + MBR_ENT_END_CHS);
	}
	if (rc < 0)
		return diag_error(d, "%s: the protective MBR: %s", path,
				  rc == -EILSEQ ? "no 0xEE entry as libfdisk writes it"
						: strerror(-rc));
	return 0;
}

int build_write_table(const struct layout *l, const struct plan *p, const uint8_t *mbr_types,
		      int fd, const char *path, struct sha256 *sha, struct diag *d)
{
	struct table_ctx t = { .l = l, .p = p, .path = path, .sha = sha, .d = d };
	bool gpt = l->image.table == LAYOUT_TABLE_GPT;
	int rc;

	if (l->image.table == LAYOUT_TABLE_NONE)
		return 0;
	if (gpt && !p->gpt_backup && (rc = build_gpt_backup_room(fd, p->image_size, path, d)) < 0)
		return rc;
	t.cxt = fdisk_new_context();
	if (!t.cxt)
		return diag_error(d, "%s: out of memory", path);
	rc = write_table(&t, fd, mbr_types);
	fdisk_unref_context(t.cxt);
	if (rc == 0 && gpt && l->image.gpt_entries != 2 * LAYOUT_SECTOR)
		rc = build_move_gpt_entries(fd, l->image.gpt_entries / LAYOUT_SECTOR, path, d);
	if (rc == 0 && gpt && !p->gpt_backup)
		rc = build_drop_gpt_backup(fd, p->image_size, path, d);
	if (rc == 0 && gpt)
		rc = set_protective_end_chs(fd, path, d);
	if (rc == 0 && p->hybrid)
		rc = build_write_hybrid_mbr(l, p, mbr_types, fd, path, sha, d);
	return rc == -ENOMEM ? diag_errno(d, rc, "%s: out of memory", path) : rc;
}
