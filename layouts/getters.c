/* getters: typed access to layout keys with FILE:LINE messages (see build_priv.h). */
#include "layouts/build_priv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layouts/schema.h"
#include "layouts/values.h"

struct layout_loc key_loc(struct builder *b, struct sect *s, const char *key)
{
	return scan_key_loc(b->scan, s->no, key);
}

int key_error(struct builder *b, struct sect *s, const char *key, const char *fmt, ...)
{
	struct layout_loc loc = key_loc(b, s, key);
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return diag_error(b->d, "%s:%d: %s: %s: %s", loc.file, loc.line, s->what, key, msg);
}

int sect_error(struct builder *b, struct sect *s, const char *fmt, ...)
{
	struct layout_loc loc = scan_section_loc(b->scan, s->no);
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return diag_error(b->d, "%s:%d: %s: %s", loc.file, loc.line, s->what, msg);
}

int get_size(struct builder *b, struct sect *s, const char *key, unsigned flags, uint64_t *ret)
{
	const char *v = schema_get(s->cfg, key);
	struct why why;
	uint64_t n;

	if (!v)
		return 0;
	if (value_size(v, &n, &why) < 0)
		return key_error(b, s, key, "%s", why.text);
	if ((flags & SIZE_NONZERO) && n == 0)
		return key_error(b, s, key, "must not be 0");
	if ((flags & SIZE_SECTORS) && n % LAYOUT_SECTOR)
		return key_error(b, s, key, "%s is not a multiple of 512 bytes", v);
	*ret = n;
	return 1;
}

int get_uint(struct builder *b, struct sect *s, const char *key, uint64_t min, uint64_t max,
	     uint64_t *ret)
{
	const char *v = schema_get(s->cfg, key);
	struct why why;

	if (!v)
		return 0;
	if (value_uint(v, min, max, ret, &why) < 0)
		return key_error(b, s, key, "%s", why.text);
	return 1;
}

int get_bool(struct builder *b, struct sect *s, const char *key, bool *ret)
{
	const char *v = schema_get(s->cfg, key);
	struct why why;

	if (!v)
		return 0;
	if (value_bool(v, ret, &why) < 0)
		return key_error(b, s, key, "%s", why.text);
	return 1;
}

int get_string(struct builder *b, struct sect *s, const char *key, char **ret)
{
	const char *v = schema_get(s->cfg, key);

	if (!v)
		return 0;
	char *copy = strdup(v);
	if (!copy)
		return key_error(b, s, key, "out of memory");
	free(*ret);
	*ret = copy;
	return 1;
}

int get_choice(struct builder *b, struct sect *s, const char *key, const char *const *names,
	       unsigned *ret)
{
	const char *v = schema_get(s->cfg, key);
	char list[200] = "";

	if (!v)
		return 0;
	for (unsigned i = 0; names[i]; i++) {
		if (strcmp(v, names[i]) == 0) {
			*ret = i;
			return 1;
		}
		size_t len = strlen(list);
		snprintf(list + len, sizeof(list) - len, "%s%s", i ? (names[i + 1] ? ", " : " or ") : "",
			 names[i]);
	}
	return key_error(b, s, key, "'%s' is not one of %s", v, list);
}
