/* build_image: the `image` section, with its defaults (LAYOUT.md, "image"). */
#include "layouts/build_priv.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layouts/readfile.h"
#include "layouts/schema.h"
#include "layouts/values.h"

/* DOS dates end with 2107-12-31 23:59:59 UTC; later timestamps cannot be stored. */
#define TIMESTAMP_MAX 4354819199ull

static const char *const table_names[] = { "mbr", "gpt", "none", NULL };
static const char *const mtime_names[] = { "fixed", "source", NULL };

/* The default seed: the SHA-256 of the layout file's bytes followed by those of every file
 * it includes (in the order they were read), in hex. */
static int default_seed(const struct scan *scan, const char *text, char **ret)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int rc = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) &&
			 EVP_DigestUpdate(ctx, text, strlen(text))
		 ? 0
		 : -EIO;

	for (size_t i = 1; rc == 0 && i < scan->n_files; i++) {
		char *inc = NULL;
		rc = read_text_file(scan->files[i], &inc);
		if (rc == 0 && !EVP_DigestUpdate(ctx, inc, strlen(inc)))
			rc = -EIO;
		free(inc);
	}
	if (rc == 0 && !EVP_DigestFinal_ex(ctx, md, &n))
		rc = -EIO;
	EVP_MD_CTX_free(ctx);
	char *hex = rc == 0 ? malloc(2 * n + 1) : NULL;
	if (rc == 0 && !hex)
		rc = -ENOMEM;
	for (unsigned i = 0; rc == 0 && i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	if (rc == 0)
		*ret = hex;
	return rc;
}

static int read_timestamp(struct builder *b, struct sect *s, struct layout_image *im)
{
	uint64_t t;
	int rc = get_uint(b, s, "timestamp", 0, TIMESTAMP_MAX, &t);
	const char *env = b->opts ? b->opts->source_date_epoch : NULL;
	struct why why;

	if (rc < 0)
		return rc;
	if (env && *env) {
		uint64_t e;
		if (value_uint(env, 0, TIMESTAMP_MAX, &e, &why) < 0)
			return diag_error(b->d, "SOURCE_DATE_EPOCH: %s", why.text);
		im->timestamp_from_env = true;
		if (!rc)
			t = e;
	} else if (!rc) {
		t = LAYOUT_DEFAULT_TIMESTAMP;
	}
	im->timestamp = (int64_t)t;
	return 0;
}

static int read_disk_id(struct builder *b, struct sect *s, struct layout_image *im)
{
	const char *v = schema_get(s->cfg, "disk-id");
	struct why why;
	uint64_t id;

	if (!v)
		return 0;
	im->disk_id_set = true;
	switch (im->table) {
	case LAYOUT_TABLE_MBR:
		if (value_uint(v, 0, UINT32_MAX, &id, &why) < 0)
			return key_error(b, s, "disk-id", "%s (an MBR disk id is 32 bits: 0x1234abcd)",
					 why.text);
		im->mbr_id = (uint32_t)id;
		return 0;
	case LAYOUT_TABLE_GPT:
		if (value_guid(v, &im->gpt_id, &why) < 0)
			return key_error(b, s, "disk-id", "%s", why.text);
		return 0;
	case LAYOUT_TABLE_NONE:
		break;
	}
	return key_error(b, s, "disk-id", "table = none has no disk id");
}

static int read_image_keys(struct builder *b, struct sect *s, struct layout_image *im)
{
	unsigned choice;
	int rc, bad = 0;

	if ((rc = get_choice(b, s, "table", table_names, &choice)) > 0)
		im->table = (enum layout_table)choice;
	bad |= rc < 0;
	if ((rc = get_choice(b, s, "mtime", mtime_names, &choice)) > 0)
		im->mtime = (enum layout_mtime)choice;
	bad |= rc < 0;
	bad |= get_size(b, s, "size", SIZE_SECTORS | SIZE_NONZERO, &im->size) < 0;
	if ((rc = get_size(b, s, "align", SIZE_SECTORS | SIZE_NONZERO, &im->align)) > 0 &&
	    im->align > LAYOUT_MAX_ALIGN)
		rc = key_error(b, s, "align", "%llu is larger than 1 TiB",
			       (unsigned long long)im->align);
	bad |= rc < 0;
	rc = get_size(b, s, "gpt-entries", SIZE_SECTORS, &im->gpt_entries);
	bad |= rc < 0;
	if (rc > 0 && im->table != LAYOUT_TABLE_GPT)
		bad |= key_error(b, s, "gpt-entries", "only a gpt table has an entry array") < 0;
	else if (rc > 0 && im->gpt_entries < 2 * LAYOUT_SECTOR)
		bad |= key_error(b, s, "gpt-entries",
				 "the entry array cannot start before byte 1024 (LBA 2), after "
				 "the protective MBR and the GPT header") < 0;
	bad |= get_string(b, s, "seed", &im->seed) < 0;
	if (im->seed && !*im->seed)
		bad |= key_error(b, s, "seed", "must not be empty") < 0;
	bad |= read_disk_id(b, s, im) < 0;
	bad |= read_timestamp(b, s, im) < 0;
	return bad ? -EINVAL : 0;
}

int build_image(struct builder *b, cfg_t *top, const char *layout_text)
{
	struct layout_image *im = &b->l->image;
	struct sect s = { .no = scan_find_section(b->scan, 0, "image") };
	int rc;

	*im = (struct layout_image){
		.table = LAYOUT_TABLE_MBR,
		.align = LAYOUT_DEFAULT_ALIGN,
		.mtime = LAYOUT_MTIME_FIXED,
		.gpt_entries = 2 * LAYOUT_SECTOR,
	};
	snprintf(s.what, sizeof(s.what), "image");
	im->loc = scan_section_loc(b->scan, s.no);
	if (cfg_size(top, "image")) {
		s.cfg = cfg_getsec(top, "image");
		rc = read_image_keys(b, &s, im);
		im->size_loc = key_loc(b, &s, "size");
		im->gpt_entries_loc = key_loc(b, &s, "gpt-entries");
	} else {
		rc = read_timestamp(b, &s, im);
	}
	if (rc == 0 && !im->seed)
		rc = default_seed(b->scan, layout_text, &im->seed);
	if (rc == -ENOMEM || rc == -EIO || (rc < 0 && rc != -EINVAL))
		return diag_error(b->d, "%s: cannot compute the default seed: %s", b->l->path,
				  strerror(-rc));
	return rc;
}
