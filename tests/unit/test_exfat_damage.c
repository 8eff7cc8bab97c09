/* SPDX-License-Identifier: MIT */
/*
 * Unit tests: exfat/'s reader on damaged copies of the volume of exfat_volume_util.h, each
 * refused with its own message: boot-sector fields out of range, bad checksums (boot region,
 * up-case table, set, name hash), entry sets out of order or cut short, unknown critical
 * entries, cluster numbers and lengths out of range, chains that loop or end early, folders
 * that loop or share clusters.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/exfat_volume_util.h"

static void patch(int fd, uint64_t at, const void *b, size_t n)
{
	pw(fd, b, n, at);
}

static void patch32(int fd, uint64_t at, uint32_t x)
{
	uint8_t b[4];

	put_le32(b, x);
	patch(fd, at, b, 4);
}

/* The boot checksum sector made to agree again, after a change to the boot sector. */
static void reseal(int fd)
{
	uint8_t r[12 * 512];

	assert_int_equal(pread(fd, r, sizeof(r), 0), (ssize_t)sizeof(r));
	for (unsigned k = 0; k < 512; k += 4)
		put_le32(r + 11 * 512 + k, exfat_boot_checksum(r));
	patch(fd, 11 * 512, r + 11 * 512, 512);
}

static void boot32(int fd, unsigned field, uint32_t x)
{
	patch32(fd, field, x);
	reseal(fd);
}

static void boot8(int fd, unsigned field, uint8_t x)
{
	patch(fd, field, &x, 1);
	reseal(fd);
}

/* The root entry of @type (its byte offset). */
static uint64_t root_entry(int fd, const struct geo *g, uint8_t type)
{
	uint8_t e[32];

	for (uint64_t at = coff(g, g->root);; at += 32) {
		assert_int_equal(pread(fd, e, 32, (off_t)at), 32);
		assert_true(e[0] != 0);
		if (e[0] == type)
			return at;
	}
}

/* The set of the file whose name starts with the 3 characters @name in the folder at @dir:
 * its offset, and its entries into @set. */
static uint64_t find_set(int fd, uint64_t dir, const char *name, uint8_t *set)
{
	for (uint64_t at = dir;; at += 32) {
		assert_int_equal(pread(fd, set, 32, (off_t)at), 32);
		assert_true(set[0] != 0);
		if (set[0] != EXFAT_TYPE_FILE)
			continue;
		unsigned count = 1u + set[1];
		assert_int_equal(pread(fd, set, count * 32u, (off_t)at), (ssize_t)(count * 32u));
		if (get_le16(set + 64 + EXFAT_FN_FILENAME) == (uint8_t)name[0] &&
		    get_le16(set + 64 + EXFAT_FN_FILENAME + 2) == (uint8_t)name[1] &&
		    get_le16(set + 64 + EXFAT_FN_FILENAME + 4) == (uint8_t)name[2])
			return at;
	}
}

/* Changes the set of @name (in the root, or in /dir) through @edit and rewrites its
 * SetChecksum unless @keep_sum. */
static void edit_set(int fd, const struct geo *g, bool in_dir, const char *name,
		     void (*edit)(uint8_t *set), bool keep_sum)
{
	uint8_t set[19 * 32];
	uint64_t at = find_set(fd, coff(g, in_dir ? C_DIR : g->root), name, set);
	unsigned count;

	edit(set);
	count = 1u + set[1]; /* an edit may add an entry: it covers the next set's first */
	if (!keep_sum)
		put_le16(set + EXFAT_FE_SETCHECKSUM, exfat_set_checksum(set, count));
	patch(fd, at, set, count * 32u);
}

