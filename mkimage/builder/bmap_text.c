/* SPDX-License-Identifier: MIT */
/*
 * bmap_text: the block map of an image in the format bmaptool reads (format version 2.0): the
 * image size, 4096-byte blocks, the mapped block ranges each with the SHA-256 of its bytes
 * (a partial last block hashed at its real length), and BmapFileChecksum, the SHA-256 of the
 * whole file computed with that element's text taken as 64 '0' characters.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/bmap.h"
#include "common/bytes.h"
#include "common/sha256.h"
#include "common/strbuf.h"
#include "common/utf8.h"
#include "mkimage/builder/map.h"

#define NO_CHECKSUM "0000000000000000000000000000000000000000000000000000000000000000"

static int putf(struct strbuf *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int putf(struct strbuf *s, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	return strbuf_puts(s, line);
}

/* @name as the text of an XML comment, at most @cap - 1 bytes: valid UTF-8 stays, a byte
 * that is not and a control character become '?', and a '-' after a '-' becomes '_' (XML
 * allows no "--" inside a comment). */
static void comment_text(const char *name, char *out, size_t cap)
{
	size_t n = 0;

	while (*name) {
		const char *next = name;
		uint32_t cp;
		bool ok = utf8_decode(&next, &cp) == 0 && cp >= 0x20 && cp != 0x7f &&
			  cp != 0xfffe && cp != 0xffff;
		size_t len = ok ? (size_t)(next - name) : 1;
		if (n + len >= cap)
			break;
		if (!ok)
			out[n++] = '?';
		else if (cp == '-' && n && out[n - 1] == '-')
			out[n++] = '_';
		else
			memcpy(out + n, name, len), n += len;
		name += len;
	}
	out[n] = 0;
}

static int put_ranges(struct strbuf *s, const struct build_map *m)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < m->n; i++) {
		uint64_t first = m->v[i].start / BMAP_BLOCK_SIZE;
		uint64_t last = m->v[i].end / BMAP_BLOCK_SIZE - 1;
		char sum[65];
		bytes_hex(m->v[i].sha256, 32, sum);
		if (first == last)
			rc = putf(s, "        <Range chksum=\"%s\"> %" PRIu64 " </Range>\n", sum,
				  first);
		else
			rc = putf(s,
				  "        <Range chksum=\"%s\"> %" PRIu64 "-%" PRIu64
				  " </Range>\n",
				  sum, first, last);
	}
	return rc;
}

int build_bmap_text(const struct build_map *m, uint64_t image_size, const char *name,
		    struct sha256 *sha, struct strbuf *s)
{
	uint64_t blocks = (image_size + BMAP_BLOCK_SIZE - 1) / BMAP_BLOCK_SIZE, mapped = 0;
	uint8_t digest[32];
	size_t at = 0; /* where the file's checksum goes */
	char sum[65];

	for (size_t i = 0; i < m->n; i++)
		mapped += (m->v[i].end - m->v[i].start) / BMAP_BLOCK_SIZE;
	char shown[151];

	comment_text(name, shown, sizeof(shown));
	int rc = strbuf_puts(s, "<?xml version=\"1.0\" ?>\n<!-- The block map of ");
	if (rc == 0)
		rc = strbuf_puts(s, shown);
	if (rc == 0)
		rc = strbuf_puts(s, ", made by sdimg: the ranges that must read back\n"
				    "     as written (tables, boot code, file system structures, "
				    "files). -->\n"
				    "<bmap version=\"" BMAP_VERSION "\">\n");
	if (rc == 0)
		rc = putf(s,
			  "    <ImageSize> %" PRIu64 " </ImageSize>\n"
			  "    <BlockSize> %u </BlockSize>\n"
			  "    <BlocksCount> %" PRIu64 " </BlocksCount>\n"
			  "    <MappedBlocksCount> %" PRIu64 " </MappedBlocksCount>\n"
			  "    <ChecksumType> sha256 </ChecksumType>\n",
			  image_size, BMAP_BLOCK_SIZE, blocks, mapped);
	if (rc == 0) {
		at = s->len + strlen("    <BmapFileChecksum> ");
		rc = putf(s, "    <BmapFileChecksum> %s </BmapFileChecksum>\n    <BlockMap>\n",
			  NO_CHECKSUM);
	}
	if (rc == 0)
		rc = put_ranges(s, m);
	if (rc == 0)
		rc = strbuf_puts(s, "    </BlockMap>\n</bmap>\n");
	if (rc < 0)
		return rc;
	/* the file's own checksum, over the text with the zeros in its place */
	if ((rc = bmap_file_checksum(sha, s->s, s->len, at, digest)) < 0)
		return rc;
	bytes_hex(digest, sizeof(digest), sum);
	memcpy(s->s + at, sum, 64);
	return 0;
}
