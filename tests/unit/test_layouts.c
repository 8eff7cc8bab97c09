/* SPDX-License-Identifier: MIT */
/* Unit tests of layouts/: the language, its values and defaults; errors: test_layout_errors.c */
#include "layout_test_util.h"

#include <stdlib.h>

#include "layouts/values.h"

/* ------------------------------------------------------------------ sizes and values */

static void test_size_units(void **state)
{
	static const struct {
		const char *text;
		uint64_t bytes;
	} ok[] = {
		{ "0", 0 },
		{ "512", 512 },
		{ "8K", 8192 },
		{ "4M", 4u << 20 },
		{ "2G", 2ull << 30 },
		{ "1T", 1ull << 40 },
		{ "4KiB", 4096 },
		{ "4MiB", 4u << 20 },
		{ "2GiB", 2ull << 30 },
		{ "1TiB", 1ull << 40 },
		{ "8192s", 8192ull * 512 },
		{ "1000K", 1024000 },
	};
	struct why why;
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(layout_value_size(ok[i].text, &v, &why), 0);
		assert_int_equal(v, ok[i].bytes);
	}
	static const char *const bad[] = { "64X",       "",     "K",
					   "4 M",       "4m",   "4KB",
					   "-1",        "1.5G", "99999999999999999999",
					   "20000000T", "0x10" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_not_equal(layout_value_size(bad[i], &v, &why), 0);
	layout_value_size("64X", &v, &why);
	assert_non_null(strstr(why.text, "unknown unit"));
}

static void test_numbers_bools_guids(void **state)
{
	struct why why;
	uint64_t v;
	bool b;
	struct layout_guid g;
	char text[37];

	(void)state;
	assert_int_equal(layout_value_uint("0x1234abcd", 0, UINT32_MAX, &v, &why), 0);
	assert_int_equal(v, 0x1234abcd);
	assert_int_equal(layout_value_uint("42", 0, 100, &v, &why), 0);
	assert_int_not_equal(layout_value_uint("0x100000000", 0, UINT32_MAX, &v, &why), 0);
	assert_int_not_equal(layout_value_uint("12a", 0, 100, &v, &why), 0);
	assert_int_equal(layout_value_bool("Yes", &b, &why), 0);
	assert_true(b);
	assert_int_equal(layout_value_bool("off", &b, &why), 0);
	assert_false(b);
	assert_int_not_equal(layout_value_bool("maybe", &b, &why), 0);
	assert_int_equal(layout_value_guid("0fc63daf-8483-4772-8e79-3d69d8477de4", &g, &why), 0);
	layout_guid_text(&g, text);
	assert_string_equal(text, "0FC63DAF-8483-4772-8E79-3D69D8477DE4");
	assert_int_not_equal(layout_value_guid("0fc63daf-8483-4772-8e79-3d69d8477de", &g, &why), 0);
	assert_int_not_equal(layout_value_guid("0fc63daf+8483-4772-8e79-3d69d8477de4", &g, &why),
			     0);
	assert_int_equal(layout_value_gpt_type("linux-root-arm64", &g, &why), 0);
	assert_string_equal(layout_gpt_type_alias(&g), "linux-root-arm64");
	assert_int_not_equal(layout_value_gpt_type("linux-root-m68k", &g, &why), 0);
	/* genimage's words: root-ARCH is the table's linux-root-ARCH; its near misses are told
	 * the form they were typed in, and a difference in case only is a near miss too */
	assert_int_equal(layout_value_gpt_type("root-arm64-verity", &g, &why), 0);
	assert_string_equal(layout_gpt_type_alias(&g), "linux-root-arm64-verity");
	assert_int_equal(layout_value_gpt_type("user-home", &g, &why), 0);
	assert_string_equal(layout_gpt_type_alias(&g), "linux-user-home");
	assert_int_not_equal(layout_value_gpt_type("root-arm65", &g, &why), 0);
	assert_non_null(strstr(why.text, "did you mean 'root-arm64'?"));
	assert_int_not_equal(layout_value_gpt_type("linux-root-arm65", &g, &why), 0);
	assert_non_null(strstr(why.text, "did you mean 'linux-root-arm64'?"));
	assert_int_not_equal(layout_value_gpt_type("U-BOOT-ENV", &g, &why), 0);
	assert_non_null(strstr(why.text, "did you mean 'u-boot-env'?"));
	assert_int_not_equal(layout_value_gpt_type("root-", &g, &why), 0);
	assert_int_not_equal(layout_value_gpt_type("l", &g, &why), 0);
	assert_non_null(strstr(why.text, "did you mean 'L'?"));
	assert_int_not_equal(layout_value_gpt_type("Q", &g, &why), 0);
	assert_null(strstr(why.text, "did you mean"));
	unsigned attrs;
	assert_int_equal(layout_value_attrs("readonly, hidden,system", &attrs, &why), 0);
	assert_int_equal(attrs, LAYOUT_ATTR_READONLY | LAYOUT_ATTR_HIDDEN | LAYOUT_ATTR_SYSTEM);
	assert_int_not_equal(layout_value_attrs("readonly,secret", &attrs, &why), 0);
	assert_int_equal(layout_edit_distance("bootabel", "bootable"), 2);
}