static void e_flip_name(uint8_t *s)
{
	s[64 + EXFAT_FN_FILENAME] ^= 1;
}
static void e_hash(uint8_t *s)
{
	s[32 + EXFAT_SE_NAMEHASH] ^= 1;
}
static void e_count1(uint8_t *s)
{
	s[1] = 1;
}
static void e_namelen0(uint8_t *s)
{
	s[32 + EXFAT_SE_NAMELENGTH] = 0;
}
static void e_namelen_long(uint8_t *s)
{
	s[32 + EXFAT_SE_NAMELENGTH] = 200;
}
static void e_no_stream(uint8_t *s)
{
	s[32] = EXFAT_TYPE_NAME;
}
static void e_first_out(uint8_t *s)
{
	put_le32(s + 32 + EXFAT_DE_FIRSTCLUSTER, 600);
}
static void e_first_end(uint8_t *s)
{
	put_le32(s + 32 + EXFAT_DE_FIRSTCLUSTER, 512);
}
static void e_huge(uint8_t *s)
{
	put_le64(s + 32 + EXFAT_DE_DATALENGTH, 1ull << 40);
}
static void e_valid(uint8_t *s)
{
	put_le64(s + 32 + EXFAT_SE_VALIDDATALENGTH, 11);
}
static void e_dir0(uint8_t *s)
{
	put_le64(s + 32 + EXFAT_DE_DATALENGTH, 0);
	put_le64(s + 32 + EXFAT_SE_VALIDDATALENGTH, 0);
}
static void e_dir_root(uint8_t *s)
{
	put_le32(s + 32 + EXFAT_DE_FIRSTCLUSTER, 5);
}
static void e_dir_big(uint8_t *s)
{
	put_le64(s + 32 + EXFAT_DE_DATALENGTH, 1ull << 30);
}
static void e_critical_2nd(uint8_t *s)
{
	/* café.txt's set gets a third secondary: a critical one nobody knows */
	s[1] = 3;
	memset(s + 96, 0, 32);
	s[96] = 0xC2;
}
static void e_benign_2nd(uint8_t *s)
{
	s[1] = 3;
	memset(s + 96, 0, 32);
	s[96] = 0xE0;
}

enum phase { AT_OPEN, AT_LIST, AT_READ, AT_WALK };

struct damage {
	const char *name;
	void (*apply)(int fd, const struct geo *g);
	enum phase phase;
	const char *path;
	const char *expect; /* in the message; NULL: no error */
};

