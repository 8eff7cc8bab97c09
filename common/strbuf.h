/* SPDX-License-Identifier: MIT */
/*
 * strbuf: a growing, always NUL-terminated string. Zero-initialise it; the buffer it owns
 * is freed with strbuf_release() or taken over by the caller (then set s to {0}).
 */
#ifndef SDIMG_STRBUF_H
#define SDIMG_STRBUF_H

#include <stddef.h>

struct strbuf {
	char *s; /* owned; NULL until the first write */
	size_t len;
	size_t cap;
};

/* Appends one character or a string. Return 0 or -ENOMEM (the string is then unchanged). */
int strbuf_putc(struct strbuf *b, char c);
int strbuf_puts(struct strbuf *b, const char *str);

/* Empties the string; afterwards b->s is a valid "" (or the call returned -ENOMEM). */
int strbuf_reset(struct strbuf *b);

void strbuf_release(struct strbuf *b);

#endif
