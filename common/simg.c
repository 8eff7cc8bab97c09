/* SPDX-License-Identifier: MIT */
/* simg: Android sparse images read and checked, and written out (see simg.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "common/array.h"
#include "common/bytes.h"
#include "common/path.h"
#include "common/simg.h"
#include "common/sparse.h"

#define COPY_BUF (1u << 20)

void simg_put_file_header(uint8_t out[SIMG_FILE_HEADER_SIZE], const struct simg_file_header *h)
{
	put_le32(out, h->magic);
	put_le16(out + 4, h->major_version);
	put_le16(out + 6, h->minor_version);
	put_le16(out + 8, h->file_hdr_sz);
	put_le16(out + 10, h->chunk_hdr_sz);
	put_le32(out + 12, h->blk_sz);
	put_le32(out + 16, h->total_blks);
	put_le32(out + 20, h->total_chunks);
	put_le32(out + 24, h->image_checksum);
}

void simg_get_file_header(const uint8_t in[SIMG_FILE_HEADER_SIZE], struct simg_file_header *h)
{
	h->magic = get_le32(in);
	h->major_version = get_le16(in + 4);
	h->minor_version = get_le16(in + 6);
	h->file_hdr_sz = get_le16(in + 8);
	h->chunk_hdr_sz = get_le16(in + 10);
	h->blk_sz = get_le32(in + 12);
	h->total_blks = get_le32(in + 16);
	h->total_chunks = get_le32(in + 20);
	h->image_checksum = get_le32(in + 24);
}

void simg_put_chunk_header(uint8_t out[SIMG_CHUNK_HEADER_SIZE], const struct simg_chunk_header *c)
{
	put_le16(out, c->chunk_type);
	put_le16(out + 2, c->reserved1);
	put_le32(out + 4, c->chunk_sz);
	put_le32(out + 8, c->total_sz);
}

void simg_get_chunk_header(const uint8_t in[SIMG_CHUNK_HEADER_SIZE], struct simg_chunk_header *c)
{
	c->chunk_type = get_le16(in);
	c->reserved1 = get_le16(in + 2);
	c->chunk_sz = get_le32(in + 4);
	c->total_sz = get_le32(in + 8);
}

bool simg_is_sparse(const uint8_t *p, size_t n)
{
	return n >= 4 && get_le32(p) == SIMG_MAGIC;
}

/* ---- the headers checked ---- */

static int check_file_header(const struct simg_file_header *h, uint64_t file_size, const char *name,
			     struct diag *d)
{
	if (h->magic != SIMG_MAGIC)
		return diag_error(d, "%s: not an Android sparse image (magic 0x%08x)", name,
				  h->magic);
	if (h->major_version != SIMG_MAJOR)
		return diag_error(d, "%s: sparse image version %u.%u, only 1.x is read", name,
				  h->major_version, h->minor_version);
	if (h->file_hdr_sz < SIMG_FILE_HEADER_SIZE || h->chunk_hdr_sz < SIMG_CHUNK_HEADER_SIZE)
		return diag_error(d,
				  "%s: sparse image header sizes %u and %u, at least 28 and 12 "
				  "expected",
				  name, h->file_hdr_sz, h->chunk_hdr_sz);
	if (h->blk_sz == 0 || h->blk_sz % 4)
		return diag_error(d, "%s: sparse image block size %u is not a multiple of 4", name,
				  h->blk_sz);
	if (h->file_hdr_sz > file_size)
		return diag_error(d, "%s: the sparse image ends inside its header", name);
	return 0;
}

/* The bytes of data a chunk of @type and @blocks must carry, in *@ret; false for an unknown
 * type. (At most (2^32 - 1)^2: no overflow.) */
static bool data_bytes(uint16_t type, uint32_t blocks, uint32_t block_size, uint64_t *ret)
{
	switch (type) {
	case SIMG_CHUNK_RAW:
		*ret = (uint64_t)blocks * block_size;
		return true;
	case SIMG_CHUNK_FILL:
	case SIMG_CHUNK_CRC32:
		*ret = 4;
		return true;
	case SIMG_CHUNK_DONT_CARE:
		*ret = 0;
		return true;
	default:
		return false;
	}
}