/* ------------------------------------------------------------------ defaults */

static void test_defaults(void **state)
{
	(void)state;
	struct layout *l = load_ok(
		"partition boot { type = fat\n file \"/a\" { content = \"x\" } }\n"
		"partition data { from = \"d.img\" }\n");
	assert_false(l->image.size_set);
	assert_int_equal(l->image.table, LAYOUT_TABLE_MBR);
	assert_int_equal(l->image.align, 4u << 20);
	assert_false(l->image.disk_id_set);
	assert_int_equal(strlen(l->image.seed), 64); /* SHA-256 of the file, in hex */
	assert_int_equal(l->image.timestamp, 315532800);
	assert_false(l->image.timestamp_from_env);
	assert_int_equal(l->image.mtime, LAYOUT_MTIME_FIXED);
	assert_int_equal(l->image.gpt_entries, 1024);
	assert_int_equal(l->n_parts, 2);
	const struct layout_partition *p = &l->parts[0];
	assert_int_equal(p->type, LAYOUT_PART_FAT);
	assert_false(p->start_set);
	assert_int_equal(p->size_kind, LAYOUT_SIZE_AUTO);
	assert_int_equal(p->extra, 0);
	assert_false(p->bootable);
	assert_int_equal(p->mbr_type, 0); /* follows the FAT type chosen for the size */
	assert_string_equal(layout_gpt_type_alias(&p->gpt_type), "msdata");
	assert_false(p->uuid_set);
	assert_string_equal(p->label, "boot");
	assert_true(p->in_table);
	assert_null(p->fat.label);
	assert_false(p->fat.cluster_size_set);
	assert_false(p->fat.fats_set);
	assert_int_equal(p->fat.fats, 2);
	assert_false(p->fat.data_align_set);
	assert_int_equal(p->fat.data_align, 4u << 20);
	assert_false(p->fat.sd_format);
	assert_false(p->fat.root_entries_set);
	assert_false(p->fat.reserved_set);
	assert_false(p->fat.volume_id_set);
	assert_string_equal(p->fat.oem_name, "MSWIN4.1");
	assert_int_equal(p->entries[0].attrs, 0);
	assert_false(p->entries[0].first);
	const struct layout_partition *r = &l->parts[1];
	assert_int_equal(r->type, LAYOUT_PART_RAW);
	assert_int_equal(r->mbr_type, 0x83);
	assert_string_equal(layout_gpt_type_alias(&r->gpt_type), "linux");
	layout_free(l);
}

