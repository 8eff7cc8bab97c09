/* SPDX-License-Identifier: MIT */
/* strbuf: a growing string (see strbuf.h). */
#include "common/strbuf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"

int strbuf_putc(struct strbuf *b, char c)
{
	if (array_grow((void **)&b->s, &b->cap, b->len + 2, 1) < 0)
		return -ENOMEM;
	b->s[b->len++] = c;
	b->s[b->len] = '\0';
	return 0;
}

int strbuf_puts(struct strbuf *b, const char *str)
{
	size_t n = strlen(str);

	if (array_grow((void **)&b->s, &b->cap, b->len + n + 1, 1) < 0)
		return -ENOMEM;
	memcpy(b->s + b->len, str, n + 1);
	b->len += n;
	return 0;
}

int strbuf_reset(struct strbuf *b)
{
	b->len = 0;
	if (array_grow((void **)&b->s, &b->cap, 1, 1) < 0)
		return -ENOMEM;
	b->s[0] = '\0';
	return 0;
}

void strbuf_release(struct strbuf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}
