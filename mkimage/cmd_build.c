/* SPDX-License-Identifier: MIT */
/*
 * cmd_build: `sdimg build LAYOUT [-o IMAGE] [-I DIR]... [--set VAR=VALUE]... [--compress KIND[:LEVEL]]
 * [--bmap[=FILE]] [--sha256[=FILE]] [--simg] [--simg-block-size N] [--simg-crc]
 * [--simg-max-size N] [-q|-v]`.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/path.h"
#include "common/simg.h"
#include "mkimage/builder/builder.h"
#include "mkimage/cli.h"

static void build_usage(FILE *out)
{
	fprintf(out,
		"Usage: %s build LAYOUT [-o IMAGE] [-I DIR]... [--set VAR=VALUE]...\n"
		"                        [--compress KIND[:LEVEL]] [--bmap[=FILE]] "
		"[--sha256[=FILE]]\n"
		"                        [--simg] [--simg-block-size N] [--simg-crc] "
		"[--simg-max-size N]\n"
		"                        [-q|-v]\n\n"
		"Writes the disk image the layout describes: partition table, raw regions and "
		"each\n"
		"partition's contents, byte-exact and sparse. The outputs appear only when all "
		"are\n"
		"complete; on any failure none is left at its name (older files there stay).\n\n"
		"  -o, --output IMAGE  the image to write (default: the layout's name with .img,\n"
		"                      in the current folder). A name ending in .zst, .xz or .gz\n"
		"                      writes only the compressed image, one ending in .simg only\n"
		"                      the Android sparse image (X.simg --compress zst: and "
		"X.zst)\n"
		"  --compress KIND[:LEVEL]\n"
		"                      also write IMAGE.zst, .xz or .gz (KIND zst, xz or gz; "
		"levels\n"
		"                      zst 1-19 (3), xz 0-9 (6), gz 1-9 (6)); with -o X.zst, the\n"
		"                      level of that one file. The same bytes on every machine,\n"
		"                      whatever its number of processors\n"
		"  --bmap[=FILE]       write the block map for bmaptool (default IMAGE.bmap, "
		"IMAGE\n"
		"                      without the compression suffix): every range that must "
		"read\n"
		"                      back as written, with its SHA-256\n"
		"  --sha256[=FILE]     write the SHA-256 of every image file written, as "
		"sha256sum\n"
		"                      does (default IMAGE.sha256, without the compression "
		"suffix)\n"
		"  --simg              also write IMAGE.simg, the image as an Android sparse file\n"
		"                      (fastboot, uuu, U-Boot's mmc swrite): the bmap's ranges as\n"
		"                      RAW and FILL chunks, the rest DONT_CARE\n"
		"  --simg-block-size N its block size (default 4096; a multiple of 512 that\n"
		"                      divides the image size, at most 64M)\n"
		"  --simg-crc          end each sparse file with a CRC32 chunk\n"
		"  --simg-max-size N   split it into files of at most N bytes, NAME.0.simg,\n"
		"                      NAME.1.simg, ... (fastboot's max-download-size), each a\n"
		"                      sparse image of the whole device\n"
		"  -I, --input DIR     look relative 'from' paths up in DIR; repeated, in each "
		"DIR\n"
		"                      in order, the first that holds the file wins (default: the\n"
		"                      layout file's folder); includes are looked up in the\n"
		"                      including file's folder first, then in each DIR\n"
		"  --set VAR=VALUE     define ${VAR} for the layout (wins over the environment)\n"
		"  -q, --quiet         print only errors and warnings\n"
		"  -v, --verbose       print each partition's placement and FAT geometry\n"
		"  -h, --help          show this help\n",
		SDIMG_PROG);
}

/* "dir/card.layout" -> "card.img" (in the current folder). */
static char *default_output(const char *layout)
{
	const char *base = strrchr(layout, '/');
	char *out = NULL;

	base = base ? base + 1 : layout;
	const char *dot = strrchr(base, '.');
	int len = dot && dot != base ? (int)(dot - base) : (int)strlen(base);
	return asprintf(&out, "%.*s.img", len, base) < 0 ? NULL : out;
}

