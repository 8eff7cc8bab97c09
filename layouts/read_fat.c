/* SPDX-License-Identifier: MIT */
/* read_fat: a FAT partition's `fat { }` section and its `tree`, `file` and `dir` entries. */
#include "layouts/read_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"

/* ------------------------------------------------------------------ fat { } */

static int check_label(struct reader *r, const struct sect *s, const char *label)
{
	char shown[200];

	utf8_shown(label, shown, sizeof(shown));
	if (strlen(label) > 11)
		return layout_key_error(r, s, "label", "'%s' is longer than 11 characters", shown);
	for (const char *p = label; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c < 0x20 || c >= 0x7f || strchr("\"*+,./:;<=>?[\\]|", c))
			return layout_key_error(r, s, "label",
						"'%s': '%c' cannot stand in a FAT volume label "
						"(use "
						"A-Z, 0-9, space and !#$%%&'()-@^_`{}~)",
						shown, c >= 0x20 && c < 0x7f ? c : '?');
	}
	for (const char *p = label; *p; p++)
		if (*p >= 'a' && *p <= 'z') {
			struct layout_loc loc = layout_key_loc(s, "label");
			diag_note(r->d,
				  "%s:%d: %s: label: '%s' is written as given (LABEL=%s and "
				  "/dev/disk/by-label/%s match it); DOS and Windows show it in "
				  "upper case",
				  loc.file, loc.line, s->what, label, label, label);
			break;
		}
	return 0;
}

