/* SPDX-License-Identifier: MIT */
/*
 * exfat/read: opens an exFAT volume and validates its main boot region (§3.1, §3.4) and the
 * root directory's system entries (the allocation bitmap, §7.1; the up-case table, §7.2; the
 * volume label, §7.3; the volume GUID, §7.5). Nothing on the disk is trusted: every field is
 * checked against the specification's ranges before use, allocations are bounded by
 * constants (a cluster of at most 32 MiB, the 128 KiB up-case table) or by what the volume
 * has been checked to hold, and cluster chains are followed for at most the clusters they can
 * legally have, with a bit per cluster, so loops end in an error.
 */
#include "exfat/read_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bytes.h"
#include "common/path.h"

int exfat_rd_pread(struct exfat_vol *v, void *buf, size_t len, uint64_t off, struct diag *d)
{
	int r = path_pread_full(v->fd, buf, len, v->off + off);

	if (r == -ENODATA)
		return diag_errno(d, -EIO,
				  "reading the exFAT volume at byte %" PRIu64 ": end of file",
				  v->off + off);
	if (r < 0)
		return diag_errno(d, r, "reading the exFAT volume at byte %" PRIu64 ": %s",
				  v->off + off, strerror(-r));
	return 0;
}

bool exfat_boot_sector_claimed(const uint8_t s[EXFAT_SECTOR])
{
	return memcmp(s + EXFAT_FILESYSTEMNAME, EXFAT_NAME, 8) == 0;
}

/* The fixed fields of the boot sector (§3.1.1 to §3.1.5, §3.1.11 to §3.1.19). */
static int check_fixed(const uint8_t *s, struct diag *d)
{
	static const uint8_t jump[3] = { 0xEB, 0x76, 0x90 };

	if (!exfat_boot_sector_claimed(s))
		return diag_error(d, "no \"EXFAT   \" file system name: not an exFAT volume");
	if (memcmp(s + EXFAT_JUMPBOOT, jump, 3))
		return diag_error(d, "JumpBoot is %02X %02X %02X, not EB 76 90", s[0], s[1], s[2]);
	for (unsigned i = EXFAT_MUSTBEZERO; i < EXFAT_PARTITIONOFFSET; i++)
		if (s[i])
			return diag_error(d,
					  "byte %u of the boot sector is 0x%02X: bytes 11-63 must "
					  "be 0 (where FAT keeps its BPB)",
					  i, s[i]);
	if (s[EXFAT_BOOTSIGNATURE] != 0x55 || s[EXFAT_BOOTSIGNATURE + 1] != 0xAA)
		return diag_error(d, "no boot signature 55 AA");
	if (s[EXFAT_BYTESPERSECTORSHIFT] != 9)
		return diag_error(d,
				  "sectors of %u bytes (BytesPerSectorShift %u): sdimg reads "
				  "exFAT volumes of 512-byte sectors, as SD cards have",
				  s[EXFAT_BYTESPERSECTORSHIFT] < 32
					  ? 1u << s[EXFAT_BYTESPERSECTORSHIFT]
					  : 0,
				  s[EXFAT_BYTESPERSECTORSHIFT]);
	if (s[EXFAT_SECTORSPERCLUSTERSHIFT] > EXFAT_MAX_CLUSTER_SHIFT - 9)
		return diag_error(d, "SectorsPerClusterShift %u: clusters of at most 32 MiB",
				  s[EXFAT_SECTORSPERCLUSTERSHIFT]);
	if (s[EXFAT_NUMBEROFFATS] != 1 && s[EXFAT_NUMBEROFFATS] != 2)
		return diag_error(d, "NumberOfFats %u: must be 1 or 2", s[EXFAT_NUMBEROFFATS]);
	if (s[EXFAT_FILESYSTEMREVISION + 1] != 1)
		return diag_error(d, "file system revision %u.%02u: sdimg reads revision 1.x",
				  s[EXFAT_FILESYSTEMREVISION + 1], s[EXFAT_FILESYSTEMREVISION]);
	if ((get_le16(s + EXFAT_VOLUMEFLAGS) & EXFAT_FLAG_ACTIVEFAT) && s[EXFAT_NUMBEROFFATS] != 2)
		return diag_error(d, "VolumeFlags make the second FAT active, but there is one");
	if (s[EXFAT_PERCENTINUSE] > 100 && s[EXFAT_PERCENTINUSE] != EXFAT_PERCENT_UNKNOWN)
		return diag_error(d, "PercentInUse %u: must be 0-100 or 255",
				  s[EXFAT_PERCENTINUSE]);
	return 0;
}

