/* SPDX-License-Identifier: MIT */
/*
 * Unit tests: exFAT trees, names and the bytes exfat_write_or_stop() puts on disk, checked
 * field by field against the exFAT specification (§3 boot regions, §4 FAT, §7.1 bitmap,
 * §7.4 File, §7.6 Stream Extension, §7.7 File Name), and the per-card helpers.
 */
#include <errno.h>
#include <fcntl.h>
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
#include "exfat/exfat.h"
#include "exfat/write_priv.h"

#define OFF (1024 * 1024) /* the volume sits 1 MiB into the file */
#define T0 1700000000     /* 2023-11-14 22:13:20 UTC */
#define SIZE (8u << 20)

static int fill(void *ctx, uint64_t off, void *buf, size_t len)
{
	(void)ctx;
	for (size_t i = 0; i < len; i++)
		((uint8_t *)buf)[i] = (uint8_t)((off + i) % 251 + 1);
	return 0;
}

static void expect_error(struct exfat_tree *t, const char *needle)
{
	struct exfat_geom g;
	struct diag d;

	diag_init(&d);
	assert_int_equal(exfat_params_for_tree(t, NULL, SIZE, 0, &g, &d), -EINVAL);
	if (!diag_has(&d, needle)) {
		diag_print(&d, stderr, "test");
		fail_msg("no error containing \"%s\"", needle);
	}
	diag_release(&d);
	exfat_tree_free(t);
}

static struct exfat_tree *tree_with(const char *path)
{
	struct exfat_tree *t = exfat_tree_new(T0);
	struct diag d;

	diag_init(&d);
	assert_int_equal(exfat_tree_add_file(t, path, 0, NULL, NULL, &d), 0);
	diag_release(&d);
	return t;
}

static void test_names(void **state)
{
	char name[300] = "/";
	struct exfat_tree *t;
	struct exfat_geom g;
	struct diag d;

	(void)state;
	memset(name + 1, 'L', 255);
	t = tree_with(name); /* 255 units: fine */
	diag_init(&d);
	assert_int_equal(exfat_params_for_tree(t, NULL, SIZE, 0, &g, &d), 0);
	diag_release(&d);
	exfat_tree_free(t);
	name[256] = 'L';
	expect_error(tree_with(name), "the name is longer than the 255 UTF-16 units");
	/* 128 characters of another plane: 256 units */
	char *wide = calloc(1, 1 + 128 * 4 + 1);
	wide[0] = '/';
	for (int i = 0; i < 128; i++)
		memcpy(wide + 1 + 4 * i, "\xF0\x9F\x98\x80", 4);
	expect_error(tree_with(wide), "longer than the 255 UTF-16 units");
	wide[1 + 127 * 4] = 0; /* 127 of them: 254 units */
	t = tree_with(wide);
	diag_init(&d);
	assert_int_equal(exfat_params_for_tree(t, NULL, SIZE, 0, &g, &d), 0);
	diag_release(&d);
	exfat_tree_free(t);
	free(wide);
	expect_error(tree_with("/a\"b"), "/a\"b: the name holds a character");
	expect_error(tree_with("/a\tb"), "the name holds a character");
	expect_error(tree_with("/a|b"), "the name holds a character");
	/* what the name holds is shown, not sent to the terminal */
	expect_error(tree_with("/bad\xC3("), "/bad\\xc3(: the name is not valid UTF-8");
	expect_error(tree_with("/a\001b"), "/a\\x01b: the name holds a character");
	/* a trailing dot is dropped by the drivers' lookups; a trailing space is kept */
	expect_error(tree_with("/sub/trail."), "/sub/trail.: the name ends with a dot");
	expect_error(tree_with("/..."), "the name ends with a dot");
	t = tree_with("/trail ");
	diag_init(&d);
	assert_int_equal(exfat_params_for_tree(t, NULL, SIZE, 0, &g, &d), 0);
	diag_release(&d);
	exfat_tree_free(t);
	t = tree_with("/dir/Ärger");
	diag_init(&d);
	assert_int_equal(exfat_tree_add_file(t, "/dir/äRGER", 0, NULL, NULL, &d), 0);
	diag_release(&d);
	expect_error(t, "/dir/Ärger and /dir/äRGER: exFAT sees these names as equal");
	t = tree_with("/Straße");
	diag_init(&d);
	assert_int_equal(exfat_tree_add_file(t, "/STRASSE", 0, NULL, NULL, &d), 0);
	assert_int_equal(exfat_params_for_tree(t, NULL, SIZE, 0, &g, &d), 0); /* ß stays */
	diag_release(&d);
	exfat_tree_free(t);
}

