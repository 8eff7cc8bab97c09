/* SPDX-License-Identifier: MIT */
/* Unit tests of mkimage/ parts: derived ids, the GPT CRC, gathering a FAT partition's files. */
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

#include "common/gpt.h"
#include "common/sha256.h"
#include "mkimage/builder/builder_priv.h"
#include "mkimage/contents/contents.h"
#include "layout_test_util.h"

/* Expected values computed outside: printf '%s\n%s' SEED PURPOSE | sha256sum */
static void test_ids_follow_the_documented_rule(void **state)
{
	struct layout_guid g;
	struct sha256 *sha;
	struct diag d;
	uint32_t id;
	char text[37];

	(void)state;
	diag_init(&d);
	assert_int_equal(sha256_new(&sha, &d), 0);
	assert_int_equal(build_id_mbr_disk(sha, "rpi4-v1", &id), 0);
	assert_int_equal(id, 0x93cc8d25);
	assert_int_equal(build_id_gpt_disk(sha, "rpi4-v1", &g), 0);
	layout_guid_text(&g, text);
	assert_string_equal(text, "AE4F6180-B6B7-4B2F-9D6F-20A26B8F5B62");
	assert_int_equal(build_id_volume(sha, "rpi4-v1", "boot", &id), 0);
	assert_int_equal(id, 0x1fb8be9b);
	assert_int_equal(build_id_partition_uuid(sha, "rpi4-v1", "rootfs", &g), 0);
	layout_guid_text(&g, text);
	assert_string_equal(text, "B2CD68AD-ED7B-454D-AF25-816AC409EA81");
	sha256_free(sha);
	diag_release(&d);
}

static void test_gpt_crc32(void **state)
{
	(void)state;
	assert_int_equal(gpt_crc32("123456789", 9), 0xcbf43926); /* the CRC-32 check value */
	assert_int_equal(gpt_crc32("", 0), 0);

	/* the header CRC takes its own field as zero, whatever it holds */
	uint8_t hdr[92] = "EFI PART";
	for (size_t i = 8; i < sizeof(hdr); i++)
		hdr[i] = (uint8_t)(i * 7);
	uint8_t zeroed[92];
	memcpy(zeroed, hdr, sizeof(hdr));
	memset(zeroed + GPT_HDR_CRC, 0, 4);
	assert_int_equal(gpt_header_crc(hdr, sizeof(hdr)), gpt_crc32(zeroed, sizeof(zeroed)));
	assert_int_equal(hdr[GPT_HDR_CRC], 16 * 7);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static const struct content_node *live(const struct content *c, const char *path)
{
	for (size_t i = 0; i < c->n; i++)
		if (!c->nodes[i].removed && strcmp(c->nodes[i].path, path) == 0)
			return &c->nodes[i];
	return NULL;
}

static size_t live_count(const struct content *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++)
		n += !c->nodes[i].removed;
	return n;
}

/* An empty folder, a file-less tree: nothing to sort (the sanitizers refuse qsort(NULL)). */
static void test_gather_empty_folder(void **state)
{
	struct content c = { 0 };
	struct diag d;

	(void)state;
	assert_int_equal(system("mkdir -p in/empty/inner"), 0);
	struct layout *l = load_in(
		"partition p { type = fat\n tree \"/\" { from = \"empty\" } }\n");
	diag_init(&d);
	assert_int_equal(content_gather(l, &l->parts[0], &c, &d), 0);
	assert_non_null(live(&c, "/inner"));
	content_release(&c);
	layout_free(l);
	diag_release(&d);
}

