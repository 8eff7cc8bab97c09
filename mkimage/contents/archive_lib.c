/* SPDX-License-Identifier: MIT */
/*
 * archive_lib: libarchive, opened with dlopen(3) when a tree is an archive (contents.h). Its
 * soname is the one of the libarchive the program was compiled against (config.mk), and the
 * ELF note below names it for packagers, since the program's DT_NEEDED list does not.
 */
#include <errno.h>

#include "mkimage/contents/contents.h"

#ifndef SDIMG_LIBARCHIVE_SONAME
#error "SDIMG_LIBARCHIVE_SONAME names the libarchive to load (config.mk sets it)"
#endif

DYNLIB_NOTE(content_archive_note, "archive",
	    "file trees read from archives (tar, zip, cpio, ...); bzip2 and lz4 images flashed",
	    "recommended", SDIMG_LIBARCHIVE_SONAME);

int content_archive_lib_open(struct content_archive_lib *lib, const char *feature, struct diag *d)
{
	int rc = dynlib_open(&lib->dl, SDIMG_LIBARCHIVE_SONAME, feature, d);

#define CONTENT_ARCHIVE_RESOLVE(name)                                                             \
	if (rc == 0 && !(lib->name = dynlib_symbol(&lib->dl, SDIMG_LIBARCHIVE_SONAME, #name, d))) \
		rc = -ELIBACC;
	CONTENT_ARCHIVE_FUNCS(CONTENT_ARCHIVE_RESOLVE)
#undef CONTENT_ARCHIVE_RESOLVE
	if (rc < 0)
		content_archive_lib_close(lib);
	return rc;
}

void content_archive_lib_close(struct content_archive_lib *lib)
{
	dynlib_close(&lib->dl);
	*lib = (struct content_archive_lib){ .dl = { NULL } };
}