static int check_oem_name(struct reader *r, const struct sect *s, const char *oem)
{
	char shown[200];

	utf8_shown(oem, shown, sizeof(shown));
	if (strlen(oem) > 8)
		return layout_key_error(r, s, "oem-name", "'%s' is longer than 8 characters",
					shown);
	for (const char *p = oem; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			return layout_key_error(r, s, "oem-name", "'%s' must be printable ASCII",
						shown);
	return 0;
}

static int read_cluster_size(struct reader *r, const struct sect *s, struct layout_fat *f)
{
	uint64_t v;

	if (!layout_key_u64(s, "cluster-size", &v))
		return 0;
	if (v < 512 || v > 65536 || (v & (v - 1)))
		return layout_key_error(r, s, "cluster-size",
					"%llu is not a power of two from 512 "
					"to 64K",
					(unsigned long long)v);
	f->cluster_size = (uint32_t)v;
	f->cluster_size_set = true;
	return 0;
}

/* The keys whose form the key table cannot say all about. */
static int check_fat_keys(struct reader *r, const struct sect *s, const struct layout_fat *f)
{
	int bad = 0;

	if (f->label)
		bad |= check_label(r, s, f->label) < 0;
	if (layout_key_text(s, "oem-name"))
		bad |= check_oem_name(r, s, f->oem_name) < 0;
	if (f->root_entries_set && f->root_entries % 16)
		bad |= layout_key_error(r, s, "root-entries",
					"%u is not a multiple of 16 (the root "
					"directory fills whole 512-byte sectors)",
					f->root_entries) < 0;
	return bad ? -EINVAL : 0;
}

static int read_fat_keys(struct reader *r, const struct sect *s, struct layout_fat *f)
{
	uint64_t v;

	if (layout_key_strdup(s, "label", &f->label) < 0 ||
	    layout_key_strdup(s, "oem-name", &f->oem_name) < 0)
		return -ENOMEM;
	if ((f->fats_set = layout_key_u64(s, "fats", &v)))
		f->fats = (unsigned)v;
	f->data_align_set = layout_key_u64(s, "data-align", &f->data_align);
	layout_key_bool(s, "sd-format", &f->sd_format);
	if ((f->root_entries_set = layout_key_u64(s, "root-entries", &v)))
		f->root_entries = (unsigned)v;
	if ((f->reserved_set = layout_key_u64(s, "reserved", &v)))
		f->reserved = (unsigned)v;
	const struct key_value *vid = layout_key_value(s, "volume-id");
	if (vid && vid->word) {
		f->volume_id_per_card = true;
	} else if (layout_key_u64(s, "volume-id", &v)) {
		f->volume_id_set = true;
		f->volume_id = (uint32_t)v;
	}
	int bad = read_cluster_size(r, s, f) < 0;
	bad |= check_fat_keys(r, s, f) < 0;
	return bad ? -EINVAL : 0;
}

int layout_read_fat(struct reader *r, const struct sect *ps, struct layout_partition *p)
{
	const struct tree_section *node = layout_tree_sub(ps->node, "fat");
	struct layout_fat *f = &p->fat;
	struct sect s;

	*f = (struct layout_fat){
		.fats = 2,
		.data_align = p->align,
		.oem_name = strdup("MSWIN4.1"),
		.loc = p->loc,
	};
	if (!f->oem_name)
		return -ENOMEM;
	if (!node)
		return 0;
	layout_sect_init(&s, node);
	f->loc = layout_sect_loc(&s);
	if (!layout_part_is_fat(p))
		return layout_sect_error(r, &s,
					 "a fat { } section needs type = fat, fat12, fat16 "
					 "or fat32");
	int rc = read_fat_keys(r, &s, f);
	if (rc == 0 && f->root_entries_set && p->type == LAYOUT_PART_FAT32)
		rc = layout_key_error(r, &s, "root-entries", "FAT32 has no fixed root directory");
	return rc;
}

/* ------------------------------------------------------------------ entries */

static int check_entry_path(struct reader *r, const struct sect *s, const char *path,
			    enum layout_entry_kind kind)
{
	if (path[0] != '/')
		return layout_sect_error(r, s,
					 "the path must be absolute inside the partition "
					 "('/%s')",
					 path);
	if (kind != LAYOUT_ENTRY_TREE && path[1] == '\0')
		return layout_sect_error(r, s, "'/' is the root directory itself");
	for (const char *p = path + 1; *p;) {
		size_t n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return layout_sect_error(r, s, "'%s' has an empty, '.' or '..' component",
						 path);
		p += n;
		if (*p == '/' && p[1] == '\0')
			return layout_sect_error(r, s, "'%s' must not end in '/'", path);
		if (*p)
			p++;
	}
	return 0;
}

/* per-card and reserve: a template of `content` with room for every card's value. */
static int read_per_card(struct reader *r, const struct sect *s, struct layout_entry *e)
{
	bool has_reserve = layout_key_u64(s, "reserve", &e->reserve);

	layout_key_bool(s, "per-card", &e->per_card);
	if (!e->per_card)
		return has_reserve ? layout_key_error(r, s, "reserve", "needs per-card = true") : 0;
	if (!e->content)
		return layout_key_error(r, s, "per-card",
					"needs 'content' (the template each "
					"card's values fill in), not 'from'");
	if (!has_reserve)
		return layout_key_error(r, s, "per-card",
					"needs 'reserve' (the most bytes a "
					"card's content may take, e.g. reserve = 4K)");
	if (e->reserve > UINT32_MAX) /* FAT's limit, kept on exFAT: a per-card file is small */
		return layout_key_error(r, s, "reserve",
					"must be less than 4 GiB (FAT's largest file; "
					"sdimg keeps the limit on exFAT, where a per-card file "
					"is as small)");
	if (strlen(e->content) > e->reserve)
		return layout_key_error(r, s, "reserve",
					"the template alone takes %zu bytes, more "
					"than %llu",
					strlen(e->content), (unsigned long long)e->reserve);
	return 0;
}

/* ids: the content names the image's ids, which the build fills in; a host file is copied as
 * it is, and a per-card file names each card's ids already. */
static int read_ids(struct reader *r, const struct sect *s, struct layout_entry *e)
{
	layout_key_bool(s, "ids", &e->ids);
	if (e->ids && !e->content)
		return layout_key_error(r, s, "ids",
					"needs 'content' (a host file from 'from' is copied "
					"as it is)");
	bool per_card = false;
	layout_key_bool(s, "per-card", &per_card);
	if (e->ids && per_card)
		return layout_key_error(r, s, "ids",
					"a per-card file names each card's ids itself: "
					"leave 'ids' out");
	return 0;
}

static int read_file_keys(struct reader *r, const struct sect *s, struct layout_entry *e)
{
	uint64_t attrs;
	int rc, bad = 0;

	if ((rc = layout_key_strdup(s, "content", &e->content)) < 0)
		return rc;
	if (rc > 0 && e->from)
		bad |= layout_key_error(r, s, "content",
					"'from' and 'content' are both set; keep "
					"one") < 0;
	else if (rc == 0 && !e->from)
		bad |= layout_sect_error(r, s,
					 "needs 'from' (a host file) or 'content' (its "
					 "text)") < 0;
	layout_key_bool(s, "first", &e->first);
	if (layout_key_u64(s, "attrs", &attrs))
		e->attrs = (unsigned)attrs;
	bad |= read_ids(r, s, e) < 0;
	return bad ? -EINVAL : read_per_card(r, s, e);
}

/* owner, group and owners: numbers, or whose they are, written into an ext4 file system; FAT
 * has no owners. */
static int read_owner_keys(struct reader *r, const struct sect *s, const struct layout_partition *p,
			   struct layout_entry *e)
{
	static const char *const keys[] = { "owner", "group", "owners" };
	uint64_t v;
	int bad = 0;

	if ((e->owner_set = layout_key_u64(s, "owner", &v)))
		e->owner = (uint32_t)v;
	if ((e->group_set = layout_key_u64(s, "group", &v)))
		e->group = (uint32_t)v;
	if (layout_key_u64(s, "owners", &v))
		e->owners = v == 0 ? LAYOUT_OWNERS_HOST : LAYOUT_OWNERS_ROOT;
	static const char *const fat_only[] = { "first", "attrs", "per-card" };
	const size_t n_fat_only = sizeof(fat_only) / sizeof(fat_only[0]);

	for (size_t i = 0; i < 3 && p->type != LAYOUT_PART_EXT4; i++)
		if (layout_key_text(s, keys[i]))
			bad |= layout_key_error(r, s, keys[i],
						"only an ext4 partition has owners "
						"(FAT and exFAT have none)") < 0;
	for (size_t i = 0; i < n_fat_only && p->type == LAYOUT_PART_EXT4; i++)
		if (layout_key_text(s, fat_only[i]))
			bad |= layout_key_error(r, s, fat_only[i],
						i < 2 ? "only a FAT or exFAT partition has "
							"it (ext4 keeps modes: use a tree)"
						      : "only a FAT or exFAT "
							"partition has per-card files") < 0;
	return bad ? -EINVAL : 0;
}

/* links: which symbolic links a FAT or exFAT tree follows; ext4 keeps each link as a link and follows
 * none, so there it would mean nothing. */
static int read_links(struct reader *r, const struct sect *s, const struct layout_partition *p,
		      struct layout_entry *e)
{
	uint64_t v;

	if (!layout_key_u64(s, "links", &v))
		return 0;
	if (p->type == LAYOUT_PART_EXT4)
		return layout_key_error(r, s, "links",
					"an ext4 partition keeps symbolic links as "
					"links and follows none (only a FAT or exFAT tree has "
					"it)");
	e->links = (enum layout_links)v;
	return 0;
}

static int read_entry_keys(struct reader *r, const struct sect *s, struct layout_entry *e)
{
	uint64_t strip;

	if (e->kind == LAYOUT_ENTRY_DIR)
		return 0;
	if (layout_key_strdup(s, "from", &e->from) < 0)
		return -ENOMEM;
	if (e->kind == LAYOUT_ENTRY_FILE)
		return read_file_keys(r, s, e);
	if (layout_key_u64(s, "strip", &strip))
		e->strip = (unsigned)strip;
	int rc = layout_read_filters(r, s, e);
	if (rc == -ENOMEM)
		return rc;
	if (!e->from)
		return layout_sect_error(r, s, "'from' is required (a directory or an archive)");
	return rc;
}

static int read_entry(struct reader *r, const struct tree_section *node,
		      const struct layout_partition *p, enum layout_entry_kind kind,
		      struct layout_entry *e)
{
	struct sect s;

	layout_sect_init(&s, node);
	e->kind = kind;
	e->loc = layout_sect_loc(&s);
	if (!(e->path = strdup(node->title)))
		return -ENOMEM;
	int rc = check_entry_path(r, &s, e->path, kind);
	int rc2 = read_entry_keys(r, &s, e);
	int rc3 = read_owner_keys(r, &s, p, e);
	int rc4 = read_links(r, &s, p, e);
	return rc2 == -ENOMEM ? rc2 : rc < 0 ? rc : rc2 < 0 ? rc2 : rc3 < 0 ? rc3 : rc4;
}

/* LAYOUT_ENTRY_TREE, _FILE or _DIR for a sub-section, or -1 for another (fat, ext4). */
static int entry_kind(const struct tree_section *node)
{
	static const char *const kinds[] = { "tree", "file", "dir" };

	for (int k = 0; k < 3; k++)
		if (strcmp(node->spec->name, kinds[k]) == 0)
			return k;
	return -1;
}

int layout_read_entries(struct reader *r, const struct sect *ps, struct layout_partition *p)
{
	const struct tree_section *part = ps->node;
	int bad = 0;

	if (!(p->entries = calloc(part->n_subs ? part->n_subs : 1, sizeof(*p->entries))))
		return -ENOMEM;
	for (size_t i = 0; i < part->n_subs; i++) { /* in file order */
		int kind = entry_kind(part->subs[i]);
		if (kind < 0)
			continue;
		int rc = read_entry(r, part->subs[i], p, (enum layout_entry_kind)kind,
				    &p->entries[p->n_entries++]);
		if (rc == -ENOMEM)
			return rc;
		bad |= rc < 0;
	}
	if (p->n_entries && !layout_part_has_files(p)) {
		struct layout_loc loc = p->entries[0].loc;
		return diag_error(r->d,
				  "%s:%d: %s: tree, file and dir need a FAT, exFAT or ext4 "
				  "partition (type = fat, fat12, fat16, fat32, exfat or ext4)",
				  loc.file, loc.line, ps->what);
	}
	return bad ? -EINVAL : 0;
}
