/* SPDX-License-Identifier: MIT */
/*
 * sha256: libcrypto's SHA-256 through a table of the few EVP functions used, opened with
 * dlopen(3) (sha256.h). Its soname is the one of the libcrypto the program was compiled
 * against (config.mk), and the ELF note below names it for packagers, since the program's
 * DT_NEEDED list does not.
 */
#include "common/sha256.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "common/dynlib.h"

#ifndef SDIMG_LIBCRYPTO_SONAME
#error "SDIMG_LIBCRYPTO_SONAME names the libcrypto to load (config.mk sets it)"
#endif

DYNLIB_NOTE(sha256_note, "sha256", "SHA-256 of images, block maps, ids and seeds", "required",
	    SDIMG_LIBCRYPTO_SONAME);

/* The entry points called, typed from libcrypto's own header and named as it names them. */
#define SHA256_FUNCS(X)      \
	X(EVP_sha256)        \
	X(EVP_MD_CTX_new)    \
	X(EVP_MD_CTX_free)   \
	X(EVP_DigestInit_ex) \
	X(EVP_DigestUpdate)  \
	X(EVP_DigestFinal_ex)

#define SHA256_MEMBER(name) __typeof__(name) *name;
struct sha256 {
	struct dynlib dl; /* the reference on libcrypto (owned) */
	SHA256_FUNCS(SHA256_MEMBER)
	const EVP_MD *md; /* SHA-256, as libcrypto names it */
	EVP_MD_CTX *ctx;  /* the digest in progress (owned) */
	bool failed;      /* libcrypto failed a step since the digest started */
	struct diag *d;   /* where a failure is told (borrowed) */
};
#undef SHA256_MEMBER

/* Starts a digest; a failure is kept for sha256_final(). */
static void start(struct sha256 *s)
{
	s->failed = s->EVP_DigestInit_ex(s->ctx, s->md, NULL) != 1;
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
	if (len && !s->failed && s->EVP_DigestUpdate(s->ctx, p, len) != 1)
		s->failed = true;
}

int sha256_final(struct sha256 *s, uint8_t out[SHA256_LEN])
{
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
	dynlib_close(&s->dl);
	free(s);
}
