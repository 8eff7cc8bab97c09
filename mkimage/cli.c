/* SPDX-License-Identifier: MIT */
/* cli: helpers every subcommand shares (see mkimage.h). */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"
#include "mkimage/cli.h"
#include "mkimage/builder/builder.h"

int cli_usage_error(const char *command, const char *fmt, ...)
{
	/* the message quotes the command line's words, which may hold any byte */
	char msg[2048], shown[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s\nTry '%s%s%s --help'.\n", SDIMG_PROG,
		utf8_shown(msg, shown, sizeof(shown)), SDIMG_PROG, command ? " " : "",
		command ? command : "");
	return EXIT_USAGE;
}

/* Whether @name's first @len bytes name a layout's variable, as a layout writes ${NAME}. */
static bool is_var_name(const char *name, size_t len)
{
	return len && !isdigit((unsigned char)name[0]) &&
	       strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") >=
		       len;
}

int cli_layout_args_set(struct cli_layout_args *a, const char *command, const char *assignment)
{
	const char *eq = strchr(assignment, '=');
	struct layout_var *v;

	size_t len = eq ? (size_t)(eq - assignment) : 0;

	if (!eq || eq == assignment)
		return cli_usage_error(command, "--set wants VAR=VALUE, not '%s'", assignment);
	if (!is_var_name(assignment, len))
		return cli_usage_error(command,
				       "--set '%.*s' is not a variable name (letters, "
				       "digits, _, not starting with a digit)",
				       (int)len, assignment);
	for (size_t i = 0; i < a->n_vars; i++)
		if (strlen(a->vars[i].name) == len &&
		    strncmp(a->vars[i].name, assignment, len) == 0)
			return cli_usage_error(command, "--set '%.*s' given twice", (int)len,
					       assignment);
	v = realloc(a->vars, (a->n_vars + 1) * sizeof(*v));
	if (!v) {
		fprintf(stderr, "%s: out of memory\n", SDIMG_PROG);
		return EXIT_FAILED;
	}
	a->vars = v;
	/* the name is the part before '=': keep a copy that ends there */
	char *name = strndup(assignment, (size_t)(eq - assignment));
	if (!name) {
		fprintf(stderr, "%s: out of memory\n", SDIMG_PROG);
		return EXIT_FAILED;
	}
	a->vars[a->n_vars++] = (struct layout_var){ .name = name, .value = eq + 1 };
	return EXIT_OK;
}

int cli_layout_args_input(struct cli_layout_args *a, const char *command, const char *dir)
{
	const char **dirs;

	if (!*dir)
		return cli_usage_error(command, "-I wants a folder, not ''");
	dirs = realloc(a->input_dirs, (a->n_input_dirs + 1) * sizeof(*dirs));
	if (!dirs) {
		fprintf(stderr, "%s: out of memory\n", SDIMG_PROG);
		return EXIT_FAILED;
	}
	a->input_dirs = dirs;
	a->input_dirs[a->n_input_dirs++] = dir;
	return EXIT_OK;
}

void cli_layout_args_release(struct cli_layout_args *a)
{
	for (size_t i = 0; i < a->n_vars; i++)
		free((char *)a->vars[i].name);
	free(a->vars);
	a->vars = NULL;
	a->n_vars = 0;
	free(a->input_dirs);
	a->input_dirs = NULL;
	a->n_input_dirs = 0;
}

int cli_layout_args_load(const struct cli_layout_args *a, const char *path, struct diag *d,
			 struct layout **ret_layout)
{
	struct layout_options opts = {
		.input_dirs = a->input_dirs,
		.n_input_dirs = a->n_input_dirs,
		.vars = a->vars,
		.n_vars = a->n_vars,
		.use_environment = true,
		.source_date_epoch = getenv("SOURCE_DATE_EPOCH"),
	};

	int rc = layout_load(path, &opts, d, ret_layout);

	if (rc == 0 && (rc = build_fill_ids(*ret_layout, d)) < 0) {
		layout_free(*ret_layout);
		*ret_layout = NULL;
	}
	return rc;
}
