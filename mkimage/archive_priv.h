/* Archives as `tree` sources: shared by the listing pass and the data pass (private). */
#ifndef SDIMG_MKIMAGE_ARCHIVE_PRIV_H
#define SDIMG_MKIMAGE_ARCHIVE_PRIV_H

#include <archive.h>
#include <archive_entry.h>

#include "common/diag.h"

/*
 * Opens @host for reading with every filter and format libarchive has (chosen by content,
 * not by name). Returns the handle (archive_read_free() it), or NULL with a message in @d.
 */
struct archive *arc_open(const char *host, struct diag *d);

/* The name of @ae as the archive spells it, for messages and paths. */
const char *arc_entry_name(struct archive_entry *ae);

/*
 * When @host is gzip-compressed: reads it through zlib, which checks what libarchive does
 * not (each member's CRC-32 and length). Returns 0 (also for other files), or -EINVAL with a
 * message naming @host, -ENOMEM.
 */
int arc_verify_gzip(const char *host, struct diag *d);

/* Whether @r, a libarchive status, lets reading go on (ARCHIVE_OK or ARCHIVE_WARN). */
static inline int arc_ok(int r)
{
	return r == ARCHIVE_OK || r == ARCHIVE_WARN;
}

#endif
