/* SPDX-License-Identifier: MIT */
/*
 * Unit tests: the FAT reader on long names at their limits and on damaged directories and
 * cluster chains, as a hostile or worn card may hold them (fatgen103, "FAT Long Directory
 * Entries" and "FAT Data Structure"): every case gives the defined fallback (the short name
 * for a long name that does not check out) or one clear error naming the file, never a
 * crash or a hang (run under ASan/UBSan by `make unit-san`).
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
#include "fat/fat.h"

#define VOL "vol.img"
#define VOL_SIZE (8u << 20)
#define ENTRY 32

/* The byte at @off of every file: a pattern that tells offsets apart. */
static uint8_t pattern(uint64_t off)
{
	return (uint8_t)(off * 13 + 5);
}

static int fill(void *ctx, uint64_t off, void *buf, size_t len)
{
	(void)ctx;
	for (size_t i = 0; i < len; i++)
		((uint8_t *)buf)[i] = pattern(off + i);
	return 0;
}

struct file {
	const char *path;
	uint64_t size;
};

/* A FAT16 volume of 512-byte clusters holding @files, written to VOL; its fd (read-write). */
static int make_volume(const struct file *files, size_t n, struct fat_geom *g)
{
	struct fat_opts o = { .type = FAT_16,
			      .cluster_size = 512,
			      .label = "DAMAGE",
			      .volume_id = 0x12345678 };
	struct fat_source src = { .fd = -1, .read = fill };
	struct fat_tree *t = fat_tree_new(1700000000);
	struct fat_meta m = { .mtime = 1700000000 };
	struct diag d;
	int fd = open(VOL, O_RDWR | O_CREAT | O_TRUNC, 0644);

	diag_init(&d);
	assert_true(fd >= 0);
	assert_non_null(t);
	assert_int_equal(ftruncate(fd, VOL_SIZE), 0);
	assert_int_equal(fat_params(&o, VOL_SIZE, 0, g, &d), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(fat_tree_add_file(t, files[i].path, files[i].size, &src, &m, &d),
				 0);
	assert_int_equal(fat_write(t, g, fd, 0, &d), 0);
	fat_tree_free(t);
	diag_release(&d);
	return fd;
}

/* ---- the root directory's raw entries ---- */

struct root {
	uint8_t bytes[512 * ENTRY];
	size_t len;
	uint64_t off;
};

static void root_read(int fd, const struct fat_geom *g, struct root *r)
{
	r->len = (size_t)g->root_entries * ENTRY;
	r->off = g->data_offset - r->len;
	assert_true(r->len <= sizeof(r->bytes));
	assert_int_equal(pread(fd, r->bytes, r->len, (off_t)r->off), (ssize_t)r->len);
}

static void root_write(int fd, const struct root *r)
{
	assert_int_equal(pwrite(fd, r->bytes, r->len, (off_t)r->off), (ssize_t)r->len);
}

static bool is_lfn(const uint8_t *e)
{
	return (e[11] & 0x3F) == 0x0F;
}

/* The index of the short entry "NAME    EXT" (11 bytes, as stored) in @r. */
static size_t short_entry(const struct root *r, const char *name11)
{
	for (size_t i = 0; i < r->len / ENTRY; i++)
		if (!is_lfn(r->bytes + i * ENTRY) && !memcmp(r->bytes + i * ENTRY, name11, 11))
			return i;
	fail_msg("no short entry %s", name11);
	return 0;
}

/* How many long-name entries precede the short entry at @i. */
static size_t lfn_count(const struct root *r, size_t i)
{
	size_t n = 0;
	while (n < i && is_lfn(r->bytes + (i - n - 1) * ENTRY))
		n++;
	return n;
}

/* ---- listing ---- */

struct listing {
	char names[16][1024];
	char short_names[16][13];
	size_t n;
};

static int collect(void *ctx, const struct fat_dirent *e)
{
	struct listing *l = ctx;
	assert_true(l->n < 16);
	snprintf(l->names[l->n], sizeof(l->names[0]), "%s", e->name);
	snprintf(l->short_names[l->n], sizeof(l->short_names[0]), "%s", e->short_name);
	l->n++;
	return 0;
}

/* The root of VOL as the reader lists it (no error). */
static struct listing list_root(int fd)
{
	struct listing l = { .n = 0 };
	struct fat_vol *v;
	struct diag d;

	diag_init(&d);
	assert_int_equal(fat_vol_open(fd, 0, VOL_SIZE, &v, &d), 0);
	assert_int_equal(fat_vol_list(v, "/", collect, &l, &d), 0);
	assert_int_equal(d.n, 0);
	fat_vol_close(v);
	diag_release(&d);
	return l;
}

/* ---- long names at their limits ---- */

static int count_len(void *ctx, const void *buf, size_t len)
{
	(void)buf;
	*(uint64_t *)ctx += len;
	return 0;
}

/* A name of @len characters that needs a long name (lower case), its characters told apart
 * by their place. */
static void name_of(char *out, size_t len)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	for (size_t i = 0; i < len; i++)
		out[i] = chars[i % 36];
	out[len] = 0;
}

