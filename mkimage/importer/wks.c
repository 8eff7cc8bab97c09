/* SPDX-License-Identifier: MIT */
/* wks: import_wks(), a kickstart file read, placed and written as a layout. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/path.h"
#include "mkimage/importer/wks.h"

int import_wks_text(const char *path, const char *text, const struct import_options *o, FILE *out,
		    struct diag *d)
{
	struct wks w = { 0 };
	int rc = import_wks_parse(path, text, o, &w, d);

	if (!rc && o && o->image)
		rc = import_wks_select_disk(&w, o->image, d);
	if (!rc)
		rc = import_wks_place(&w, d);
	if (!rc)
		rc = import_wks_write(&w, path, out, d);
	import_wks_release(&w);
	return rc;
}

int import_wks(const char *path, const struct import_options *o, FILE *out, struct diag *d)
{
	char *text = NULL;
	size_t len;
	int rc = path_read_file(path, 1u << 20, &text, &len);

	if (rc == 0 && memchr(text, '\0', len))
		rc = -EILSEQ;
	if (rc == 0)
		rc = import_inputs_note(o->inputs, path);
	if (rc) {
		free(text);
		return diag_errno(d, rc, "%s: %s", path,
				  rc == -EILSEQ  ? "not a text file (it holds a NUL byte)"
				  : rc == -EFBIG ? "too large: a kickstart holds at most 1 MiB"
						 : strerror(-rc));
	}
	rc = import_wks_text(path, text, o, out, d);
	free(text);
	return rc;
}
