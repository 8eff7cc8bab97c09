/* SPDX-License-Identifier: MIT */
/*
 * exfat/readdir: the directories of an opened volume: walking their entries (bounded: a
 * directory holds at most 256 MiB, §6.2), checking each directory entry set (§6.3, §7.4,
 * §7.6, §7.7: its SecondaryCount, SetChecksum, stream and name entries in order, NameLength
 * and NameHash), path lookup through the volume's up-case table, and reading files (a
 * contiguous run for NoFatChain, else the FAT chain; bytes past ValidDataLength are zeros).
 */
#include "exfat/read_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/utf8.h"

/* A set is a File entry and at most 18 secondaries (§7.4.1). */
#define SET_ENTRIES_MAX (1u + EXFAT_SET_MAX_SECONDARY)

struct exfat_extent exfat_rd_root(const struct exfat_vol *v)
{
	return (struct exfat_extent){ .first = v->info.root_cluster };
}

/* The clusters a directory may have at most. */
static uint64_t dir_clusters_max(const struct exfat_vol *v)
{
	return EXFAT_DIR_BYTES_MAX / v->info.cluster_size + 1;
}

int exfat_rd_walk_raw(struct exfat_vol *v, const struct exfat_extent *x, uint8_t *seen,
		      const char *path, int (*fn)(void *ctx, const uint8_t *e), void *ctx,
		      struct diag *d)
{
	uint32_t cs = v->info.cluster_size, c;
	uint8_t *own = seen ? NULL : exfat_rd_seen_new(v);
	uint8_t *blk = malloc(cs);
	struct exfat_chain ch;
	bool end = false;
	int r = blk && (seen || own) ? 0 : diag_errno(d, -ENOMEM, "%s: out of memory", path);

	exfat_rd_chain_init(&ch, x, seen ? seen : own, path, dir_clusters_max(v));
	while (!r && !end) {
		int n = exfat_rd_chain_next(v, &ch, &c, d);
		if (n <= 0) {
			r = n;
			break;
		}
		r = exfat_rd_pread(v, blk, cs, exfat_rd_cluster_off(v, c), d);
		for (uint32_t k = 0; !r && k < cs; k += EXFAT_DENTRY_SIZE) {
			if (blk[k + EXFAT_DE_ENTRYTYPE] == EXFAT_TYPE_END) {
				end = true; /* the directory's end (§6.2.1.1) */
				break;
			}
			r = fn(ctx, blk + k);
		}
	}
	free(blk);
	free(own);
	return r;
}

void exfat_rd_name_utf8(const uint16_t *u, unsigned n, char *out, size_t cap)
{
	if (utf8_from_utf16(u, n, out, cap) < 0)
		out[0] = 0; /* cannot happen: @cap holds 3 bytes a unit */
}

/* Seconds since the epoch, UTC, of a timestamp (§7.4.8), its 10 ms increment (§7.4.9) and
 * its UTC offset (§7.4.10: 15-minute units, signed, valid when bit 7 is set). */
static int64_t entry_time(uint32_t ts, uint8_t inc10ms, uint8_t utc_offset)
{
	int64_t t = fat_dos_time_decode((uint16_t)(ts >> 16), (uint16_t)ts) + inc10ms / 100;

	if (utc_offset & EXFAT_UTC_OFFSET_VALID) {
		int q = utc_offset & 0x7F;
		if (q & 0x40)
			q -= 0x80;
		t -= (int64_t)q * 15 * 60;
	}
	return t;
}

/* The state of a listing between the entries of a set. */
struct lister {
	struct exfat_vol *v;
	const char *path;
	struct diag *d;
	uint8_t set[SET_ENTRIES_MAX * EXFAT_DENTRY_SIZE];
	unsigned have, need; /* entries of the set gathered and expected (0: none open) */
	unsigned skip;       /* secondaries of a benign primary still to skip */
	int (*fn)(void *ctx, const struct exfat_rd_entry *e);
	void *ctx;
	struct exfat_rd_entry out;
};

