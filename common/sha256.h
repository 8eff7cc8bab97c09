/* SPDX-License-Identifier: MIT */
/*
 * sha256: SHA-256 digests (FIPS 180-4) computed by libcrypto's EVP interface, with the
 * library loaded (common/dynlib.h) when the first such hasher is made, not at every start:
 * the commands that read an image (ls, cat, inspect) never take a digest; or, for the few
 * bytes of ids and seeds, by a built-in one (sha256_new_builtin()).
 *
 * A hasher is one digest in progress. sha256_final() hands the digest out and starts the
 * next one, so a loop over many ranges uses one hasher. A failure inside libcrypto (none is
 * known for SHA-256 once its context exists) is kept until sha256_final(), which returns
 * -EIO and tells it in the diag the hasher was made with: sha256_update() needs no check,
 * and a function handed a hasher passes -EIO on without a message of its own.
 *
 * Ownership: sha256_new() and sha256_new_builtin() make a hasher its caller owns and frees with
 * sha256_free(); each of sha256_new()'s holds a reference on libcrypto. A hasher is used by
 * one thread at a time.
 */
#ifndef SDIMG_SHA256_H
#define SDIMG_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"

#define SHA256_LEN 32

struct sha256;

/*
 * Makes a hasher in *@ret, its first digest started. Returns 0, -ENOMEM (no message: the
 * caller names what ran out of memory), or another negative errno with one line in @d:
 * "SHA-256 digests need libcrypto.so.3, which cannot be loaded: ..." or the symbol it lacks
 * (-ELIBACC), or that libcrypto cannot start a digest (-EIO). @d must outlive the hasher:
 * sha256_final() tells its failures there.
 */
int sha256_new(struct sha256 **ret, struct diag *d);

/*
 * Makes a hasher in *@ret that computes SHA-256 itself, without libcrypto: for digests of a
 * few hundred bytes (ids, seeds), where loading libcrypto would cost more than the digest;
 * libcrypto's is several times faster on large inputs. The digests are the same. Returns 0
 * or -ENOMEM (no message). sha256_final() of such a hasher does not fail.
 */
int sha256_new_builtin(struct sha256 **ret, struct diag *d);

/* Adds @len bytes at @p (may be NULL when @len is 0) to the digest in progress. */
void sha256_update(struct sha256 *s, const void *p, size_t len);

/*
 * The digest of everything added since the last sha256_final() (or since sha256_new())
 * into @out, and a new digest started. Returns 0, or -EIO when libcrypto failed a step of
 * it (@out is then zeros, and a line in the hasher's diag says so).
 */
int sha256_final(struct sha256 *s, uint8_t out[SHA256_LEN]);

/* The digest of the strings given (without their NULs), up to a NULL: sha256_update() of
 * each, then sha256_final(). Returns what sha256_final() does. */
int sha256_strings(struct sha256 *s, uint8_t out[SHA256_LEN], ...) __attribute__((sentinel));

/* Frees @s and gives back its reference on libcrypto. Accepts NULL. */
void sha256_free(struct sha256 *s);

#endif
