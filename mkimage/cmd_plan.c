/* SPDX-License-Identifier: MIT */
/* cmd_plan: `sdimg plan LAYOUT [--json]`, the resolved geometry as a table or JSON. */
#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "common/utf8.h"
#include "mkimage/builder/builder.h"
#include "mkimage/cli.h"
#include "plan/plan.h"

static void plan_usage(FILE *out)
{
	fprintf(out,
		"Usage: %s plan LAYOUT [--json] [-I DIR]... [--set VAR=VALUE]...\n\n"
		"Prints every byte range the layout resolves to, in disk order: partition-table\n"
		"structures, raw regions and partitions, with the alignment each start satisfies:\n"
		"where `sdimg build` puts them. The sizes of 'from' files are read (a raw region\n"
		"without size, a raw partition with size = auto); FAT and exFAT sizes that wait "
		"for\n"
		"the contents (size = auto) are shown as pending, and so is a size whose 'from' "
		"file\n"
		"does not exist yet (with a warning), and whatever depends on them.\n\n"
		"  --json             print a JSON document instead of a table\n"
		"  -I, --input DIR    an input folder, as for build: repeatable, searched in\n"
		"                     order for includes (after the including file's folder)\n"
		"  --set VAR=VALUE    define ${VAR} for the layout (wins over the environment)\n"
		"  -h, --help         show this help\n",
		SDIMG_PROG);
}

static const char *region_type(const struct plan_region *r)
{
	if (r->kind == PLAN_PARTITION)
		return layout_part_type_name(r->part->type);
	return "-";
}

/* What a pending region waits for: its `from` file ("input"), or the contents ("auto"). */
static const char *pending_reason(const struct plan_region *r)
{
	bool from_file = r->kind == PLAN_RAW || (r->kind == PLAN_PARTITION &&
						 r->part->type == LAYOUT_PART_RAW && r->part->from);
	return r->size_pending && from_file ? "input" : "auto";
}

static void format_align(uint64_t offset, char *buf, size_t n)
{
	uint64_t a = plan_alignment_of(offset);

	if (a == 0)
		snprintf(buf, n, "any");
	else
		units_human(a, buf, n);
}

static void print_region(const struct plan_region *r)
{
	char start[24] = "pending", end[24] = "pending", size[64] = "auto (pending)";
	char human[32], align[32] = "-", number[16] = "-";

	if (!r->start_pending) {
		snprintf(start, sizeof(start), "%llu", (unsigned long long)r->start);
		format_align(r->start, align, sizeof(align));
	}
	if (!r->start_pending && !r->size_pending)
		snprintf(end, sizeof(end), "%llu", (unsigned long long)(r->start + r->size - 1));
	if (!r->size_pending) {
		units_human(r->size, human, sizeof(human));
		snprintf(size, sizeof(size), "%llu (%s)", (unsigned long long)r->size, human);
	} else {
		snprintf(size, sizeof(size), "%s (pending)", pending_reason(r));
	}
	if (r->number)
		snprintf(number, sizeof(number), "%u%s", r->number, r->logical ? "L" : "");
	printf("%-16s %-11s %4s %12s %12s  %-24s %-9s %s\n", r->name, plan_kind_name(r->kind),
	       number, start, end, size, align, region_type(r));
}

static void print_table(const struct layout *l, const struct plan *p)
{
	char size[48], align[32];

	units_human(p->align, align, sizeof(align));
	if (p->image_size_pending)
		snprintf(size, sizeof(size), "pending (follows a size not known yet)");
	else
		units_human(p->image_size, size, sizeof(size));
	printf("image %s: table %s, size %s", l->path,
	       p->hybrid ? "hybrid" : layout_table_name(p->table), size);
	if (!p->image_size_pending)
		printf(" (%llu bytes)", (unsigned long long)p->image_size);
	printf(", align %s\n\n", align);
	printf("%-16s %-11s %4s %12s %12s  %-24s %-9s %s\n", "NAME", "KIND", "NO", "START", "END",
	       "SIZE", "ALIGNED", "TYPE");
	for (size_t i = 0; i < p->n_regions; i++)
		print_region(&p->regions[i]);
	if (p->has_extended && p->extended_size)
		printf("\nlogical partitions (L) live in extended partition %u: bytes %llu-%llu\n",
		       p->extended_number, (unsigned long long)p->extended_start,
		       (unsigned long long)(p->extended_start + p->extended_size - 1));
}

static json_t *json_region(const struct plan_region *r)
{
	json_t *o = json_object();

	json_object_set_new(o, "name", utf8_json_string(r->name));
	json_object_set_new(o, "kind", json_string(plan_kind_name(r->kind)));
	if (r->kind == PLAN_PARTITION || r->kind == PLAN_EBR)
		json_object_set_new(o, "number", r->number ? json_integer(r->number) : json_null());
	json_object_set_new(o, "start",
			    r->start_pending ? json_null() : json_integer((json_int_t)r->start));
	json_object_set_new(o, "size",
			    r->size_pending ? json_null() : json_integer((json_int_t)r->size));
	if (!r->start_pending)
		json_object_set_new(o, "alignment",
				    json_integer((json_int_t)plan_alignment_of(r->start)));
	if (r->start_pending || r->size_pending)
		json_object_set_new(o, "pending", json_string(pending_reason(r)));
	if (r->kind == PLAN_PARTITION) {
		json_object_set_new(o, "type", json_string(layout_part_type_name(r->part->type)));
		json_object_set_new(o, "logical", json_boolean(r->logical));
		json_object_set_new(o, "bootable", json_boolean(r->part->bootable));
	}
	return o;
}