static void test_type_defaults_and_settings(void **state)
{
	(void)state;
	struct layout *l = load_ok(
		"image { size = 1G table = gpt align = 1M disk-id = "
		"\"01234567-89ab-cdef-0123-456789abcdef\"\n"
		"  seed = \"s1\" timestamp = 1700000000 mtime = source gpt-entries = 1M }\n"
		"partition a { type = fat12 size = 8M fat { label = \"A B\" cluster-size = 2K fats "
		"= 1\n"
		"  data-align = 1M root-entries = 256 reserved = 4 volume-id = 0xdeadbeef oem-name "
		"= \"SDIMG\" } }\n"
		"partition b { type = fat16 size = 64M bootable = true uuid = "
		"\"11111111-2222-3333-4444-555555555555\"\n"
		"  label = \"Bé\" gpt-type = esp }\n"
		"partition c { type = fat32 size = 300M in-table = false }\n"
		"partition d { size = grow }\n");
	assert_true(l->image.size_set);
	assert_int_equal(l->image.size, 1ull << 30);
	assert_int_equal(l->image.table, LAYOUT_TABLE_GPT);
	assert_true(l->image.disk_id_set);
	assert_int_equal(l->image.gpt_id.b[0], 0x01);
	assert_string_equal(l->image.seed, "s1");
	assert_int_equal(l->image.timestamp, 1700000000);
	assert_int_equal(l->image.mtime, LAYOUT_MTIME_SOURCE);
	assert_int_equal(l->image.gpt_entries, 1u << 20);
	assert_int_equal(l->parts[0].mbr_type, 0x01);
	assert_string_equal(l->parts[0].fat.label, "A B");
	assert_true(l->parts[0].fat.cluster_size_set);
	assert_int_equal(l->parts[0].fat.cluster_size, 2048);
	assert_true(l->parts[0].fat.fats_set);
	assert_int_equal(l->parts[0].fat.fats, 1);
	assert_true(l->parts[0].fat.root_entries_set);
	assert_int_equal(l->parts[0].fat.root_entries, 256);
	assert_true(l->parts[0].fat.reserved_set);
	assert_int_equal(l->parts[0].fat.reserved, 4);
	assert_int_equal(l->parts[0].fat.volume_id, 0xdeadbeef);
	assert_string_equal(l->parts[0].fat.oem_name, "SDIMG");
	assert_int_equal(l->parts[1].mbr_type, 0x0e);
	assert_true(l->parts[1].bootable);
	assert_true(l->parts[1].uuid_set);
	assert_string_equal(l->parts[1].label, "Bé");
	assert_string_equal(layout_gpt_type_alias(&l->parts[1].gpt_type), "esp");
	assert_int_equal(l->parts[2].mbr_type, 0x0c);
	assert_false(l->parts[2].in_table);
	assert_int_equal(l->parts[3].size_kind, LAYOUT_SIZE_GROW);
	layout_free(l);
}

/* type = exfat: its type bytes, its exfat { } keys, and their errors at FILE:LINE. */
static void test_exfat(void **state)
{
	(void)state;
	struct layout *l = load_ok(
		"image { table = gpt size = 1G }\n"
		"partition a { type = exfat size = 64M exfat { label = \"Données\"\n"
		"  cluster-size = 64K data-align = 8M volume-id = 0x1234abcd\n"
		"  guid = \"00112233-4455-6677-8899-aabbccddeeff\" }\n"
		"  file \"/a\" { content = \"x\" attrs = hidden first = true }\n"
		"  tree \"/t\" { from = \"x\" links = refuse }\n"
		"  file \"/c\" { content = \"\\${S}\" per-card = true reserve = 4K } }\n"
		"partition b { type = exfat size = grow }\n");
	const struct layout_partition *a = &l->parts[0], *b = &l->parts[1];
	assert_true(layout_part_is_exfat(a));
	assert_false(layout_part_is_fat(a));
	assert_true(layout_part_has_files(a));
	assert_string_equal(layout_part_type_name(a->type), "exfat");
	assert_int_equal(a->mbr_type, 0x07);
	assert_string_equal(layout_gpt_type_alias(&a->gpt_type), "msdata");
	assert_string_equal(a->exfat.label, "Données");
	assert_true(a->exfat.cluster_size_set);
	assert_int_equal(a->exfat.cluster_size, 65536);
	assert_true(a->exfat.data_align_set);
	assert_int_equal(a->exfat.data_align, 8u << 20);
	assert_true(a->exfat.volume_id_set);
	assert_int_equal(a->exfat.volume_id, 0x1234abcd);
	assert_true(a->exfat.guid_set);
	assert_int_equal(a->exfat.guid.b[15], 0xff);
	assert_int_equal(a->n_entries, 3);
	assert_int_equal(a->entries[1].links, LAYOUT_LINKS_REFUSE);
	assert_true(a->entries[2].per_card);
	assert_int_equal(a->entries[2].reserve, 4096);
	assert_null(b->exfat.label);
	assert_false(b->exfat.cluster_size_set);
	assert_int_equal(b->exfat.data_align, LAYOUT_DEFAULT_ALIGN);
	assert_false(layout_part_sd_format(b));
	layout_free(l);

	expect_error("partition p { type = exfat\n exfat { label = \"abcdefghijkl\" } }",
		     "t.layout:2: partition 'p': exfat: label: 'abcdefghijkl' is longer than the "
		     "11 UTF-16 units of an exFAT volume label");
	expect_error("partition p { type = exfat\n exfat { cluster-size = 64M } }",
		     "t.layout:2: partition 'p': exfat: cluster-size: 67108864 is not a power of "
		     "two from 512 to 32M");
	expect_error("partition p { type = exfat\n exfat { cluster-size = 3K } }",
		     "t.layout:2: partition 'p': exfat: cluster-size: 3072 is not a power of two");
	expect_error("partition p { type = exfat\n exfat { fats = 2 } }",
		     "t.layout:2: unknown key 'fats' in partition 'p': exfat");
	expect_error("partition p { type = fat\n exfat { label = \"A\" } }",
		     "t.layout:2: partition 'p': exfat: an exfat { } section needs type = exfat");
	expect_error("partition p { type = exfat\n fat { label = \"A\" } }",
		     "t.layout:2: partition 'p': fat: a fat { } section needs type = fat");
	expect_error("partition p { type = exfat\n file \"/a\" { content = \"x\" owner = 1 } }",
		     "t.layout:2: partition 'p': file '/a': owner: only an ext4 partition has "
		     "owners (FAT and exFAT have none)");
	expect_error("partition p { type = exfat\n file \"/a\" { content = \"x\" per-card = true "
		     "} }",
		     "t.layout:2: partition 'p': file '/a': per-card: needs 'reserve' (the most "
		     "bytes a card's content may take, e.g. reserve = 4K)");
	expect_error("partition p { type = exfat\n from = \"x.img\" }",
		     "t.layout:2: partition 'p': from: an exFAT partition is filled with tree");
	expect_error("image { size = 64G }\npartition p { type = exfat size = grow\n"
		     " exfat { sd-format = true cluster-size = 32K } }",
		     "t.layout:3: partition 'p': sd-format = true: it chooses cluster-size and "
		     "data-align itself");
	expect_error("image { size = 64G }\npartition p { type = exfat size = 1G\n"
		     " exfat { sd-format = true } }",
		     "t.layout:3: partition 'p': sd-format = true: it needs the card size");
}

