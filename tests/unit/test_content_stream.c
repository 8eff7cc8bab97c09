/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of what mkimage/contents/ gives every file system: the order a host folder's
 * entries come in, the include and exclude judge (before an entry is examined), strip and
 * the normalised archive path, the limits, the one rule of stored times, and what FAT
 * refuses to hold.
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
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "mkimage/contents/contents_priv.h"
#include "layout_test_util.h"

static void sh(const char *cmd)
{
	assert_int_equal(system(cmd), 0);
}

/* The live paths of @c in the order they were added, "a;b;" in @out. */
static void paths_of(const struct content *c, char *out, size_t n)
{
	out[0] = '\0';
	for (size_t i = 0; i < c->n; i++)
		if (!c->nodes[i].removed) {
			strncat(out, c->nodes[i].path, n - strlen(out) - 1);
			strncat(out, ";", n - strlen(out) - 1);
		}
}

/* Gathers the one partition of @text into @c: its return, the messages in @d. */
static int gather(const char *text, struct content *c, struct diag *d)
{
	struct layout *l = load_in(text);
	int rc;

	*c = (struct content){ 0 };
	diag_init(d);
	rc = content_gather(l, &l->parts[0], c, d);
	layout_free(l);
	return rc;
}

/* The tree "/" of folder @from with the filter keys @filters gathers without a message, to
 * the live paths @want ("a;b;" in the order they were added). */
static void expect_paths(const char *from, const char *filters, const char *want)
{
	struct content c;
	struct diag d;
	char text[512], got[1024];

	snprintf(text, sizeof(text),
		 "partition p { type = fat\n tree \"/\" { from = \"%s\"\n %s } }", from, filters);
	assert_int_equal(gather(text, &c, &d), 0);
	if (d.n)
		diag_print(&d, stderr, "  diag");
	assert_int_equal(d.n, 0);
	paths_of(&c, got, sizeof(got));
	assert_string_equal(got, want);
	content_release(&c);
	diag_release(&d);
}

/* The stored-time rule: fixed gives the timestamp, source the entry's own time (with its
 * nanoseconds), clamped to SOURCE_DATE_EPOCH when that set the timestamp; no time of its
 * own (a layout's text) is the timestamp. */
static void test_mtime_rule(void **state)
{
	struct layout_image im = { .timestamp = 1500000000, .mtime = LAYOUT_MTIME_FIXED };
	struct timespec old = { 1000000000, 123 }, at = { 1500000000, 7 }, late = { 2000000000, 9 };
	uint32_t ns = 42;

	(void)state;
	assert_int_equal(content_mtime(&im, &old, &ns), 1500000000);
	assert_int_equal(ns, 0);
	im.mtime = LAYOUT_MTIME_SOURCE;
	assert_int_equal(content_mtime(&im, &old, &ns), 1000000000);
	assert_int_equal(ns, 123);
	assert_int_equal(content_mtime(&im, &late, &ns), 2000000000); /* no epoch: kept */
	assert_int_equal(ns, 9);
	assert_int_equal(content_mtime(&im, NULL, &ns), 1500000000);
	assert_int_equal(ns, 0);
	im.timestamp_from_env = true;
	assert_int_equal(content_mtime(&im, &old, &ns), 1000000000);
	assert_int_equal(ns, 123);
	assert_int_equal(content_mtime(&im, &late, &ns), 1500000000); /* clamped */
	assert_int_equal(ns, 0);
	assert_int_equal(content_mtime(&im, &at, &ns), 1500000000); /* at it: clamped too */
	assert_int_equal(ns, 0);
}

