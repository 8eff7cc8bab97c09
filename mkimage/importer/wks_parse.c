/* SPDX-License-Identifier: MIT */
/*
 * wks_parse: the lines of a wic kickstart file, read as wic's kickstart parser reads them
 * (oe-core scripts/lib/wic/ksparser.py): one command a line (`part`, `bootloader`,
 * `include`), '#' at a line's start a comment, ${VAR} replaced first, then the line split
 * into words as a POSIX shell would (quotes, backslashes; no comments inside a line), then
 * the options read as Python's argparse reads them (--opt VALUE or --opt=VALUE).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/path.h"
#include "common/strbuf.h"
#include "mkimage/importer/wks.h"

/* A kickstart with its includes holds at most this much text, and includes nest at most this
 * deep: no real file comes near either; they bound what a hostile one costs. */
#define WKS_MAX_TEXT (1u << 20)
#define WKS_MAX_DEPTH 16

struct reader {
	struct wks *w;
	const struct import_options *o;
	struct diag *d;
	const char *file; /* the file being read (owned by w->files) */
	const char *text; /* the line being read, as written */
	int line;
	int depth;
	size_t text_read;
};

/* The words of one line after shell-like splitting (owned strings). */
struct words {
	char **v;
	size_t n;
};

static void words_release(struct words *ws)
{
	for (size_t i = 0; i < ws->n; i++)
		free(ws->v[i]);
	free(ws->v);
	*ws = (struct words){ 0 };
}

static int fail(struct reader *r, const char *fmt, const char *a, const char *b)
{
	char msg[512];

	snprintf(msg, sizeof(msg), fmt, a ? a : "", b ? b : "");
	return diag_error(r->d, "%s:%d: %s", r->file, r->line, msg);
}

static int oom(struct reader *r)
{
	return diag_errno(r->d, -ENOMEM, "%s:%d: out of memory", r->file, r->line);
}

/* The value --set gives @name (@len bytes), or NULL. */
static const char *set_value(const struct import_options *o, const char *name, size_t len)
{
	for (size_t i = 0; o && i < o->n_sets; i++) {
		const char *eq = strchr(o->sets[i], '=');
		if (eq && (size_t)(eq - o->sets[i]) == len && strncmp(o->sets[i], name, len) == 0)
			return eq + 1;
	}
	return NULL;
}

/*
 * @line with each ${NAME} that --set defines replaced by its value, as wic replaces the
 * bitbake variables (NAME holds none of "{}@ :", a tab or a newline). One that is not set is
 * kept as written: in a file name or a label the layout then asks for it at build time, in a
 * size the option's check names it. A value is not searched again (wic's would be: a value
 * holding ${...} is refused here rather than followed).
 */
static int expand(struct reader *r, const char *line, char **ret)
{
	struct strbuf b = { 0 };
	const char *p = line;
	int rc = 0;

	while (!rc && *p) {
		const char *end = p[0] == '$' && p[1] == '{' ? p + 2 : NULL;
		while (end && *end && !strchr("{}@ :\t\n", *end))
			end++;
		if (!end || *end != '}' || end == p + 2) {
			rc = strbuf_putc(&b, *p++);
			continue;
		}
		const char *value = set_value(r->o, p + 2, (size_t)(end - p - 2));
		if (value && strstr(value, "${")) {
			strbuf_release(&b);
			return fail(r, "--set %s: a value holding ${ is not expanded again", value,
				    NULL);
		}
		if (value) {
			rc = strbuf_puts(&b, value);
		} else {
			for (const char *q = p; !rc && q <= end; q++)
				rc = strbuf_putc(&b, *q);
		}
		p = end + 1;
	}
	if (!rc && !b.s)
		rc = strbuf_puts(&b, "");
	if (rc) {
		strbuf_release(&b);
		return oom(r);
	}
	*ret = b.s;
	return 0;
}

