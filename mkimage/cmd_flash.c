/* SPDX-License-Identifier: MIT */
/*
 * cmd_flash: `sdimg flash IMAGE TARGET [TARGET...] [--bmap FILE] [--no-verify]
 * [--gaps keep|discard|zero] [--allow-fixed] [--json|--report FILE] [--check-capacity]
 * [--dry-run] [--card-values FILE.csv|NAME=PATTERN]... [--first-index N] [-q|-v]`, and the
 * station: `sdimg flash IMAGE --watch [--match PATTERN...]
 * [--log FILE] ...`.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "mkimage/cli.h"
#include "mkimage/flash/flash.h"

#define DEFAULT_TIMEOUT 120

static void flash_usage(FILE *out)
{
	fprintf(out,
		"Usage: %s flash IMAGE TARGET [TARGET...] [--bmap FILE] [--no-verify]\n"
		"                   [--gaps keep|discard|zero] [--allow-fixed] [--json|--report "
		"FILE]\n"
		"                   [--timeout SECONDS] [--check-capacity] [--dry-run]\n"
		"                   [--card-values FILE.csv|NAME=PATTERN]... [--first-index N] "
		"[-q|-v]\n"
		"       %s flash IMAGE --watch [--match PATTERN]... [--log FILE] [--allow-fixed]\n"
		"                   [--bmap FILE] [--no-verify] [--gaps MODE] [--timeout SECONDS]\n"
		"                   [--check-capacity] [--card-values ...] [--first-index N] "
		"[-q|-v]\n\n"
		"Writes IMAGE onto every TARGET at once and reads each back with O_DIRECT: a card\n"
		"passes only when every mapped byte reads back as the image holds it. IMAGE is "
		"raw\n"
		"(sparse or not) or compressed (zstd, xz, gzip, bzip2, lz4, lzma: decompressed "
		"once,\n"
		"for all targets; a name that says compressed over other bytes is refused).\n"
		"Its bmap (IMAGE.bmap, or the name without the compression suffix + .bmap) says "
		"what\n"
		"to write; the bmap and every mapped range are checked before any card is "
		"touched.\n\n"
		"A target must be a whole removable, USB or SD disk that nothing uses: the disk of "
		"/,\n"
		"a mounted or swap disk, one with holders and one smaller than the image are "
		"refused.\n\n"
		"  --bmap FILE         the block map to use\n"
		"  --no-verify         do not read the cards back (a pass then says \"not read\n"
		"                      back (--no-verify)\", \"verified\": false in the report)\n"
		"  --gaps MODE         what unmapped stretches get: keep (what they held; "
		"default),\n"
		"                      discard (BLKDISCARD where the card can), zero (written "
		"zeros;\n"
		"                      the default without a bmap, whose holes are the image's "
		"zeros)\n"
		"  --allow-fixed       also write partitions, eMMC and disks that are not "
		"removable\n"
		"  --json              the report as JSON on the standard output\n"
		"  --report FILE       the JSON report into FILE: an earlier report there is\n"
		"                      removed first, the new one written whole at the end (none\n"
		"                      when the run ends without a verdict, as on SIGKILL)\n"
		"  --timeout SECONDS   give up a target that makes no progress for so long (%d;\n"
		"                      more than one 4 MiB write takes on the slowest card)\n"
		"  --check-capacity    before writing, write and read back stamps over the whole\n"
		"                      card: a fake-capacity card that wraps (at any sector) "
		"fails\n"
		"  --dry-run           say what would be done to each target, and why; write "
		"nothing\n"
		"                      (with --json: result \"accepted\" or \"refused\")\n"
		"  --card-values FILE.csv|NAME=PATTERN\n"
		"                      each card its own values for the image's per-card files "
		"and\n"
		"                      ids (IMAGE.cards.json): the next row of a CSV file (its "
		"first\n"
		"                      line names the variables), or a counter such as\n"
		"                      'CARD_SERIAL=SN{index:06}'; again for more counters. Each "
		"card\n"
		"                      takes the next number, never reused; the report says which\n"
		"  --first-index N     the first card's number: its CSV row (1: the first after "
		"the\n"
		"                      names) and {index} (default 1)\n"
		"  -q, --quiet         print only errors and warnings\n"
		"  -v, --verbose       more detail\n"
		"  -h, --help          show this help\n\n"
		"SIGINT, SIGTERM or SIGHUP aborts the targets in flight: they fail, and the run "
		"ends\n"
		"with its summary and report; before any card is touched it ends the run with no\n"
		"report. SIGHUP is ignored under nohup; SIGINT and SIGTERM are always taken.\n\n"
		"The station, --watch: waits for cards and writes IMAGE onto each one as it "
		"arrives\n"
		"(a disk that appears, or whose size goes from 0 to more: a card in a reader), "
		"several\n"
		"at once, once each: a card's slot takes another card only after it was taken "
		"out.\n"
		"One line per card (slot, result, time, serial). SIGINT, SIGTERM or SIGHUP: no "
		"more\n"
		"cards, the ones in flight finish, then a summary; a second signal aborts them\n"
		"(failed).\n"
		"Cards present at the start are not written.\n"
		"  --match PATTERN     only the disks whose slot the glob PATTERN names: the USB "
		"port\n"
		"                      (\"1-2.3\"), the location "
		"(\"pci-0000:00:14.0-usb-1-2.3\"),\n"
		"                      the kernel name (\"sdb\", \"loop7\") or /dev/NAME; again "
		"for\n"
		"                      more slots. Without it: every removable, USB or SD disk.\n"
		"                      --allow-fixed needs it\n"
		"  --log FILE          append one JSON line per card to FILE (the report's "
		"fields,\n"
		"                      slot and times), each on disk before the card's line "
		"shows;\n"
		"                      a card whose line cannot be written fails\n\n"
		"Exit status: 0 every target (card) passed, 1 any failed or was refused, 2 bad "
		"usage.\n",
		SDIMG_PROG, SDIMG_PROG, DEFAULT_TIMEOUT);
}

static int parse_gaps(const char *arg, enum flash_gaps *ret)
{
	static const char *const names[] = { "keep", "discard", "zero" };

	for (int i = 0; i < 3; i++)
		if (strcmp(arg, names[i]) == 0) {
			*ret = (enum flash_gaps)i;
			return EXIT_OK;
		}
	return cli_usage_error("flash", "--gaps: '%s' is not keep, discard or zero", arg);
}

static int parse_timeout(const char *arg, unsigned *ret)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (!*arg || *end || v < 1 || v > 86400)
		return cli_usage_error("flash", "--timeout: a number of seconds from 1 to 86400");
	*ret = (unsigned)v;
	return EXIT_OK;
}

static int parse_first_index(const char *arg, uint64_t *ret)
{
	char *end;
	unsigned long long v = strtoull(arg, &end, 10);

	if (!*arg || *end || *arg == '-' || v > UINT32_MAX)
		return cli_usage_error("flash", "--first-index: a number from 0 to 4294967295");
	*ret = v;
	return EXIT_OK;
}

/* The options that go together; @args: the arguments left (IMAGE and the targets). */
static int check_usage(const struct flash_options *o, int args)
{
	if (o->first_index != 1 && !o->n_card_values)
		return cli_usage_error("flash", "--first-index numbers the cards of --card-values");
	if (o->json && o->report)
		return cli_usage_error("flash", "--json and --report: one of them, please");
	if (!o->watch && (o->n_match || o->log))
		return cli_usage_error("flash", "%s is for the station: add --watch",
				       o->n_match ? "--match" : "--log");
	if (o->watch && (o->json || o->report || o->dry_run))
		return cli_usage_error("flash", "--watch logs each card with --log, not %s",
				       o->json     ? "--json"
				       : o->report ? "--report"
						   : "--dry-run");
	if (o->watch && o->allow_fixed && !o->n_match)
		return cli_usage_error("flash",
				       "--watch --allow-fixed would write every disk that "
				       "appears, other programs' loop devices too: name the "
				       "station's slots with --match");
	if (args < 1)
		return cli_usage_error("flash", "no image given");
	if (o->watch && args > 1)
		return cli_usage_error("flash", "--watch takes no targets: the cards arrive");
	if (!o->watch && args < 2)
		return cli_usage_error("flash", "no target given");
	return EXIT_OK;
}