static void d_checksum(int fd, const struct geo *g)
{
	(void)g;
	patch(fd, 300, "x", 1);
}
static void d_jump(int fd, const struct geo *g)
{
	(void)g;
	boot8(fd, 0, 0xE9);
}
static void d_mbz(int fd, const struct geo *g)
{
	(void)g;
	boot8(fd, 40, 1);
}
static void d_shift(int fd, const struct geo *g)
{
	(void)g;
	boot8(fd, EXFAT_SECTORSPERCLUSTERSHIFT, 17);
}
static void d_sector(int fd, const struct geo *g)
{
	(void)g;
	boot8(fd, EXFAT_BYTESPERSECTORSHIFT, 12);
}
static void d_fats(int fd, const struct geo *g)
{
	(void)g;
	boot8(fd, EXFAT_NUMBEROFFATS, 3);
}
static void d_fatoff(int fd, const struct geo *g)
{
	(void)g;
	boot32(fd, EXFAT_FATOFFSET, 10);
}
static void d_heap_in_fat(int fd, const struct geo *g)
{
	(void)g;
	boot32(fd, EXFAT_CLUSTERHEAPOFFSET, 2050);
}
static void d_clusters(int fd, const struct geo *g)
{
	(void)g;
	boot32(fd, EXFAT_CLUSTERCOUNT, 100000);
}
static void d_clusters0(int fd, const struct geo *g)
{
	(void)g;
	boot32(fd, EXFAT_CLUSTERCOUNT, 0);
}
static void d_fatlen(int fd, const struct geo *g)
{
	(void)g;
	boot32(fd, EXFAT_FATLENGTH, 1);
}
static void d_root(int fd, const struct geo *g)
{
	(void)g;
	boot32(fd, EXFAT_FIRSTCLUSTEROFROOTDIRECTORY, 514);
}
static void d_vollen(int fd, const struct geo *g)
{
	(void)g;
	boot32(fd, EXFAT_VOLUMELENGTH, 9000);
}
static void d_vollen_huge(int fd, const struct geo *g)
{
	(void)g;
	patch32(fd, EXFAT_VOLUMELENGTH, 0);
	boot32(fd, EXFAT_VOLUMELENGTH + 4, 1u << 30); /* 2^62 sectors */
}
static void d_revision(int fd, const struct geo *g)
{
	(void)g;
	boot8(fd, EXFAT_FILESYSTEMREVISION + 1, 2);
}
static void d_upcase_sum(int fd, const struct geo *g)
{
	patch(fd, root_entry(fd, g, EXFAT_TYPE_UPCASE) + EXFAT_UC_TABLECHECKSUM, "\0", 1);
}
static void d_upcase_len(int fd, const struct geo *g)
{
	patch32(fd, root_entry(fd, g, EXFAT_TYPE_UPCASE) + EXFAT_DE_DATALENGTH, 1u << 20);
}
static void d_upcase_cluster(int fd, const struct geo *g)
{
	patch32(fd, root_entry(fd, g, EXFAT_TYPE_UPCASE) + EXFAT_DE_FIRSTCLUSTER, 513);
}
static void d_bitmap_len(int fd, const struct geo *g)
{
	patch32(fd, root_entry(fd, g, EXFAT_TYPE_BITMAP) + EXFAT_DE_DATALENGTH, 10);
}
static void d_bitmap_cluster(int fd, const struct geo *g)
{
	patch32(fd, root_entry(fd, g, EXFAT_TYPE_BITMAP) + EXFAT_DE_FIRSTCLUSTER, 1);
}
static void d_no_bitmap(int fd, const struct geo *g)
{
	patch(fd, root_entry(fd, g, EXFAT_TYPE_BITMAP), "\x01", 1);
}
static void d_label_len(int fd, const struct geo *g)
{
	patch(fd, root_entry(fd, g, EXFAT_TYPE_LABEL) + 1, "\x0c", 1);
}
static void d_root_loop(int fd, const struct geo *g)
{
	/* the root's cluster full of deleted entries, its FAT entry pointing at itself */
	uint8_t e[32] = { 0x05 };
	for (uint64_t at = g->root_end; at < coff(g, g->root) + CS; at += 32)
		patch(fd, at, e, 32);
	set_fat(fd, g, g->root, g->root);
}
static void d_set_sum(int fd, const struct geo *g)
{
	edit_set(fd, g, false, "readme.txt", e_flip_name, true);
}
static void d_hash(int fd, const struct geo *g)
{
	edit_set(fd, g, false, "readme.txt", e_hash, false);
}
static void d_count(int fd, const struct geo *g)
{
	edit_set(fd, g, false, "readme.txt", e_count1, false);
}
static void d_namelen0(int fd, const struct geo *g)
{
	edit_set(fd, g, false, "readme.txt", e_namelen0, false);
}
static void d_namelen(int fd, const struct geo *g)
{
	edit_set(fd, g, false, "readme.txt", e_namelen_long, false);
}
static void d_no_stream(int fd, const struct geo *g)
{
	edit_set(fd, g, false, "readme.txt", e_no_stream, false);
}
static void d_first_out(int fd, const struct geo *g)
{
	edit_set(fd, g, false, "readme.txt", e_first_out, false);
}
static void d_run_out(int fd, const struct geo *g)
{
	edit_set(fd, g, false, "sparse.bin", e_first_end, false);
}
static void d_huge(int fd, const struct geo *g)
{
	edit_set(fd, g, false, "readme.txt", e_huge, false);
}
static void d_valid(int fd, const struct geo *g)
{
	edit_set(fd, g, false, "readme.txt", e_valid, false);
}
static void d_dir0(int fd, const struct geo *g)
{
	edit_set(fd, g, false, "dir", e_dir0, false);
}
static void d_dir_big(int fd, const struct geo *g)
{
	edit_set(fd, g, false, "dir", e_dir_big, false);
}
static void d_dir_loop(int fd, const struct geo *g)
{
	edit_set(fd, g, true, "sub", e_dir_root, false);
}
static void d_critical_2nd(int fd, const struct geo *g)
{
	edit_set(fd, g, true, "caf", e_critical_2nd, false);
}
static void d_benign_2nd(int fd, const struct geo *g)
{
	edit_set(fd, g, true, "caf", e_benign_2nd, false);
}
static void d_chain_loop(int fd, const struct geo *g)
{
	set_fat(fd, g, C_CHAIN2, C_CHAIN1);
}
static void d_chain_short(int fd, const struct geo *g)
{
	set_fat(fd, g, C_CHAIN2, EXFAT_FAT_EOC);
}
static void d_chain_free(int fd, const struct geo *g)
{
	set_fat(fd, g, C_CHAIN2, 0);
}
static void d_chain_out(int fd, const struct geo *g)
{
	set_fat(fd, g, C_CHAIN2, 0x00FFFFFF);
}
static void d_chain_bad(int fd, const struct geo *g)
{
	set_fat(fd, g, C_CHAIN2, EXFAT_FAT_BAD);
}
static void d_critical(int fd, const struct geo *g)
{
	uint8_t e[32] = { 0x86 };
	patch(fd, g->root_end, e, 32);
}
static void d_benign(int fd, const struct geo *g)
{
	uint8_t e[64] = { 0xA1, 1 };
	e[32] = 0xE0;
	patch(fd, g->root_end, e, 64);
}
static void d_cut(int fd, const struct geo *g)
{
	/* a file entry in the root's last slot, its secondaries beyond the chain's end */
	uint8_t set[19 * 32], e[32] = { 0x05 };
	unsigned count = ascii_set(set, "cut", 0, 0, 0, 0, false);
	for (uint64_t at = g->root_end; at < coff(g, g->root) + CS - 32; at += 32)
		patch(fd, at, e, 32);
	(void)count;
	patch(fd, coff(g, g->root) + CS - 32, set, 32);
}
static void d_cross(int fd, const struct geo *g)
{
	/* /dir/sub's cluster is /dir's own: a folder that shares clusters */
	uint8_t set[19 * 32];
	uint64_t at = find_set(fd, coff(g, C_DIR), "sub", set);
	put_le32(set + 32 + EXFAT_DE_FIRSTCLUSTER, C_DIR);
	put_le16(set + EXFAT_FE_SETCHECKSUM, exfat_set_checksum(set, 1u + set[1]));
	patch(fd, at, set, (1u + set[1]) * 32u);
}
/* Points the set of @name (in the root, or in /dir) at cluster @first, with @len bytes
 * (0: its own length kept). */