static int add_word(struct reader *r, struct words *ws, struct strbuf *b)
{
	char **v = realloc(ws->v, (ws->n + 1) * sizeof(*v));

	if (!v)
		return oom(r);
	ws->v = v;
	if (!b->s && strbuf_puts(b, "") < 0)
		return oom(r);
	ws->v[ws->n++] = b->s;
	*b = (struct strbuf){ 0 };
	return 0;
}

/* One quoted run of @p (at its opening quote) onto @b; returns where it ends, or NULL when
 * it does not close. In double quotes a backslash escapes only \ " $ and ` (POSIX). */
static const char *quoted(const char *p, struct strbuf *b, int *rc)
{
	char q = *p++;

	while (*p && *p != q) {
		if (q == '"' && *p == '\\' && p[1] && strchr("\\\"$`", p[1]))
			p++;
		*rc = *rc ? *rc : strbuf_putc(b, *p++);
	}
	return *p ? p + 1 : NULL;
}

/* @line split into words as Python's shlex.split() does (POSIX mode, no comments). */
static int split(struct reader *r, const char *line, struct words *ws)
{
	struct strbuf b = { 0 };
	bool in_word = false;
	int rc = 0;

	for (const char *p = line; !rc;) {
		if (!*p || isspace((unsigned char)*p)) {
			if (in_word)
				rc = add_word(r, ws, &b);
			in_word = false;
			if (!*p)
				break;
			p++;
		} else if (*p == '"' || *p == '\'') {
			in_word = true;
			p = quoted(p, &b, &rc);
			if (!p) {
				strbuf_release(&b);
				return fail(r, "no closing quotation", NULL, NULL);
			}
		} else if (*p == '\\') {
			in_word = true;
			if (!p[1]) {
				strbuf_release(&b);
				return fail(r, "no escaped character after '\\'", NULL, NULL);
			}
			rc = strbuf_putc(&b, p[1]);
			p += 2;
		} else {
			in_word = true;
			rc = strbuf_putc(&b, *p++);
		}
	}
	strbuf_release(&b);
	return rc == -ENOMEM ? oom(r) : rc;
}

/* ---- values, as ksparser.py's argument types read them */

/* A value that must be known now (a size, a type) and still holds a ${VAR}: -EINVAL with a
 * line that names the variable, else 0. */
static int unset_var(struct reader *r, const char *opt, const char *s)
{
	const char *v = strstr(s, "${"), *end = v ? strchr(v, '}') : NULL;
	char name[128];

	if (!end)
		return 0;
	size_t n = strcspn(v + 2, "{}@ :\t\n");
	if (v[2 + n] != '}')
		return diag_error(r->d,
				  "%s:%d: %s: '%.*s' is not a plain ${NAME}, which is all the "
				  "import "
				  "expands: write the value",
				  r->file, r->line, opt, (int)(end - v + 1), v);
	snprintf(name, sizeof(name), "%.*s", (int)n, v + 2);
	return diag_error(r->d,
			  "%s:%d: %s: ${%s} is not set: give --set %s=VALUE (a layout needs it "
			  "now)",
			  r->file, r->line, opt, name, name);
}