/* What the command line asks for besides the layout. */
struct build_request {
	const char *output;   /* -o as given, or NULL */
	const char *compress; /* --compress as given, or NULL */
	bool bmap, sha256;
	const char *bmap_file, *sha256_file; /* their =FILE, or NULL */
	bool simg, simg_crc;
	uint64_t simg_block_size, simg_max_size; /* 0: not given */
	enum build_verbosity verbosity;
};

/* The compression a name's suffix asks for: ".zst", ".xz", ".gz", or none. */
static enum build_compression compression_of_name(const char *name)
{
	static const enum build_compression kinds[] = { BUILD_COMPRESS_ZSTD, BUILD_COMPRESS_XZ,
							BUILD_COMPRESS_GZIP };
	size_t len = strlen(name);

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		const char *sfx = build_compression_suffix(kinds[i]);
		size_t n = strlen(sfx);
		if (len > n && strcmp(name + len - n, sfx) == 0)
			return kinds[i];
	}
	return BUILD_COMPRESS_NONE;
}

/* --compress KIND[:LEVEL] into @o; returns EXIT_OK or a usage error. */
static int parse_compress(const char *arg, struct build_options *o)
{
	static const struct {
		const char *name;
		enum build_compression kind;
		int min, max, level;
	} kinds[] = {
		{ "zst", BUILD_COMPRESS_ZSTD, 1, 19, BUILD_ZSTD_LEVEL },
		{ "xz", BUILD_COMPRESS_XZ, 0, 9, BUILD_XZ_LEVEL },
		{ "gz", BUILD_COMPRESS_GZIP, 1, 9, BUILD_GZIP_LEVEL },
	};
	const char *colon = strchr(arg, ':');
	size_t len = colon ? (size_t)(colon - arg) : strlen(arg);

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (strlen(kinds[i].name) != len || strncmp(arg, kinds[i].name, len) != 0)
			continue;
		o->compress = kinds[i].kind;
		o->level = kinds[i].level;
		if (!colon)
			return EXIT_OK;
		char *end;
		long level = strtol(colon + 1, &end, 10);
		if (!colon[1] || *end || level < kinds[i].min || level > kinds[i].max)
			return cli_usage_error("build",
					       "--compress %s: the level is a number from %d "
					       "to %d",
					       kinds[i].name, kinds[i].min, kinds[i].max);
		o->level = (int)level;
		return EXIT_OK;
	}
	return cli_usage_error("build", "--compress: '%.*s' is not zst, xz or gz", (int)len, arg);
}

/* @base + @suffix, owned by the caller through *@owned (one of a small array). asprintf()
 * writes a local first: given @owned, it would leave every element of the array unknown to
 * a static analyser, which then takes the others' strings for leaked. */
static const char *with_suffix(const char *base, const char *suffix, char **owned)
{
	char *s;

	*owned = asprintf(&s, "%s%s", base, suffix) < 0 ? NULL : s;
	return *owned;
}

/* @path with its folder made canonical ("./a/../out.img" -> "/home/u/out.img"), or NULL
 * when the folder does not exist (then the text is compared). Free it. */
static char *canonical(const char *path)
{
	char *dir = path_dir(path), *real = dir ? realpath(dir, NULL) : NULL, *out = NULL;
	const char *base = strrchr(path, '/');

	if (real && asprintf(&out, "%s/%s", real, base ? base + 1 : path) < 0)
		out = NULL;
	free(dir);
	free(real);
	return out;
}

/* Whether @a and @b name one file: the same canonical name, or one existing file. */
static bool same_file(const char *a, const char *b)
{
	char *ca = canonical(a), *cb = canonical(b);
	struct stat x, y;
	bool same = strcmp(ca ? ca : a, cb ? cb : b) == 0 ||
		    (stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev &&
		     x.st_ino == y.st_ino);

	free(ca);
	free(cb);
	return same;
}

/* The names a build may write, and what each is: the image, the compressed image, the bmap,
 * the checksums and the per-card manifest (written with per-card values; without them an
 * older one there is removed: either way the name is the build's). NULL: not written. */
