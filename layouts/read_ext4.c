/* SPDX-License-Identifier: MIT */
/* read_ext4: an ext4 partition's `ext4 { }` section. */
#include "layouts/read_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"

/* The keys whose form the key table cannot say all about. */
static int check_ext4_keys(struct reader *r, const struct sect *s, const struct layout_ext4 *e)
{
	int bad = 0;
	char shown[200];

	if (e->label && strlen(e->label) > 16)
		bad |= layout_key_error(r, s, "label",
					"'%s' is longer than the 16 bytes of an "
					"ext4 volume name",
					utf8_shown(e->label, shown, sizeof(shown))) < 0;
	if (e->block_size != 1024 && e->block_size != 2048 && e->block_size != 4096)
		bad |= layout_key_error(r, s, "block-size", "%u is not 1K, 2K or 4K",
					e->block_size) < 0;
	if (e->inode_size & (e->inode_size - 1))
		bad |= layout_key_error(r, s, "inode-size", "%u is not a power of two",
					e->inode_size) < 0;
	else if (e->inode_size > e->block_size)
		bad |= layout_key_error(r, s, "inode-size", "%u is larger than the block size",
					e->inode_size) < 0;
	return bad ? -EINVAL : 0;
}

int layout_read_ext4(struct reader *r, const struct sect *ps, struct layout_partition *p)
{
	const struct tree_section *node = layout_tree_sub(ps->node, "ext4");
	struct layout_ext4 *e = &p->ext4;
	const struct key_value *v;
	uint64_t n;
	struct sect s;

	*e = (struct layout_ext4){ .block_size = 4096,
				   .inode_size = 256,
				   .journal = true,
				   .loc = p->loc };
	if (!node)
		return 0;
	layout_sect_init(&s, node);
	e->loc = layout_sect_loc(&s);
	if (p->type != LAYOUT_PART_EXT4)
		return layout_sect_error(r, &s, "an ext4 { } section needs type = ext4");
	if (layout_key_strdup(&s, "label", &e->label) < 0 ||
	    layout_key_strdup(&s, "features", &e->features) < 0)
		return -ENOMEM;
	if ((v = layout_key_value(&s, "uuid"))) {
		e->uuid = v->guid;
		e->uuid_set = true;
	}
	if (layout_key_u64(&s, "block-size", &n))
		e->block_size = n > UINT32_MAX ? 0 : (uint32_t)n;
	if (layout_key_u64(&s, "inode-size", &n))
		e->inode_size = (uint32_t)n;
	e->inodes_set = layout_key_u64(&s, "inodes", &e->inodes);
	if (layout_key_u64(&s, "reserved", &n))
		e->reserved = (unsigned)n;
	layout_key_bool(&s, "journal", &e->journal);
	return check_ext4_keys(r, &s, e);
}