static void test_gather_overlay(void **state)
{
	struct content c = { 0 };
	struct diag d;

	(void)state;
	assert_int_equal(system("mkdir -p in/a/sub in/b/Sub && ln -sf ../a/x in/b/link"), 0);
	write_text("in/a/x", "ax");
	write_text("in/a/sub/y", "ay");
	write_text("in/b/X", "bX!"); /* replaces /x: FAT sees X and x as one name */
	write_text("in/b/Sub/z", "bz");
	write_text("in/cfg", "config");
	struct layout *l = load_in("partition p { type = fat\n tree \"/\" { from = \"a\" }\n"
				   "tree \"/\" { from = \"b\" links = follow }\n file \"/sub/y\" { "
				   "from = \"cfg\" first = true }\n"
				   "file \"/n.txt\" { content = \"hello\" attrs = \"hidden\" }\n "
				   "dir \"/logs\" {} }\n");
	diag_init(&d);
	assert_int_equal(content_gather(l, &l->parts[0], &c, &d), 0);
	assert_null(live(&c, "/x"));
	assert_int_equal(live(&c, "/X")->size, 3);
	assert_non_null(live(&c, "/sub"));   /* /Sub merged into /sub: directories merge */
	assert_non_null(live(&c, "/sub/z")); /* ... and keep the case they had first */
	assert_string_equal(live(&c, "/sub/y")->host_path, "in/cfg");
	assert_true(live(&c, "/sub/y")->first);
	/* a host file named as in its folder keeps only the folder, shared with the others */
	char buf[CONTENT_HOST_PATH_MAX];
	assert_true(live(&c, "/sub/z")->host_in_folder);
	assert_ptr_equal(live(&c, "/link")->host_path, live(&c, "/X")->host_path);
	assert_string_equal(live(&c, "/sub/z")->host_path, "in/b/Sub");
	assert_string_equal(content_host_path(live(&c, "/sub/z"), buf, sizeof(buf)), "in/b/Sub/z");
	assert_string_equal(content_origin(live(&c, "/sub/z"), buf, sizeof(buf)), "in/b/Sub/z");
	assert_string_equal(content_host_path(live(&c, "/X"), buf, sizeof(buf)), "in/b/X");
	/* one named otherwise (cfg at /sub/y) keeps its whole path */
	assert_false(live(&c, "/sub/y")->host_in_folder);
	assert_string_equal(content_origin(live(&c, "/sub/y"), buf, sizeof(buf)), "in/cfg");
	assert_null(content_host_path(live(&c, "/sub/z"), buf, 5)); /* does not fit */
	assert_int_equal(live(&c, "/link")->size, 2); /* followed out of its tree: links = follow */
	assert_string_equal(live(&c, "/n.txt")->text, "hello");
	assert_int_equal(live(&c, "/n.txt")->attrs, LAYOUT_ATTR_HIDDEN);
	assert_true(live(&c, "/logs")->is_dir);
	assert_int_equal(live_count(&c), 7);
	assert_int_equal(live(&c, "/X")->mtime, 315532800);
	content_release(&c);
	diag_release(&d);
	layout_free(l);
}

/* An exFAT partition's model compares names by exFAT's up-case table (Armenian folds, which
 * FAT's table leaves alone) and keeps files of 4 GiB and more. */
static void test_gather_exfat(void **state)
{
	struct content c = { 0 };
	struct diag d;

	(void)state;
	assert_int_equal(system("mkdir -p in/arm && truncate -s 5G in/arm/big.bin"), 0);
	write_text("in/arm/\xd5\xa1.txt", "small a"); /* U+0561 */
	struct layout *l = load_in(
		"partition p { type = exfat\n tree \"/\" { from = \"arm\" }\n"
		" file \"/\xd4\xb1.TXT\" { content = \"capital\" } }\n"); /* U+0531 */
	diag_init(&d);
	assert_int_equal(content_gather(l, &l->parts[0], &c, &d), 0);
	assert_ptr_equal(c.caps, &content_caps_exfat);
	assert_null(live(&c, "/\xd5\xa1.txt"));
	assert_string_equal(live(&c, "/\xd4\xb1.TXT")->text, "capital");
	assert_int_equal(live(&c, "/big.bin")->size, 5ull << 30);
	assert_int_equal(live_count(&c), 2);
	content_release(&c);
	layout_free(l);
	/* the same layout on FAT: two names (fat/ refuses the large file when it is added) */
	l = load_in("partition p { type = fat\n tree \"/\" { from = \"arm\" }\n"
		    " file \"/\xd4\xb1.TXT\" { content = \"capital\" } }\n");
	assert_int_equal(content_gather(l, &l->parts[0], &c, &d), 0);
	assert_ptr_equal(c.caps, &content_caps_fat);
	assert_non_null(live(&c, "/\xd5\xa1.txt"));
	assert_non_null(live(&c, "/\xd4\xb1.TXT"));
	assert_int_equal(live_count(&c), 3);
	content_release(&c);
	layout_free(l);
	diag_release(&d);
	assert_int_equal(system("rm -rf in/arm"), 0);
}

