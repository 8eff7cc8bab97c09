/* SPDX-License-Identifier: MIT */
/*
 * fat/read: opens a FAT volume and validates its boot sector. Nothing on the disk is
 * trusted: every field is checked before use, allocations are bounded by constants (one
 * cluster of at most 512K, one sector, 1 MiB of FAT while counting free clusters), and
 * cluster chains are followed for at most the number of clusters they can legally have, so
 * loops end in an error.
 */
#include "fat/read_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bytes.h"
#include "common/path.h"
#include "fat/ondisk.h"

int fat_rd_pread(struct fat_vol *v, void *buf, size_t len, uint64_t off, struct diag *d)
{
	int r = path_pread_full(v->fd, buf, len, v->off + off);

	if (r == -ENODATA)
		return diag_errno(d, -EIO,
				  "reading the FAT volume at byte %" PRIu64 ": end of file",
				  v->off + off);
	if (r < 0)
		return diag_errno(d, r, "reading the FAT volume at byte %" PRIu64 ": %s",
				  v->off + off, strerror(-r));
	return 0;
}

static int is_pow2(uint32_t x)
{
	return x && !(x & (x - 1));
}

/* Basic BPB fields (fatgen103 §3.1, ondisk.h); fills v->info partly. */
static int check_bpb(struct fat_vol *v, const uint8_t *s, struct diag *d)
{
	struct fat_info *i = &v->info;

	if (s[FAT_SIGNATURE_OFFSET] != 0x55 || s[FAT_SIGNATURE_OFFSET + 1] != 0xAA)
		return diag_error(d, "no boot sector signature 55 AA: not a FAT volume");
	if (!((s[BS_JMPBOOT] == 0xEB && s[BS_JMPBOOT + 2] == 0x90) || s[BS_JMPBOOT] == 0xE9))
		return diag_error(d, "no jump instruction at byte 0: not a FAT boot sector");
	i->bytes_per_sector = get_le16(s + BPB_BYTSPERSEC);
	if (i->bytes_per_sector < 512 || i->bytes_per_sector > 4096 ||
	    !is_pow2(i->bytes_per_sector))
		return diag_error(d, "bytes per sector %u: must be 512, 1024, 2048 or 4096",
				  i->bytes_per_sector);
	if (!is_pow2(s[BPB_SECPERCLUS]))
		return diag_error(d, "sectors per cluster %u: must be a power of two up to 128",
				  s[BPB_SECPERCLUS]);
	i->cluster_size = s[BPB_SECPERCLUS] * i->bytes_per_sector;
	i->reserved = get_le16(s + BPB_RSVDSECCNT);
	i->fats = s[BPB_NUMFATS];
	i->root_entries = get_le16(s + BPB_ROOTENTCNT);
	i->total_sectors = get_le16(s + BPB_TOTSEC16) ? get_le16(s + BPB_TOTSEC16)
						      : get_le32(s + BPB_TOTSEC32);
	i->fat_sectors = get_le16(s + BPB_FATSZ16) ? get_le16(s + BPB_FATSZ16)
						   : get_le32(s + BPB_FATSZ32);
	i->hidden_sectors = get_le32(s + BPB_HIDDSEC);
	if (!i->reserved)
		return diag_error(d, "reserved sector count is 0");
	if (i->fats < 1 || i->fats > 4)
		return diag_error(d, "number of FATs %u: must be 1 to 4", i->fats);
	if (!i->total_sectors)
		return diag_error(d, "total sector count is 0");
	if (!i->fat_sectors)
		return diag_error(d, "FAT size is 0");
	if (s[BPB_MEDIA] != 0xF0 && s[BPB_MEDIA] < 0xF8)
		return diag_error(d, "media byte 0x%02X is not a FAT media descriptor",
				  s[BPB_MEDIA]);
	return 0;
}