/* The regions (§3.1.6 to §3.1.10): the FATs after the boot regions, the heap after them,
 * all inside the volume, and the volume inside the @size bytes there are (0: unknown). */
static int check_regions(struct exfat_vol *v, const uint8_t *s, uint64_t size, struct diag *d)
{
	struct exfat_info *i = &v->info;
	unsigned shift = s[EXFAT_SECTORSPERCLUSTERSHIFT];
	uint64_t fats_end, heap_room;

	i->part_offset = get_le64(s + EXFAT_PARTITIONOFFSET);
	i->vol_sectors = get_le64(s + EXFAT_VOLUMELENGTH);
	i->fat_offset = get_le32(s + EXFAT_FATOFFSET);
	i->fat_length = get_le32(s + EXFAT_FATLENGTH);
	i->heap_offset = get_le32(s + EXFAT_CLUSTERHEAPOFFSET);
	i->clusters = get_le32(s + EXFAT_CLUSTERCOUNT);
	i->root_cluster = get_le32(s + EXFAT_FIRSTCLUSTEROFROOTDIRECTORY);
	i->cluster_size = EXFAT_SECTOR << shift;
	i->fats = s[EXFAT_NUMBEROFFATS];
	if (i->vol_sectors < (1u << 20) / EXFAT_SECTOR)
		return diag_error(d, "VolumeLength %" PRIu64 " sectors: at least 2048 (1 MiB)",
				  i->vol_sectors);
	if (i->vol_sectors > UINT64_MAX / EXFAT_SECTOR)
		return diag_error(d,
				  "VolumeLength %" PRIu64 " sectors: too large, more bytes than "
				  "64 bits count",
				  i->vol_sectors);
	if (size && i->vol_sectors * EXFAT_SECTOR > size)
		return diag_error(d,
				  "the volume claims %" PRIu64 " bytes but only %" PRIu64
				  " are there",
				  i->vol_sectors * EXFAT_SECTOR, size);
	if (i->fat_offset < 2 * EXFAT_BOOT_REGION_SECTORS)
		return diag_error(d,
				  "FatOffset %" PRIu32 ": the FAT must follow both boot regions "
				  "(sector 24 or later)",
				  i->fat_offset);
	fats_end = i->fat_offset + (uint64_t)i->fat_length * i->fats;
	if (!i->clusters || i->clusters > EXFAT_MAX_CLUSTERS)
		return diag_error(d, "ClusterCount %" PRIu32 ": must be 1 to %u", i->clusters,
				  EXFAT_MAX_CLUSTERS);
	if ((uint64_t)i->fat_length * EXFAT_SECTOR < ((uint64_t)i->clusters + 2) * 4)
		return diag_error(d,
				  "the FAT (%" PRIu32 " sectors) is too small for %" PRIu32
				  " clusters",
				  i->fat_length, i->clusters);
	if (i->heap_offset < fats_end)
		return diag_error(d,
				  "ClusterHeapOffset %" PRIu32
				  " lies inside the FAT%s (sectors %" PRIu32 "-%" PRIu64 ")",
				  i->heap_offset, i->fats == 2 ? "s" : "", i->fat_offset,
				  fats_end - 1);
	heap_room = i->heap_offset < i->vol_sectors ? (i->vol_sectors - i->heap_offset) >> shift
						    : 0;
	if (i->clusters > heap_room)
		return diag_error(d,
				  "%" PRIu32 " clusters of %" PRIu32 " bytes from sector %" PRIu32
				  " do not fit the volume's %" PRIu64 " sectors",
				  i->clusters, i->cluster_size, i->heap_offset, i->vol_sectors);
	if (i->root_cluster < 2 || i->root_cluster > i->clusters + 1)
		return diag_error(d,
				  "root directory cluster %" PRIu32
				  " is outside clusters 2..%" PRIu64,
				  i->root_cluster, (uint64_t)i->clusters + 1);
	i->volume_id = get_le32(s + EXFAT_VOLUMESERIALNUMBER);
	i->revision = get_le16(s + EXFAT_FILESYSTEMREVISION);
	i->flags = get_le16(s + EXFAT_VOLUMEFLAGS);
	i->percent_in_use = s[EXFAT_PERCENTINUSE];
	v->fat_off = ((uint64_t)i->fat_offset +
		      (i->flags & EXFAT_FLAG_ACTIVEFAT ? (uint64_t)i->fat_length : 0)) *
		     EXFAT_SECTOR;
	v->heap_off = (uint64_t)i->heap_offset * EXFAT_SECTOR;
	return 0;
}

