/* SPDX-License-Identifier: MIT */
/* Unit tests: the partition tables the builder writes (MBR with an extended partition and
 * its EBR chain, GPT entries and headers, a moved entry array, a GPT without backup, a
 * hybrid MBR), built from small layouts of raw partitions (holes: nothing written but the
 * tables) and read back byte by byte here, and where util-linux's sfdisk and gdisk's sgdisk
 * are there, by them too. */
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
#include <jansson.h>
#include <zlib.h>

#include "common/bytes.h"
#include "mkimage/builder/builder.h"
#include "tool_test_util.h"

#define IMAGE "d.img"
#define SECTOR 512

/* ---- building ---- */

/* @text built into IMAGE; returns build_image_file()'s result, the messages in @d. */
static int build_text(const char *text, struct diag *d)
{
	const struct layout_options opts = { .use_environment = false };
	FILE *quiet = fopen("/dev/null", "w");
	const struct build_options bo = { .output = IMAGE,
					  .write_raw = true,
					  .verbosity = BUILD_QUIET,
					  .report = quiet };
	struct layout *l = NULL;
	int rc;

	assert_non_null(quiet);
	diag_init(d);
	unlink(IMAGE);
	rc = layout_load_text("t.layout", text, &opts, d, &l);
	if (rc == 0)
		rc = build_image_file(l, &bo, d);
	layout_free(l);
	fclose(quiet);
	return rc;
}

static void build_ok(const char *text)
{
	struct diag d;
	int rc = build_text(text, &d);
	if (rc != 0)
		diag_print(&d, stderr, "  build");
	assert_int_equal(rc, 0);
	diag_release(&d);
}

/* A layout refused (when loaded or built) with an error holding @needle. */
static void build_refused(const char *text, const char *needle)
{
	struct diag d;
	int rc = build_text(text, &d);
	if (rc == 0 || !diag_has(&d, needle)) {
		fprintf(stderr, "  expected an error holding: %s\n", needle);
		diag_print(&d, stderr, "  build");
	}
	assert_int_not_equal(rc, 0);
	assert_true(diag_has(&d, needle));
	assert_int_equal(access(IMAGE, F_OK), -1);
	diag_release(&d);
}

static void read_sector(uint64_t lba, uint8_t s[SECTOR])
{
	int fd = open(IMAGE, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, s, SECTOR, (off_t)(lba * SECTOR)), SECTOR);
	close(fd);
}

static uint64_t image_sectors(void)
{
	int fd = open(IMAGE, O_RDONLY);
	assert_true(fd >= 0);
	off_t end = lseek(fd, 0, SEEK_END);
	close(fd);
	return (uint64_t)end / SECTOR;
}

/* ---- MBR records, as the on-disk format has them (bytes 446-509, 16 each) ---- */

struct record {
	uint8_t status, type;
	uint32_t start, size;
};

static struct record record_at(const uint8_t s[SECTOR], unsigned i)
{
	const uint8_t *r = s + 446 + 16 * i;
	struct record e = { r[0], r[4], get_le32(r + 8), get_le32(r + 12) };
	assert_int_equal(s[510], 0x55);
	assert_int_equal(s[511], 0xaa);
	return e;
}

static void expect_record(const uint8_t s[SECTOR], unsigned i, uint8_t status, uint8_t type,
			  uint32_t start, uint32_t size)
{
	struct record e = record_at(s, i);
	if (e.status != status || e.type != type || e.start != start || e.size != size)
		fail_msg("record %u: status 0x%02x type 0x%02x start %u size %u; want 0x%02x "
			 "0x%02x %u %u",
			 i + 1, e.status, e.type, e.start, e.size, status, type, start, size);
}

/* ---- the outside judges ---- */

/* What `sfdisk --json @args IMAGE` says, parsed: its partitions array (the caller frees
 * the root with json_decref()), or NULL without sfdisk. */
static json_t *sfdisk_json(const char *args, json_t **ret_parts)
{
	char cmd[256];
	json_error_t err;

	if (!have_tool("sfdisk"))
		return NULL;
	snprintf(cmd, sizeof(cmd), TOOL_PATH "sfdisk --json %s " IMAGE " 2>/dev/null", args);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	json_t *root = json_loadf(p, 0, &err);
	assert_int_equal(pclose(p), 0);
	if (!root)
		fail_msg("sfdisk --json: %s", err.text);
	*ret_parts = json_object_get(json_object_get(root, "partitiontable"), "partitions");
	assert_true(json_is_array(*ret_parts));
	return root;
}

