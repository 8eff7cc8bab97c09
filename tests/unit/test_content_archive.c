/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the one archive reader of mkimage/contents/ (archive_read.c): the listing
 * pass gives every file system the same entries, in archive order, with what its caps hold
 * (owners, attributes, ACLs), paths normalised and stripped; the data pass hands out the
 * bytes of the entries asked for, holes as zeros, from the archive or its spool. The tar is
 * written here, entries in the order a tool that does not sort writes them.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "layouts/layouts.h"
#include "mkimage/contents/contents.h"

/* What a file system that keeps everything holds (ext4 states its own in the builder). */
static const struct content_caps caps_all = {
	.name = "test",
	.links = true,
	.specials = true,
	.owners = true,
	.xattrs = true,
};

/* One ustar header block (POSIX.1-2001, "pax Interchange Format": the ustar fields). */
static void tar_header(FILE *f, const char *name, char type, unsigned mode, size_t size,
		       const char *link, unsigned major, unsigned minor)
{
	unsigned char h[512] = { 0 };
	unsigned sum = 0;

	snprintf((char *)h, 100, "%s", name);
	snprintf((char *)h + 100, 8, "%07o", mode);
	snprintf((char *)h + 108, 8, "%07o", 1000u);
	snprintf((char *)h + 116, 8, "%07o", 100u);
	snprintf((char *)h + 124, 12, "%011zo", size);
	snprintf((char *)h + 136, 12, "%011o", 1600000000u);
	memset(h + 148, ' ', 8);
	h[156] = (unsigned char)type;
	snprintf((char *)h + 157, 100, "%s", link ? link : "");
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	snprintf((char *)h + 329, 8, "%07o", major);
	snprintf((char *)h + 337, 8, "%07o", minor);
	for (size_t i = 0; i < sizeof(h); i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	h[155] = ' ';
	assert_int_equal(fwrite(h, 1, sizeof(h), f), sizeof(h));
}

/* @len bytes of @data, padded to whole blocks. */
static void tar_data(FILE *f, const void *data, size_t len)
{
	static const char zeros[512];

	assert_int_equal(fwrite(data, 1, len, f), len);
	if (len % 512)
		assert_int_equal(fwrite(zeros, 1, 512 - len % 512, f), 512 - len % 512);
}

/* A pax extended header for the next entry: one record "LEN key=value\n". */
static void tar_pax(FILE *f, const char *key, const char *value)
{
	char rec[256];
	size_t body = strlen(key) + strlen(value) + 3, len = body + 2; /* "NN " */

	if (len >= 100)
		len++;
	snprintf(rec, sizeof(rec), "%zu %s=%s\n", len, key, value);
	assert_int_equal(strlen(rec), len);
	tar_header(f, "PaxHeader", 'x', 0644, len, NULL, 0, 0);
	tar_data(f, rec, len);
}

/*
 * t.tar: a folder after what it holds, names out of order, a file with an attribute, a hard
 * link (tar gives it no type), a symbolic link, a character device, a path through ".." with
 * an access ACL (its mask the group bits), and the top folder last.
 */
static void write_tar(void)
{
	FILE *f = fopen("t.tar", "wb");
	static const char zeros[1024];

	assert_non_null(f);
	tar_header(f, "top/b/z.txt", '0', 0640, 5, NULL, 0, 0);
	tar_data(f, "hello", 5);
	tar_header(f, "top/b/", '5', 0755, 0, NULL, 0, 0);
	tar_pax(f, "SCHILY.xattr.user.note", "hi");
	tar_header(f, "top/a.txt", '0', 0600, 3, NULL, 0, 0);
	tar_data(f, "abc", 3);
	tar_header(f, "top/b/hard", '1', 0640, 0, "top/b/z.txt", 0, 0);
	tar_header(f, "top/lnk", '2', 0777, 0, "b/z.txt", 0, 0);
	tar_header(f, "top/null", '3', 0666, 0, NULL, 1, 3);
	tar_pax(f, "SCHILY.acl.access", "user::rw-,user:1234:r--,group::r--,mask::r-x,other::---");
	tar_header(f, "./top/c/../d.txt", '0', 0644, 0, NULL, 0, 0);
	tar_header(f, "top", '5', 0755, 0, NULL, 0, 0);
	assert_int_equal(fwrite(zeros, 1, sizeof(zeros), f), sizeof(zeros));
	assert_int_equal(fclose(f), 0);
}

/* The entries a listing met, one line each. */
struct list_log {
	char text[2048];
};

static int log_entry(void *ctx, struct content_archive_item *e)
{
	struct list_log *lg = ctx;
	size_t n = strlen(lg->text);

	n += (size_t)snprintf(lg->text + n, sizeof(lg->text) - n, "%llu %s %o %s %o %u:%u %lld",
			      (unsigned long long)e->number, e->path ? e->path : "-",
			      (unsigned)e->type, e->name, e->perm, e->uid, e->gid,
			      (long long)e->size);
	if (e->hardlink)
		n += (size_t)snprintf(lg->text + n, sizeof(lg->text) - n, " =%s", e->hardlink);
	if (e->symlink)
		n += (size_t)snprintf(lg->text + n, sizeof(lg->text) - n, " ->%s", e->symlink);
	if (e->type == AE_IFCHR)
		n += (size_t)snprintf(lg->text + n, sizeof(lg->text) - n, " %u,%u", e->major,
				      e->minor);
	for (size_t k = 0; k < e->n_xattrs; k++)
		n += (size_t)snprintf(lg->text + n, sizeof(lg->text) - n, " %s=%.*s",
				      e->xattrs[k].name, (int)e->xattrs[k].len,
				      (const char *)e->xattrs[k].value);
	for (size_t k = 0; k < e->acl_access.n; k++)
		n += (size_t)snprintf(lg->text + n, sizeof(lg->text) - n, " acl %x,%o,%u",
				      e->acl_access.v[k].tag, e->acl_access.v[k].perm,
				      e->acl_access.v[k].id);
	snprintf(lg->text + n, sizeof(lg->text) - n, ";\n");
	return 0;
}

/* Lists @host for @caps with @strip into @lg: the listing's return, the reader open. */
static int list(struct content_archive_reader *r, const char *host, const struct content_caps *caps,
		unsigned strip, struct list_log *lg, struct diag *d)
{
	diag_init(d);
	lg->text[0] = '\0';
	assert_int_equal(content_archive_reader_open(r, caps, strip, d), 0);
	return content_archive_list(r, host, log_entry, lg);
}

/* Each entry as its header gives it, in archive order, whatever the file system. */
static void test_listing(void **state)
{
	struct content_archive_reader r;
	struct list_log lg;
	struct diag d;

	(void)state;
	write_tar();
	assert_int_equal(list(&r, "t.tar", &caps_all, 0, &lg, &d), 0);
	assert_string_equal(lg.text,
			    "0 top/b/z.txt 100000 top/b/z.txt 640 1000:100 5;\n"
			    "1 top/b 40000 top/b/ 755 1000:100 0;\n"
			    "2 top/a.txt 100000 top/a.txt 600 1000:100 3 user.note=hi;\n"
			    "3 top/b/hard 0 top/b/hard 640 1000:100 0 =top/b/z.txt;\n"
			    "4 top/lnk 120000 top/lnk 777 1000:100 0 ->b/z.txt;\n"
			    "5 top/null 20000 top/null 666 1000:100 0 1,3;\n"
			    "6 top/d.txt 100000 ./top/c/../d.txt 650 1000:100 0 acl 1,6,4294967295 "
			    "acl 4,4,4294967295 acl 20,0,4294967295 acl 2,4,1234 acl "
			    "10,5,4294967295;\n"
			    "7 top 40000 top 755 1000:100 0;\n");
	assert_int_equal(r.n, 8);
	assert_int_equal(r.kept, 8);
	assert_false(r.source.spooled);
	content_archive_reader_close(&r);
	diag_release(&d);

	/* FAT: no owners, no attributes, no ACL (the mode libarchive gives, not the mask, in the
	 * group bits); strip 1 leaves nothing of the top */
	assert_int_equal(list(&r, "t.tar", &content_caps_fat, 1, &lg, &d), 0);
	assert_string_equal(lg.text, "0 b/z.txt 100000 top/b/z.txt 640 0:0 5;\n"
				     "1 b 40000 top/b/ 755 0:0 0;\n"
				     "2 a.txt 100000 top/a.txt 600 0:0 3;\n"
				     "3 b/hard 0 top/b/hard 640 0:0 0 =top/b/z.txt;\n"
				     "4 lnk 120000 top/lnk 777 0:0 0 ->b/z.txt;\n"
				     "5 null 20000 top/null 666 0:0 0 1,3;\n"
				     "6 d.txt 100000 ./top/c/../d.txt 640 0:0 0;\n"
				     "7 - 40000 top 755 0:0 0;\n");
	assert_int_equal(r.kept, 7);
	content_archive_reader_close(&r);
	diag_release(&d);
}

/* A path that climbs out of the top is one line naming the archive and the entry. */
static void test_listing_refuses(void **state)
{
	struct content_archive_reader r;
	struct list_log lg;
	struct diag d;
	FILE *f = fopen("up.tar", "wb");
	static const char zeros[1024];

	(void)state;
	assert_non_null(f);
	tar_header(f, "a/../../x", '0', 0644, 0, NULL, 0, 0);
	assert_int_equal(fwrite(zeros, 1, sizeof(zeros), f), sizeof(zeros));
	assert_int_equal(fclose(f), 0);
	assert_int_equal(list(&r, "up.tar", &caps_all, 0, &lg, &d), -EINVAL);
	assert_true(diag_has(&d, "up.tar: a/../../x: the entry's path leaves the partition (..)"));
	assert_string_equal(lg.text, "");
	content_archive_reader_close(&r);
	diag_release(&d);
}

/* What the data pass handed out: each entry's bytes, read as ext4 reads them (its size of
 * them, 2 at a time). */
struct data_log {
	const struct content_archive_want *want;
	char text[256];
};

static int log_bytes(void *ctx, size_t i, struct content_entry_bytes *b)
{
	struct data_log *dl = ctx;
	size_t at = strlen(dl->text), end;
	long n = 0;

	at += (size_t)snprintf(dl->text + at, sizeof(dl->text) - at, "%zu:", i);
	end = at + dl->want[i].size;
	assert_true(end < sizeof(dl->text) - 1);
	while (at < end && (n = content_entry_read(b, dl->text + at, end - at < 2 ? 1 : 2)) > 0)
		at += (size_t)n;
	snprintf(dl->text + at, sizeof(dl->text) - at, ";");
	return n < 0 ? (int)n : 0;
}

/* The data pass reads the archive again, or the spool of a compressed one, and hands out
 * the entries asked for in archive order; an entry whose size changed is an error. */
static void test_data_pass(void **state)
{
	static const char *const hosts[] = { "t.tar", "t.tar.gz" };
	struct content_archive_want want[] = { { 0, 5 }, { 2, 3 } };
	struct content_archive_reader r;
	struct list_log lg;
	struct data_log dl = { .want = want };
	struct diag d;

	(void)state;
	write_tar();
	assert_int_equal(system("gzip -n -c t.tar >t.tar.gz"), 0);
	for (size_t h = 0; h < 2; h++) {
		assert_int_equal(list(&r, hosts[h], &caps_all, 0, &lg, &d), 0);
		assert_int_equal(r.source.spooled, h == 1);
		dl.text[0] = '\0';
		assert_int_equal(content_archive_data(&r.lib, &r.source, want, 2, log_bytes, &dl,
						      NULL, NULL, &d),
				 0);
		assert_string_equal(dl.text, "0:hello;1:abc;");
		want[1].size = 4; /* not the size listed */
		dl.text[0] = '\0';
		assert_int_equal(content_archive_data(&r.lib, &r.source, want, 2, log_bytes, &dl,
						      NULL, NULL, &d),
				 -EINVAL);
		assert_true(diag_has(&d, ": top/a.txt: changed while the image was built"));
		want[1].size = 3;
		content_archive_reader_close(&r);
		diag_release(&d);
	}
}

/* The include and exclude over an archive's entries in walk order: each judged by its own
 * path, a folder no entry gives judged once (its hits counted as a walk counts them), and a
 * listed folder that holds something that stays stays. */
static void test_judge(void **state)
{
	char *inc[] = { "*.dtb" }, *exc[] = { "old/" };
	struct layout_entry e = { .include = inc,
				  .n_include = 1,
				  .exclude = exc,
				  .n_exclude = 1,
				  .from = "t.tar" };
	const char *paths[] = { "",          "a",   "a/b.dtb",   "a/c.txt", "b/c/d.dtb",
				"b/c/e.dtb", "old", "old/f.dtb", "z.txt" };
	const bool is_dir[] = { true, true, false, false, false, false, true, false, false };
	bool left_out[9];
	char got[16] = "";
	struct content_filter f;

	(void)state;
	for (size_t i = 1; i < 9; i++)
		assert_true(content_walk_compare(paths[i - 1], paths[i]) < 0);
	assert_true(content_walk_compare("a/b", "a-b") < 0); /* a folder before what follows */
	assert_int_equal(content_filter_init(&f, &e), 0);
	content_archive_judge(&f, paths, is_dir, left_out, 9);
	for (size_t i = 0; i < 9; i++)
		got[i] = left_out[i] ? '-' : '+';
	assert_string_equal(got, "+++-++---");
	assert_int_equal(f.include_hits[0], 4); /* not b nor b/c, implied folders */
	assert_int_equal(f.exclude_hits[0], 1);
	content_filter_release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_listing),
		cmocka_unit_test(test_listing_refuses),
		cmocka_unit_test(test_data_pass),
		cmocka_unit_test(test_judge),
	};
	return cmocka_run_group_tests_name("content_archive", tests, NULL, NULL);
}
