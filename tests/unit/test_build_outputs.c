/* SPDX-License-Identifier: MIT */
/* Unit tests: the bmap's ranges and text, and the set of outputs put in place together. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <dirent.h>
#include <sys/file.h>

#include "common/sha256.h"
#include "common/strbuf.h"
#include "mkimage/builder/builder_priv.h"
#include "mkimage/builder/output.h"

static void test_map_to_blocks(void **state)
{
	struct build_map m = { 0 };

	(void)state;
	assert_int_equal(build_map_add(&m, 440, 72), 0);        /* the MBR's table */
	assert_int_equal(build_map_add(&m, 8192, 100000), 0);   /* a raw region */
	assert_int_equal(build_map_add(&m, 4096 * 27, 1), 0);   /* the block after the region's */
	assert_int_equal(build_map_add(&m, 1 << 20, 0), 0);     /* nothing */
	assert_int_equal(build_map_add(&m, 9000, 10), 0);       /* inside the region */
	assert_int_equal(build_map_add(&m, 10000000, 5000), 0); /* past the image */
	assert_int_equal(build_map_add(&m, 999000, 2000), 0);   /* across the image's end */
	build_map_to_blocks(&m, 4096, 1000000);
	assert_int_equal(m.n, 3);
	assert_int_equal(m.v[0].start, 0);
	assert_int_equal(m.v[0].end, 4096);
	assert_int_equal(m.v[1].start, 8192);
	assert_int_equal(m.v[1].end, 4096 * 28); /* 108192 rounds up to 27 blocks, then block 27 */
	assert_int_equal(m.v[2].start, 999000 / 4096 * 4096);
	assert_int_equal(m.v[2].end, 1003520); /* the partial last block's grid end */
	assert_int_equal(build_map_bytes(&m, 1000000), 4096 + 4096 * 26 + (1000000 - 995328));
	build_map_release(&m);
}

/* The bmap's own checksum: the SHA-256 of the text with that field as 64 zeros. */
static void test_bmap_checksum(void **state)
{
	struct build_map m = { 0 };
	struct strbuf s = { 0 };
	struct sha256 *sha;
	struct diag d;
	uint8_t digest[32];
	char hex[65], *field;

	(void)state;
	diag_init(&d);
	assert_int_equal(sha256_new(&sha, &d), 0);
	assert_int_equal(build_map_add(&m, 0, 4096), 0);
	assert_int_equal(build_map_add(&m, 8192, 3 * 4096), 0);
	build_map_to_blocks(&m, 4096, 5 * 4096 + 100);
	assert_int_equal(build_bmap_text(&m, 5 * 4096 + 100, "x.img", sha, &s), 0);
	assert_non_null(strstr(s.s, "<ImageSize> 20580 </ImageSize>"));
	assert_non_null(strstr(s.s, "<BlocksCount> 6 </BlocksCount>"));
	assert_non_null(strstr(s.s, "<MappedBlocksCount> 4 </MappedBlocksCount>"));
	assert_non_null(strstr(s.s, "> 0 </Range>"));
	assert_non_null(strstr(s.s, "> 2-4 </Range>"));
	field = strstr(s.s, "<BmapFileChecksum> ") + strlen("<BmapFileChecksum> ");
	memcpy(hex, field, 64);
	hex[64] = 0;
	memset(field, '0', 64);
	sha256_update(sha, s.s, s.len);
	assert_int_equal(sha256_final(sha, digest), 0);
	for (int i = 0; i < 32; i++) {
		char two[3];
		snprintf(two, sizeof(two), "%02x", digest[i]);
		assert_memory_equal(hex + 2 * i, two, 2);
	}
	sha256_free(sha);
	diag_release(&d);
	strbuf_release(&s);
	build_map_release(&m);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void assert_file_is(const char *path, const char *text)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	assert_string_equal(buf, text);
}

