/* SPDX-License-Identifier: MIT */
/*
 * sha256: SHA-256 (sha256.h) two ways: libcrypto's, through a table of the few EVP functions
 * used, opened with dlopen(3), for images and the ranges of a bmap; and a built-in one
 * (FIPS 180-4 §6.2, one 64-byte block at a time) for the few hundred bytes of ids and
 * seeds, so that a build that hashes no image neither loads libcrypto nor pays its start.
 * libcrypto's soname is the one of the libcrypto the program was compiled against
 * (config.mk), and the ELF note below names it for packagers, since the program's DT_NEEDED
 * list does not.
 */
#include "common/sha256.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "common/bytes.h"
#include "common/dynlib.h"

#ifndef SDIMG_LIBCRYPTO_SONAME
#error "SDIMG_LIBCRYPTO_SONAME names the libcrypto to load (config.mk sets it)"
#endif

DYNLIB_NOTE(sha256_note, "sha256", "SHA-256 of images and block maps", "required",
	    SDIMG_LIBCRYPTO_SONAME);

/* The entry points called, typed from libcrypto's own header and named as it names them. */
#define SHA256_FUNCS(X)      \
	X(EVP_sha256)        \
	X(EVP_MD_CTX_new)    \
	X(EVP_MD_CTX_free)   \
	X(EVP_DigestInit_ex) \
	X(EVP_DigestUpdate)  \
	X(EVP_DigestFinal_ex)

/* The built-in digest in progress (FIPS 180-4 §6.2): the hash value H, the bytes
 * taken so far and the last block's bytes not yet compressed. */
struct builtin_state {
	uint32_t h[8];
	uint64_t bytes;
	uint8_t block[64];
};

#define SHA256_MEMBER(name) __typeof__(name) *name;
struct sha256 {
	bool builtin;            /* sdimg's built-in SHA-256, not libcrypto's */
	struct builtin_state st; /* with builtin */
	struct dynlib dl;        /* the reference on libcrypto (owned) */
	SHA256_FUNCS(SHA256_MEMBER)
	const EVP_MD *md; /* SHA-256, as libcrypto names it */
	EVP_MD_CTX *ctx;  /* the digest in progress (owned) */
	bool failed;      /* libcrypto failed a step since the digest started */
	struct diag *d;   /* where a failure is told (borrowed) */
};
#undef SHA256_MEMBER

/* FIPS 180-4 §4.2.2: the first 32 bits of the fractional parts of the cube roots of the
 * first 64 primes. */
static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
	0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
	0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
	0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
	0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
	0xc67178f2,
};

/* FIPS 180-4 §5.3.3: the initial hash value. */
static const uint32_t H0[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
				0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };

static uint32_t rotr(uint32_t x, unsigned n)
{
	return x >> n | x << (32 - n);
}