static const char *json_text(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

static long long json_number(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	assert_true(json_is_integer(v));
	return json_integer_value(v);
}

/* The partition @i of sfdisk's list is named @node, at @start for @size sectors, of @type. */
static void expect_sfdisk(json_t *parts, size_t i, const char *node, long long start,
			  long long size, const char *type)
{
	json_t *p = json_array_get(parts, i);
	assert_non_null(p);
	assert_string_equal(json_text(p, "node"), node);
	assert_int_equal(json_number(p, "start"), start);
	assert_int_equal(json_number(p, "size"), size);
	assert_string_equal(json_text(p, "type"), type);
}

/* `sgdisk -v` finds no problem, or (@backup_missing) only the missing backup header. */
static void expect_sgdisk_verified(bool backup_missing)
{
	char out[4096];

	if (!have_tool("sgdisk"))
		return;
	tool_output(TOOL_PATH "sgdisk -v " IMAGE " 2>&1", out, sizeof(out));
	const char *want = backup_missing ? "Backup header: ERROR" : "No problems found";
	if (!strstr(out, want))
		fail_msg("sgdisk -v: no \"%s\" in:\n%s", want, out);
	if (backup_missing) {
		assert_non_null(strstr(out, "Main header: OK"));
		assert_non_null(strstr(out, "Main partition table: OK"));
	}
}

/* ---- MBR ---- */

/* Six partitions: three primary, the extended partition in entry 4 from the first EBR to
 * the end of the last logical one, each EBR in the sector before its partition and linked
 * to the next (relative to the extended partition's start), the last link empty. */
static void test_mbr_logical(void **state)
{
	static const uint32_t logical[3][2] = { { 12288, 2048 },
						{ 16384, 4096 },
						{ 22528, 10240 } };
	uint8_t s[SECTOR];
	json_t *parts, *root;

	(void)state;
	build_ok("image { size = 16M table = mbr align = 1M disk-id = 0x1234abcd }\n"
		 "partition p1 { size = 1M bootable = true }\n"
		 "partition p2 { size = 1M mbr-type = 0x0c }\n"
		 "partition p3 { size = 2M mbr-type = swap }\n"
		 "partition l5 { size = 1M }\n"
		 "partition l6 { size = 2M mbr-type = 0xda }\n"
		 "partition l7 { size = grow }\n");
	read_sector(0, s);
	assert_int_equal(get_le32(s + 440), 0x1234abcd);
	expect_record(s, 0, 0x80, 0x83, 2048, 2048);
	expect_record(s, 1, 0x00, 0x0c, 4096, 2048);
	expect_record(s, 2, 0x00, 0x82, 6144, 4096);
	/* no logical partition starts right after the one before it (at 5M, 7M, 10M): its
	 * EBR, the sector before it, would be that one's last; each starts 1M later */
	uint32_t ext_start = logical[0][0] - 1;
	expect_record(s, 3, 0x00, 0x0f, ext_start, 32768 - ext_start);
	static const uint8_t types[3] = { 0x83, 0xda, 0x83 };
	for (unsigned i = 0; i < 3; i++) {
		uint32_t ebr = logical[i][0] - 1;
		read_sector(ebr, s);
		expect_record(s, 0, 0x00, types[i], 1, logical[i][1]);
		if (i < 2) {
			uint32_t next = logical[i + 1][0] - 1;
			expect_record(s, 1, 0x00, 0x05, next - ext_start,
				      logical[i + 1][0] + logical[i + 1][1] - next);
		} else {
			expect_record(s, 1, 0, 0, 0, 0);
		}
		expect_record(s, 2, 0, 0, 0, 0);
		expect_record(s, 3, 0, 0, 0, 0);
	}

	if (!(root = sfdisk_json("", &parts)))
		return;
	assert_string_equal(json_text(json_object_get(root, "partitiontable"), "label"), "dos");
	assert_string_equal(json_text(json_object_get(root, "partitiontable"), "id"), "0x1234abcd");
	assert_int_equal(json_array_size(parts), 7);
	expect_sfdisk(parts, 0, IMAGE "1", 2048, 2048, "83");
	assert_true(json_is_true(json_object_get(json_array_get(parts, 0), "bootable")));
	expect_sfdisk(parts, 1, IMAGE "2", 4096, 2048, "c");
	expect_sfdisk(parts, 2, IMAGE "3", 6144, 4096, "82");
	expect_sfdisk(parts, 3, IMAGE "4", ext_start, 32768 - ext_start, "f");
	expect_sfdisk(parts, 4, IMAGE "5", 12288, 2048, "83");
	expect_sfdisk(parts, 5, IMAGE "6", 16384, 4096, "da");
	expect_sfdisk(parts, 6, IMAGE "7", 22528, 10240, "83");
	json_decref(root);
}

/* The extended partition in entry 2, two primary partitions after the logical ones; a
 * layout that breaks the EBR chain's order refused. */
static void test_mbr_extended_entry(void **state)
{
	uint8_t s[SECTOR];
	json_t *parts, *root;

	(void)state;
	build_ok("image { size = 16M table = mbr align = 1M extended-partition = 2 }\n"
		 "partition boot { size = 1M }\n"
		 "partition a { size = 1M }\n"
		 "partition b { size = 1M }\n"
		 "partition data { size = 1M primary = true }\n"
		 "partition root { size = grow primary = true }\n");
	read_sector(0, s);
	expect_record(s, 0, 0, 0x83, 2048, 2048);
	struct record ext = record_at(s, 1);
	assert_int_equal(ext.type, 0x0f);
	struct record data = record_at(s, 2), root_rec = record_at(s, 3);
	assert_int_equal(data.type, 0x83);
	assert_int_equal(ext.start + ext.size, data.start); /* ends with the last logical */
	assert_int_equal(root_rec.start, data.start + 2048);
	assert_int_equal(root_rec.start + root_rec.size, 32768);
	read_sector(ext.start, s);
	struct record a = record_at(s, 0), link = record_at(s, 1);
	assert_int_equal(a.start, 1); /* the EBR is the sector before "a" */
	assert_int_equal(a.size, 2048);
	assert_int_equal(link.type, 0x05);

	if ((root = sfdisk_json("", &parts))) {
		assert_int_equal(json_array_size(parts), 6);
		assert_string_equal(json_text(json_array_get(parts, 1), "node"), IMAGE "2");
		assert_string_equal(json_text(json_array_get(parts, 1), "type"), "f");
		expect_sfdisk(parts, 2, IMAGE "3", data.start, 2048, "83");
		expect_sfdisk(parts, 4, IMAGE "5", ext.start + a.start, 2048, "83");
		expect_sfdisk(parts, 5, IMAGE "6", ext.start + link.start + 1, 2048, "83");
		json_decref(root);
	}

	build_refused("image { size = 16M table = mbr extended-partition = 2 }\n"
		      "partition boot { size = 1M }\n"
		      "partition a { size = 1M }\n"
		      "partition data { size = 1M primary = true }\n"
		      "partition b { size = 1M }\n",
		      "t.layout:5: partition 'b' would be a logical partition after the primary");
	build_refused("image { size = 16M table = mbr }\n"
		      "partition a { size = 1M }\npartition b { size = 1M }\n"
		      "partition c { size = 1M }\npartition d { size = 1M }\n"
		      "partition e { size = 1M primary = true }\n",
		      "t.layout:6: partition 'e': primary = true: the MBR has four entries");
}

/* ---- GPT ---- */

struct gpt_header {
	uint64_t my_lba, alternate_lba, first_usable, last_usable, entries_lba;
	uint32_t n_entries, entry_size, entries_crc;
};

/* The GPT header at @lba, its signature, size and CRC checked here (UEFI 2.10, 5.3.2). */
static struct gpt_header header_at(uint64_t lba)
{
	uint8_t s[SECTOR];
	struct gpt_header h;

	read_sector(lba, s);
	assert_memory_equal(s, "EFI PART", 8);
	assert_int_equal(get_le32(s + 8), 0x00010000);
	assert_int_equal(get_le32(s + 12), 92);
	uint32_t crc = get_le32(s + 16);
	memset(s + 16, 0, 4);
	assert_int_equal(crc32(0, s, 92), crc);
	h.my_lba = get_le64(s + 24);
	h.alternate_lba = get_le64(s + 32);
	h.first_usable = get_le64(s + 40);
	h.last_usable = get_le64(s + 48);
	h.entries_lba = get_le64(s + 72);
	h.n_entries = get_le32(s + 80);
	h.entry_size = get_le32(s + 84);
	h.entries_crc = get_le32(s + 88);
	return h;
}

/* The entry array of @h, its CRC checked; malloc'd. */
static uint8_t *entries_of(const struct gpt_header *h)
{
	size_t len = (size_t)h->n_entries * h->entry_size;
	uint8_t *e = malloc(len);
	int fd = open(IMAGE, O_RDONLY);

	assert_non_null(e);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, e, len, (off_t)(h->entries_lba * SECTOR)), (ssize_t)len);
	close(fd);
	assert_int_equal(crc32(0, e, (uInt)len), h->entries_crc);
	return e;
}

