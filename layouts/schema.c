/* schema: the layout sections and keys for libconfuse (see schema.h). */
#include "layouts/schema.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layouts/values.h"

#define KEY(name) CFG_STR(name, NULL, CFGF_NODEFAULT)

/*
 * libconfuse gives its error callback only the cfg_t, and a cfg_t has no user-data slot;
 * its one free-form field copied into every section is the file name. The parse therefore
 * names its "file" after the context, and the callback reads the context back from it.
 */
#define CTX_PREFIX "sdimg-parse-context:"

static struct schema_ctx *ctx_of(cfg_t *cfg)
{
	void *p = NULL;

	if (!cfg->filename || sscanf(cfg->filename, CTX_PREFIX "%p", &p) != 1)
		return NULL;
	return p;
}

static const char *nearest_option(cfg_t *cfg, const char *name)
{
	const char *best = NULL;
	unsigned best_d = ~0u;

	for (cfg_opt_t *o = cfg->opts; o && o->name; o++) {
		unsigned dist = edit_distance(name, o->name);
		if (dist < best_d) {
			best_d = dist;
			best = o->name;
		}
	}
	size_t len = strlen(name);
	return best_d <= (len > 6 ? len / 3 : 2) ? best : NULL;
}

/* "partition 'boot'", "partition 'boot': fat", "image", or "" for the top level. */
static void describe_section(const struct scan *s, size_t no, char *buf, size_t n)
{
	const struct scan_section *sec = &s->sections[no];
	char parent[200] = "";

	if (no == 0) {
		snprintf(buf, n, "%s", "");
		return;
	}
	if (!sec->title && sec->parent)
		describe_section(s, sec->parent, parent, sizeof(parent));
	if (sec->title)
		snprintf(buf, n, "%s '%.180s'", sec->name, sec->title);
	else
		snprintf(buf, n, "%s%s%s", parent, *parent ? ": " : "", sec->name);
}

static size_t section_of(const struct scan *s, cfg_t *cfg)
{
	if (cfg->title)
		return schema_section_number(cfg) < s->n_sections ? schema_section_number(cfg) : 0;
	if (strcmp(cfg->name, "root") == 0)
		return 0;
	return scan_section_at(s, cfg->name, cfg->line);
}

static void on_error(cfg_t *cfg, const char *fmt, va_list ap)
{
	struct schema_ctx *ctx = ctx_of(cfg);
	char msg[512], where[300];
	char name[128];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (!ctx)
		return;
	struct layout_loc loc = scan_loc(ctx->scan, cfg->line);
	describe_section(ctx->scan, section_of(ctx->scan, cfg), where, sizeof(where));
	if (sscanf(msg, "no such option '%127[^']'", name) == 1) {
		const char *near = nearest_option(cfg, name);
		diag_error(ctx->d, "%s:%d: unknown %s '%s'%s%s%s%s%s", loc.file, loc.line,
			   *where ? "key" : "section", name, *where ? " in " : "", where,
			   near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
		return;
	}
	diag_error(ctx->d, "%s:%d: %s%s%s", loc.file, loc.line, where, *where ? ": " : "", msg);
}

static int parse_with_schema(const struct scan *s, struct schema_ctx *ctx, cfg_t **ret_cfg)
{
	/* local tables: cfg_init() copies them, and libconfuse takes them non-const */
	cfg_opt_t fat_opts[] = {
		KEY("label"),     KEY("cluster-size"), KEY("fats"),     KEY("data-align"),
		KEY("sd-format"), KEY("root-entries"), KEY("reserved"), KEY("volume-id"),
		KEY("oem-name"),  CFG_END(),
	};
	cfg_opt_t tree_opts[] = { KEY("from"), KEY("strip"), CFG_END() };
	cfg_opt_t file_opts[] = { KEY("from"), KEY("content"), KEY("first"), KEY("attrs"), CFG_END() };
	cfg_opt_t dir_opts[] = { CFG_END() };
	cfg_opt_t partition_opts[] = {
		KEY("type"),     KEY("start"),    KEY("size"),     KEY("extra"),
		KEY("from"),     KEY("bootable"), KEY("mbr-type"), KEY("gpt-type"),
		KEY("uuid"),     KEY("label"),    KEY("in-table"),
		CFG_SEC("fat", fat_opts, CFGF_NODEFAULT),
		CFG_SEC("tree", tree_opts, CFGF_MULTI | CFGF_TITLE),
		CFG_SEC("file", file_opts, CFGF_MULTI | CFGF_TITLE),
		CFG_SEC("dir", dir_opts, CFGF_MULTI | CFGF_TITLE),
		CFG_END(),
	};
	cfg_opt_t raw_opts[] = { KEY("offset"), KEY("from"), KEY("size"), CFG_END() };
	cfg_opt_t image_opts[] = {
		KEY("size"),      KEY("table"), KEY("align"),       KEY("disk-id"), KEY("seed"),
		KEY("timestamp"), KEY("mtime"), KEY("gpt-entries"), CFG_END(),
	};
	cfg_opt_t top_opts[] = {
		CFG_SEC("image", image_opts, CFGF_NODEFAULT),
		CFG_SEC("raw", raw_opts, CFGF_MULTI | CFGF_TITLE),
		CFG_SEC("partition", partition_opts, CFGF_MULTI | CFGF_TITLE),
		CFG_END(),
	};
	cfg_t *cfg = cfg_init(top_opts, CFGF_NONE);
	FILE *fp = NULL;
	int rc = CFG_FILE_ERROR;

	if (!cfg)
		return CFG_FILE_ERROR;
	cfg_set_error_function(cfg, on_error);
	free(cfg->filename);
	if (asprintf(&cfg->filename, CTX_PREFIX "%p", (void *)ctx) < 0)
		cfg->filename = NULL;
	fp = fmemopen(s->text, strlen(s->text), "r");
	if (fp && cfg->filename)
		rc = cfg_parse_fp(cfg, fp);
	if (fp)
		fclose(fp);
	if (rc == CFG_SUCCESS)
		*ret_cfg = cfg;
	else
		cfg_free(cfg);
	return rc;
}

int schema_parse(struct schema_ctx *ctx, cfg_t **ret_cfg)
{
	const struct scan *s = ctx->scan;
	struct diag *d = ctx->d;
	size_t errors = d->errors;
	int rc = parse_with_schema(s, ctx, ret_cfg);

	if (rc == CFG_SUCCESS)
		return 0;
	if (d->errors == errors)
		diag_error(d, "%s: %s", s->files[0],
			   rc == CFG_FILE_ERROR ? "out of memory" : "the layout could not be parsed");
	return -EINVAL;
}

size_t schema_section_number(cfg_t *sec)
{
	const char *t = cfg_title(sec);

	return t ? (size_t)strtoul(t, NULL, 10) : 0;
}

const char *schema_get(cfg_t *sec, const char *key)
{
	return sec && cfg_size(sec, key) ? cfg_getstr(sec, key) : NULL;
}
