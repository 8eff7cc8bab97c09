/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for mkimage/importer/wks*: wic kickstart lines read as wic's parser reads them,
 * placed by wic's rules (the expected sectors are worked out by hand from oe-core's
 * scripts/lib/wic/plugins/imager/direct.py, layout_partitions(), as each test says), and
 * written as a layout.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "mkimage/importer/wks.h"

/* @text parsed and placed into @w; the return code of the first step that failed. */
static int load(const char *text, const struct import_options *o, struct wks *w, struct diag *d)
{
	int rc = import_wks_parse("t.wks", text, o, w, d);

	return rc ? rc : import_wks_place(w, d);
}

/* The layout of @text (a new string), or NULL with the error in @d. */
static char *layout_of(const char *text, struct diag *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc = import_wks_text("t.wks", text, NULL, f, d);

	fclose(f);
	if (rc) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* A .wks text and the error it must give. */
struct refusal {
	const char *text, *message;
};

/* The steps a text goes through: read, read and placed, and written as a layout. */
static int step_parse(const char *text, struct diag *d)
{
	struct wks w = { 0 };
	int rc = import_wks_parse("t.wks", text, NULL, &w, d);

	import_wks_release(&w);
	return rc;
}

static int step_place(const char *text, struct diag *d)
{
	struct wks w = { 0 };
	int rc = load(text, NULL, &w, d);

	import_wks_release(&w);
	return rc;
}

static int step_write(const char *text, struct diag *d)
{
	char *l = layout_of(text, d);

	free(l);
	return l ? 0 : -EINVAL;
}

/* Each of the @n texts of @cases fails @step with -EINVAL and one error holding its message. */
static void assert_refused(int (*step)(const char *, struct diag *), const struct refusal *cases,
			   size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct diag d;
		diag_init(&d);
		assert_int_equal(step(cases[i].text, &d), -EINVAL);
		assert_int_equal(d.errors, 1);
		if (!strstr(d.msgs[0].text, cases[i].message))
			fail_msg("'%s' gave '%s'", cases[i].text, d.msgs[0].text);
		diag_release(&d);
	}
}

/* @l holds each of the @n lines of @want (as parts of its lines). */
static void assert_holds(const char *l, const char *const *want, size_t n)
{
	assert_non_null(l);
	for (size_t i = 0; i < n; i++)
		if (!strstr(l, want[i]))
			fail_msg("the layout lacks '%s':\n%s", want[i], l);
}

#define HOLDS(l, ...)                                                       \
	do {                                                                \
		static const char *const want_[] = { __VA_ARGS__ };         \
		assert_holds((l), want_, sizeof(want_) / sizeof(want_[0])); \
	} while (0)

/* Sizes: --size and --fixed-size in MiB without a unit, K M G; --offset in KiB without a unit
 * and s for sectors; the defaults of a partition sized by its files (10 MiB, 1.3). */
static void test_parse_sizes(void **state)
{
	struct wks w = { 0 };
	struct diag d;

	(void)state;
	diag_init(&d);
	assert_int_equal(import_wks_parse("t.wks",
					  "part / --size 16\n"
					  "part /a --fixed-size=2G --offset 8\n"
					  "part /b --size 100K --offset 2048s --extra-space 0\n",
					  NULL, &w, &d),
			 0);
	assert_int_equal(w.n_parts, 3);
	assert_int_equal(w.parts[0].size_kib, 16 * 1024);
	assert_int_equal(w.parts[0].extra_kib, WKS_DEFAULT_EXTRA_KIB);
	assert_true(w.parts[0].factor == WKS_DEFAULT_FACTOR);
	assert_string_equal(w.parts[0].fstype, "vfat");
	assert_string_equal(w.parts[0].disk, "sda");
	assert_int_equal(w.parts[1].fixed_kib, 2 * 1024 * 1024);
	assert_int_equal(w.parts[1].offset, 8 * 1024);
	assert_true(w.parts[1].has_offset);
	assert_int_equal(w.parts[2].size_kib, 100);
	assert_int_equal(w.parts[2].offset, 2048 * 512);
	assert_int_equal(w.parts[2].extra_kib, 0);
	assert_int_equal(d.n, 0);
	import_wks_release(&w);
	diag_release(&d);
}

/* Words as a shell splits them; ${VAR} from --set, one not set kept; --exclude-path takes
 * every word up to the next option. */