/* The main boot region's 12 sectors: the boot sector's fields and the checksum sector
 * (§3.4: the checksum of sectors 0-10, repeated over sector 11). */
static int check_boot_region(struct exfat_vol *v, uint64_t size, struct diag *d)
{
	uint8_t *r = malloc((size_t)EXFAT_BOOT_REGION_SECTORS * EXFAT_SECTOR);
	const uint8_t *sum;
	uint32_t want;
	int rc;

	if (!r)
		return diag_errno(d, -ENOMEM, "out of memory");
	rc = exfat_rd_pread(v, r, EXFAT_SECTOR, 0, d);
	if (!rc)
		rc = check_fixed(r, d);
	if (!rc)
		rc = exfat_rd_pread(v, r + EXFAT_SECTOR,
				    (EXFAT_BOOT_REGION_SECTORS - 1) * EXFAT_SECTOR, EXFAT_SECTOR,
				    d);
	if (!rc) {
		want = exfat_boot_checksum(r);
		sum = r + (size_t)EXFAT_CHECKSUM_SECTOR * EXFAT_SECTOR;
		for (unsigned k = 0; k < EXFAT_SECTOR && !rc; k += 4)
			if (get_le32(sum + k) != want)
				rc = diag_error(d,
						"the boot checksum sector holds 0x%08" PRIX32
						" at byte %u, the boot region sums to 0x%08" PRIX32,
						get_le32(sum + k), k, want);
	}
	if (!rc)
		rc = check_regions(v, r, size, d);
	free(r);
	return rc;
}

bool exfat_rd_valid_cluster(const struct exfat_vol *v, uint32_t c)
{
	return c >= EXFAT_FIRST_CLUSTER && (uint64_t)c <= (uint64_t)v->info.clusters + 1;
}

uint64_t exfat_rd_cluster_off(const struct exfat_vol *v, uint32_t c)
{
	return v->heap_off + (uint64_t)(c - EXFAT_FIRST_CLUSTER) * v->info.cluster_size;
}

uint8_t *exfat_rd_seen_new(const struct exfat_vol *v)
{
	/* calloc'd pages stay untouched except where the walk goes */
	return calloc(((size_t)v->info.clusters + 2) / 8 + 1, 1);
}

static bool is_marked(const uint8_t *seen, uint32_t c)
{
	return seen[c / 8] & (1u << (c % 8));
}

bool exfat_rd_seen_before(uint8_t *seen, uint32_t c)
{
	uint8_t bit = (uint8_t)(1u << (c % 8));
	bool was = seen[c / 8] & bit;

	seen[c / 8] |= bit;
	return was;
}

/* The FAT entry of cluster @c (valid), through a one-sector cache (§4.1.3). */
static int fat_entry(struct exfat_vol *v, uint32_t c, uint32_t *ret, struct diag *d)
{
	uint64_t pos = (uint64_t)c * 4, sec = pos / EXFAT_SECTOR;

	if (sec != v->fat_sec) {
		int r = exfat_rd_pread(v, v->fat_buf, EXFAT_SECTOR, v->fat_off + sec * EXFAT_SECTOR,
				       d);
		if (r)
			return r;
		v->fat_sec = sec;
	}
	*ret = get_le32(v->fat_buf + pos % EXFAT_SECTOR);
	return 0;
}

void exfat_rd_chain_init(struct exfat_chain *ch, const struct exfat_extent *x, uint8_t *seen,
			 const char *what, uint64_t max)
{
	*ch = (struct exfat_chain){ .x = *x, .max = max, .seen = seen, .what = what };
}

