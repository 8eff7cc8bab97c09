/* SPDX-License-Identifier: MIT */
/*
 * cmd_import: `sdimg import FILE [-o LAYOUT] [--image NAME] [-I DIR]... [--set VAR=VALUE]...`,
 * another tool's image description (a genimage configuration, a wic kickstart) as a layout.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/array.h"
#include "common/path.h"
#include "mkimage/builder/builder.h"
#include "mkimage/cli.h"
#include "mkimage/importer/importer.h"

static void import_usage(FILE *out)
{
	fprintf(out,
		"Usage: %s import FILE [-o LAYOUT] [--image NAME] [-I DIR]... [--set "
		"VAR=VALUE]...\n\n"
		"Translates a genimage configuration (or a wic kickstart, FILE.wks) into a layout\n"
		"that builds the same card: every partition's start, size, type and flags, the\n"
		"table kind and its first usable LBA as the source tool writes them, pinned with\n"
		"explicit keys. What a layout cannot express is an error naming FILE:LINE.\n\n"
		"  -o, --output LAYOUT  write the layout there (only when the whole import\n"
		"                       succeeds); default: the standard output\n"
		"  --image NAME         the genimage image to translate, when the configuration\n"
		"                       has more than one hdimage image; for a kickstart, the\n"
		"                       disk whose partitions to take, as its part lines name it\n"
		"  -I, --input DIR      where the input files are (genimage's input path):\n"
		"                       their sizes decide the placement; repeatable, searched\n"
		"                       in order; default: the folder of FILE\n"
		"  --set VAR=VALUE      define ${VAR} for the configuration (wins over the\n"
		"                       environment)\n"
		"  -h, --help           show this help\n",
		SDIMG_PROG);
}

enum { OPT_IMAGE = 256, OPT_SET };

/* What the command line of `import` asks for besides the source file. */
struct import_request {
	const char *output;
	const char *image;
	const char **sets; /* owned array of borrowed strings */
	size_t n_sets, cap_sets;
	const char **dirs; /* owned array of borrowed strings */
	size_t n_dirs, cap_dirs;
};

static int take_import_option(void *ctx, int key, char *arg)
{
	struct import_request *r = ctx;

	switch (key) {
	case 'o':
		r->output = arg;
		return EXIT_OK;
	case OPT_IMAGE:
		r->image = arg;
		return EXIT_OK;
	case 'I':
		if (array_grow((void **)&r->dirs, &r->cap_dirs, r->n_dirs + 1, sizeof(*r->dirs)))
			return cli_usage_error("import", "out of memory");
		r->dirs[r->n_dirs++] = arg;
		return EXIT_OK;
	default:
		if (!strchr(arg, '=') || arg[0] == '=')
			return cli_usage_error("import", "--set wants VAR=VALUE, not '%s'", arg);
		if (array_grow((void **)&r->sets, &r->cap_sets, r->n_sets + 1, sizeof(*r->sets)))
			return cli_usage_error("import", "out of memory");
		r->sets[r->n_sets++] = arg;
		return EXIT_OK;
	}
}

/* A kickstart: a .wks or .wks.in name (oe-core's templates), or a first statement that is
 * `part` or `bootloader`. */
static bool is_kickstart(const char *path)
{
	size_t n = strlen(path);
	char line[256];
	bool wks = false;
	FILE *f;

	if ((n > 4 && !strcmp(path + n - 4, ".wks")) || (n > 7 && !strcmp(path + n - 7, ".wks.in")))
		return true;
	if (!(f = fopen(path, "r")))
		return false;
	while (fgets(line, sizeof(line), f)) {
		const char *s = line;
		while (isspace((unsigned char)*s))
			s++;
		if (!*s || *s == '#')
			continue;
		wks = (!strncmp(s, "part", 4) && isspace((unsigned char)s[4])) ||
		      (!strncmp(s, "bootloader", 10) && isspace((unsigned char)s[10]));
		break;
	}
	fclose(f);
	return wks;
}