/* An archive entry's path as every file system takes it, and strip. */
static void test_norm_path_and_strip(void **state)
{
	static const struct {
		const char *raw;
		unsigned strip;
		int rc;
		const char *want;
	} cases[] = {
		{ "./a/", 0, 0, "a" },
		{ "/a", 0, 0, "a" },
		{ "a//b/..", 0, 0, "a" },
		{ "a/./b/", 0, 0, "a/b" },
		{ ".", 0, 0, "" },
		{ "top/x/y", 1, 0, "x/y" },
		{ "top/x/y", 2, 0, "y" },
		{ "top/", 1, 1, NULL },
		{ "top/x", 2, 1, NULL },
		{ "./top/../x/y", 1, 0, "y" },
		{ "../etc", 0, -EINVAL, NULL },
		{ "a/../../b", 0, -EINVAL, NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out = NULL;
		int rc = content_archive_norm_path(cases[i].raw, cases[i].strip, &out);
		if (rc != cases[i].rc)
			fprintf(stderr, "  '%s' strip %u: %d\n", cases[i].raw, cases[i].strip, rc);
		assert_int_equal(rc, cases[i].rc);
		if (cases[i].want)
			assert_string_equal(out, cases[i].want);
		free(out);
	}
}

/* What may be left out before it is looked at: an entry excluded whatever it turns out to be
 * (as a file, or by a folder above it); a pattern for folders only does not decide a link
 * not yet followed. Hits count only for what is left out here. */
static void test_filter_drops(void **state)
{
	char *inc[] = { "*.dtb" }, *exc[] = { "*.tmp", "logs/", "cache" };
	struct layout_entry e = { .include = inc,
				  .n_include = 1,
				  .exclude = exc,
				  .n_exclude = 3,
				  .from = "fw" };
	struct content_filter f;

	(void)state;
	assert_int_equal(content_filter_init(&f, &e), 0);
	assert_true(content_filter_drops(&f, "a/b.tmp"));
	assert_true(content_filter_drops(&f, "cache"));
	assert_true(content_filter_drops(&f, "logs/x.dtb")); /* a folder above */
	assert_false(content_filter_drops(&f, "logs"));      /* may be a file: not decided */
	assert_false(content_filter_drops(&f, "boot.dtb"));
	assert_false(content_filter_drops(&f, "overlays")); /* include may take what it holds */
	assert_int_equal(f.exclude_hits[0], 1);
	assert_int_equal(f.exclude_hits[1], 0); /* judged as a file: logs/ matched no folder */
	assert_int_equal(f.exclude_hits[2], 1);
	assert_int_equal(f.include_hits[0], 1); /* logs/x.dtb, judged when it was left out */
	content_filter_release(&f);
}

/* A folder that exclude matches (as a folder, or a folder above it) is left out with all it
 * holds and never opened; one that only include does not take may still hold what it takes. */
static void test_filter_prunes(void **state)
{
	char *inc[] = { "*.dtb" }, *exc[] = { "logs/", "cache" };
	struct layout_entry e = { .include = inc,
				  .n_include = 1,
				  .exclude = exc,
				  .n_exclude = 2,
				  .from = "fw" };
	struct content_filter f;

	(void)state;
	assert_int_equal(content_filter_init(&f, &e), 0);
	assert_true(content_filter_prunes(&f, "logs")); /* a pattern for folders */
	assert_true(content_filter_prunes(&f, "a/cache"));
	assert_true(content_filter_prunes(&f, "cache/deep")); /* a folder above */
	assert_false(content_filter_prunes(&f, "overlays"));  /* include may take what it holds */
	assert_false(content_filter_prunes(&f, "logsx"));
	assert_int_equal(f.exclude_hits[0], 1);
	assert_int_equal(f.exclude_hits[1], 1);
	content_filter_release(&f);
}

/* A host folder comes parents first, each folder's names in byte order, whatever order the
 * folder lists them in: created in reverse order here. */
static void test_stream_order(void **state)
{
	struct content c;
	struct diag d;
	char got[1024];

	(void)state;
	sh("mkdir -p in/o/b/z in/o/b/a && touch in/o/b/z/2 in/o/b/z/1 in/o/b/y in/o/a in/o/Z "
	   "in/o/_");
	assert_int_equal(gather("partition p { type = fat\n tree \"/t\" { from = \"o\" } }", &c,
				&d),
			 0);
	paths_of(&c, got, sizeof(got));
	assert_string_equal(got, "/t;/t/Z;/t/_;/t/a;/t/b;/t/b/a;/t/b/y;/t/b/z;/t/b/z/1;/t/b/z/2;");
	content_release(&c);
	diag_release(&d);
}

/* An entry that include or exclude leaves out is never followed nor checked: an excluded
 * dangling link, link loop, link out of the tree, fifo or device node is no error, and the
 * patterns still count what they left out (no warning). What stays is checked as before. */
static void test_filter_before_examine(void **state)
{
	struct content c;
	struct diag d;

	(void)state;
	sh("mkdir -p in/f/sub in/f/logs && echo k > in/f/kernel.img && echo d > in/f/sub/a.dtb && "
	   "ln -s /nowhere in/f/dangling.tmp && ln -s loop in/f/loop && ln -s ../.. in/f/sub/up && "
	   "ln -s ../../etc in/f/out && mkfifo in/f/logs/pipe in/f/sub/pipe && "
	   "ln -s sub in/f/lsub");
	expect_paths("f", "exclude = \"*.tmp, loop, up, out, logs/, pipe\"",
		     "/kernel.img;/lsub;/lsub/a.dtb;/sub;/sub/a.dtb;");
	/* include alone leaves out a fifo it does not name unchecked; a link that may lead to a
	 * folder is followed, and judged as that folder */
	expect_paths("f", "include = \"*.dtb\" exclude = \"*.tmp, loop, up, out\"",
		     "/lsub;/lsub/a.dtb;/sub;/sub/a.dtb;");

	/* kept, they are refused as before, each once */
	assert_int_equal(gather("partition p { type = fat\n tree \"/\" { from = \"f\"\n exclude = "
				"\"loop, up, out, sub/pipe, lsub\" } }",
				&c, &d),
			 -EINVAL);
	assert_int_equal(d.n, 2);
	assert_true(diag_has(&d, "in/f/dangling.tmp: dangling symbolic link"));
	assert_true(diag_has(&d, "in/f/logs/pipe: a fifo cannot go on a FAT file system"));
	content_release(&c);
	diag_release(&d);
}

/* What FAT cannot hold, from a host folder: fifos, device nodes, dangling links; and a link
 * leaving the tree under links = inside. */
static void test_fat_refusals(void **state)
{
	static const struct {
		const char *make, *needle;
	} cases[] = {
		{ "mkfifo in/r1/p", "in/r1/p: a fifo cannot go on a FAT file system" },
		{ "mknod in/r2/null c 1 3",
		  "in/r2/null: a device node cannot go on a FAT file system" },
		{ "ln -s gone in/r3/l", "in/r3/l: dangling symbolic link" },
		{ "ln -s ../r1 in/r4/l", "in/r4/l: a symbolic link to ../r1, outside the tree" },
	};
	char cmd[256], layout[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct content c;
		struct diag d;
		snprintf(cmd, sizeof(cmd), "mkdir -p in/r%zu && %s", i + 1, cases[i].make);
		if (system(cmd) != 0) /* mknod needs root (CAP_MKNOD) */
			continue;
		snprintf(layout, sizeof(layout),
			 "partition p { type = fat\n tree \"/\" { from = \"r%zu\" } }", i + 1);
		assert_int_equal(gather(layout, &c, &d), -EINVAL);
		if (!diag_has(&d, cases[i].needle))
			diag_print(&d, stderr, "  diag");
		assert_true(diag_has(&d, cases[i].needle));
		content_release(&c);
		diag_release(&d);
	}
}

/* The limits every source has: a path at most CONTENT_MAX_DEPTH names deep, and the copies a
 * tree's links make bounded by what it holds. */
static void test_limits(void **state)
{
	struct content_copies cc = { .held_nodes = 10, .held_bytes = 100 };
	char cmd[4096] = "mkdir -p in/deep", *p = cmd + strlen(cmd);
	struct content c;
	struct diag d;
	int rc = 0;

	(void)state;
	for (int i = 0; i < CONTENT_MAX_DEPTH; i++)
		p += sprintf(p, "/d");
	sh(cmd);
	assert_int_equal(gather("partition p { type = fat\n tree \"/\" { from = \"deep\" } }", &c,
				&d),
			 0);
	content_release(&c);
	diag_release(&d);
	assert_int_equal(gather("partition p { type = fat\n tree \"/x\" { from = \"deep\" } }", &c,
				&d),
			 -EINVAL);
	assert_true(diag_has(&d, "names deep in the partition; sdimg takes at most 64"));
	content_release(&c);
	diag_release(&d);

	diag_init(&d);
	for (uint64_t i = 0; rc == 0 && i < CONTENT_COPIES_FACTOR * 10 + CONTENT_COPIES_NODES; i++)
		rc = content_count_copy(&cc, 0, "src", &d);
	assert_int_equal(rc, 0);
	assert_int_equal(content_count_copy(&cc, 0, "src", &d), -EINVAL);
	assert_true(diag_has(&d, "src: its symbolic links copy more than 10040 entries"));
	diag_release(&d);
	cc = (struct content_copies){ .held_bytes = 100 };
	diag_init(&d);
	assert_int_equal(content_count_copy(&cc, CONTENT_COPIES_BYTES + 400, "src", &d), 0);
	assert_int_equal(content_count_copy(&cc, 1, "src", &d), -EINVAL);
	diag_release(&d);
}

/* What a walk met, as "F name" (a folder), "E name" (anything else), "/" (a folder done),
 * with "-" after what the filters leave out. */
struct walk_log {
	char text[2048];
	int open_folders;
	int stop_after; /* entries before stop() says stop (0: never) */
	int entries;
};

static void log_entry(struct walk_log *w, char kind, const struct content_walk_entry *e)
{
	size_t n = strlen(w->text);

	snprintf(w->text + n, sizeof(w->text) - n, "%c %s%s;", kind, e->name, e->takes ? "" : "-");
}

static int log_folder(void *ctx, void *up, const struct content_walk_entry *e, int fd, void **ret)
{
	struct walk_log *w = ctx;

	(void)up;
	assert_true(fd >= 0 && S_ISDIR(e->st->st_mode));
	log_entry(w, 'F', e);
	w->open_folders++;
	*ret = w;
	return 0;
}

static void log_folder_done(void *ctx, void *folder)
{
	struct walk_log *w = ctx;

	assert_ptr_equal(folder, w);
	strncat(w->text, "/;", sizeof(w->text) - strlen(w->text) - 1);
	w->open_folders--;
}

static int log_other(void *ctx, void *folder, const struct content_walk_entry *e)
{
	struct walk_log *w = ctx;

	(void)folder;
	log_entry(w, S_ISLNK(e->st->st_mode) ? 'L' : 'E', e);
	return 0;
}

static bool log_stops(void *ctx)
{
	struct walk_log *w = ctx;

	return w->stop_after && ++w->entries >= w->stop_after;
}

/* A file system that holds links and special files as they are. */
static const struct content_caps keep_all = { .name = "keep", .links = true, .specials = true };

static const struct content_walk_ops log_ops = {
	.folder = log_folder,
	.folder_done = log_folder_done,
	.entry = log_other,
	.stop = log_stops,
	.caps = &keep_all,
	.sees_left_out = true,
};

/* Walks in/@from with @f (may be NULL) into @w, for a file system that holds @caps: the
 * walk's return. */
static int walk_caps(const char *from, struct content_filter *f, struct walk_log *w,
		     const struct content_caps *caps, struct diag *d)
{
	struct content_walk_ops ops = log_ops;
	char host[64];

	ops.caps = caps;
	snprintf(host, sizeof(host), "in/%s", from);
	int fd = open(host, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	return content_walk_host(fd, host, LAYOUT_LINKS_INSIDE, w, f, &ops, w, d);
}

static int walk_logged(const char *from, struct content_filter *f, struct walk_log *w,
		       struct diag *d)
{
	return walk_caps(from, f, w, &keep_all, d);
}

/* The walk of file systems that keep what they find: names in byte order, a folder before
 * what it holds, links not followed (a dangling one is just a link), the filters' verdict on
 * each entry by its own name, a folder left out walked all the same; stop() ends it. */
static void test_walk_host(void **state)
{
	char *exc[] = { "*.tmp", "cache/" };
	struct layout_entry e = { .exclude = exc, .n_exclude = 2, .from = "w" };
	struct content_filter f;
	struct walk_log w = { .text = "" };
	struct diag d;

	(void)state;
	sh("mkdir -p in/w/b/c in/w/cache && touch in/w/b/z in/w/b/a.tmp in/w/a in/w/Z "
	   "in/w/cache/x && ln -s /nowhere in/w/b/c/dangling && ln -s b in/w/lb");
	diag_init(&d);
	assert_int_equal(walk_logged("w", NULL, &w, &d), 0);
	assert_string_equal(w.text,
			    "E Z;E a;F b;E a.tmp;F c;L dangling;/;E z;/;F cache;E x;/;L lb;");
	assert_int_equal(w.open_folders, 0);

	assert_int_equal(content_filter_init(&f, &e), 0);
	w = (struct walk_log){ .text = "" };
	assert_int_equal(walk_logged("w", &f, &w, &d), 0);
	assert_string_equal(w.text,
			    "E Z;E a;F b;E a.tmp-;F c;L dangling;/;E z;/;F cache-;E x-;/;L lb;");
	assert_int_equal(f.exclude_hits[0], 1);
	assert_int_equal(f.exclude_hits[1], 1);
	content_filter_release(&f);

	w = (struct walk_log){ .text = "", .stop_after = 3 };
	assert_int_equal(walk_logged("w", NULL, &w, &d), -EINTR);
	assert_int_equal(w.open_folders, 0);
	assert_int_equal(d.n, 0);

	/* folders nested CONTENT_MAX_DEPTH - 1 deep below the top are walked; one more is an
	 * error (with the top, a path of more than CONTENT_MAX_DEPTH folders) */
	w = (struct walk_log){ .text = "" };
	sh("mkdir -p in/deep2/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/"
	   "d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d");
	assert_int_equal(walk_logged("deep2", NULL, &w, &d), 0);
	sh("mkdir -p in/deep2/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/"
	   "d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d");
	w = (struct walk_log){ .text = "" };
	assert_int_equal(walk_logged("deep2", NULL, &w, &d), -EINVAL);
	assert_true(diag_has(&d, "/d: more than 64 folders deep"));
	assert_int_equal(w.open_folders, 0);
	diag_release(&d);
}

/* Walks in/@from as FAT's walk does (links followed as @links says, a model kept, what the
 * filters leave out never examined) into @w: the walk's return. */
static int walk_following(const char *from, enum layout_links links, struct content_filter *f,
			  struct walk_log *w, struct diag *d)
{
	struct content_walk_ops ops = log_ops;
	char host[64];

	ops.follows_links = true;
	ops.sees_left_out = false;
	ops.keeps_model = true;
	snprintf(host, sizeof(host), "in/%s", from);
	int fd = open(host, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	return content_walk_host(fd, host, links, w, f, &ops, w, d);
}

/* The walk of a file system without links: a link is followed and given as what it leads
 * to, judged as that; an excluded dangling link is never looked at and a folder exclude
 * drops never opened; a loop is refused once for every path that reaches it; `links =
 * refuse` refuses a link the filters keep. */
static void test_walk_follows(void **state)
{
	char *exc[] = { "*.tmp", "cache" };
	struct layout_entry e = { .exclude = exc, .n_exclude = 2, .from = "fl" };
	struct content_filter f;
	struct walk_log w = { .text = "" };
	struct diag d;

	(void)state;
	sh("mkdir -p in/fl/real in/fl/cache && touch in/fl/a in/fl/real/x in/fl/cache/y && "
	   "ln -s /nowhere in/fl/gone.tmp && ln -s real in/fl/lr && ln -s ../../fl/a "
	   "in/fl/real/la");
	diag_init(&d);
	assert_int_equal(content_filter_init(&f, &e), 0);
	assert_int_equal(walk_following("fl", LAYOUT_LINKS_INSIDE, &f, &w, &d), 0);
	if (d.n)
		diag_print(&d, stderr, "  diag");
	assert_int_equal(d.n, 0);
	assert_string_equal(w.text, "E a;F lr;E la;E x;/;F real;E la;E x;/;");
	assert_int_equal(w.open_folders, 0);
	assert_int_equal(f.exclude_hits[0], 1);
	assert_int_equal(f.exclude_hits[1], 1);
	content_filter_release(&f);

	w = (struct walk_log){ .text = "" };
	assert_int_equal(walk_following("fl", LAYOUT_LINKS_REFUSE, NULL, &w, &d), -EINVAL);
	assert_true(diag_has(&d, "in/fl/gone.tmp: dangling symbolic link"));
	assert_true(diag_has(&d, "in/fl/lr: a symbolic link (to real), and links = refuse takes "
				 "none"));
	diag_release(&d);

	diag_init(&d);
	sh("ln -s .. in/fl/real/up");
	assert_int_equal(content_filter_init(&f, &e), 0);
	w = (struct walk_log){ .text = "" };
	assert_int_equal(walk_following("fl", LAYOUT_LINKS_INSIDE, &f, &w, &d), -EINVAL);
	assert_int_equal(d.n, 1);
	assert_true(diag_has(&d, "in/fl/lr/up: symbolic link loop (it leads back to a folder that "
				 "contains it) (and 1 more path to it through folder links)"));
	assert_int_equal(w.open_folders, 0);
	content_filter_release(&f);
	diag_release(&d);
}

/* What a file system holds, judged in one place: the kinds and sizes FAT refuses, with the
 * messages users see; a walk for a file system without links or special files refuses those
 * its filters keep and gives it those they leave out. */
static void test_caps(void **state)
{
	static const struct content_caps no_links = { .name = "plain", .specials = true };
	char *exc[] = { "skip" };
	struct layout_entry e = { .exclude = exc, .n_exclude = 1, .from = "c" };
	struct content_filter f;
	struct walk_log w = { .text = "" };
	struct diag d;

	(void)state;
	diag_init(&d);
	assert_int_equal(content_caps_check(&content_caps_fat, S_IFREG | 0644, "h", NULL, &d), 0);
	assert_int_equal(content_caps_check(&content_caps_fat, S_IFDIR, "h", NULL, &d), 0);
	assert_int_equal(d.n, 0);
	assert_int_equal(content_caps_check(&content_caps_fat, S_IFSOCK, "h", "s", &d), -EINVAL);
	assert_true(diag_has(&d, "h: s: a socket cannot go on a FAT file system"));
	assert_int_equal(content_caps_check(&content_caps_fat, S_IFBLK, "h", NULL, &d), -EINVAL);
	assert_true(diag_has(&d, "h: a device node cannot go on a FAT file system"));
	assert_int_equal(content_caps_check(&content_caps_fat, S_IFLNK, "h", NULL, &d), -EINVAL);
	assert_true(diag_has(&d, "h: a symbolic link cannot go on a FAT file system"));
	assert_int_equal(content_caps_check(&content_caps_exfat, S_IFIFO, "h", NULL, &d), -EINVAL);
	assert_true(diag_has(&d, "h: a fifo cannot go on an exFAT file system"));
	assert_int_equal(content_caps_check(&keep_all, S_IFLNK, "h", NULL, &d), 0);
	assert_int_equal(content_caps_check(&keep_all, S_IFIFO, "h", NULL, &d), 0);
	assert_int_equal(content_caps_check_size(&content_caps_fat, UINT32_MAX, "h", "f", &d), 0);
	assert_int_equal(content_caps_check_size(&keep_all, UINT64_MAX, "h", "f", &d), 0);
	assert_int_equal(content_caps_check_size(&content_caps_fat, 1ull << 32, "h", "f", &d),
			 -EINVAL);
	assert_true(diag_has(&d, "h: f: 4294967296 bytes; a FAT file must be smaller than 4 GiB"));
	diag_release(&d);

	diag_init(&d);
	sh("mkdir -p in/c/sub && touch in/c/sub/f && ln -s sub in/c/skip && ln -s sub in/c/link");
	assert_int_equal(walk_caps("c", NULL, &w, &no_links, &d), -EINVAL);
	assert_true(diag_has(&d, "in/c/link: a symbolic link cannot go on a plain file system"));
	assert_int_equal(content_filter_init(&f, &e), 0);
	w = (struct walk_log){ .text = "" };
	sh("rm in/c/link");
	assert_int_equal(walk_caps("c", &f, &w, &no_links, &d), 0);
	assert_string_equal(w.text, "L skip-;F sub;E f;/;");
	content_filter_release(&f);
	diag_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mtime_rule),   cmocka_unit_test(test_norm_path_and_strip),
		cmocka_unit_test(test_filter_drops), cmocka_unit_test(test_filter_prunes),
		cmocka_unit_test(test_stream_order), cmocka_unit_test(test_filter_before_examine),
		cmocka_unit_test(test_fat_refusals), cmocka_unit_test(test_limits),
		cmocka_unit_test(test_walk_host),    cmocka_unit_test(test_walk_follows),
		cmocka_unit_test(test_caps),
	};
	return cmocka_run_group_tests_name("content_stream", tests, NULL, NULL);
}
