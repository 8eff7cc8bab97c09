/* cli: helpers every subcommand shares (see mkimage.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "mkimage/mkimage.h"

int usage_error(const char *command, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", SDIMG_PROG);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s%s%s --help'.\n", SDIMG_PROG, command ? " " : "",
		command ? command : "");
	return EXIT_USAGE;
}

void human_size(uint64_t bytes, char *buf, size_t n)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	unsigned u = 0;
	uint64_t scale = 1;

	while (u + 1 < sizeof(units) / sizeof(units[0]) && bytes / scale >= 1024) {
		scale *= 1024;
		u++;
	}
	if (bytes % scale == 0)
		snprintf(buf, n, "%llu %s", (unsigned long long)(bytes / scale), units[u]);
	else
		snprintf(buf, n, "%.2f %s", (double)bytes / (double)scale, units[u]);
}

int layout_args_set(struct layout_args *a, const char *command, const char *assignment)
{
	const char *eq = strchr(assignment, '=');
	struct layout_var *v;

	if (!eq || eq == assignment)
		return usage_error(command, "--set wants VAR=VALUE, not '%s'", assignment);
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

void layout_args_release(struct layout_args *a)
{
	for (size_t i = 0; i < a->n_vars; i++)
		free((char *)a->vars[i].name);
	free(a->vars);
	a->vars = NULL;
	a->n_vars = 0;
}

int layout_args_load(const struct layout_args *a, const char *path, struct diag *d,
		     struct layout **ret_layout)
{
	struct layout_options opts = {
		.input_dir = a->input_dir,
		.vars = a->vars,
		.n_vars = a->n_vars,
		.use_environment = true,
		.source_date_epoch = getenv("SOURCE_DATE_EPOCH"),
	};

	return layout_load(path, &opts, d, ret_layout);
}
