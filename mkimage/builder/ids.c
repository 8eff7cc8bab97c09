/* ids: identifiers derived from the layout's seed (the rule is in builder_priv.h). */
#include <openssl/evp.h>
#include <string.h>

#include "common/bytes.h"
#include "mkimage/builder/builder_priv.h"

/* SHA-256 of SEED "\n" PURPOSE NAME (NAME may be ""). */
static void id_hash(const char *seed, const char *purpose, const char *name, uint8_t out[32])
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned int n = 0;

	/* a failure here is a broken libcrypto: fall back to zeros rather than garbage */
	memset(out, 0, 32);
	if (ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) &&
	    EVP_DigestUpdate(ctx, seed, strlen(seed)) && EVP_DigestUpdate(ctx, "\n", 1) &&
	    EVP_DigestUpdate(ctx, purpose, strlen(purpose)) &&
	    EVP_DigestUpdate(ctx, name, strlen(name)))
		EVP_DigestFinal_ex(ctx, out, &n);
	EVP_MD_CTX_free(ctx);
}

/* The first 16 bytes as a version-4 (random-style) GUID, RFC 4122 section 4.4. */
static void to_guid(const uint8_t h[32], struct layout_guid *ret)
{
	memcpy(ret->b, h, 16);
	ret->b[6] = (uint8_t)((ret->b[6] & 0x0f) | 0x40);
	ret->b[8] = (uint8_t)((ret->b[8] & 0x3f) | 0x80);
}

uint32_t build_id_mbr_disk(const char *seed)
{
	uint8_t h[32];

	id_hash(seed, "disk-id", "", h);
	return get_le32(h);
}

void build_id_gpt_disk(const char *seed, struct layout_guid *ret)
{
	uint8_t h[32];

	id_hash(seed, "disk-guid", "", h);
	to_guid(h, ret);
}

void build_id_partition_uuid(const char *seed, const char *name, struct layout_guid *ret)
{
	uint8_t h[32];

	id_hash(seed, "partition-uuid/", name, h);
	to_guid(h, ret);
}

uint32_t build_id_volume(const char *seed, const char *name)
{
	uint8_t h[32];

	id_hash(seed, "volume-id/", name, h);
	return get_le32(h);
}

void build_id_ext4(const char *seed, const char *name, struct layout_guid *ret_uuid,
		   uint8_t ret_hash_seed[16])
{
	uint8_t h[32];

	id_hash(seed, "ext4-uuid/", name, h);
	to_guid(h, ret_uuid);
	id_hash(seed, "ext4-hash-seed/", name, h);
	memcpy(ret_hash_seed, h, 16);
}