/* Type shortcuts, tree filters, and other tools' words told ours. */
static void test_type_words_and_filters(void **state)
{
	(void)state;
	struct layout *l = load_ok(
		"partition a { size = 4M mbr-type = L }\npartition b { size = 4M mbr-type = V }\n"
		"partition c { size = 4M mbr-type = uefi }\npartition d { type = fat\n"
		"  tree \"/\" { from = \"fw\" include = \" *.dtb ,overlays/\" exclude = \"a[,]b\" "
		"} }\n");
	char guid[37];
	assert_int_equal(l->parts[0].mbr_type, 0x83);
	assert_int_equal(l->parts[1].mbr_type, 0x8e);
	assert_int_equal(l->parts[2].mbr_type, 0xef);
	const struct layout_entry *e = &l->parts[3].entries[0];
	assert_int_equal(e->n_include, 2);
	assert_string_equal(e->include[0], "*.dtb");
	assert_string_equal(e->include[1], "overlays/");
	assert_int_equal(e->n_exclude, 1); /* a comma inside [ ] is part of the pattern */
	assert_string_equal(e->exclude[0], "a[,]b");
	layout_free(l);
	l = load_ok("image { table = gpt }\npartition a { size = 4M gpt-type = linux-root-x86 }\n"
		    "partition b { size = 4M gpt-type = U }\npartition c { size = 4M gpt-type = "
		    "linux-usr-loongarch64 }\n");
	layout_guid_text(&l->parts[0].gpt_type, guid);
	assert_string_equal(guid, "44479540-F297-41B2-9AF7-D131D5F0458A");
	assert_string_equal(layout_gpt_type_alias(&l->parts[1].gpt_type), "esp");
	layout_guid_text(&l->parts[2].gpt_type, guid);
	assert_string_equal(guid, "E611C702-575C-4CBE-9A46-434FA0BF7E3F");
	layout_free(l);
	expect_error("partition p {\n offset = 8M\n}",
		     "t.layout:2: unknown key 'offset' in partition 'p' (did you mean 'start'?)");
	expect_error("partition p {\n partition-type-uuid = L\n}", "(did you mean 'gpt-type'?)");
	expect_error("partition p {\n mbr-type = X\n}", "0x85 is an extended partition type");
	expect_error("partition p { type = fat\n label = \"BOOT\"\n}",
		     "t.layout:2: partition 'p': label: it names a GPT partition");
	expect_error("partition p { type = fat\n tree \"/\" { from = \"x\"\n exclude = \" , \" } }",
		     "t.layout:3: partition 'p': tree '/': exclude: ' , ' holds an empty pattern");
}