#define N_OUTPUTS 6
static void output_names(const struct build_options *o, const char *cards,
			 const char *names[N_OUTPUTS])
{
	names[0] = o->write_raw ? o->output : NULL;
	names[1] = o->compressed;
	names[2] = o->bmap;
	names[3] = o->sha256;
	names[4] = cards;
	names[5] = o->simg_max_size ? NULL : o->simg; /* split: NAME.N.simg, none of the others */
}

static const char *const output_what[N_OUTPUTS] = {
	"the image",         "the compressed image",  "the bmap",
	"the checksum file", "the per-card manifest", "the sparse image"
};

/* Two outputs at one name would leave one of them (or the layout) overwritten: refused. */
static int distinct_outputs(const struct build_options *o, const char *cards, const char *layout)
{
	const char *names[N_OUTPUTS + 1] = { layout };
	const char *what[N_OUTPUTS + 1] = { "the layout" };

	output_names(o, cards, names + 1);
	memcpy(what + 1, output_what, sizeof(output_what));
	for (int i = 0; i <= N_OUTPUTS; i++)
		for (int j = i + 1; names[i] && j <= N_OUTPUTS; j++)
			if (names[j] && same_file(names[i], names[j]))
				return cli_usage_error("build", "%s and %s would both be %s",
						       what[i], what[j], names[j]);
	return EXIT_OK;
}

/* An output at the name of @input, a file the build reads (@what: "the input at
 * card.layout:3"), would replace it: refused. */
static int output_spares(const struct build_options *o, const char *cards, const char *input,
			 const char *what)
{
	const char *names[N_OUTPUTS];

	output_names(o, cards, names);
	for (int i = 0; i < N_OUTPUTS; i++)
		if (names[i] && same_file(input, names[i]))
			return cli_usage_error("build", "%s and %s would both be %s", what,
					       output_what[i], names[i]);
	return EXIT_OK;
}

/* Whether the folder of @name is the folder @held (its stat) or lies under it, through links
 * and ".." alike: the folder's real path is walked up to the root, each step compared by
 * device and inode. An output whose folder does not exist is nowhere (the build says so). */
static bool folder_holds(const struct stat *held, const char *name)
{
	char *dir = path_dir(name), *real = dir ? realpath(dir, NULL) : NULL;
	bool inside = false;

	free(dir);
	while (real && !inside) {
		struct stat st;
		inside = stat(real, &st) == 0 && st.st_dev == held->st_dev &&
			 st.st_ino == held->st_ino;
		char *slash = strrchr(real, '/');
		if (!slash || (slash == real && !real[1]))
			break;
		slash[slash == real] = '\0'; /* "/a/b" -> "/a" -> "/" */
	}
	free(real);
	return inside;
}

/* A tree copies its folder @folder (the input at @where) whole, by the time the build reads
 * it: an output in it would be copied into the next image (the hidden name of an unfinished
 * one into this one), so none may be at or under it. */
static int outputs_outside(const struct build_options *o, const char *cards, const char *folder,
			   const char *where)
{
	const char *names[N_OUTPUTS];
	struct stat held;

	if (stat(folder, &held) < 0 || !S_ISDIR(held.st_mode))
		return EXIT_OK;
	output_names(o, cards, names);
	for (int i = 0; i < N_OUTPUTS; i++)
		if (names[i] && folder_holds(&held, names[i]))
			return cli_usage_error("build", "%s, the folder %s, would hold %s %s",
					       where, folder, output_what[i], names[i]);
	return EXIT_OK;
}

/* The `from` file @from (written at @loc) spared by every output, and when it is the folder
 * of a @tree, none inside it; one that no input folder holds is not read (the build says
 * so), so nothing of it can be replaced. */
static int output_spares_from(const struct layout *l, const struct build_options *o,
			      const char *cards, const char *from, const struct layout_loc *loc,
			      bool tree)
{
	char *path = NULL, what[PATH_MAX + 32];
	struct diag scratch;
	int status = EXIT_OK;

	if (!from)
		return EXIT_OK;
	diag_init(&scratch);
	if (layout_input_path(l, from, "", &scratch, &path) == -ENOMEM) {
		fprintf(stderr, "%s: out of memory\n", SDIMG_PROG);
		status = EXIT_FAILED;
	}
	diag_release(&scratch);
	snprintf(what, sizeof(what), "the input at %s:%d", loc->file ? loc->file : l->path,
		 loc->line);
	if (path)
		status = output_spares(o, cards, path, what);
	if (path && tree && status == EXIT_OK)
		status = outputs_outside(o, cards, path, what);
	free(path);
	return status;
}