static void retarget(int fd, const struct geo *g, bool in_dir, const char *name, uint32_t first,
		     uint64_t len)
{
	uint8_t set[19 * 32];
	uint64_t at = find_set(fd, coff(g, in_dir ? C_DIR : g->root), name, set);

	put_le32(set + 32 + EXFAT_DE_FIRSTCLUSTER, first);
	if (len) {
		put_le64(set + 32 + EXFAT_DE_DATALENGTH, len);
		put_le64(set + 32 + EXFAT_SE_VALIDDATALENGTH, len);
	}
	put_le16(set + EXFAT_FE_SETCHECKSUM, exfat_set_checksum(set, 1u + set[1]));
	patch(fd, at, set, (1u + set[1]) * 32u);
}
static uint32_t bitmap_cluster(int fd, const struct geo *g)
{
	uint8_t b[4];

	assert_int_equal(pread(fd, b, 4,
			       (off_t)(root_entry(fd, g, EXFAT_TYPE_BITMAP) +
				       EXFAT_DE_FIRSTCLUSTER)),
			 4);
	return get_le32(b);
}
static void d_file_cross(int fd, const struct geo *g)
{
	retarget(fd, g, false, "readme.txt", C_CHAIN1, 0); /* chain.bin's first cluster */
}
static void d_file_bitmap(int fd, const struct geo *g)
{
	retarget(fd, g, false, "readme.txt", bitmap_cluster(fd, g), 0);
}
static void d_file_root(int fd, const struct geo *g)
{
	retarget(fd, g, true, "caf", g->root, 0);
}
static void d_dir_bitmap(int fd, const struct geo *g)
{
	retarget(fd, g, true, "sub", bitmap_cluster(fd, g), 0);
}
static void d_dir_run_out(int fd, const struct geo *g)
{
	/* /dir, NoFatChain: 3 clusters from the heap's last, whose entries end at once */
	uint8_t zero[CS] = { 0 };
	patch(fd, coff(g, 513), zero, CS);
	retarget(fd, g, false, "dir", 513, 3 * CS);
}
static void d_bitmap_wrap(int fd, const struct geo *g)
{
	uint8_t b[8];
	put_le64(b, UINT64_MAX); /* rounded up to clusters, it must not wrap to 0 */
	patch(fd, root_entry(fd, g, EXFAT_TYPE_BITMAP) + EXFAT_DE_DATALENGTH, b, 8);
}