static void test_gather_case_of_folders(void **state)
{
	struct content c = { 0 };
	struct diag d;

	(void)state;
	assert_int_equal(system("mkdir -p in/esp/EFI/BOOT && echo x > in/esp/EFI/BOOT/BOOTX64.EFI"),
			 0);
	struct layout *l = load_in(
		"partition p { type = fat\n tree \"/\" { from = \"esp\" }\n"
		"file \"/efi/boot/grub.cfg\" { content = \"set timeout=0\" }\n"
		"dir \"/a\" {}\n file \"/A/b\" { content = \"b\" }\n"
		"file \"/x/y\" { content = \"y\" }\n file \"/X\" { content = \"x\" } }\n");
	diag_init(&d);
	if (content_gather(l, &l->parts[0], &c, &d) != 0)
		diag_print(&d, stderr, "  diag");
	assert_int_equal(d.errors, 0);
	assert_non_null(live(&c, "/EFI/BOOT/grub.cfg")); /* in the folders' own case */
	assert_non_null(live(&c, "/EFI/BOOT/BOOTX64.EFI"));
	assert_non_null(live(&c, "/a/b"));
	assert_false(live(&c, "/X")->is_dir); /* the later file replaced the folder /x ... */
	assert_null(live(&c, "/x/y"));        /* ... and what was in it */
	assert_null(live(&c, "/x"));
	content_release(&c);
	diag_release(&d);
	layout_free(l);
}

static void expect_gather_error(const char *layout, const char *needle)
{
	struct content c = { 0 };
	struct diag d;
	struct layout *l = load_in(layout);

	diag_init(&d);
	assert_int_not_equal(content_gather(l, &l->parts[0], &c, &d), 0);
	if (!diag_has(&d, needle)) {
		fprintf(stderr, "  expected: %s\n", needle);
		diag_print(&d, stderr, "  diag");
	}
	assert_true(diag_has(&d, needle));
	content_release(&c);
	diag_release(&d);
	layout_free(l);
}

static void test_gather_errors(void **state)
{
	(void)state;
	assert_int_equal(system("mkdir -p in/clash in/dang in/fifo in/loop/d && touch "
				"in/clash/README in/clash/readme"
				" && ln -sf nowhere in/dang/l && mkfifo in/fifo/f && ln -sf .. "
				"in/loop/d/up"),
			 0);
	expect_gather_error("partition p { type = fat\n tree \"/\" { from = \"clash\" } }",
			    "in/clash/README and in/clash/readme: FAT sees the two names as equal");
	expect_gather_error("partition p { type = fat\n tree \"/\" { from = \"dang\" } }",
			    "in/dang/l: dangling symbolic link");
	expect_gather_error("partition p { type = fat\n tree \"/\" { from = \"fifo\" } }",
			    "in/fifo/f: a fifo cannot go on a FAT file system");
	expect_gather_error("partition p { type = fat\n tree \"/\" { from = \"loop\" } }",
			    "in/loop/d/up: symbolic link loop");
	expect_gather_error("partition p { type = fat\n tree \"/\" { from = \"missing\" } }",
			    "in/missing: No such file or directory");
	expect_gather_error("partition p { type = fat\n\n tree \"/\" { from = \"cfg\" } }",
			    "in/cfg: cannot be read as an archive: Unrecognized archive format");
	expect_gather_error("partition p { type = fat\n file \"/f\" { from = \"clash\" } }",
			    "t.layout:2: file '/f': in/clash is a folder (use tree)");
	expect_gather_error("partition p { type = fat\n file \"/a\" { content = \"1\" }\n"
			    " file \"/A/b\" { content = \"2\" } }",
			    "t.layout:3: /A/b needs /a to be a folder, but t.layout:2 put a file "
			    "there");
	/* a host file in the way is named by its host path, which the model makes again */
	assert_int_equal(system("mkdir -p in/one && touch in/one/f"), 0);
	expect_gather_error("partition p { type = fat\n tree \"/\" { from = \"one\" }\n"
			    " file \"/F/g\" { content = \"1\" } }",
			    "t.layout:3: /F/g needs /f to be a folder, but in/one/f put a file "
			    "there");
}

/* A filtered tree is gathered alone, then what it keeps joins the partition's model: its
 * host files keep their whole host paths. */
