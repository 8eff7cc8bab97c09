/* SPDX-License-Identifier: MIT */
/* sdimg: command-line entry point; dispatches to the subcommands of mkimage/. */
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "mkimage/cli.h"

#ifndef SDIMG_VERSION
#define SDIMG_VERSION "unknown"
#endif
/* the commit the sources come from (git describe), empty when unknown */
#ifndef SDIMG_GIT_DESCRIBE
#define SDIMG_GIT_DESCRIBE ""
#endif

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "build", cmd_build, "write the image a layout describes" },
	{ "flash", cmd_flash, "write an image onto cards at once, each read back" },
	{ "import", cmd_import,
	  "translate a genimage configuration or a wic kickstart into a layout" },
	{ "inspect", cmd_inspect, "read an image or card: table, file systems, SD alignment" },
	{ "ls", cmd_ls, "list a folder of a FAT, exFAT or ext4 partition" },
	{ "cat", cmd_cat, "print a file of a FAT, exFAT or ext4 partition" },
	{ "personalize", cmd_personalize, "copy an image with one card's per-card values" },
	{ "plan", cmd_plan, "print the resolved geometry of a layout; writes nothing" },
};

static void print_usage(FILE *out)
{
	fprintf(out,
		"Usage: %s COMMAND [OPTIONS] ...\n\n"
		"Builds the disk image of an SD card from a layout file, and writes it onto "
		"cards.\n\nCommands:\n",
		SDIMG_PROG);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].summary);
	fprintf(out,
		"\nOptions:\n"
		"  -h, --help     show this help ('%s COMMAND --help' for a command's)\n"
		"  -V, --version  show the version\n\n"
		"Exit status: 0 success, 1 the work failed, 2 bad usage.\n",
		SDIMG_PROG);
}

/* sdimg's own options, before the command's name: -V (-h is cli_parse()'s); the first wins. */
static int take_option(void *ctx, int key, char *arg)
{
	int status;

	(void)ctx;
	(void)key;
	(void)arg;
	errno = 0;
	if (SDIMG_GIT_DESCRIBE[0] != '\0')
		printf("%s %s (git %s)\n", SDIMG_PROG, SDIMG_VERSION, SDIMG_GIT_DESCRIBE);
	else
		printf("%s %s\n", SDIMG_PROG, SDIMG_VERSION);
	status = cli_stdout_written();
	return status == EXIT_OK ? CLI_DONE : status;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct cli_command sdimg = {
		.options = options,
		.usage = print_usage,
		.take = take_option,
		.options_first = true,
	};
	int first, status;

	/* past a file size limit (ulimit -f), write() must fail with EFBIG, not kill us */
	signal(SIGXFSZ, SIG_IGN);
	/*
	 * libarchive converts entry names to the locale's character set; in the "C" locale the
	 * UTF-8 names of zip and 7z archives fail to convert (and come back empty). FAT names
	 * are UTF-8 throughout sdimg, and nothing else here depends on LC_CTYPE.
	 */
	if (!setlocale(LC_CTYPE, "C.UTF-8"))
		setlocale(LC_CTYPE, "");
	if ((status = cli_parse(&sdimg, argc, argv, NULL, &first)) != CLI_GO)
		return status;
	if (first == argc)
		return cli_usage_error(NULL, "no command given");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[first], commands[i].name) == 0) {
			/* what a command printed is flushed at exit: a standard output that
			 * cannot take it (a full disk, /dev/full) fails the command, with the
			 * errno of the write that failed where nothing failed after it */
			errno = 0;
			status = commands[i].run(argc - first, argv + first);
			return status == EXIT_OK ? cli_stdout_written() : status;
		}
	return cli_usage_error(NULL, "unknown command '%s'", argv[first]);
}