static const char *type_name(uint16_t type)
{
	return type == SIMG_CHUNK_RAW         ? "RAW"
	       : type == SIMG_CHUNK_FILL      ? "FILL"
	       : type == SIMG_CHUNK_DONT_CARE ? "DONT_CARE"
					      : "CRC32";
}

struct walk {
	int fd;
	const char *name;
	uint64_t file_size;
	const struct simg_file_header *h;
	struct simg *s;
	struct diag *d;
	uint64_t pos;   /* the next chunk header in the file */
	uint64_t block; /* the next block of the image */
};

static int add_chunk(struct simg *s, const struct simg_chunk *c)
{
	if (array_grow((void **)&s->chunks, &s->cap, s->n + 1, sizeof(*s->chunks)) < 0)
		return -ENOMEM;
	s->chunks[s->n++] = *c;
	return 0;
}

static int add_crc(struct simg *s, const struct simg_crc *c)
{
	if (array_grow((void **)&s->crcs, &s->cap_crcs, s->n_crcs + 1, sizeof(*s->crcs)) < 0)
		return -ENOMEM;
	s->crcs[s->n_crcs++] = *c;
	return 0;
}

/* Chunk @number (from 1), whose header is at w->pos. */
static int read_chunk(struct walk *w, uint32_t number)
{
	uint8_t raw[SIMG_CHUNK_HEADER_SIZE], word[4];
	struct simg_chunk_header c;
	uint64_t hdr = w->h->chunk_hdr_sz;
	int rc;

	if (w->pos + hdr > w->file_size)
		return diag_error(w->d, "%s: chunk %u of %u: the file ends inside its header",
				  w->name, number, w->h->total_chunks);
	rc = path_pread_full(w->fd, raw, sizeof(raw), w->pos);
	if (rc < 0)
		return diag_errno(w->d, rc, "%s: %s", w->name, strerror(-rc));
	simg_get_chunk_header(raw, &c);
	uint64_t data;
	if (!data_bytes(c.chunk_type, c.chunk_sz, w->h->blk_sz, &data))
		return diag_error(w->d, "%s: chunk %u of %u: unknown chunk type 0x%04x", w->name,
				  number, w->h->total_chunks, c.chunk_type);
	if ((uint64_t)c.total_sz != hdr + data)
		return diag_error(w->d,
				  "%s: chunk %u of %u: a %s chunk of %u block%s has total_sz "
				  "%u, not %llu",
				  w->name, number, w->h->total_chunks, type_name(c.chunk_type),
				  c.chunk_sz, c.chunk_sz == 1 ? "" : "s", c.total_sz,
				  (unsigned long long)(hdr + (uint64_t)data));
	if (c.chunk_type == SIMG_CHUNK_CRC32 && c.chunk_sz)
		return diag_error(w->d, "%s: chunk %u of %u: a CRC32 chunk of %u block%s, not 0",
				  w->name, number, w->h->total_chunks, c.chunk_sz,
				  c.chunk_sz == 1 ? "" : "s");
	if (w->pos + c.total_sz > w->file_size)
		return diag_error(w->d, "%s: chunk %u of %u: the file ends inside its data",
				  w->name, number, w->h->total_chunks);
	if (w->block + c.chunk_sz > w->h->total_blks)
		return diag_error(w->d,
				  "%s: chunk %u of %u: blocks %llu to %llu, past the %u blocks "
				  "the header declares",
				  w->name, number, w->h->total_chunks, (unsigned long long)w->block,
				  (unsigned long long)(w->block + c.chunk_sz - 1),
				  w->h->total_blks);
	if (c.chunk_type == SIMG_CHUNK_FILL || c.chunk_type == SIMG_CHUNK_CRC32) {
		rc = path_pread_full(w->fd, word, sizeof(word), w->pos + hdr);
		if (rc < 0)
			return diag_errno(w->d, rc, "%s: %s", w->name, strerror(-rc));
	}
	rc = 0;
	if (c.chunk_type == SIMG_CHUNK_CRC32)
		rc = add_crc(w->s, &(struct simg_crc){ .crc = get_le32(word),
						       .block = w->block,
						       .number = number,
						       .of = w->h->total_chunks });
	else if (c.chunk_type != SIMG_CHUNK_DONT_CARE && c.chunk_sz)
		rc = add_chunk(w->s, &(struct simg_chunk){ .type = c.chunk_type,
							   .fill = c.chunk_type == SIMG_CHUNK_FILL
									   ? get_le32(word)
									   : 0,
							   .block = w->block,
							   .blocks = c.chunk_sz,
							   .offset = w->pos + hdr });
	w->pos += c.total_sz;
	w->block += c.chunk_sz;
	return rc;
}