static int print_json(const struct plan *p)
{
	json_t *root = json_object(), *image = json_object(), *regions = json_array();

	json_object_set_new(image, "size",
			    p->image_size_pending ? json_null()
						  : json_integer((json_int_t)p->image_size));
	json_object_set_new(image, "table",
			    json_string(p->hybrid ? "hybrid" : layout_table_name(p->table)));
	json_object_set_new(image, "align", json_integer((json_int_t)p->align));
	if (p->image_size_pending)
		json_object_set_new(image, "pending", json_string("auto"));
	if (p->has_extended && p->extended_size) {
		json_t *ext = json_object();
		json_object_set_new(ext, "number", json_integer(p->extended_number));
		json_object_set_new(ext, "start", json_integer((json_int_t)p->extended_start));
		json_object_set_new(ext, "size", json_integer((json_int_t)p->extended_size));
		json_object_set_new(image, "extended", ext);
	}
	for (size_t i = 0; i < p->n_regions; i++)
		json_array_append_new(regions, json_region(&p->regions[i]));
	json_object_set_new(root, "image", image);
	json_object_set_new(root, "regions", regions);
	int rc = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(root);
	if (rc == 0)
		return EXIT_OK; /* main() tells whether the standard output took it */
	/* jansson fails where a write failed, or where memory ran out */
	if (cli_stdout_written() != EXIT_OK)
		return EXIT_FAILED;
	fprintf(stderr, "%s: the plan as JSON: out of memory\n", SDIMG_PROG);
	return EXIT_FAILED;
}

/* The plan of @l with what it takes from the host; NULL on failure (said in @d). */
static struct plan *plan_with_inputs(const struct layout *l, struct diag *d)
{
	uint64_t *raw_sizes = calloc(l->n_raws ? l->n_raws : 1, sizeof(*raw_sizes));
	uint64_t *part_sizes = calloc(l->n_parts ? l->n_parts : 1, sizeof(*part_sizes));
	uint64_t *part_starts = calloc(l->n_parts ? l->n_parts : 1, sizeof(*part_starts));
	const struct plan_inputs in = { .raw_sizes = raw_sizes,
					.part_sizes = part_sizes,
					.part_starts = part_starts };
	struct plan *p = NULL;

	if (!raw_sizes || !part_sizes || !part_starts)
		diag_error(d, "%s: out of memory", l->path);
	else if (build_plan_inputs(l, d, raw_sizes, part_sizes, part_starts) == 0)
		plan_resolve(l, &in, d, &p);
	free(raw_sizes);
	free(part_sizes);
	free(part_starts);
	return p;
}

static int run_plan(const struct cli_layout_args *args, const char *path, bool json)
{
	struct diag d;
	struct layout *l = NULL;
	struct plan *p = NULL;
	int status = EXIT_FAILED;

	diag_init(&d);
	if (cli_layout_args_load(args, path, &d, &l) == 0 && (p = plan_with_inputs(l, &d)))
		status = json ? print_json(p) : (print_table(l, p), EXIT_OK);
	diag_print(&d, stderr, SDIMG_PROG);
	plan_free(p);
	layout_free(l);
	diag_release(&d);
	return status;
}

enum { OPT_JSON = 256, OPT_SET };

/* What the command line of `plan` asks for besides the layout. */
struct plan_request {
	struct cli_layout_args args;
	bool json;
};

static int take_plan_option(void *ctx, int key, char *arg)
{
	struct plan_request *r = ctx;

	if (key == OPT_JSON) {
		r->json = true;
		return EXIT_OK;
	}
	return key == 'I' ? cli_layout_args_input(&r->args, "plan", arg)
			  : cli_layout_args_set(&r->args, "plan", arg);
}

int cmd_plan(int argc, char **argv)
{
	static const struct option options[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "input", required_argument, NULL, 'I' },
		{ "set", required_argument, NULL, OPT_SET },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const int names[] = { 'I', 0 };
	static const struct cli_command plan = {
		.name = "plan",
		.options = options,
		.usage = plan_usage,
		.take = take_plan_option,
		.names = names,
		.n_args = 1,
		.no_args = "no layout file given",
		.other_args = "one layout file, please",
	};
	struct plan_request r = { 0 };
	int first, status = cli_parse(&plan, argc, argv, &r, &first);

	if (status == CLI_GO)
		status = run_plan(&r.args, argv[first], r.json);
	cli_layout_args_release(&r.args);
	return status;
}