/* The name of a set (§7.7): NameLength units over its File Name entries, each checked. */
static int set_name(struct lister *l, unsigned count)
{
	const uint8_t *se = l->set + EXFAT_DENTRY_SIZE;
	unsigned len = se[EXFAT_SE_NAMELENGTH], entries, k;
	uint16_t up[EXFAT_NAME_MAX];

	entries = (len + EXFAT_NAME_UNITS_PER_ENTRY - 1) / EXFAT_NAME_UNITS_PER_ENTRY;
	if (!len || 1 + entries > count - 1)
		return diag_error(l->d,
				  "%s: an entry set of %u secondary entries holds a name of %u "
				  "characters (NameLength must be 1-255, with a name entry per "
				  "15)",
				  l->path, count - 1, len);
	for (k = 0; k < entries; k++) {
		const uint8_t *ne = l->set + (2 + k) * EXFAT_DENTRY_SIZE;
		if (ne[EXFAT_DE_ENTRYTYPE] != EXFAT_TYPE_NAME)
			return diag_error(l->d,
					  "%s: entry %u of a set is of type 0x%02X where a file "
					  "name entry (0xC1) belongs",
					  l->path, 2 + k, ne[EXFAT_DE_ENTRYTYPE]);
	}
	for (k = 0; k < len; k++) {
		const uint8_t *ne = l->set +
				    (2 + k / EXFAT_NAME_UNITS_PER_ENTRY) * EXFAT_DENTRY_SIZE;
		uint16_t u = get_le16(ne + EXFAT_FN_FILENAME +
				      2 * (k % EXFAT_NAME_UNITS_PER_ENTRY));
		if (u == 0 || u == '/')
			return diag_error(l->d,
					  "%s: a name holds U+%04X, which exFAT forbids in names",
					  l->path, u);
		l->out.name[k] = u;
		up[k] = l->v->upcase[u];
	}
	l->out.name_len = len;
	exfat_rd_name_utf8(l->out.name, len, l->out.e.name, sizeof(l->out.e.name));
	if (exfat_name_hash(up, len) != get_le16(se + EXFAT_SE_NAMEHASH))
		return diag_error(l->d,
				  "%s: the NameHash of '%s' is 0x%04X, its up-cased name hashes "
				  "to 0x%04X",
				  l->path, l->out.e.name, get_le16(se + EXFAT_SE_NAMEHASH),
				  exfat_name_hash(up, len));
	/* what follows the names: benign secondaries are skipped, critical ones unknown */
	for (k = 2 + entries; k < count; k++) {
		uint8_t t = l->set[k * EXFAT_DENTRY_SIZE];
		if (!(t & EXFAT_TYPE_BENIGN))
			return diag_error(l->d,
					  "%s: '%s' has a critical secondary entry of type 0x%02X, "
					  "which sdimg does not know",
					  l->path, l->out.e.name, t);
	}
	return 0;
}

/* A whole set in l->set: checked, then given to l->fn. */
static int cook_set(struct lister *l)
{
	const uint8_t *fe = l->set, *se = l->set + EXFAT_DENTRY_SIZE;
	unsigned count = l->need;
	struct exfat_dirent *e = &l->out.e;
	uint16_t sum = exfat_set_checksum(l->set, count);
	int r;

	if (sum != get_le16(fe + EXFAT_FE_SETCHECKSUM))
		return diag_error(l->d,
				  "%s: an entry set's SetChecksum is 0x%04X, its %u entries sum "
				  "to 0x%04X",
				  l->path, get_le16(fe + EXFAT_FE_SETCHECKSUM), count, sum);
	if (se[EXFAT_DE_ENTRYTYPE] != EXFAT_TYPE_STREAM)
		return diag_error(l->d,
				  "%s: a file entry is followed by an entry of type 0x%02X, not "
				  "a stream extension (0xC0)",
				  l->path, se[EXFAT_DE_ENTRYTYPE]);
	if ((r = set_name(l, count)))
		return r;
	e->attrs = get_le16(fe + EXFAT_FE_FILEATTRIBUTES);
	e->size = get_le64(se + EXFAT_DE_DATALENGTH);
	e->valid_size = get_le64(se + EXFAT_SE_VALIDDATALENGTH);
	e->first_cluster = get_le32(se + EXFAT_DE_FIRSTCLUSTER);
	e->contiguous = se[EXFAT_SE_FLAGS] & EXFAT_SE_NOFATCHAIN;
	e->mtime = entry_time(get_le32(fe + EXFAT_FE_LASTMODIFIEDTIMESTAMP),
			      fe[EXFAT_FE_LASTMODIFIED10MSINCREMENT],
			      fe[EXFAT_FE_LASTMODIFIEDUTCOFFSET]);
	if (e->valid_size > e->size)
		return diag_error(l->d,
				  "%s: '%s' has a ValidDataLength of %" PRIu64
				  " bytes, past its DataLength of %" PRIu64,
				  l->path, e->name, e->valid_size, e->size);
	return l->fn(l->ctx, &l->out);
}

