/* SPDX-License-Identifier: MIT */
/*
 * Unit tests: the reader on volumes fat_write() makes (parameters, listing, long names, file
 * contents) and on corrupt ones (boot-sector fields, looping chains, random damage).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/bytes.h"
#include "fat/fat.h"
#include "tests/unit/fat_volume_util.h"

struct names {
	char list[8][1024];
	int n;
};

static int collect(void *ctx, const struct fat_dirent *e)
{
	struct names *n = ctx;

	if (n->n < 8)
		strcpy(n->list[n->n++], e->name);
	return 0;
}

struct check {
	uint64_t off;
	int bad;
};

static int compare(void *ctx, const void *buf, size_t len)
{
	struct check *c = ctx;
	uint8_t want[65536];

	fill(NULL, c->off, want, len);
	c->bad |= memcmp(buf, want, len) != 0;
	c->off += len;
	return 0;
}

static void read_back(enum fat_type type, uint64_t size, uint32_t cs)
{
	struct fat_geom g;
	struct fat_vol *v;
	struct names n = { .n = 0 };
	struct check c = { 0, 0 };
	struct diag d;
	int fd = make_volume(type, size, cs, &g);
	const struct fat_info *i;

	diag_init(&d);
	assert_int_equal(fat_vol_open(fd, 0, size, &v, &d), 0);
	i = fat_vol_info(v);
	assert_int_equal(i->type, type);
	assert_int_equal(i->cluster_size, g.cluster_size);
	assert_int_equal(i->reserved, g.reserved);
	assert_int_equal(i->fats, g.fats);
	assert_int_equal(i->clusters, g.clusters);
	assert_int_equal(i->data_offset, g.data_offset);
	assert_int_equal(i->total_sectors, size / 512);
	assert_int_equal(i->volume_id, 0xCAFE1234);
	assert_string_equal(i->label, "Reader"); /* as given */
	assert_string_equal(i->oem_name, "SDIMG");
	assert_int_equal(fat_vol_list(v, "/", collect, &n, &d), 0);
	assert_int_equal(n.n, 3);
	assert_string_equal(n.list[0], "A long name \xf0\x9f\x98\x80.txt");
	assert_string_equal(n.list[1], "dir");
	assert_string_equal(n.list[2], "readme.txt");
	n.n = 0;
	assert_int_equal(fat_vol_list(v, "/DIR", collect, &n, &d), 0);
	assert_int_equal(n.n, 2);
	assert_int_equal(fat_vol_read(v, "/Dir/BIG.BIN", compare, &c, &d), 0);
	assert_int_equal(c.off, BIG);
	assert_false(c.bad);
	assert_int_equal(fat_vol_read(v, "/dir/nothing", compare, &c, &d), -ENOENT);
	assert_int_equal(fat_vol_read(v, "/dir", compare, &c, &d), -EISDIR);
	assert_int_equal(fat_vol_list(v, "/readme.txt/x", collect, &n, &d), -ENOTDIR);
	fat_vol_close(v);
	diag_release(&d);
	close(fd);
}

static void test_read_back(void **state)
{
	(void)state;
	read_back(FAT_12, 2 * 1024 * 1024, 512);
	read_back(FAT_16, 8 * 1024 * 1024, 512);
	read_back(FAT_32, 40 * 1024 * 1024, 512);
}

/* Opens vol.img after @mutate changed its boot sector; expects an error with @needle. */
static void expect_open_error(int fd, uint64_t size, const uint8_t *pristine,
			      void (*mutate)(uint8_t *s), const char *needle)
{
	uint8_t s[512];
	struct fat_vol *v = NULL;
	struct diag d;

	memcpy(s, pristine, 512);
	mutate(s);
	assert_int_equal(pwrite(fd, s, 512, 0), 512);
	diag_init(&d);
	assert_true(fat_vol_open(fd, 0, size, &v, &d) < 0);
	assert_null(v);
	if (!diag_has(&d, needle)) {
		diag_print(&d, stderr, "test");
		fail_msg("no error containing \"%s\"", needle);
	}
	diag_release(&d);
}

