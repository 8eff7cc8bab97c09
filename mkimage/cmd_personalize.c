/*
 * cmd_personalize: `sdimg personalize IMAGE --set NAME=VALUE... -o OUT [--cards FILE]`: a
 * copy of IMAGE with one card's values in its per-card ranges (IMAGE.cards.json says where),
 * as `sdimg flash --card-values` writes them onto a card.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mkimage/cli.h"
#include "mkimage/flash/flash.h"

#define CMD "personalize"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: %s " CMD " IMAGE --set NAME=VALUE... -o OUT [--cards FILE]\n\n"
		"Writes OUT, a copy of IMAGE with one card's values: each per-card file of the\n"
		"layout gets its template with ${NAME} replaced by VALUE (its directory entry and\n"
		"FAT follow), nothing else changes.\n\n"
		"Options:\n"
		"  --set NAME=VALUE  the card's value of ${NAME} (repeatable)\n"
		"  -o, --output OUT  the image to write (replaced when it exists)\n"
		"  --cards FILE      the per-card manifest (default: IMAGE.cards.json)\n"
		"  -h, --help        show this help\n",
		SDIMG_PROG);
}

struct args {
	const char *image, *output, *cards;
	struct cards_var *vars;
	size_t n_vars;
};

static int add_var(struct args *a, char *assignment)
{
	char *eq = strchr(assignment, '=');

	if (!eq || eq == assignment)
		return cli_usage_error(CMD, "--set wants NAME=VALUE, not '%s'", assignment);
	struct cards_var *v = realloc(a->vars, (a->n_vars + 1) * sizeof(*v));
	if (!v) {
		fprintf(stderr, "%s: out of memory\n", SDIMG_PROG);
		return EXIT_FAILED;
	}
	a->vars = v;
	*eq = '\0'; /* argv's own string: the name ends there */
	a->vars[a->n_vars++] = (struct cards_var){ .name = assignment, .value = eq + 1 };
	const char *why = cards_var_name_problem(assignment);
	if (why)
		return cli_usage_error(CMD, "--set '%s' %s", assignment, why);
	for (size_t i = 0; i + 1 < a->n_vars; i++)
		if (strcmp(a->vars[i].name, assignment) == 0)
			return cli_usage_error(CMD, "--set '%s' given twice", assignment);
	return 0;
}

static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option opts[] = {
		{ "set", required_argument, NULL, 's' }, { "output", required_argument, NULL, 'o' },
		{ "cards", required_argument, NULL, 'c' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if ((rc = add_var(a, optarg)) != 0)
				return rc;
			break;
		case 'o':
			a->output = optarg;
			break;
		case 'c':
			a->cards = optarg;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			return cli_usage_error(CMD, "unknown option");
		}
	}
	if (optind != argc - 1)
		return cli_usage_error(CMD, optind >= argc ? "no image given" : "one image only");
	a->image = argv[optind];
	if (!a->output)
		return cli_usage_error(CMD, "no output given (-o OUT)");
	return 0;
}

/* @in's bytes into @out, holes kept where the file system shows them. */
static int copy_image(int in, int out, uint64_t size, const char *path, struct diag *d)
{
	if (ftruncate(out, (off_t)size) < 0)
		return diag_error(d, "%s: %s", path, strerror(errno));
	for (off_t pos = 0; (uint64_t)pos < size;) {
		off_t data = lseek(in, pos, SEEK_DATA);
		if (data < 0 || (uint64_t)data >= size)
			break;
		off_t hole = lseek(in, data, SEEK_HOLE);
		if (hole < 0 || (uint64_t)hole > size)
			hole = (off_t)size;
		off_t src = data, dst = data;
		while (src < hole) {
			ssize_t n = copy_file_range(in, &src, out, &dst, (size_t)(hole - src), 0);
			if (n <= 0)
				return diag_error(d, "%s: %s", path, n < 0 ? strerror(errno) : "short copy");
		}
		pos = hole;
	}
	return 0;
}

