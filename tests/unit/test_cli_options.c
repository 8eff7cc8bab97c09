/* SPDX-License-Identifier: MIT */
/* Unit tests of mkimage/options.c: cli_parse(), the option parser of every command. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "mkimage/cli.h"

enum { OPT_JSON = 256, OPT_SET, OPT_BMAP, OPT_SHA256 };

static const struct option options[] = {
	{ "long", no_argument, NULL, 'l' },
	{ "output", required_argument, NULL, 'o' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "set", required_argument, NULL, OPT_SET },
	{ "bmap", optional_argument, NULL, OPT_BMAP },
	{ "sha256", optional_argument, NULL, OPT_SHA256 },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* What the options handed to take(): "key=arg" lines, in order. */
struct taken {
	char text[512];
};

static void usage(FILE *out)
{
	fputs("Usage: sdimg t ARG\n", out);
}

static int take(void *ctx, int key, char *arg)
{
	struct taken *t = ctx;
	size_t n = strlen(t->text);

	if (key == OPT_SET && arg && strcmp(arg, "bad") == 0)
		return EXIT_FAILED; /* as a take that said why itself */
	if (key == OPT_SET && arg && strcmp(arg, "done") == 0)
		return CLI_DONE; /* as --version */
	snprintf(t->text + n, sizeof(t->text) - n, "%d=%s;", key, arg ? arg : "-");
	return EXIT_OK;
}

static const struct cli_command command = {
	.name = "t",
	.options = options,
	.usage = usage,
	.take = take,
};

static const struct cli_command one_arg = {
	.name = "t",
	.options = options,
	.usage = usage,
	.take = take,
	.n_args = 1,
	.no_args = "no ARG given",
	.other_args = "one ARG, please",
};

/* -o names a file; --json stands for a safety override */
static const int names[] = { 'o', 0 }, overrides[] = { OPT_JSON, 0 };
static const struct cli_command guarded = {
	.name = "t",
	.options = options,
	.usage = usage,
	.take = take,
	.names = names,
	.spelled_out = overrides,
};

/* The result of one cli_parse() of a command line, with what it printed. */
struct run {
	int status, first;
	struct taken taken;
	char err[512], out[512];
	char *argv[16];
};

