/* SPDX-License-Identifier: MIT */
/*
 * uboot_env: a U-Boot environment as U-Boot stores it in a block of flash, eMMC or card
 * (U-Boot's doc/usage/environment.rst and include/env_internal.h, `env_t`), written by the
 * builder and `sdimg personalize`, read by `sdimg inspect --uboot-env` and `sdimg cat`.
 *
 * One copy of `size` bytes:
 *   bytes 0-3  CRC-32 (zlib's, little-endian) over the data area, that is over every byte
 *              after the header up to the end of the copy, padding included
 *   byte  4    a redundant environment only: the flags byte (below)
 *   then       the data: "name=value\0" for each variable, then one more "\0", then the
 *              padding byte up to the end of the copy
 * A redundant environment has two such copies (CONFIG_ENV_OFFSET and
 * CONFIG_ENV_OFFSET_REDUND); U-Boot boots with the one whose CRC holds, and when both do,
 * with the one whose flags byte is the newer (ENV_REDUND_ACTIVE 1 over ENV_REDUND_OBSOLETE
 * 0, or as a counter: the higher, 0 after 255).
 *
 * The text form is mkenvimage's (u-boot-tools, mkenvimage(1)): one `name=value` a line,
 * blank lines and lines with `#` in the first column skipped, a backslash that ends a line
 * standing for a newline inside the value.
 *
 * Plain data: struct uboot_env owns its variables; uboot_env_release() frees them.
 */
#ifndef SDIMG_COMMON_UBOOT_ENV_H
#define SDIMG_COMMON_UBOOT_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"

#define UBOOT_ENV_CRC_BYTES 4u         /* env_t.crc: CRC-32 of env_t.data, little-endian */
#define UBOOT_ENV_FLAGS_BYTES 1u       /* env_t.flags: only with CONFIG_SYS_REDUNDAND_ENVIRONMENT */
#define UBOOT_ENV_FLAG_ACTIVE 1u       /* ENV_REDUND_ACTIVE: the copy U-Boot wrote last */
#define UBOOT_ENV_FLAG_OBSOLETE 0u     /* ENV_REDUND_OBSOLETE: the other one */
#define UBOOT_ENV_PAD 0xffu            /* mkenvimage's padding unless -p says otherwise */
#define UBOOT_ENV_MAX_SIZE (16u << 20) /* larger than any CONFIG_ENV_SIZE; bounds a reader */

/* The header's bytes of a copy: CRC, and the flags byte when redundant. */
static inline size_t uboot_env_header_bytes(bool redundant)
{
	return UBOOT_ENV_CRC_BYTES + (redundant ? UBOOT_ENV_FLAGS_BYTES : 0);
}

struct uboot_env_var {
	char *name;    /* owned, without '=' */
	char *value;   /* owned, no NUL inside */
	unsigned line; /* the text's line it started on, 0 when it came from elsewhere */
};

struct uboot_env {
	struct uboot_env_var *vars; /* in order, n of them (owned) */
	size_t n, cap;
};

/* Appends a copy of @name=@value (@line for messages). Returns 0 or -ENOMEM. */
int uboot_env_add(struct uboot_env *e, const char *name, const char *value, unsigned line);

/* The variable @name of @e, or NULL. */
const struct uboot_env_var *uboot_env_find(const struct uboot_env *e, const char *name);

void uboot_env_release(struct uboot_env *e);

/* Why @name cannot name a variable ("is empty", "holds '='", ...), or NULL when it can. */
const char *uboot_env_name_problem(const char *name);

/*
 * Reads mkenvimage's text (@len bytes, not NUL-terminated) into @e, appended to what it
 * holds, taking what mkenvimage takes and giving the same data. What U-Boot would not read
 * back as it is meant is an error "@where:LINE: ..." in @d: a line without '=' or with an
 * empty name, a NUL byte, a carriage return (a text saved with CRLF line ends), a name
 * given twice. Returns 0, -EINVAL or -ENOMEM.
 */
int uboot_env_parse_text(struct uboot_env *e, const char *text, size_t len, const char *where,
			 struct diag *d);

/* The bytes of the data area @e takes: every "name=value\0" and the closing "\0". */
size_t uboot_env_data_bytes(const struct uboot_env *e);

/*
 * One copy of @e into @buf (@size bytes): CRC, with @redundant the flags byte @flags, the
 * data and @pad up to @size. Returns 0, or -ENOSPC when the data does not fit.
 */
int uboot_env_encode(const struct uboot_env *e, uint8_t *buf, size_t size, bool redundant,
		     uint8_t flags, uint8_t pad);

/* One copy as read from an image. */
struct uboot_env_copy {
	bool redundant;
	uint32_t crc_stored, crc_computed;
	bool crc_ok;
	uint8_t flags;       /* with redundant */
	const uint8_t *data; /* the data area (in the caller's buffer) */
	size_t data_size;    /* its bytes: size less the header */
	size_t used;         /* the bytes up to and with the closing "\0", or data_size when
				 the data has no end */
	bool ended;          /* the data ends with an empty entry ("\0\0") inside the copy */
};

/* Reads the header of the copy @buf (@size bytes, more than the header). */
void uboot_env_read_copy(const uint8_t *buf, size_t size, bool redundant,
			 struct uboot_env_copy *ret);

/*
 * The variables of copy @c into @e (appended), each entry up to its '=' the name. An entry
 * without '=' (which U-Boot refuses on import) is an error naming its byte in the copy.
 * Returns 0, -EINVAL with a message in @d, or -ENOMEM.
 */
int uboot_env_copy_vars(const struct uboot_env_copy *c, struct uboot_env *e, struct diag *d);

/*
 * Which of two copies of a redundant environment U-Boot boots with (its env_check_redund()
 * rules): 0 the first, 1 the second, -1 neither (no valid CRC).
 */
int uboot_env_active(const struct uboot_env_copy *first, const struct uboot_env_copy *second);

#endif