static bool digits(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

/*
 * sizetype(): a whole number with an optional K (or k), M or G, in KiB when no unit is
 * given and @unit_kib, else in MiB; with @bytes the result is in bytes (and s or S counts
 * 512-byte sectors), else in KiB.
 */
static int parse_size(struct reader *r, const char *opt, const char *s, bool unit_kib, bool bytes,
		      uint64_t *ret)
{
	size_t n = strlen(s);
	uint64_t mult;
	char unit = unit_kib ? 'K' : 'M';

	if (unset_var(r, opt, s))
		return -EINVAL;
	if (n && !isdigit((unsigned char)s[n - 1]))
		unit = s[--n];
	if (!digits(s, n) || n > 12)
		return fail(r, "%s: invalid size '%s' (a whole number, then K, M or G)", opt, s);
	switch (unit) {
	case 'k':
	case 'K':
		mult = 1;
		break;
	case 'M':
		mult = 1024;
		break;
	case 'G':
		mult = 1024 * 1024;
		break;
	case 's':
	case 'S':
		if (bytes) {
			*ret = strtoull(s, NULL, 10) * 512;
			return 0;
		}
		/* fall through */
	default:
		return fail(r, "%s: invalid size '%s' (a whole number, then K, M or G)", opt, s);
	}
	*ret = strtoull(s, NULL, 10) * mult * (bytes ? 1024 : 1);
	return 0;
}

static int parse_align(struct reader *r, const char *s, uint64_t *ret)
{
	if (unset_var(r, "--align", s))
		return -EINVAL;
	if (!digits(s, strlen(s)) || strlen(s) > 9)
		return fail(r, "--align: invalid int value '%s' (KiB)", s, NULL);
	*ret = strtoull(s, NULL, 10);
	return 0;
}

static int parse_factor(struct reader *r, const char *s, double *ret)
{
	char *end;
	double f = strtod(s, &end);

	if (!*s || *end || !isfinite(f))
		return fail(r, "--overhead-factor: invalid value '%s'", s, NULL);
	if (f < 1)
		return fail(r, "--overhead-factor %s: overhead factor should be at least 1", s,
			    NULL);
	*ret = f;
	return 0;
}

static int parse_system_id(struct reader *r, const char *s, uint32_t *ret)
{
	const char *h = strncmp(s, "0x", 2) == 0 || strncmp(s, "0X", 2) == 0 ? s + 2 : s;
	char *end;
	unsigned long v = strtoul(h, &end, 16);

	if (!*h || *end || !isxdigit((unsigned char)*h) || v == 0 || v > 0xff)
		return fail(r, "--system-id: invalid system type '%s': hex between 0x1 and 0xFF", s,
			    NULL);
	*ret = (uint32_t)v;
	return 0;
}

static const char *const fstypes[] = { "ext2", "ext3",  "ext4",  "btrfs", "squashfs",
				       "vfat", "msdos", "erofs", "swap",  "none" };

static int parse_fstype(struct reader *r, const char *s, char **ret)
{
	if (unset_var(r, "--fstype", s))
		return -EINVAL;
	for (size_t i = 0; i < sizeof(fstypes) / sizeof(fstypes[0]); i++)
		if (strcmp(s, fstypes[i]) == 0) {
			free(*ret);
			*ret = strdup(s);
			return *ret ? 0 : oom(r);
		}
	return fail(r,
		    "--fstype: invalid choice '%s' (ext2, ext3, ext4, btrfs, squashfs, vfat, "
		    "msdos, erofs, swap, none)",
		    s, NULL);
}

/* ---- the options of `part` */

enum part_opt {
	P_ACTIVE,
	P_ALIGN,
	P_OFFSET,
	P_EXCLUDE,
	P_EXTRA,
	P_FSTYPE,
	P_LABEL,
	P_USE_LABEL,
	P_NO_TABLE,
	P_ONDISK,
	P_FACTOR,
	P_PART_NAME,
	P_PART_TYPE,
	P_ROOTFS_DIR,
	P_SIZE,
	P_FIXED_SIZE,
	P_SOURCE,
	P_SOURCEPARAMS,
	P_SYSTEM_ID,
	P_USE_UUID,
	P_UUID,
	P_FSUUID,
	P_NO_FSTAB_UPDATE,
	/* read, then refused by name: sdimg has nothing that gives the same card */
	P_REFUSED,
	/* read and kept out of the card: they change the root's fstab only */
	P_FSTAB_ONLY,
};

struct opt {
	const char *name;
	int id;
	bool value;
};

static const struct opt part_opts[] = {
	{ "--active", P_ACTIVE, false },
	{ "--align", P_ALIGN, true },
	{ "--offset", P_OFFSET, true },
	{ "--exclude-path", P_EXCLUDE, true },
	{ "--extra-space", P_EXTRA, true },
	{ "--fsoptions", P_FSTAB_ONLY, true },
	{ "--fspassno", P_FSTAB_ONLY, true },
	{ "--fstype", P_FSTYPE, true },
	{ "--mkfs-extraopts", P_REFUSED, true },
	{ "--label", P_LABEL, true },
	{ "--use-label", P_USE_LABEL, false },
	{ "--no-table", P_NO_TABLE, false },
	{ "--ondisk", P_ONDISK, true },
	{ "--ondrive", P_ONDISK, true },
	{ "--overhead-factor", P_FACTOR, true },
	{ "--part-name", P_PART_NAME, true },
	{ "--part-type", P_PART_TYPE, true },
	{ "--rootfs-dir", P_ROOTFS_DIR, true },
	{ "--type", P_REFUSED, true },
	{ "--hidden", P_REFUSED, false },
	{ "--size", P_SIZE, true },
	{ "--fixed-size", P_FIXED_SIZE, true },
	{ "--source", P_SOURCE, true },
	{ "--sourceparams", P_SOURCEPARAMS, true },
	{ "--system-id", P_SYSTEM_ID, true },
	{ "--use-uuid", P_USE_UUID, false },
	{ "--uuid", P_UUID, true },
	{ "--fsuuid", P_FSUUID, true },
	{ "--no-fstab-update", P_NO_FSTAB_UPDATE, false },
	{ "--include-path", P_REFUSED, true },
	{ "--change-directory", P_REFUSED, true },
	{ "--mbr", P_REFUSED, false },
};

enum boot_opt { B_APPEND, B_CONFIGFILE, B_PTABLE, B_DISKID, B_TIMEOUT, B_SOURCE };

static const struct opt boot_opts[] = {
	{ "--append", B_APPEND, true },   { "--configfile", B_CONFIGFILE, true },
	{ "--ptable", B_PTABLE, true },   { "--diskid", B_DISKID, true },
	{ "--timeout", B_TIMEOUT, true }, { "--source", B_SOURCE, true },
};

/* The option of @opts that word @i of @ws names, its value in *@value (NULL for a flag);
 * @i moves past what it took. */
static int take_opt(struct reader *r, const struct opt *opts, size_t n, const struct words *ws,
		    size_t *i, const struct opt **ret, const char **value)
{
	const char *word = ws->v[*i], *eq = strchr(word, '=');
	size_t len = eq ? (size_t)(eq - word) : strlen(word);

	for (size_t k = 0; k < n; k++) {
		if (strlen(opts[k].name) != len || strncmp(opts[k].name, word, len) != 0)
			continue;
		*ret = &opts[k];
		*value = NULL;
		if (!opts[k].value && eq)
			return fail(r, "%s: ignored explicit argument '%s'", opts[k].name, eq + 1);
		if (!opts[k].value)
			return 0;
		if (eq) {
			*value = eq + 1;
		} else if (*i + 1 < ws->n && ws->v[*i + 1][0] != '-') {
			*value = ws->v[++*i];
		} else {
			return fail(r, "%s: expected one argument", opts[k].name, NULL);
		}
		return 0;
	}
	return fail(r, "%s: unrecognized argument '%s'", ws->v[0], word);
}

static int set_string(struct reader *r, char **field, const char *value)
{
	free(*field);
	*field = strdup(value);
	return *field ? 0 : oom(r);
}

static int add_exclude(struct reader *r, struct wks_part *p, const char *value)
{
	char **v = realloc(p->exclude, (p->n_exclude + 1) * sizeof(*v));

	if (!v)
		return oom(r);
	p->exclude = v;
	p->exclude[p->n_exclude] = strdup(value);
	return p->exclude[p->n_exclude++] ? 0 : oom(r);
}

static int part_option(struct reader *r, struct wks_part *p, const struct opt *opt, const char *v,
		       bool *given)
{
	switch (opt->id) {
	case P_ACTIVE:
		p->active = true;
		return 0;
	case P_ALIGN:
		return parse_align(r, v, &p->align_kib);
	case P_OFFSET:
		p->has_offset = true;
		return parse_size(r, "--offset", v, true, true, &p->offset);
	case P_EXCLUDE:
		return add_exclude(r, p, v);
	case P_EXTRA:
		*given = p->has_extra = true;
		return parse_size(r, "--extra-space", v, false, false, &p->extra_kib);
	case P_FSTYPE:
		return parse_fstype(r, v, &p->fstype);
	case P_LABEL:
		return set_string(r, &p->label, v);
	case P_USE_LABEL:
		p->use_label = true;
		return 0;
	case P_NO_TABLE:
		p->no_table = true;
		return 0;
	case P_ONDISK:
		return set_string(r, &p->disk, v);
	case P_FACTOR:
		*given = p->has_factor = true;
		return parse_factor(r, v, &p->factor);
	case P_PART_NAME:
		return set_string(r, &p->part_name, v);
	case P_PART_TYPE:
		return set_string(r, &p->part_type, v);
	case P_ROOTFS_DIR:
		return set_string(r, &p->rootfs_dir, v);
	case P_SIZE:
		return parse_size(r, "--size", v, false, false, &p->size_kib);
	case P_FIXED_SIZE:
		return parse_size(r, "--fixed-size", v, false, false, &p->fixed_kib);
	case P_SOURCE:
		return set_string(r, &p->source, v);
	case P_SOURCEPARAMS:
		return set_string(r, &p->sourceparams, v);
	case P_SYSTEM_ID:
		return parse_system_id(r, v, &p->system_id);
	case P_USE_UUID:
		p->use_uuid = true;
		return 0;
	case P_UUID:
		return set_string(r, &p->uuid, v);
	case P_FSUUID:
		return set_string(r, &p->fsuuid, v);
	case P_NO_FSTAB_UPDATE:
		p->no_fstab_update = true;
		return 0;
	case P_FSTAB_ONLY:
		return 0;
	default:
		return fail(r,
			    "part %s: sdimg has no counterpart: remove it, or build that "
			    "partition's image elsewhere and give it with --source rawcopy",
			    opt->name, NULL);
	}
}

/* The checks ksparser.py makes once a `part` line is read, and its defaults. */
static int part_finish(struct reader *r, struct wks_part *p, bool size_opts_given)
{
	if (p->size_kib && p->fixed_kib)
		return fail(r, "part: argument --fixed-size: not allowed with argument --size",
			    NULL, NULL);
	if (p->fixed_kib && size_opts_given)
		return fail(r,
			    "part: arguments --overhead-factor and --extra-space not allowed with "
			    "argument --fixed-size",
			    NULL, NULL);
	if (!p->fixed_kib && !p->has_extra)
		p->extra_kib = WKS_DEFAULT_EXTRA_KIB;
	if (!p->fixed_kib && !p->has_factor)
		p->factor = WKS_DEFAULT_FACTOR;
	if (!p->fstype && !(p->fstype = strdup("vfat")))
		return oom(r);
	if (!p->disk && !(p->disk = strdup("sda")))
		return oom(r);
	return 0;
}

static void part_release(struct wks_part *p)
{
	char **strings[] = { &p->text,         &p->mountpoint, &p->fstype, &p->source,
			     &p->sourceparams, &p->rootfs_dir, &p->label,  &p->part_name,
			     &p->part_type,    &p->uuid,       &p->fsuuid, &p->disk,
			     &p->name };

	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
		free(*strings[i]);
	for (size_t i = 0; i < p->n_exclude; i++)
		free(p->exclude[i]);
	free(p->exclude);
}

static int read_part(struct reader *r, const struct words *ws)
{
	struct wks_part p = { .file = r->file, .line = r->line, .text = strdup(r->text) };
	bool size_opts = false;
	int rc = p.text ? 0 : oom(r);

	for (size_t i = 1; !rc && i < ws->n; i++) {
		const struct opt *opt;
		const char *value;
		if (ws->v[i][0] != '-' || !ws->v[i][1]) {
			if (p.mountpoint)
				rc = fail(r, "part: unrecognized argument '%s'", ws->v[i], NULL);
			else
				rc = set_string(r, &p.mountpoint, ws->v[i]);
			continue;
		}
		rc = take_opt(r, part_opts, sizeof(part_opts) / sizeof(part_opts[0]), ws, &i, &opt,
			      &value);
		if (!rc)
			rc = part_option(r, &p, opt, value, &size_opts);
		/* --exclude-path takes every word up to the next option (argparse's nargs='+') */
		while (!rc && opt->id == P_EXCLUDE && i + 1 < ws->n && ws->v[i + 1][0] != '-')
			rc = add_exclude(r, &p, ws->v[++i]);
	}
	if (!rc)
		rc = part_finish(r, &p, size_opts);
	if (!rc && r->w->n_parts >= 128)
		rc = fail(r, "part: more than 128 partitions", NULL, NULL);
	struct wks_part *v = rc ? NULL : realloc(r->w->parts, (r->w->n_parts + 1) * sizeof(*v));
	if (!rc && !v)
		rc = oom(r);
	if (rc) {
		part_release(&p);
		return rc;
	}
	r->w->parts = v;
	r->w->parts[r->w->n_parts++] = p;
	return 0;
}

static int read_bootloader(struct reader *r, const struct words *ws)
{
	if (r->w->bootloader_line)
		return fail(r, "more than one bootloader specified", NULL, NULL);
	r->w->bootloader_line = r->line;
	r->w->bootloader_file = r->file;
	for (size_t i = 1; i < ws->n; i++) {
		const struct opt *opt;
		const char *v;
		int rc = ws->v[i][0] == '-'
				 ? take_opt(r, boot_opts, sizeof(boot_opts) / sizeof(boot_opts[0]),
					    ws, &i, &opt, &v)
				 : fail(r, "bootloader: unrecognized argument '%s'", ws->v[i],
					NULL);
		if (rc)
			return rc;
		if (opt->id == B_PTABLE && strcmp(v, "gpt") && strcmp(v, "msdos"))
			return strcmp(v, "gpt-hybrid") == 0
				       ? fail(r,
					      "bootloader --ptable gpt-hybrid: the MBR wic makes "
					      "for it is not imported (its 0xEE entry covers only "
					      "LBA 1-34); write table = hybrid with hybrid-ee = "
					      "last by hand, which puts it after the --mbr "
					      "partitions as wic does",
					      NULL, NULL)
				       : fail(r,
					      "bootloader --ptable: invalid choice '%s' (msdos, "
					      "gpt)",
					      v, NULL);
		if (opt->id == B_PTABLE)
			r->w->gpt = strcmp(v, "gpt") == 0;
		if (opt->id == B_DISKID && set_string(r, &r->w->diskid, v))
			return -ENOMEM;
		if (opt->id == B_TIMEOUT && !digits(v, strlen(v)))
			return fail(r, "bootloader --timeout: invalid int value '%s'", v, NULL);
		/* --append, --configfile, --timeout and --source feed wic's boot loader plugins
		 * (bootimg-efi, bootimg-pcbios), which the import refuses where a part names
		 * them: with bootimg-partition, rootfs and rawcopy they change nothing. */
	}
	return 0;
}

static int read_text(struct reader *r, const char *text);

static int read_include(struct reader *r, const struct words *ws)
{
	char *dir, *path, *text = NULL;
	size_t len;
	int rc;

	if (ws->n != 2)
		return fail(r, "include: one path expected", NULL, NULL);
	if (r->depth >= WKS_MAX_DEPTH)
		return fail(r, "include %s: includes nested more than 16 deep", ws->v[1], NULL);
	dir = path_dir(r->file);
	path = dir ? path_join(dir, ws->v[1]) : NULL;
	free(dir);
	if (!path)
		return oom(r);
	rc = path_read_file(path, WKS_MAX_TEXT - r->text_read, &text, &len);
	if (rc == 0 && memchr(text, '\0', len))
		rc = -EILSEQ;
	if (rc == 0)
		rc = import_inputs_note(r->o->inputs, path);
	if (rc) {
		int e = diag_error(r->d,
				   "%s:%d: include %s: %s: %s (wic also looks in its canned-wks "
				   "folders: copy the file beside this one)",
				   r->file, r->line, ws->v[1], path,
				   rc == -EILSEQ ? "not a text file" : strerror(-rc));
		free(path);
		free(text);
		return e;
	}
	char **files = realloc(r->w->files, (r->w->n_files + 1) * sizeof(*files));
	if (!files) {
		free(path);
		free(text);
		return oom(r);
	}
	r->w->files = files;
	r->w->files[r->w->n_files++] = path;
	struct reader sub = *r;
	sub.file = path;
	sub.depth++;
	sub.text_read += len;
	rc = read_text(&sub, text);
	r->text_read = sub.text_read;
	free(text);
	return rc;
}

static int read_line(struct reader *r, const char *line)
{
	struct words ws = { 0 };
	char *expanded = NULL;
	int rc = expand(r, line, &expanded);

	r->text = line;
	if (!rc)
		rc = split(r, expanded, &ws);
	free(expanded);
	if (!rc && ws.n == 0)
		rc = 0;
	else if (!rc && strcmp(ws.v[0], "part") == 0)
		rc = read_part(r, &ws);
	else if (!rc && strcmp(ws.v[0], "bootloader") == 0)
		rc = read_bootloader(r, &ws);
	else if (!rc && strcmp(ws.v[0], "include") == 0)
		rc = read_include(r, &ws);
	else if (!rc)
		rc = fail(r, "invalid choice '%s' (part, bootloader, include)", ws.v[0], NULL);
	words_release(&ws);
	return rc;
}

static int read_text(struct reader *r, const char *text)
{
	const char *p = text;

	r->line = 0;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		r->line++;
		/* Python's strip(): white space off both ends */
		while (len && isspace((unsigned char)*p))
			p++, len--;
		while (len && isspace((unsigned char)p[len - 1]))
			len--;
		if (len && *p != '#') {
			char *line = strndup(p, len);
			int rc = line ? read_line(r, line) : oom(r);
			free(line);
			if (rc)
				return rc;
		}
		p = nl ? nl + 1 : p + len;
		if (!nl)
			break;
	}
	return 0;
}