static void test_path_key(void **state)
{
	char *k = exfat_path_key("/dïr/ñame😀.txt");

	(void)state;
	assert_string_equal(k, "/DÏR/ÑAME😀.TXT");
	free(k);
	k = exfat_path_key("/ɐ"); /* U+0250 has no upper case in the table: itself */
	assert_string_equal(k, "/ɐ");
	free(k);
	k = exfat_path_key("/ⱥ"); /* U+2C65 (3 bytes) keeps its length */
	assert_string_equal(k, "/ⱥ");
	free(k);
	k = exfat_path_key("/ƀ"); /* U+0180 -> U+0243 */
	assert_string_equal(k, "/Ƀ");
	free(k);
	k = exfat_path_key("/a\xff~z{"); /* a byte that is not UTF-8 stays; only a-z change */
	assert_string_equal(k, "/A\xff~Z{");
	free(k);
}

/* exfat_min_size() is the smallest: exfat_params_for_tree() takes it and refuses 512 less. */
static void test_min_size(void **state)
{
	struct fat_source src = { .fd = -1, .read = fill };
	static const struct exfat_opts opts[] = {
		{ 0 },
		{ .heap_align = 4u << 20 },
		{ .cluster_size = 512 },
		{ .cluster_size = 65536,
		  .label = "L",
		  .guid = (const uint8_t *)"0123456789abcdef" },
	};
	struct exfat_geom g;
	struct diag d;

	(void)state;
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		for (unsigned files = 0; files < 300; files += 150) {
			struct exfat_tree *t = exfat_tree_new(T0);
			uint64_t min;
			char path[64];
			diag_init(&d);
			for (unsigned f = 0; f < files; f++) {
				snprintf(path, sizeof(path), "/d%u/f%u", f % 7, f);
				assert_int_equal(exfat_tree_add_file(t, path, f * 100, &src, NULL,
								     &d),
						 0);
			}
			assert_int_equal(exfat_min_size(t, &opts[i], 512, &min, &d), 0);
			assert_int_equal(exfat_params_for_tree(t, &opts[i], min, 512, &g, &d), 0);
			assert_int_equal(d.errors, 0);
			assert_int_equal(exfat_params_for_tree(t, &opts[i], min - 512, 512, &g, &d),
					 min - 512 >= (1u << 20) ? -ENOSPC : -EINVAL);
			diag_release(&d);
			exfat_tree_free(t);
		}
	/* the error gives both numbers and the smallest size */
	struct exfat_tree *t = exfat_tree_new(T0);
	diag_init(&d);
	assert_int_equal(exfat_tree_add_file(t, "/big", 2u << 20, &src, NULL, &d), 0);
	assert_int_equal(exfat_params_for_tree(t, NULL, 2u << 20, 0, &g, &d), -ENOSPC);
	/* 516: bitmap 1, up-case table 2, root 1, the file 512; the smallest: 24 sectors, a FAT
	 * of ceil(518 * 4 / 512) = 5, then 516 clusters of 8: 4,157 sectors */
	assert_true(diag_has(&d, "the files and folders need 516 clusters of 4K but the volume "
				 "has 508; the smallest volume that holds them is 2128384"));
	diag_release(&d);
	exfat_tree_free(t);
}

/* The clusters @t takes on a volume of @g besides its allocation bitmap and up-case table:
 * what `inspect` gives exfat_reached_heap_align(). */
static uint64_t files_clusters(struct exfat_tree *t, const struct exfat_geom *g)
{
	uint64_t cs = g->cluster_size;

	return exfat_tree_alloc(t, g) - (exfat_bitmap_bytes(g->clusters) + cs - 1) / cs -
	       (EXFAT_UPCASE_BYTES + cs - 1) / cs;
}

/*
 * At the edge where the full alignment leaves exactly one bitmap cluster's worth of clusters
 * (144 MiB at 16 MiB, clusters of 4K: 32,768 in the heap, a bitmap of one cluster; a lower
 * alignment gives more, and a bitmap of two), exfat_reached_heap_align() sizes the bitmap
 * for each alignment it tries, as the builder does: it reaches what the builder took, on
 * either side of the edge.
 */
