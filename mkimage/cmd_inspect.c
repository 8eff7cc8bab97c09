/* cmd_inspect: `sdimg inspect IMAGE|DEVICE [--json] [--erase-block SIZE]`. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mkimage/reader/reader.h"
#include "mkimage/cli.h"

static void inspect_usage(FILE *out)
{
	fprintf(out,
		"Usage: %s inspect IMAGE|DEVICE [--json] [--erase-block SIZE]\n\n"
		"Reads a card image or a card (read-only): the partition table, each partition's\n"
		"file system, and an SD alignment report with what to change in the layout.\n"
		"Exit status 0 when it could be read (findings are output, not failure), 1 when it\n"
		"cannot be read or is no disk image.\n\n"
		"  --json               print a JSON document (keys in README.md)\n"
		"  --erase-block SIZE   the grid to check against (default 4M, the SDHC boundary unit)\n"
		"  -h, --help           show this help\n",
		SDIMG_PROG);
}

static int run_inspect(const char *path, bool json, uint64_t eb)
{
	struct disk k;
	struct findings f = { 0 };
	struct diag d;
	int status = EXIT_FAILED;
	int fd;

	diag_init(&d);
	fd = reader_open(path, &d);
	if (fd < 0) {
		/* the message is in d */
	} else if (reader_read_disk(&k, path, fd, &d) == 0) {
		if (reader_compute_findings(&k, eb, &f) < 0)
			diag_error(&d, "%s: out of memory", path);
		else
			status = (json ? reader_print_json(&k, &f, eb, &d)
				       : reader_print_text(&k, &f, eb, &d)) == 0 ? EXIT_OK : EXIT_FAILED;
		reader_release_disk(&k);
	}
	diag_print(&d, stderr, SDIMG_PROG);
	diag_release(&d);
	reader_release_findings(&f);
	if (fd >= 0)
		close(fd);
	return status;
}

int cmd_inspect(int argc, char **argv)
{
	enum { OPT_JSON = 256, OPT_ERASE };
	static const struct option options[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "erase-block", required_argument, NULL, OPT_ERASE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t eb = 4u << 20;
	bool json = false;
	char why[160];
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		if (c == 'h') {
			inspect_usage(stdout);
			return EXIT_OK;
		} else if (c == OPT_JSON) {
			json = true;
		} else if (c == OPT_ERASE) {
			if (layout_parse_size(optarg, &eb, why, sizeof(why)) < 0 || eb < 512 || eb % 512)
				return cli_usage_error("inspect", "--erase-block: %s",
						   eb % 512 || eb < 512 ? "a multiple of 512 bytes, please" : why);
		} else {
			return cli_usage_error("inspect", "unknown or incomplete option '%s'", argv[optind - 1]);
		}
	}
	if (optind + 1 != argc)
		return cli_usage_error("inspect", optind == argc ? "no image or device given"
							     : "one image or device, please");
	return run_inspect(argv[optind], json, eb);
}