int exfat_rd_chain_next(struct exfat_vol *v, struct exfat_chain *ch, uint32_t *ret, struct diag *d)
{
	uint32_t c = ch->x.first;
	int r;

	if (ch->x.clusters && ch->index >= ch->x.clusters)
		return 0;
	if (ch->index && ch->x.contiguous) {
		c = ch->cur + 1;
	} else if (ch->index) {
		if ((r = fat_entry(v, ch->cur, &c, d)))
			return r;
		if (c == EXFAT_FAT_EOC && !ch->x.clusters)
			return 0;
		if (c == EXFAT_FAT_EOC || c == 0)
			return diag_error(d,
					  "%s: its cluster chain %s after %" PRIu64 " of %" PRIu64
					  " clusters (at cluster %" PRIu32 ")",
					  ch->what, c ? "ends" : "runs into a free cluster",
					  ch->index, ch->x.clusters, ch->cur);
	}
	if (!exfat_rd_valid_cluster(v, c))
		return diag_error(d,
				  "%s: its clusters lead to cluster %" PRIu32
				  ", outside the heap's 2..%" PRIu64,
				  ch->what, c, (uint64_t)v->info.clusters + 1);
	if (ch->index >= ch->max)
		return diag_error(d,
				  "%s: its cluster chain is longer than %" PRIu64
				  " clusters (it loops?)",
				  ch->what, ch->max);
	/* the root's own chain (the only one of count 0) is what v->sys was made from */
	if (ch->x.clusters && v->sys && is_marked(v->sys, c))
		return diag_error(d,
				  "%s: its cluster %" PRIu32
				  " is the volume's own (the allocation bitmap, the up-case "
				  "table or the root directory)",
				  ch->what, c);
	if (ch->seen && exfat_rd_seen_before(ch->seen, c))
		return diag_error(d,
				  "%s: its cluster %" PRIu32
				  " is also another's, or its own (a chain that loops, or "
				  "folders that share clusters)",
				  ch->what, c);
	ch->cur = c;
	ch->index++;
	*ret = c;
	return 1;
}

/* Expands the stored up-case table @t of @len bytes (§7.2.5: a unit 0xFFFF followed by a
 * count N maps the next N units to themselves) into v->upcase; the rest maps to itself. */
static int expand_upcase(struct exfat_vol *v, const uint8_t *t, size_t len, struct diag *d)
{
	uint32_t at = 0;

	if (len % 2)
		return diag_error(d, "the up-case table is %zu bytes long: an odd length", len);
	for (size_t k = 0; k < len; k += 2) {
		uint16_t u = get_le16(t + k);
		uint32_t n = 1;
		if (u == 0xFFFF && k + 2 < len) {
			n = get_le16(t + k + 2);
			k += 2;
		}
		if (at + n > EXFAT_UPCASE_UNITS)
			return diag_error(d,
					  "the up-case table maps more than 65536 characters (at "
					  "byte %zu)",
					  k);
		for (uint32_t j = 0; j < n; j++, at++)
			v->upcase[at] = n > 1 || u == 0xFFFF ? (uint16_t)at : u;
	}
	for (; at < EXFAT_UPCASE_UNITS; at++)
		v->upcase[at] = (uint16_t)at;
	return 0;
}

/* The clusters of a system structure of @bytes at @first: read contiguously, as the Linux
 * driver reads the bitmap and the up-case table (their FAT chains are not needed). */
static int system_extent(struct exfat_vol *v, const char *what, uint32_t first, uint64_t bytes,
			 struct exfat_extent *ret, struct diag *d)
{
	/* rounded up without the sum that wraps for lengths near 2^64 */
	uint64_t n = bytes / v->info.cluster_size + (bytes % v->info.cluster_size != 0);

	if (!exfat_rd_valid_cluster(v, first) || n > (uint64_t)v->info.clusters + 2 - first)
		return diag_error(d,
				  "the %s (%" PRIu64 " bytes from cluster %" PRIu32
				  ") does not lie inside the heap's clusters 2..%" PRIu64,
				  what, bytes, first, (uint64_t)v->info.clusters + 1);
	*ret = (struct exfat_extent){ .first = first, .contiguous = true, .clusters = n };
	for (uint64_t k = 0; k < n; k++)
		if (exfat_rd_seen_before(v->sys, (uint32_t)(first + k)))
			return diag_error(d,
					  "the %s: its cluster %" PRIu64
					  " is also the root directory's, the allocation bitmap's "
					  "or the up-case table's",
					  what, first + k);
	return 0;
}