static void no_sig(uint8_t *s)
{
	s[510] = 0;
}
static void no_jump(uint8_t *s)
{
	s[0] = 0;
}
static void bps_300(uint8_t *s)
{
	put_le16(s + 11, 300);
}
static void spc_3(uint8_t *s)
{
	s[13] = 3;
}
static void spc_0(uint8_t *s)
{
	s[13] = 0;
}
static void rsv_0(uint8_t *s)
{
	put_le16(s + 14, 0);
}
static void fats_0(uint8_t *s)
{
	s[16] = 0;
}
static void tot_0(uint8_t *s)
{
	put_le16(s + 19, 0);
	put_le32(s + 32, 0);
}
static void fatsz_0(uint8_t *s)
{
	put_le16(s + 22, 0);
	put_le32(s + 36, 0);
}
static void fatsz_1(uint8_t *s)
{
	put_le16(s + 22, 1);
}
static void media(uint8_t *s)
{
	s[21] = 0x12;
}
static void huge_rsv(uint8_t *s)
{
	put_le16(s + 14, 0xFFFF);
}
static void tot_big(uint8_t *s)
{
	put_le16(s + 19, 0);
	put_le32(s + 32, 0xFFFFFFFF);
}
static void fat32_bpb(uint8_t *s)
{
	put_le16(s + 22, 0);
	put_le32(s + 36, 64);
}
static void rde_0(uint8_t *s)
{
	put_le16(s + 17, 0);
}

struct damage {
	void (*mutate)(uint8_t *s);
	const char *needle;
};

/* Applies each damage to a fresh volume of @type and expects fat_vol_open() to refuse it. */
static void run_damages(enum fat_type type, uint64_t size, const struct damage *list, size_t n)
{
	struct fat_geom g;
	int fd = make_volume(type, size, 512, &g);
	uint8_t s[512];

	assert_int_equal(pread(fd, s, 512, 0), 512);
	for (size_t i = 0; i < n; i++)
		expect_open_error(fd, size, s, list[i].mutate, list[i].needle);
	close(fd);
}

static void test_corrupt_fat16_boot(void **state)
{
	static const struct damage list[] = {
		{ no_sig, "signature" },
		{ no_jump, "jump" },
		{ bps_300, "bytes per sector 300" },
		{ spc_3, "sectors per cluster 3" },
		{ spc_0, "sectors per cluster 0" },
		{ rsv_0, "reserved sector count is 0" },
		{ fats_0, "number of FATs 0" },
		{ tot_0, "total sector count is 0" },
		{ fatsz_0, "FAT size is 0" },
		{ fatsz_1, "too small" },
		{ media, "media byte" },
		{ huge_rsv, "does not leave room" },
		{ tot_big, "only 8388608 are there" },
		{ fat32_bpb, "laid out for FAT32" },
		{ rde_0, "root entry count 0" },
	};

	(void)state;
	run_damages(FAT_16, 8 * 1024 * 1024, list, sizeof(list) / sizeof(list[0]));
}

static void root_clus_0(uint8_t *s)
{
	put_le32(s + 44, 0);
}
static void root_clus_far(uint8_t *s)
{
	put_le32(s + 44, 0x0FFFFFF0);
}
static void fsver(uint8_t *s)
{
	s[42] = 1;
}
static void fat16_bpb(uint8_t *s)
{
	put_le16(s + 22, 100);
}

static void test_corrupt_fat32_boot(void **state)
{
	static const struct damage list[] = {
		{ root_clus_0, "root cluster 0" },
		{ root_clus_far, "outside clusters" },
		{ fsver, "version" },
		{ fat16_bpb, "laid out for FAT12/16" },
		{ tot_big, "only 41943040 are there" },
	};

	(void)state;
	run_damages(FAT_32, 40 * 1024 * 1024, list, sizeof(list) / sizeof(list[0]));
}

static int count_bytes(void *ctx, const void *buf, size_t len)
{
	(void)buf;
	*(uint64_t *)ctx += len;
	return 0;
}

