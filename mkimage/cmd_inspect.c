/* SPDX-License-Identifier: MIT */
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
		"Usage: %s inspect IMAGE|DEVICE [--json] [--erase-block SIZE] "
		"[--uboot-env OFFSET[,SIZE[,OFFSET2]]]\n\n"
		"Reads a card image or a card (read-only): the partition table, each partition's\n"
		"file system, and an SD alignment report with what to change in the layout.\n"
		"Exit status 0 when it could be read (findings are output, not failure), 1 when "
		"it\n"
		"cannot be read or is no disk image.\n\n"
		"  --json               print a JSON document (keys in README.md)\n"
		"  --erase-block SIZE   the grid to check against (default 4M, the SDHC boundary "
		"unit)\n"
		"  --uboot-env OFFSET[,SIZE[,OFFSET2]]\n"
		"                       also the U-Boot environment whose first copy is at OFFSET\n"
		"                       (SIZE a copy, found by its CRC when not given; OFFSET2\n"
		"                       the second copy of a redundant one; each 4M or 0x400000):\n"
		"                       each copy's CRC and flags, the one U-Boot reads, its\n"
		"                       variables\n"
		"  -h, --help           show this help\n",
		SDIMG_PROG);
}

/* The environment at @place of @fd, reported after the disk's. */
static int inspect_env(int fd, const char *path, const struct reader_env_place *place,
		       struct diag *d)
{
	struct reader_env e;
	int rc = reader_env_read(fd, path, place, &e, d);

	if (rc == 0)
		rc = reader_env_print_text(&e, stdout, d);
	reader_env_release(&e);
	return rc;
}

static int run_inspect(const char *path, bool json, uint64_t eb, const struct reader_env_place *env)
{
	struct disk k;
	struct findings f = { 0 };
	struct diag d, quiet;
	int status = EXIT_FAILED;
	int fd;

	diag_init(&d);
	diag_init(&quiet);
	fd = reader_open(path, &d);
	if (fd < 0) {
		/* the message is in d */
	} else if (reader_read_disk(&k, path, fd, env ? &quiet : &d) == 0) {
		if (reader_compute_findings(&k, eb, &f) < 0)
			diag_error(&d, "%s: out of memory", path);
		else
			status = (json ? reader_print_json(&k, &f, eb, &d)
				       : reader_print_text(&k, &f, eb, &d)) == 0
					 ? EXIT_OK
					 : EXIT_FAILED;
		reader_release_disk(&k);
	} else if (env) { /* an eMMC boot area or a NOR image: no table, the environment only */
		status = EXIT_OK;
	}
	if (env && fd >= 0 && status == EXIT_OK)
		status = inspect_env(fd, path, env, &d) == 0 ? EXIT_OK : EXIT_FAILED;
	diag_print(&d, stderr, SDIMG_PROG);
	diag_release(&d);
	diag_release(&quiet);
	reader_release_findings(&f);
	if (fd >= 0)
		close(fd);
	return status;
}

enum { OPT_JSON = 256, OPT_ERASE, OPT_ENV };

/* What the command line of `inspect` asks for besides the image. */
struct inspect_request {
	bool json;
	uint64_t erase_block;
	bool env_set;
	struct reader_env_place env;
};

static int take_inspect_option(void *ctx, int key, char *arg)
{
	struct inspect_request *r = ctx;
	uint64_t eb = r->erase_block;
	char why[160];

	if (key == OPT_JSON) {
		r->json = true;
		return EXIT_OK;
	}
	if (key == OPT_ENV) {
		if (reader_env_place_parse(arg, &r->env, why, sizeof(why)) < 0)
			return cli_usage_error("inspect", "--uboot-env: %s", why);
		r->env_set = true;
		return EXIT_OK;
	}
	if (layout_parse_size(arg, &eb, why, sizeof(why)) < 0 || eb < 512 || eb % 512)
		return cli_usage_error("inspect", "--erase-block: %s",
				       eb % 512 || eb < 512 ? "a multiple of 512 bytes, please"
							    : why);
	r->erase_block = eb;
	return EXIT_OK;
}

int cmd_inspect(int argc, char **argv)
{
	static const struct option options[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "erase-block", required_argument, NULL, OPT_ERASE },
		{ "uboot-env", required_argument, NULL, OPT_ENV },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct cli_command inspect = {
		.name = "inspect",
		.options = options,
		.usage = inspect_usage,
		.take = take_inspect_option,
		.n_args = 1,
		.no_args = "no image or device given",
		.other_args = "one image or device, please",
	};
	struct inspect_request r = { .erase_block = 4u << 20 };
	int first, status = cli_parse(&inspect, argc, argv, &r, &first);

	if (status != CLI_GO)
		return status;
	if (r.json && r.env_set)
		return cli_usage_error("inspect",
				       "--uboot-env is a text report: leave out --json, or use "
				       "`sdimg cat IMAGE --uboot-env ...` for the variables");
	return run_inspect(argv[first], r.json, r.erase_block, r.env_set ? &r.env : NULL);
}