static void test_source_date_epoch(void **state)
{
	struct layout_options o = test_opts;
	struct diag d;
	struct layout *l = NULL;

	(void)state;
	diag_init(&d);
	o.source_date_epoch = "1600000000";
	assert_int_equal(layout_load_text("t.layout", "", &o, &d, &l), 0);
	assert_int_equal(l->image.timestamp, 1600000000);
	assert_true(l->image.timestamp_from_env);
	layout_free(l);
	l = NULL;
	/* an explicit timestamp wins, but mtime = source still clamps to the variable */
	assert_int_equal(layout_load_text("t.layout", "image { timestamp = 5 }", &o, &d, &l), 0);
	assert_int_equal(l->image.timestamp, 5);
	layout_free(l);
	l = NULL;
	o.source_date_epoch = "yesterday";
	assert_int_not_equal(layout_load_text("t.layout", "", &o, &d, &l), 0);
	assert_true(diag_has(&d, "SOURCE_DATE_EPOCH: 'yesterday' is not a whole number"));
	/* only what date +%s prints: no hex, octal look, sign or space; an overflow is too large */
	static const char *const not_numbers[] = { "0x10", "010", "+5", "-5", " 5", "5 ", "1e9" };
	for (size_t i = 0; i < sizeof(not_numbers) / sizeof(not_numbers[0]); i++) {
		char want[80];
		snprintf(want, sizeof(want),
			 "SOURCE_DATE_EPOCH: '%s' is not a whole number of "
			 "seconds as date +%%s prints it",
			 not_numbers[i]);
		o.source_date_epoch = not_numbers[i];
		assert_int_not_equal(layout_load_text("t.layout", "", &o, &d, &l), 0);
		assert_true(diag_has(&d, want));
	}
	o.source_date_epoch = "99999999999999999999999";
	assert_int_not_equal(layout_load_text("t.layout", "", &o, &d, &l), 0);
	assert_true(diag_has(&d, "SOURCE_DATE_EPOCH: '99999999999999999999999' is too large (at "
				 "most 4354819199)"));
	o.source_date_epoch = "4354819200";
	assert_int_not_equal(layout_load_text("t.layout", "", &o, &d, &l), 0);
	assert_true(diag_has(&d, "SOURCE_DATE_EPOCH: '4354819200' is too large"));
	o.source_date_epoch = "0";
	assert_int_equal(layout_load_text("t.layout", "", &o, &d, &l), 0);
	assert_int_equal(l->image.timestamp, 0);
	layout_free(l);
	l = NULL;
	diag_release(&d);
}

static void test_lower_case_label_warns(void **state)
{
	struct diag d;
	struct layout *l = NULL;

	(void)state;
	diag_init(&d);
	assert_int_equal(layout_load_text("t.layout",
					  "partition boot { type = fat\n fat {\n label = \"boot\" "
					  "} }",
					  &test_opts, &d, &l),
			 0);
	assert_string_equal(l->parts[0].fat.label, "boot"); /* written as given */
	assert_int_equal(d.errors, 0);
	assert_int_equal(d.n, 1);
	assert_int_equal(d.msgs[0].level, DIAG_NOTE);
	assert_non_null(
		strstr(d.msgs[0].text,
		       "t.layout:3: partition 'boot': fat: label: 'boot' is written as given"));
	layout_free(l);
	diag_release(&d);
}

static void test_entries_keep_file_order(void **state)
{
	(void)state;
	struct layout *l = load_ok(
		"partition boot { type = fat32 size = 64M\n"
		"  file \"/z\" { content = \"1\" }\n"
		"  tree \"/\" { from = \"a\" }\n"
		"  dir \"/logs\" {}\n"
		"  tree \"/\" { from = \"b.tar.gz\" strip = 1 }\n"
		"  file \"/MLO\" { from = \"MLO\" first = true attrs = \"readonly,system\" }\n"
		"}\n");
	const struct layout_partition *p = &l->parts[0];
	assert_int_equal(p->n_entries, 5);
	assert_int_equal(p->entries[0].kind, LAYOUT_ENTRY_FILE);
	assert_string_equal(p->entries[0].content, "1");
	assert_int_equal(p->entries[1].kind, LAYOUT_ENTRY_TREE);
	assert_string_equal(p->entries[1].from, "a");
	assert_int_equal(p->entries[2].kind, LAYOUT_ENTRY_DIR);
	assert_string_equal(p->entries[3].from, "b.tar.gz");
	assert_int_equal(p->entries[3].strip, 1);
	assert_true(p->entries[4].first);
	assert_int_equal(p->entries[4].attrs, LAYOUT_ATTR_READONLY | LAYOUT_ATTR_SYSTEM);
	assert_int_equal(p->entries[4].loc.line, 6);
	layout_free(l);
}