/* Cluster chains that loop or leave the volume end in errors, not hangs. */
static void test_bad_chains(void **state)
{
	struct fat_geom g;
	struct fat_vol *v;
	struct diag d;
	uint64_t got = 0, fat;
	int fd = make_volume(FAT_16, 8 * 1024 * 1024, 512, &g);
	/* clusters go in entry order: the long name (2), dir (3), readme.txt (4), then the
	 * children of /dir: big.bin (5..14), empty (15) */
	const uint32_t big = 5;
	uint8_t e[2];

	(void)state;
	diag_init(&d);
	fat = (uint64_t)g.reserved * 512;
	/* big.bin's second cluster points outside the volume */
	put_le16(e, 0xFFF0);
	assert_int_equal(pwrite(fd, e, 2, (off_t)(fat + 2 * (big + 1))), 2);
	assert_int_equal(fat_vol_open(fd, 0, 0, &v, &d), 0);
	assert_int_equal(fat_vol_read(v, "/dir/big.bin", count_bytes, &got, &d), -EINVAL);
	assert_true(diag_has(&d, "leads to cluster 65520"));
	fat_vol_close(v);
	/* a chain that loops onto itself: an error at the first cluster seen twice */
	put_le16(e, (uint16_t)(big + 1));
	assert_int_equal(pwrite(fd, e, 2, (off_t)(fat + 2 * (big + 1))), 2);
	assert_int_equal(fat_vol_open(fd, 0, 0, &v, &d), 0);
	got = 0;
	assert_int_equal(fat_vol_read(v, "/dir/big.bin", count_bytes, &got, &d), -EINVAL);
	assert_true(diag_has(&d, "loops back to cluster 6 after 1024 of"));
	assert_int_equal(got, 1024);
	/* a chain ending early (reopened: the reader caches a FAT sector) */
	fat_vol_close(v);
	put_le16(e, 0xFFFF);
	assert_int_equal(pwrite(fd, e, 2, (off_t)(fat + 2 * big)), 2);
	assert_int_equal(fat_vol_open(fd, 0, 0, &v, &d), 0);
	assert_int_equal(fat_vol_read(v, "/dir/big.bin", count_bytes, &got, &d), -EINVAL);
	assert_true(diag_has(&d, "ends after 512 of 5000 bytes"));
	fat_vol_close(v);
	diag_release(&d);
	close(fd);
}

static int ignore(void *ctx, const struct fat_dirent *e)
{
	(void)ctx;
	(void)e;
	return 0;
}

/* A directory cluster full of entries (no end marker) whose chain loops onto itself. */
static void test_dir_loop(void **state)
{
	struct fat_opts o = { .type = FAT_16, .cluster_size = 512 };
	struct fat_tree *t = fat_tree_new(0);
	uint64_t size = 8 * 1024 * 1024;
	struct fat_geom g;
	struct fat_vol *v;
	struct diag d;
	char path[32];
	uint8_t e[2];
	int fd = open("loop.img", O_RDWR | O_CREAT | O_TRUNC, 0644);

	(void)state;
	diag_init(&d);
	assert_int_equal(ftruncate(fd, (off_t)size), 0);
	assert_int_equal(fat_params(&o, size, 0, &g, &d), 0);
	for (int i = 0; i < 14; i++) { /* "." + ".." + 14 = 16 entries = one 512-byte cluster */
		snprintf(path, sizeof(path), "/D/F%02d", i);
		assert_int_equal(fat_tree_add_file(t, path, 0, NULL, NULL, &d), 0);
	}
	assert_int_equal(fat_write(t, &g, fd, 0, &d), 0);
	put_le16(e, 2); /* /D is cluster 2: make it its own successor */
	assert_int_equal(pwrite(fd, e, 2, (off_t)(g.reserved * 512 + 4)), 2);
	assert_int_equal(fat_vol_open(fd, 0, size, &v, &d), 0);
	assert_int_equal(fat_vol_list(v, "/D", ignore, NULL, &d), -EINVAL);
	assert_true(diag_has(&d, "longer than 65536 entries"));
	assert_int_equal(fat_vol_read(v, "/D/nothing", NULL, NULL, &d), -EINVAL);
	fat_vol_close(v);
	fat_tree_free(t);
	diag_release(&d);
	close(fd);
}

static int walk_all(struct fat_vol *v, const char *dir, int depth, struct diag *d);

struct walker {
	struct fat_vol *v;
	const char *dir;
	int depth;
	struct diag *d;
};

