/* SPDX-License-Identifier: MIT */
/* Unit tests: per-card values: templates and the manifest (common/cards), a per-card file's
 * FAT entries (fat/card.c), and the patches that overlay an image (flash/card_patches.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/cards.h"
#include "fat/fat.h"
#include "mkimage/flash/flash.h"

static void test_render(void **state)
{
	const struct cards_var vars[] = { { "SN", "42" }, { "HOST", "a b" } };
	struct diag d;
	char *out = NULL;

	(void)state;
	diag_init(&d);
	assert_int_equal(cards_render("sn=${SN} host=${HOST} ${SN}$ {x} ${} ${a-b}", vars, 2, "f",
				      &out, &d),
			 0);
	assert_string_equal(out, "sn=42 host=a b 42$ {x} ${} ${a-b}");
	free(out);
	assert_int_equal(cards_render("${NOPE}", vars, 2, "p:/f", &out, &d), -EINVAL);
	assert_int_equal(d.n, 1);
	assert_string_equal(d.msgs[0].text, "p:/f: no value for ${NOPE}");
	diag_release(&d);
}

/* The image's ids in a file: only the ids' names are filled in, an id without a value is an
 * error, anything else stays as written. */
static void test_render_ids(void **state)
{
	const struct cards_var vars[] = { { "DISK_ID", "1234abcd" },
					  { "PARTUUID_root", "1234abcd-02" } };
	struct diag d;
	char *out = NULL;

	(void)state;
	diag_init(&d);
	assert_int_equal(cards_render_ids("root=PARTUUID=${PARTUUID_root} ${bootargs} ${DISK_ID}",
					  vars, 2, "f", &out, &d),
			 0);
	assert_string_equal(out, "root=PARTUUID=1234abcd-02 ${bootargs} 1234abcd");
	free(out);
	assert_int_equal(cards_render_ids("${VOLUME_ID_boot}", vars, 2, "p:/f", &out, &d), -EINVAL);
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.msgs[0].text, "p:/f: ${VOLUME_ID_boot} is no id of this image"));
	diag_release(&d);
}

/* @m written out to @path and read back into @r: what cards_manifest_read() returns. */
static int round_trip(const struct cards_manifest *m, const char *path, struct cards_manifest *r,
		      struct diag *d)
{
	char *text = NULL;
	int fd = open(path, O_WRONLY | O_TRUNC);

	assert_true(fd >= 0);
	assert_int_equal(cards_manifest_text(m, &text), 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	free(text);
	cards_manifest_release(r);
	return cards_manifest_read(path, r, d);
}

static void test_manifest_round_trip(void **state)
{
	struct cards_file f = { .partition = "boot",
				.path = "/a b/\"q\".txt",
				.template = "x=${X}\n",
				.reserve = 4096,
				.fat_type = 32,
				.cluster_size = 512,
				.first_cluster = 7,
				.clusters = 8,
				.data = 1 << 20,
				.entry = 1 << 19,
				.fats = { 4096, 8192 },
				.n_fats = 2,
				.fsinfo = { 512, 3584 },
				.n_fsinfo = 2,
				.free_base = 1000 };
	struct cards_part parts[] = { { .name = "boot", .number = 1, .per_card_uuid = true } };
	struct cards_volume vol = { .partition = "boot",
				    .volume_id = { 67, 3139 },
				    .n_volume_id = 2 };
	struct cards_range mapped[] = { { 0, 4096 }, { 1 << 19, 2 << 20 } };
	struct cards_manifest m = { .image_size = 8 << 20,
				    .seed = "s",
				    .files = &f,
				    .mapped = mapped,
				    .n_mapped = 2,
				    .mapped_sha256 = { 0xab, 1 },
				    .n_files = 1,
				    .gpt_headers = { 512, (8 << 20) - 512 },
				    .n_gpt_headers = 2,
				    .parts = parts,
				    .n_parts = 1,
				    .volumes = &vol,
				    .n_volumes = 1 };
	struct cards_manifest r = { 0 };
	char path[] = "/tmp/test_cards_XXXXXX";
	struct diag d;
	int fd = mkstemp(path);

	(void)state;
	diag_init(&d);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(round_trip(&m, path, &r, &d), 0);
	assert_int_equal(r.n_files, 1);
	assert_string_equal(r.files[0].path, f.path);
	assert_string_equal(r.files[0].template, f.template);
	assert_int_equal(r.files[0].free_base, 1000);
	assert_int_equal(r.files[0].fsinfo[1], 3584);
	assert_int_equal(r.n_gpt_headers, 2);
	assert_int_equal(r.n_parts, 1);
	assert_true(r.parts[0].per_card_uuid);
	assert_int_equal(r.volumes[0].volume_id[1], 3139);
	assert_int_equal(r.n_mapped, 2);
	assert_int_equal(r.mapped[1].end, 2 << 20);
	assert_memory_equal(r.mapped_sha256, m.mapped_sha256, 32);
	/* every key the writer writes, mbr-disk-id too, is one the reader knows */
	m.mbr_disk_id = true;
	assert_int_equal(round_trip(&m, path, &r, &d), 0);
	assert_true(r.mbr_disk_id);
	m.mbr_disk_id = false;
	/* ranges out of order: not a manifest */
	mapped[1] = (struct cards_range){ 0, 4096 };
	assert_int_equal(round_trip(&m, path, &r, &d), -EINVAL);
	mapped[1] = (struct cards_range){ 1 << 19, 2 << 20 };
	/* a reserve smaller than the template, or an offset past the image: not a manifest */
	f.reserve = 3;
	assert_int_equal(round_trip(&m, path, &r, &d), -EINVAL);
	cards_manifest_release(&r);
	unlink(path);
	diag_release(&d);
}

/* A key the format does not have, in a field of an otherwise good manifest, is refused by
 * name. */
static void test_manifest_unknown_key(void **state)
{
	struct cards_file f = { .partition = "p",
				.path = "/a",
				.template = "x",
				.reserve = 512,
				.fat_type = 16,
				.cluster_size = 512,
				.first_cluster = 2,
				.clusters = 1,
				.data = 4096,
				.entry = 2048,
				.fats = { 1024 },
				.n_fats = 1 };
	struct cards_manifest m = { .image_size = 1 << 20, .seed = "s", .files = &f, .n_files = 1 };
	struct cards_manifest r = { 0 };
	char path[] = "/tmp/test_cards_XXXXXX", *text = NULL;
	const char *kind = "\"kind\": \"fat-file\"";
	struct diag d;
	int fd = mkstemp(path);

	(void)state;
	diag_init(&d);
	assert_true(fd >= 0);
	assert_int_equal(cards_manifest_text(&m, &text), 0);
	char *at = strstr(text, kind);
	assert_non_null(at);
	assert_true(dprintf(fd, "%.*s\"evil\": 1, %s", (int)(at - text), text, at) > 0);
	close(fd);
	assert_int_equal(cards_manifest_read(path, &r, &d), -EINVAL);
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.msgs[0].text, ": an unknown key \"evil\""));
	cards_manifest_release(&r);
	free(text);
	unlink(path);
	diag_release(&d);
}

