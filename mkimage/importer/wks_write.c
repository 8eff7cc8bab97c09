/* SPDX-License-Identifier: MIT */
/*
 * wks_write: the layout of a placed kickstart. Every choice where sdimg's defaults differ
 * from wic's is pinned by an explicit key with a comment saying why: the table, `align`
 * (wic starts a partition where the one before ends unless --align says otherwise), the
 * sizes wic gives, the MBR types and GPT types and names parted writes for wic, the FAT
 * label mkdosfs gets from wic. What only wic's contents decide (a size from the files) is
 * `size = auto` with `extra`, and the comment says how the two differ.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/strbuf.h"
#include "mkimage/importer/wks.h"

struct writer {
	const struct wks *w;
	FILE *out;
	struct diag *d;
	bool fstab_lines; /* wic would add lines to the root's /etc/fstab */
	bool sized_by_contents;
};

/* The value written after `key = ` for @kib KiB: "16M" when whole MiB, else "21299K". */
static const char *kib_text(uint64_t kib, char *buf, size_t n)
{
	if (kib && kib % 1024 == 0)
		snprintf(buf, n, "%lluM", (unsigned long long)(kib / 1024));
	else
		snprintf(buf, n, "%lluK", (unsigned long long)kib);
	return buf;
}

/* @s as a double-quoted layout string: \ " $ escaped, except a ${NAME} that --set did not
 * give, which stays a variable that the build expands. */
static void put_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '\\' || *s == '"' || (*s == '$' && s[1] != '{'))
			fputc('\\', out);
		if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
	fputc('"', out);
}

/* @s in a comment: a control character (a line break would end the comment) is '?'. */
static void put_comment(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc(iscntrl((unsigned char)*s) ? '?' : *s, out);
}

static bool is(const char *s, const char *word)
{
	return s && strcmp(s, word) == 0;
}

static bool is_fat(const struct wks_part *p)
{
	return is(p->fstype, "vfat") || is(p->fstype, "msdos");
}

static bool boot_files_source(const struct wks_part *p)
{
	return is(p->source, "bootimg-partition") || is(p->source, "bootimg_partition");
}

static int refuse(const struct wks_part *p, struct diag *d, const char *what, const char *why)
{
	return diag_error(d, "%s:%d: %s: %s", p->file, p->line, what, why);
}

/* The value of @key in --sourceparams (key=value,key=value), a new string, or NULL. */
static char *source_param(const struct wks_part *p, const char *key)
{
	size_t klen = strlen(key);

	for (const char *s = p->sourceparams; s && *s;) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);
		if (len > klen && strncmp(s, key, klen) == 0 && s[klen] == '=')
			return strndup(s + klen + 1, len - klen - 1);
		s = comma ? comma + 1 : s + len;
	}
	return NULL;
}