/* Every file the build reads besides the layout (checked with the outputs, before it was
 * read): its includes and its `from` inputs, spared by every output, and the folders its
 * trees copy, which hold none. */
static int outputs_spare_inputs(const struct layout *l, const struct build_options *o,
				const char *cards)
{
	int status = EXIT_OK;

	for (size_t i = 1; status == EXIT_OK && i < l->n_files; i++)
		status = output_spares(o, cards, l->files[i], "an included layout");
	for (size_t i = 0; status == EXIT_OK && i < l->n_raws; i++)
		status = output_spares_from(l, o, cards, l->raws[i].from, &l->raws[i].loc, false);
	for (size_t i = 0; status == EXIT_OK && i < l->n_raws; i++) /* a uboot-env's vars */
		if (l->raws[i].env)
			status = output_spares_from(l, o, cards, l->raws[i].env->vars_file,
						    &l->raws[i].env->vars_loc, false);
	for (size_t i = 0; status == EXIT_OK && i < l->n_parts; i++) {
		const struct layout_partition *p = &l->parts[i];
		status = output_spares_from(l, o, cards, p->from, &p->loc, false);
		for (size_t k = 0; status == EXIT_OK && k < p->n_entries; k++)
			status = output_spares_from(l, o, cards, p->entries[k].from,
						    &p->entries[k].loc,
						    p->entries[k].kind == LAYOUT_ENTRY_TREE);
	}
	return status;
}

/* The outputs' names from the request, the per-card manifest's in @owned[5]; the strings live
 * in @owned (free them). */
#define N_OWNED 7
static int name_outputs(const struct build_request *r, const char *layout, struct build_options *o,
			char *owned[N_OWNED])
{
	const char *given = r->output ? r->output : (owned[0] = default_output(layout));
	enum build_compression by_name;

	if (!given)
		return EXIT_FAILED;
	by_name = compression_of_name(given);
	size_t given_len = strlen(given);
	bool simg_name = given_len > 5 && strcmp(given + given_len - 5, ".simg") == 0;
	/* -o x.img.zst: only the compressed image (--compress then sets its level);
	 * -o x.img --compress zst: both; -o x.simg: only the sparse image */
	o->write_raw = by_name == BUILD_COMPRESS_NONE && !simg_name;
	o->simg_block_size = r->simg_block_size ? (uint32_t)r->simg_block_size : SIMG_DEFAULT_BLOCK;
	o->simg_crc = r->simg_crc;
	o->simg_max_size = r->simg_max_size;
	if (!simg_name && !r->simg && (r->simg_block_size || r->simg_crc || r->simg_max_size))
		return cli_usage_error("build",
				       "--simg-block-size, --simg-crc and --simg-max-size are for "
				       "a sparse image: add --simg or -o NAME.simg");
	if (r->simg_max_size &&
	    r->simg_max_size < simg_least_piece(o->simg_block_size, o->simg_crc))
		return cli_usage_error("build",
				       "--simg-max-size %llu: a sparse file of %u-byte blocks "
				       "needs "
				       "at least %llu bytes",
				       (unsigned long long)r->simg_max_size, o->simg_block_size,
				       (unsigned long long)simg_least_piece(o->simg_block_size,
									    o->simg_crc));
	if (r->compress && parse_compress(r->compress, o) != EXIT_OK)
		return EXIT_USAGE;
	if (by_name && r->compress && by_name != o->compress)
		return cli_usage_error("build", "-o %s ends in %s but --compress asks for %s",
				       given, build_compression_suffix(by_name),
				       build_compression_suffix(o->compress) + 1);
	if (by_name && !r->compress) {
		o->compress = by_name;
		o->level = by_name == BUILD_COMPRESS_ZSTD ? BUILD_ZSTD_LEVEL
			   : by_name == BUILD_COMPRESS_XZ ? BUILD_XZ_LEVEL
							  : BUILD_GZIP_LEVEL;
	}
	if (simg_name && given[given_len - 6] == '/')
		return cli_usage_error("build", "-o %s: the sparse image needs a name before .simg",
				       given);
	if (simg_name) {
		/* -o x.simg --compress zst: x.zst beside it, as -o x --simg --compress zst */
		o->output = owned[1] = strndup(given, given_len - 5);
		o->simg = given;
		if (o->output && o->compress)
			o->compressed = with_suffix(o->output,
						    build_compression_suffix(o->compress),
						    &owned[2]);
	} else if (by_name) {
		size_t n = strlen(given) - strlen(build_compression_suffix(by_name));
		o->output = owned[1] = strndup(given, n);
		o->compressed = given;
	} else {
		o->output = given;
		if (o->compress)
			o->compressed = with_suffix(given, build_compression_suffix(o->compress),
						    &owned[2]);
	}
	if (r->simg && !simg_name)
		o->simg = with_suffix(o->output, ".simg", &owned[6]);
	if (r->bmap)
		o->bmap = r->bmap_file ? r->bmap_file : with_suffix(o->output, ".bmap", &owned[3]);
	if (r->sha256)
		o->sha256 = r->sha256_file ? r->sha256_file
					   : with_suffix(o->output, ".sha256", &owned[4]);
	if (!o->output || (o->compress && !o->compressed) || (r->bmap && !o->bmap) ||
	    (r->sha256 && !o->sha256) || (r->simg && !o->simg) ||
	    !with_suffix(o->output, BUILD_CARDS_SUFFIX, &owned[5]))
		return EXIT_FAILED;
	return distinct_outputs(o, owned[5], layout);
}