/* Names of 12, 13, 14, 26, 27 and 255 characters around the 13 a long-name entry holds:
 * ceil(n / 13) entries, the last one's name ended by 0x0000 and padded with 0xFFFF unless
 * the name fills it; each read back whole, and found by that name; 256 refused. */
static void test_lfn_lengths(void **state)
{
	static const size_t lens[] = { 12, 13, 14, 26, 27, 255 };
	enum { N = sizeof(lens) / sizeof(lens[0]) };
	/* where fatgen103 puts the 13 UTF-16 units of an entry */
	static const uint8_t unit_at[13] = { 1, 3, 5, 7, 9, 14, 16, 18, 20, 22, 24, 28, 30 };
	char names[N][260], path[270];
	struct file files[N];
	struct fat_geom g;
	struct root r;

	(void)state;
	for (size_t i = 0; i < N; i++) {
		name_of(names[i], lens[i]);
		path[0] = '/';
		memcpy(path + 1, names[i], lens[i] + 1);
		files[i].path = strdup(path);
		files[i].size = 3;
	}
	int fd = make_volume(files, N, &g);
	root_read(fd, &g, &r);

	struct listing l = list_root(fd);
	assert_int_equal(l.n, N);
	for (size_t i = 0; i < N; i++) {
		assert_string_equal(l.names[i], names[i]);
		/* the entries on disk: the short entry, and before it its long name's */
		char name11[12];
		snprintf(name11, sizeof(name11), "%-8.8s   ", l.short_names[i]);
		size_t at = short_entry(&r, name11);
		size_t n = lfn_count(&r, at), want = (lens[i] + 12) / 13;
		assert_int_equal(n, want);
		const uint8_t *last = r.bytes + (at - n) * ENTRY; /* the first stored, 0x40 | n */
		assert_int_equal(last[0], 0x40 | n);
		size_t used = lens[i] - (n - 1) * 13;
		for (size_t k = 0; k < 13; k++) {
			uint16_t u = get_le16(last + unit_at[k]);
			if (k < used)
				assert_int_equal(u, (uint8_t)names[i][(n - 1) * 13 + k]);
			else
				assert_int_equal(u, k == used ? 0x0000 : 0xFFFF);
		}
	}

	/* the longest found by its long name, in another case */
	struct fat_vol *v;
	struct diag d;
	uint64_t got = 0;
	diag_init(&d);
	assert_int_equal(fat_vol_open(fd, 0, VOL_SIZE, &v, &d), 0);
	path[0] = '/';
	memcpy(path + 1, names[N - 1], lens[N - 1] + 1);
	path[1] = 'A';
	assert_int_equal(fat_vol_read(v, path, count_len, &got, &d), 0);
	assert_int_equal(got, 3);
	fat_vol_close(v);

	/* 256 characters: refused by the writer, naming it */
	struct fat_tree *t = fat_tree_new(1700000000);
	char longer[300];
	longer[0] = '/';
	name_of(longer + 1, 256);
	struct fat_source src = { .fd = -1, .read = fill };
	int rc = fat_tree_add_file(t, longer, 1, &src, NULL, &d);
	if (rc == 0) { /* names are checked when the tree is laid out */
		struct fat_geom g2;
		struct fat_opts o = { .type = FAT_16 };
		rc = fat_params_for_tree(t, &o, VOL_SIZE, 0, &g2, &d);
	}
	assert_true(rc < 0);
	if (!diag_has(&d, "longer than 255"))
		diag_print(&d, stderr, "  256");
	assert_true(diag_has(&d, "longer than 255"));
	fat_tree_free(t);
	diag_release(&d);
	for (size_t i = 0; i < N; i++)
		free((char *)files[i].path);
	close(fd);
}