int import_wks_parse(const char *path, const char *text, const struct import_options *o,
		     struct wks *w, struct diag *d)
{
	struct reader r = { .w = w, .o = o, .d = d, .text_read = strlen(text) };
	char **files = realloc(w->files, (w->n_files + 1) * sizeof(*files));

	if (!files)
		return diag_errno(d, -ENOMEM, "%s: out of memory", path);
	w->files = files;
	if (!(w->files[w->n_files] = strdup(path)))
		return diag_errno(d, -ENOMEM, "%s: out of memory", path);
	r.file = w->files[w->n_files++];
	if (r.text_read > WKS_MAX_TEXT)
		return diag_error(d, "%s: too large: a kickstart holds at most 1 MiB of text",
				  path);
	return read_text(&r, text);
}

int import_wks_select_disk(struct wks *w, const char *disk, struct diag *d)
{
	size_t kept = 0;

	for (size_t i = 0; i < w->n_parts; i++) {
		if (strcmp(w->parts[i].disk, disk) == 0)
			w->parts[kept++] = w->parts[i];
		else
			part_release(&w->parts[i]);
	}
	w->n_parts = kept;
	if (!kept)
		return diag_error(d, "%s: --image %s: no part line is --ondisk %s", w->files[0],
				  disk, disk);
	return 0;
}

void import_wks_release(struct wks *w)
{
	for (size_t i = 0; i < w->n_parts; i++)
		part_release(&w->parts[i]);
	free(w->parts);
	for (size_t i = 0; i < w->n_files; i++)
		free(w->files[i]);
	free(w->files);
	free(w->diskid);
	*w = (struct wks){ 0 };
}