static int run_flash(const struct flash_options *o)
{
	struct diag d;
	int rc;

	diag_init(&d);
	rc = o->watch ? flash_watch(o, &d) : flash_run(o, &d);
	if (o->verbosity == 0)
		diag_drop_notes(&d);
	diag_print(&d, stderr, SDIMG_PROG);
	diag_release(&d);
	return rc == 0 ? EXIT_OK : EXIT_FAILED;
}

enum {
	OPT_BMAP = 256,
	OPT_NO_VERIFY,
	OPT_GAPS,
	OPT_ALLOW_FIXED,
	OPT_JSON,
	OPT_REPORT,
	OPT_TIMEOUT,
	OPT_DRY_RUN,
	OPT_CHECK_CAPACITY,
	OPT_WATCH,
	OPT_MATCH,
	OPT_LOG,
	OPT_CARD_VALUES,
	OPT_FIRST_INDEX
};

/* An option that takes no argument: the switch it sets. */
static void take_flag(struct flash_options *o, int key)
{
	if (key == OPT_NO_VERIFY)
		o->verify = false;
	else if (key == OPT_ALLOW_FIXED)
		o->allow_fixed = true;
	else if (key == OPT_JSON)
		o->json = true;
	else if (key == OPT_DRY_RUN)
		o->dry_run = true;
	else if (key == OPT_CHECK_CAPACITY)
		o->check_capacity = true;
	else if (key == OPT_WATCH)
		o->watch = true;
	else
		o->verbosity = key == 'q' ? 0 : 2;
}

