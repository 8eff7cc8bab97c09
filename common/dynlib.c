/* SPDX-License-Identifier: MIT */
#include "common/dynlib.h"

#include <dlfcn.h>
#include <errno.h>
#include <string.h>

/* dlerror() usually starts with the file name the caller already printed: leave it out. */
static const char *loader_reason(const char *soname)
{
	const char *why = dlerror();
	size_t n = strlen(soname);

	if (!why)
		return "unknown reason";
	if (strncmp(why, soname, n) == 0 && why[n] == ':' && why[n + 1] == ' ')
		return why + n + 2;
	return why;
}

int dynlib_open(struct dynlib *lib, const char *soname, const char *feature, struct diag *d)
{
	lib->handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (lib->handle)
		return 0;
	return diag_errno(d, -ELIBACC, "%s need %s, which cannot be loaded: %s", feature, soname,
			  loader_reason(soname));
}

void *dynlib_symbol(const struct dynlib *lib, const char *soname, const char *name, struct diag *d)
{
	void *p;

	p = dlsym(lib->handle, name);
	/* (dlerror() would name the library by its full path: the soname says enough) */
	if (!p)
		diag_error(d, "%s has no %s: a version this sdimg was not built for", soname, name);
	return p;
}

void dynlib_close(struct dynlib *lib)
{
	if (lib->handle)
		dlclose(lib->handle);
	lib->handle = NULL;
}