static int load_upcase(struct exfat_vol *v, const uint8_t *e, struct diag *d)
{
	struct exfat_info *i = &v->info;
	struct exfat_extent x;
	uint8_t *t;
	int r;

	i->upcase_cluster = get_le32(e + EXFAT_DE_FIRSTCLUSTER);
	i->upcase_bytes = get_le64(e + EXFAT_DE_DATALENGTH);
	i->upcase_checksum = get_le32(e + EXFAT_UC_TABLECHECKSUM);
	if (!i->upcase_bytes || i->upcase_bytes > EXFAT_UPCASE_BYTES_MAX)
		return diag_error(d, "the up-case table is %" PRIu64 " bytes long: 2 to %u",
				  i->upcase_bytes, EXFAT_UPCASE_BYTES_MAX);
	if ((r = system_extent(v, "up-case table", i->upcase_cluster, i->upcase_bytes, &x, d)))
		return r;
	if (!(t = malloc(i->upcase_bytes)) || !(v->upcase = malloc(EXFAT_UPCASE_UNITS * 2))) {
		free(t);
		return diag_errno(d, -ENOMEM, "out of memory");
	}
	r = exfat_rd_pread(v, t, i->upcase_bytes, exfat_rd_cluster_off(v, x.first), d);
	if (!r && exfat_table_checksum(t, i->upcase_bytes) != i->upcase_checksum)
		r = diag_error(d,
			       "the up-case table sums to 0x%08" PRIX32
			       ", its entry says 0x%08" PRIX32,
			       exfat_table_checksum(t, i->upcase_bytes), i->upcase_checksum);
	if (!r)
		r = expand_upcase(v, t, i->upcase_bytes, d);
	free(t);
	return r;
}

static int take_bitmap(struct exfat_vol *v, const uint8_t *e, bool *have, struct diag *d)
{
	struct exfat_info *i = &v->info;
	struct exfat_extent x;
	uint64_t need = ((uint64_t)i->clusters + 7) / 8;

	/* with two FATs, each has its bitmap (§7.1.2.1): the active one's is read */
	if ((e[EXFAT_BM_FLAGS] & 1u) != (i->flags & EXFAT_FLAG_ACTIVEFAT))
		return 0;
	if (*have)
		return diag_error(d, "the root directory holds two allocation bitmaps of one FAT");
	*have = true;
	i->bitmap_cluster = get_le32(e + EXFAT_DE_FIRSTCLUSTER);
	i->bitmap_bytes = get_le64(e + EXFAT_DE_DATALENGTH);
	if (i->bitmap_bytes < need)
		return diag_error(d,
				  "the allocation bitmap is %" PRIu64 " bytes long: %" PRIu32
				  " clusters need %" PRIu64,
				  i->bitmap_bytes, i->clusters, need);
	return system_extent(v, "allocation bitmap", i->bitmap_cluster, i->bitmap_bytes, &x, d);
}

static void take_label(struct exfat_vol *v, const uint8_t *e)
{
	uint16_t u[EXFAT_LABEL_MAX];
	unsigned n = e[EXFAT_VL_CHARACTERCOUNT];

	if (n > EXFAT_LABEL_MAX)
		n = EXFAT_LABEL_MAX; /* checked by the caller */
	for (unsigned k = 0; k < n; k++)
		u[k] = get_le16(e + EXFAT_VL_VOLUMELABEL + 2 * k);
	exfat_rd_name_utf8(u, n, v->info.label, sizeof(v->info.label));
}

/* What the root scan found. */
struct root_scan {
	struct exfat_vol *v;
	struct diag *d;
	bool bitmap, upcase, label, guid;
};

static int take_guid(struct exfat_vol *v, const uint8_t *e, struct diag *d)
{
	if (e[EXFAT_VG_SECONDARYCOUNT] != 0)
		return diag_error(d, "the volume GUID entry has %u secondary entries: it has none",
				  e[EXFAT_VG_SECONDARYCOUNT]);
	if (exfat_set_checksum(e, 1) != get_le16(e + EXFAT_VG_SETCHECKSUM))
		return diag_error(d,
				  "the volume GUID entry's SetChecksum is 0x%04X, it sums to "
				  "0x%04X",
				  get_le16(e + EXFAT_VG_SETCHECKSUM), exfat_set_checksum(e, 1));
	v->info.has_guid = true;
	memcpy(v->info.guid, e + EXFAT_VG_VOLUMEGUID, 16);
	return 0;
}

