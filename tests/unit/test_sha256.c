/* SPDX-License-Identifier: MIT */
/* Unit tests: SHA-256 digests (common/sha256), against the examples NIST publishes for the
 * Secure Hash Standard, FIPS 180-4: "abc" (one block), the 448-bit message (two blocks) and
 * one million 'a' (FIPS 180-2, Appendix B.1, B.2 and B.3, whose digests the FIPS 180-4
 * examples repeat), and the digest of the empty message; each for libcrypto's and for the
 * program's builtin SHA-256, and the two against each other on every length to 1,000 bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/bytes.h"
#include "common/sha256.h"

#define EMPTY "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define ABC "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#define TWO_BLOCKS_TEXT "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
#define TWO_BLOCKS "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
#define MILLION_A "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
#define MILLION 1000000

struct fixture {
	struct sha256 *sha;
	struct diag d;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f || sha256_new(&f->sha, &f->d) != 0)
		return -1;
	*state = f;
	return 0;
}

static int setup_builtin(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f || sha256_new_builtin(&f->sha, &f->d) != 0)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	sha256_free(f->sha);
	diag_release(&f->d);
	free(f);
	return 0;
}

/* The digest in progress of @sha, in hex. */
static void final_hex(struct sha256 *sha, char hex[2 * SHA256_LEN + 1])
{
	uint8_t out[SHA256_LEN];

	assert_int_equal(sha256_final(sha, out), 0);
	bytes_hex(out, SHA256_LEN, hex);
}

static void test_sha256_vectors(void **state)
{
	struct fixture *f = *state;
	char hex[2 * SHA256_LEN + 1];
	char *a = malloc(MILLION);

	assert_non_null(a);
	memset(a, 'a', MILLION);
	final_hex(f->sha, hex); /* nothing added */
	assert_string_equal(hex, EMPTY);
	sha256_update(f->sha, "abc", 3);
	final_hex(f->sha, hex);
	assert_string_equal(hex, ABC);
	sha256_update(f->sha, TWO_BLOCKS_TEXT, strlen(TWO_BLOCKS_TEXT));
	final_hex(f->sha, hex);
	assert_string_equal(hex, TWO_BLOCKS);
	sha256_update(f->sha, a, MILLION);
	final_hex(f->sha, hex);
	assert_string_equal(hex, MILLION_A);
	assert_int_equal(f->d.n, 0);
	free(a);
}

/* Pieces of every length around the 64-byte block give the digest of one update. */
static void test_sha256_pieces(void **state)
{
	static const size_t lens[] = { 0, 1, 55, 56, 63, 64, 65, 127, 4096, 65537 };
	struct fixture *f = *state;
	char hex[2 * SHA256_LEN + 1];
	char *a = malloc(MILLION);
	size_t at = 0;

	assert_non_null(a);
	memset(a, 'a', MILLION);
	for (size_t i = 0; at < MILLION; i = (i + 1) % (sizeof(lens) / sizeof(lens[0]))) {
		size_t n = lens[i] < MILLION - at ? lens[i] : MILLION - at;
		sha256_update(f->sha, a + at, n);
		at += n;
	}
	final_hex(f->sha, hex);
	assert_string_equal(hex, MILLION_A);
	free(a);
}

/* sha256_final() starts the next digest: nothing of the last one is left in it. */
static void test_sha256_reuse(void **state)
{
	struct fixture *f = *state;
	char hex[2 * SHA256_LEN + 1];

	sha256_update(f->sha, TWO_BLOCKS_TEXT, 10); /* a digest half done, then finished */
	final_hex(f->sha, hex);
	assert_string_not_equal(hex, ABC);
	sha256_update(f->sha, "abc", 3);
	final_hex(f->sha, hex);
	assert_string_equal(hex, ABC);
	sha256_update(f->sha, "ab", 2);
	sha256_update(f->sha, "c", 1);
	final_hex(f->sha, hex);
	assert_string_equal(hex, ABC);
	final_hex(f->sha, hex);
	assert_string_equal(hex, EMPTY);
}

static void test_sha256_strings(void **state)
{
	struct fixture *f = *state;
	uint8_t out[SHA256_LEN];
	char hex[2 * SHA256_LEN + 1];

	assert_int_equal(sha256_strings(f->sha, out, "a", "", "bc", (const char *)NULL), 0);
	bytes_hex(out, SHA256_LEN, hex);
	assert_string_equal(hex, ABC);
	assert_int_equal(sha256_strings(f->sha, out, (const char *)NULL), 0);
	bytes_hex(out, SHA256_LEN, hex);
	assert_string_equal(hex, EMPTY);
}

/* Two hashers at once keep their digests apart. */
static void test_sha256_two_hashers(void **state)
{
	struct fixture *f = *state;
	struct sha256 *other;
	char hex[2 * SHA256_LEN + 1];

	assert_int_equal(sha256_new(&other, &f->d), 0);
	sha256_update(f->sha, "ab", 2);
	sha256_update(other, TWO_BLOCKS_TEXT, strlen(TWO_BLOCKS_TEXT));
	sha256_update(f->sha, "c", 1);
	final_hex(other, hex);
	assert_string_equal(hex, TWO_BLOCKS);
	final_hex(f->sha, hex);
	assert_string_equal(hex, ABC);
	sha256_free(other);
	sha256_free(NULL); /* harmless */
}

/* The program's builtin SHA-256 gives libcrypto's digest for every length to 1,000 bytes of
 * varied bytes, given in one piece and in pieces of 7. */
static void test_sha256_builtin_is_libcrypto(void **state)
{
	struct fixture *f = *state;
	struct sha256 *builtin;
	uint8_t data[1000], want[SHA256_LEN], got[SHA256_LEN];

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 131 + (i >> 3));
	assert_int_equal(sha256_new_builtin(&builtin, &f->d), 0);
	for (size_t len = 0; len <= sizeof(data); len++) {
		sha256_update(f->sha, data, len);
		assert_int_equal(sha256_final(f->sha, want), 0);
		sha256_update(builtin, data, len);
		assert_int_equal(sha256_final(builtin, got), 0);
		assert_memory_equal(got, want, SHA256_LEN);
		for (size_t at = 0; at < len; at += 7)
			sha256_update(builtin, data + at, len - at < 7 ? len - at : 7);
		assert_int_equal(sha256_final(builtin, got), 0);
		assert_memory_equal(got, want, SHA256_LEN);
	}
	sha256_free(builtin);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sha256_vectors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sha256_pieces, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sha256_reuse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sha256_strings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sha256_two_hashers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sha256_vectors, setup_builtin, teardown),
		cmocka_unit_test_setup_teardown(test_sha256_pieces, setup_builtin, teardown),
		cmocka_unit_test_setup_teardown(test_sha256_reuse, setup_builtin, teardown),
		cmocka_unit_test_setup_teardown(test_sha256_strings, setup_builtin, teardown),
		cmocka_unit_test_setup_teardown(test_sha256_two_hashers, setup_builtin, teardown),
		cmocka_unit_test_setup_teardown(test_sha256_builtin_is_libcrypto, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