static void test_gather_filtered_host_paths(void **state)
{
	struct content c = { 0 };
	char buf[CONTENT_HOST_PATH_MAX];
	struct diag d;

	(void)state;
	assert_int_equal(system("mkdir -p in/flt/sub && touch in/flt/keep.txt in/flt/drop.bin "
				"in/flt/sub/deep.txt"),
			 0);
	struct layout *l = load_in("partition p { type = fat\n tree \"/t\" { from = \"flt\" "
				   "include = \"*.txt\" } }\n");
	diag_init(&d);
	assert_int_equal(content_gather(l, &l->parts[0], &c, &d), 0);
	assert_null(live(&c, "/t/drop.bin"));
	assert_string_equal(content_host_path(live(&c, "/t/keep.txt"), buf, sizeof(buf)),
			    "in/flt/keep.txt");
	assert_string_equal(content_origin(live(&c, "/t/sub/deep.txt"), buf, sizeof(buf)),
			    "in/flt/sub/deep.txt");
	assert_true(live(&c, "/t/sub/deep.txt")->host_in_folder);
	content_release(&c);
	diag_release(&d);
	layout_free(l);
}

/* links: what a link of a host folder leads to decides, found name by name (host_links.c) */
static void test_gather_links(void **state)
{
	struct content c = { 0 };
	struct diag d;

	(void)state;
	assert_int_equal(system("mkdir -p in/lk/sub/deep in/lkout && echo f > in/lk/f && echo o > "
				"in/lkout/o"
				" && ln -sf ../f in/lk/sub/rel && ln -sf sub/./deep/../../f "
				"in/lk/dots"
				" && ln -sf sub in/lk/dir && ln -sf dir/rel in/lk/chain"
				" && ln -sf \"$PWD/in/lk/f\" in/lk/abs && ln -sf ../lk/f in/lk/back"
				" && mkdir -p in/lo && ln -sf ../lkout/o in/lo/out"
				" && mkdir -p in/ld && ln -sf ../lkout in/ld/dir"),
			 0);
	struct layout *l = load_in("partition p { type = fat\n tree \"/\" { from = \"lk\" } }\n");
	diag_init(&d);
	assert_int_equal(content_gather(l, &l->parts[0], &c, &d), 0);
	for (const char *const *p = (const char *const[]){ "/sub/rel", "/dots", "/chain", "/abs",
							   "/back", "/dir/rel", NULL };
	     *p; p++) {
		const struct content_node *n = live(&c, *p);
		assert_non_null(n);
		assert_int_equal(n->size, 2);
	}
	content_release(&c);
	layout_free(l);
	diag_release(&d);
	expect_gather_error("partition p { type = fat\n tree \"/\" { from = \"lo\" } }",
			    "in/lo/out: a symbolic link to ../lkout/o, outside the tree in/lo");
	expect_gather_error("partition p { type = fat\n tree \"/\" { from = \"ld\" } }",
			    "in/ld/dir: a symbolic link to ../lkout, outside the tree in/ld");
	expect_gather_error("partition p { type = fat\n tree \"/\" { from = \"lk\" links = refuse "
			    "} }",
			    "in/lk/abs: a symbolic link (to ");
}

/* Builds in/NAME with bsdtar from the shell commands @make run in a fresh folder. */
static void make_tar(const char *name, const char *make, const char *opts)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd),
		 "rm -rf in/t && mkdir -p in/t && cd in/t && %s && "
		 "bsdtar %s -cf ../%s * && cd .. && rm -rf t",
		 make, opts, name);
	assert_int_equal(system(cmd), 0);
}

