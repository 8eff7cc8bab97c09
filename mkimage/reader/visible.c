/* SPDX-License-Identifier: MIT */
/* visible: text read from an image, printed for a terminal (reader.h), and the headings of
 * `ls -R` (reader_priv.h). */
#include "mkimage/reader/reader_priv.h"

#include <stdlib.h>

/* @s as reader_fputs_visible() prints it; with @quoted its double quotes escaped too. */
static void put_escaped(const char *s, bool quoted, FILE *out)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; *p; p++) {
		if (*p == '"' && quoted)
			fputs("\\\"", out);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p == '\t')
			fputs("\\t", out);
		else if (*p == '\r')
			fputs("\\r", out);
		else if (*p == '\\')
			fputs("\\\\", out);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(out, "\\x%02x", *p);
		else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
			/* U+0080..U+009F, the C1 controls (a terminal may take U+009B for CSI) */
			fprintf(out, "\\u%04x", p[1]);
			p++;
		} else
			fputc(*p, out);
	}
}

void reader_fputs_visible(const char *s, FILE *out)
{
	put_escaped(s, false, out);
}

void reader_fputs_quoted(const char *s, FILE *out)
{
	fputc('"', out);
	put_escaped(s, true, out);
	fputc('"', out);
}

char *reader_visible_dup(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		return NULL;
	reader_fputs_visible(s, out);
	if (fclose(out) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

void reader_print_heading(FILE *out, const char *path)
{
	fprintf(out, "\n");
	reader_fputs_visible(path, out);
	fprintf(out, ":\n");
}