/* A GUID's text (upper case) from its on-disk form: the first three fields little-endian. */
static void guid_text(const uint8_t g[16], char out[37])
{
	snprintf(out, 37, "%08X-%04X-%04X-%02X%02X-%02X%02X%02X%02X%02X%02X", get_le32(g),
		 get_le16(g + 4), get_le16(g + 6), g[8], g[9], g[10], g[11], g[12], g[13], g[14],
		 g[15]);
}

/* The name of a GPT entry (UTF-16LE, 36 units) as UTF-8, for the names of this test
 * (below U+0800). */
static void name_text(const uint8_t *e, char *out, size_t n)
{
	size_t k = 0;
	for (unsigned i = 0; i < 36; i++) {
		uint16_t c = get_le16(e + 56 + 2 * i);
		if (!c)
			break;
		assert_true(c < 0x800 && k + 3 < n);
		if (c < 0x80) {
			out[k++] = (char)c;
		} else {
			out[k++] = (char)(0xc0 | c >> 6);
			out[k++] = (char)(0x80 | (c & 0x3f));
		}
	}
	out[k] = 0;
}

#define ESP_GUID "C12A7328-F81F-11D2-BA4B-00A0C93EC93B"
#define LINUX_GUID "0FC63DAF-8483-4772-8E79-3D69D8477DE4"
#define OWN_GUID "12345678-9ABC-DEF0-1234-56789ABCDEF0"