static int visit(void *ctx, const struct fat_dirent *e)
{
	struct walker *w = ctx;
	char path[2200];
	uint64_t got = 0;

	snprintf(path, sizeof(path), "%s/%s", w->dir, e->name);
	if (e->attrs & FAT_ATTR_DIR)
		walk_all(w->v, path, w->depth + 1, w->d);
	else
		fat_vol_read(w->v, path, count_bytes, &got, w->d);
	return 0;
}

static int walk_all(struct fat_vol *v, const char *dir, int depth, struct diag *d)
{
	struct walker w = { v, dir, depth, d };

	return depth > 4 ? 0 : fat_vol_list(v, dir[0] ? dir : "/", visit, &w, d);
}

/* A volume of @type with the folders and files of @paths (a trailing '/' makes a folder). */
static int make_tree(enum fat_type type, uint64_t size, const char *const *paths, size_t n,
		     struct fat_geom *g)
{
	struct fat_opts o = { .type = type, .cluster_size = 512 };
	struct fat_source src = { .fd = -1, .read = fill };
	struct fat_tree *t = fat_tree_new(0);
	struct fat_meta m = { .mtime = 1700000000 };
	struct diag d;
	int fd = open("tree.img", O_RDWR | O_CREAT | O_TRUNC, 0644);

	diag_init(&d);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)size), 0);
	assert_int_equal(fat_params(&o, size, 0, g, &d), 0);
	for (size_t i = 0; i < n; i++) {
		char path[4096];
		size_t len = strlen(paths[i]);
		snprintf(path, sizeof(path), "%s", paths[i]);
		if (path[len - 1] == '/') {
			path[len - 1] = 0;
			assert_int_equal(fat_tree_add_dir(t, path, &m, &d), 0);
		} else {
			assert_int_equal(fat_tree_add_file(t, path, 3, &src, &m, &d), 0);
		}
	}
	assert_int_equal(fat_write(t, g, fd, 0, &d), 0);
	fat_tree_free(t);
	diag_release(&d);
	return fd;
}

/* What fat_vol_walk() called, as text: "[PATH]" for a folder, NAME or NAME/ for an entry. */
struct trail {
	char text[8192];
	unsigned entries;
};

static void trail_add(struct trail *t, const char *s)
{
	size_t len = strlen(t->text);

	snprintf(t->text + len, sizeof(t->text) - len, "%s%s", len ? " " : "", s);
}

static int trail_folder(void *ctx, const char *path)
{
	char s[4200];

	snprintf(s, sizeof(s), "[%s]", path);
	trail_add(ctx, s);
	return 0;
}

static int trail_entry(void *ctx, const struct fat_dirent *e)
{
	struct trail *t = ctx;
	char s[1100];

	snprintf(s, sizeof(s), "%s%s", e->name, e->attrs & FAT_ATTR_DIR ? "/" : "");
	trail_add(t, s);
	t->entries++;
	return 0;
}

static const struct fat_walk_fns trail_fns = { .folder = trail_folder, .entry = trail_entry };

/* A folder's entries, then each folder in it in turn, on FAT12, FAT16 and FAT32. */
static void test_walk_order(void **state)
{
	static const char *const paths[] = { "/a/b/c/f.txt", "/a/g.txt", "/x/", "/top.txt",
					     "/A long folder name/inner/" };
	static const enum fat_type types[] = { FAT_12, FAT_16, FAT_32 };
	static const uint64_t sizes[] = { 2 << 20, 8 << 20, 40 << 20 };

	(void)state;
	for (int k = 0; k < 3; k++) {
		struct fat_geom g;
		struct fat_vol *v;
		struct trail t = { "", 0 };
		struct diag d;
		int fd = make_tree(types[k], sizes[k], paths, 5, &g);

		diag_init(&d);
		assert_int_equal(fat_vol_open(fd, 0, sizes[k], &v, &d), 0);
		assert_int_equal(fat_vol_walk(v, "/", 64, &trail_fns, &t, &d), 0);
		assert_string_equal(t.text,
				    "A long folder name/ a/ top.txt x/ "
				    "[/A long folder name] inner/ [/A long folder name/inner] "
				    "[/a] b/ g.txt [/a/b] c/ [/a/b/c] f.txt [/x]");
		t.text[0] = 0;
		assert_int_equal(fat_vol_walk(v, "/A/", 64, &trail_fns, &t, &d), 0);
		assert_string_equal(t.text, "b/ g.txt [/A/b] c/ [/A/b/c] f.txt");
		assert_int_equal(fat_vol_walk(v, "/top.txt", 64, &trail_fns, &t, &d), -ENOTDIR);
		assert_int_equal(fat_vol_walk(v, "/nothing", 64, &trail_fns, &t, &d), -ENOENT);
		fat_vol_close(v);
		diag_release(&d);
		close(fd);
	}
}

