/* SPDX-License-Identifier: MIT */
/*
 * dynlib: a shared library mapped when a feature first needs it, not at every start.
 *
 * `sdimg cat` or `ls` answers in a few milliseconds, and most of that went to the dynamic
 * loader mapping and relocating libraries those commands never call: libarchive (which
 * brings libxml2, ICU and libstdc++ with it) and libcrypto. Those two are opened with
 * dlopen(3) by the code that uses them, each through a table of function pointers typed
 * from the library's own header.
 *
 * Packaging: a library loaded this way is not in the program's DT_NEEDED list, so each one
 * is named in a ".note.dlopen" ELF note (DYNLIB_NOTE below), the format of the "ELF dlopen
 * metadata" specification (https://uapi-group.org/specifications/specs/elf_dlopen_metadata/):
 * owner "FDO", type 0x407c0c0a, a JSON array of {feature, description, priority, soname}.
 *
 * Ownership: a struct dynlib holds one reference on the library (dlopen counts them);
 * dynlib_close() gives it back. The library is opened with RTLD_NODELETE: code that ran
 * its constructors is never unmapped under a handler it registered.
 */
#ifndef SDIMG_DYNLIB_H
#define SDIMG_DYNLIB_H

#include <stdint.h>

#include "common/diag.h"

struct dynlib {
	void *handle; /* owned reference from dlopen; NULL when closed */
};

/*
 * Opens @soname for @feature (words that complete "@feature need(s) SONAME", such as
 * "archive trees"). Returns 0, or -ELIBACC with one line in @d naming the library and
 * why the loader refused it.
 */
int dynlib_open(struct dynlib *lib, const char *soname, const char *feature, struct diag *d);

/* The address of @name in @lib, or NULL with a line in @d naming the library and symbol. */
void *dynlib_symbol(const struct dynlib *lib, const char *soname, const char *name, struct diag *d);

/* Gives the reference back. Accepts a closed or zeroed struct. */
void dynlib_close(struct dynlib *lib);

/* ELF note owner and type of the dlopen metadata specification. */
#define DYNLIB_NOTE_OWNER "FDO"
#define DYNLIB_NOTE_TYPE UINT32_C(0x407c0c0a)

/*
 * Declares, in the object file that loads @soname, the ELF note a packaging tool reads:
 * @priority is "required", "recommended" or "suggested" as the specification defines.
 * All arguments are string literals.
 */
#define DYNLIB_NOTE(var, feature, description, priority, soname)                             \
	DYNLIB_NOTE_JSON(var, "[{\"feature\":\"" feature "\",\"description\":\"" description \
			      "\",\"priority\":\"" priority "\",\"soname\":[\"" soname "\"]}]")
#define DYNLIB_NOTE_JSON(var, json)                                                             \
	__attribute__((used, section(".note.dlopen"), aligned(4))) static const struct {        \
		uint32_t namesz, descsz, type;                                                  \
		char owner[sizeof(DYNLIB_NOTE_OWNER)];                                          \
		_Alignas(4) char desc[(sizeof(json) + 3) & ~(size_t)3];                         \
	} var = { sizeof(DYNLIB_NOTE_OWNER), sizeof(json), DYNLIB_NOTE_TYPE, DYNLIB_NOTE_OWNER, \
		  json }

#endif
