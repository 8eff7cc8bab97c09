/* SPDX-License-Identifier: MIT */
/* acl: a POSIX ACL (acl(5)) as the value of its extended attribute, in the form Linux's
 * getxattr(2) gives and setxattr(2) takes (include/uapi/linux/posix_acl_xattr.h): a 4-byte
 * version, 2, then per entry a 2-byte tag, 2-byte permissions and a 4-byte id, little-endian,
 * sorted by tag and then id as the kernel's posix_acl_valid() wants them. libext2fs turns
 * that form into ext4's own shorter one when it stores the attribute (ext2fs_xattr_set). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
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
		case EXT4_ACL_USER_OBJ:
		case EXT4_ACL_USER:
		case EXT4_ACL_GROUP_OBJ:
		case EXT4_ACL_GROUP:
		case EXT4_ACL_MASK:
		case EXT4_ACL_OTHER:
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

/* Why the @n entries of @e, in the order of the value, are not an ACL the kernel takes
 * (fs/posix_acl.c, posix_acl_valid: the tags in the order owner, named users, owning group,
 * named groups, mask, other, named ones by ascending id; each rwx at most), or NULL. */
static const char *acl_order_wrong(const struct ext4_acl_entry *e, size_t n, char *why, size_t size)
{
	for (size_t i = 0; i < n; i++) {
		switch (e[i].tag) {
		case EXT4_ACL_USER_OBJ:
		case EXT4_ACL_USER:
		case EXT4_ACL_GROUP_OBJ:
		case EXT4_ACL_GROUP:
		case EXT4_ACL_MASK:
		case EXT4_ACL_OTHER:
			break;
		default:
			snprintf(why, size, "entry %zu has the unknown tag 0x%x", i + 1, e[i].tag);
			return why;
		}
		if (e[i].perm > 7) {
			snprintf(why, size, "entry %zu grants 0x%x, more than rwx", i + 1,
				 e[i].perm);
			return why;
		}
		if (i && compare_entries(&e[i - 1], &e[i]) > 0) {
			snprintf(why, size,
				 "entry %zu is out of the order owner, users, group, "
				 "groups, mask, other (ids ascending)",
				 i + 1);
			return why;
		}
	}
	return NULL;
}

const char *ext4_acl_check(const void *value, size_t len, char *why, size_t size)
{
	const uint8_t *p = value;

	if (len < 4 || (len - 4) % 8) {
		snprintf(why, size, "%zu bytes, not a 4-byte version and 8-byte entries", len);
		return why;
	}
	uint32_t version = get_le32(p);
	if (version != ACL_XATTR_VERSION) {
		snprintf(why, size, "version %u, not %u", version, ACL_XATTR_VERSION);
		return why;
	}
	size_t n = (len - 4) / 8;
	struct ext4_acl_entry *e = calloc(n ? n : 1, sizeof(*e));
	if (!e) {
		snprintf(why, size, "%s", strerror(ENOMEM));
		return why;
	}
	for (size_t i = 0; i < n; i++) {
		const uint8_t *q = p + 4 + 8 * i;
		bool named = get_le16(q) == EXT4_ACL_USER || get_le16(q) == EXT4_ACL_GROUP;
		e[i] = (struct ext4_acl_entry){
			get_le16(q),
			get_le16(q + 2),
			named ? get_le32(q + 4) : 0,
		};
	}
	const char *wrong = acl_order_wrong(e, n, why, size);
	if (!wrong && !acl_valid(e, n)) {
		snprintf(why, size,
			 "an entry twice, the owner's, group's or other's entry missing, "
			 "or named users or groups without a mask");
		wrong = why;
	}
	free(e);
	return wrong;
}
