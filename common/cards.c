/* SPDX-License-Identifier: MIT */
/* cards: the per-card manifest and its templates (see cards.h). */
#include "common/cards.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "common/bytes.h"
#include "common/sha256.h"
#include "common/strbuf.h"

#define DIGEST_CHUNK (1u << 20)

static int digest_ranges(int fd, const struct cards_range *r, size_t n, struct sha256 *sha,
			 uint8_t *buf, uint8_t out[32])
{
	for (size_t i = 0; i < n; i++)
		for (uint64_t pos = r[i].start; pos < r[i].end;) {
			size_t want = r[i].end - pos < DIGEST_CHUNK ? (size_t)(r[i].end - pos)
								    : DIGEST_CHUNK;
			ssize_t got = pread(fd, buf, want, (off_t)pos);
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0)
				return got < 0 ? -errno : -EIO;
			sha256_update(sha, buf, (size_t)got);
			pos += (uint64_t)got;
		}
	return sha256_final(sha, out) < 0 ? -EIO : 0;
}

int cards_digest(int fd, const struct cards_range *ranges, size_t n, struct sha256 *sha,
		 uint8_t out[32], struct diag *d)
{
	struct sha256 *own = NULL;
	uint8_t *buf = malloc(DIGEST_CHUNK);
	int rc = buf ? 0 : -ENOMEM;

	if (rc == 0 && !sha && (rc = sha256_new(&own, d)) == 0)
		sha = own;
	if (rc == 0)
		rc = digest_ranges(fd, ranges, n, sha, buf, out);
	sha256_free(own);
	free(buf);
	return rc;
}

static json_t *offsets(const uint64_t *v, unsigned n)
{
	json_t *a = json_array();

	for (unsigned i = 0; a && i < n; i++)
		json_array_append_new(a, json_integer((json_int_t)v[i]));
	return a;
}

/* An exfat-file: its entry set and the allocation bitmap instead of FATs and FSInfo. */
static json_t *exfat_file_json(const struct cards_file *f)
{
	return json_pack("{s:s, s:s, s:I, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:i, s:I}",
			 "kind", "exfat-file", "partition", f->partition, "volume",
			 (json_int_t)f->volume, "path", f->path, "template", f->template, "reserve",
			 (json_int_t)f->reserve, "cluster-size", (json_int_t)f->cluster_size,
			 "first-cluster", (json_int_t)f->first_cluster, "clusters",
			 (json_int_t)f->clusters, "data", (json_int_t)f->data, "entry",
			 (json_int_t)f->entry, "entries", (int)f->set_count, "bitmap",
			 (json_int_t)f->bitmap);
}

static json_t *file_json(const struct cards_file *f)
{
	if (f->kind == CARDS_EXFAT_FILE)
		return exfat_file_json(f);
	json_t *o = json_pack("{s:s, s:s, s:I, s:s, s:s, s:I, s:i, s:I, s:I, s:I, s:I, s:I}",
			      "kind", "fat-file", "partition", f->partition, "volume",
			      (json_int_t)f->volume, "path", f->path, "template", f->template,
			      "reserve", (json_int_t)f->reserve, "fat-type", (int)f->fat_type,
			      "cluster-size", (json_int_t)f->cluster_size, "first-cluster",
			      (json_int_t)f->first_cluster, "clusters", (json_int_t)f->clusters,
			      "data", (json_int_t)f->data, "entry", (json_int_t)f->entry);

	if (o)
		json_object_set_new(o, "fats", offsets(f->fats, f->n_fats));
	if (o && f->n_fsinfo) {
		json_object_set_new(o, "fsinfo", offsets(f->fsinfo, f->n_fsinfo));
		json_object_set_new(o, "free-base", json_integer(f->free_base));
	}
	return o;
}

/* "ids": what disk-id = per-card and volume-id = per-card set anew on every card. */
static json_t *ids_json(const struct cards_manifest *m)
{
	json_t *o = json_object(), *parts = json_array(), *vols = json_array();

	if (!o || !parts || !vols) {
		json_decref(o);
		json_decref(parts);
		json_decref(vols);
		return NULL;
	}
	if (m->mbr_disk_id)
		json_object_set_new(o, "mbr-disk-id", json_integer(CARDS_MBR_DISK_ID));
	if (m->n_gpt_headers)
		json_object_set_new(o, "gpt-headers", offsets(m->gpt_headers, m->n_gpt_headers));
	for (size_t i = 0; i < m->n_parts; i++)
		json_array_append_new(parts, json_pack("{s:s, s:i, s:b}", "name", m->parts[i].name,
						       "number", (int)m->parts[i].number,
						       "per-card-uuid", m->parts[i].per_card_uuid));
	for (size_t i = 0; i < m->n_volumes; i++)
		json_array_append_new(vols, json_pack("{s:s, s:I, s:o}", "partition",
						      m->volumes[i].partition, "volume",
						      (json_int_t)m->volumes[i].volume, "volume-id",
						      offsets(m->volumes[i].volume_id,
							      m->volumes[i].n_volume_id)));
	json_object_set_new(o, "partitions", parts);
	json_object_set_new(o, "volumes", vols);
	return o;
}

/* "uboot-envs": each environment with per-card variables, its copies and all its variables. */
static json_t *envs_json(const struct cards_manifest *m)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < m->n_envs; i++) {
		const struct cards_env *e = &m->envs[i];
		json_t *vars = json_array();
		for (size_t k = 0; vars && k < e->n_vars; k++)
			json_array_append_new(vars,
					      json_pack("{s:s, s:s, s:b}", "name", e->vars[k].name,
							"value", e->vars[k].template, "per-card",
							e->vars[k].per_card));
		json_array_append_new(a, json_pack("{s:s, s:o, s:I, s:i, s:o}", "region", e->region,
						   "copies", offsets(e->copies, e->n_copies),
						   "size", (json_int_t)e->size, "pad", (int)e->pad,
						   "vars", vars));
	}
	return a;
}