/* The flash options the command line makes, and the arrays its repeated options fill. */
struct flash_command_line {
	struct flash_options o;
	const char **match, **values; /* o.match and o.card_values, writable */
};

/* One --card-values: a counter NAME=PATTERN names a variable no other counter names. */
static int take_card_values(struct flash_command_line *f, const char *arg)
{
	const char *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : 0;

	for (size_t i = 0; eq && i < f->o.n_card_values; i++)
		if (strncmp(f->values[i], arg, len + 1) == 0)
			return cli_usage_error("flash", "--card-values '%.*s' given twice",
					       (int)len, arg);
	if (eq) { /* a counter: a bad PATTERN is a usage error, said before any card */
		struct diag d;
		diag_init(&d);
		int rc = flash_card_pattern_check(arg, &d);
		diag_print(&d, stderr, SDIMG_PROG);
		diag_release(&d);
		if (rc < 0)
			return EXIT_USAGE;
	}
	f->values[f->o.n_card_values++] = arg;
	return EXIT_OK;
}

static int take_flash_option(void *ctx, int key, char *arg)
{
	struct flash_command_line *f = ctx;
	struct flash_options *o = &f->o;

	if (key == OPT_BMAP) {
		o->bmap = arg;
	} else if (key == OPT_GAPS) {
		o->gaps_set = true;
		return parse_gaps(arg, &o->gaps);
	} else if (key == OPT_REPORT) {
		o->report = arg;
	} else if (key == OPT_TIMEOUT) {
		return parse_timeout(arg, &o->timeout);
	} else if (key == OPT_MATCH) {
		if (!*arg)
			return cli_usage_error("flash", "--match: an empty pattern");
		f->match[o->n_match++] = arg;
	} else if (key == OPT_LOG) {
		o->log = arg;
	} else if (key == OPT_CARD_VALUES) {
		return take_card_values(f, arg);
	} else if (key == OPT_FIRST_INDEX) {
		return parse_first_index(arg, &o->first_index);
	} else {
		take_flag(o, key);
	}
	return EXIT_OK;
}

int cmd_flash(int argc, char **argv)
{
	static const struct option options[] = {
		{ "bmap", required_argument, NULL, OPT_BMAP },
		{ "no-verify", no_argument, NULL, OPT_NO_VERIFY },
		{ "gaps", required_argument, NULL, OPT_GAPS },
		{ "allow-fixed", no_argument, NULL, OPT_ALLOW_FIXED },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "report", required_argument, NULL, OPT_REPORT },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "check-capacity", no_argument, NULL, OPT_CHECK_CAPACITY },
		{ "watch", no_argument, NULL, OPT_WATCH },
		{ "match", required_argument, NULL, OPT_MATCH },
		{ "log", required_argument, NULL, OPT_LOG },
		{ "card-values", required_argument, NULL, OPT_CARD_VALUES },
		{ "first-index", required_argument, NULL, OPT_FIRST_INDEX },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const int names[] = { OPT_BMAP, OPT_REPORT, OPT_MATCH, OPT_LOG, OPT_CARD_VALUES, 0 };
	static const int overrides[] = { OPT_ALLOW_FIXED, OPT_NO_VERIFY, 0 };
	static const struct cli_command flash = {
		.name = "flash",
		.options = options,
		.usage = flash_usage,
		.take = take_flash_option,
		.names = names,
		.spelled_out = overrides,
	};
	struct flash_command_line f = {
		.o = { .verify = true,
		       .verbosity = 1,
		       .timeout = DEFAULT_TIMEOUT,
		       .roots = { "/sys", "/proc" },
		       .first_index = 1 },
		/* every --match is one argument: there are fewer of them than arguments */
		.match = calloc((size_t)argc, sizeof(const char *)),
		.values = calloc((size_t)argc, sizeof(const char *)),
	};
	int first, status;

	if (!f.match || !f.values) {
		free(f.match);
		free(f.values);
		return cli_usage_error("flash", "out of memory");
	}
	f.o.match = f.match;
	f.o.card_values = f.values;
	status = cli_parse(&flash, argc, argv, &f, &first);
	if (status == CLI_GO && (status = check_usage(&f.o, argc - first)) == EXIT_OK) {
		f.o.image = argv[first];
		f.o.targets = (const char *const *)argv + first + 1;
		f.o.n_targets = (size_t)(argc - first - 1);
		status = run_flash(&f.o);
	}
	free(f.match);
	free(f.values);
	return status;
}