static void test_parse_words(void **state)
{
	static const char *const sets[] = { "SZ=24", "NAME=boot" };
	const struct import_options o = { .sets = sets, .n_sets = 2 };
	struct wks w = { 0 };
	struct diag d;

	(void)state;
	diag_init(&d);
	assert_int_equal(import_wks_parse("t.wks",
					  "  # a comment\n\n"
					  "part /${NAME} --size ${SZ} --label 'my label' --source "
					  "rawcopy "
					  "--sourceparams=\"file=${DEPLOY}/a\\\"b.img\"\n"
					  "part / --source rootfs --exclude-path boot/ var/log "
					  "--label=r\n"
					  "bootloader --ptable gpt --diskid 0x1234\n",
					  &o, &w, &d),
			 0);
	assert_string_equal(w.parts[0].mountpoint, "/boot");
	assert_int_equal(w.parts[0].size_kib, 24 * 1024);
	assert_string_equal(w.parts[0].label, "my label");
	assert_string_equal(w.parts[0].sourceparams, "file=${DEPLOY}/a\"b.img");
	assert_int_equal(w.parts[0].line, 3);
	assert_int_equal(w.parts[1].n_exclude, 2);
	assert_string_equal(w.parts[1].exclude[1], "var/log");
	assert_string_equal(w.parts[1].label, "r");
	assert_true(w.gpt);
	assert_string_equal(w.diskid, "0x1234");
	import_wks_release(&w);
	diag_release(&d);
}

/* What wic's parser refuses is an error naming FILE:LINE. */
static void test_parse_errors(void **state)
{
	static const struct refusal cases[] = {
		{ "part / --size 16X\n", "t.wks:1: --size: invalid size '16X'" },
		{ "part / --size ${BOOT_SPACE}\n", "t.wks:1: --size: ${BOOT_SPACE} is not set" },
		{ "part / --fstype=${T}\n", "t.wks:1: --fstype: ${T} is not set" },
		{ "\npart / --bogus\n", "t.wks:2: part: unrecognized argument '--bogus'" },
		{ "part / --fixed-size 8 --extra-space 2\n", "t.wks:1: part: arguments" },
		{ "part / --size 8 --fixed-size 8\n", "not allowed with argument --size" },
		{ "part / --label \"open\n", "t.wks:1: no closing quotation" },
		{ "bootloader\nbootloader\n", "t.wks:2: more than one bootloader" },
		{ "disk /\n", "t.wks:1: invalid choice 'disk'" },
		{ "part / --fstype=zfs\n", "--fstype: invalid choice 'zfs'" },
		{ "part / --align\n", "--align: expected one argument" },
		{ "part / --overhead-factor 0.5\n", "should be at least 1" },
		{ "part / --system-id 0x100\n", "invalid system type '0x100'" },
		{ "bootloader --ptable sun\n", "invalid choice 'sun'" },
		{ "part / --mkfs-extraopts=-T\n",
		  "part --mkfs-extraopts: sdimg has no counterpart" },
		{ "include /nonexistent/x.wks.inc\n", "t.wks:1: include /nonexistent/x.wks.inc" },
	};

	(void)state;
	assert_refused(step_parse, cases, sizeof(cases) / sizeof(cases[0]));
}

/*
 * msdos, six partitions in the table: the fourth and later are logical (5, 6, 7) and each
 * first skips a sector for its EBR, then aligns. By hand: 1 sector for the MBR, 16384
 * sectors (8 MiB); 16385 up to 1024 KiB = 2048 sectors: 18432, + 32768 = 51200; + 6144 =
 * 57344, +1 = 57345, up to 4 KiB (8 sectors): 57352; + 16384 = 73736, +1: 73737; + 2048 =
 * 75785, +1, then --offset 40M: 81920; + 4096: the image ends at 86016 sectors.
 */
static void test_place_msdos_logical(void **state)
{
	static const uint64_t starts[] = { 1, 18432, 51200, 57352, 73737, 81920 };
	static const unsigned numbers[] = { 1, 2, 3, 5, 6, 7 };
	struct wks w = { 0 };
	struct diag d;

	(void)state;
	diag_init(&d);
	assert_int_equal(load("part /boot --size 8\n"
			      "part / --fstype=ext4 --fixed-size 16M --align 1024\n"
			      "part /data --fstype=none --size 3\n"
			      "part /log --fstype=ext4 --size 8 --align 4\n"
			      "part /x --fstype=none --size 1\n"
			      "part /y --fstype=none --size 2 --offset 40M\n",
			      NULL, &w, &d),
			 0);
	for (size_t i = 0; i < 6; i++) {
		assert_true(w.parts[i].start_known);
		assert_int_equal(w.parts[i].start, starts[i]);
		assert_int_equal(w.parts[i].number, numbers[i]);
		assert_int_equal(w.parts[i].logical, i >= 3);
	}
	assert_true(w.image_known);
	assert_int_equal(w.image_sectors, 86016);
	assert_string_equal(w.parts[1].name, "root");
	import_wks_release(&w);
	diag_release(&d);
}

