/* SPDX-License-Identifier: MIT */
/*
 * mkimage: the sdimg commands over layouts/ and fat/. main.c parses the command line and
 * dispatches to one cmd_* function per subcommand; each returns the process exit status
 * (0 success, 1 the work failed, 2 bad usage) and prints its own messages once. Every one
 * reads its options through cli_parse() (options.c): one table, one way to refuse.
 */
#ifndef SDIMG_MKIMAGE_H
#define SDIMG_MKIMAGE_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "layouts/layouts.h"

#define SDIMG_PROG "sdimg"

enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2 };

/* `sdimg plan LAYOUT [--json] [-I DIR]... [--set VAR=VALUE]...` */
int cmd_plan(int argc, char **argv);

/* `sdimg build LAYOUT [-o IMAGE] [-I DIR]... [--set VAR=VALUE]... [-q|-v]` */
int cmd_build(int argc, char **argv);

/* `sdimg flash IMAGE TARGET [TARGET...] [--bmap FILE] [--no-verify] [--gaps keep|discard|zero]
 * [--allow-fixed] [--json|--report FILE] [--timeout SECONDS] [--dry-run]
 * [--card-values FILE.csv|NAME=PATTERN]... [--first-index N] [-q|-v]` */
int cmd_flash(int argc, char **argv);

/* `sdimg personalize IMAGE --set NAME=VALUE... -o OUT [--cards FILE]` */
int cmd_personalize(int argc, char **argv);

/* `sdimg inspect IMAGE|DEVICE [--json] [--erase-block SIZE]` */
int cmd_inspect(int argc, char **argv);

/* `sdimg import FILE [-o LAYOUT] [--image NAME] [-I DIR]... [--set VAR=VALUE]...` */
int cmd_import(int argc, char **argv);

/* `sdimg ls IMAGE[:PART][/PATH] [-l] [-R]` and `sdimg cat IMAGE:PART/PATH` */
int cmd_ls(int argc, char **argv);
int cmd_cat(int argc, char **argv);

/*
 * What `ls` (or `cat`, with @cat) does for the address @arg (IMAGE[:PART][/PATH]): the
 * listing or the file's bytes go to @out, the messages to @err. Returns the exit status.
 * (The ls fuzz target calls it with its own streams.)
 */
int cli_ls_run(const char *arg, bool cat, bool longer, bool recursive, FILE *out, FILE *err);

/* ---- options.c: the one option parser of every command */

/*
 * What a command (or sdimg itself, before the command's name) accepts: its getopt_long(3)
 * table, where an entry whose val is a letter has that letter as its short option (the
 * others take vals from 256 on) and { "help", no_argument, NULL, 'h' } is -h, --help; its
 * --help text; and what it does with each option. Options may follow the arguments unless
 * @options_first; "--" ends them.
 */
struct cli_command {
	const char *name;             /* "build"; NULL for sdimg's own options */
	const struct option *options; /* ends with a zeroed entry */
	void (*usage)(FILE *out);     /* the --help text, onto @out */
	/* One option (@key its val, @arg its argument or NULL): EXIT_OK, or the status the
	 * command ends with, its message said (cli_usage_error() for a bad argument). */
	int (*take)(void *ctx, int key, char *arg);
	bool options_first;
	/* The keys of the options whose value names a file, folder or device, and of those that
	 * turn a safety check off; each list ends with 0 (NULL: none). A name given as the next
	 * word may not start with '-' (it is written --opt=-NAME), so that a forgotten value
	 * does not swallow the next option; a safety override is taken only in full. */
	const int *names, *spelled_out;
	/* How many arguments the command takes (0: it counts them itself), and what it says
	 * when none is given (NULL: @other_args) and when another number is. */
	int n_args;
	const char *no_args, *other_args;
};

/* cli_parse()'s answer when the command goes on with its arguments. */
#define CLI_GO (-1)
/* cmd->take's answer when the command is done, successfully, with what it printed
 * (sdimg --version): the options after it are not read. */
#define CLI_DONE (-2)

/*
 * Reads the options of @argv (argv[0] is the command's name) for @cmd, handing each to
 * cmd->take with @ctx, and puts the arguments, in their order, at the end of @argv.
 * Returns CLI_GO with the first argument's index in *@ret_first, or the status the command
 * ends with: EXIT_OK after --help (printed on stdout; EXIT_FAILED when stdout did not take
 * it), EXIT_USAGE after one line on stderr and the --help hint (an unknown option, a
 * missing argument, the wrong number of arguments), or what cmd->take returned.
 */
int cli_parse(const struct cli_command *cmd, int argc, char **argv, void *ctx, int *ret_first);

/* After --help, --version or a command that ended well: EXIT_OK when the standard output
 * took all that was printed on it (flushed), else EXIT_FAILED with one line on stderr. */
int cli_stdout_written(void);

/* Prints "sdimg: MSG" and the --help hint on stderr, MSG on one line (a control character
 * or a byte that is no UTF-8 shown escaped, see utf8_shown()); returns EXIT_USAGE. */
int cli_usage_error(const char *command, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The options every layout-reading command shares: -I DIR (repeatable) and --set VAR=VALUE.
 * cli_layout_args_set() takes one --set argument, cli_layout_args_input() one -I; the
 * strings are borrowed from argv.
 */
struct cli_layout_args {
	struct layout_var *vars; /* owned array */
	size_t n_vars;
	const char **input_dirs; /* owned array of borrowed strings, in the order given */
	size_t n_input_dirs;
};

int cli_layout_args_set(struct cli_layout_args *a, const char *command, const char *assignment);
int cli_layout_args_input(struct cli_layout_args *a, const char *command, const char *dir);
void cli_layout_args_release(struct cli_layout_args *a);
/* Loads the layout with these arguments, the environment and $SOURCE_DATE_EPOCH. */
int cli_layout_args_load(const struct cli_layout_args *a, const char *path, struct diag *d,
			 struct layout **ret_layout);

#endif
