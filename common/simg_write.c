/* SPDX-License-Identifier: MIT */
/* simg_write: Android sparse images written from the ranges of an image that matter (see
 * simg.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "common/array.h"
#include "common/bytes.h"
#include "common/simg.h"

#define BUF (1u << 20)

const char *simg_block_size_problem(uint64_t block_size)
{
	if (block_size == 0 || block_size % 512)
		return "is not a multiple of 512";
	if (block_size > SIMG_MAX_BLOCK)
		return "is over 64 MiB";
	return NULL;
}

/* ---- the plan: which blocks are RAW, which FILL ---- */

static int by_start(const void *a, const void *b)
{
	const struct simg_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The ranges widened to blocks, sorted and merged, in block numbers. */
static int block_ranges(const struct simg_range *in, size_t n, uint32_t bs, uint64_t blocks,
			struct simg_range **ret, size_t *n_ret)
{
	struct simg_range *v = n ? malloc(n * sizeof(*v)) : NULL;
	size_t m = 0;

	if (n && !v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint64_t first = in[i].start / bs, end = in[i].end / bs + (in[i].end % bs != 0);
		if (end > blocks)
			end = blocks;
		if (first < end)
			v[m++] = (struct simg_range){ first, end };
	}
	if (m > 1)
		qsort(v, m, sizeof(*v), by_start);
	size_t k = 0;
	for (size_t i = 0; i < m; i++) {
		if (k && v[i].start <= v[k - 1].end) {
			if (v[i].end > v[k - 1].end)
				v[k - 1].end = v[i].end;
			continue;
		}
		v[k++] = v[i];
	}
	*ret = v;
	*n_ret = k;
	return 0;
}

/* Whether the @len bytes at @p are one 32-bit word repeated (the word in *@word). */
static bool one_word(const uint8_t *p, size_t len, uint32_t *word)
{
	*word = get_le32(p);
	return memcmp(p, p + 4, len - 4) == 0;
}

/* Where the stretch [@at, @at + @len) of @im begins (see struct simg_image). */
static void locate(const struct simg_image *im, uint64_t at, uint64_t len, struct simg_source *src)
{
	*src = (struct simg_source){ .fd = im->fd, .off = at, .len = len, .name = im->name };
	if (im->locate)
		im->locate(im->locate_ctx, at, len, src);
}

/* All @len bytes of @im from its byte @at into @buf, through short reads and EINTR. */
static int read_image(const struct simg_image *im, uint8_t *buf, size_t len, uint64_t at,
		      struct diag *d)
{
	while (len) {
		struct simg_source src;
		locate(im, at, len, &src);
		ssize_t k = pread(src.fd, buf, (size_t)src.len, (off_t)src.off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return diag_errno(d, -errno, "%s: reading it: %s", src.name,
					  strerror(errno));
		if (k == 0)
			return diag_errno(d, -EIO,
					  "%s: reading it: it ends before its byte %llu (it "
					  "changed while the image was built)",
					  src.name, (unsigned long long)src.off);
		buf += k;
		at += (uint64_t)k;
		len -= (size_t)k;
	}
	return 0;
}

struct planner {
	struct simg *s;
	uint64_t max_raw; /* blocks of one RAW chunk: its total_sz is 32 bits */
};

static int add_block(struct planner *pl, uint64_t block, bool fill, uint32_t word)
{
	struct simg *s = pl->s;
	uint16_t type = fill ? SIMG_CHUNK_FILL : SIMG_CHUNK_RAW;
	struct simg_chunk *last = s->n ? &s->chunks[s->n - 1] : NULL;

	if (last && last->block + last->blocks == block && last->type == type &&
	    (!fill || last->fill == word) &&
	    last->blocks < (fill ? (uint64_t)UINT32_MAX : pl->max_raw)) {
		last->blocks++;
		return 0;
	}
	if (array_grow((void **)&s->chunks, &s->cap, s->n + 1, sizeof(*s->chunks)) < 0)
		return -ENOMEM;
	s->chunks[s->n++] = (struct simg_chunk){ .type = type,
						 .fill = fill ? word : 0,
						 .block = block,
						 .blocks = 1 };
	return 0;
}

static int plan_range(struct planner *pl, const struct simg_image *im, const struct simg_range *r,
		      uint8_t *buf, size_t buf_blocks, struct diag *d)
{
	uint32_t bs = pl->s->block_size;

	for (uint64_t b = r->start; b < r->end;) {
		size_t n = r->end - b < buf_blocks ? (size_t)(r->end - b) : buf_blocks;
		int rc = read_image(im, buf, n * bs, b * bs, d);
		for (size_t i = 0; rc == 0 && i < n; i++) {
			uint32_t word;
			bool fill = one_word(buf + i * bs, bs, &word);
			rc = add_block(pl, b + i, fill, word);
		}
		if (rc < 0)
			return rc;
		b += n;
	}
	return 0;
}

int simg_size_problem(uint64_t image_size, uint32_t block_size, const char *name, struct diag *d)
{
	if (image_size % block_size)
		return diag_error(d,
				  "%s: its %llu bytes are not a whole number of %u-byte sparse "
				  "blocks: choose a --simg-block-size that divides it (512 always "
				  "does)",
				  name, (unsigned long long)image_size, block_size);
	if (image_size / block_size > UINT32_MAX)
		return diag_error(d,
				  "%s: %llu blocks of %u bytes, over the 2^32 - 1 a sparse image "
				  "counts: choose a larger --simg-block-size",
				  name, (unsigned long long)(image_size / block_size), block_size);
	return 0;
}

int simg_plan(const struct simg_image *im, uint64_t image_size, uint32_t block_size,
	      const struct simg_range *ranges, size_t n, struct simg *s, struct diag *d)
{
	struct simg_range *v = NULL;
	size_t m = 0;
	int rc;

	*s = (struct simg){ .block_size = block_size,
			    .blocks = image_size / block_size,
			    .image_size = image_size };
	rc = simg_size_problem(image_size, block_size, im->name, d);
	if (rc < 0)
		return rc;
	size_t buf_blocks = BUF / block_size ? BUF / block_size : 1;
	uint8_t *buf = calloc(buf_blocks, block_size); /* zeroed: never read unset */
	struct planner pl = { .s = s,
			      .max_raw = (UINT32_MAX - SIMG_CHUNK_HEADER_SIZE) / block_size };

	rc = buf ? block_ranges(ranges, n, block_size, s->blocks, &v, &m) : -ENOMEM;
	for (size_t i = 0; rc == 0 && i < m; i++)
		rc = plan_range(&pl, im, &v[i], buf, buf_blocks, d);
	free(v);
	free(buf);
	if (rc == -ENOMEM)
		diag_error(d, "%s: out of memory", im->name);
	if (rc < 0)
		simg_release(s);
	return rc;
}

/* ---- the split into files of at most a size ---- */

/* The bytes of @blocks blocks of chunk @c in a file, its header included. */
static uint64_t chunk_bytes(const struct simg *s, const struct simg_chunk *c, uint64_t blocks)
{
	return SIMG_CHUNK_HEADER_SIZE + (c->type == SIMG_CHUNK_RAW ? blocks * s->block_size : 4);
}

uint64_t simg_piece_size(const struct simg *s, const struct simg_piece *p, bool crc)
{
	uint64_t size = SIMG_FILE_HEADER_SIZE + (crc ? SIMG_CHUNK_HEADER_SIZE + 4 : 0);
	uint64_t block = 0;

	for (size_t i = p->first; !p->empty && i <= p->last; i++) {
		const struct simg_chunk *c = &s->chunks[i];
		uint64_t from = i == p->first ? p->first_from : c->block;
		uint64_t to = i == p->last ? p->last_to : c->block + c->blocks;
		size += (from > block ? SIMG_CHUNK_HEADER_SIZE : 0) + chunk_bytes(s, c, to - from);
		block = to;
	}
	return size + (block < s->blocks ? SIMG_CHUNK_HEADER_SIZE : 0);
}

struct splitter {
	const struct simg *s;
	uint64_t max, fixed; /* the file header and a CRC32 chunk */
	struct simg_piece *v;
	size_t n, cap;
	uint64_t used;  /* bytes of the piece being filled */
	uint64_t block; /* the block its chunks reach */
};

static int new_piece(struct splitter *sp, size_t i, uint64_t from)
{
	if (array_grow((void **)&sp->v, &sp->cap, sp->n + 1, sizeof(*sp->v)) < 0)
		return -ENOMEM;
	sp->v[sp->n++] = (struct simg_piece){ .first = i, .last = i, .first_from = from };
	sp->used = sp->fixed;
	sp->block = 0;
	return 0;
}

/* Chunk @i into the pieces, cut where a RAW one does not fit whole. */
static int split_chunk(struct splitter *sp, size_t i)
{
	const struct simg_chunk *c = &sp->s->chunks[i];
	uint64_t from = c->block, end = c->block + c->blocks;

	while (from < end) {
		/* a DONT_CARE before it when the piece does not reach it, and one after it
		 * unless it ends the image (a piece may end there) */
		uint64_t room = sp->max - sp->used;
		uint64_t gap = from > sp->block ? SIMG_CHUNK_HEADER_SIZE : 0;
		uint64_t after = end < sp->s->blocks ? SIMG_CHUNK_HEADER_SIZE : 0;
		uint64_t fits = 0;
		if (room >= gap + chunk_bytes(sp->s, c, end - from) + after)
			fits = end - from;
		else if (c->type == SIMG_CHUNK_RAW &&
			 room >= gap + chunk_bytes(sp->s, c, 1) + SIMG_CHUNK_HEADER_SIZE)
			fits = (room - gap - 2 * SIMG_CHUNK_HEADER_SIZE) / sp->s->block_size;
		if (!fits) {
			int rc = new_piece(sp, i, from);
			if (rc < 0)
				return rc;
			continue; /* an empty piece holds a block: checked by simg_split() */
		}
		struct simg_piece *p = &sp->v[sp->n - 1];
		p->last = i;
		p->last_to = from + fits;
		sp->used += gap + chunk_bytes(sp->s, c, fits);
		from += fits;
		sp->block = from;
	}
	return 0;
}

uint64_t simg_least_piece(uint32_t block_size, bool crc)
{
	/* the header, a DONT_CARE, one block of RAW, a DONT_CARE, the CRC32 chunk */
	return SIMG_FILE_HEADER_SIZE + 3 * SIMG_CHUNK_HEADER_SIZE + block_size +
	       (crc ? SIMG_CHUNK_HEADER_SIZE + 4 : 0);
}

int simg_split(const struct simg *s, uint64_t max_size, bool crc, struct simg_piece **ret,
	       size_t *n_ret, struct diag *d)
{
	struct splitter sp = { .s = s,
			       .max = max_size ? max_size : UINT64_MAX,
			       .fixed = SIMG_FILE_HEADER_SIZE +
					(crc ? SIMG_CHUNK_HEADER_SIZE + 4 : 0) };
	uint64_t least = s->n ? simg_least_piece(s->block_size, crc)
			      : sp.fixed + 2 * SIMG_CHUNK_HEADER_SIZE;
	int rc = 0;

	*ret = NULL;
	*n_ret = 0;
	if (max_size && max_size < least)
		return diag_error(d,
				  "--simg-max-size %llu: a sparse file of %u-byte blocks needs at "
				  "least %llu bytes",
				  (unsigned long long)max_size, s->block_size,
				  (unsigned long long)least);
	if (!s->n) {
		rc = new_piece(&sp, 0, 0);
		if (rc == 0)
			sp.v[0].empty = true;
	}
	for (size_t i = 0; rc == 0 && i < s->n; i++) {
		if (!sp.n)
			rc = new_piece(&sp, i, s->chunks[i].block);
		if (rc == 0)
			rc = split_chunk(&sp, i);
	}
	if (rc < 0) {
		free(sp.v);
		return diag_errno(d, rc, "out of memory");
	}
	*ret = sp.v;
	*n_ret = sp.n;
	return 0;
}

/* ---- one sparse file written ---- */

struct out {
	const struct simg *s;
	const struct simg_write *w;
	struct diag *d;
	uint8_t *buf; /* BUF bytes waiting to be written */
	size_t len;
	uint8_t *data; /* BUF bytes read from the image */
	uint32_t crc;  /* of the image as this file defines it, so far */
	uint64_t block;
	uint64_t written, behind; /* bytes written; those whose writeback has started */
};

/* Starts the writeback of what was written since the last start, once every WINDOW bytes:
 * the disk writes while the file is made, the final fsync() has little left (a hint). */
#define WINDOW (32u << 20)
static void write_behind(struct out *o, uint64_t len)
{
	o->written += len;
	if (o->written - o->behind < WINDOW)
		return;
	(void)sync_file_range(o->w->out, (off64_t)o->behind, (off64_t)(o->written - o->behind),
			      SYNC_FILE_RANGE_WRITE);
	o->behind = o->written;
}

/* @len bytes at @p written to the file, through short writes and EINTR, their writeback
 * started as they go (write_behind()). */
static int write_out(struct out *o, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t k = write(o->w->out, p, len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			int e = k < 0 ? errno : EIO;
			return diag_errno(o->d, -e, "%s: %s", o->w->out_name, strerror(e));
		}
		p += k;
		len -= (size_t)k;
		write_behind(o, (uint64_t)k);
	}
	return 0;
}

static int flush(struct out *o)
{
	int rc;

	if (o->w->sink && o->len)
		o->w->sink(o->w->sink_ctx, o->buf, o->len);
	if ((rc = write_out(o, o->buf, o->len)) < 0)
		return rc;
	o->len = 0;
	if (o->w->stop && o->w->stop(o->w->stop_ctx))
		return -EINTR;
	return 0;
}

static int emit(struct out *o, const void *p, size_t len)
{
	while (len) {
		size_t n = BUF - o->len < len ? BUF - o->len : len;
		memcpy(o->buf + o->len, p, n);
		o->len += n;
		p = (const uint8_t *)p + n;
		len -= n;
		if (o->len == BUF) {
			int rc = flush(o);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

static int emit_chunk_header(struct out *o, uint16_t type, uint64_t blocks, uint64_t data)
{
	uint8_t h[SIMG_CHUNK_HEADER_SIZE];

	simg_put_chunk_header(h, &(struct simg_chunk_header){
					 .chunk_type = type,
					 .chunk_sz = (uint32_t)blocks,
					 .total_sz = (uint32_t)(SIMG_CHUNK_HEADER_SIZE + data),
				 });
	return emit(o, h, sizeof(h));
}

/* DONT_CARE up to block @to, if any is left before it. */
static int emit_gap(struct out *o, uint64_t to)
{
	if (to <= o->block)
		return 0;
	if (o->w->crc)
		o->crc = simg_crc32_zeros(o->crc, (to - o->block) * o->s->block_size);
	int rc = emit_chunk_header(o, SIMG_CHUNK_DONT_CARE, to - o->block, 0);
	o->block = to;
	return rc;
}

/* [@off, @off + *@len) of the image straight to the file in the kernel (copy_file_range),
 * when nothing needs to see the bytes; *@len is left at what remains (all of it where the
 * kernel cannot, the caller then copies through memory). */
static int copy_in_kernel(struct out *o, uint64_t *off, uint64_t *len)
{
	if (o->w->sink || o->w->crc)
		return 0;
	int rc = flush(o);
	while (rc == 0 && *len) {
		struct simg_source src;
		locate(&o->w->image, *off, *len < 8 * BUF ? *len : 8 * BUF, &src);
		loff_t in = (loff_t)src.off;
		ssize_t k = copy_file_range(src.fd, &in, o->w->out, NULL, (size_t)src.len, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) /* no such call, other file systems, a source cut short, ...:
			     * through memory, which names the fault */
			return 0;
		*off += (uint64_t)k;
		*len -= (uint64_t)k;
		write_behind(o, (uint64_t)k);
		if (o->w->stop && o->w->stop(o->w->stop_ctx))
			rc = -EINTR;
	}
	return rc;
}

static int emit_raw(struct out *o, uint64_t from, uint64_t to)
{
	uint32_t bs = o->s->block_size;
	uint64_t off = from * bs, len = (to - from) * bs;
	int rc = emit_chunk_header(o, SIMG_CHUNK_RAW, to - from, len);

	if (rc == 0)
		rc = copy_in_kernel(o, &off, &len);
	while (rc == 0 && len) {
		size_t n = len < BUF ? (size_t)len : BUF;
		rc = read_image(&o->w->image, o->data, n, off, o->d);
		if (rc == 0 && o->w->crc)
			o->crc = (uint32_t)crc32(o->crc, o->data, (uInt)n);
		if (rc == 0)
			rc = emit(o, o->data, n);
		off += n;
		len -= n;
	}
	return rc;
}

static int emit_fill(struct out *o, uint32_t word, uint64_t from, uint64_t to)
{
	uint8_t w[4];
	int rc = emit_chunk_header(o, SIMG_CHUNK_FILL, to - from, 4);

	put_le32(w, word);
	if (o->w->crc && word == 0) {
		o->crc = simg_crc32_zeros(o->crc, (to - from) * o->s->block_size);
	} else if (o->w->crc) {
		uint8_t pattern[4096];
		for (size_t i = 0; i < sizeof(pattern); i += 4)
			memcpy(pattern + i, w, 4);
		for (uint64_t left = (to - from) * o->s->block_size; left;) {
			uInt n = left < sizeof(pattern) ? (uInt)left : (uInt)sizeof(pattern);
			o->crc = (uint32_t)crc32(o->crc, pattern, n);
			left -= n;
		}
	}
	return rc ? rc : emit(o, w, sizeof(w));
}

static uint32_t piece_chunks(const struct simg *s, const struct simg_piece *p, bool crc)
{
	uint64_t block = 0, n = crc ? 1 : 0;

	for (size_t i = p->first; !p->empty && i <= p->last; i++) {
		uint64_t from = i == p->first ? p->first_from : s->chunks[i].block;
		n += from > block ? 2 : 1;
		block = i == p->last ? p->last_to : s->chunks[i].block + s->chunks[i].blocks;
	}
	return (uint32_t)(n + (block < s->blocks));
}

/* The file header of the piece @p of @s: a sparse image of the whole device. */
static void piece_header(uint8_t h[SIMG_FILE_HEADER_SIZE], const struct simg *s,
			 const struct simg_piece *p, bool crc)
{
	simg_put_file_header(h, &(struct simg_file_header){
					.magic = SIMG_MAGIC,
					.major_version = SIMG_MAJOR,
					.minor_version = SIMG_MINOR,
					.file_hdr_sz = SIMG_FILE_HEADER_SIZE,
					.chunk_hdr_sz = SIMG_CHUNK_HEADER_SIZE,
					.blk_sz = s->block_size,
					.total_blks = (uint32_t)s->blocks,
					.total_chunks = piece_chunks(s, p, crc),
				});
}

static int write_piece(struct out *o, const struct simg_piece *p)
{
	const struct simg *s = o->s;
	uint8_t h[SIMG_FILE_HEADER_SIZE];
	int rc;

	piece_header(h, s, p, o->w->crc);
	rc = emit(o, h, sizeof(h));
	for (size_t i = p->first; rc == 0 && !p->empty && i <= p->last; i++) {
		const struct simg_chunk *c = &s->chunks[i];
		uint64_t from = i == p->first ? p->first_from : c->block;
		uint64_t to = i == p->last ? p->last_to : c->block + c->blocks;
		rc = emit_gap(o, from);
		if (rc == 0)
			rc = c->type == SIMG_CHUNK_RAW ? emit_raw(o, from, to)
						       : emit_fill(o, c->fill, from, to);
		o->block = to;
	}
	if (rc == 0)
		rc = emit_gap(o, s->blocks);
	if (rc == 0 && o->w->crc) {
		uint8_t v[4];
		put_le32(v, o->crc);
		rc = emit_chunk_header(o, SIMG_CHUNK_CRC32, 0, 4);
		if (rc == 0)
			rc = emit(o, v, sizeof(v));
	}
	return rc ? rc : flush(o);
}

int simg_write(const struct simg *s, const struct simg_piece *p, const struct simg_write *w,
	       struct diag *d)
{
	struct out o = { .s = s, .w = w, .d = d, .buf = malloc(BUF), .data = malloc(BUF) };
	int rc = o.buf && o.data ? write_piece(&o, p)
				 : diag_errno(d, -ENOMEM, "%s: out of memory", w->out_name);

	free(o.buf);
	free(o.data);
	return rc;
}

/* ---- one sparse file planned and written in one pass ---- */

/* The image's bytes are read once: each block is looked at and, when it is RAW, written
 * on from the same buffer. A chunk's header is written when the chunk opens (a RAW one's
 * with its size still unknown) and set when the next one opens; the file header's chunk
 * count at the end. */
struct once {
	struct out o;
	struct planner pl;
	size_t data_size;   /* of o.data: BUF, or one block where that is more */
	uint64_t head_at;   /* where the open RAW chunk's header is in the file */
	const uint8_t *run; /* its blocks in the buffer not yet written, */
	size_t run_len;     /* their bytes */
};

/* The bytes @p go to the file at @at, where they were written as placeholders: in the
 * buffer still, or already in the file. */
static int patch(struct out *o, uint64_t at, const uint8_t *p, size_t len)
{
	if (at < o->written) {
		size_t k = o->written - at < len ? (size_t)(o->written - at) : len;
		if (pwrite(o->w->out, p, k, (off_t)at) != (ssize_t)k)
			return diag_errno(o->d, errno ? -errno : -EIO, "%s: %s", o->w->out_name,
					  strerror(errno ? errno : EIO));
		at += k, p += k, len -= k;
	}
	if (len)
		memcpy(o->buf + (at - o->written), p, len);
	return 0;
}

/* The RAW blocks of the buffer waiting since the last call, written from the buffer. */
static int write_run(struct once *x)
{
	struct out *o = &x->o;
	const uint8_t *p = x->run;
	size_t len = x->run_len;
	int rc = len ? flush(o) : 0;

	if (o->w->crc && len)
		o->crc = (uint32_t)crc32(o->crc, p, (uInt)len);
	if (rc == 0)
		rc = write_out(o, p, len);
	x->run_len = 0;
	return rc;
}

/* Chunk @c, which the chunk after it now closes, given its final form: a RAW one's header
 * set, a FILL one written whole. */
static int close_chunk(struct once *x, const struct simg_chunk *c)
{
	struct out *o = &x->o;
	uint8_t h[SIMG_CHUNK_HEADER_SIZE];

	if (c->type == SIMG_CHUNK_FILL)
		return emit_fill(o, c->fill, c->block, c->block + c->blocks);
	simg_put_chunk_header(h, &(struct simg_chunk_header){
					 .chunk_type = SIMG_CHUNK_RAW,
					 .chunk_sz = (uint32_t)c->blocks,
					 .total_sz = (uint32_t)(SIMG_CHUNK_HEADER_SIZE +
								c->blocks * o->s->block_size),
				 });
	return patch(o, x->head_at, h, sizeof(h));
}

/* Block @block, whose bytes are at @p, into the plan and the file. */
static int once_block(struct once *x, uint64_t block, const uint8_t *p)
{
	struct out *o = &x->o;
	struct simg *s = x->pl.s;
	uint32_t bs = s->block_size, word;
	bool fill = one_word(p, bs, &word);
	size_t before = s->n;
	int rc = add_block(&x->pl, block, fill, word);

	if (rc == 0 && s->n > before) { /* a chunk opens: the one before it is complete */
		rc = write_run(x);
		if (rc == 0 && before)
			rc = close_chunk(x, &s->chunks[before - 1]);
		if (rc == 0)
			rc = emit_gap(o, block);
		if (rc == 0 && !fill) {
			static const uint8_t unset[SIMG_CHUNK_HEADER_SIZE];
			x->head_at = o->written + o->len;
			rc = emit(o, unset, sizeof(unset));
		}
	}
	o->block = block + 1;
	if (rc == 0 && !fill) {
		if (!x->run_len)
			x->run = p;
		x->run_len += bs;
	}
	return rc;
}

static int once_range(struct once *x, const struct simg_range *r)
{
	struct out *o = &x->o;
	uint32_t bs = x->pl.s->block_size;
	size_t buf_blocks = x->data_size / bs;

	for (uint64_t b = r->start; b < r->end;) {
		size_t n = r->end - b < buf_blocks ? (size_t)(r->end - b) : buf_blocks;
		int rc = read_image(&o->w->image, o->data, n * bs, b * bs, o->d);
		for (size_t i = 0; rc == 0 && i < n; i++)
			rc = once_block(x, b + i, o->data + i * bs);
		if (rc == 0)
			rc = write_run(x); /* the buffer is read again next */
		if (rc < 0)
			return rc;
		b += n;
	}
	return 0;
}

/* The file header, with the chunks now counted, over the placeholder at the start. */
static int once_header(struct once *x)
{
	const struct simg *s = x->pl.s;
	struct simg_piece whole = { .empty = s->n == 0 };
	uint8_t h[SIMG_FILE_HEADER_SIZE];

	if (s->n)
		whole = (struct simg_piece){ .first = 0,
					     .last = s->n - 1,
					     .first_from = s->chunks[0].block,
					     .last_to = s->chunks[s->n - 1].block +
							s->chunks[s->n - 1].blocks };
	piece_header(h, s, &whole, x->o.w->crc);
	return patch(&x->o, 0, h, sizeof(h));
}

static int once_write(struct once *x, const struct simg_range *v, size_t m)
{
	static const uint8_t unset[SIMG_FILE_HEADER_SIZE];
	struct out *o = &x->o;
	int rc = emit(o, unset, sizeof(unset));

	for (size_t i = 0; rc == 0 && i < m; i++)
		rc = once_range(x, &v[i]);
	if (rc == 0 && x->pl.s->n)
		rc = close_chunk(x, &x->pl.s->chunks[x->pl.s->n - 1]);
	if (rc == 0)
		rc = emit_gap(o, x->pl.s->blocks);
	if (rc == 0 && o->w->crc) {
		uint8_t c[4];
		put_le32(c, o->crc);
		rc = emit_chunk_header(o, SIMG_CHUNK_CRC32, 0, 4);
		if (rc == 0)
			rc = emit(o, c, sizeof(c));
	}
	if (rc == 0)
		rc = once_header(x);
	return rc ? rc : flush(o);
}

int simg_plan_write(uint64_t image_size, uint32_t block_size, const struct simg_range *ranges,
		    size_t n, const struct simg_write *w, struct diag *d)
{
	struct simg s = { .block_size = block_size,
			  .blocks = image_size / block_size,
			  .image_size = image_size };
	size_t data_size = BUF < block_size ? block_size : BUF;
	uint8_t *buf = malloc(BUF), *data = calloc(1, data_size); /* data: never read unset */
	struct once x = { .o = { .s = &s, .w = w, .d = d, .buf = buf, .data = data },
			  .pl = { .s = &s,
				  .max_raw = (UINT32_MAX - SIMG_CHUNK_HEADER_SIZE) / block_size },
			  .data_size = data_size };
	struct simg_range *v = NULL;
	size_t m = 0;
	int rc = w->sink ? -EINVAL : simg_size_problem(image_size, block_size, w->image.name, d);

	if (rc == 0 && (!buf || !data || block_ranges(ranges, n, block_size, s.blocks, &v, &m) < 0))
		rc = diag_errno(d, -ENOMEM, "%s: out of memory", w->out_name);
	if (rc == 0)
		rc = once_write(&x, v, m);
	free(v);
	free(buf);
	free(data);
	simg_release(&s);
	return rc;
}