/* The byte offset of the entry whose first cluster is @c in the directory cluster @dir. */
static off_t entry_of(int fd, const struct fat_geom *g, uint32_t dir, uint32_t c)
{
	off_t at = (off_t)(g->data_offset + (uint64_t)(dir - 2) * g->cluster_size);
	uint8_t blk[512];

	assert_int_equal(pread(fd, blk, sizeof(blk), at), (ssize_t)sizeof(blk));
	for (unsigned i = 64; i < sizeof(blk); i += 32) /* after "." and ".." */
		if (get_le16(blk + i + 26) == c && blk[i + 11] != 0x0F)
			return at + (off_t)i;
	fail_msg("no entry of cluster %u in cluster %u", c, dir);
	return 0;
}

struct find_one {
	const char *name;
	uint32_t c;
};

static int pick(void *ctx, const struct fat_dirent *e)
{
	struct find_one *f = ctx;

	if (!strcmp(e->name, f->name))
		f->c = e->first_cluster;
	return 0;
}

/* The first cluster of @name in the folder @dir. */
static uint32_t first_cluster(struct fat_vol *v, const char *dir, const char *name)
{
	struct find_one f = { name, 0 };
	struct diag d;

	diag_init(&d);
	assert_int_equal(fat_vol_list(v, dir, pick, &f, &d), 0);
	diag_release(&d);
	assert_true(f.c >= 2);
	return f.c;
}

/* A folder whose entry names its parent's cluster (or the root's, or none): the walk ends in
 * one error naming the folder instead of going round to the depth bound. */
static void test_walk_loops(void **state)
{
	static const char *const paths[] = { "/a/b/c/", "/a/f.txt" };
	static const enum fat_type types[] = { FAT_16, FAT_32 };
	static const uint64_t sizes[] = { 8 << 20, 40 << 20 };

	(void)state;
	for (int k = 0; k < 2; k++) {
		struct fat_geom g;
		struct fat_vol *v;
		struct trail t = { "", 0 };
		struct diag d;
		uint8_t e[2];
		int fd = make_tree(types[k], sizes[k], paths, 2, &g);
		uint32_t a, b, root;

		diag_init(&d);
		assert_int_equal(fat_vol_open(fd, 0, sizes[k], &v, &d), 0);
		a = first_cluster(v, "/", "a");
		b = first_cluster(v, "/a", "b");
		root = 0;
		fat_vol_close(v);
		/* /a/b is /a */
		off_t at = entry_of(fd, &g, a, b);
		put_le16(e, (uint16_t)a);
		assert_int_equal(pwrite(fd, e, 2, at + 26), 2);
		assert_int_equal(fat_vol_open(fd, 0, sizes[k], &v, &d), 0);
		assert_int_equal(fat_vol_walk(v, "/", 64, &trail_fns, &t, &d), -EINVAL);
		assert_true(diag_has(&d, "/a/b: its cluster "));
		assert_true(diag_has(&d, "is also another folder's, or its own"));
		assert_string_equal(t.text, "a/ [/a] b/ f.txt [/a/b]");
		fat_vol_close(v);
		/* /a/b is the root: FAT32's root cluster, or no cluster on FAT16 */
		if (types[k] == FAT_32) {
			uint8_t bs[512];
			assert_int_equal(pread(fd, bs, 512, 0), 512);
			root = get_le32(bs + 44); /* BPB_RootClus */
		}
		put_le16(e, (uint16_t)root);
		assert_int_equal(pwrite(fd, e, 2, at + 26), 2);
		diag_release(&d);
		diag_init(&d);
		t.text[0] = 0;
		assert_int_equal(fat_vol_open(fd, 0, sizes[k], &v, &d), 0);
		assert_int_equal(fat_vol_walk(v, "/", 64, &trail_fns, &t, &d), -EINVAL);
		assert_true(diag_has(&d, types[k] == FAT_32
						 ? "/a/b: its cluster "
						 : "/a/b: a directory without a cluster"));
		fat_vol_close(v);
		diag_release(&d);
		close(fd);
	}
}