/* Cluster count, FAT type and the sizes that follow from them. */
static int check_layout(struct fat_vol *v, const uint8_t *s, uint64_t size, struct diag *d)
{
	struct fat_info *i = &v->info;
	uint64_t bps = i->bytes_per_sector, spc = s[BPB_SECPERCLUS];
	uint64_t rds = ((uint64_t)i->root_entries * FAT_DIRENT_SIZE + bps - 1) / bps;
	uint64_t sys = i->reserved + (uint64_t)i->fats * i->fat_sectors + rds;
	bool fat32_bpb = get_le16(s + BPB_FATSZ16) == 0;

	if (sys >= i->total_sectors)
		return diag_error(d,
				  "the system area (%" PRIu64 " sectors) does not leave room for "
				  "data in %u sectors",
				  sys, i->total_sectors);
	if (size && (uint64_t)i->total_sectors * bps > size)
		return diag_error(d,
				  "the volume claims %" PRIu64 " bytes but only %" PRIu64
				  " are there",
				  (uint64_t)i->total_sectors * bps, size);
	i->clusters = (uint32_t)((i->total_sectors - sys) / spc);
	i->type = i->clusters < 4085 ? FAT_12 : i->clusters < 65525 ? FAT_16 : FAT_32;
	if (fat32_bpb != (i->type == FAT_32))
		return diag_error(d, "%u clusters make FAT%d, but the BPB is laid out for %s",
				  i->clusters, i->type, fat32_bpb ? "FAT32" : "FAT12/16");
	if (i->type == FAT_32 && i->clusters > 0x0FFFFFF5)
		return diag_error(d, "%u clusters: more than FAT32 can number", i->clusters);
	if ((uint64_t)i->fat_sectors * bps * 8 < ((uint64_t)i->clusters + 2) * i->type)
		return diag_error(d, "the FAT (%u sectors) is too small for %u clusters",
				  i->fat_sectors, i->clusters);
	if ((i->type == FAT_32) != (i->root_entries == 0))
		return diag_error(d, "root entry count %u does not fit FAT%d", i->root_entries,
				  i->type);
	i->data_offset = sys * bps;
	v->fat_off = i->reserved * bps;
	v->root_off = (i->reserved + (uint64_t)i->fats * i->fat_sectors) * bps;
	v->ops = fat_ent_ops(i->type);
	return 0;
}

/* The extended BPB: FAT32 fields, serial, label, OEM name. */
static int check_ext(struct fat_vol *v, const uint8_t *s, struct diag *d)
{
	struct fat_info *i = &v->info;
	const uint8_t *e = s + (i->type == FAT_32 ? FAT_EBPB_32 : FAT_EBPB_12_16);
	int n;

	memcpy(i->oem_name, s + BS_OEMNAME, 8);
	if (i->type == FAT_32) {
		v->root_cluster = get_le32(s + BPB_ROOTCLUS);
		if (get_le16(s + BPB_FSVER))
			return diag_error(d, "FAT32 version %u.%u is unknown", s[BPB_FSVER + 1],
					  s[BPB_FSVER]);
		if (v->root_cluster < 2 || v->root_cluster > i->clusters + 1)
			return diag_error(d, "root cluster %u is outside clusters 2..%u",
					  v->root_cluster, i->clusters + 1);
	}
	if (e[BS_BOOTSIG] == FAT_BOOTSIG) {
		i->volume_id = get_le32(e + BS_VOLID);
		memcpy(i->label, e + BS_VOLLAB, 11);
	}
	for (n = 11; n > 0 && (i->label[n - 1] == ' ' || !i->label[n - 1]); n--)
		i->label[n - 1] = 0;
	for (n = 8; n > 0 && (i->oem_name[n - 1] == ' ' || !i->oem_name[n - 1]); n--)
		i->oem_name[n - 1] = 0;
	for (n = 0; n < 11; n++)
		if (i->label[n] && (i->label[n] < 0x20 || i->label[n] > 0x7E))
			i->label[n] = '?';
	for (n = 0; n < 8; n++)
		if (i->oem_name[n] && (i->oem_name[n] < 0x20 || i->oem_name[n] > 0x7E))
			i->oem_name[n] = '?';
	return 0;
}

bool fat_boot_sector_claimed(const uint8_t s[FAT_SECTOR])
{
	return s[FAT_SIGNATURE_OFFSET] == 0x55 && s[FAT_SIGNATURE_OFFSET + 1] == 0xAA &&
	       (s[BS_JMPBOOT] == 0xEB || s[BS_JMPBOOT] == 0xE9) &&
	       (memcmp(s + FAT_EBPB_12_16 + BS_FILSYSTYPE, "FAT", 3) == 0 ||
		memcmp(s + FAT_EBPB_32 + BS_FILSYSTYPE, "FAT", 3) == 0);
}

bool fat_boot_sector_valid(const uint8_t s[FAT_SECTOR])
{
	struct fat_vol v = { 0 };
	struct diag scratch;

	diag_init(&scratch);
	bool ok = check_bpb(&v, s, &scratch) == 0;
	diag_release(&scratch);
	return ok;
}

int fat_vol_open(int fd, uint64_t offset, uint64_t size, struct fat_vol **ret, struct diag *d)
{
	struct fat_vol *v = calloc(1, sizeof(*v));
	uint8_t s[FAT_SECTOR];
	int r;

	*ret = NULL;
	if (!v)
		return -ENOMEM;
	v->fd = fd;
	v->off = offset;
	v->fat_sec = UINT64_MAX;
	r = fat_rd_pread(v, s, sizeof(s), 0, d);
	if (!r)
		r = check_bpb(v, s, d);
	if (!r)
		r = check_layout(v, s, size, d);
	if (!r)
		r = check_ext(v, s, d);
	if (!r && !(v->cbuf = malloc(v->info.cluster_size)))
		r = -ENOMEM;
	if (r) {
		fat_vol_close(v);
		return r;
	}
	*ret = v;
	return 0;
}

void fat_vol_close(struct fat_vol *v)
{
	if (!v)
		return;
	free(v->cbuf);
	free(v);
}

