/* SPDX-License-Identifier: MIT */
/* read_env: the `uboot-env { }` section of a raw region (LAYOUT.md, "A U-Boot environment"). */
#include "layouts/read_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/cards.h"
#include "common/uboot_env.h"

/* Why a value cannot stand in an environment (U-Boot's entries end at a NUL, and a newline
 * would read back as two lines of fw_printenv), or NULL. */
static const char *value_problem(const char *v)
{
	if (strchr(v, '\n'))
		return "holds a newline";
	if (strchr(v, '\r'))
		return "holds a carriage return";
	return NULL;
}

/* The ${NAME}s of a per-card template, each a name a card's variable may have. */
static int check_template(struct reader *r, const struct sect *s, const char *t)
{
	for (const char *p = strstr(t, "${"); p; p = strstr(p + 2, "${")) {
		const char *end = strchr(p + 2, '}');
		char name[128];
		if (!end || (size_t)(end - p - 2) >= sizeof(name))
			return layout_key_error(r, s, "value", "'${' without a closing '}'");
		memcpy(name, p + 2, (size_t)(end - p - 2));
		name[end - p - 2] = '\0';
		const char *why = cards_var_name_problem(name);
		if (why)
			return layout_key_error(r, s, "value", "${%s}: a card's variable %s", name,
						why);
	}
	return 0;
}

static int read_var(struct reader *r, const struct tree_section *node, struct layout_env_var *v)
{
	struct sect s;
	const char *why;
	int bad = 0;

	layout_sect_init(&s, node);
	v->loc = layout_sect_loc(&s);
	if (!(v->name = strdup(node->title)))
		return -ENOMEM;
	if ((why = uboot_env_name_problem(v->name)))
		bad |= layout_sect_error(r, &s, "the variable's name %s", why) < 0;
	if (layout_key_strdup(&s, "value", &v->value) < 0)
		return -ENOMEM;
	if (!v->value)
		return layout_sect_error(r, &s, "'value' is required");
	if ((why = value_problem(v->value)))
		bad |= layout_key_error(r, &s, "value", "%s", why) < 0;
	layout_key_bool(&s, "per-card", &v->per_card);
	if (v->per_card && !bad)
		bad |= check_template(r, &s, v->value) < 0;
	return bad ? -EINVAL : 0;
}

/* Every `var` of @s into @e, each name once. */
static int read_vars(struct reader *r, const struct sect *s, struct layout_uboot_env *e)
{
	const struct tree_section *node = s->node;
	int bad = 0;

	e->vars = calloc(node->n_subs ? node->n_subs : 1, sizeof(*e->vars));
	if (!e->vars)
		return -ENOMEM;
	for (size_t i = 0; i < node->n_subs; i++) {
		int rc = read_var(r, node->subs[i], &e->vars[e->n_vars]);
		struct layout_env_var *v = &e->vars[e->n_vars++];
		if (rc == -ENOMEM)
			return rc;
		bad |= rc < 0;
		for (size_t k = 0; rc == 0 && k + 1 < e->n_vars; k++)
			if (strcmp(e->vars[k].name, v->name) == 0)
				bad |= diag_error(r->d,
						  "%s:%d: %s: var '%s' is set twice (line %d "
						  "and line %d)",
						  v->loc.file, v->loc.line, s->what, v->name,
						  e->vars[k].loc.line, v->loc.line) < 0;
	}
	return bad ? -EINVAL : 0;
}

/* The keys of `uboot-env`, and where the copies lie from the region at @offset. */
static int read_env_keys(struct reader *r, const struct sect *s, uint64_t offset,
			 struct layout_uboot_env *e)
{
	uint64_t pad = UBOOT_ENV_PAD;
	int bad = 0;

	e->loc = layout_sect_loc(s);
	e->size_loc = layout_key_loc(s, "size");
	e->vars_loc = layout_key_loc(s, "vars");
	if (!layout_key_u64(s, "size", &e->size))
		bad |= layout_sect_error(r, s,
					 "'size' is required (the bytes of one copy, U-Boot's "
					 "CONFIG_ENV_SIZE)") < 0;
	else if (e->size <= uboot_env_header_bytes(true) || e->size > UBOOT_ENV_MAX_SIZE)
		bad |= layout_key_error(r, s, "size", "must be more than 5 bytes and at most 16M") <
		       0;
	layout_key_bool(s, "redundant", &e->redundant);
	layout_key_u64(s, "pad-byte", &pad);
	e->pad = (uint8_t)pad;
	e->offset_redund = offset + e->size;
	if (layout_key_u64(s, "offset-redund", &e->offset_redund) && !e->redundant)
		bad |= layout_key_error(r, s, "offset-redund",
					"is where the second copy goes, and there is no "
					"'redundant = true'") < 0;
	else if (e->redundant && e->offset_redund < offset + e->size)
		bad |= layout_key_error(r, s, "offset-redund",
					"%llu is inside the first copy (bytes %llu-%llu): the "
					"second copy comes after it",
					(unsigned long long)e->offset_redund,
					(unsigned long long)offset,
					(unsigned long long)(offset + e->size)) < 0;
	int rc = layout_key_strdup(s, "vars", &e->vars_file);
	return rc < 0 ? rc : bad ? -EINVAL : 0;
}

/* The bytes the region's copies span: the first, up to the end of the second. */
static uint64_t env_extent(const struct layout_uboot_env *e, uint64_t offset)
{
	return e->redundant ? e->offset_redund + e->size - offset : e->size;
}

int layout_read_uboot_env(struct reader *r, const struct sect *rs, struct layout_raw *raw)
{
	const struct tree_section *node = layout_tree_sub(rs->node, "uboot-env");
	static const char *const not_with[] = { "from", "fill",   "fill-byte",
						"skip", "sparse", "holes" };
	struct sect s;
	int bad = 0;

	if (!node)
		return 0;
	layout_sect_init(&s, node);
	for (size_t i = 0; i < sizeof(not_with) / sizeof(not_with[0]); i++)
		if (layout_key_text(rs, not_with[i]))
			bad |= layout_key_error(r, rs, not_with[i],
						"a region holding a uboot-env { } is written "
						"by it alone") < 0;
	if (!(raw->env = calloc(1, sizeof(*raw->env))))
		return -ENOMEM;
	int rc = read_env_keys(r, &s, raw->offset, raw->env);
	if (rc == -ENOMEM || (rc = rc < 0 ? rc : read_vars(r, &s, raw->env)) == -ENOMEM)
		return rc;
	if (rc < 0 || bad)
		return -EINVAL;
	uint64_t extent = env_extent(raw->env, raw->offset);
	uint64_t given = 0;
	if (layout_key_text(rs, "size") && layout_key_u64(rs, "size", &given) && given != extent)
		return layout_key_error(r, rs, "size",
					"%llu is not the %llu bytes of the environment's "
					"copies (leave it out)",
					(unsigned long long)given, (unsigned long long)extent);
	raw->size_set = true;
	raw->size = extent;
	return 0;
}

void layout_uboot_env_free(struct layout_uboot_env *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->n_vars; i++) {
		free(e->vars[i].name);
		free(e->vars[i].value);
	}
	free(e->vars);
	free(e->vars_file);
	free(e);
}