/* gpt: the first partition after 34 sectors (then on 4 KiB: 8 sectors); one sized by its
 * files leaves what follows to sdimg's placement; the image ends 34 sectors after the last
 * partition; --no-table takes no number. */
static void test_place_gpt(void **state)
{
	struct wks w = { 0 };
	struct diag d;

	(void)state;
	diag_init(&d);
	assert_int_equal(load("bootloader --ptable gpt\n"
			      "part --fstype=none --size 1 --no-table\n"
			      "part /boot --fixed-size 16 --align 4\n"
			      "part /boot --fstype=none --size 1\n",
			      NULL, &w, &d),
			 0);
	assert_int_equal(w.parts[0].start, 34);
	assert_int_equal(w.parts[0].number, 0);
	assert_int_equal(w.parts[1].start, 2088); /* 34 + 2048, up to 8 sectors */
	assert_int_equal(w.parts[1].number, 1);
	assert_int_equal(w.parts[2].start, 2088 + 32768);
	assert_string_equal(w.parts[2].name, "boot-2");
	assert_int_equal(w.image_sectors, 2088 + 32768 + 2048 + 34);
	import_wks_release(&w);
	diag_init(&d);
	assert_int_equal(load("part / --source rootfs\npart /a --fstype=none --size 1 --align 4\n",
			      NULL, &w, &d),
			 0);
	assert_false(w.parts[0].size_known);
	assert_false(w.parts[1].start_known);
	assert_false(w.image_known);
	import_wks_release(&w);
	/* files wic puts together with --size: 16 MiB x 1.3 = 21299 KiB, pinned; rawcopy --size */
	assert_int_equal(load("part /boot --source bootimg-partition --size 16\n"
			      "part / --source rawcopy --sourceparams=file=a --size 2\n",
			      NULL, &w, &d),
			 0);
	assert_int_equal(w.parts[0].sizing, WKS_FACTOR);
	assert_int_equal(w.parts[0].size, 42598);
	assert_int_equal(w.parts[1].sizing, WKS_AT_LEAST);
	assert_int_equal(w.parts[1].start, 1 + 42598);
	assert_int_equal(w.image_sectors, 1 + 42598 + 4096);
	import_wks_release(&w);
	diag_release(&d);
}

/* Placement errors: an --offset behind the partitions before it (which end at sector 2049:
 * 1, then 1 MiB); partitions on two disks. */
static void test_place_errors(void **state)
{
	static const struct refusal cases[] = {
		{ "part / --size 1\npart /a --size 1 --offset 512K\n",
		  "t.wks:2: part --offset 524288: the partitions before end at 1049088" },
		{ "part / --size 1\npart /a --size 1 --offset 2048s\n",
		  "t.wks:2: part --offset 1048576" },
		{ "part / --size 1\npart /a --size 1 --ondisk sdb\n", "one image per disk" },
	};

	(void)state;
	assert_refused(step_place, cases, sizeof(cases) / sizeof(cases[0]));
}

/* The layout pins wic's choices: --size of a partition built from files is --size x the
 * overhead factor (16 MiB x 1.3 = 21299 KiB), the MBR type parted gives vfat (0x0c),
 * the FAT label mkdosfs gets (boot), the GPT names parted gives (primary). */
