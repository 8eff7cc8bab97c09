/*
 * cmd_import: `sdimg import FILE.wks [-o card.layout] [--image DISK] [--set VAR=VALUE]...`:
 * the layout of a wic kickstart file (mkimage/importer/), on stdout or into -o (put in place
 * only whole).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mkimage/cli.h"
#include "mkimage/importer/importer.h"

#define CMD "import"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: %s " CMD
		" FILE.wks [-o card.layout] [--image DISK] [--set VAR=VALUE]...\n\n"
		"Writes the layout that gives the card a wic kickstart file (.wks, .wks.in)\n"
		"describes: every partition where wic puts it, the keys that pin wic's choices\n"
		"commented. What sdimg cannot give is an error naming the file's line.\n\n"
		"Options:\n"
		"  -o, --output FILE  write the layout there (default: the standard output)\n"
		"  --image DISK       the partitions the kickstart puts on disk DISK (wic makes\n"
		"                     an image per disk; without it, all must be on one)\n"
		"  --set VAR=VALUE    the value of ${VAR} in the kickstart (repeatable); one not\n"
		"                     set stays ${VAR} in the layout, for its build\n"
		"  -h, --help         show this help\n",
		SDIMG_PROG);
}

struct args {
	const char *output, *image;
	const char **sets;
	size_t n_sets;
};

enum { OPT_SET = 256, OPT_IMAGE };

static int take_option(void *ctx, int key, char *arg)
{
	struct args *a = ctx;

	if (key == 'o' || key == OPT_IMAGE) {
		if (!*arg)
			return cli_usage_error(CMD, "%s needs a name",
					       key == 'o' ? "-o" : "--image");
		*(key == 'o' ? &a->output : &a->image) = arg;
		return EXIT_OK;
	}
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg)
		return cli_usage_error(CMD, "--set wants VAR=VALUE, not '%s'", arg);
	const char **v = realloc(a->sets, (a->n_sets + 1) * sizeof(*v));
	if (!v) {
		fprintf(stderr, "%s: out of memory\n", SDIMG_PROG);
		return EXIT_FAILED;
	}
	a->sets = v;
	a->sets[a->n_sets++] = arg;
	return EXIT_OK;
}

/* The layout into @output: written beside it under a hidden name, then renamed over it. */
static int write_output(const char *input, const char *output, const struct import_options *o,
			struct diag *d)
{
	size_t n = strlen(output) + 16;
	char *tmp = malloc(n);
	int fd = -1, rc;
	FILE *f = NULL;

	if (!tmp)
		return diag_errno(d, -ENOMEM, "out of memory");
	snprintf(tmp, n, "%s.XXXXXX", output);
	fd = mkstemp(tmp);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		rc = diag_errno(d, -errno, "%s: %s", output, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		free(tmp);
		return rc;
	}
	rc = import_wks(input, o, f, d);
	if (fclose(f) && !rc)
		rc = diag_errno(d, -EIO, "%s: %s", output, strerror(errno));
	if (!rc && rename(tmp, output))
		rc = diag_errno(d, -errno, "%s: %s", output, strerror(errno));
	if (rc)
		unlink(tmp);
	free(tmp);
	return rc;
}

int cmd_import(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "set", required_argument, NULL, OPT_SET },
		{ "image", required_argument, NULL, OPT_IMAGE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const int names[] = { 'o', 0 };
	static const struct cli_command import = {
		.name = CMD,
		.options = opts,
		.usage = usage,
		.take = take_option,
		.n_args = 1,
		.names = names,
		.no_args = "no kickstart file given",
		.other_args = "one kickstart file only",
	};
	struct args a = { 0 };
	struct diag d;
	int first, status = cli_parse(&import, argc, argv, &a, &first);

	if (status != CLI_GO) {
		free(a.sets);
		return status;
	}
	const struct import_options o = { .image = a.image, .sets = a.sets, .n_sets = a.n_sets };
	diag_init(&d);
	int rc = a.output ? write_output(argv[first], a.output, &o, &d)
			  : import_wks(argv[first], &o, stdout, &d);
	diag_print(&d, stderr, SDIMG_PROG);
	diag_release(&d);
	free(a.sets);
	return rc ? EXIT_FAILED : EXIT_OK;
}
