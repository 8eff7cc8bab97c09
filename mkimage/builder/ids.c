/* ids: identifiers derived from the layout's seed (the rule is in builder_priv.h). */
#include <string.h>

#include "common/bytes.h"
#include "common/sha256.h"
#include "mkimage/builder/builder.h"

/* SHA-256 of SEED "\n" PURPOSE NAME (NAME may be ""). */
static int id_hash(struct sha256 *sha, const char *seed, const char *purpose, const char *name,
		   uint8_t out[SHA256_LEN])
{
	return sha256_strings(sha, out, seed, "\n", purpose, name, (const char *)NULL);
}

/* The first 16 bytes as a version-4 (random-style) GUID, RFC 4122 section 4.4. */
static void to_guid(const uint8_t h[32], struct layout_guid *ret)
{
	memcpy(ret->b, h, 16);
	ret->b[6] = (uint8_t)((ret->b[6] & 0x0f) | 0x40);
	ret->b[8] = (uint8_t)((ret->b[8] & 0x3f) | 0x80);
}

int build_id_mbr_disk(struct sha256 *sha, const char *seed, uint32_t *ret)
{
	uint8_t h[SHA256_LEN];
	int rc = id_hash(sha, seed, "disk-id", "", h);

	*ret = get_le32(h);
	return rc;
}

int build_id_gpt_disk(struct sha256 *sha, const char *seed, struct layout_guid *ret)
{
	uint8_t h[SHA256_LEN];
	int rc = id_hash(sha, seed, "disk-guid", "", h);

	to_guid(h, ret);
	return rc;
}

int build_id_partition_uuid(struct sha256 *sha, const char *seed, const char *name,
			    struct layout_guid *ret)
{
	uint8_t h[SHA256_LEN];
	int rc = id_hash(sha, seed, "partition-uuid/", name, h);

	to_guid(h, ret);
	return rc;
}

int build_id_volume(struct sha256 *sha, const char *seed, const char *name, uint32_t *ret)
{
	uint8_t h[SHA256_LEN];
	int rc = id_hash(sha, seed, "volume-id/", name, h);

	*ret = get_le32(h);
	return rc;
}

int build_id_ext4(struct sha256 *sha, const char *seed, const char *name,
		  struct layout_guid *ret_uuid, uint8_t ret_hash_seed[16])
{
	uint8_t h[SHA256_LEN];
	int rc = id_hash(sha, seed, "ext4-uuid/", name, h);

	to_guid(h, ret_uuid);
	if (rc == 0)
		rc = id_hash(sha, seed, "ext4-hash-seed/", name, h);
	memcpy(ret_hash_seed, h, 16);
	return rc;
}
