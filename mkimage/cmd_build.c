/* cmd_build: `sdimg build LAYOUT [-o IMAGE] [-I DIR] [--set VAR=VALUE]... [-q|-v]`. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "mkimage/builder/builder.h"
#include "mkimage/cli.h"

static void build_usage(FILE *out)
{
	fprintf(out,
		"Usage: %s build LAYOUT [-o IMAGE] [-I DIR] [--set VAR=VALUE]... [-q|-v]\n\n"
		"Writes the disk image the layout describes: partition table, raw regions and each\n"
		"partition's contents, byte-exact and sparse. The image appears only when it is\n"
		"complete; on any failure nothing is left at IMAGE (an older file there stays).\n\n"
		"  -o, --output IMAGE  the image to write (default: the layout's name with .img,\n"
		"                      in the current folder)\n"
		"  -I, --input DIR     resolve relative 'from' paths against DIR (default: the\n"
		"                      layout file's folder)\n"
		"  --set VAR=VALUE     define ${VAR} for the layout (wins over the environment)\n"
		"  -q, --quiet         print nothing on success\n"
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

static int run_build(const struct cli_layout_args *args, const char *path, const char *output,
		     enum build_verbosity verbosity)
{
	struct build_options o = { .output = output, .verbosity = verbosity, .report = stdout };
	char *owned = NULL;
	struct layout *l = NULL;
	struct diag d;
	int status = EXIT_FAILED;

	diag_init(&d);
	if (!o.output)
		o.output = owned = default_output(path);
	if (o.output && cli_layout_args_load(args, path, &d, &l) == 0 &&
	    build_image_file(l, &o, &d) == 0)
		status = EXIT_OK;
	diag_print(&d, stderr, SDIMG_PROG);
	layout_free(l);
	diag_release(&d);
	free(owned);
	return status;
}

int cmd_build(int argc, char **argv)
{
	enum { OPT_SET = 256 };
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' }, { "input", required_argument, NULL, 'I' },
		{ "set", required_argument, NULL, OPT_SET }, { "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },	    { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_layout_args args = { 0 };
	enum build_verbosity verbosity = BUILD_NORMAL;
	const char *output = NULL;
	int c, status = EXIT_OK;

	opterr = 0;
	while (status == EXIT_OK && (c = getopt_long(argc, argv, "o:I:qvh", options, NULL)) != -1) {
		if (c == 'h') {
			build_usage(stdout);
			cli_layout_args_release(&args);
			return EXIT_OK;
		} else if (c == 'o') {
			output = optarg;
		} else if (c == 'I') {
			args.input_dir = optarg;
		} else if (c == OPT_SET) {
			status = cli_layout_args_set(&args, "build", optarg);
		} else if (c == 'q') {
			verbosity = BUILD_QUIET;
		} else if (c == 'v') {
			verbosity = BUILD_VERBOSE;
		} else {
			status = cli_usage_error("build", "unknown or incomplete option '%s'",
					     argv[optind - 1]);
		}
	}
	if (status == EXIT_OK && optind + 1 != argc)
		status = cli_usage_error("build", optind == argc ? "no layout file given"
							     : "one layout file, please");
	if (status == EXIT_OK)
		status = run_build(&args, argv[optind], output, verbosity);
	cli_layout_args_release(&args);
	return status;
}