static void test_write(void **state)
{
	struct diag d;
	char *l;

	(void)state;
	diag_init(&d);
	l = layout_of("part /boot --source bootimg-partition --size 16 --active --align 4\n"
		      "part / --source rootfs --fstype=ext4 --exclude-path boot/ /home\n",
		      &d);
	HOLDS(l, "    table = mbr", "    size = 21299K", "    mbr-type = 0x0c",
	      "    bootable = true", "        label = \"boot\"", "include(\"${BOOT_FILES}\")",
	      "    size = auto", "    extra = 10M", "exclude = \"boot/*, home/\"");
	free(l);
	l = layout_of("part / --source rootfs --fsuuid 0xab12 --exclude-path 'a\"b,c/d'\n", &d);
	HOLDS(l, "volume-id = 0x0000ab12", "exclude = \"a\\\"b[,]c/d\"");
	assert_int_equal(d.errors, 0);
	free(l);
	l = layout_of("bootloader --ptable gpt --diskid 01234567-89ab-4def-8123-456789abcdef\n"
		      "part / --fstype=ext4 --fixed-size 8 --part-type EF00 --uuid "
		      "11111111-2222-4333-8444-555555555555\n"
		      "part /b --fstype=none --size 1 --part-name data\n",
		      &d);
	HOLDS(l, "    gpt-type = esp", "    label = \"primary\"", "    label = \"data\"",
	      "    uuid = 11111111-2222-4333-8444-555555555555",
	      "    disk-id = 01234567-89ab-4def-8123-456789abcdef");
	/* 34 + 16384 + 2048 + 34 sectors */
	HOLDS(l, "    size = 9472000");
	assert_null(strstr(l, "first usable LBA"));
	free(l);
	/* a loader out of the table in front: sdimg's first usable LBA is past it, said so */
	l = layout_of("bootloader --ptable gpt\n"
		      "part --source rawcopy --sourceparams=file=u.bin --no-table --offset 32K\n"
		      "part / --fstype=ext4 --fixed-size 8\n",
		      &d);
	HOLDS(l, "first usable LBA");
	assert_non_null(strstr(d.msgs[d.n - 1].text, "first usable LBA is past the loaders"));
	free(l);
	diag_release(&d);
}

/* What sdimg cannot give is an error naming the line and the construct. */
static void test_write_refusals(void **state)
{
	static const struct refusal cases[] = {
		{ "part /boot --source bootimg_efi\n", "t.wks:1: --source bootimg_efi: this wic" },
		{ "part swap --fstype=swap --size 8\n", "t.wks:1: --fstype=swap: sdimg writes no" },
		{ "part / --part-type 8300 --size 8\n",
		  "wic refuses a GPT type on an msdos table" },
		{ "part / --source rootfs --fstype=btrfs\n",
		  "builds ext4 and FAT file systems only" },
		{ "part / --source rawcopy --size 8\n", "--sourceparams has no file=" },
		{ "part / --source rootfs\npart /u --source rawcopy --sourceparams=file=u\n",
		  "t.wks:2: --source rawcopy without --size: after a partition sized by its "
		  "files" },
		{ "part / --size 0\n", "has a size of zero" },
		{ "bootloader --ptable gpt\npart / --size 1 --part-type 1234\n",
		  "t.wks:2: --part-type: an sgdisk type code" },
		{ "bootloader --diskid zz\npart / --size 1\n", "t.wks:1: bootloader --diskid zz" },
		{ "bootloader --ptable gpt --diskid 1\npart / --size 1\n",
		  "--diskid 1: not a GUID" },
		{ "bootloader --ptable gpt\npart / --size 1 --uuid 'x } y {'\n",
		  "--uuid: not a GUID" },
		{ "part / --size 1 --fsuuid 0x123456789\n", "--fsuuid: not a FAT volume serial" },
		{ "part / --size 1 --fstype=ext4 --fsuuid 1234\n", "--fsuuid: not a UUID" },
		{ "part / --source rawcopy --sourceparams=file=a,skip=1K\n", "skip: not a number" },
	};

	(void)state;
	assert_refused(step_write, cases, sizeof(cases) / sizeof(cases[0]));
}

/* --image DISK takes the partitions --ondisk DISK, placed as the first of their image. */
static void test_image_per_disk(void **state)
{
	static const char text[] = "part / --size 1 --ondisk sda\n"
				   "part /b --fstype=none --size 2 --ondisk sdb\n";
	struct import_options o = { .image = "sdb" };
	char *l = NULL;
	size_t len = 0;
	struct diag d;

	(void)state;
	diag_init(&d);
	FILE *f = open_memstream(&l, &len);
	assert_int_equal(import_wks_text("t.wks", text, &o, f, &d), 0);
	fclose(f);
	HOLDS(l, "partition b {", "# wic: partition 1, sector 1 ", "    size = 2M");
	assert_null(strstr(l, "partition root"));
	free(l);
	o.image = "sdc";
	f = open_memstream(&l, &len);
	assert_int_equal(import_wks_text("t.wks", text, &o, f, &d), -EINVAL);
	fclose(f);
	free(l);
	assert_string_equal(d.msgs[d.n - 1].text,
			    "t.wks: --image sdc: no part line is --ondisk sdc");
	diag_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_sizes),    cmocka_unit_test(test_parse_words),
		cmocka_unit_test(test_parse_errors),   cmocka_unit_test(test_place_msdos_logical),
		cmocka_unit_test(test_place_gpt),      cmocka_unit_test(test_place_errors),
		cmocka_unit_test(test_write),          cmocka_unit_test(test_write_refusals),
		cmocka_unit_test(test_image_per_disk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