/* Three entries: their type GUIDs (an alias and a GUID), unique GUIDs, names (one of 36
 * units, one not ASCII), the legacy-BIOS-bootable attribute; the headers point at each other,
 * the backup's array before it at the end, the usable range between the arrays. */
static void test_gpt_entries(void **state)
{
	static const char long_name[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	char text[128];
	uint8_t s[SECTOR];
	json_t *parts, *root;

	(void)state;
	build_ok("image { size = 8M table = gpt align = 1M seed = \"gpt-entries\"\n"
		 "        disk-id = 01234567-89ab-cdef-0123-456789abcdef }\n"
		 "partition esp { size = 1M gpt-type = esp bootable = true label = \"EFI ESP\" }\n"
		 "partition own { size = 1M gpt-type = " OWN_GUID "\n"
		 "                uuid = aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee label = "
		 "\"d\u00e4t\u00e9\" }\n"
		 "partition last { size = grow label = \"abcdefghijklmnopqrstuvwxyz0123456789\" "
		 "}\n");
	uint64_t last = image_sectors() - 1;
	assert_int_equal(last, 16383);

	/* the protective MBR: one 0xEE record from LBA 1 to the end, which is CHS 1/5/4 */
	read_sector(0, s);
	expect_record(s, 0, 0, 0xee, 1, 16383);
	expect_record(s, 1, 0, 0, 0, 0);
	assert_memory_equal(s + 446 + 5, "\x05\x04\x01", 3);

	struct gpt_header h = header_at(1), b = header_at(last);
	assert_int_equal(h.my_lba, 1);
	assert_int_equal(h.alternate_lba, last);
	assert_int_equal(h.entries_lba, 2);
	assert_int_equal(h.n_entries, 128);
	assert_int_equal(h.entry_size, 128);
	assert_int_equal(h.first_usable, 34);
	assert_int_equal(h.last_usable, last - 33);
	assert_int_equal(b.my_lba, last);
	assert_int_equal(b.alternate_lba, 1);
	assert_int_equal(b.entries_lba, last - 32);
	assert_int_equal(b.first_usable, h.first_usable);
	assert_int_equal(b.last_usable, h.last_usable);
	assert_int_equal(b.entries_crc, h.entries_crc);

	uint8_t *e = entries_of(&h);
	free(entries_of(&b));
	guid_text(e, text);
	assert_string_equal(text, ESP_GUID);
	assert_int_equal(get_le64(e + 32), 2048);
	assert_int_equal(get_le64(e + 40), 4095);
	assert_int_equal(get_le64(e + 48), 1u << 2); /* legacy BIOS bootable */
	name_text(e, text, sizeof(text));
	assert_string_equal(text, "EFI ESP");
	guid_text(e + 128, text);
	assert_string_equal(text, OWN_GUID);
	guid_text(e + 128 + 16, text);
	assert_string_equal(text, "AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE");
	assert_int_equal(get_le64(e + 128 + 48), 0);
	name_text(e + 128, text, sizeof(text));
	assert_string_equal(text, "d\u00e4t\u00e9");
	guid_text(e + 256, text);
	assert_string_equal(text, LINUX_GUID);
	assert_int_equal(get_le64(e + 256 + 32), 6144);
	assert_int_equal(get_le64(e + 256 + 40), h.last_usable); /* grow: to the last usable */
	name_text(e + 256, text, sizeof(text));
	assert_string_equal(text, long_name);
	for (size_t i = 3 * 128; i < 128 * 128; i++)
		if (e[i])
			fail_msg("entry %zu is not empty", i / 128 + 1);
	free(e);

	expect_sgdisk_verified(false);
	if (!(root = sfdisk_json("", &parts)))
		return;
	json_t *table = json_object_get(root, "partitiontable");
	assert_string_equal(json_text(table, "label"), "gpt");
	assert_string_equal(json_text(table, "id"), "01234567-89AB-CDEF-0123-456789ABCDEF");
	assert_int_equal(json_number(table, "firstlba"), 34);
	assert_int_equal(json_number(table, "lastlba"), last - 33);
	assert_int_equal(json_array_size(parts), 3);
	expect_sfdisk(parts, 0, IMAGE "1", 2048, 2048, ESP_GUID);
	assert_string_equal(json_text(json_array_get(parts, 0), "attrs"), "LegacyBIOSBootable");
	assert_string_equal(json_text(json_array_get(parts, 0), "name"), "EFI ESP");
	expect_sfdisk(parts, 1, IMAGE "2", 4096, 2048, OWN_GUID);
	assert_string_equal(json_text(json_array_get(parts, 1), "uuid"),
			    "AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE");
	assert_string_equal(json_text(json_array_get(parts, 1), "name"), "d\u00e4t\u00e9");
	expect_sfdisk(parts, 2, IMAGE "3", 6144, (long long)(last - 33 - 6144 + 1), LINUX_GUID);
	assert_string_equal(json_text(json_array_get(parts, 2), "name"), long_name);
	json_decref(root);
}

/* The entry array moved to 1M, a boot loader's raw region after it: the first usable LBA
 * past both, the usual place of the array left zero. */
static void test_gpt_moved_entries(void **state)
{
	uint8_t s[SECTOR], zeros[SECTOR] = { 0 };
	json_t *parts, *root;

	(void)state;
	build_ok("image { size = 8M table = gpt align = 1M gpt-entries = 1M }\n"
		 "raw loader { offset = 1100K size = 900K fill = true }\n"
		 "partition a { size = 1M }\n"
		 "partition b { size = grow }\n");
	struct gpt_header h = header_at(1), b = header_at(16383);
	assert_int_equal(h.entries_lba, 2048);
	assert_int_equal(h.first_usable, 4000); /* the loader ends at 2000K */
	assert_int_equal(b.first_usable, 4000);
	assert_int_equal(b.entries_lba, 16383 - 32);
	free(entries_of(&h));
	free(entries_of(&b));
	read_sector(2, s);
	assert_memory_equal(s, zeros, SECTOR);
	uint8_t *e = entries_of(&h);
	assert_int_equal(get_le64(e + 32), 4096); /* a: the next 1M past the loader */
	free(e);

	expect_sgdisk_verified(false);
	if ((root = sfdisk_json("", &parts))) {
		assert_int_equal(json_number(json_object_get(root, "partitiontable"), "firstlba"),
				 4000);
		expect_sfdisk(parts, 0, IMAGE "1", 4096, 2048, LINUX_GUID);
		json_decref(root);
	}

	/* an array that would overlap the first partition is refused */
	build_refused("image { size = 8M table = gpt align = 1M gpt-entries = 1M }\n"
		      "partition a { start = 1M size = 1M }\n",
		      "t.layout:2: partition 'a' (bytes 1048576-2097151) overlaps the gpt-entries");
}

/* Without backup: the alternate LBA and the last usable one are the last LBA, nothing is
 * written there, the protective record covers the whole image. */
static void test_gpt_without_backup(void **state)
{
	uint8_t s[SECTOR], zeros[SECTOR] = { 0 };

	(void)state;
	build_ok("image { size = 8M table = gpt align = 1M gpt-backup = false }\n"
		 "partition a { size = 1M }\n"
		 "partition b { size = grow }\n");
	struct gpt_header h = header_at(1);
	assert_int_equal(h.alternate_lba, 16383);
	assert_int_equal(h.last_usable, 16383);
	for (uint64_t lba = 16383 - 32; lba <= 16383; lba++) {
		read_sector(lba, s);
		assert_memory_equal(s, zeros, SECTOR);
	}
	read_sector(0, s);
	expect_record(s, 0, 0, 0xee, 1, 16383);
	assert_memory_equal(s + 446 + 5, "\x05\x04\x01", 3); /* the end CHS follows */
	uint8_t *e = entries_of(&h);
	assert_int_equal(get_le64(e + 128 + 40), 16383); /* b grows to the very end */
	free(e);
	expect_sgdisk_verified(true);
}

/* ---- hybrid MBR ---- */

static void test_hybrid(void **state)
{
	uint8_t s[SECTOR];
	json_t *parts, *root;

	(void)state;
	build_ok("image { size = 8M table = hybrid align = 1M\n"
		 "        disk-id = 01234567-89ab-cdef-0123-456789abcdef }\n"
		 "partition boot { size = 1M hybrid = true bootable = true mbr-type = 0x0c }\n"
		 "partition gap { size = 1M }\n"
		 "partition two { size = 2M hybrid = true }\n"
		 "partition rest { size = grow }\n");
	read_sector(0, s);
	/* 0xEE first, from LBA 1 to the sector before the first mirrored partition */
	expect_record(s, 0, 0x00, 0xee, 1, 2047);
	expect_record(s, 1, 0x80, 0x0c, 2048, 2048);
	expect_record(s, 2, 0x00, 0x83, 6144, 4096);
	expect_record(s, 3, 0, 0, 0, 0);
	assert_int_not_equal(get_le32(s + 440), 0); /* a disk signature, derived */
	struct gpt_header h = header_at(1);
	uint8_t *e = entries_of(&h);
	assert_int_equal(get_le64(e + 48), 1u << 2); /* bootable in the GPT too */
	free(e);
	header_at(16383);
	expect_sgdisk_verified(false);
	if ((root = sfdisk_json("", &parts))) { /* sfdisk reads the GPT */
		assert_string_equal(json_text(json_object_get(root, "partitiontable"), "label"),
				    "gpt");
		assert_int_equal(json_array_size(parts), 4);
		json_decref(root);
	}
	if ((root = sfdisk_json("--label-nested dos", &parts))) { /* and the MBR when asked */
		assert_int_equal(json_array_size(parts), 3);
		expect_sfdisk(parts, 0, IMAGE "1", 1, 2047, "ee");
		expect_sfdisk(parts, 1, IMAGE "2", 2048, 2048, "c");
		expect_sfdisk(parts, 2, IMAGE "3", 6144, 4096, "83");
		json_decref(root);
	}

	/* hybrid-ee = last: the mirrored partitions first */
	build_ok("image { size = 8M table = hybrid align = 1M hybrid-ee = last }\n"
		 "partition boot { size = 1M hybrid = true }\n"
		 "partition rest { size = grow }\n");
	read_sector(0, s);
	expect_record(s, 0, 0x00, 0x83, 2048, 2048);
	expect_record(s, 1, 0x00, 0xee, 1, 2047);
	expect_record(s, 2, 0, 0, 0, 0);
	expect_sgdisk_verified(false);

	build_refused("image { size = 8M table = hybrid align = 1M }\n"
		      "partition a { size = 1M hybrid = true }\npartition b { size = 1M hybrid = "
		      "true }\n"
		      "partition c { size = 1M hybrid = true }\npartition d { size = 1M hybrid = "
		      "true }\n",
		      "t.layout:5: partition 'd': hybrid = true: a hybrid MBR mirrors three "
		      "partitions at most");
	build_refused("image { size = 8M table = hybrid gpt-backup = false }\n"
		      "partition a { size = 1M hybrid = true }\n",
		      "t.layout:1: image: gpt-backup: a hybrid MBR beside a GPT without backup");
	build_refused("image { size = 8M table = hybrid }\n"
		      "partition a { size = 1M }\n",
		      "t.layout:1: image: table = hybrid mirrors no partition in its MBR");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mbr_logical),
		cmocka_unit_test(test_mbr_extended_entry),
		cmocka_unit_test(test_gpt_entries),
		cmocka_unit_test(test_gpt_moved_entries),
		cmocka_unit_test(test_gpt_without_backup),
		cmocka_unit_test(test_hybrid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