/*
 * The build's clock is UTC, from the moment its layout has been read (a layout's ${TZ} is
 * still the user's). A zip entry without a zoned time carries an MS-DOS date and time, a
 * wall-clock reading with no zone, which libarchive turns into seconds with mktime(3): in
 * the builder's zone, the same zip would give another image on every machine. Read as UTC,
 * it lands on FAT (whose times sdimg writes as UTC) and ext4 as the very time the zip shows.
 */
static void use_utc(void)
{
	setenv("TZ", "UTC0", 1);
	tzset();
}

/* The outputs are in place once the build ends well, and a failure leaves none: a report
 * that the standard output did not take is a warning, and not told again at exit. */
static void report_lost(const char *path, struct diag *d)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return;
	diag_warning(d, "%s: built, but the standard output did not take its report: %s", path,
		     strerror(errno ? errno : EIO));
	__fpurge(stdout);
	clearerr(stdout);
}

static int run_build(const struct cli_layout_args *args, const char *path,
		     const struct build_request *r)
{
	struct build_options o = { .verbosity = r->verbosity, .report = stdout };
	char *owned[N_OWNED] = { NULL };
	struct layout *l = NULL;
	struct diag d;
	int status = name_outputs(r, path, &o, owned);

	diag_init(&d);
	if (status == EXIT_FAILED)
		diag_error(&d, "%s: out of memory", path);
	if (status == EXIT_OK && cli_layout_args_load(args, path, &d, &l) < 0)
		status = EXIT_FAILED;
	if (status == EXIT_OK)
		status = outputs_spare_inputs(l, &o, owned[5]);
	if (status == EXIT_OK) {
		use_utc();
		int rc = build_image_file(l, &o, &d);
		status = rc == 0 ? EXIT_OK : EXIT_FAILED;
		/* every failure says why; should a path forget to, the build is not silent */
		if (rc < 0 && !d.errors)
			diag_error(&d, "%s: the build failed: %s", path, strerror(-rc));
	}
	if (status == EXIT_OK)
		report_lost(path, &d);
	if (r->verbosity == BUILD_QUIET)
		diag_drop_notes(&d);
	diag_print(&d, stderr, SDIMG_PROG);
	layout_free(l);
	diag_release(&d);
	for (int i = 0; i < N_OWNED; i++)
		free(owned[i]);
	return status;
}