/* A primary entry outside a set: a File entry opens one; the root's system entries are read
 * by exfat_vol_open(); other benign ones are skipped with their secondaries (§8.2). */
static int on_primary(struct lister *l, const uint8_t *e)
{
	uint8_t t = e[EXFAT_DE_ENTRYTYPE];

	switch (t) {
	case EXFAT_TYPE_FILE:
		if (e[EXFAT_FE_SECONDARYCOUNT] < 2 ||
		    e[EXFAT_FE_SECONDARYCOUNT] > EXFAT_SET_MAX_SECONDARY)
			return diag_error(l->d,
					  "%s: a file entry counts %u secondary entries: 2 to 18",
					  l->path, e[EXFAT_FE_SECONDARYCOUNT]);
		memcpy(l->set, e, EXFAT_DENTRY_SIZE);
		l->have = 1;
		l->need = 1u + e[EXFAT_FE_SECONDARYCOUNT];
		return 0;
	case EXFAT_TYPE_BITMAP:
	case EXFAT_TYPE_UPCASE:
	case EXFAT_TYPE_LABEL:
		return 0;
	default:
		if (!(t & EXFAT_TYPE_BENIGN))
			return diag_error(l->d,
					  "%s: a directory entry of type 0x%02X, critical and "
					  "unknown: sdimg cannot read this folder",
					  l->path, t);
		l->skip = e[1]; /* SecondaryCount of the generic primary entry (§6.3.1) */
		return 0;
	}
}

static int on_raw(void *ctx, const uint8_t *e)
{
	struct lister *l = ctx;
	uint8_t t = e[EXFAT_DE_ENTRYTYPE];
	bool secondary = (t & (EXFAT_TYPE_INUSE | EXFAT_TYPE_SECONDARY)) ==
			 (EXFAT_TYPE_INUSE | EXFAT_TYPE_SECONDARY);

	if (l->need) {
		if (!secondary)
			return diag_error(l->d,
					  "%s: an entry set of %u entries ends after %u (an entry "
					  "of type 0x%02X follows)",
					  l->path, l->need, l->have, t);
		memcpy(l->set + l->have * EXFAT_DENTRY_SIZE, e, EXFAT_DENTRY_SIZE);
		if (++l->have < l->need)
			return 0;
		int r = cook_set(l);
		l->need = 0;
		return r;
	}
	if (l->skip && secondary) {
		l->skip--;
		return 0;
	}
	l->skip = 0;
	if (!(t & EXFAT_TYPE_INUSE) || secondary)
		return 0; /* unused, or a secondary of no set (a deleted primary's) */
	return on_primary(l, e);
}

int exfat_rd_list(struct exfat_vol *v, const struct exfat_extent *x, uint8_t *seen,
		  const char *path, int (*fn)(void *ctx, const struct exfat_rd_entry *e), void *ctx,
		  struct diag *d)
{
	struct lister *l = calloc(1, sizeof(*l));
	int r;

	if (!l)
		return diag_errno(d, -ENOMEM, "%s: out of memory", path);
	*l = (struct lister){ .v = v, .path = path, .d = d, .fn = fn, .ctx = ctx };
	r = exfat_rd_walk_raw(v, x, seen, path, on_raw, l, d);
	if (!r && l->need)
		r = diag_error(d,
			       "%s: an entry set of %u entries is cut short (%u) by the "
			       "directory's end",
			       path, l->need, l->have);
	free(l);
	return r;
}