/* FIPS 180-4 §6.2.2: one 512-bit block @m into the hash value @h. */
static void builtin_compress(uint32_t h[8], const uint8_t m[64])
{
	uint32_t w[64], v[8];

	for (unsigned t = 0; t < 16; t++)
		w[t] = get_be32(m + 4 * t);
	for (unsigned t = 16; t < 64; t++) {
		uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ w[t - 15] >> 3;
		uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ w[t - 2] >> 10;
		w[t] = w[t - 16] + s0 + w[t - 7] + s1;
	}
	memcpy(v, h, sizeof(v));
	for (unsigned t = 0; t < 64; t++) {
		uint32_t e = v[4], a = v[0];
		uint32_t ch = (e & v[5]) ^ (~e & v[6]);
		uint32_t maj = (a & v[1]) ^ (a & v[2]) ^ (v[1] & v[2]);
		uint32_t t1 = v[7] + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ch + K[t] + w[t];
		uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + maj;
		memmove(v + 1, v, 7 * sizeof(*v));
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (unsigned i = 0; i < 8; i++)
		h[i] += v[i];
}

static void builtin_update(struct builtin_state *st, const uint8_t *p, size_t len)
{
	size_t have = (size_t)(st->bytes % 64);

	st->bytes += len;
	while (len) {
		size_t n = 64 - have < len ? 64 - have : len;
		memcpy(st->block + have, p, n);
		have += n;
		p += n;
		len -= n;
		if (have == 64) {
			builtin_compress(st->h, st->block);
			have = 0;
		}
	}
}

/* FIPS 180-4 §5.1.1: a 1 bit, zeros to 56 bytes modulo 64, the length in bits (64 bits,
 * big-endian); then the hash value, big-endian, is the digest. */
static void builtin_final(struct builtin_state *st, uint8_t out[SHA256_LEN])
{
	uint64_t bits = st->bytes * 8;
	uint8_t pad[72] = { 0x80 };
	size_t have = (size_t)(st->bytes % 64);
	size_t n = (have < 56 ? 56 : 120) - have;

	put_be64(pad + n, bits);
	builtin_update(st, pad, n + 8);
	for (unsigned i = 0; i < 8; i++)
		put_be32(out + 4 * i, st->h[i]);
}

/* Starts a digest; a failure of libcrypto is kept for sha256_final(). */
static void start(struct sha256 *s)
{
	if (s->builtin) {
		memcpy(s->st.h, H0, sizeof(H0));
		s->st.bytes = 0;
		return;
	}
	s->failed = s->EVP_DigestInit_ex(s->ctx, s->md, NULL) != 1;
}

int sha256_new_builtin(struct sha256 **ret, struct diag *d)
{
	struct sha256 *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->builtin = true;
	s->d = d;
	start(s);
	*ret = s;
	return 0;
}

int sha256_new(struct sha256 **ret, struct diag *d)
{
	struct sha256 *s = calloc(1, sizeof(*s));
	int rc;

	if (!s)
		return -ENOMEM;
	s->d = d;
	rc = dynlib_open(&s->dl, SDIMG_LIBCRYPTO_SONAME, "SHA-256 digests", d);
#define SHA256_RESOLVE(name)                                                                 \
	if (rc == 0 && !(s->name = dynlib_symbol(&s->dl, SDIMG_LIBCRYPTO_SONAME, #name, d))) \
		rc = -ELIBACC;
	SHA256_FUNCS(SHA256_RESOLVE)
#undef SHA256_RESOLVE
	if (rc == 0 && !(s->ctx = s->EVP_MD_CTX_new()))
		rc = -ENOMEM;
	if (rc == 0) {
		s->md = s->EVP_sha256();
		start(s);
	}
	if (rc == 0 && s->failed)
		rc = diag_errno(d, -EIO, "%s cannot start a SHA-256 digest",
				SDIMG_LIBCRYPTO_SONAME);
	if (rc < 0) {
		sha256_free(s);
		return rc;
	}
	*ret = s;
	return 0;
}

void sha256_update(struct sha256 *s, const void *p, size_t len)
{
	if (s->builtin)
		builtin_update(&s->st, p, len);
	else if (len && !s->failed && s->EVP_DigestUpdate(s->ctx, p, len) != 1)
		s->failed = true;
}

int sha256_final(struct sha256 *s, uint8_t out[SHA256_LEN])
{
	if (s->builtin) {
		builtin_final(&s->st, out);
		start(s);
		return 0;
	}
	bool failed = s->failed || s->EVP_DigestFinal_ex(s->ctx, out, NULL) != 1;

	if (failed) {
		memset(out, 0, SHA256_LEN);
		diag_error(s->d, "%s failed a SHA-256 digest", SDIMG_LIBCRYPTO_SONAME);
	}
	start(s);
	return failed ? -EIO : 0;
}

int sha256_strings(struct sha256 *s, uint8_t out[SHA256_LEN], ...)
{
	va_list ap;
	const char *text;

	va_start(ap, out);
	while ((text = va_arg(ap, const char *)))
		sha256_update(s, text, strlen(text));
	va_end(ap);
	return sha256_final(s, out);
}

void sha256_free(struct sha256 *s)
{
	if (!s)
		return;
	if (s->ctx)
		s->EVP_MD_CTX_free(s->ctx);
	if (!s->builtin)
		dynlib_close(&s->dl);
	free(s);
}
