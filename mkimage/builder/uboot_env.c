/* SPDX-License-Identifier: MIT */
/* uboot_env: a raw region's U-Boot environment into the image (common/uboot_env.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/path.h"
#include "common/uboot_env.h"
#include "mkimage/builder/builder_priv.h"
#include "mkimage/builder/tables.h"

/* The variables of `vars = FILE` (mkenvimage's text), read from the input folders. */
static int read_vars_file(const struct layout *l, const struct layout_raw *r, struct uboot_env *e,
			  struct diag *d)
{
	const struct layout_uboot_env *env = r->env;
	char place[300], *host = NULL, *text = NULL;
	size_t len = 0;

	snprintf(place, sizeof(place), "%s:%d: raw '%.200s': ", env->vars_loc.file,
		 env->vars_loc.line, r->name);
	int rc = layout_input_path(l, env->vars_file, place, d, &host);
	if (rc < 0)
		return rc;
	rc = path_read_file(host, UBOOT_ENV_MAX_SIZE, &text, &len);
	if (rc == -EFBIG)
		rc = diag_error(d, "%s%s: larger than 16 MiB, more than an environment holds",
				place, host);
	else if (rc < 0 && rc != -ENOMEM)
		rc = diag_errno(d, rc, "%s%s: %s", place, host, strerror(-rc));
	if (rc == 0)
		rc = uboot_env_parse_text(e, text, len, host, d);
	free(text);
	free(host);
	return rc;
}

int build_uboot_env_vars(const struct layout *l, const struct layout_raw *r, struct uboot_env *e,
			 struct diag *d)
{
	const struct layout_uboot_env *env = r->env;
	int rc = env->vars_file ? read_vars_file(l, r, e, d) : 0;

	for (size_t i = 0; rc == 0 && i < env->n_vars; i++) {
		const struct layout_env_var *v = &env->vars[i];
		const struct uboot_env_var *was = uboot_env_find(e, v->name);
		if (was)
			return diag_error(d, "%s:%d: raw '%s': var '%s' is set in %s too (line %u)",
					  v->loc.file, v->loc.line, r->name, v->name,
					  env->vars_file, was->line);
		rc = uboot_env_add(e, v->name, v->value, 0);
	}
	if (rc == 0 && uboot_env_data_bytes(e) > env->size - uboot_env_header_bytes(env->redundant))
		rc = diag_error(d,
				"%s:%d: raw '%s': uboot-env: the variables take %zu bytes, more "
				"than the %llu of a copy less its %zu-byte header",
				env->size_loc.file, env->size_loc.line, r->name,
				uboot_env_data_bytes(e), (unsigned long long)env->size,
				uboot_env_header_bytes(env->redundant));
	return rc;
}

int build_uboot_env_write(int fd, const struct layout_uboot_env *env, uint64_t offset,
			  const struct uboot_env *e, struct build_map *map)
{
	uint8_t *buf = malloc(env->size);
	int rc = buf ? 0 : -ENOMEM;

	/* the first copy active, the second obsolete: U-Boot's next save goes to the second */
	for (unsigned k = 0; rc == 0 && k < (env->redundant ? 2u : 1u); k++) {
		uint64_t at = k ? env->offset_redund : offset;
		rc = uboot_env_encode(e, buf, env->size, env->redundant,
				      k ? UBOOT_ENV_FLAG_OBSOLETE : UBOOT_ENV_FLAG_ACTIVE,
				      env->pad);
		if (rc == 0)
			rc = build_pwrite_all(fd, buf, env->size, at);
		if (rc == 0 && map)
			rc = build_map_add(map, at, env->size);
	}
	free(buf);
	return rc;
}

int build_write_uboot_env(struct build *b, size_t i)
{
	const struct layout_raw *r = &b->l->raws[i];
	struct uboot_env *e = &b->raw_envs[i]; /* kept for the per-card manifest */
	size_t errors = b->d->errors;
	int rc = build_uboot_env_vars(b->l, r, e, b->d);

	if (rc == 0)
		rc = build_uboot_env_write(b->image.fd, r->env, r->offset, e, &b->map);
	if (rc < 0 && rc != -ENOMEM && b->d->errors == errors) /* a write that failed */
		rc = diag_errno(b->d, rc, "%s: raw '%s': %s", b->o->output, r->name, strerror(-rc));
	return rc;
}