/* ---- damaged long names ---- */

static const struct file lfn_files[] = {
	{ "/First long name.txt", 3 },
	{ "/README.TXT", 5 },
	{ "/Second long name.txt", 7 },
};
#define FIRST11 "FIRSTL~1TXT"

static void expect_names(int fd, const char *first, const char *second, const char *third)
{
	struct listing l = list_root(fd);
	const char *want[3] = { first, second, third };
	size_t n = third ? 3 : 2;

	assert_int_equal(l.n, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(l.names[i], want[i]);
}

/* Long names that do not check out fall back to the short name, the entries after them
 * unharmed: a checksum that is not the short entry's (its byte changed, or the short name
 * renamed as a DOS tool would), entries deleted, out of order, a sequence whose short entry
 * is deleted (an orphan), or that ends the directory. */
static void test_lfn_damage(void **state)
{
	struct fat_geom g;
	struct root pristine, r;
	int fd = make_volume(lfn_files, 3, &g);

	(void)state;
	root_read(fd, &g, &pristine);
	size_t at = short_entry(&pristine, FIRST11);
	assert_int_equal(lfn_count(&pristine, at), 2);
	uint8_t *lfn0 = r.bytes + (at - 2) * ENTRY, *lfn1 = lfn0 + ENTRY, *sfn = lfn1 + ENTRY;

	expect_names(fd, "First long name.txt", "README.TXT", "Second long name.txt");

	/* the checksum byte of both entries changed */
	r = pristine;
	lfn0[13] ^= 0x5a;
	lfn1[13] ^= 0x5a;
	root_write(fd, &r);
	expect_names(fd, "FIRSTL~1.TXT", "README.TXT", "Second long name.txt");

	/* of one entry only: the sequence is broken */
	r = pristine;
	lfn1[13] ^= 1;
	root_write(fd, &r);
	expect_names(fd, "FIRSTL~1.TXT", "README.TXT", "Second long name.txt");

	/* the short entry renamed: its checksum is no longer the long name's */
	r = pristine;
	sfn[5] = 'M';
	root_write(fd, &r);
	expect_names(fd, "FIRSTM~1.TXT", "README.TXT", "Second long name.txt");

	/* both long-name entries deleted (0xE5) */
	r = pristine;
	lfn0[0] = 0xE5;
	lfn1[0] = 0xE5;
	root_write(fd, &r);
	expect_names(fd, "FIRSTL~1.TXT", "README.TXT", "Second long name.txt");

	/* the first stored one (0x42) deleted: the rest has no start */
	r = pristine;
	lfn0[0] = 0xE5;
	root_write(fd, &r);
	expect_names(fd, "FIRSTL~1.TXT", "README.TXT", "Second long name.txt");

	/* stored in ascending order */
	r = pristine;
	uint8_t tmp[ENTRY];
	memcpy(tmp, lfn0, ENTRY);
	memcpy(lfn0, lfn1, ENTRY);
	memcpy(lfn1, tmp, ENTRY);
	root_write(fd, &r);
	expect_names(fd, "FIRSTL~1.TXT", "README.TXT", "Second long name.txt");

	/* the short entry deleted: its long name is an orphan, not README's */
	r = pristine;
	sfn[0] = 0xE5;
	root_write(fd, &r);
	expect_names(fd, "README.TXT", "Second long name.txt", NULL);

	/* another file's entry (README's cluster and size) under the short name the long name
	 * was made for: the checksum, the only tie, matches, and the long name is read */
	r = pristine;
	memcpy(sfn, r.bytes + short_entry(&pristine, "README  TXT") * ENTRY, ENTRY);
	memcpy(sfn, "FIRSTL~1TXT", 11);
	root_write(fd, &r);
	expect_names(fd, "First long name.txt", "README.TXT", "Second long name.txt");

	/* a long name's entries last in the directory, the end marker right after them */
	r = pristine;
	size_t end = 0;
	while (r.bytes[end * ENTRY] != 0)
		end++;
	memcpy(r.bytes + end * ENTRY, lfn0, 2 * ENTRY);
	root_write(fd, &r);
	expect_names(fd, "First long name.txt", "README.TXT", "Second long name.txt");

	/* ... and one filling the directory to its very end, no end marker */
	r = pristine;
	for (size_t i = end; i + 1 < r.len / ENTRY; i += 2)
		memcpy(r.bytes + i * ENTRY, lfn0, 2 * ENTRY);
	memcpy(r.bytes + (r.len / ENTRY - 1) * ENTRY, lfn0, ENTRY);
	root_write(fd, &r);
	expect_names(fd, "First long name.txt", "README.TXT", "Second long name.txt");
	close(fd);
}

/* ---- damaged cluster chains ---- */

/* The bytes a read gave: counted, and (@check) each the pattern's at its offset from @from. */
struct counted {
	uint64_t from, got;
	bool check;
};

static int count_bytes(void *ctx, const void *buf, size_t len)
{
	struct counted *c = ctx;
	for (size_t i = 0; c->check && i < len; i++)
		assert_int_equal(((const uint8_t *)buf)[i], pattern(c->from + c->got + i));
	c->got += len;
	return 0;
}

static const struct file chain_files[] = {
	{ "/A.BIN", 5000 }, /* clusters 2..11 */
	{ "/B.BIN", 1500 }, /* 12..14 */
};

static void set_fat(int fd, const struct fat_geom *g, uint32_t c, uint16_t next)
{
	uint8_t e[2];
	put_le16(e, next);
	assert_int_equal(pwrite(fd, e, 2, (off_t)((uint64_t)g->reserved * 512 + 2 * c)), 2);
}

/* Reads @path of VOL: returns fat_vol_read()'s result, the bytes read in *@got (without
 * @needle checked against the pattern from offset @from), and the one error message, holding
 * @needle, or none. */
static int read_file(int fd, const char *path, uint64_t from, uint64_t *got, const char *needle)
{
	struct fat_vol *v;
	struct diag d;
	struct counted pos = { from, 0, !needle };

	diag_init(&d);
	assert_int_equal(fat_vol_open(fd, 0, VOL_SIZE, &v, &d), 0);
	int rc = fat_vol_read(v, path, count_bytes, &pos, &d);
	fat_vol_close(v);
	if (needle && !diag_has(&d, needle)) {
		fprintf(stderr, "  expected an error holding: %s\n", needle);
		diag_print(&d, stderr, "  read");
	}
	assert_true(needle ? diag_has(&d, needle) && d.errors == 1 : d.n == 0);
	diag_release(&d);
	*got = pos.got;
	return rc;
}

/* Chains that lead to a free, reserved or bad cluster, or loop back further up, are errors
 * naming the file and how far it got; a chain longer than the size is read up to the size;
 * files whose chains cross read each along its own. */
static void test_chain_damage(void **state)
{
	static const struct {
		uint16_t next;
		const char *error;
	} ends[] = {
		{ 0x0000, "/A.BIN: cluster chain leads to cluster 0 after 1536 of 5000 bytes" },
		{ 0x0001, "/A.BIN: cluster chain leads to cluster 1 after 1536 of 5000 bytes" },
		{ 0xFFF7, "/A.BIN: cluster chain leads to cluster 65527 after 1536 of 5000 bytes" },
		{ 0xFFF6, "/A.BIN: cluster chain leads to cluster 65526 after 1536 of 5000 bytes" },
		{ 0x0002,
		  "/A.BIN: cluster chain loops back to cluster 2 after 1536 of 5000 bytes" },
		{ 0x000E, "/A.BIN: cluster chain ends after 2048 of 5000 bytes" },
	};
	struct fat_geom g;
	uint64_t got;
	int fd = make_volume(chain_files, 2, &g);

	(void)state;
	assert_int_equal(read_file(fd, "/A.BIN", 0, &got, NULL), 0);
	assert_int_equal(got, 5000);
	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		set_fat(fd, &g, 4, ends[i].next); /* the third cluster's link */
		assert_int_equal(read_file(fd, "/A.BIN", 0, &got, ends[i].error), -EINVAL);
		assert_true(got <= 2048);
	}
	set_fat(fd, &g, 4, 5);

	/* the chain's end marker missing at the end of the file: read up to the size */
	set_fat(fd, &g, 11, 12);
	assert_int_equal(read_file(fd, "/A.BIN", 0, &got, NULL), 0);
	assert_int_equal(got, 5000);
	/* B cross-linked into A's chain (B's first cluster: A's fourth): each read along its
	 * own chain and size, B reading A's bytes from 1536 */
	struct root r;
	root_read(fd, &g, &r);
	size_t b = short_entry(&r, "B       BIN");
	put_le16(r.bytes + b * ENTRY + 26, 5);
	root_write(fd, &r);
	assert_int_equal(read_file(fd, "/A.BIN", 0, &got, NULL), 0);
	assert_int_equal(got, 5000);
	assert_int_equal(read_file(fd, "/B.BIN", 1536, &got, NULL), 0);
	assert_int_equal(got, 1500);
	/* a size with no cluster, and a size beyond the data area */
	put_le16(r.bytes + b * ENTRY + 26, 0);
	root_write(fd, &r);
	assert_int_equal(read_file(fd, "/B.BIN", 0, &got,
				   "/B.BIN: cluster chain leads to cluster 0 after 0 of 1500 "
				   "bytes"),
			 -EINVAL);
	put_le32(r.bytes + b * ENTRY + 28, 0xFFFFFFF0u);
	root_write(fd, &r);
	assert_int_equal(read_file(fd, "/B.BIN", 0, &got,
				   "/B.BIN: its size (4294967280 bytes) is "
				   "larger than the volume's data area"),
			 -EINVAL);
	close(fd);
}