enum {
	OPT_SET = 256,
	OPT_COMPRESS,
	OPT_BMAP,
	OPT_SHA256,
	OPT_SIMG,
	OPT_SIMG_BLOCK,
	OPT_SIMG_CRC,
	OPT_SIMG_MAX
};

/* --simg-block-size N and --simg-max-size N (sizes as a layout writes them: 4K, 512M). */
static int take_simg_size(struct build_request *r, int key, const char *arg)
{
	const char *opt = key == OPT_SIMG_BLOCK ? "--simg-block-size" : "--simg-max-size";
	char why[160];
	uint64_t v;

	if (layout_parse_size(arg, &v, why, sizeof(why)) < 0)
		return cli_usage_error("build", "%s: %s", opt, why);
	if (key == OPT_SIMG_BLOCK && simg_block_size_problem(v))
		return cli_usage_error("build", "%s %s: %s", opt, arg, simg_block_size_problem(v));
	if (key == OPT_SIMG_MAX && !v)
		return cli_usage_error("build", "%s: a size over 0, please", opt);
	*(key == OPT_SIMG_BLOCK ? &r->simg_block_size : &r->simg_max_size) = v;
	return EXIT_OK;
}

/* The command line of `build` besides the layout. */
struct build_command_line {
	struct cli_layout_args args;
	struct build_request r;
};

static int take_build_option(void *ctx, int key, char *arg)
{
	struct build_command_line *b = ctx;
	struct build_request *r = &b->r;

	if (key == 'o' && !*arg)
		return cli_usage_error("build", "-o needs a file name");
	if ((key == OPT_BMAP || key == OPT_SHA256) && arg && !*arg)
		return cli_usage_error("build", "%s= needs a file name",
				       key == OPT_BMAP ? "--bmap" : "--sha256");
	if (key == 'I')
		return cli_layout_args_input(&b->args, "build", arg);
	if (key == OPT_SIMG_BLOCK || key == OPT_SIMG_MAX)
		return take_simg_size(r, key, arg);
	if (key == OPT_SIMG || key == OPT_SIMG_CRC) {
		*(key == OPT_SIMG ? &r->simg : &r->simg_crc) = true;
		return EXIT_OK;
	}
	if (key == OPT_SET)
		return cli_layout_args_set(&b->args, "build", arg);
	if (key == 'o') {
		r->output = arg;
	} else if (key == OPT_COMPRESS) {
		r->compress = arg;
	} else if (key == OPT_BMAP) {
		r->bmap = true;
		r->bmap_file = arg;
	} else if (key == OPT_SHA256) {
		r->sha256 = true;
		r->sha256_file = arg;
	} else {
		r->verbosity = key == 'q' ? BUILD_QUIET : BUILD_VERBOSE;
	}
	return EXIT_OK;
}

int cmd_build(int argc, char **argv)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "input", required_argument, NULL, 'I' },
		{ "set", required_argument, NULL, OPT_SET },
		{ "compress", required_argument, NULL, OPT_COMPRESS },
		{ "bmap", optional_argument, NULL, OPT_BMAP },
		{ "sha256", optional_argument, NULL, OPT_SHA256 },
		{ "simg", no_argument, NULL, OPT_SIMG },
		{ "simg-block-size", required_argument, NULL, OPT_SIMG_BLOCK },
		{ "simg-crc", no_argument, NULL, OPT_SIMG_CRC },
		{ "simg-max-size", required_argument, NULL, OPT_SIMG_MAX },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const int names[] = { 'o', 'I', 0 };
	static const struct cli_command build = {
		.name = "build",
		.options = options,
		.usage = build_usage,
		.take = take_build_option,
		.names = names,
		.n_args = 1,
		.no_args = "no layout file given",
		.other_args = "one layout file, please",
	};
	struct build_command_line b = { .r = { .verbosity = BUILD_NORMAL } };
	int first, status = cli_parse(&build, argc, argv, &b, &first);

	if (status == CLI_GO)
		status = run_build(&b.args, argv[first], &b.r);
	cli_layout_args_release(&b.args);
	return status;
}