/* A set whose last member cannot be put in place leaves every older file as it was. */
static void test_commit_all_or_none(void **state)
{
	struct build_file a, b, c;
	struct build_file *set[3] = { &a, &b, &c };
	struct diag d;

	(void)state;
	diag_init(&d);
	write_text("a.img", "old a");
	assert_int_equal(build_file_create(&a, "a.img", "it", 0, &d), 0);
	assert_int_equal(build_file_create(&b, "b.bmap", "it", 0, &d), 0);
	assert_int_equal(mkdir("c.sha256", 0755), 0); /* a folder: nothing can replace it */
	assert_int_equal(build_file_create(&c, "c.sha256", "it", 0, &d),
			 -EINVAL); /* refused at once */
	assert_int_equal(rmdir("c.sha256"), 0);
	assert_int_equal(build_file_create(&c, "c.sha256", "it", 0, &d), 0);
	assert_int_equal(write(a.fd, "new a", 5), 5);
	assert_int_equal(write(b.fd, "new b", 5), 5);
	/* a folder appears at c's name during the build: a and b are in place when c fails */
	assert_int_equal(mkdir("c.sha256", 0755), 0);
	diag_release(&d);
	diag_init(&d);
	assert_int_not_equal(build_files_commit(set, 3, NULL, NULL, &d), 0);
	assert_true(diag_has(&d, "c.sha256: cannot put it in place"));
	assert_file_is("a.img", "old a");
	assert_int_equal(access("b.bmap", F_OK), -1);
	assert_int_equal(rmdir("c.sha256"), 0); /* the folder that was there is still there */
	diag_release(&d);

	/* the same with a link appearing there: it stays, and so do the older files */
	diag_init(&d);
	assert_int_equal(build_file_create(&a, "a.img", "it", 0, &d), 0);
	assert_int_equal(build_file_create(&c, "c.sha256", "it", 0, &d), 0);
	assert_int_equal(symlink("elsewhere", "c.sha256"), 0);
	struct build_file *pair[2] = { &a, &c };
	assert_int_not_equal(build_files_commit(pair, 2, NULL, NULL, &d), 0);
	assert_file_is("a.img", "old a");
	char target[32] = "";
	assert_int_equal(readlink("c.sha256", target, sizeof(target) - 1), 9);
	assert_int_equal(unlink("c.sha256"), 0);
	diag_release(&d);

	/* and a set that can be put in place replaces the older file */
	diag_init(&d);
	assert_int_equal(build_file_create(&a, "a.img", "it", 0, &d), 0);
	assert_int_equal(build_file_create(&b, "b.bmap", "it", 0, &d), 0);
	assert_int_equal(write(a.fd, "new a", 5), 5);
	assert_int_equal(write(b.fd, "new b", 5), 5);
	struct build_file *two[2] = { &a, &b };
	assert_int_equal(build_files_commit(two, 2, NULL, NULL, &d), 0);
	assert_file_is("a.img", "new a");
	assert_file_is("b.bmap", "new b");
	diag_release(&d);
}

/* What the stop callback saw: the hidden names in the folder when it was asked. */
struct peek {
	size_t n;
	char names[4][64];
};

static bool peek_and_stop(void *ctx)
{
	struct peek *p = ctx;
	DIR *dir = opendir(".");
	struct dirent *e;

	assert_non_null(dir);
	while ((e = readdir(dir)))
		if (strncmp(e->d_name, ".sdimg.", 7) == 0 && p->n < 4 && strlen(e->d_name) < 64)
			strcpy(p->names[p->n++], e->d_name);
	closedir(dir);
	return true;
}

/* A stop asked once the files are written out leaves the older file and no hidden name;
 * a hidden name of a dead build (unlocked) goes with the next build to that name, that of
 * a live one (locked) stays. */
