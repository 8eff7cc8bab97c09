/* SPDX-License-Identifier: MIT */
/* cards_read: reading and checking a per-card manifest (see cards.h). Every value of the
 * untrusted file is checked against the image it describes before any of it is used. */
#include "common/cards.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/path.h"
#include "common/uboot_env.h"

/*
 * Why a manifest is refused: the place of the value at fault ("fields[0] (boot:/a.txt):
 * entry", "image: mapped[3]") and what is wrong with it, one line for the message.
 */
struct problem {
	char text[512];
};

/* Sets @p to "@at: @key: " and the reason. */
__attribute__((format(printf, 4, 5))) static void set_problem(struct problem *p, const char *at,
							      const char *key, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(p->text, sizeof(p->text), "%s%s%s: ", at, *at && *key ? ": " : "", key);

	if (n < 0 || (size_t)n >= sizeof(p->text))
		return;
	va_start(ap, fmt);
	vsnprintf(p->text + n, sizeof(p->text) - (size_t)n, fmt, ap);
	va_end(ap);
}

/* refuse(p, at, key, fmt, ...): set_problem(), and -EINVAL; a macro, so that a static
 * analyser (which does not follow a variadic call) sees the value returned. */
#define refuse(p, at, key, ...) (set_problem((p), (at), (key), __VA_ARGS__), -EINVAL)

/* @v as the manifest spells it, cut short (a hostile value may be long), or "missing". */
static const char *shown(json_t *v, char buf[48])
{
	char *text = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;

	if (!v)
		return "missing";
	if (!text)
		return "a value";
	if (strlen(text) >= 48)
		snprintf(buf, 48, "%.40s...", text);
	else
		snprintf(buf, 48, "%s", text);
	free(text);
	return buf;
}

/* The whole number at @key of @o, from @min to @max, into *@ret. */
static int get_u64(json_t *o, const char *at, const char *key, uint64_t min, uint64_t max,
		   uint64_t *ret, struct problem *p)
{
	json_t *v = json_object_get(o, key);
	char buf[48];

	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    (uint64_t)json_integer_value(v) < min || (uint64_t)json_integer_value(v) > max)
		return refuse(p, at, key, "%s, but it must be a whole number from %llu to %llu",
			      shown(v, buf), (unsigned long long)min, (unsigned long long)max);
	*ret = (uint64_t)json_integer_value(v);
	return 0;
}

static int get_u32(json_t *o, const char *at, const char *key, uint32_t min, uint32_t *ret,
		   struct problem *p)
{
	uint64_t v;
	int rc = get_u64(o, at, key, min, UINT32_MAX, &v, p);

	if (rc == 0)
		*ret = (uint32_t)v;
	return rc;
}

static int get_str(json_t *o, const char *at, const char *key, char **ret, struct problem *p)
{
	json_t *v = json_object_get(o, key);
	const char *s = json_string_value(v);
	char buf[48];

	if (!s)
		return refuse(p, at, key, "%s, but it must be a string", shown(v, buf));
	*ret = strdup(s);
	return *ret ? 0 : -ENOMEM;
}

/* The list of one or two byte offsets at @key of @o, each at most @max; an absent one is
 * an empty list unless @required. */
static int get_offsets(json_t *o, const char *at, const char *key, uint64_t max, uint64_t v[2],
		       unsigned *n, bool required, struct problem *p)
{
	json_t *a = json_object_get(o, key);
	char buf[48];

	*n = 0;
	if (!a && !required)
		return 0;
	if (!json_is_array(a) || json_array_size(a) < 1 || json_array_size(a) > 2)
		return refuse(p, at, key, "%s, but it must list one or two byte offsets",
			      shown(a, buf));
	for (size_t i = 0; i < json_array_size(a); i++) {
		json_t *x = json_array_get(a, i);
		if (!json_is_integer(x) || json_integer_value(x) < 0 ||
		    (uint64_t)json_integer_value(x) > max)
			return refuse(p, at, key,
				      "%s, but each must be a byte offset from 0 to "
				      "%llu",
				      shown(a, buf), (unsigned long long)max);
		v[(*n)++] = (uint64_t)json_integer_value(x);
	}
	return 0;
}