int simg_read(int fd, uint64_t file_size, const char *name, struct simg *s, struct diag *d)
{
	uint8_t raw[SIMG_FILE_HEADER_SIZE];
	struct simg_file_header h;
	int rc;

	*s = (struct simg){ 0 };
	if (file_size < SIMG_FILE_HEADER_SIZE)
		return diag_error(d, "%s: the sparse image ends inside its header", name);
	rc = path_pread_full(fd, raw, sizeof(raw), 0);
	if (rc < 0)
		return diag_errno(d, rc == -ENODATA ? -EINVAL : rc, "%s: %s", name,
				  rc == -ENODATA ? "the file shrank" : strerror(-rc));
	simg_get_file_header(raw, &h);
	rc = check_file_header(&h, file_size, name, d);
	if (rc < 0)
		return rc;
	s->block_size = h.blk_sz;
	s->blocks = h.total_blks;
	s->image_size = (uint64_t)h.total_blks * h.blk_sz;
	struct walk w = {
		.fd = fd,
		.name = name,
		.file_size = file_size,
		.h = &h,
		.s = s,
		.d = d,
		.pos = h.file_hdr_sz,
	};
	for (uint32_t i = 0; rc == 0 && i < h.total_chunks; i++) {
		if (w.pos == file_size)
			rc = diag_error(d,
					"%s: the file ends after chunk %u of the %u its header "
					"counts",
					name, i, h.total_chunks);
		else
			rc = read_chunk(&w, i + 1);
	}
	if (rc == 0 && w.block != h.total_blks)
		rc = diag_error(d,
				"%s: its chunks (%u) stand for %llu blocks, the header declares %u",
				name, h.total_chunks, (unsigned long long)w.block, h.total_blks);
	if (rc == 0 && w.pos != file_size)
		rc = diag_error(d, "%s: %llu bytes after chunk %u, the last its header counts",
				name, (unsigned long long)(file_size - w.pos), h.total_chunks);
	if (rc == -ENOMEM)
		diag_error(d, "%s: out of memory", name);
	if (rc < 0)
		simg_release(s);
	return rc;
}

void simg_release(struct simg *s)
{
	free(s->chunks);
	free(s->crcs);
	*s = (struct simg){ 0 };
}

/* ---- the image written out ---- */

/* The CRC-32 of @crc's data followed by @len zero bytes (zlib's crc32_combine()). */
uint32_t simg_crc32_zeros(uint32_t crc, uint64_t len)
{
	static const uint8_t zeros[4096];
	uLong z = crc32(0, zeros, sizeof(zeros)), zl = sizeof(zeros);

	while (len >= sizeof(zeros) && len / 2 >= zl) { /* doubled up to half of @len */
		z = crc32_combine64(z, z, (z_off64_t)zl);
		zl *= 2;
	}
	while (len >= zl) {
		crc = (uint32_t)crc32_combine64(crc, z, (z_off64_t)zl);
		len -= zl;
	}
	while (len) {
		uInt n = len < sizeof(zeros) ? (uInt)len : (uInt)sizeof(zeros);
		crc = (uint32_t)crc32(crc, zeros, n);
		len -= n;
	}
	return crc;
}

struct expand {
	const struct simg *s;
	int fd, out;
	const char *name;
	struct diag *d;
	uint8_t *buf;
	uint32_t crc;
	uint64_t done; /* bytes of the image the CRC has seen */
	size_t next_crc;
};