static void test_commit_stop_and_dead_temporaries(void **state)
{
	struct build_file a;
	struct build_file *one[1] = { &a };
	struct peek p = { 0 };
	struct diag d;
	char live[64];

	(void)state;
	diag_init(&d);
	write_text("s.img", "old s");
	assert_int_equal(build_file_create(&a, "s.img", "it", 0, &d), 0);
	assert_int_equal(write(a.fd, "new s", 5), 5);
	assert_int_equal(build_files_commit(one, 1, peek_and_stop, &p, &d), -EINTR);
	assert_int_equal(p.n, 1); /* it had its hidden name when the stop was asked */
	assert_int_equal(strlen(p.names[0]),
			 strlen(".sdimg.0123456789abcdef.") + 2 +
				 (size_t)snprintf(NULL, 0, "%d", (int)getpid()));
	assert_file_is("s.img", "old s");
	assert_int_equal(access(p.names[0], F_OK), -1);

	write_text(p.names[0], "dead"); /* as a killed build leaves it */
	snprintf(live, sizeof(live), "%.*slive", (int)(strrchr(p.names[0], '.') + 1 - p.names[0]),
		 p.names[0]);
	write_text(live, "live");
	int held = open(live, O_RDONLY);
	assert_true(held >= 0);
	assert_int_equal(flock(held, LOCK_EX), 0);
	assert_int_equal(build_file_create(&a, "s.img", "it", 0, &d), 0);
	assert_int_equal(access(p.names[0], F_OK), -1);
	assert_int_equal(access(live, F_OK), 0);
	build_file_abort(&a);
	close(held);
	assert_int_equal(unlink(live), 0);
	assert_file_is("s.img", "old s");
	diag_release(&d);
}

/* The image of a build that writes only its compressed copy is made whatever is at its
 * name (a link, a folder), and leaves that as it was. */
static void test_scratch_beside_anything(void **state)
{
	struct build_file a;
	struct diag d;
	char target[32] = "";

	(void)state;
	diag_init(&d);
	assert_int_equal(symlink("victim", "x.img"), 0);
	assert_int_equal(build_file_create(&a, "x.img", "it", 0, &d), -EINVAL);
	assert_int_equal(build_file_create_scratch(&a, "x.img", "it", 8192, &d), 0);
	assert_true(a.fd >= 0);
	assert_int_equal(write(a.fd, "data", 4), 4);
	build_file_abort(&a);
	assert_int_equal(readlink("x.img", target, sizeof(target) - 1), 6);
	assert_int_equal(access("victim", F_OK), -1);
	assert_int_equal(unlink("x.img"), 0);
	assert_int_equal(mkdir("x.img", 0755), 0);
	assert_int_equal(build_file_create_scratch(&a, "x.img", "it", 0, &d), 0);
	build_file_abort(&a);
	assert_int_equal(rmdir("x.img"), 0); /* still an empty folder */
	assert_int_equal(d.errors, 1);
	diag_release(&d);
}

/* Whether another open of folder @dir can take its flock now. */
static bool folder_free(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	bool free_now = flock(fd, LOCK_EX | LOCK_NB) == 0;
	close(fd);
	return free_now;
}

/* The lock of an output set holds each of its folders once (one named twice would wait
 * for itself), passes over one it cannot open, and is gone once released. */
static void test_files_lock(void **state)
{
	const char *paths[4] = { "lk1/a.img", "lk2/a.bmap", "lk1/a.sha256", "nowhere/a.zst" };
	struct build_lock lock;

	(void)state;
	assert_int_equal(mkdir("lk1", 0755), 0);
	assert_int_equal(mkdir("lk2", 0755), 0);
	assert_int_equal(build_files_lock(paths, 4, &lock), 0);
	assert_int_equal(lock.n, 2);
	assert_false(folder_free("lk1"));
	assert_false(folder_free("lk2"));
	build_files_unlock(&lock);
	assert_true(folder_free("lk1"));
	assert_true(folder_free("lk2"));
	assert_int_equal(rmdir("lk1"), 0);
	assert_int_equal(rmdir("lk2"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_to_blocks),
		cmocka_unit_test(test_bmap_checksum),
		cmocka_unit_test(test_commit_all_or_none),
		cmocka_unit_test(test_commit_stop_and_dead_temporaries),
		cmocka_unit_test(test_scratch_beside_anything),
		cmocka_unit_test(test_files_lock),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