/* The root directory's system entries (§7.1 to §7.5); files are listed elsewhere. */
static int scan_root_entry(void *ctx, const uint8_t *e)
{
	struct root_scan *s = ctx;
	struct diag *d = s->d;

	switch (e[EXFAT_DE_ENTRYTYPE]) {
	case EXFAT_TYPE_BITMAP:
		return take_bitmap(s->v, e, &s->bitmap, d);
	case EXFAT_TYPE_UPCASE:
		if (s->upcase)
			return diag_error(d, "the root directory holds two up-case tables");
		s->upcase = true;
		return load_upcase(s->v, e, d);
	case EXFAT_TYPE_LABEL:
		if (s->label)
			return diag_error(d, "the root directory holds two volume labels");
		s->label = true;
		if (e[EXFAT_VL_CHARACTERCOUNT] > EXFAT_LABEL_MAX)
			return diag_error(d, "the volume label is %u characters long: at most 11",
					  e[EXFAT_VL_CHARACTERCOUNT]);
		take_label(s->v, e);
		return 0;
	case EXFAT_TYPE_GUID:
		if (s->guid)
			return diag_error(d, "the root directory holds two volume GUIDs");
		s->guid = true;
		return take_guid(s->v, e, d);
	default:
		return 0;
	}
}

static int scan_root(struct exfat_vol *v, struct diag *d)
{
	struct root_scan s = { .v = v, .d = d };
	struct exfat_extent root = exfat_rd_root(v);
	int r;

	/* the root's clusters go into v->sys as it is walked, the system structures' as they
	 * are met: none may share a cluster, and no file or folder may use one */
	if (!(v->sys = exfat_rd_seen_new(v)))
		return diag_errno(d, -ENOMEM, "out of memory");
	r = exfat_rd_walk_raw(v, &root, v->sys, "/", scan_root_entry, &s, d);
	if (r)
		return r;
	if (!s.bitmap)
		return diag_error(d, "the root directory holds no allocation bitmap entry (type "
				     "0x81)");
	if (!s.upcase)
		return diag_error(d, "the root directory holds no up-case table entry (type 0x82)");
	return 0;
}

int exfat_vol_open(int fd, uint64_t offset, uint64_t size, struct exfat_vol **ret, struct diag *d)
{
	struct exfat_vol *v = calloc(1, sizeof(*v));
	int r;

	*ret = NULL;
	if (!v)
		return diag_errno(d, -ENOMEM, "out of memory");
	v->fd = fd;
	v->off = offset;
	v->fat_sec = UINT64_MAX;
	r = check_boot_region(v, size, d);
	if (!r)
		r = scan_root(v, d);
	if (!r && !(v->cbuf = malloc(v->info.cluster_size)))
		r = diag_errno(d, -ENOMEM, "out of memory");
	if (r) {
		exfat_vol_close(v);
		return r;
	}
	*ret = v;
	return 0;
}

void exfat_vol_close(struct exfat_vol *v)
{
	if (!v)
		return;
	free(v->upcase);
	free(v->sys);
	free(v->cbuf);
	free(v);
}

const struct exfat_info *exfat_vol_info(const struct exfat_vol *v)
{
	return &v->info;
}

/* The bits set in the first @bits bits of @b. */
static uint64_t bits_set(const uint8_t *b, uint64_t bits)
{
	uint64_t n = 0;

	for (uint64_t k = 0; k < bits / 8; k++)
		n += (unsigned)__builtin_popcount(b[k]);
	if (bits % 8)
		n += (unsigned)__builtin_popcount(b[bits / 8] & ((1u << (bits % 8)) - 1u));
	return n;
}

int exfat_vol_free_clusters(struct exfat_vol *v, uint32_t *ret_free, struct diag *d)
{
	const struct exfat_info *i = &v->info;
	uint64_t bits = i->clusters, at = exfat_rd_cluster_off(v, i->bitmap_cluster), used = 0;

	/* a cluster at a time: the bitmap was checked to lie inside the heap */
	for (uint64_t done = 0; done < bits; done += (uint64_t)i->cluster_size * 8) {
		uint64_t n = bits - done < (uint64_t)i->cluster_size * 8
				     ? bits - done
				     : (uint64_t)i->cluster_size * 8;
		int r = exfat_rd_pread(v, v->cbuf, (size_t)((n + 7) / 8), at + done / 8, d);
		if (r)
			return r;
		used += bits_set(v->cbuf, n);
	}
	*ret_free = (uint32_t)(bits - used);
	return 0;
}