static void test_reached_at_bitmap_edge(void **state)
{
	struct fat_source src = { .fd = -1, .read = fill };
	struct exfat_opts o = { .heap_align = 16u << 20, .heap_align_lower = true };
	struct exfat_opts bare = { .cluster_size = 4096,
				   .heap_align = 16u << 20,
				   .heap_align_lower = true };
	static const uint64_t sizes[] = { 134201344, 134201345 };
	static const uint64_t took[] = { 16u << 20, 8u << 20 };

	(void)state;
	for (size_t k = 0; k < 2; k++) {
		struct exfat_tree *t = exfat_tree_new(T0);
		struct exfat_geom g;
		struct diag d;
		diag_init(&d);
		assert_int_equal(exfat_tree_add_file(t, "/f", sizes[k], &src, NULL, &d), 0);
		assert_int_equal(exfat_params_for_tree(t, &o, 144u << 20, 16u << 20, &g, &d), 0);
		assert_int_equal(d.n, k); /* a note where it is lowered */
		assert_int_equal(g.cluster_size, 4096);
		assert_int_equal((16ull << 20) + (uint64_t)g.heap_offset * 512,
				 (16ull << 20) + took[k]);
		assert_int_equal(exfat_reached_heap_align(&bare, 144u << 20, 16u << 20,
							  files_clusters(t, &g)),
				 took[k]);
		diag_release(&d);
		exfat_tree_free(t);
	}
}

/* With heap_align_lower, a default alignment that leaves too little room is lowered. */
static void test_align_lowered(void **state)
{
	struct fat_source src = { .fd = -1, .read = fill };
	struct exfat_opts o = { .heap_align = 4u << 20, .heap_align_lower = true };
	struct exfat_tree *t = exfat_tree_new(T0);
	struct exfat_geom g;
	struct diag d;

	(void)state;
	diag_init(&d);
	assert_int_equal(exfat_tree_add_file(t, "/f", 3u << 20, &src, NULL, &d), 0);
	assert_int_equal(exfat_params_for_tree(t, &o, 4u << 20, 0, &g, &d), 0);
	assert_int_equal(d.n, 1); /* a note */
	assert_non_null(strstr(d.msgs[0].text, "its cluster heap starts on a multiple of 512K"));
	assert_int_equal(((uint64_t)g.heap_offset * 512) % g.cluster_size, 0);
	/* what inspect judges it by: the same rule, given the clusters the tree uses */
	struct exfat_opts bare = { .cluster_size = g.cluster_size,
				   .heap_align = 4u << 20,
				   .heap_align_lower = true };
	assert_int_equal(exfat_reached_heap_align(&bare, 4u << 20, 0, files_clusters(t, &g)),
			 512u << 10);
	assert_true(exfat_reached_heap_align(&bare, 4u << 20, 0, 0) > (512u << 10));
	o.heap_align_lower = false;
	assert_int_equal(exfat_params_for_tree(t, &o, 4u << 20, 0, &g, &d), -EINVAL);
	diag_release(&d);
	exfat_tree_free(t);
}

struct vol {
	int fd;
	struct exfat_geom g;
	uint8_t *img; /* the whole file */
	size_t len;
	struct exfat_tree *t;
};