/* The CRC32 chunks up to block @block checked; the CRC advanced over zeros up to it. */
static int check_crcs(struct expand *e, uint64_t upto)
{
	const struct simg *s = e->s;

	while (e->next_crc < s->n_crcs && s->crcs[e->next_crc].block <= upto) {
		const struct simg_crc *c = &s->crcs[e->next_crc++];
		uint64_t at = c->block * s->block_size;
		e->crc = simg_crc32_zeros(e->crc, at - e->done);
		e->done = at;
		if (c->crc != e->crc)
			return diag_error(e->d,
					  "%s: chunk %u of %u: its CRC-32 is 0x%08x, the image's "
					  "up to it is 0x%08x",
					  e->name, c->number, c->of, c->crc, e->crc);
	}
	uint64_t at = upto * s->block_size;
	if (e->next_crc < s->n_crcs && at > e->done) {
		e->crc = simg_crc32_zeros(e->crc, at - e->done);
		e->done = at;
	}
	return 0;
}

static int put(struct expand *e, const uint8_t *p, size_t len, uint64_t at)
{
	uint64_t failed;
	int rc = sparse_write(e->out, p, len, at, &failed);

	if (rc < 0)
		return diag_errno(e->d, rc, "%s: writing its image out: %s", e->name,
				  strerror(-rc));
	if (e->next_crc < e->s->n_crcs) {
		e->crc = (uint32_t)crc32(e->crc, p, (uInt)len);
		e->done += len;
	}
	return 0;
}

static int expand_raw(struct expand *e, const struct simg_chunk *c)
{
	uint64_t len = c->blocks * e->s->block_size, off = c->offset;
	uint64_t at = c->block * e->s->block_size;

	while (len) {
		size_t n = len < COPY_BUF ? (size_t)len : COPY_BUF;
		int rc = path_pread_full(e->fd, e->buf, n, off);
		if (rc == -ENODATA)
			return diag_error(e->d, "%s: the file shrank while it was read", e->name);
		if (rc < 0)
			return diag_errno(e->d, rc, "%s: %s", e->name, strerror(-rc));
		if ((rc = put(e, e->buf, n, at)) < 0)
			return rc;
		off += n, at += n, len -= n;
	}
	return 0;
}

static int expand_fill(struct expand *e, const struct simg_chunk *c)
{
	uint64_t len = c->blocks * e->s->block_size, at = c->block * e->s->block_size;

	for (size_t i = 0; i < COPY_BUF; i += 4)
		put_le32(e->buf + i, c->fill);
	if (c->fill == 0 && e->next_crc >= e->s->n_crcs)
		return 0; /* zeros: the file reads them already */
	while (len) {
		size_t n = len < COPY_BUF ? (size_t)len : COPY_BUF;
		int rc = put(e, e->buf, n, at);
		if (rc < 0)
			return rc;
		at += n, len -= n;
	}
	return 0;
}

int simg_expand(const struct simg *s, int fd, const char *name, int out, struct diag *d)
{
	struct expand e = { .s = s, .fd = fd, .out = out, .name = name, .d = d };
	int rc = 0;

	if (!(e.buf = malloc(COPY_BUF)))
		return diag_errno(d, -ENOMEM, "%s: out of memory", name);
	for (size_t i = 0; rc == 0 && i < s->n; i++) {
		rc = check_crcs(&e, s->chunks[i].block);
		if (rc == 0)
			rc = s->chunks[i].type == SIMG_CHUNK_RAW ? expand_raw(&e, &s->chunks[i])
								 : expand_fill(&e, &s->chunks[i]);
	}
	if (rc == 0)
		rc = check_crcs(&e, s->blocks);
	free(e.buf);
	return rc;
}

int simg_open_expanded(int fd, uint64_t file_size, const char *name, struct simg *s, int *ret_fd,
		       struct diag *d)
{
	const char *tmpdir = getenv("TMPDIR"), *dir = tmpdir && *tmpdir ? tmpdir : "/var/tmp";
	int rc = simg_read(fd, file_size, name, s, d), out = -1;

	if (rc < 0)
		return rc; /* @s is released */
	if ((out = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600)) < 0)
		rc = diag_errno(d, -errno, "%s: no room for its image in %s: %s", name, dir,
				strerror(errno));
	if (rc == 0 && ftruncate(out, (off_t)s->image_size) < 0)
		rc = diag_errno(d, -errno, "%s: no room for its %llu-byte image in %s: %s", name,
				(unsigned long long)s->image_size, dir, strerror(errno));
	if (rc == 0)
		rc = simg_expand(s, fd, name, out, d);
	if (rc < 0) {
		if (out >= 0)
			close(out);
		simg_release(s);
		return rc;
	}
	*ret_fd = out;
	return 0;
}