static const struct damage damages[] = {
	{ "boot checksum", d_checksum, AT_OPEN, NULL, "the boot checksum sector holds" },
	{ "jump", d_jump, AT_OPEN, NULL, "JumpBoot" },
	{ "must be zero", d_mbz, AT_OPEN, NULL, "bytes 11-63 must be 0" },
	{ "cluster shift", d_shift, AT_OPEN, NULL, "SectorsPerClusterShift 17" },
	{ "sector size", d_sector, AT_OPEN, NULL, "sectors of 4096 bytes" },
	{ "FATs", d_fats, AT_OPEN, NULL, "NumberOfFats 3" },
	{ "FAT offset", d_fatoff, AT_OPEN, NULL, "FatOffset 10" },
	{ "heap inside the FAT", d_heap_in_fat, AT_OPEN, NULL, "lies inside the FAT" },
	{ "cluster count", d_clusters, AT_OPEN, NULL, "FAT (8 sectors) is too small" },
	{ "no clusters", d_clusters0, AT_OPEN, NULL, "ClusterCount 0" },
	{ "FAT length", d_fatlen, AT_OPEN, NULL, "is too small for 512 clusters" },
	{ "root cluster", d_root, AT_OPEN, NULL, "root directory cluster 514" },
	{ "volume length", d_vollen, AT_OPEN, NULL, "but only 4194304 are there" },
	{ "volume length 2^62", d_vollen_huge, AT_OPEN, NULL,
	  "VolumeLength 4611686018427387904 sectors: too large" },
	{ "revision", d_revision, AT_OPEN, NULL, "revision 2.00" },
	{ "up-case checksum", d_upcase_sum, AT_OPEN, NULL, "the up-case table sums to" },
	{ "up-case length", d_upcase_len, AT_OPEN, NULL, "up-case table is 1048576 bytes" },
	{ "up-case cluster", d_upcase_cluster, AT_OPEN, NULL, "the up-case table (5836 bytes" },
	{ "bitmap length", d_bitmap_len, AT_OPEN, NULL, "allocation bitmap is 10 bytes" },
	{ "bitmap cluster", d_bitmap_cluster, AT_OPEN, NULL, "from cluster 1) does not lie" },
	{ "no bitmap", d_no_bitmap, AT_OPEN, NULL, "no allocation bitmap entry" },
	{ "label length", d_label_len, AT_OPEN, NULL, "volume label is 12 characters" },
	{ "root loop", d_root_loop, AT_OPEN, NULL, "also another's, or its own" },
	{ "set checksum", d_set_sum, AT_LIST, "/", "SetChecksum is" },
	{ "name hash", d_hash, AT_LIST, "/", "the NameHash of 'readme.txt'" },
	{ "secondary count", d_count, AT_LIST, "/", "counts 1 secondary" },
	{ "name length 0", d_namelen0, AT_LIST, "/", "a name of 0 characters" },
	{ "name length", d_namelen, AT_LIST, "/", "a name of 200 characters" },
	{ "no stream", d_no_stream, AT_LIST, "/", "not a stream extension" },
	{ "critical primary", d_critical, AT_LIST, "/", "type 0x86, critical and unknown" },
	{ "benign primary", d_benign, AT_LIST, "/", NULL },
	{ "critical secondary", d_critical_2nd, AT_LIST, "/dir",
	  "critical secondary entry of type 0xC2" },
	{ "benign secondary", d_benign_2nd, AT_READ, "/dir/caf\xc3\xa9.txt", NULL },
	{ "set cut short", d_cut, AT_LIST, "/", "cut short (1) by the directory's end" },
	{ "cluster out of range", d_first_out, AT_READ, "/readme.txt", "cluster 600, outside" },
	{ "run past the heap", d_run_out, AT_READ, "/sparse.bin", "cluster 514, outside" },
	{ "length past the heap", d_huge, AT_READ, "/readme.txt", "larger than the volume's heap" },
	{ "valid length", d_valid, AT_LIST, "/", "ValidDataLength of 11 bytes" },
	{ "chain loop", d_chain_loop, AT_READ, "/chain.bin", "also another's, or its own" },
	{ "chain short", d_chain_short, AT_READ, "/chain.bin", "chain ends after 2 of 3" },
	{ "chain free", d_chain_free, AT_READ, "/chain.bin", "runs into a free cluster" },
	{ "chain out", d_chain_out, AT_READ, "/chain.bin", "cluster 16777215, outside" },
	{ "chain bad cluster", d_chain_bad, AT_READ, "/chain.bin", "outside the heap" },
	{ "folder of 0 bytes", d_dir0, AT_LIST, "/dir", "a directory of 0 bytes" },
	{ "folder too big", d_dir_big, AT_LIST, "/dir", "at most 256 MiB" },
	{ "folder loop", d_dir_loop, AT_WALK, "/", "is the volume's own" },
	{ "files cross-linked (read)", d_file_cross, AT_READ, "/readme.txt", "also another's" },
	{ "files cross-linked (walk)", d_file_cross, AT_WALK, "/", "also another's" },
	{ "file in the bitmap", d_file_bitmap, AT_READ, "/readme.txt", "is the volume's own" },
	{ "file in the root", d_file_root, AT_READ, "/dir/caf\xc3\xa9.txt", "is the volume's own" },
	{ "folder in the bitmap", d_dir_bitmap, AT_WALK, "/", "is the volume's own" },
	{ "folder in the bitmap (list)", d_dir_bitmap, AT_LIST, "/dir/sub", "is the volume's own" },
	{ "folder run past the heap", d_dir_run_out, AT_LIST, "/dir",
	  "runs past the heap's last cluster 513" },
	{ "bitmap length wraps", d_bitmap_wrap, AT_OPEN, NULL, "does not lie inside the heap" },
	{ "folders cross-linked", d_cross, AT_WALK, "/", "also another's, or its own" },
};