static void test_gather_archive(void **state)
{
	struct content c = { 0 };
	struct diag d;

	(void)state;
	make_tar("a.tar",
		 "mkdir -p top/sub && echo 12345 > top/sub/f && ln top/sub/f top/h && "
		 "ln -s sub/f top/s && ln -s s top/s2",
		 "");
	struct layout *l = load_in(
		"partition p { type = fat\n tree \"/x\" { from = \"a.tar\" strip = 1 } }");
	diag_init(&d);
	if (content_gather(l, &l->parts[0], &c, &d) != 0)
		diag_print(&d, stderr, "  diag");
	assert_int_equal(d.errors, 0);
	assert_true(live(&c, "/x/sub")->is_dir);
	const struct content_node *f = live(&c, "/x/sub/f");
	assert_int_equal(f->size, 6);
	assert_int_not_equal(f->archive, 0);
	assert_null(live(&c, "/x/top"));
	for (size_t i = 0; i < 3; i++) { /* hard link, link, link to a link: the same entry */
		const struct content_node *n = live(&c,
						    (const char *[]){ "/x/h", "/x/s", "/x/s2" }[i]);
		assert_int_equal(n->entry, f->entry);
		assert_int_equal(n->size, 6);
		assert_null(n->link);
	}
	content_release(&c);
	diag_release(&d);
	layout_free(l);
}

/* A hard link whose target strip removed still gets its bytes, from tar and from cpio. */
static void test_gather_hardlink_to_stripped(void **state)
{
	static const char *const opts[] = { "--format ustar", "--format newc" };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct content c = { 0 };
		struct diag d;
		make_tar("h.a", "mkdir sub && echo 12345 > a && ln a sub/h && ln a sub/i", opts[i]);
		struct layout *l = load_in(
			"partition p { type = fat\n tree \"/\" { from = \"h.a\" strip = 1 } }");
		diag_init(&d);
		if (content_gather(l, &l->parts[0], &c, &d) != 0)
			diag_print(&d, stderr, "  diag");
		assert_int_equal(d.errors, 0);
		assert_null(live(&c, "/a"));
		assert_int_equal(live(&c, "/h")->size, 6);
		assert_int_equal(live(&c, "/i")->size, 6);
		assert_int_equal(live(&c, "/h")->entry, live(&c, "/i")->entry);
		assert_int_not_equal(live(&c, "/h")->archive, 0);
		content_release(&c);
		diag_release(&d);
		layout_free(l);
	}
}

static void test_gather_archive_errors(void **state)
{
	static const struct {
		const char *name, *make, *opts, *needle;
	} cases[] = {
		{ "esc.tar", "echo x > f", "-s ',f,../../etc/passwd,'",
		  "in/esc.tar: ../../etc/passwd: the entry's path leaves the partition" },
		{ "abs.tar", "ln -s /etc/shadow s", "",
		  "in/abs.tar: s: a symbolic link to /etc/shadow, outside the archive" },
		{ "dang.tar", "ln -s nowhere s", "",
		  "in/dang.tar: s: a dangling link (to nowhere" },
		{ "loop.tar", "ln -s b a && ln -s a b", "", ": a loop of symbolic links" },
		{ "chain.tar", "touch l46 && for i in $(seq 0 45); do ln -s l$((i + 1)) l$i; done",
		  "", "in/chain.tar: l0: a loop of symbolic links, or more than 40 in a row" },
		{ "up.tar", "mkdir d && ln -s ../../x d/up", "",
		  "in/up.tar: d/up: a symbolic link to ../../x, outside the tree" },
		{ "dirl.tar", "mkdir d && ln -s .. d/up", "",
		  "in/dirl.tar: d/up: a symbolic link loop (it leads to the top of the tree" },
		{ "dloop.tar", "mkdir -p d/e && ln -s .. d/e/up", "",
		  "in/dloop.tar: d/e/up: a symbolic link loop (it leads to /d, which holds it)" },
		{ "fifo.tar", "mkfifo f", "",
		  "in/fifo.tar: f: a fifo cannot go on a FAT file system" },
		{ "case.tar", "touch A a", "",
		  "in/case.tar: A and in/case.tar: a: FAT sees the two names as equal" },
		{ "empty.tar", "touch x", "--exclude x", "in/empty.tar: an empty archive" },
		{ "top.tar", "ln -s x l", "-s ',^l$,.,'",
		  "in/top.tar: .: not a folder, where the tree's top folder goes" },
	};
	char layout[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		make_tar(cases[i].name, cases[i].make, cases[i].opts);
		snprintf(layout, sizeof(layout),
			 "partition p { type = fat\n tree \"/\" { from = \"%s\" } }",
			 cases[i].name);
		expect_gather_error(layout, cases[i].needle);
	}
}