static void test_variables(void **state)
{
	(void)state;
	struct layout *l = load_ok(
		"partition \"${BOARD}-boot\" { type = fat\n"
		"  file \"/a\" { from = ${BOARD} }\n"
		"  file \"/b\" { content = \"${NOPE:-dflt}/${EMPTY}x\\${BOARD}\" }\n"
		"  file \"/c\" { content = '${BOARD}' } }\n");
	assert_string_equal(l->parts[0].name, "rpi4-boot");
	assert_string_equal(l->parts[0].entries[0].from, "rpi4");
	assert_string_equal(l->parts[0].entries[1].content, "dflt/x${BOARD}");
	assert_string_equal(l->parts[0].entries[2].content, "${BOARD}");
	layout_free(l);
	expect_error("\n\npartition p { from = \"${NOPE}\" }",
		     "t.layout:3: variable ${NOPE} is not set");
	expect_error("partition p { from = ${NOPE} }", "t.layout:1: variable ${NOPE} is not set");
}

/* A bare ${VAR} takes the word characters right after it (a kickstart's ${BOOT_SPACE:-40}M). */
static void test_bare_variable_and_suffix(void **state)
{
	(void)state;
	struct layout *l = load_ok("partition boot { type = fat size = ${NOPE:-40}M\n"
				   "  file \"/a\" { content = ${BOARD}-${NOPE:-x}.dtb }\n"
				   "  file \"/b\" { content = ${BOARD}$y } }\n");
	assert_int_equal(l->parts[0].size, 40u << 20);
	assert_string_equal(l->parts[0].entries[0].content, "rpi4-x.dtb");
	assert_string_equal(l->parts[0].entries[1].content, "rpi4$y");
	layout_free(l);
	expect_error("partition p { size = ${NOPE:-4}Q }", "size: unknown unit in '4Q'");
}

/* A default may hold variables itself: ${NOPE:-${BOARD}} is BOARD's value, not "${BOARD}". */
static void test_nested_defaults(void **state)
{
	struct layout *l = load_ok("partition boot { type = fat\n"
				   "  file \"/a\" { content = \"${NOPE:-${BOARD}}\" }\n"
				   "  file \"/b\" { content = ${NOPE:-x${NOPE2:-<${EMPTY}>}y} }\n"
				   "  file \"/c\" { content = \"${NOPE:-${NOPE2:-\\${CARD}}}\" }\n"
				   "  file \"/d\" { content = \"${BOARD:-${UNSET}}!\" } }\n");
	char deep[256] = "", text[512];

	(void)state;
	assert_string_equal(l->parts[0].entries[0].content, "rpi4");
	assert_string_equal(l->parts[0].entries[1].content, "x<>y");
	assert_string_equal(l->parts[0].entries[2].content, "${CARD}");
	/* a default that is not taken is only read: its variables need not be set */
	assert_string_equal(l->parts[0].entries[3].content, "rpi4!");
	layout_free(l);
	expect_error("partition p { from = \"${NOPE:-a${UNSET}}\" }",
		     "t.layout:1: variable ${UNSET} is not set");
	expect_error("partition p { from = \"${NOPE:-${BOARD\"\n}", "t.layout:1: '${NOPE:-' "
								    "without a closing '}'");
	/* the outer '}' missing is named whether the inner variable is set or not, also when a
	 * later '}' would close it past the string's end */
	expect_error("partition p { from = \"${NOPE:-${UNSET}\" }",
		     "t.layout:1: '${NOPE:-' "
		     "without a closing '}' before the string's closing '\"'");
	expect_error("partition p { from = \"${NOPE:-${BOARD}\" }",
		     "t.layout:1: '${NOPE:-' "
		     "without a closing '}' before the string's closing '\"'");
	expect_error("partition p { from = ${NOPE:-${UNSET}\n}", "t.layout:1: '${NOPE:-' without "
								 "a closing '}'");
	/* eight defaults nested in defaults are the limit */
	for (int i = 0; i < 8; i++)
		strcat(deep, "${NOPE:-");
	strcat(deep, "${BOARD}");
	for (int i = 0; i < 8; i++)
		strcat(deep, "}");
	snprintf(text, sizeof(text),
		 "partition p { type = fat\n file \"/a\" { content = \"%s\" } }", deep);
	l = load_ok(text);
	assert_string_equal(l->parts[0].entries[0].content, "rpi4");
	layout_free(l);
	snprintf(text, sizeof(text), "partition p { from = \"${NOPE:-%s}\" }", deep);
	expect_error(text, "t.layout:1: defaults nested more than 8 deep (${A:-${B:-...}})");
}