static int sink(void *ctx, const void *buf, size_t len)
{
	(void)ctx;
	(void)buf;
	(void)len;
	return 0;
}

static int no_entry(void *ctx, const struct exfat_dirent *e)
{
	(void)ctx;
	(void)e;
	return 0;
}

static void test_damage(void **state)
{
	static const struct exfat_walk_fns fns = { .entry = no_entry };

	(void)state;
	for (size_t k = 0; k < sizeof(damages) / sizeof(damages[0]); k++) {
		const struct damage *x = &damages[k];
		struct geo g;
		int fd = make_volume(&g);
		struct exfat_vol *v = NULL;
		struct diag d;
		int r;

		diag_init(&d);
		x->apply(fd, &g);
		r = exfat_vol_open(fd, 0, VOL_BYTES, &v, &d);
		if (!r && x->phase == AT_LIST)
			r = exfat_vol_list(v, x->path, no_entry, NULL, &d);
		else if (!r && x->phase == AT_READ)
			r = exfat_vol_read(v, x->path, sink, NULL, &d);
		else if (!r && x->phase == AT_WALK)
			r = exfat_vol_walk(v, x->path, 8, &fns, NULL, &d);
		if (!x->expect) {
			if (r)
				fail_msg("%s: %s", x->name, d.n ? d.msgs[0].text : "(no message)");
		} else {
			if (!r || d.n != 1 || !strstr(d.msgs[0].text, x->expect))
				fail_msg("%s: rc %d, %zu message(s), want '%s', got '%s'", x->name,
					 r, d.n, x->expect, d.n ? d.msgs[0].text : "");
		}
		exfat_vol_close(v);
		diag_release(&d);
		close(fd);
	}
}