static void test_gather_mtime_source(void **state)
{
	struct content c = { 0 };
	struct diag d;

	(void)state;
	assert_int_equal(system("mkdir -p in/m && touch -d @1000000000 in/m/old && touch -d "
				"@2000000000 in/m/new"),
			 0);
	static const char *const in_dir[] = { "in" };
	struct layout_options o = { .input_dirs = in_dir,
				    .n_input_dirs = 1,
				    .source_date_epoch = "1500000000" };
	struct layout *l = NULL;
	diag_init(&d);
	assert_int_equal(layout_load_text("t.layout",
					  "image { mtime = source }\npartition p { type = fat\n"
					  " tree \"/\" { from = \"m\" } }",
					  &o, &d, &l),
			 0);
	assert_int_equal(content_gather(l, &l->parts[0], &c, &d), 0);
	assert_int_equal(live(&c, "/old")->mtime, 1000000000);
	assert_int_equal(live(&c, "/new")->mtime, 1500000000); /* clamped to SOURCE_DATE_EPOCH */
	content_release(&c);
	diag_release(&d);
	layout_free(l);
}

/* The judge that FAT and ext4 trees share: names at any depth, paths from the top (a
 * leading '/' anchors there), folders only with a trailing '/', a folder above counts,
 * exclude wins, hits count matches of the path itself only. */
static void test_filter_takes(void **state)
{
	(void)state;
	char *inc[] = { "*.so*", "/etc/", "usr/lib/x" }, *exc[] = { "*.a", "include/", "none" };
	struct layout_entry e = { .include = inc,
				  .n_include = 3,
				  .exclude = exc,
				  .n_exclude = 3,
				  .from = "root" };
	struct content_filter f;
	struct diag d;

	assert_int_equal(content_filter_init(&f, &e), 0);
	assert_true(content_filter_takes(&f, "usr/lib/libc.so.6", false)); /* a name, deep */
	assert_true(content_filter_takes(&f, "etc/ssl/ca.pem", false));    /* under etc/ */
	assert_false(content_filter_takes(&f, "etc", false));              /* a file named etc */
	assert_true(content_filter_takes(&f, "etc", true));
	assert_false(content_filter_takes(&f, "opt/etc/x", false)); /* '/' anchors at the top */
	assert_true(content_filter_takes(&f, "usr/lib/x", false));
	assert_false(content_filter_takes(&f, "usr/lib/xy", false)); /* the whole path */
	assert_false(content_filter_takes(&f, "usr/lib", true));     /* holds x: the caller's */
	assert_false(content_filter_takes(&f, "etc/libc.a", false)); /* exclude wins */
	assert_false(content_filter_takes(&f, "etc/include/lib.so", false)); /* a folder above */
	assert_false(content_filter_takes(&f, "etc/include", true));
	assert_true(content_filter_takes(&f, "etc/include", false)); /* a file: include/ misses */
	assert_int_equal(f.include_hits[0], 2);
	assert_int_equal(f.include_hits[1], 1); /* "etc" as a folder; not the paths below it */
	assert_int_equal(f.include_hits[2], 1);
	assert_int_equal(f.exclude_hits[0], 1);
	assert_int_equal(f.exclude_hits[1], 1);
	assert_int_equal(f.exclude_hits[2], 0);
	diag_init(&d);
	content_filter_warn(&f, "card.layout:3: partition 'r': tree '/': ", &d);
	assert_int_equal(d.n, 1);
	assert_string_equal(d.msgs[0].text, "card.layout:3: partition 'r': tree '/': exclude "
					    "pattern 'none' matches nothing in root");
	diag_release(&d);
	content_filter_release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ids_follow_the_documented_rule),
		cmocka_unit_test(test_gpt_crc32),
		cmocka_unit_test(test_gather_empty_folder),
		cmocka_unit_test(test_gather_overlay),
		cmocka_unit_test(test_gather_exfat),
		cmocka_unit_test(test_gather_case_of_folders),
		cmocka_unit_test(test_gather_errors),
		cmocka_unit_test(test_gather_filtered_host_paths),
		cmocka_unit_test(test_gather_links),
		cmocka_unit_test(test_gather_archive),
		cmocka_unit_test(test_gather_archive_errors),
		cmocka_unit_test(test_gather_hardlink_to_stripped),
		cmocka_unit_test(test_gather_mtime_source),
		cmocka_unit_test(test_filter_takes),
	};
	return cmocka_run_group_tests_name("mkimage", tests, NULL, NULL);
}