/* FAT12: two files' entries share a byte; each keeps its neighbour's nibble. */
static void test_fat12_chain(void **state)
{
	struct fat_card_file f = { .type = FAT_12,
				   .cluster_size = 512,
				   .first_cluster = 3,
				   .clusters = 3 };
	uint8_t fat[16];

	(void)state;
	assert_int_equal(fat_card_fat_start(&f), 3); /* entries from 2 on: 2 * 12 bits */
	assert_int_equal(fat_card_fat_len(&f), 7);   /* entries 2..5: 6 bytes, and one more */
	memset(fat, 0xAB, sizeof(fat));
	fat_card_chain(&f, 700, fat); /* two clusters used, the third free */
	/* entry 2 (low 12 bits of bytes 0-1 of this window) is the neighbour's: kept */
	assert_int_equal(fat[0], 0xAB);
	assert_int_equal(fat[1] & 0x0F, 0x0B);
	/* entry 3 = 4, entry 4 = EOC, entry 5 = 0 */
	assert_int_equal((fat[1] >> 4) | (fat[2] << 4), 4);
	assert_int_equal(fat[3] | ((fat[4] & 0x0F) << 8), 0xFFF);
	assert_int_equal((fat[4] >> 4) | (fat[5] << 4), 0);
	assert_int_equal(fat_card_used(&f, 0), 0);
	assert_int_equal(fat_card_used(&f, 1536), 3);
}

static void test_overlay(void **state)
{
	uint8_t a[] = { 1, 2, 3 }, b[] = { 9, 9 };
	struct flash_patch v[] = { { .offset = 10, .len = 3, .bytes = a },
				   { .offset = 12, .len = 2, .bytes = b } };
	struct flash_patches p = { .v = v, .n = 2 };
	uint8_t buf[6];

	(void)state;
	memset(buf, 0, sizeof(buf));
	flash_patches_overlay(&p, 9, buf, sizeof(buf)); /* bytes 9..14 */
	uint8_t want[] = { 0, 1, 2, 9, 9, 0 };          /* the later patch wins */
	assert_memory_equal(buf, want, sizeof(want));
	memset(buf, 0, sizeof(buf));
	flash_patches_overlay(&p, 0, buf, 4); /* before them: untouched */
	assert_int_equal(buf[0] | buf[1] | buf[2] | buf[3], 0);
	/* a patch whose last bytes are zeros it does not hold */
	uint8_t c[] = { 7 };
	struct flash_patch z = { .offset = 10, .len = 4, .zero_tail = 3, .bytes = c };
	struct flash_patches pz = { .v = &z, .n = 1 };
	memset(buf, 0xFF, sizeof(buf));
	flash_patches_overlay(&pz, 9, buf, sizeof(buf)); /* bytes 9..14 */
	uint8_t want_z[] = { 0xFF, 7, 0, 0, 0, 0xFF };
	assert_memory_equal(buf, want_z, sizeof(want_z));
	memset(buf, 0xFF, sizeof(buf));
	flash_patches_overlay(&pz, 12, buf, 1); /* inside the zeros alone */
	assert_int_equal(buf[0], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_render),
		cmocka_unit_test(test_render_ids),
		cmocka_unit_test(test_manifest_round_trip),
		cmocka_unit_test(test_manifest_unknown_key),
		cmocka_unit_test(test_fat12_chain),
		cmocka_unit_test(test_overlay),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
