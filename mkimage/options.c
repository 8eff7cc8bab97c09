/* SPDX-License-Identifier: MIT */
/*
 * options: the one option parser of every sdimg command (see cli.h), over getopt_long(3).
 * getopt_long's own messages are off (opterr = 0): each refusal is one line of ours, said
 * through cli_usage_error(), with the --help hint and exit status 2.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"
#include "mkimage/cli.h"

/* '-' or '+' and ':' in front, each letter once with its "::", the NUL. */
#define SHORTS_MAX (2 + 52 * 3 + 1)

static bool is_letter(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/*
 * The short options of @c, from its table: an entry whose val is a letter has it as its
 * short form. The leading ':' makes getopt_long tell a missing argument (':') from an
 * unknown option ('?'). A leading '+' stops at the first argument (sdimg's own options come
 * before the command name); a leading '-' hands each argument over in its place (as key 1),
 * so that the options may follow the arguments whatever POSIXLY_CORRECT says (glibc
 * otherwise stops at the first argument when it is set).
 */
static void short_options(const struct cli_command *c, char out[SHORTS_MAX])
{
	size_t n = 0;

	out[n++] = c->options_first ? '+' : '-';
	out[n++] = ':';
	out[n] = '\0';
	for (const struct option *o = c->options; o->name; o++) {
		if (!is_letter(o->val) || strchr(out + 2, o->val))
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
static const struct option *option_named(const struct option *options, const char *name, size_t len)
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
 * The short option @c refused in @word ("-lé": getopt_long hands over one byte, optopt):
 * "-" and the whole character it starts, which cli_usage_error() shows escaped when it is
 * no UTF-8, into @buf.
 */
static const char *short_named(const char *word, int c, char buf[8])
{
	const char *at = word && word[0] == '-' && word[1] != '-' ? strchr(word + 1, c) : NULL;
	size_t len = 1;

	if (at && (unsigned char)c >= 0xC0)
		while (len < 4 && ((unsigned char)at[len] & 0xC0) == 0x80)
			len++;
	buf[0] = '-';
	if (at)
		memcpy(buf + 1, at, len);
	else
		buf[1] = (char)c;
	buf[1 + len] = '\0';
	return buf;
}

/*
 * The usage error getopt_long() just reported with @c ('?' or ':'). A long option's element
 * is argv[optind - 1] (getopt_long has stepped past it); a short one's letter is optopt,
 * whose element may still be the current one ("-lx": x is refused before optind moves).
 * An error about a long option leaves optopt 0 (unknown, ambiguous) or its val.
 */
static int option_error(const struct cli_command *cmd, int c, int argc, char **argv)
{
	const char *word = optind > 0 ? argv[optind - 1] : NULL;
	bool long_word = word && strncmp(word, "--", 2) == 0 && word[2];
	const char *name = long_word ? word + 2 : "";
	size_t len = strcspn(name, "=");
	const struct option *o = long_word ? option_named(cmd->options, name, len) : NULL;
	char shown[8];

	if (long_word && len == 0) /* "--=x": an empty name abbreviates nothing */
		return cli_usage_error(cmd->name, "unknown option '%s'", word);
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
	/* "-lx": the group is still the current element unless x was its last letter */
	if (optind < argc && (!word || !strchr(word, optopt)))
		word = argv[optind];
	return cli_usage_error(cmd->name, "unknown option '%s'", short_named(word, optopt, shown));
}

static bool listed(const int *keys, int key)
{
	for (; keys && *keys; keys++)
		if (*keys == key)
			return true;
	return false;
}

/*
 * What is wrong with the option getopt_long() just returned, @key with @arg, when it is
 * written in a way the table does not take: a safety override shortened ("--a" for
 * --allow-fixed), an empty long name ("--=x" when the command has one option), a file name
 * that starts with '-' given as the next word (a forgotten value would swallow the next
 * option: "--report --dry-run"). @o is the long option's entry, NULL for a short one.
 * Returns EXIT_OK or the usage error said.
 */
static int option_written(const struct cli_command *cmd, const struct option *o, int key,
			  const char *arg, char **argv)
{
	bool separate = arg && arg == argv[optind - 1];
	/* a long option's word, or a short one's that took the next word: no other is known */
	const char *word = o || separate ? argv[optind - (separate ? 2 : 1)] : NULL;
	size_t len = o ? strcspn(word + 2, "=") : 0;

	if (o && len == 0)
		return cli_usage_error(cmd->name, "unknown option '%s'", word);
	if (o && listed(cmd->spelled_out, key) && len != strlen(o->name))
		return cli_usage_error(cmd->name,
				       "option '--%.*s': write '--%s' in full (it turns "
				       "a safety check off)",
				       (int)len, word + 2, o->name);
	if (separate && arg[0] == '-' && listed(cmd->names, key)) {
		for (o = cmd->options; o->val != key; o++)
			;
		return cli_usage_error(cmd->name,
				       "option '%s' needs a name, not '%s' (a name that "
				       "starts with '-' is written --%s=%s)",
				       word, arg, o->name, arg);
	}
	return EXIT_OK;
}

int cli_stdout_written(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return EXIT_OK;
	fprintf(stderr, "%s: cannot write the standard output: %s\n", SDIMG_PROG,
		strerror(errno ? errno : EIO));
	return EXIT_FAILED;
}

/*
 * Reads the options of @argv into @cmd's take, each argument met taken out of its place
 * (set to NULL) and kept in @args, *@n_args of them. Returns EXIT_OK with optind at the
 * words after "--" (or argc), CLI_DONE, or the status the command ends with.
 */
static int read_options(const struct cli_command *cmd, int argc, char **argv, void *ctx,
			char **args, int *n_args)
{
	char shorts[SHORTS_MAX];
	int c, i, status = EXIT_OK;

	short_options(cmd, shorts);
	opterr = 0;
	optind = 0; /* a fresh scan, whatever an earlier command line left (glibc, musl) */
	while (status == EXIT_OK &&
	       (i = -1, c = getopt_long(argc, argv, shorts, cmd->options, &i)) != -1) {
		if (c == 1) { /* an argument, in its place */
			args[(*n_args)++] = argv[optind - 1];
			argv[optind - 1] = NULL;
			continue;
		}
		if (c == '?' || c == ':')
			return option_error(cmd, c, argc, argv);
		status = option_written(cmd, i >= 0 ? &cmd->options[i] : NULL, c, optarg, argv);
		if (status != EXIT_OK)
			return status;
		if (c == 'h') {
			errno = 0;
			cmd->usage(stdout);
			status = cli_stdout_written();
			return status == EXIT_OK ? CLI_DONE : status;
		}
		status = cmd->take(ctx, c, optarg);
	}
	return status;
}

int cli_parse(const struct cli_command *cmd, int argc, char **argv, void *ctx, int *ret_first)
{
	char **args = calloc((size_t)argc + 1, sizeof(*args));
	int n = 0, status, end, kept = 1;

	if (!args) {
		fprintf(stderr, "%s: out of memory\n", SDIMG_PROG);
		return EXIT_FAILED;
	}
	status = read_options(cmd, argc, argv, ctx, args, &n);
	/* the arguments after "--" (after the first one with options_first) follow the others */
	end = optind > 0 ? optind : 1;
	for (int i = end; i < argc; i++)
		args[n++] = argv[i];
	/* argv again, the options in their order, then the arguments in theirs */
	for (int i = 1; i < end && i < argc; i++)
		if (argv[i])
			argv[kept++] = argv[i];
	memcpy(argv + kept, args, (size_t)n * sizeof(*args));
	free(args);
	if (status != EXIT_OK)
		return status == CLI_DONE ? EXIT_OK : status;
	*ret_first = kept;
	if (cmd->n_args && n == 0 && cmd->no_args)
		return cli_usage_error(cmd->name, "%s", cmd->no_args);
	if (cmd->n_args && n != cmd->n_args)
		return cli_usage_error(cmd->name, "%s", cmd->other_args);
	return CLI_GO;
}
