/* SPDX-License-Identifier: MIT */
/*
 * utf8: the one UTF-8 codec of sdimg (RFC 3629) and its UTF-16 form (RFC 2781), as FAT long
 * names and GPT partition names store text. Every module that reads or checks UTF-8 uses it,
 * so that one string is valid everywhere or nowhere.
 *
 * Valid UTF-8 here is RFC 3629's: the shortest form only (no overlong sequences), no
 * surrogate code points (U+D800..U+DFFF), nothing above U+10FFFF.
 */
#ifndef SDIMG_UTF8_H
#define SDIMG_UTF8_H

#include <stddef.h>
#include <stdint.h>

/*
 * Decodes the code point at *@s and advances *@s past it.
 * Returns 0 and the code point in *@ret_cp, or -EILSEQ (*@s is then unchanged).
 */
int utf8_decode(const char **s, uint32_t *ret_cp);

/*
 * Decodes the NUL-terminated UTF-8 @s into UTF-16 @out (room for @cap units; code points
 * above U+FFFF become surrogate pairs). Returns the number of units, -EILSEQ when @s is not
 * valid UTF-8, or -ENAMETOOLONG when it needs more than @cap units.
 */
int utf8_to_utf16(const char *s, uint16_t *out, size_t cap);

/* The number of UTF-16 units @s needs, or -EILSEQ when it is not valid UTF-8. */
long utf8_utf16_units(const char *s);

/*
 * Encodes @n UTF-16 units as NUL-terminated UTF-8 into @out (@cap bytes). An unpaired
 * surrogate becomes U+FFFD. Returns the number of bytes written (without the NUL), or
 * -ENAMETOOLONG when @out is too small.
 */
int utf8_from_utf16(const uint16_t *in, size_t n, char *out, size_t cap);

/*
 * @s as a message may quote it on one line (RFC 3629 text as is): a control character
 * becomes \n, \r, \t or \xHH, each byte that is no UTF-8 \xHH, and a character that
 * shows nothing or reorders the line (a byte order mark U+FEFF, zero-width and direction
 * marks, C1 controls) <U+XXXX>. A text too long for @cap bytes ends in "...". Returns @buf.
 * Every message of sdimg that quotes a layout's words or an environment value uses it.
 */
const char *utf8_shown(const char *s, char *buf, size_t cap);

struct json_t;

/*
 * @s as a JSON string (a jansson value): exact when it is valid UTF-8 (JSON escapes control
 * characters), else each byte that is no UTF-8 becomes U+FFFD. jansson refuses invalid UTF-8
 * (json_string() returns NULL), and the key given it would go missing from the document:
 * every JSON text sdimg writes from a name, path or value it did not make goes through this.
 * Returns NULL only when out of memory.
 */
struct json_t *utf8_json_string(const char *s);

#endif