/* The default seed covers the values substituted: other --set values, other ids. */
static void test_seed_covers_variables(void **state)
{
	static const char text[] =
		"partition p { type = fat\n file \"/a\" { content = \"${V}\" } }\n";
	const struct layout_var one = { "V", "1" }, two = { "V", "2" };
	struct layout_options o = { .vars = &one, .n_vars = 1 };
	struct layout *a = NULL, *b = NULL, *c = NULL;
	struct diag d;

	(void)state;
	diag_init(&d);
	assert_int_equal(layout_load_text("t.layout", text, &o, &d, &a), 0);
	assert_int_equal(layout_load_text("t.layout", text, &o, &d, &b), 0);
	o.vars = &two;
	assert_int_equal(layout_load_text("t.layout", text, &o, &d, &c), 0);
	assert_string_equal(a->image.seed, b->image.seed);
	assert_string_not_equal(a->image.seed, c->image.seed);
	layout_free(a);
	layout_free(b);
	layout_free(c);
	diag_release(&d);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_includes(void **state)
{
	struct diag d;
	struct layout *l = NULL;

	(void)state;
	assert_int_equal(system("mkdir -p inc/sub"), 0);
	write_file("inc/main.layout", "# main\nimage { size = 1G }\ninclude(\"sub/parts.layout\")\n"
				      "partition last { size = grow }\n");
	write_file("inc/sub/parts.layout",
		   "# parts\n/* two\n lines */\npartition boot { type = fat\n"
		   "  size = 64M }\ninclude(\"more.layout\")\n");
	write_file("inc/sub/more.layout", "partition more { size = 8M }\n");
	diag_init(&d);
	assert_int_equal(layout_load("inc/main.layout", &test_opts, &d, &l), 0);
	assert_int_equal(l->n_parts, 3);
	assert_string_equal(l->parts[0].name, "boot");
	assert_string_equal(l->parts[0].loc.file, "inc/sub/parts.layout");
	assert_int_equal(l->parts[0].loc.line, 4);
	assert_string_equal(l->parts[1].name, "more");
	assert_string_equal(l->parts[2].name, "last");
	assert_int_equal(l->parts[2].loc.line, 4);
	assert_int_equal(l->n_input_dirs, 1);
	assert_string_equal(l->input_dirs[0], "inc");
	layout_free(l);
	l = NULL;
	/* an error in an included file names that file and its real line */
	write_file("inc/sub/more.layout", "# c\n# c\n\npartition more {\n  sise = 8M }\n");
	assert_int_not_equal(layout_load("inc/main.layout", &test_opts, &d, &l), 0);
	assert_true(diag_has(&d, "inc/sub/more.layout:5: unknown key 'sise' in partition 'more' "
				 "(did you mean 'size'?)"));
	diag_release(&d);
	write_file("inc/loop.layout", "include(\"loop.layout\")\n");
	assert_int_not_equal(layout_load("inc/loop.layout", &test_opts, &d, &l), 0);
	assert_true(diag_has(&d, "inc/loop.layout:1: include(\"loop.layout\") includes itself"));
	diag_release(&d);
	/* named differently from the command line ("./x" against "x"): one error, not the
	 * file read twice ("section 'image' appears twice") */
	write_file("self.layout", "image { }\ninclude(\"self.layout\")\n");
	assert_int_not_equal(layout_load("self.layout", &test_opts, &d, &l), 0);
	assert_int_equal(d.errors, 1);
	assert_true(diag_has(&d, "self.layout:2: include(\"self.layout\") includes itself"));
	diag_release(&d);
	expect_error("\ninclude(\"nonexistent.layout\")",
		     "t.layout:2: include(\"nonexistent.layout\"): "
		     "./nonexistent.layout: No such file");
	assert_int_not_equal(layout_load("inc/none.layout", &test_opts, &d, &l), 0);
	assert_true(diag_has(&d, "inc/none.layout: No such file or directory"));
	diag_release(&d);
}

/* from, skip, fill and holes of raw regions and raw partitions */
static void test_raw_inputs(void **state)
{
	(void)state;
	struct layout *l = load_ok(
		"raw boot { offset = 0 from = \"boot.img\" holes = \"1K-2K, 440-512\" }\n"
		"raw env { offset = 1M size = 64K fill = yes }\n"
		"partition u { size = 8M fill = true }\n"
		"partition r { from = \"r.img\" skip = 33K holes = \"0-1K\" }\n");
	assert_int_equal(l->raws[0].n_holes, 2);
	assert_int_equal(l->raws[0].holes[0].start, 440); /* sorted */
	assert_int_equal(l->raws[0].holes[0].end, 512);
	assert_int_equal(l->raws[0].holes[1].start, 1024);
	assert_int_equal(l->raws[0].holes[1].end, 2048);
	assert_int_equal(l->raws[0].skip, 0);
	assert_false(l->raws[0].fill);
	assert_null(l->raws[1].from);
	assert_true(l->raws[1].fill);
	assert_true(l->parts[0].fill);
	assert_int_equal(l->parts[1].skip, 33 * 1024);
	assert_int_equal(l->parts[1].n_holes, 1);
	assert_int_equal(l->parts[1].holes_loc.line, 4);
	layout_free(l);

	expect_error("raw b { offset = 0 from = \"b\"\n holes = \"440-x\" }",
		     "t.layout:2: raw 'b': holes: in '440-x': 'x' is not a size");
	expect_error("raw b { offset = 0 from = \"b\"\n holes = \"440\" }",
		     "t.layout:2: raw 'b': holes: '440' is not a range START-END");
	expect_error("raw b { offset = 0 from = \"b\"\n holes = \"512-440\" }",
		     "t.layout:2: raw 'b': holes: '512-440' is empty");
	expect_error("raw b { offset = 0 from = \"b\"\n holes = \"440-512, 500-1K\" }",
		     "t.layout:2: raw 'b': holes: the ranges 440-512 and 500-1024 overlap");
	expect_error("raw b { offset = 0 from = \"b\"\n holes = \",\" }",
		     "t.layout:2: raw 'b': holes: ',' holds no range");
	expect_error("raw b { offset = 0 from = \"b\" size = 1K\n holes = \"1K-2K\" }",
		     "t.layout:2: raw 'b': holes: 1024-2048 ends past the 1024 bytes of the "
		     "region");
	expect_error("raw b { offset = 0 size = 1K from = \"b\"\n fill-byte = 0xff }",
		     "t.layout:2: raw 'b': fill-byte: is the byte 'fill = true' writes, and there "
		     "is no 'fill = true'");
	expect_error("raw b { offset = 0 size = 1K fill = true\n fill-byte = 256 }",
		     "t.layout:2: raw 'b': fill-byte: 256 is out of range (0 to 255)");
	expect_error("partition p { size = 4M fill = true\n sparse = false }",
		     "t.layout:2: partition 'p': sparse: 'false' writes the zeros of 'from', and "
		     "there is no 'from'");
	expect_error("partition p { type = fat\n fill-byte = 1 }",
		     "t.layout:2: partition 'p': fill-byte: only a raw partition has it");
	expect_error("raw b { offset = 0\n fill = true }",
		     "t.layout:2: raw 'b': fill: needs the region's 'size'");
	expect_error("raw b { offset = 0 size = 1K fill = true\n skip = 1K }",
		     "t.layout:2: raw 'b': skip: leaves out the first bytes of 'from', and there "
		     "is no 'from'");
	expect_error("raw b {\n offset = 0 size = 1K fill = false }",
		     "t.layout:1: raw 'b': 'from' is required");
	expect_error("partition p { size = 4M\n holes = \"0-1K\" }",
		     "t.layout:2: partition 'p': holes: needs 'from' or 'fill = true'");
	expect_error("partition p { size = 4M fill = true\n holes = \"0-5M\" }",
		     "t.layout:2: partition 'p': holes: 0-5242880 ends past the 4194304 bytes of "
		     "the region");
	expect_error("partition p { type = fat\n fill = true }",
		     "t.layout:2: partition 'p': fill: only a raw partition has it");
	expect_error("partition p { type = fat\n holes = \"0-1K\" }",
		     "t.layout:2: partition 'p': holes: only a raw partition has it");
	expect_error("partition p { type = fat\n skip = 1K }",
		     "t.layout:2: partition 'p': skip: only a raw partition has it");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_units),
		cmocka_unit_test(test_numbers_bools_guids),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_type_defaults_and_settings),
		cmocka_unit_test(test_type_words_and_filters),
		cmocka_unit_test(test_exfat),
		cmocka_unit_test(test_source_date_epoch),
		cmocka_unit_test(test_lower_case_label_warns),
		cmocka_unit_test(test_entries_keep_file_order),
		cmocka_unit_test(test_variables),
		cmocka_unit_test(test_bare_variable_and_suffix),
		cmocka_unit_test(test_nested_defaults),
		cmocka_unit_test(test_seed_covers_variables),
		cmocka_unit_test(test_includes),
		cmocka_unit_test(test_raw_inputs),
	};
	return cmocka_run_group_tests_name("layouts", tests, NULL, NULL);
}