/* Folders nested deeper than the bound: one error naming the first one too deep. */
static void test_walk_depth(void **state)
{
	char path[4096] = "";
	const char *paths[1] = { path };
	struct fat_geom g;
	struct fat_vol *v;
	struct trail t = { "", 0 };
	struct diag d;
	int fd;

	(void)state;
	for (int i = 0; i < 66; i++)
		strcat(path, "/d");
	strcat(path, "/f");
	fd = make_tree(FAT_16, 8 << 20, paths, 1, &g);
	diag_init(&d);
	assert_int_equal(fat_vol_open(fd, 0, 0, &v, &d), 0);
	assert_int_equal(fat_vol_walk(v, "/", 66, &trail_fns, &t, &d), 0);
	assert_int_equal(t.entries, 67);
	t.entries = 0;
	assert_int_equal(fat_vol_walk(v, "/", 64, &trail_fns, &t, &d), -EINVAL);
	path[65 * 2] = 0; /* the 65th folder below the root */
	char want[4200];
	snprintf(want, sizeof(want), "%s: folders nested more than 64 deep", path);
	assert_true(diag_has(&d, want));
	assert_int_equal(t.entries, 65);
	fat_vol_close(v);
	diag_release(&d);
	close(fd);
}

struct dirents {
	struct fat_dirent list[4];
	int n;
};

static int keep(void *ctx, const struct fat_dirent *e)
{
	struct dirents *k = ctx;

	if (k->n < 4)
		k->list[k->n] = *e;
	k->n++;
	return 0;
}
/* The first stored entry of the long name in make_volume()'s root: 2 LFN entries, then the
 * short entry (FAT12 and FAT16: the fixed root before the data area). */
static size_t long_name_at(const uint8_t *root, size_t len)
{
	for (size_t i = 0; i + 3 * 32 <= len; i += 32)
		if (root[i] == (0x40 | 2) && root[i + 11] == 0x0F)
			return i;
	fail_msg("no long name in the root");
	return 0;
}

struct lfn_case {
	uint8_t ords[4]; /* stored LDIR_Ord of each LFN entry before the short entry, 0xFF: none
			  * (ordinal 0 is stored as 0x80: a first byte 0 ends the directory) */
	bool long_name;  /* the long name is read (else the short name, the LFN being broken) */
};

/* Long-name entries in sequences a hostile image may hold (fatgen103 "FAT Long Directory
 * Entries": ordinals 1..20 counting down to 1, the first stored one with 0x40): the reader
 * uses the name only for a whole sequence and never indexes outside its name buffer (an
 * ordinal 0 after a complete name once wrote 26 bytes before it). */