static int translate(const char *path, const struct import_options *o, FILE *out, struct diag *d)
{
	if (!is_kickstart(path))
		return import_genimage(path, o, out, d);
	return import_wks(path, o, out, d);
}

/* The whole layout of @path into *@text (*@len bytes; free() it), or an error. */
static int translate_text(const char *path, const struct import_options *o, struct diag *d,
			  char **text, size_t *len)
{
	FILE *mem = open_memstream(text, len);
	int r;

	if (!mem)
		return diag_errno(d, -ENOMEM, "out of memory");
	r = translate(path, o, mem, d);
	if (fclose(mem) && !r)
		r = diag_errno(d, -ENOMEM, "out of memory");
	return r;
}

/* Whether @output names a file the import read (@inputs), which the layout must not replace. */
static bool is_input(const char *output, const struct import_inputs *inputs)
{
	struct stat st;

	return stat(output, &st) == 0 && import_inputs_holds(inputs, &st);
}

/* @text onto @output, put at its name only when complete. */
static int write_layout(const char *output, const char *text, size_t len, struct diag *d)
{
	struct build_file f = BUILD_FILE_INIT, *files[] = { &f };
	int r = build_file_create(&f, output, "the layout", 0, d);

	for (size_t done = 0; done < len && !r;) {
		ssize_t w = write(f.fd, text + done, len - done);
		if (w < 0 && errno != EINTR)
			r = diag_errno(d, -errno, "%s: %s", output, strerror(errno));
		done += w > 0 ? (size_t)w : 0;
	}
	if (!r)
		r = build_files_commit(files, 1, NULL, NULL, d);
	build_file_abort(&f);
	return r;
}

static int run_import(const struct import_request *r, const char *path)
{
	struct import_inputs inputs = { 0 };
	const struct import_options o = { .image = r->image,
					  .sets = r->sets,
					  .n_sets = r->n_sets,
					  .input_dirs = r->dirs,
					  .n_input_dirs = r->n_dirs,
					  .inputs = &inputs };
	struct diag d;
	char *text = NULL;
	size_t len = 0;
	int rc;

	diag_init(&d);
	rc = translate_text(path, &o, &d, &text, &len);
	if (!rc && r->output && is_input(r->output, &inputs)) {
		diag_release(&d); /* what the translation said no longer matters */
		diag_init(&d);
		rc = diag_error(&d,
				"%s: a file the import read (the configuration, a file it includes "
				"or an input it measured): write the layout elsewhere",
				r->output);
	} else if (!rc && r->output) {
		rc = write_layout(r->output, text, len, &d);
	} else if (!rc && (fwrite(text, 1, len, stdout) != len || fflush(stdout))) {
		rc = diag_errno(&d, -EIO, "cannot write the standard output: %s", strerror(errno));
	}
	free(text);
	import_inputs_release(&inputs);
	diag_print(&d, stderr, SDIMG_PROG);
	diag_release(&d);
	return rc ? EXIT_FAILED : EXIT_OK;
}

int cmd_import(int argc, char **argv)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "image", required_argument, NULL, OPT_IMAGE },
		{ "input", required_argument, NULL, 'I' },
		{ "set", required_argument, NULL, OPT_SET },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const int names[] = { 'o', 'I', 0 };
	static const struct cli_command import = {
		.name = "import",
		.options = options,
		.usage = import_usage,
		.take = take_import_option,
		.names = names,
		.n_args = 1,
		.no_args = "no genimage configuration or kickstart given",
		.other_args = "one file to import, please",
	};
	struct import_request r = { 0 };
	int first, status = cli_parse(&import, argc, argv, &r, &first);

	if (status == CLI_GO)
		status = run_import(&r, argv[first]);
	free(r.sets);
	free(r.dirs);
	return status;
}
