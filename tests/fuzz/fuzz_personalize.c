/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the card values `sdimg personalize` takes (--set NAME=VALUE, each checked as
 * it checks them: a NAME=VALUE whose name is a variable's, given once) made into a card's
 * bytes by flash_cards_patches() for one of the images of cards_fixture.h, whose bytes are
 * then proven on a copy of the image: each per-card file reads back through the FAT reader as
 * its template filled with the values and the ids the card's table and boot sectors hold.
 * No file is written per input.
 *
 * Input: byte 0 picks the image; the rest is the values, NAME=VALUE each, a NUL between two.
 */
#include "tests/fuzz/cards_fixture.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define VALUES_MAX 32

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fixture_init("personalize");
	return 0;
}

/* The values in @text (@len bytes, NUL-terminated) into @vars as personalize takes them;
 * their number, or -1 where personalize stops with a usage error. */
static int values(char *text, size_t len, struct cards_var *vars)
{
	int n = 0;

	for (char *p = text, *next; p < text + len; p = next) {
		char *eq = strchr(p, '=');
		next = p + strlen(p) + 1; /* before the name is cut at its '=' */
		if (!eq || eq == p || n == VALUES_MAX)
			return -1;
		*eq = '\0';
		if (cards_var_name_problem(p))
			return -1;
		for (int i = 0; i < n; i++)
			if (!strcmp(vars[i].name, p))
				return -1;
		vars[n++] = (struct cards_var){ .name = p, .value = eq + 1 };
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cards_var vars[VALUES_MAX];
	struct flash_patches p = { 0 };
	struct fixture_image *im;
	struct diag d;
	char *text;
	int n;

	if (size < 1 || !(text = malloc(size)))
		return 0;
	im = &fixture()->img[data[0] % FIXTURE_IMAGES];
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	diag_init(&d);
	n = values(text, size - 1, vars);
	if (n >= 0 &&
	    flash_cards_patches(&im->m, vars, (size_t)n, im->fd, "fuzz.img", &p, &d) == 0) {
		fixture_apply(im, &p, false);
		fixture_prove(im, &im->m, vars, (size_t)n);
		fixture_apply(im, &p, true);
	}
	flash_patches_release(&p);
	diag_release(&d);
	free(text);
	return 0;
}
