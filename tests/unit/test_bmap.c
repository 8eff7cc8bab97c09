/* SPDX-License-Identifier: MIT */
/* Unit tests: the block map reader (common/bmap), against sdimg's own writer and by hand. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/bmap.h"
#include "common/bytes.h"
#include "common/sha256.h"
#include "common/strbuf.h"
#include "mkimage/builder/builder_priv.h"

#define SUM_A "1111111111111111111111111111111111111111111111111111111111111111"

/* A bmap by hand, with its own checksum made right; %s in @body is the checksum's place. */
static char *make_bmap(const char *body)
{
	size_t len = strlen(body) - 2 + BMAP_HEX_LEN;
	char *text = malloc(len + 1);
	const char *at = strstr(body, "%s");
	struct sha256 *sha;
	struct diag d;
	uint8_t sum[32];

	diag_init(&d);
	assert_int_equal(sha256_new(&sha, &d), 0);
	assert_non_null(text);
	assert_non_null(at);
	size_t head = (size_t)(at - body);
	memcpy(text, body, head);
	memset(text + head, '0', BMAP_HEX_LEN);
	strcpy(text + head + BMAP_HEX_LEN, at + 2);
	assert_int_equal(bmap_file_checksum(sha, text, len, head, sum), 0);
	sha256_free(sha);
	diag_release(&d);
	bytes_hex(sum, 32, text + head);
	text[head + BMAP_HEX_LEN] = at[2];
	return text;
}

static const char good[] =
	"<?xml version=\"1.0\" ?>\n<!-- a comment, < and > allowed -->\n"
	"<bmap version=\"2.0\">\n"
	"  <!-- Image size in bytes -->\n"
	"  <ImageSize> 20580 </ImageSize>\n  <BlockSize> 4096 </BlockSize>\n"
	"  <BlocksCount> 6 </BlocksCount>\n  <MappedBlocksCount> 4 </MappedBlocksCount>\n"
	"  <ChecksumType> sha256 </ChecksumType>\n"
	"  <BmapFileChecksum> %s </BmapFileChecksum>\n"
	"  <BlockMap>\n"
	"    <Range chksum=\"" SUM_A "\"> 0 </Range>\n"
	"    <Range chksum='" SUM_A "'> 3-5 </Range>\n"
	"  </BlockMap>\n</bmap>\n";

static void test_reads_by_hand(void **state)
{
	char *text = make_bmap(good);
	struct bmap b;
	struct diag d;

	(void)state;
	diag_init(&d);
	assert_int_equal(bmap_parse(text, strlen(text), "x.bmap", &b, &d), 0);
	assert_int_equal(b.image_size, 20580);
	assert_int_equal(b.n, 2);
	assert_int_equal(b.ranges[1].first, 3);
	assert_int_equal(b.ranges[1].last, 5);
	assert_int_equal(b.ranges[0].sha256[0], 0x11);
	bmap_release(&b);
	/* one byte changed anywhere: the file's own checksum fails */
	strstr(text, "a comment")[0] = 'A';
	assert_int_equal(bmap_parse(text, strlen(text), "x.bmap", &b, &d), -EINVAL);
	assert_true(diag_has(&d, "x.bmap: the block map's own checksum"));
	free(text);
	diag_release(&d);
}

/* The good text with its first @from replaced by @to, after @prefix, its checksum made right. */
static char *edited(const char *prefix, const char *from, const char *to)
{
	char body[2048];
	const char *at = strstr(good, from);

	assert_non_null(at);
	snprintf(body, sizeof(body), "%s%.*s%s%s", prefix, (int)(at - good), good, to,
		 at + strlen(from));
	return make_bmap(body);
}

/* The good text edited (edited()) is read, with its second range 3-5. */
static void expect_read(const char *prefix, const char *from, const char *to)
{
	char *text = edited(prefix, from, to);
	struct bmap b;
	struct diag d;

	diag_init(&d);
	if (bmap_parse(text, strlen(text), "x.bmap", &b, &d) != 0)
		diag_print(&d, stderr, "  got");
	assert_int_equal(d.n, 0);
	assert_int_equal(b.n, 2);
	assert_int_equal(b.ranges[1].first, 3);
	assert_int_equal(b.ranges[1].last, 5);
	bmap_release(&b);
	diag_release(&d);
	free(text);
}

/* What bmaptool reads too: format 1.4 (2.0 under its first number), a UTF-8 byte order
 * mark, "FIRST - LAST" ranges, single blocks as "N-N". */
static void test_reads_as_bmaptool(void **state)
{
	(void)state;
	expect_read("", "version=\"2.0\"", "version=\"1.4\"");
	expect_read("", "version=\"2.0\"", "version=\"2.1\"");
	expect_read("\xEF\xBB\xBF", "", "");
	expect_read("", "> 3-5 <", "> 3 - 5 <");
	expect_read("", "> 0 <", "> 0-0 <");
}

