/* SPDX-License-Identifier: MIT */
/*
 * schema: the layout language's one key table (private to layouts/).
 *
 * For every section kind it lists the keys the section takes, each with its value type,
 * and the sections that may stand inside it, titled or not, once or repeated. The parser
 * (parse.c) looks every name up here: an unknown key or section is reported with the
 * nearest known name, and every value is checked against its type as it is read, so the
 * tree it builds holds only known keys with values of the right form.
 */
#ifndef SDIMG_LAYOUTS_SCHEMA_H
#define SDIMG_LAYOUTS_SCHEMA_H

#include <stdbool.h>
#include <stdint.h>

#include "layouts/layouts.h"
#include "layouts/values.h"

/* DOS dates end with 2107-12-31 23:59:59 UTC; later timestamps cannot be stored. */
#define LAYOUT_TIMESTAMP_MAX 4354819199ull

enum key_type {
	KEY_STRING,   /* any text */
	KEY_SIZE,     /* a byte count ("4M", "8192s"), see the KEY_SECTORS and KEY_NONZERO flags */
	KEY_UINT,     /* a whole number, decimal or 0x hex, within [min, max] */
	KEY_BOOL,     /* true/false, yes/no, on/off */
	KEY_CHOICE,   /* one of words[] */
	KEY_GUID,     /* "00112233-4455-6677-8899-aabbccddeeff" */
	KEY_GPT_TYPE, /* a GUID or a GPT type alias (esp, linux, ...) */
	KEY_MBR_TYPE, /* an MBR type byte, 1 to 255, or a word (L, S, U, ...) */
	KEY_ATTRS,    /* a comma list of FAT attributes */
	KEY_RANGES,   /* byte ranges START-END, comma separated ("440-512, 1K-2K") */
	KEY_DISK_ID,  /* a 32-bit number for mbr, a GUID for gpt: checked once the table is known */
};

/* Flags of a KEY_SIZE. */
enum { KEY_SECTORS = 1, KEY_NONZERO = 2 };

struct key_spec {
	const char *name;
	enum key_type type;
	unsigned flags;           /* KEY_SIZE */
	uint64_t min, max;        /* KEY_UINT */
	const char *const *words; /* KEY_CHOICE: the choices, in the order of their enum;
				     KEY_SIZE: words taken instead of a size (or NULL) */
};

struct section_spec {
	const char *name;
	bool titled;                                /* written `name TITLE { ... }` */
	bool repeats;                               /* may appear more than once in its parent */
	const struct key_spec *keys;                /* ends with a NULL name */
	const struct section_spec *const *sections; /* ends with NULL */
};

/* A value that passed its key's type check. */
struct key_value {
	uint64_t n;       /* KEY_SIZE, KEY_UINT, KEY_MBR_TYPE, KEY_BOOL (0/1), KEY_ATTRS (enum
				     layout_attr bits), KEY_CHOICE (the index in words[]) */
	const char *word; /* KEY_CHOICE, KEY_SIZE, KEY_UINT: the word of words[] given,
				     or NULL */
	struct layout_guid guid; /* KEY_GUID, KEY_GPT_TYPE */
};

/* The top level of a layout file: the root of the table. */
const struct section_spec *layout_schema_top(void);

/* Key or section @name of section kind @s, or NULL when @s has none of that name. */
const struct key_spec *layout_schema_key(const struct section_spec *s, const char *name);
const struct section_spec *layout_schema_section(const struct section_spec *s, const char *name);

/* The section name (@section) or key name of @s closest to the unknown @name, or NULL
 * when none is close. */
const char *layout_schema_suggest(const struct section_spec *s, const char *name, bool section);

/*
 * What sdimg says for @word, a word of another image tool (genimage, wic) met as an unknown
 * key or section in a section of kind @section ("" the top level): "'start'" for genimage's
 * offset in a partition, or NULL when @word is no such word there (foreign.c).
 */
const char *layout_foreign_hint(const char *section, const char *word);

/*
 * Checks @text against the type of key @k and stores it in *@ret. Returns 0, or -EINVAL
 * with the reason in @why ("'maybe' is not a boolean (true or false)").
 */
int layout_schema_value(const struct key_spec *k, const char *text, struct key_value *ret,
			struct why *why);

#endif