static void test_lfn_ordinals(void **state)
{
	static const struct lfn_case cases[] = {
		{ { 0x42, 0x01, 0xFF }, true },        /* as written */
		{ { 0x42, 0x01, 0x80, 0xFF }, false }, /* ordinal 0 after a complete name */
		{ { 0x42, 0x01, 0x01, 0xFF }, false }, /* ordinal 1 twice */
		{ { 0x41, 0x01, 0xFF }, false },       /* ordinal 1 after a whole one-entry name */
		{ { 0x40, 0x01, 0xFF }, false },       /* a last entry with ordinal 0 */
		{ { 0x42, 0x80, 0xFF }, false },       /* ordinal 0 where 1 is due */
		{ { 0x42, 0x02, 0x01, 0xFF }, false }, /* ordinal 2 twice */
		{ { 0x55, 0x01, 0xFF }, false },       /* ordinal 21: beyond 255 units */
		{ { 0x7F, 0x01, 0xFF }, false },       /* ordinal 63 */
		{ { 0x3F, 0x42, 0x01, 0xFF }, true },  /* a stray entry before a whole name */
	};
	const uint64_t size = 2 * 1024 * 1024;
	uint8_t root[512 * 32], crafted[512 * 32];
	struct fat_geom g;
	struct diag d;
	int fd = make_volume(FAT_12, size, 512, &g);
	struct fat_vol *v;
	uint64_t root_off;
	size_t len, at;

	(void)state;
	diag_init(&d);
	assert_int_equal(fat_vol_open(fd, 0, size, &v, &d), 0);
	len = (size_t)fat_vol_info(v)->root_entries * 32;
	root_off = fat_vol_info(v)->data_offset - len;
	fat_vol_close(v);
	assert_true(len <= sizeof(root));
	assert_int_equal(pread(fd, root, len, (off_t)root_off), (ssize_t)len);
	at = long_name_at(root, len);
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct dirents got = { .n = 0 };
		size_t o = at, n = 0;

		memset(crafted, 0, sizeof(crafted));
		memcpy(crafted, root, at);
		/* each LFN entry: a copy of the written one with the same low ordinal bits (the
		 * checksum stays that of the short entry), under the case's ordinal */
		for (; n < 4 && cases[k].ords[n] != 0xFF; n++, o += 32) {
			memcpy(crafted + o, root + at + ((cases[k].ords[n] & 0x3F) == 2 ? 0 : 32),
			       32);
			crafted[o] = cases[k].ords[n];
		}
		memcpy(crafted + o, root + at + 64, len - at - 64 - 32 * (n > 2 ? n - 2 : 0));
		assert_int_equal(pwrite(fd, crafted, len, (off_t)root_off), (ssize_t)len);
		assert_int_equal(fat_vol_open(fd, 0, size, &v, &d), 0);
		assert_int_equal(fat_vol_list(v, "/", keep, &got, &d), 0);
		fat_vol_close(v);
		assert_int_equal(got.n, 3);
		if (cases[k].long_name)
			assert_string_equal(got.list[0].name, "A long name \xf0\x9f\x98\x80.txt");
		else
			assert_string_equal(got.list[0].name, "ALONGN~1.TXT");
		assert_string_equal(got.list[0].short_name, "ALONGN~1.TXT");
	}
	assert_int_equal(d.errors, 0);
	diag_release(&d);
	close(fd);
}

/* Random damage to the boot sector, FATs and directories: errors, never crashes or hangs
 * (run under ASan/UBSan by `make unit-san`). Seeded, so every run is the same. */
static void test_random_damage(void **state)
{
	static const enum fat_type types[] = { FAT_12, FAT_16, FAT_32 };
	static const uint64_t sizes[] = { 2 << 20, 8 << 20, 40 << 20 };
	uint8_t pristine[16384], buf[16384];
	unsigned seed = 12345, opened = 0;

	(void)state;
	for (int k = 0; k < 3; k++) {
		struct fat_geom g;
		int fd = make_volume(types[k], sizes[k], 512, &g);
		assert_int_equal(pread(fd, pristine, sizeof(pristine), 0),
				 (ssize_t)sizeof(pristine));
		for (int round = 0; round < 400; round++) {
			struct fat_vol *v;
			struct diag d;
			memcpy(buf, pristine, sizeof(buf));
			for (int flips = 1 + rand_r(&seed) % 8; flips; flips--) {
				size_t at = rand_r(&seed) % (round % 2 ? 512 : sizeof(buf));
				buf[at] = (uint8_t)rand_r(&seed);
			}
			assert_int_equal(pwrite(fd, buf, sizeof(buf), 0), (ssize_t)sizeof(buf));
			diag_init(&d);
			if (!fat_vol_open(fd, 0, sizes[k], &v, &d)) {
				opened++;
				walk_all(v, "", 0, &d);
				fat_vol_walk(v, "/", 64, &trail_fns, &(struct trail){ "", 0 }, &d);
				fat_vol_close(v);
			} else {
				assert_true(d.errors > 0);
			}
			diag_release(&d);
		}
		close(fd);
	}
	assert_true(opened > 100); /* the damage reached directories and FATs, not just the BPB */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_back),
		cmocka_unit_test(test_corrupt_fat16_boot),
		cmocka_unit_test(test_corrupt_fat32_boot),
		cmocka_unit_test(test_bad_chains),
		cmocka_unit_test(test_dir_loop),
		cmocka_unit_test(test_walk_order),
		cmocka_unit_test(test_walk_loops),
		cmocka_unit_test(test_walk_depth),
		cmocka_unit_test(test_lfn_ordinals),
		cmocka_unit_test(test_random_damage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