/* Reads what was written to the file @fd at its start, into @buf. */
static void slurp(int fd, char *buf, size_t size)
{
	ssize_t n = pread(fd, buf, size - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
}

/*
 * cli_parse() of @cmd on r->argv (@argc words), its stderr captured and its stdout too, or
 * sent to @out when it is not -1.
 */
static void parse_argv(struct run *r, const struct cli_command *cmd, int argc, int out)
{
	char err_name[] = "err.XXXXXX", out_name[] = "out.XXXXXX"; /* in the test's folder */
	int err = mkstemp(err_name), captured = out < 0 ? mkstemp(out_name) : out;
	int saved_err = dup(2), saved_out = dup(1);

	assert_true(err >= 0 && captured >= 0 && saved_err >= 0 && saved_out >= 0);
	fflush(stdout);
	fflush(stderr);
	dup2(err, 2);
	dup2(captured, 1);
	r->status = cli_parse(cmd, argc, r->argv, &r->taken, &r->first);
	fflush(stdout);
	fflush(stderr);
	clearerr(stdout);
	dup2(saved_err, 2);
	dup2(saved_out, 1);
	slurp(err, r->err, sizeof(r->err));
	if (out < 0)
		slurp(captured, r->out, sizeof(r->out));
	close(saved_err);
	close(saved_out);
	close(err);
	unlink(err_name);
	if (out < 0) {
		close(captured);
		unlink(out_name);
	}
}

/* cli_parse() of @cmd on "t ARGS..." (NULL-terminated), stdout and stderr captured. */
static void parse(struct run *r, const struct cli_command *cmd, ...)
{
	int argc = 0;
	va_list ap;

	memset(r, 0, sizeof(*r));
	r->first = -1;
	r->argv[argc++] = "t";
	va_start(ap, cmd);
	for (char *a; (a = va_arg(ap, char *));)
		r->argv[argc++] = a;
	va_end(ap);
	parse_argv(r, cmd, argc, -1);
}

/* The usage error @msg, once, with the hint. */
static void assert_refused(const struct run *r, const char *msg)
{
	char want[256];

	snprintf(want, sizeof(want), "sdimg: %s\nTry 'sdimg t --help'.\n", msg);
	assert_int_equal(r->status, EXIT_USAGE);
	assert_string_equal(r->err, want);
	assert_string_equal(r->out, "");
}

static void test_options_before_and_after_arguments(void **state)
{
	struct run r;

	(void)state;
	parse(&r, &command, "-l", "a.img", "--json", "-oX", "--set=A=1", "--set", "B=2", "-o", "Y",
	      "--output=Z", "b.img", NULL);
	assert_int_equal(r.status, CLI_GO);
	assert_string_equal(r.taken.text, "108=-;256=-;111=X;257=A=1;257=B=2;111=Y;111=Z;");
	/* the arguments are gathered after the options, in their order */
	assert_int_equal(r.first, 10);
	assert_string_equal(r.argv[10], "a.img");
	assert_string_equal(r.argv[11], "b.img");
	assert_string_equal(r.err, "");
}

static void test_optional_argument_and_abbreviation(void **state)
{
	struct run r;

	(void)state;
	parse(&r, &command, "--bmap", "x", "--bmap=F", "--sh=G", "--js", "--lo", NULL);
	assert_int_equal(r.status, CLI_GO);
	/* an optional argument is only ever --opt=VALUE: "x" stays an argument */
	assert_string_equal(r.taken.text, "258=-;258=F;259=G;256=-;108=-;");
	assert_string_equal(r.argv[r.first], "x");
}

static void test_double_dash_ends_options(void **state)
{
	struct run r;

	(void)state;
	parse(&r, &command, "-l", "--", "-o", "--json", NULL);
	assert_int_equal(r.status, CLI_GO);
	assert_string_equal(r.taken.text, "108=-;");
	assert_int_equal(r.first, 3);
	assert_string_equal(r.argv[3], "-o");
	assert_string_equal(r.argv[4], "--json");
}

static void test_unknown_options(void **state)
{
	struct run r;

	(void)state;
	parse(&r, &command, "--colour", "a", NULL);
	assert_refused(&r, "unknown option '--colour'");
	parse(&r, &command, "a", "--colour=red", NULL);
	assert_refused(&r, "unknown option '--colour'");
	parse(&r, &command, "-Z", NULL);
	assert_refused(&r, "unknown option '-Z'");
	/* in a group, the letter alone, whatever came before it */
	parse(&r, &command, "-lZ", NULL);
	assert_refused(&r, "unknown option '-Z'");
	parse(&r, &command, "--json", "-Zl", NULL);
	assert_refused(&r, "unknown option '-Z'");
	parse(&r, &command, "--long", "-Zl", NULL);
	assert_refused(&r, "unknown option '-Z'");
	parse(&r, &command, "--s=1", NULL);
	assert_refused(&r, "option '--s' is ambiguous");
	/* nothing after the refusal is taken */
	assert_string_equal(r.taken.text, "");
}

static void test_arguments_of_options(void **state)
{
	struct run r;

	(void)state;
	parse(&r, &command, "a", "-o", NULL);
	assert_refused(&r, "option '-o' needs an argument");
	parse(&r, &command, "a", "-lo", NULL);
	assert_refused(&r, "option '-o' needs an argument");
	parse(&r, &command, "a", "--set", NULL);
	assert_refused(&r, "option '--set' needs an argument");
	parse(&r, &command, "a", "--se", NULL);
	assert_refused(&r, "option '--set' needs an argument");
	parse(&r, &command, "--json=1", NULL);
	assert_refused(&r, "option '--json' takes no argument");
	parse(&r, &command, "--long=1", NULL);
	assert_refused(&r, "option '--long' takes no argument");
	parse(&r, &command, "--lon=1", NULL);
	assert_refused(&r, "option '--long' takes no argument");
}

static void test_help_and_take_status(void **state)
{
	struct run r;

	(void)state;
	parse(&r, &command, "a", "--help", "--colour", NULL);
	assert_int_equal(r.status, EXIT_OK);
	assert_string_equal(r.out, "Usage: sdimg t ARG\n");
	assert_string_equal(r.err, "");
	parse(&r, &command, "-lh", NULL);
	assert_int_equal(r.status, EXIT_OK);
	assert_string_equal(r.out, "Usage: sdimg t ARG\n");
	/* a take that ends the command: its status, nothing more taken or said */
	parse(&r, &command, "--set", "bad", "-l", "--help", NULL);
	assert_int_equal(r.status, EXIT_FAILED);
	assert_string_equal(r.taken.text, "");
	assert_string_equal(r.out, "");
	assert_string_equal(r.err, "");
}

static void test_argument_count(void **state)
{
	struct run r;

	(void)state;
	parse(&r, &one_arg, "-l", NULL);
	assert_refused(&r, "no ARG given");
	parse(&r, &one_arg, "a", "b", NULL);
	assert_refused(&r, "one ARG, please");
	parse(&r, &one_arg, "a", "-l", NULL);
	assert_int_equal(r.status, CLI_GO);
	assert_string_equal(r.argv[r.first], "a");
}

/* glibc's getopt stops at the first argument under POSIXLY_CORRECT, unless told otherwise */
static void test_options_after_arguments_posixly_correct(void **state)
{
	struct run r;

	(void)state;
	setenv("POSIXLY_CORRECT", "1", 1);
	parse(&r, &one_arg, "a", "--json", "-l", NULL);
	unsetenv("POSIXLY_CORRECT");
	assert_int_equal(r.status, CLI_GO);
	assert_string_equal(r.taken.text, "256=-;108=-;");
	assert_int_equal(r.first, 3);
	assert_string_equal(r.argv[3], "a");
}

/* a forgotten value does not swallow the next option; --opt=VALUE says it is meant */
static void test_value_that_looks_like_an_option(void **state)
{
	struct run r;

	(void)state;
	parse(&r, &guarded, "-o", "--json", "a", NULL);
	assert_refused(&r, "option '-o' needs a name, not '--json' (a name that starts with '-' "
			   "is written --output=--json)");
	parse(&r, &guarded, "a", "--output", "-x", NULL);
	assert_refused(&r, "option '--output' needs a name, not '-x' (a name that starts with '-' "
			   "is written --output=-x)");
	parse(&r, &guarded, "--output=--json", "-o-x", "--set", "-A=1", "a", NULL);
	assert_int_equal(r.status, CLI_GO);
	assert_string_equal(r.taken.text, "111=--json;111=-x;257=-A=1;");
}

/* a safety override is taken only in full */
static void test_override_in_full(void **state)
{
	struct run r;

	(void)state;
	parse(&r, &guarded, "--js", "a", NULL);
	assert_refused(&r, "option '--js': write '--json' in full (it turns a safety check off)");
	parse(&r, &guarded, "--json", "--lo", "a", NULL);
	assert_int_equal(r.status, CLI_GO);
	assert_string_equal(r.taken.text, "256=-;108=-;");
}

/* every refusal is one line: the command line's bytes shown escaped; an empty name unknown */
static void test_refusal_one_line(void **state)
{
	struct run r;

	(void)state;
	parse(&r, &command, "--foo\nbar", NULL);
	assert_refused(&r, "unknown option '--foo\\nbar'");
	parse(&r, &command, "--\x1b[31m\xff", NULL);
	assert_refused(&r, "unknown option '--\\x1B[31m\\xFF'");
	parse(&r, &command, "-l\xc3\xa9", NULL);
	assert_refused(&r, "unknown option '-\xc3\xa9'");
	parse(&r, &command, "--=x", NULL);
	assert_refused(&r, "unknown option '--=x'");
	/* with one option, "--=x" is still no abbreviation of it */
	static const struct option help_only[] = { { "help", no_argument, NULL, 'h' },
						   { NULL, 0, NULL, 0 } };
	static const struct cli_command bare = { .name = "t",
						 .options = help_only,
						 .usage = usage,
						 .take = take };
	parse(&r, &bare, "--=x", NULL);
	assert_refused(&r, "unknown option '--=x'");
}

/* the first of --help and a take that ends the command wins; a lost --help is an error */
static void test_first_wins_and_help_written(void **state)
{
	struct run r;
	int full = open("/dev/full", O_WRONLY);

	(void)state;
	parse(&r, &command, "--set", "done", "--help", NULL);
	assert_int_equal(r.status, EXIT_OK);
	assert_string_equal(r.out, "");
	parse(&r, &command, "--help", "--set", "done", NULL);
	assert_int_equal(r.status, EXIT_OK);
	assert_string_equal(r.out, "Usage: sdimg t ARG\n");
	assert_string_equal(r.taken.text, "");
	assert_true(full >= 0);
	parse(&r, &command, NULL);
	r.argv[1] = "--help";
	parse_argv(&r, &command, 2, full);
	assert_int_equal(r.status, EXIT_FAILED);
	assert_string_equal(r.err,
			    "sdimg: cannot write the standard output: No space left on device\n");
	close(full);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_options_before_and_after_arguments),
		cmocka_unit_test(test_optional_argument_and_abbreviation),
		cmocka_unit_test(test_double_dash_ends_options),
		cmocka_unit_test(test_unknown_options),
		cmocka_unit_test(test_arguments_of_options),
		cmocka_unit_test(test_help_and_take_status),
		cmocka_unit_test(test_argument_count),
		cmocka_unit_test(test_options_after_arguments_posixly_correct),
		cmocka_unit_test(test_value_that_looks_like_an_option),
		cmocka_unit_test(test_override_in_full),
		cmocka_unit_test(test_refusal_one_line),
		cmocka_unit_test(test_first_wins_and_help_written),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