/* The string at @key of @o, or "". */
static const char *str_or_empty(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* A fat-file's FAT type. */
static int read_fat_type(json_t *o, const char *at, struct cards_file *f, struct problem *p)
{
	uint64_t type = 0;
	int rc;

	if ((rc = get_u64(o, at, "fat-type", 12, 32, &type, p)))
		return rc;
	if (type != 12 && type != 16 && type != 32)
		return refuse(p, at, "fat-type", "%llu, but it must be 12, 16 or 32",
			      (unsigned long long)type);
	f->fat_type = (unsigned)type;
	return 0;
}

/* A file's cluster size and the clusters it holds. */
static int read_file_clusters(json_t *o, const char *at, uint64_t image_size, struct cards_file *f,
			      struct problem *p)
{
	int rc;

	if ((rc = get_u32(o, at, "cluster-size", 1, &f->cluster_size, p)) ||
	    (rc = get_u32(o, at, "first-cluster", 2, &f->first_cluster, p)) || /* FAT data
	    clusters are numbered from 2 (Microsoft FAT specification, "FAT Data Structure"), as
	    exFAT's (exFAT specification §3.1.12) */
	    (rc = get_u32(o, at, "clusters", 0, &f->clusters, p)) ||
	    (rc = get_u64(o, at, "data", 0, image_size, &f->data, p)))
		return rc;
	uint64_t bytes = (uint64_t)f->clusters * f->cluster_size;
	if (bytes < f->reserve)
		return refuse(p, at, "clusters",
			      "%u of %u bytes hold less than its reserve of "
			      "%llu bytes",
			      f->clusters, f->cluster_size, (unsigned long long)f->reserve);
	if (f->data + bytes > image_size)
		return refuse(p, at, "clusters",
			      "its %u clusters from byte %llu end past the "
			      "image's %llu bytes",
			      f->clusters, (unsigned long long)f->data,
			      (unsigned long long)image_size);
	return 0;
}

/* Whether @s holds no control byte (which would break a one-line message). */
static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

/* The keys only a fat-file has, and those only an exfat-file has. */
static const char *const fat_only_keys[] = { "fat-type", "fats", "fsinfo", "free-base", NULL };
static const char *const exfat_only_keys[] = { "entries", "bitmap", NULL };

/* Refuses the first of @keys that @o (a field of @kind) holds. */
static int other_kinds_keys(json_t *o, const char *at, const char *const *keys, const char *kind,
			    struct problem *p)
{
	for (; *keys; keys++)
		if (json_object_get(o, *keys))
			return refuse(p, at, *keys, "not a key of %s", kind);
	return 0;
}

/* An exfat-file's clusters, entry set (a File entry, a Stream Extension and 1 to 17 File
 * Name entries: exFAT specification §7.4, §7.6, §7.7) and allocation bitmap. */
static int read_exfat_file(json_t *o, const char *at, uint64_t image_size, struct cards_file *f,
			   struct problem *p)
{
	uint64_t n = 0;
	int rc;

	if ((rc = other_kinds_keys(o, at, fat_only_keys, "an exfat-file", p)) ||
	    (rc = read_file_clusters(o, at, image_size, f, p)) ||
	    (rc = get_u64(o, at, "entries", 3, 19, &n, p)))
		return rc;
	f->set_count = (unsigned)n;
	if (32 * n > image_size)
		return refuse(p, at, "entries",
			      "%llu entries of 32 bytes, more than the image holds",
			      (unsigned long long)n);
	if ((rc = get_u64(o, at, "entry", 0, image_size - 32 * n, &f->entry, p)) ||
	    (rc = get_u64(o, at, "bitmap", 0, image_size - 1, &f->bitmap, p)))
		return rc;
	return 0;
}

static int read_file(json_t *o, size_t index, uint64_t image_size, struct cards_file *f,
		     struct problem *p)
{
	char at[300];
	int rc;

	snprintf(at, sizeof(at), "fields[%zu]", index);
	if (!json_is_object(o))
		return refuse(p, at, "", "not an object");
	if (strcmp(str_or_empty(o, "kind"), "exfat-file") == 0)
		f->kind = CARDS_EXFAT_FILE;
	else if (strcmp(str_or_empty(o, "kind"), "fat-file") != 0)
		return refuse(p, at, "kind", "must be \"fat-file\" or \"exfat-file\"");
	if ((rc = get_str(o, at, "partition", &f->partition, p)) ||
	    (rc = get_str(o, at, "path", &f->path, p)))
		return rc;
	if (printable(f->partition) && printable(f->path)) /* else the index alone: one line */
		snprintf(at, sizeof(at), "fields[%zu] (%.100s:%.150s)", index, f->partition,
			 f->path);
	if ((rc = get_str(o, at, "template", &f->template, p)) ||
	    (rc = get_u64(o, at, "volume", 0, image_size - 512, &f->volume, p)) ||
	    (rc = get_u64(o, at, "reserve", 1, UINT32_MAX, &f->reserve, p)))
		return rc;
	if (strlen(f->template) > f->reserve)
		return refuse(p, at, "template", "%zu bytes, more than its reserve of %llu",
			      strlen(f->template), (unsigned long long)f->reserve);
	if (f->kind == CARDS_EXFAT_FILE)
		return read_exfat_file(o, at, image_size, f, p);
	if ((rc = other_kinds_keys(o, at, exfat_only_keys, "a fat-file", p)) ||
	    (rc = read_fat_type(o, at, f, p)) ||
	    (rc = read_file_clusters(o, at, image_size, f, p)) ||
	    (rc = get_u64(o, at, "entry", 0, image_size - 32, &f->entry, p)) ||
	    (rc = get_offsets(o, at, "fats", image_size, f->fats, &f->n_fats, true, p)) ||
	    (rc = get_offsets(o, at, "fsinfo", image_size - 512, f->fsinfo, &f->n_fsinfo, false,
			      p)))
		return rc;
	if (f->n_fsinfo && (rc = get_u32(o, at, "free-base", 0, &f->free_base, p)))
		return rc;
	return 0;
}

static int read_env_var(json_t *o, const char *at, struct cards_env_var *v, struct problem *p)
{
	json_t *pc = json_object_get(o, "per-card");
	int rc;

	if (!json_is_object(o))
		return refuse(p, at, "", "not an object");
	if ((rc = get_str(o, at, "name", &v->name, p)) ||
	    (rc = get_str(o, at, "value", &v->template, p)))
		return rc;
	if (!json_is_boolean(pc))
		return refuse(p, at, "per-card", "must be true or false");
	v->per_card = json_is_true(pc);
	if (uboot_env_name_problem(v->name))
		return refuse(p, at, "name", "not a variable's name in an environment");
	return 0;
}

/* An environment: its copies inside the image and apart, its variables. */
static int read_env(json_t *o, size_t index, uint64_t image_size, struct cards_env *e,
		    struct problem *p)
{
	json_t *vars = json_object_get(o, "vars");
	uint64_t pad;
	char at[300];
	int rc;

	snprintf(at, sizeof(at), "uboot-envs[%zu]", index);
	if (!json_is_object(o))
		return refuse(p, at, "", "not an object");
	if ((rc = get_str(o, at, "region", &e->region, p)) ||
	    (rc = get_u64(o, at, "size", uboot_env_header_bytes(true) + 1, UBOOT_ENV_MAX_SIZE,
			  &e->size, p)) ||
	    (rc = get_u64(o, at, "pad", 0, 255, &pad, p)))
		return rc;
	if (e->size > image_size)
		return refuse(p, at, "size", "larger than the image");
	if ((rc = get_offsets(o, at, "copies", image_size - e->size, e->copies, &e->n_copies, true,
			      p)))
		return rc;
	e->pad = (uint8_t)pad;
	if (e->n_copies == 2 && e->copies[1] < e->copies[0] + e->size)
		return refuse(p, at, "copies", "the second starts inside the first");
	if (!json_is_array(vars) || json_array_size(vars) > CARDS_MAX_FIELDS)
		return refuse(p, at, "vars", "missing, not a list, or too long");
	if (!(e->vars = calloc(json_array_size(vars) + 1, sizeof(*e->vars))))
		return -ENOMEM;
	for (size_t k = 0; k < json_array_size(vars); k++) {
		char vat[340];
		snprintf(vat, sizeof(vat), "%s: vars[%zu]", at, k);
		if ((rc = read_env_var(json_array_get(vars, k), vat, &e->vars[e->n_vars++], p)))
			return rc;
	}
	return 0;
}

static int read_envs(json_t *root, struct cards_manifest *m, struct problem *p)
{
	json_t *a = json_object_get(root, "uboot-envs");
	int rc;

	if (!a)
		return 0;
	if (!json_is_array(a) || json_array_size(a) > CARDS_MAX_PARTITIONS)
		return refuse(p, "", "uboot-envs", "not a list, or too long");
	if (!(m->envs = calloc(json_array_size(a) + 1, sizeof(*m->envs))))
		return -ENOMEM;
	for (size_t i = 0; i < json_array_size(a); i++)
		if ((rc = read_env(json_array_get(a, i), i, m->image_size, &m->envs[m->n_envs++],
				   p)))
			return rc;
	return 0;
}

static int read_part(json_t *o, size_t index, struct cards_part *part, struct problem *p)
{
	char at[48];
	uint64_t n;
	int rc;

	snprintf(at, sizeof(at), "ids: partitions[%zu]", index);
	if ((rc = get_str(o, at, "name", &part->name, p)) ||
	    (rc = get_u64(o, at, "number", 1, 128, &n, p)))
		return rc;
	if (!json_is_boolean(json_object_get(o, "per-card-uuid")))
		return refuse(p, at, "per-card-uuid", "must be true or false");
	part->number = (unsigned)n;
	part->per_card_uuid = json_is_true(json_object_get(o, "per-card-uuid"));
	return 0;
}

static int read_volume(json_t *o, size_t index, uint64_t image_size, struct cards_volume *v,
		       struct problem *p)
{
	char at[48];
	int rc;

	snprintf(at, sizeof(at), "ids: volumes[%zu]", index);
	if ((rc = get_str(o, at, "partition", &v->partition, p)) ||
	    (rc = get_u64(o, at, "volume", 0, image_size - 512, &v->volume, p)) ||
	    (rc = get_offsets(o, at, "volume-id", image_size - 4, v->volume_id, &v->n_volume_id,
			      true, p)))
		return rc;
	return 0;
}

static int read_ids(json_t *root, struct cards_manifest *m, struct problem *p)
{
	json_t *ids = json_object_get(root, "ids");
	json_t *parts = json_object_get(ids, "partitions"), *vols = json_object_get(ids, "volumes");
	uint64_t at;
	int rc;

	if (!json_is_object(ids))
		return refuse(p, "ids", "", "missing, or not an object");
	if (!json_is_array(parts) || !json_is_array(vols))
		return refuse(p, "ids", json_is_array(parts) ? "volumes" : "partitions",
			      "missing, or not a list");
	if (json_object_get(ids, "mbr-disk-id")) {
		if ((rc = get_u64(ids, "ids", "mbr-disk-id", CARDS_MBR_DISK_ID, CARDS_MBR_DISK_ID,
				  &at, p)))
			return rc;
		m->mbr_disk_id = true;
	}
	if ((rc = get_offsets(ids, "ids", "gpt-headers", m->image_size - 512, m->gpt_headers,
			      &m->n_gpt_headers, false, p)))
		return rc;
	for (unsigned i = 0; i < m->n_gpt_headers; i++)
		if (m->gpt_headers[i] % 512)
			return refuse(p, "ids", "gpt-headers", "byte %llu does not start a sector",
				      (unsigned long long)m->gpt_headers[i]);
	m->parts = calloc(json_array_size(parts) + 1, sizeof(*m->parts));
	m->volumes = calloc(json_array_size(vols) + 1, sizeof(*m->volumes));
	if (!m->parts || !m->volumes)
		return -ENOMEM;
	if (json_array_size(parts) > CARDS_MAX_PARTITIONS)
		return refuse(p, "ids", "partitions",
			      "%zu, more than the %u partitions a table holds",
			      json_array_size(parts), CARDS_MAX_PARTITIONS);
	if (json_array_size(vols) > CARDS_MAX_PARTITIONS) /* one at the start of a partition */
		return refuse(p, "ids", "volumes", "%zu, more than the %u partitions a table holds",
			      json_array_size(vols), CARDS_MAX_PARTITIONS);
	for (size_t i = 0; i < json_array_size(parts); i++)
		if ((rc = read_part(json_array_get(parts, i), i, &m->parts[m->n_parts++], p)))
			return rc;
	for (size_t i = 0; i < json_array_size(vols); i++)
		if ((rc = read_volume(json_array_get(vols, i), i, m->image_size,
				      &m->volumes[m->n_volumes++], p)))
			return rc;
	return 0;
}

/* The value of lower-case hex digit @c (the manifest's SHA-256 as cards.c writes it), or -1. */
static int hex_value(char c)
{
	static const char digits[] = "0123456789abcdef";
	const char *p = c ? strchr(digits, c) : NULL;

	return p ? (int)(p - digits) : -1;
}

/* image.mapped[@i]: a range [START, END] inside the image, after the one before. */
static int read_range(json_t *r, size_t i, struct cards_manifest *m, struct problem *p)
{
	json_t *a = json_array_get(r, 0), *b = json_array_get(r, 1);
	char key[32], buf[48];

	snprintf(key, sizeof(key), "mapped[%zu]", i);
	if (!json_is_array(r) || json_array_size(r) != 2 || !json_is_integer(a) ||
	    !json_is_integer(b) || json_integer_value(a) < 0 ||
	    json_integer_value(b) <= json_integer_value(a) ||
	    (uint64_t)json_integer_value(b) > m->image_size ||
	    (i && (uint64_t)json_integer_value(a) < m->mapped[i - 1].end))
		return refuse(p, "image", key,
			      "%s, but a range must be [START, END] with START < "
			      "END <= image-size %llu, after the range before it",
			      shown(r, buf), (unsigned long long)m->image_size);
	m->mapped[m->n_mapped++] = (struct cards_range){ (uint64_t)json_integer_value(a),
							 (uint64_t)json_integer_value(b) };
	return 0;
}

/* "image": its ranges ascending and apart, inside the image, and their SHA-256. */
static int read_image(json_t *root, struct cards_manifest *m, struct problem *p)
{
	json_t *im = json_object_get(root, "image"), *mapped = json_object_get(im, "mapped");
	const char *hex = json_string_value(json_object_get(im, "sha256"));
	int rc;

	if (!json_is_array(mapped))
		return refuse(p, "image", "mapped", "missing, or not a list");
	if (!hex || strlen(hex) != 64)
		return refuse(p, "image", "sha256", "must be 64 hexadecimal digits");
	for (int i = 0; i < 32; i++) {
		int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return refuse(p, "image", "sha256",
				      "must be 64 hexadecimal digits "
				      "(0-9, a-f)");
		m->mapped_sha256[i] = (uint8_t)(hi << 4 | lo);
	}
	if (!(m->mapped = calloc(json_array_size(mapped) + 1, sizeof(*m->mapped))))
		return -ENOMEM;
	for (size_t i = 0; i < json_array_size(mapped); i++)
		if ((rc = read_range(json_array_get(mapped, i), i, m, p)))
			return rc;
	return 0;
}

static int read_fields(json_t *root, struct cards_manifest *m, struct problem *p)
{
	json_t *fields = json_object_get(root, "fields");
	char buf[48];
	int rc;

	if (strcmp(str_or_empty(root, "format"), CARDS_FORMAT) != 0)
		return refuse(p, "", "format", "%s, but a per-card manifest of sdimg has \"%s\"",
			      shown(json_object_get(root, "format"), buf), CARDS_FORMAT);
	if ((rc = get_u64(root, "", "image-size", 512, UINT64_MAX >> 4, &m->image_size, p)))
		return rc;
	if (!json_is_array(fields))
		return refuse(p, "", "fields", "missing, or not a list");
	if (json_array_size(fields) > CARDS_MAX_FIELDS) /* each costs a check against the image */
		return refuse(p, "", "fields",
			      "%zu, more than the %u per-card files a manifest "
			      "holds",
			      json_array_size(fields), CARDS_MAX_FIELDS);
	if ((rc = get_str(root, "", "seed", &m->seed, p)) || (rc = read_image(root, m, p)) ||
	    (rc = read_ids(root, m, p)) || (rc = read_envs(root, m, p)))
		return rc;
	m->files = calloc(json_array_size(fields) + 1, sizeof(*m->files));
	if (!m->files)
		return -ENOMEM;
	for (size_t i = 0; i < json_array_size(fields); i++)
		if ((rc = read_file(json_array_get(fields, i), i, m->image_size,
				    &m->files[m->n_files++], p)))
			return rc;
	return 0;
}

/* The keys of each object of the manifest (README.md, "Per-card values"), NULL-ended. */
static const char *const root_keys[] = { "format", "image-size", "seed",       "image",
					 "ids",    "fields",     "uboot-envs", NULL };
static const char *const env_keys[] = { "region", "copies", "size", "pad", "vars", NULL };
static const char *const env_var_keys[] = { "name", "value", "per-card", NULL };
static const char *const image_keys[] = { "mapped", "sha256", NULL };
static const char *const ids_keys[] = { "mbr-disk-id", "gpt-headers", "partitions", "volumes",
					NULL };
static const char *const part_keys[] = { "name", "number", "per-card-uuid", NULL };
static const char *const volume_keys[] = { "partition", "volume", "volume-id", NULL };
static const char *const file_keys[] = { "kind",          "partition", "volume",    "path",
					 "template",      "reserve",   "fat-type",  "cluster-size",
					 "first-cluster", "clusters",  "data",      "entry",
					 "fats",          "fsinfo",    "free-base", "entries",
					 "bitmap",        NULL };

/* The first key of @o (when an object) that is not one of @known, or NULL. */
static const char *unknown_key(json_t *o, const char *const *known)
{
	const char *key;
	json_t *v;

	json_object_foreach(o, key, v) {
		size_t i = 0;
		while (known[i] && strcmp(known[i], key) != 0)
			i++;
		if (!known[i])
			return key;
	}
	return NULL;
}

/* The first key of the objects in array @a that is not one of @known, or NULL. */
static const char *unknown_key_in(json_t *a, const char *const *known)
{
	const char *key = NULL;

	for (size_t i = 0; !key && i < json_array_size(a); i++)
		key = unknown_key(json_array_get(a, i), known);
	return key;
}

/* The first key of the manifest that its format does not have, or NULL: a key the reader
 * would pass over unread is a manifest edited by hand or of another format. */
static const char *stray_key(json_t *root)
{
	json_t *ids = json_object_get(root, "ids");
	const char *key = unknown_key(root, root_keys);

	if (!key)
		key = unknown_key(json_object_get(root, "image"), image_keys);
	if (!key)
		key = unknown_key(ids, ids_keys);
	if (!key)
		key = unknown_key_in(json_object_get(ids, "partitions"), part_keys);
	if (!key)
		key = unknown_key_in(json_object_get(ids, "volumes"), volume_keys);
	if (!key)
		key = unknown_key_in(json_object_get(root, "fields"), file_keys);
	json_t *envs = json_object_get(root, "uboot-envs");
	if (!key)
		key = unknown_key_in(envs, env_keys);
	for (size_t i = 0; !key && i < json_array_size(envs); i++)
		key = unknown_key_in(json_object_get(json_array_get(envs, i), "vars"),
				     env_var_keys);
	return key;
}

int cards_manifest_read(const char *path, struct cards_manifest *m, struct diag *d)
{
	json_error_t err;
	json_t *root = NULL;
	char *text = NULL;
	size_t len = 0;
	/* read whole, where jansson's json_loadfd() reads a byte per call */
	int rc = path_read_file(path, CARDS_MANIFEST_MAX_BYTES, &text, &len);

	if (rc == -ESPIPE)
		return diag_error(d,
				  "%s: not a regular file (a FIFO, a socket or a device): a "
				  "per-card manifest is read only from a file",
				  path);
	if (rc == -EFBIG)
		return diag_error(d, "%s: over %u MiB, more than a per-card manifest holds", path,
				  CARDS_MANIFEST_MAX_BYTES >> 20);
	if (rc < 0)
		return rc == -ENOMEM ? rc : diag_error(d, "%s: %s", path, strerror(-rc));
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
	free(text);
	if (!root)
		return diag_error(d, "%s: %s", path, err.text);
	if (strcmp(str_or_empty(root, "format"), CARDS_FORMAT_OLD) == 0) {
		json_decref(root);
		return diag_error(d,
				  "%s: a per-card manifest of an older sdimg (\"%s\"), which "
				  "does not say which image it belongs to: build the image again "
				  "for one of \"%s\"",
				  path, CARDS_FORMAT_OLD, CARDS_FORMAT);
	}
	const char *stray = stray_key(root);
	if (stray) {
		rc = diag_error(d,
				"%s: an unknown key \"%s\" (not of a per-card manifest of "
				"\"%s\")",
				path, stray, CARDS_FORMAT);
		json_decref(root);
		return rc;
	}
	struct problem why = { "" };
	rc = read_fields(root, m, &why);
	json_decref(root);
	if (rc == -ENOMEM)
		return rc;
	if (rc)
		return diag_error(d, "%s: a damaged per-card manifest: %s", path, why.text);
	return 0;
}

void cards_manifest_release(struct cards_manifest *m)
{
	for (size_t i = 0; i < m->n_files; i++) {
		free(m->files[i].partition);
		free(m->files[i].path);
		free(m->files[i].template);
	}
	free(m->files);
	for (size_t i = 0; i < m->n_parts; i++)
		free(m->parts[i].name);
	free(m->parts);
	for (size_t i = 0; i < m->n_volumes; i++)
		free(m->volumes[i].partition);
	free(m->volumes);
	for (size_t i = 0; i < m->n_envs; i++) {
		for (size_t k = 0; k < m->envs[i].n_vars; k++) {
			free(m->envs[i].vars[k].name);
			free(m->envs[i].vars[k].template);
		}
		free(m->envs[i].vars);
		free(m->envs[i].region);
	}
	free(m->envs);
	free(m->mapped);
	free(m->seed);
	*m = (struct cards_manifest){ 0 };
}

/* ---------------------------------------------------------------- templates */