/* @len bytes of @buf at @offset of @fd, whatever pieces write takes them in. */
static int write_at(int fd, const uint8_t *buf, size_t len, uint64_t offset)
{
	while (len) {
		ssize_t w = pwrite(fd, buf, len, (off_t)offset);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		buf += w, len -= (size_t)w, offset += (uint64_t)w;
	}
	return 0;
}

/* Each patch in turn (a later one wins where two meet), its zero tail a piece at a time. */
static int apply(const struct flash_patches *p, int fd, const char *path, struct diag *d)
{
	static const uint8_t zeros[65536];
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < p->n; i++) {
		const struct flash_patch *x = &p->v[i];
		size_t held = x->len - x->zero_tail;
		rc = write_at(fd, x->bytes, held, x->offset);
		for (size_t done = 0; rc == 0 && done < x->zero_tail;) {
			size_t n = x->zero_tail - done < sizeof(zeros) ? x->zero_tail - done
								       : sizeof(zeros);
			rc = write_at(fd, zeros, n, x->offset + held + done);
			done += n;
		}
	}
	if (rc < 0)
		return diag_error(d, "%s: %s", path, strerror(-rc));
	return fsync(fd) < 0 ? diag_error(d, "%s: %s", path, strerror(errno)) : 0;
}

static int personalize(const struct args *a, struct diag *d)
{
	struct cards_manifest m = { 0 };
	struct flash_patches p = { 0 };
	char *cards = NULL, *tmp = NULL;
	struct stat st, ost;
	int in = -1, out = -1, rc;

	if (asprintf(&cards, "%s.cards.json", a->image) < 0)
		return -ENOMEM;
	rc = cards_manifest_read(a->cards ? a->cards : cards, &m, d);
	if (rc == 0 && ((in = open(a->image, O_RDONLY | O_CLOEXEC)) < 0 || fstat(in, &st) < 0))
		rc = diag_error(d, "%s: %s", a->image, strerror(errno));
	if (rc == 0)
		rc = flash_cards_check(&m, a->cards ? a->cards : cards, in, a->image,
				       (uint64_t)st.st_size, d);
	if (rc == 0 && stat(a->output, &ost) == 0 && ost.st_dev == st.st_dev &&
	    ost.st_ino == st.st_ino)
		rc = diag_error(d, "%s: is the image itself; write the card's copy elsewhere",
				a->output);
	if (rc == 0)
		rc = flash_cards_patches(&m, a->vars, a->n_vars, in, a->image, &p, d);
	if (rc == 0 && asprintf(&tmp, "%s.XXXXXX", a->output) < 0) {
		tmp = NULL;
		rc = -ENOMEM;
	}
	if (rc == 0 && (out = mkstemp(tmp)) < 0)
		rc = diag_error(d, "%s: %s", a->output, strerror(errno));
	if (rc == 0)
		rc = copy_image(in, out, m.image_size, a->output, d);
	if (rc == 0)
		rc = apply(&p, out, a->output, d);
	if (rc == 0 && fchmod(out, 0644) < 0)
		rc = diag_error(d, "%s: %s", a->output, strerror(errno));
	if (rc == 0 && rename(tmp, a->output) < 0)
		rc = diag_error(d, "%s: %s", a->output, strerror(errno));
	if (out >= 0 && rc != 0)
		unlink(tmp);
	if (out >= 0)
		close(out);
	if (in >= 0)
		close(in);
	flash_patches_release(&p);
	cards_manifest_release(&m);
	free(cards);
	free(tmp);
	return rc;
}

int cmd_personalize(int argc, char **argv)
{
	struct args a = { 0 };
	struct diag d;
	int rc = parse_args(argc, argv, &a);

	if (rc != 0) {
		free(a.vars);
		return rc < 0 ? EXIT_OK : rc;
	}
	diag_init(&d);
	rc = personalize(&a, &d);
	if (rc == -ENOMEM)
		diag_error(&d, "%s: out of memory", a.output);
	else if (rc < 0 && !d.errors) /* never exit 1 in silence */
		diag_error(&d, "%s: %s", a.output, strerror(-rc));
	diag_print(&d, stderr, SDIMG_PROG);
	diag_release(&d);
	free(a.vars);
	return rc == 0 ? EXIT_OK : EXIT_FAILED;
}
