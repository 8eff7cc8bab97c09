/*
 * options: the one option parser of every sdimg command (see cli.h), over getopt_long(3).
 * getopt_long's own messages are off (opterr = 0): each refusal is one line of ours, said
 * through cli_usage_error(), with the --help hint and exit status 2.
 */
#include <getopt.h>
#include <string.h>

#include "mkimage/cli.h"

/* '+' and ':' in front, each letter once with its "::", the NUL. */
#define SHORTS_MAX (2 + 52 * 3 + 1)

static bool is_letter(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/*
 * The short options of @c, from its table: an entry whose val is a letter has it as its
 * short form. The leading ':' makes getopt_long tell a missing argument (':') from an
 * unknown option ('?'); a leading '+' stops at the first argument (sdimg's own options come
 * before the command name); without it the options may follow the arguments.
 */
static void short_options(const struct cli_command *c, char out[SHORTS_MAX])
{
	size_t n = 0;

	if (c->options_first)
		out[n++] = '+';
	out[n++] = ':';
	out[n] = '\0';
	for (const struct option *o = c->options; o->name; o++) {
		if (!is_letter(o->val) || strchr(out, o->val))
			continue;
		out[n++] = (char)o->val;
		if (o->has_arg != no_argument)
			out[n++] = ':';
		if (o->has_arg == optional_argument)
			out[n++] = ':';
		out[n] = '\0';
	}
}

/* The table entry @len bytes of @name name: exactly, or as the start of no other. */
static const struct option *option_named(const struct option *options, const char *name,
					 size_t len)
{
	const struct option *found = NULL;
	size_t n = 0;

	for (const struct option *o = options; o->name; o++) {
		if (strncmp(o->name, name, len) != 0)
			continue;
		if (strlen(o->name) == len)
			return o;
		found = o;
		n++;
	}
	return n == 1 ? found : NULL;
}

/* How many table entries start with @len bytes of @name. */
static size_t options_starting(const struct option *options, const char *name, size_t len)
{
	size_t n = 0;

	for (const struct option *o = options; o->name; o++)
		n += strncmp(o->name, name, len) == 0;
	return n;
}

/*
 * The usage error getopt_long() just reported with @c ('?' or ':'). A long option's element
 * is argv[optind - 1] (getopt_long has stepped past it); a short one's letter is optopt,
 * whose element may still be the current one ("-lx": x is refused before optind moves).
 * An error about a long option leaves optopt 0 (unknown, ambiguous) or its val.
 */
static int option_error(const struct cli_command *cmd, int c, char **argv)
{
	const char *word = optind > 0 ? argv[optind - 1] : NULL;
	bool long_word = word && strncmp(word, "--", 2) == 0 && word[2];
	const char *name = long_word ? word + 2 : "";
	size_t len = strcspn(name, "=");
	const struct option *o = long_word ? option_named(cmd->options, name, len) : NULL;

	if (long_word && (optopt == 0 || (o && o->val == optopt))) {
		if (c == ':')
			return cli_usage_error(cmd->name, "option '--%s' needs an argument",
					       o ? o->name : name);
		if (o)
			return cli_usage_error(cmd->name, "option '--%s' takes no argument",
					       o->name);
		if (options_starting(cmd->options, name, len) > 1)
			return cli_usage_error(cmd->name, "option '--%.*s' is ambiguous", (int)len,
					       name);
		return cli_usage_error(cmd->name, "unknown option '--%.*s'", (int)len, name);
	}
	if (c == ':')
		return cli_usage_error(cmd->name, "option '-%c' needs an argument", optopt);
	return cli_usage_error(cmd->name, "unknown option '-%c'", optopt);
}

int cli_parse(const struct cli_command *cmd, int argc, char **argv, void *ctx, int *ret_first)
{
	char shorts[SHORTS_MAX];
	int c, status = EXIT_OK;

	short_options(cmd, shorts);
	opterr = 0;
	optind = 0; /* a fresh scan, whatever an earlier command line left (glibc, musl) */
	while (status == EXIT_OK && (c = getopt_long(argc, argv, shorts, cmd->options, NULL)) != -1) {
		if (c == '?' || c == ':')
			return option_error(cmd, c, argv);
		if (c == 'h') {
			cmd->usage(stdout);
			return EXIT_OK;
		}
		status = cmd->take(ctx, c, optarg);
	}
	if (status != EXIT_OK)
		return status;
	*ret_first = optind;
	if (cmd->n_args && optind == argc && cmd->no_args)
		return cli_usage_error(cmd->name, "%s", cmd->no_args);
	if (cmd->n_args && argc - optind != cmd->n_args)
		return cli_usage_error(cmd->name, "%s", cmd->other_args);
	return CLI_GO;
}