/* Whether @s is a GUID as text (8-4-4-4-12 hex digits). */
static bool is_guid(const char *s)
{
	static const char form[] = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";

	if (!s || strlen(s) != sizeof(form) - 1)
		return false;
	for (size_t i = 0; form[i]; i++)
		if (form[i] == '-' ? s[i] != '-' : !isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* A FAT volume serial as wic takes it (0x and up to 8 hex digits, or 8 hex digits), in
 * *@ret; false for anything else. */
static bool fat_serial(const char *s, unsigned long *ret)
{
	const char *h = strncasecmp(s, "0x", 2) == 0 ? s + 2 : s;
	size_t n = strlen(h);
	char *end;

	if (!n || n > 8 || (h == s && n != 8) || !isxdigit((unsigned char)*h))
		return false;
	*ret = strtoul(h, &end, 16);
	return !*end;
}

/* The ids and numbers the layout takes as they are written: each checked, so that the
 * layout says what the .wks says or the import stops at its line. */
static int check_values(const struct wks *w, const struct wks_part *p, struct diag *d)
{
	unsigned long serial;
	char *skip = is(p->source, "rawcopy") ? source_param(p, "skip") : NULL;
	bool skip_ok = !skip || (*skip && strspn(skip, "0123456789") == strlen(skip));

	free(skip);
	if (!skip_ok)
		return refuse(p, d, "--sourceparams skip", "not a number of bytes");
	if (w->gpt && p->uuid && !is_guid(p->uuid))
		return refuse(p, d, "--uuid", "not a GUID (8-4-4-4-12 hex digits)");
	if (w->gpt && p->part_type && strlen(p->part_type) != 4 && !is_guid(p->part_type))
		return refuse(p, d, "--part-type", "not a GUID (8-4-4-4-12 hex digits)");
	if (p->fsuuid && is_fat(p) && !fat_serial(p->fsuuid, &serial))
		return refuse(p, d, "--fsuuid", "not a FAT volume serial (0x and 8 hex digits)");
	if (p->fsuuid && !is_fat(p) && !is_guid(p->fsuuid))
		return refuse(p, d, "--fsuuid", "not a UUID (8-4-4-4-12 hex digits)");
	return 0;
}

/* Whether @p is a copied file that wic sizes to the KiB (rawcopy without --size). */
static bool file_sized(const struct wks_part *p)
{
	return p->sizing == WKS_FROM_FILES && is(p->source, "rawcopy");
}

/* The checks of what sdimg cannot give, before anything is written. */
static int check_part(const struct wks *w, const struct wks_part *p, struct diag *d)
{
	bool empty = !p->source || is(p->source, "empty");

	if (p->source && !empty && !is(p->source, "rootfs") && !is(p->source, "rawcopy") &&
	    !boot_files_source(p))
		return diag_error(d, "%s:%d: --source %s: %s", p->file, p->line, p->source,
				  "this wic plugin (a boot loader or a tree it puts "
				  "together) has no sdimg counterpart: build that "
				  "partition's image and give it with --source rawcopy "
				  "--sourceparams=\"file=IMAGE\"");
	if (w->gpt && p->system_id)
		return refuse(p, d, "--system-id",
			      "an MBR type byte on a GPT (wic: sfdisk "
			      "refuses it); use --part-type");
	if (!w->gpt && p->part_type)
		return refuse(p, d, "--part-type",
			      "wic refuses a GPT type on an msdos table; use --system-id");
	if (!w->gpt && p->part_name)
		return refuse(p, d, "--part-name",
			      "wic refuses a partition name on an msdos table (it has no names)");
	if (is(p->fstype, "swap") && !is(p->source, "rawcopy") && !is(p->source, "empty"))
		return refuse(p, d, "--fstype=swap",
			      "sdimg writes no swap signature (mkswap): leave the partition empty "
			      "with --fstype=none and run mkswap on the card, or copy a swap image "
			      "with --source rawcopy");
	if (!empty && !is(p->source, "rawcopy") && !is(p->fstype, "ext4") && !is_fat(p))
		return refuse(p, d, "--fstype",
			      "sdimg builds ext4 and FAT file systems only: build this one "
			      "elsewhere and copy it with --source rawcopy");
	if (!p->source && !is(p->fstype, "ext4") && !is_fat(p) && !is(p->fstype, "none"))
		return refuse(p, d, "--fstype",
			      "sdimg makes empty ext4 and FAT file systems only: use "
			      "--fstype=none for an empty partition");
	if (empty && !p->size_kib && !p->fixed_kib && !p->no_table && !is(p->fstype, "none"))
		return refuse(p, d, "part",
			      "the partition has a size of zero: give --size or "
			      "--fixed-size (wic refuses it too)");
	if (is(p->source, "rawcopy") && p->label)
		return refuse(p, d, "--label with --source rawcopy",
			      "wic rewrites the copied file system's label; sdimg copies the "
			      "file's bytes as they are: set the label where the file is made");
	if (boot_files_source(p) && p->sourceparams)
		return refuse(p, d, "--sourceparams",
			      "bootimg-partition's loader= makes a boot loader configuration "
			      "(extlinux.conf) that the import does not write: put it in "
			      "IMAGE_BOOT_FILES and drop --sourceparams");
	if (is(p->source, "rawcopy")) {
		char *file = source_param(p, "file"), *unpack = source_param(p, "unpack");
		bool ok = file != NULL, packed = unpack != NULL;
		free(file);
		free(unpack);
		if (!ok)
			return refuse(p, d, "--source rawcopy", "--sourceparams has no file=");
		if (packed)
			return refuse(p, d, "--sourceparams unpack",
				      "sdimg copies the file as it is: unpack it first");
	}
	if (file_sized(p) && !p->start_known)
		return refuse(p, d, "--source rawcopy without --size",
			      "after a partition sized by its files, the layout cannot both put "
			      "it where wic does and size it to the KiB as wic does: give --size "
			      "(or --offset)");
	if (p->use_label)
		return refuse(p, d, "--use-label",
			      "wic writes LABEL= into the root's fstab and the boot loader's "
			      "configuration, which the import does not rewrite");
	return check_values(w, p, d);
}

/* The MBR type byte parted gives wic's --fstype (direct.py: vfat is parted's fat32, msdos
 * its fat16, swap linux-swap, anything else ext2). */
static unsigned mbr_type(const struct wks_part *p)
{
	if (p->system_id)
		return p->system_id;
	return is(p->fstype, "vfat")    ? 0x0c
	       : is(p->fstype, "msdos") ? 0x06
	       : is(p->fstype, "swap")  ? 0x82
					: 0x83;
}

/* The GPT type parted gives wic's --fstype, or --part-type (a GUID, or one of sgdisk's
 * codes that sdimg names). NULL for a code sdimg does not know. */
static const char *gpt_type(const struct wks_part *p)
{
	static const struct {
		const char *code, *alias;
	} codes[] = { { "ef00", "esp" },
		      { "0700", "msdata" },
		      { "8300", "linux" },
		      { "8200", "swap" } };

	if (!p->part_type)
		return is_fat(p) ? "msdata" : is(p->fstype, "swap") ? "swap" : "linux";
	if (strlen(p->part_type) != 4)
		return p->part_type;
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (strcasecmp(p->part_type, codes[i].code) == 0)
			return codes[i].alias;
	return NULL;
}

static const char *layout_type(const struct wks_part *p)
{
	if (!p->source ? is(p->fstype, "none") : is(p->source, "rawcopy") || is(p->source, "empty"))
		return "raw";
	if (is(p->fstype, "msdos"))
		return "fat16";
	return is_fat(p) ? "fat" : "ext4";
}

static void write_size(struct writer *wr, const struct wks_part *p)
{
	char a[32], b[32], c[32];

	switch (p->sizing) {
	case WKS_EXACT:
		fprintf(wr->out, "    size = %-10s # %s\n", kib_text(p->size / 2, a, sizeof(a)),
			p->fixed_kib ? "--fixed-size" : "--size (nothing fills it)");
		return;
	case WKS_AT_LEAST:
		fprintf(wr->out,
			"    size = %-10s # --size; wic grows it for a larger file, sdimg's build "
			"refuses one\n",
			kib_text(p->size / 2, a, sizeof(a)));
		return;
	case WKS_FACTOR:
		fprintf(wr->out,
			"    size = %-10s # wic: --size %s x --overhead-factor %g, while the files "
			"take at most\n"
			"                      # %s (--size less --extra-space); wic grows it for "
			"more, sdimg's build refuses them\n",
			kib_text(p->size / 2, a, sizeof(a)), kib_text(p->size_kib, b, sizeof(b)),
			p->factor,
			kib_text(p->size_kib > p->extra_kib ? p->size_kib - p->extra_kib : 0, c,
				 sizeof(c)));
		return;
	case WKS_FROM_FILES:
		break;
	}
	wr->sized_by_contents = true;
	if (is(p->source, "rawcopy")) {
		fputs("    # size: the file's, rounded up to 1 KiB (wic: du -k)\n", wr->out);
		return;
	}
	fprintf(wr->out,
		"    size = auto       # wic: (the files' size + --extra-space) x "
		"--overhead-factor "
		"%g;\n"
		"    extra = %-9s # sdimg: the smallest volume that holds them, plus this\n",
		p->factor, kib_text(p->extra_kib, a, sizeof(a)));
}

/* --exclude-path, wic's paths from the root's top, as one filter list: "a/b" stays; "c/"
 * (wic: the folder stays, empty) drops what c holds; a bare name "d" is "d/" (a pattern
 * without a '/' would match at any depth). A ',' in a path is "[,]", as filters write it. */
static void write_excludes(struct writer *wr, const struct wks_part *p)
{
	struct strbuf b = { 0 };
	int rc = 0;

	for (size_t i = 0; !rc && i < p->n_exclude; i++) {
		const char *e = p->exclude[i];
		while (*e == '/')
			e++;
		size_t n = strlen(e);
		bool folder = n && e[n - 1] == '/', bare = !strchr(e, '/');
		if (i)
			rc = strbuf_puts(&b, ", ");
		for (size_t k = 0; !rc && k < n - folder; k++)
			rc = e[k] == ',' ? strbuf_puts(&b, "[,]") : strbuf_putc(&b, e[k]);
		if (!rc && (folder || bare))
			rc = strbuf_puts(&b, folder ? "/*" : "/");
	}
	if (!rc && b.s) {
		fputs(" exclude = ", wr->out);
		put_string(wr->out, b.s);
	}
	strbuf_release(&b);
}

/* Whether @s can be a layout's variable name (letters, digits, _, not a digit first). */
static bool var_name(const char *s)
{
	return *s && !isdigit((unsigned char)*s) &&
	       strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") ==
		       strlen(s);
}

static void write_contents(struct writer *wr, const struct wks_part *p)
{
	if (boot_files_source(p)) {
		fputs("    # IMAGE_BOOT_FILES, as wic's bootimg-partition reads it: the layout "
		      "lines "
		      "of\n    # sdimg-boot-files (examples/yocto/meta-sdimg, the image class sets "
		      "BOOT_FILES)\n    include(\"${BOOT_FILES}\")\n",
		      wr->out);
	} else if (is(p->source, "rootfs")) {
		const char *dir = p->rootfs_dir ? p->rootfs_dir : "${IMAGE_ROOTFS}";
		bool named = p->rootfs_dir && var_name(dir);
		if (named)
			fprintf(wr->out,
				"    # --rootfs-dir=%s: wic -r %s=DIR; give --set %s=DIR\n", dir,
				dir, dir);
		fputs("    tree \"/\" { from = ", wr->out);
		if (named) {
			fprintf(wr->out, "\"${%s}/\"", dir);
		} else {
			char *slash = NULL;
			if (asprintf(&slash, "%s/", dir) > 0)
				put_string(wr->out, slash);
			free(slash);
		}
		write_excludes(wr, p);
		fputs(" }\n", wr->out);
	} else if (is(p->source, "rawcopy")) {
		char *file = source_param(p, "file"), *skip = source_param(p, "skip");
		fputs("    from = ", wr->out);
		put_string(wr->out, file ? file : "");
		fputs("\n", wr->out);
		if (skip)
			fprintf(wr->out, "    skip = %s\n", skip);
		free(file);
		free(skip);
	}
}

static void write_fs(struct writer *wr, const struct wks_part *p)
{
	const char *type = layout_type(p);

	if (strncmp(type, "fat", 3) == 0) {
		fputs("    fat {\n        label = ", wr->out);
		put_string(wr->out, p->label ? p->label : "boot");
		fprintf(wr->out, "%s\n", p->label ? "" : "    # wic's mkdosfs -n boot");
		unsigned long serial;
		if (p->fsuuid && fat_serial(p->fsuuid, &serial))
			fprintf(wr->out, "        volume-id = 0x%08lx\n", serial);
		fputs("        data-align = 512  # as mkdosfs: no padding before the data area\n"
		      "    }\n",
		      wr->out);
	} else if (strcmp(type, "ext4") == 0 && (p->label || p->fsuuid)) {
		fputs("    ext4 {", wr->out);
		if (p->label) {
			fputs(" label = ", wr->out);
			put_string(wr->out, p->label);
		}
		if (p->fsuuid)
			fprintf(wr->out, " uuid = %s", p->fsuuid);
		fputs(" }\n", wr->out);
	}
}

static void write_table_keys(struct writer *wr, const struct wks_part *p)
{
	if (p->no_table) {
		fputs("    in-table = false   # --no-table\n", wr->out);
		return;
	}
	if (p->active)
		fputs("    bootable = true\n", wr->out);
	if (!wr->w->gpt) {
		fprintf(wr->out, "    mbr-type = 0x%02x%s\n", mbr_type(p),
			p->system_id ? "   # --system-id"
				     : "   # what parted writes for wic's --fstype");
		return;
	}
	fprintf(wr->out, "    gpt-type = %s%s\n", gpt_type(p),
		p->part_type ? "   # --part-type" : "   # what parted writes for wic's --fstype");
	fputs("    label = ", wr->out);
	put_string(wr->out, p->part_name ? p->part_name : "primary");
	fputs(p->part_name ? "\n" : "   # parted names wic's partitions so\n", wr->out);
	if (p->uuid)
		fprintf(wr->out, "    uuid = %s\n", p->uuid);
}

static void write_part(struct writer *wr, const struct wks_part *p)
{
	char a[32];

	fputs("\n# ", wr->out);
	put_comment(wr->out, p->file);
	fprintf(wr->out, ":%d: ", p->line);
	put_comment(wr->out, p->text);
	fputc('\n', wr->out);
	if (p->start_known)
		fprintf(wr->out, "# wic: partition %u%s, sector %llu (byte %llu)\n", p->number,
			p->logical ? " (logical)" : "", (unsigned long long)p->start,
			(unsigned long long)p->start * 512);
	else
		fprintf(wr->out, "# wic: partition %u%s, after a partition sized by its files\n",
			p->number, p->logical ? " (logical)" : "");
	fprintf(wr->out, "partition %s {\n    type = %s\n", p->name, layout_type(p));
	if (p->has_offset)
		fprintf(wr->out, "    start = %llu   # --offset\n", (unsigned long long)p->offset);
	if (p->has_offset && p->offset % IMPORT_SD_GRID)
		fputs("    off-grid = \"wic's fixed --offset\"\n", wr->out);
	if (file_sized(p)) {
		/* sdimg rounds an auto size up to the partition's align, wic a file to the KiB */
		if (!p->has_offset)
			fprintf(wr->out, "    start = %llu   # where wic's rules put it\n",
				(unsigned long long)p->start * 512);
		fputs("    align = 1K        # the file's size rounded up to 1 KiB, as wic's\n",
		      wr->out);
	} else if (p->align_kib)
		fprintf(wr->out, "    align = %-9s # --align %llu (KiB)\n",
			kib_text(p->align_kib, a, sizeof(a)), (unsigned long long)p->align_kib);
	else
		fputs("    align = 512       # no --align: right after the partition before\n",
		      wr->out);
	write_size(wr, p);
	write_table_keys(wr, p);
	write_fs(wr, p);
	write_contents(wr, p);
	if (p->use_uuid)
		fprintf(wr->out,
			"    # --use-uuid: the partition's id is derived from the layout (sdimg "
			"plan "
			"shows it); a file with ids = true names it as wic's root=PARTUUID= does: "
			"\\${PARTUUID_%s}\n",
			p->name);
	fputs("}\n", wr->out);
	if (p->mountpoint && p->mountpoint[0] == '/' && strcmp(p->mountpoint, "/") != 0 &&
	    !p->no_fstab_update)
		wr->fstab_lines = true;
}

static int write_diskid(struct writer *wr)
{
	const struct wks *w = wr->w;
	char *end;

	if (!w->diskid)
		return 0;
	if (w->gpt && !is_guid(w->diskid))
		return diag_error(wr->d, "%s:%d: bootloader --diskid %s: not a GUID",
				  w->bootloader_file, w->bootloader_line, w->diskid);
	if (w->gpt) {
		fprintf(wr->out, "    disk-id = %s   # --diskid\n", w->diskid);
		return 0;
	}
	unsigned long long v = strtoull(w->diskid, &end, 0);
	if (!*w->diskid || *end || v == 0 || v > 0xffffffffu)
		return diag_error(wr->d,
				  "%s:%d: bootloader --diskid %s: not a 32-bit disk signature",
				  w->bootloader_file, w->bootloader_line, w->diskid);
	fprintf(wr->out, "    disk-id = 0x%08llx   # --diskid\n", v);
	return 0;
}

/* Whether a GPT has a --no-table partition before the first of its table (a boot loader). */
static bool loader_first(const struct wks *w)
{
	for (size_t i = 0; w->gpt && i < w->n_parts && w->parts[i].no_table; i++)
		if (i + 1 < w->n_parts && !w->parts[i + 1].no_table)
			return true;
	return false;
}

static int write_image(struct writer *wr, const char *path)
{
	const struct wks *w = wr->w;

	fputs("# The card of ", wr->out);
	put_comment(wr->out, path);
	fprintf(wr->out,
		" (a wic kickstart), imported by `sdimg import`.\n"
		"# Every partition is where wic's rules put it; the comments say where sdimg's\n"
		"# defaults differ and which key pins wic's choice.\n\n"
		"image {\n    table = %s%s\n",
		w->gpt ? "gpt" : "mbr",
		w->bootloader_line ? "   # bootloader --ptable" : "   # no bootloader line: msdos");
	fputs("    align = 512       # wic's grid: a partition without --align starts right "
	      "after the one before\n",
	      wr->out);
	if (w->image_known)
		fprintf(wr->out, "    size = %llu%s\n", (unsigned long long)w->image_sectors * 512,
			w->gpt ? "   # wic ends the image 34 sectors after the last partition"
			       : "");
	else if (w->gpt)
		fputs("    # size: past the last partition, the backup GPT; wic keeps one sector "
		      "more\n    # there (its last usable LBA is one higher)\n",
		      wr->out);
	if (loader_first(w))
		fputs("    # first usable LBA: sdimg's is past the --no-table partitions in front "
		      "of the\n"
		      "    # first one of the table, so that no partitioning tool puts one there;\n"
		      "    # wic's is 34\n",
		      wr->out);
	int rc = write_diskid(wr);
	fputs("}\n", wr->out);
	return rc;
}

int import_wks_write(const struct wks *w, const char *path, FILE *out, struct diag *d)
{
	struct writer wr = { .w = w, .out = out, .d = d };
	int rc;

	if (!w->n_parts)
		return diag_error(d, "%s: no part line: nothing to import", path);
	for (size_t i = 0; i < w->n_parts; i++)
		if ((rc = check_part(w, &w->parts[i], d)) != 0)
			return rc;
	for (size_t i = 0; i < w->n_parts; i++)
		if (w->gpt && !gpt_type(&w->parts[i]))
			return refuse(&w->parts[i], d, "--part-type",
				      "an sgdisk type code that sdimg does not name: give the "
				      "type's GUID");
	if ((rc = write_image(&wr, path)) != 0)
		return rc;
	for (size_t i = 0; i < w->n_parts; i++)
		write_part(&wr, &w->parts[i]);
	if (fflush(out) || ferror(out))
		return diag_errno(d, -EIO, "%s: writing the layout: %s", path, strerror(errno));
	if (wr.fstab_lines)
		diag_warning(d,
			     "%s: wic adds the partitions mounted outside / to the root's "
			     "/etc/fstab; the layout takes the root as it is: put those lines in "
			     "the image's fstab",
			     path);
	diag_note(d,
		  "%s: %zu partition(s) placed as wic places them (align 512)%s; sdimg would put "
		  "them on the 4 MiB erase-block grid: delete the `align` lines%s to move them%s",
		  path, w->n_parts,
		  wr.sized_by_contents
			  ? ", but where wic sizes a partition from its files' disk usage (no "
			    "--size), sdimg's size = auto takes its place, so that partition and "
			    "those after it differ from wic's card"
			  : "",
		  w->image_known ? " and the image's size" : "",
		  loader_first(w) ? " (the GPT's first usable LBA is past the loaders, not 34)"
				  : "");
	return 0;
}