/* A folder of two clusters whose first one links to a free, bad or reserved cluster: one
 * error naming the folder, the files listed up to there. */
static void test_folder_chain_damage(void **state)
{
	struct file files[20];
	char paths[20][32];
	struct fat_geom g;
	struct fat_vol *v;
	struct diag d;
	int fd;

	(void)state;
	for (size_t i = 0; i < 20; i++) {
		snprintf(paths[i], sizeof(paths[i]), "/DIR/F%02zu.TXT", i);
		files[i].path = paths[i];
		files[i].size = 0;
	}
	fd = make_volume(files, 20, &g);
	static const uint16_t nexts[] = { 0x0000, 0x0001, 0xFFF7, 0x0002 };
	static const char *const errors[] = {
		"/DIR: a directory's cluster chain leads to cluster 0, outside 2..",
		"/DIR: a directory's cluster chain leads to cluster 1, outside 2..",
		"/DIR: a directory's cluster chain leads to cluster 65527, outside 2..",
		"/DIR: its cluster 2 is also another folder's, or its own",
	};
	diag_init(&d);
	for (size_t i = 0; i < 4; i++) {
		struct listing l = { .n = 0 };
		set_fat(fd, &g, 2, nexts[i]); /* /DIR is cluster 2, 22 entries: 2 clusters */
		assert_int_equal(fat_vol_open(fd, 0, VOL_SIZE, &v, &d), 0);
		if (i < 3) {
			assert_int_equal(fat_vol_list(v, "/DIR", collect, &l, &d), -EINVAL);
			assert_int_equal(l.n,
					 14); /* 16 entries of the first cluster, less . and .. */
		} else {
			static const struct fat_walk_fns fns = { .entry = NULL };
			assert_int_equal(fat_vol_walk(v, "/", 4, &fns, NULL, &d), -EINVAL);
		}
		fat_vol_close(v);
		if (!diag_has(&d, errors[i]))
			diag_print(&d, stderr, "  list");
		assert_true(diag_has(&d, errors[i]));
	}
	diag_release(&d);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lfn_lengths),
		cmocka_unit_test(test_lfn_damage),
		cmocka_unit_test(test_chain_damage),
		cmocka_unit_test(test_folder_chain_damage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