/* "image": the ranges the manifest's image was written in, and SHA-256 over them. */
static json_t *image_json(const struct cards_manifest *m)
{
	json_t *mapped = json_array();
	char hex[65];

	bytes_hex(m->mapped_sha256, 32, hex);
	for (size_t i = 0; mapped && i < m->n_mapped; i++)
		json_array_append_new(mapped, json_pack("[I, I]", (json_int_t)m->mapped[i].start,
							(json_int_t)m->mapped[i].end));
	return mapped ? json_pack("{s:o, s:s}", "mapped", mapped, "sha256", hex) : NULL;
}

int cards_manifest_text(const struct cards_manifest *m, char **ret)
{
	json_t *fields = json_array();
	json_t *root = json_pack("{s:s, s:I, s:s}", "format", CARDS_FORMAT, "image-size",
				 (json_int_t)m->image_size, "seed", m->seed ? m->seed : "");

	for (size_t i = 0; fields && i < m->n_files; i++)
		json_array_append_new(fields, file_json(&m->files[i]));
	if (root)
		json_object_set_new(root, "image", image_json(m));
	if (root)
		json_object_set_new(root, "ids", ids_json(m));
	if (root && m->n_envs)
		json_object_set_new(root, "uboot-envs", envs_json(m));
	if (root && fields)
		json_object_set(root, "fields", fields);
	*ret = root ? json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
	json_decref(fields);
	json_decref(root);
	if (!*ret)
		return -ENOMEM;
	size_t len = strlen(*ret);
	char *nl = realloc(*ret, len + 2);
	if (!nl) {
		free(*ret);
		return -ENOMEM;
	}
	memcpy(nl + len, "\n", 2);
	*ret = nl;
	return 0;
}

/* Whether the @len bytes of @name are the name of a derived id: DISK_ID, PARTUUID_*,
 * VOLUME_ID_*. */
static bool names_id(const char *name, size_t len)
{
	static const char *const derived[] = { "PARTUUID_", "VOLUME_ID_" };
	bool id = len == strlen("DISK_ID") && memcmp(name, "DISK_ID", len) == 0;

	for (size_t i = 0; i < sizeof(derived) / sizeof(derived[0]); i++)
		id |= len >= strlen(derived[i]) &&
		      memcmp(name, derived[i], strlen(derived[i])) == 0;
	return id;
}

const char *cards_var_name_problem(const char *name)
{
	size_t len = strlen(name);

	if (!len || strchr("0123456789", name[0]) ||
	    strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") != len)
		return "is not a variable name (letters, digits, _, not starting with a digit)";
	return names_id(name, len) ? "names an id each card derives from its values (DISK_ID, "
				     "PARTUUID_NAME, VOLUME_ID_NAME): it cannot be given"
				   : NULL;
}

/* The name of the ${NAME} at @p, its length in *@len; NULL when @p starts none. */
static const char *var_at(const char *p, size_t *len)
{
	const char *end;

	if (p[0] != '$' || p[1] != '{' || !(end = strchr(p + 2, '}')) || end == p + 2)
		return NULL;
	*len = (size_t)(end - p - 2);
	return strspn(p + 2, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") ==
			       *len
		       ? p + 2
		       : NULL;
}

/* A ${NAME} that @vars has no value for: an error, or with @ids_only (of a name that is no
 * id's) its text as it stands, into @out. */
static int no_value(struct strbuf *out, const char *name, size_t len, bool ids_only,
		    const char *where, struct diag *d)
{
	if (!ids_only)
		return diag_error(d, "%s: no value for ${%.*s}", where, (int)len, name);
	if (names_id(name, len))
		return diag_error(d,
				  "%s: ${%.*s} is no id of this image (DISK_ID with a table, "
				  "PARTUUID_NAME of a partition in it, VOLUME_ID_NAME of a FAT "
				  "partition)",
				  where, (int)len, name);
	int rc = 0;

	for (const char *c = name - 2; rc == 0 && c < name + len + 1; c++) /* "${" NAME "}" */
		rc = strbuf_putc(out, *c);
	return rc;
}

static int render(const char *template, const struct cards_var *vars, size_t n, bool ids_only,
		  const char *where, char **ret, struct diag *d)
{
	struct strbuf out = { 0 };
	int rc = strbuf_puts(&out, "");

	for (const char *p = template; rc == 0 && *p;) {
		size_t len;
		const char *name = var_at(p, &len);
		if (!name) {
			rc = strbuf_putc(&out, *p++);
			continue;
		}
		size_t i = 0;
		while (i < n && (strlen(vars[i].name) != len || memcmp(vars[i].name, name, len)))
			i++;
		if (i == n)
			rc = no_value(&out, name, len, ids_only, where, d);
		else
			rc = strbuf_puts(&out, vars[i].value);
		p = name + len + 1;
	}
	if (rc < 0) {
		strbuf_release(&out);
		return rc;
	}
	*ret = out.s;
	return 0;
}

int cards_render(const char *template, const struct cards_var *vars, size_t n, const char *where,
		 char **ret, struct diag *d)
{
	return render(template, vars, n, false, where, ret, d);
}

const char *cards_next_id(const char *template, size_t *len)
{
	for (const char *p = template; *p; p++) {
		const char *name = var_at(p, len);
		if (name && names_id(name, *len))
			return name;
	}
	return NULL;
}

int cards_render_ids(const char *template, const struct cards_var *vars, size_t n,
		     const char *where, char **ret, struct diag *d)
{
	return render(template, vars, n, true, where, ret, d);
}