/* The clusters the tree holds (exfat_vol_walk_held()): on the healthy volume, those its bitmap
 * marks besides its own and the up-case table's (files, folders, the root); a root grown by a
 * cluster past its end-of-directory entry counts it; a run kept beside the tree counts the
 * clusters no file holds, inside the heap only. */
static void test_walk_held(void **state)
{
	static const struct exfat_walk_fns fns = { .entry = no_entry };
	struct geo g;
	int fd = make_volume(&g);
	struct exfat_vol *v = NULL;
	struct diag d;
	uint32_t free_clusters;
	uint64_t held = 0, kept = 99, used;
	struct fat_run keep[] = { { C_README, 3 }, { g.clusters - 2, 50 } };

	(void)state;
	diag_init(&d);
	assert_int_equal(exfat_vol_open(fd, 0, VOL_BYTES, &v, &d), 0);
	const struct exfat_info *i = exfat_vol_info(v);
	assert_int_equal(exfat_vol_free_clusters(v, &free_clusters, &d), 0);
	used = i->clusters - free_clusters - (i->bitmap_bytes + CS - 1) / CS -
	       (i->upcase_bytes + CS - 1) / CS;
	assert_int_equal(exfat_vol_walk_held(v, 8, &fns, NULL, NULL, 0, &held, &kept, &d), 0);
	assert_int_equal(held, used);
	assert_int_equal(kept, 0);
	/* README's 1 cluster is held: 2 of the run; the heap ends at cluster clusters + 1: 4 */
	assert_int_equal(exfat_vol_walk_held(v, 8, &fns, NULL, keep, 2, &held, &kept, &d), 0);
	assert_int_equal(held, used);
	assert_int_equal(kept, 2 + 4);
	exfat_vol_close(v);
	set_fat(fd, &g, g.root, 200); /* the root's chain: one cluster more, of zeros */
	set_fat(fd, &g, 200, 0xFFFFFFFF);
	assert_int_equal(exfat_vol_open(fd, 0, VOL_BYTES, &v, &d), 0);
	assert_int_equal(exfat_vol_walk_held(v, 8, &fns, NULL, NULL, 0, &held, &kept, &d), 0);
	assert_int_equal(held, used + 1);
	exfat_vol_close(v);
	diag_release(&d);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_damage),
		cmocka_unit_test(test_walk_held),
	};

	if (!have_tool("mkfs.exfat") || !have_tool("tune.exfat")) {
		printf("test_exfat_damage: mkfs.exfat not found: skipped\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
