/* acl: a POSIX ACL (acl(5)) as the value of its extended attribute, in the form Linux's
 * getxattr(2) gives and setxattr(2) takes (include/uapi/linux/posix_acl_xattr.h): a 4-byte
 * version, 2, then per entry a 2-byte tag, 2-byte permissions and a 4-byte id, little-endian,
 * sorted by tag and then id as the kernel's posix_acl_valid() wants them. libext2fs turns
 * that form into ext4's own shorter one when it stores the attribute (ext2fs_xattr_set). */
#include <errno.h>
#include <stdlib.h>

#include "ext4/ext4.h"

#define ACL_XATTR_VERSION 2u
#define ACL_UNDEFINED_ID 0xffffffffu

static int compare_entries(const void *x, const void *y)
{
	const struct ext4_acl_entry *a = x, *b = y;

	if (a->tag != b->tag)
		return a->tag < b->tag ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

static void put_le(uint8_t *p, uint32_t value, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		p[i] = (uint8_t)(value >> (8 * i));
}

/* Whether the sorted @e is an ACL the kernel takes: each tag known, one of each of the
 * owner's, owning group's, other's and mask entries at most and ids once each, the three
 * first always there, and a mask where a named user or group is. */
static bool acl_valid(const struct ext4_acl_entry *e, size_t n)
{
	unsigned seen = 0;
	bool named = false;

	for (size_t i = 0; i < n; i++) {
		bool one = e[i].tag != EXT4_ACL_USER && e[i].tag != EXT4_ACL_GROUP;
		switch (e[i].tag) {
		case EXT4_ACL_USER_OBJ: case EXT4_ACL_USER: case EXT4_ACL_GROUP_OBJ:
		case EXT4_ACL_GROUP: case EXT4_ACL_MASK: case EXT4_ACL_OTHER:
			break;
		default:
			return false;
		}
		if (e[i].perm > 7 || (one && (seen & e[i].tag)) ||
		    (i && !one && e[i - 1].tag == e[i].tag && e[i - 1].id == e[i].id))
			return false;
		seen |= e[i].tag;
		named |= !one;
	}
	unsigned need = EXT4_ACL_USER_OBJ | EXT4_ACL_GROUP_OBJ | EXT4_ACL_OTHER;
	return (seen & need) == need && (!named || (seen & EXT4_ACL_MASK));
}

int ext4_acl_xattr(struct ext4_acl_entry *e, size_t n, void **ret, size_t *ret_len)
{
	if (n)
		qsort(e, n, sizeof(*e), compare_entries);
	if (!acl_valid(e, n))
		return -EINVAL;
	size_t len = 4 + 8 * n;
	uint8_t *p = malloc(len);
	if (!p)
		return -ENOMEM;
	put_le(p, ACL_XATTR_VERSION, 4);
	for (size_t i = 0; i < n; i++) {
		bool named = e[i].tag == EXT4_ACL_USER || e[i].tag == EXT4_ACL_GROUP;
		put_le(p + 4 + 8 * i, e[i].tag, 2);
		put_le(p + 6 + 8 * i, e[i].perm, 2);
		put_le(p + 8 + 8 * i, named ? e[i].id : ACL_UNDEFINED_ID, 4);
	}
	*ret = p;
	*ret_len = len;
	return 0;
}