static void build(struct vol *v)
{
	struct exfat_opts o = { .cluster_size = 4096, .label = "Vol", .volume_id = 0x12345678 };
	struct fat_source src = { .fd = -1, .read = fill };
	struct fat_meta m = { .mtime = T0, .mtime_ns = 510000000, .attrs = FAT_ATTR_ARCHIVE };
	struct fat_meta card = { .mtime = T0, .reserve = 3 * 4096 };
	struct diag d;

	v->t = exfat_tree_new(T0);
	diag_init(&d);
	v->fd = open("w.img", O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(v->fd >= 0);
	assert_int_equal(ftruncate(v->fd, OFF + (off_t)SIZE), 0);
	assert_int_equal(exfat_tree_add_file(v->t, "/b.bin", 5000, &src, &m, &d), 0);
	assert_int_equal(exfat_tree_add_file(v->t, "/a.bin", 0, NULL, &m, &d), 0);
	assert_int_equal(exfat_tree_add_file(v->t, "/card", 100, &src, &card, &d), 0);
	assert_int_equal(exfat_tree_add_dir(v->t, "/D/E", &m, &d), 0);
	assert_int_equal(exfat_params_for_tree(v->t, &o, SIZE, OFF, &v->g, &d), 0);
	assert_int_equal(exfat_write_or_stop(v->t, &v->g, v->fd, OFF, "w.img", NULL, NULL, &d), 0);
	diag_release(&d);
	v->len = OFF + SIZE;
	v->img = malloc(v->len);
	assert_non_null(v->img);
	assert_int_equal(pread(v->fd, v->img, v->len, 0), (ssize_t)v->len);
}

static void release(struct vol *v)
{
	close(v->fd);
	free(v->img);
	exfat_tree_free(v->t);
}

static const uint8_t *cluster(const struct vol *v, uint32_t c)
{
	return v->img + OFF + (uint64_t)v->g.heap_offset * 512 + (uint64_t)(c - 2) * 4096;
}

static void test_boot_region(void **state)
{
	struct vol v;

	(void)state;
	build(&v);
	const uint8_t *s = v.img + OFF;
	assert_memory_equal(s,
			    "\xEB\x76\x90"
			    "EXFAT   ",
			    11);
	for (int i = 11; i < 64; i++)
		assert_int_equal(s[i], 0);
	assert_int_equal(get_le64(s + 64), OFF / 512);
	assert_int_equal(get_le64(s + 72), SIZE / 512);
	assert_int_equal(get_le32(s + 80), 24);
	assert_int_equal(get_le32(s + 84), v.g.fat_length);
	assert_int_equal(get_le32(s + 88), v.g.heap_offset);
	assert_int_equal(get_le32(s + 92), v.g.clusters);
	assert_int_equal(get_le32(s + 96), 5); /* bitmap 2, up-case table 3 and 4, root 5 */
	assert_int_equal(get_le32(s + 100), 0x12345678);
	assert_int_equal(get_le16(s + 104), 0x0100);
	assert_int_equal(get_le16(s + 106), 0); /* clean */
	assert_int_equal(s[108], 9);
	assert_int_equal(s[109], 3);
	assert_int_equal(s[110], 1);
	assert_int_equal(s[111], 0x80);
	/* bitmap 1 + up-case 2 + root 1 + b.bin 2 + card 1 used of 3 + D 1 + E 1 = 9 */
	assert_int_equal(s[112], 9 * 100 / v.g.clusters);
	assert_int_equal(get_le16(s + 510), 0xAA55);
	for (int k = 1; k <= 8; k++)
		assert_int_equal(get_le32(s + k * 512 + 508), 0xAA550000u);
	uint32_t sum = exfat_boot_checksum(s);
	for (int i = 0; i < 128; i++)
		assert_int_equal(get_le32(s + 11 * 512 + 4 * i), sum);
	assert_memory_equal(s, s + 12 * 512, 12 * 512); /* the backup */
	/* FAT: media, end of chain, the bitmap, the 2 clusters of the up-case table, the root;
	 * nothing for the files and folders (NoFatChain) */
	const uint8_t *fat = s + 24 * 512;
	assert_int_equal(get_le32(fat), 0xFFFFFFF8u);
	assert_int_equal(get_le32(fat + 4), 0xFFFFFFFFu);
	assert_int_equal(get_le32(fat + 8), 0xFFFFFFFFu);
	assert_int_equal(get_le32(fat + 12), 4);
	assert_int_equal(get_le32(fat + 16), 0xFFFFFFFFu);
	assert_int_equal(get_le32(fat + 20), 0xFFFFFFFFu);
	for (int c = 6; c < 16; c++)
		assert_int_equal(get_le32(fat + 4 * c), 0);
	/* the heap on a 4K multiple from the disk start (cluster-sized: the default) */
	release(&v);
}

/* Root: label, bitmap, up-case table, then the files sorted by their UTF-8 bytes: D, a.bin,
 * b.bin, card. Clusters: bitmap 2, up-case table 3 and 4, root 5, D 6, b.bin 7 and 8, card 9
 * (10 and 11 reserved), then E (in D) 12. */
static void test_entries(void **state)
{
	struct vol v;
	uint8_t table[EXFAT_UPCASE_BYTES];

	(void)state;
	build(&v);
	const uint8_t *e = cluster(&v, 5);
	assert_int_equal(e[0], 0x83);
	assert_int_equal(e[1], 3);
	assert_memory_equal(e + 2, "V\0o\0l\0", 6);
	e += 32;
	assert_int_equal(e[0], 0x81);
	assert_int_equal(e[1], 0);
	assert_int_equal(get_le32(e + 20), 2);
	assert_int_equal(get_le64(e + 24), (v.g.clusters + 7) / 8);
	e += 32;
	exfat_upcase_table(table);
	assert_int_equal(e[0], 0x82);
	assert_int_equal(get_le32(e + 4), 0xE619D30Du);
	assert_int_equal(get_le32(e + 20), 3);
	assert_int_equal(get_le64(e + 24), 5836);
	assert_memory_equal(cluster(&v, 3), table, sizeof(table));
	e += 32;
	/* D: a folder of one cluster (6), DataLength in whole clusters */
	assert_int_equal(e[0], 0x85);
	assert_int_equal(get_le16(e + 4), 0x10);
	assert_int_equal(e[32 + 1], 0x03);
	assert_int_equal(get_le32(e + 32 + 20), 6);
	assert_int_equal(get_le64(e + 32 + 8), 4096);
	assert_int_equal(get_le64(e + 32 + 24), 4096);
	e += 96;
	/* a.bin: empty: no cluster, AllocationPossible only */
	assert_int_equal(e[0], 0x85);
	assert_int_equal(e[1], 2);
	assert_int_equal(get_le16(e + 2), exfat_set_checksum(e, 3));
	assert_int_equal(get_le16(e + 4), 0x20);
	/* 2023-11-14 22:13:20.51 UTC: date (43 << 9 | 11 << 5 | 14), time (22 << 11 | 13 << 5 |
	 * 10), 51 10-ms units past the even second, offset valid and 0 */
	assert_int_equal(get_le32(e + 8),
			 (uint32_t)(43 << 9 | 11 << 5 | 14) << 16 | (22 << 11 | 13 << 5 | 10));
	assert_int_equal(get_le32(e + 12), get_le32(e + 8));
	assert_int_equal(get_le32(e + 16), get_le32(e + 8));
	assert_int_equal(e[20], 51);
	assert_int_equal(e[21], 51);
	assert_int_equal(e[22], 0x80);
	assert_int_equal(e[23], 0x80);
	assert_int_equal(e[24], 0x80);
	assert_int_equal(e[32], 0xC0);
	assert_int_equal(e[33], 0x01);
	assert_int_equal(e[35], 5);
	const uint16_t up[] = { 'A', '.', 'B', 'I', 'N' };
	assert_int_equal(get_le16(e + 36), exfat_name_hash(up, 5));
	assert_int_equal(get_le32(e + 52), 0);
	assert_int_equal(get_le64(e + 56), 0);
	assert_int_equal(e[64], 0xC1);
	assert_memory_equal(e + 66, "a\0.\0b\0i\0n\0\0\0", 12);
	e += 96;
	/* b.bin: 5000 bytes in clusters 7 and 8, contiguous: NoFatChain */
	assert_int_equal(e[32 + 1], 0x03);
	assert_int_equal(get_le64(e + 32 + 8), 5000);
	assert_int_equal(get_le32(e + 32 + 20), 7);
	assert_int_equal(get_le64(e + 32 + 24), 5000);
	for (int i = 0; i < 5000; i++)
		assert_int_equal(cluster(&v, 7)[i], (uint8_t)(i % 251 + 1));
	e += 96;
	/* card: 100 bytes in cluster 9, with 10 and 11 reserved */
	assert_int_equal(get_le32(e + 32 + 20), 9);
	assert_int_equal(get_le64(e + 32 + 24), 100);
	e += 96;
	assert_int_equal(e[0], 0); /* the end of the directory */
	/* D holds E (cluster 12) */
	assert_int_equal(cluster(&v, 6)[0], 0x85);
	assert_int_equal(get_le32(cluster(&v, 6) + 32 + 20), 12);
	/* bitmap: clusters 2..9 and 12 (the card's 10 and 11 free) */
	assert_int_equal(cluster(&v, 2)[0], 0xFF);
	assert_int_equal(cluster(&v, 2)[1], 0x04);
	assert_int_equal(cluster(&v, 2)[2], 0);
	assert_int_equal(exfat_tree_used_bytes(v.t), (uint64_t)v.g.heap_offset * 512 + 11 * 4096);
	release(&v);
}

/* A per-card file's new length: what exfat_card_*() set equals what a write of that length
 * gives. */
static void test_card(void **state)
{
	struct vol v;
	struct exfat_place p;

	(void)state;
	build(&v);
	assert_int_equal(exfat_tree_file_place(v.t, "/card", &p), 0);
	assert_int_equal(p.data, (uint64_t)v.g.heap_offset * 512 + 7 * 4096);
	assert_int_equal(p.room, 3 * 4096);
	assert_int_equal(p.count, 3);
	assert_int_equal(p.entries, (uint64_t)v.g.heap_offset * 512 + 3 * 4096 + (3 + 9) * 32);
	assert_int_equal(exfat_tree_file_place(v.t, "/nope", &p), -ENOENT);
	assert_int_equal(exfat_tree_file_place(v.t, "/D", &p), -ENOENT);

	struct exfat_card_file f = { .cluster_size = 4096,
				     .first_cluster = 9,
				     .clusters = 3,
				     .count = 3 };
	uint8_t set[96], bm[8];
	assert_int_equal(exfat_tree_file_place(v.t, "/card", &p), 0);
	memcpy(set, v.img + OFF + p.entries, sizeof(set));
	exfat_card_entries(&f, 100, set); /* the written length: the same bytes */
	assert_memory_equal(set, v.img + OFF + p.entries, sizeof(set));
	exfat_card_entries(&f, 9000, set);
	assert_int_equal(get_le64(set + 32 + 8), 9000);
	assert_int_equal(get_le64(set + 32 + 24), 9000);
	assert_int_equal(get_le16(set + 2), exfat_set_checksum(set, 3));
	exfat_card_entries(&f, 0, set);
	assert_int_equal(get_le32(set + 32 + 20), 0);
	assert_int_equal(set[33], 0x01);

	assert_int_equal(exfat_card_bitmap_start(&f), 0); /* bits 7..9 */
	assert_int_equal(exfat_card_bitmap_len(&f), 2);
	memcpy(bm, cluster(&v, 2), 2);
	exfat_card_bitmap(&f, 100, bm);
	assert_memory_equal(bm, cluster(&v, 2), 2);
	exfat_card_bitmap(&f, 9000, bm);
	assert_int_equal(bm[0], 0xFF);
	assert_int_equal(bm[1], 0x07);
	exfat_card_bitmap(&f, 0, bm);
	assert_int_equal(bm[0], 0x7F);
	assert_int_equal(bm[1], 0x04);
	release(&v);
}

static bool stop_now(void *ctx)
{
	(void)ctx;
	return true;
}

static void test_stop(void **state)
{
	struct fat_source src = { .fd = -1, .read = fill };
	struct exfat_tree *t = exfat_tree_new(T0);
	struct exfat_geom g;
	struct diag d;
	int fd = open("s.img", O_RDWR | O_CREAT | O_TRUNC, 0644);

	(void)state;
	diag_init(&d);
	assert_int_equal(ftruncate(fd, SIZE), 0);
	assert_int_equal(exfat_tree_add_file(t, "/f", 10, &src, NULL, &d), 0);
	assert_int_equal(exfat_params_for_tree(t, NULL, SIZE, 0, &g, &d), 0);
	assert_int_equal(exfat_write_or_stop(t, &g, fd, 0, NULL, stop_now, NULL, &d), -EINTR);
	assert_int_equal(d.errors, 0);
	g.clusters = 0;
	assert_int_equal(exfat_write_or_stop(t, &g, fd, 0, NULL, NULL, NULL, &d), -EINVAL);
	assert_true(diag_has(&d, "inconsistent"));
	diag_release(&d);
	close(fd);
	exfat_tree_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_path_key),
		cmocka_unit_test(test_min_size),
		cmocka_unit_test(test_align_lowered),
		cmocka_unit_test(test_reached_at_bitmap_edge),
		cmocka_unit_test(test_boot_region),
		cmocka_unit_test(test_entries),
		cmocka_unit_test(test_card),
		cmocka_unit_test(test_stop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
