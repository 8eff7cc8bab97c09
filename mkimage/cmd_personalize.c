/* SPDX-License-Identifier: MIT */
/*
 * cmd_personalize: `sdimg personalize IMAGE --set NAME=VALUE... -o OUT [--cards FILE]`: a
 * copy of IMAGE with one card's values in its per-card ranges (IMAGE.cards.json says where),
 * as `sdimg flash --card-values` writes them onto a card. An Android sparse image gives an
 * Android sparse image: its chunks' blocks and those the values change, in blocks of its
 * block size, with a CRC32 chunk when it had one.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/simg.h"
#include "common/sparse.h"
#include "mkimage/builder/builder.h"
#include "mkimage/cli.h"
#include "mkimage/flash/flash.h"

#define CMD "personalize"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: %s " CMD " IMAGE --set NAME=VALUE... -o OUT [--cards FILE]\n\n"
		"Writes OUT, a copy of IMAGE with one card's values: each per-card file of the\n"
		"layout gets its template with ${NAME} replaced by VALUE (its directory entry and\n"
		"FAT follow; on exFAT its entry set and allocation bitmap), nothing else\n"
		"changes.\n\n"
		"Options:\n"
		"  --set NAME=VALUE  the card's value of ${NAME} (repeatable)\n"
		"  -o, --output OUT  the image to write (a regular file: replaced when it exists)\n"
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

enum { OPT_SET = 256, OPT_CARDS };

static int take_option(void *ctx, int key, char *arg)
{
	struct args *a = ctx;

	if (key == OPT_SET)
		return add_var(a, arg);
	if (!*arg)
		return cli_usage_error(CMD, "%s needs a file name", key == 'o' ? "-o" : "--cards");
	if (key == 'o')
		a->output = arg;
	else
		a->cards = arg;
	return EXIT_OK;
}

/* Returns 0 to go on with @a, -1 after --help, or the exit status of a usage error. */
static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option opts[] = {
		{ "set", required_argument, NULL, OPT_SET },
		{ "output", required_argument, NULL, 'o' },
		{ "cards", required_argument, NULL, OPT_CARDS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const int names[] = { 'o', OPT_CARDS, 0 };
	static const struct cli_command personalize = {
		.name = CMD,
		.options = opts,
		.usage = usage,
		.take = take_option,
		.n_args = 1,
		.names = names,
		.no_args = "no image given",
		.other_args = "one image only",
	};
	int first, status = cli_parse(&personalize, argc, argv, a, &first);

	if (status != CLI_GO)
		return status == EXIT_OK ? -1 : status;
	a->image = argv[first];
	if (!a->output)
		return cli_usage_error(CMD, "no output given (-o OUT)");
	return 0;
}

static bool stop_pending(void *stop_signals)
{
	return build_stop_pending(stop_signals);
}

static bool stop_copy(void *stop_signals, uint64_t done)
{
	(void)done;
	return build_stop_pending(stop_signals);
}

/* The image's @size bytes from @in into @out (new: it reads as zeros), its holes and zero
 * blocks left out (common/sparse.h: shared blocks where the file system can, else written
 * from a buffer). A stop signal of @stop ends it with -EINTR. */
static int copy_image(int in, int out, uint64_t size, const struct args *a, sigset_t *stop,
		      struct diag *d)
{
	struct sparse_copy c = { .src = in,
				 .len = size,
				 .dst = out,
				 .buf = malloc(SPARSE_CHUNK),
				 .stop = stop_copy,
				 .stop_ctx = stop };
	struct sparse_fault fault;
	int rc = c.buf ? sparse_copy(&c, &fault) : -ENOMEM;

	free(c.buf);
	if (rc == 0 || rc == -EINTR || rc == -ENOMEM)
		return rc;
	if (fault.in_dst)
		return diag_error(d, "%s: %s", a->output, strerror(-rc));
	return diag_error(d, "%s: %s", a->image,
			  rc == -ENODATA ? "it shrank while it was copied" : strerror(-rc));
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
	return rc < 0 ? diag_error(d, "%s: %s", path, strerror(-rc)) : 0;
}

/*
 * The card's copy at a->output, made as a build makes its outputs (mkimage/builder/output.c):
 * unseen until complete, then put in place at once (a new file 0666 less the umask, a
 * replaced one with its older mode), never over anything but a regular file. From before
 * its creation the stop signals of @stop are held (a hidden name must not outlive the
 * process) and asked for during the copy and before it is put in place.
 */
static int write_copy(const struct args *a, int in, uint64_t size, const struct flash_patches *p,
		      sigset_t *stop, struct diag *d)
{
	struct build_file f, *files[] = { &f };

	sigprocmask(SIG_BLOCK, stop, NULL);
	int rc = build_file_create(&f, a->output, "the card's image", size, d);

	if (rc == 0)
		rc = copy_image(in, f.fd, size, a, stop, d);
	if (rc == 0)
		rc = apply(p, f.fd, a->output, d);
	if (rc == 0)
		rc = build_files_commit(files, 1, stop_pending, stop, d);
	build_file_abort(&f); /* when it was not committed: the file goes */
	return rc;
}

/* The sparse copy: the image @img (a private copy of the sparse input @in, its patches
 * applied) as one sparse file of the input's block size, of the blocks the input defines
 * and those the patches touch. */
static int write_sparse_copy(const struct args *a, int img, const struct simg *in,
			     const struct flash_patches *p, sigset_t *stop, struct diag *d)
{
	struct simg_range *r = calloc(in->n + p->n + 1, sizeof(*r));
	struct build_file f, *files[] = { &f };
	struct simg_piece *pieces = NULL;
	struct simg plan = { 0 };
	size_t n = 0, n_pieces = 0;
	int rc = r ? 0 : -ENOMEM;

	for (size_t i = 0; r && i < in->n; i++)
		r[n++] = (struct simg_range){ in->chunks[i].block * in->block_size,
					      (in->chunks[i].block + in->chunks[i].blocks) *
						      in->block_size };
	for (size_t i = 0; r && i < p->n; i++)
		r[n++] = (struct simg_range){ p->v[i].offset, p->v[i].offset + p->v[i].len };
	if (rc == 0)
		rc = simg_plan(&(struct simg_image){ .fd = img, .name = a->image }, in->image_size,
			       in->block_size, r, n, &plan, d);
	if (rc == 0)
		rc = simg_split(&plan, 0, in->n_crcs > 0, &pieces, &n_pieces, d);
	sigprocmask(SIG_BLOCK, stop, NULL);
	if (rc == 0)
		rc = build_file_create(&f, a->output, "the card's image", 0, d);
	else
		f = (struct build_file)BUILD_FILE_INIT;
	struct simg_write w = { .image = { .fd = img, .name = a->image },
				.out = f.fd,
				.out_name = a->output,
				.crc = in->n_crcs > 0,
				.stop = stop_pending,
				.stop_ctx = stop };
	if (rc == 0)
		rc = simg_write(&plan, &pieces[0], &w, d);
	if (rc == 0)
		rc = build_files_commit(files, 1, stop_pending, stop, d);
	build_file_abort(&f);
	free(pieces);
	simg_release(&plan);
	free(r);
	return rc;
}

/* An Android sparse image open as @*in (@*size its bytes) becomes a private copy of its
 * image (the chunks in @s); any other file stays as it is. */
static int open_sparse_input(const struct args *a, int *in, uint64_t *size, struct simg *s,
			     bool *sparse, struct diag *d)
{
	uint8_t magic[4];
	int out = -1;

	*sparse = pread(*in, magic, sizeof(magic), 0) == (ssize_t)sizeof(magic) &&
		  simg_is_sparse(magic, sizeof(magic));
	if (!*sparse)
		return 0;
	int rc = simg_open_expanded(*in, *size, a->image, s, &out, d);
	if (rc < 0)
		return rc;
	close(*in);
	*in = out;
	*size = s->image_size;
	return 0;
}

/* IMAGE.cards.json, or for NAME.simg, NAME.cards.json when the first is not there (as
 * `build -o NAME.simg` names it). */
static char *default_manifest(const char *image)
{
	size_t len = strlen(image);
	char *name = NULL;

	if (asprintf(&name, "%s.cards.json", image) < 0)
		return NULL;
	if (access(name, F_OK) == 0 || len <= 5 || strcmp(image + len - 5, ".simg") != 0)
		return name;
	free(name);
	return asprintf(&name, "%.*s.cards.json", (int)(len - 5), image) < 0 ? NULL : name;
}

/* Whether @path names the file @st tells of (its device and inode). */
static bool same_file(const char *path, const struct stat *st)
{
	struct stat o;

	return stat(path, &o) == 0 && o.st_dev == st->st_dev && o.st_ino == st->st_ino;
}

static int personalize(const struct args *a, sigset_t *stop, struct diag *d)
{
	struct cards_manifest m = { 0 };
	struct flash_patches p = { 0 };
	char *cards = NULL;
	struct stat st, mst;
	struct simg s = { 0 };
	uint64_t size = 0;
	bool sparse = false;
	int in = -1, rc;

	if (!a->cards && !(cards = default_manifest(a->image)))
		return -ENOMEM;
	const char *manifest = a->cards ? a->cards : cards;
	rc = build_file_check_name(a->output, "the card's image", d);
	if (rc == 0)
		rc = cards_manifest_read(manifest, &m, d);
	if (rc == 0 && (in = flash_open_image_file(a->image, d)) < 0)
		rc = in;
	else if (rc == 0 && fstat(in, &st) < 0)
		rc = diag_error(d, "%s: %s", a->image, strerror(errno));
	if (rc == 0)
		size = (uint64_t)st.st_size;
	if (rc == 0)
		rc = open_sparse_input(a, &in, &size, &s, &sparse, d);
	if (rc == 0)
		rc = flash_cards_check(&m, manifest, in, a->image, size, d);
	if (rc == 0 && same_file(a->output, &st))
		rc = diag_error(d, "%s: is the image itself; write the card's copy elsewhere",
				a->output);
	if (rc == 0 && stat(manifest, &mst) == 0 && same_file(a->output, &mst))
		rc = diag_error(d,
				"%s: is the image's per-card manifest; write the card's copy "
				"elsewhere",
				a->output);
	if (rc == 0)
		rc = flash_cards_patches(&m, a->vars, a->n_vars, in, a->image, &p, d);
	if (rc == 0 && sparse) /* the image written out is this command's own copy */
		rc = apply(&p, in, a->image, d);
	if (rc == 0)
		rc = sparse ? write_sparse_copy(a, in, &s, &p, stop, d)
			    : write_copy(a, in, m.image_size, &p, stop, d);
	if (in >= 0)
		close(in);
	simg_release(&s);
	flash_patches_release(&p);
	cards_manifest_release(&m);
	free(cards);
	return rc;
}

int cmd_personalize(int argc, char **argv)
{
	struct args a = { 0 };
	sigset_t stop, old;
	struct diag d;
	int rc = parse_args(argc, argv, &a);

	if (rc != 0) {
		free(a.vars);
		return rc < 0 ? EXIT_OK : rc;
	}
	diag_init(&d);
	build_stop_signals(&stop);
	sigprocmask(SIG_BLOCK, NULL, &old);
	rc = personalize(&a, &stop, &d);
	/* a stop signal that came while the copy was made ends the process now, nothing of
	 * the copy left; after success it stays held, and the process exits with success */
	if (rc != 0)
		sigprocmask(SIG_SETMASK, &old, NULL);
	if (rc == -EINTR)
		diag_error(&d, "%s: interrupted", a.output);
	else if (rc == -ENOMEM)
		diag_error(&d, "%s: out of memory", a.output);
	else if (rc < 0 && !d.errors) /* never exit 1 in silence */
		diag_error(&d, "%s: %s", a.output, strerror(-rc));
	diag_print(&d, stderr, SDIMG_PROG);
	diag_release(&d);
	free(a.vars);
	return rc == 0 ? EXIT_OK : EXIT_FAILED;
}