const struct fat_info *fat_vol_info(const struct fat_vol *v)
{
	return &v->info;
}

/* One byte of the first FAT, through a one-sector cache. */
static int fat_byte(struct fat_vol *v, uint64_t pos, uint8_t *ret, struct diag *d)
{
	uint64_t sec = pos / FAT_SECTOR;

	if (sec != v->fat_sec) {
		int r = fat_rd_pread(v, v->fat_buf, FAT_SECTOR, v->fat_off + sec * FAT_SECTOR, d);
		if (r)
			return r;
		v->fat_sec = sec;
	}
	*ret = v->fat_buf[pos % FAT_SECTOR];
	return 0;
}

int fat_rd_next(struct fat_vol *v, uint32_t c, uint32_t *ret, struct diag *d)
{
	uint64_t pos = (uint64_t)c * v->ops->bits / 8;
	uint8_t b[4] = { 0, 0, 0, 0 };
	unsigned n = v->ops->bits == 32 ? 4 : 2;
	uint32_t x;

	for (unsigned k = 0; k < n; k++) {
		int r = fat_byte(v, pos + k, &b[k], d);
		if (r)
			return r;
	}
	x = get_le32(b);
	if (v->ops->bits == 12)
		x = c & 1 ? (x & 0xFFFF) >> 4 : x & 0x0FFF;
	else if (v->ops->bits == 16)
		x &= 0xFFFF;
	else
		x &= 0x0FFFFFFF;
	*ret = x;
	return 0;
}

bool fat_rd_valid_cluster(const struct fat_vol *v, uint32_t c)
{
	return c >= 2 && c <= v->info.clusters + 1;
}

bool fat_rd_end(const struct fat_vol *v, uint32_t x)
{
	return x >= v->ops->eoc_min;
}

uint64_t fat_rd_cluster_off(const struct fat_vol *v, uint32_t c)
{
	return v->info.data_offset + (uint64_t)(c - 2) * v->info.cluster_size;
}

/* Free clusters are counted in reads of this many bytes of FAT: a 2 TiB card's FAT32 of
 * 256 MiB is 256 reads, not half a million of a sector (and none where an image file has a
 * hole). */
#define FAT_COUNT_CHUNK (1u << 20)

/* Whether the @len bytes at volume byte @off lie in a hole of a sparse image file, with data
 * after them (so inside the file): they read as zeros. A device has no holes. */
static bool in_hole(const struct fat_vol *v, uint64_t off, size_t len)
{
	off_t data = lseek(v->fd, (off_t)(v->off + off), SEEK_DATA);

	return data >= 0 && (uint64_t)data >= v->off + off + len;
}

/* Whether the FAT entry value @x is a link of a chain on a volume of @clusters clusters: the
 * next cluster (2..clusters + 1) or end of chain (Microsoft FAT Specification, section 4:
 * not free, not a bad-cluster mark, not a reserved or out-of-range value). */
static bool chain_value(const struct fat_ent_ops *ops, uint32_t x, uint64_t clusters)
{
	return (x >= 2 && x < clusters + 2) || x >= ops->eoc_min;
}

int fat_vol_count_clusters(struct fat_vol *v, struct fat_cluster_count *ret, struct diag *d)
{
	/* entries per read; even, so that a FAT12 read starts on a whole byte */
	uint32_t per_read = (uint32_t)(FAT_COUNT_CHUNK * 8u / v->ops->bits) & ~1u;
	uint64_t end = (uint64_t)v->info.clusters + 2;
	struct fat_cluster_count n_of = { 0 };
	uint8_t *buf = malloc(FAT_COUNT_CHUNK);

	if (!buf)
		return diag_errno(d, -ENOMEM, "counting free clusters: out of memory");
	for (uint64_t first = 0; first < end; first += per_read) {
		uint32_t n = (uint32_t)(end - first < per_read ? end - first : per_read);
		size_t len = (size_t)fat_ent_bytes(v->info.type, n);
		uint64_t at = v->fat_off + fat_ent_bytes(v->info.type, first);
		int r;
		if (first && in_hole(v, at, len)) { /* an image's empty FAT: all free */
			n_of.free += n;
			continue;
		}
		r = fat_rd_pread(v, buf, len, at, d);
		if (r) {
			free(buf);
			return r;
		}
		for (uint32_t i = first ? 0 : 2; i < n; i++) { /* entries 0 and 1 are no clusters */
			uint32_t x = v->ops->get(buf, i);
			n_of.free += x == 0;
			n_of.chained += chain_value(v->ops, x, v->info.clusters);
		}
	}
	free(buf);
	*ret = n_of;
	return 0;
}

int fat_vol_free_clusters(struct fat_vol *v, uint32_t *ret_free, struct diag *d)
{
	struct fat_cluster_count n;
	int r = fat_vol_count_clusters(v, &n, d);

	if (!r)
		*ret_free = n.free;
	return r;
}