static void test_reads_what_build_writes(void **state)
{
	struct build_map m = { 0 };
	struct strbuf s = { 0 };
	struct sha256 *sha;
	struct bmap b;
	struct diag d;

	(void)state;
	diag_init(&d);
	assert_int_equal(sha256_new(&sha, &d), 0);
	assert_int_equal(build_map_add(&m, 0, 512), 0);
	assert_int_equal(build_map_add(&m, 1 << 20, 3 << 20), 0);
	build_map_to_blocks(&m, BMAP_BLOCK_SIZE, 64 << 20);
	m.v[1].sha256[31] = 0xAB;
	assert_int_equal(build_bmap_text(&m, 64 << 20, "card.img", sha, &s), 0);
	sha256_free(sha);
	assert_int_equal(bmap_parse(s.s, s.len, "card.img.bmap", &b, &d), 0);
	assert_int_equal(b.blocks, 16384);
	assert_int_equal(b.mapped, 1 + 768);
	assert_int_equal(b.ranges[1].first, 256);
	assert_int_equal(b.ranges[1].last, 256 + 767);
	assert_int_equal(b.ranges[1].sha256[31], 0xAB);
	bmap_release(&b);
	strbuf_release(&s);
	build_map_release(&m);
	diag_release(&d);
}

/* Replaces the first @from in the good text by @to and expects @needle in the error. */
static void expect_refused(const char *from, const char *to, const char *needle)
{
	char *text = edited("", from, to);
	struct bmap b;
	struct diag d;

	diag_init(&d);
	int rc = bmap_parse(text, strlen(text), "x.bmap", &b, &d);
	if (rc != -EINVAL)
		fprintf(stderr, "  '%s' -> '%s' was not refused\n", from, to);
	assert_int_equal(rc, -EINVAL);
	if (!diag_has(&d, needle))
		diag_print(&d, stderr, "  got");
	assert_true(diag_has(&d, needle));
	diag_release(&d);
	free(text);
}

static void test_refuses(void **state)
{
	(void)state;
	expect_refused("version=\"2.0\"", "version=\"1.3\"",
		       "format 1.3 checks its ranges with SHA-1");
	expect_refused("version=\"2.0\"", "version=\"1.2\"", "format 1.0 to 1.2 has no checksums");
	expect_refused("version=\"2.0\"", "version=\"3.0\"",
		       "newer than sdimg reads (1.4 and 2.x)");
	expect_refused("version=\"2.0\"", "version=\"2\"", "not MAJOR.MINOR");
	expect_refused("version=\"2.0\"", "version=\"2.x\"", "not MAJOR.MINOR");
	expect_refused("> 3-5 <", "> 3 - -5 <", "a number is expected");
	expect_refused("> 3-5 <", "> 0-5 <", "do not ascend apart");
	expect_refused("> 3-5 <", "> 5-3 <", "do not ascend apart");
	expect_refused("> 3-5 <", "> 3-6 <", "past the end of the image");
	expect_refused("<BlocksCount> 6 ", "<BlocksCount> 7 ", "BlocksCount does not follow");
	expect_refused("<MappedBlocksCount> 4 ", "<MappedBlocksCount> 5 ",
		       "MappedBlocksCount does not match");
	expect_refused("<BlockSize> 4096 ", "<BlockSize> 512 ", "BlockSize is not 4096");
	expect_refused("sha256 </Ch", "sha1 </Ch", "only sha256");
	expect_refused("<ImageSize> 20580 ", "<ImageSize> -1 ", "a number is expected");
	expect_refused("<ImageSize> 20580 ", "<ImageSize> 1&amp;2 ", "holds an entity");
	expect_refused("<BlockSize>", "<BlockSize x='1'>",
		       "an attribute this format does not give");
	expect_refused("<ChecksumType>", "<Checksum>", "an element this format does not have");
	expect_refused("  <BlockMap>", "  <ImageSize> 1 </ImageSize><BlockMap>", "appears twice");
	expect_refused(" chksum=\"" SUM_A "\"> 0 ", "> 0 ", "a range has no chksum");
	expect_refused(" chksum=\"" SUM_A "\"> 0 ", " chksum=\"11\"> 0 ", "not 64 hex digits");
	expect_refused("</bmap>", "</bmap><x/>", "something follows");
	expect_refused("in bytes -->", "in bytes --", "never closed");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reads_by_hand),
		cmocka_unit_test(test_reads_as_bmaptool),
		cmocka_unit_test(test_reads_what_build_writes),
		cmocka_unit_test(test_refuses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
