/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: any bytes as the per-card manifest ("sdimg-cards 2", common/cards.c) of one of
 * the images of cards_fixture.h (the one of the size it says), read as `sdimg personalize`
 * and `flash --card-values` read it and checked against the image by flash_cards_check().
 * Its SHA-256 of the mapped bytes is taken as right (the fuzzer cannot find one; without it
 * nothing past the digest would run) where the ranges are the image's own or hash quickly.
 * A manifest that passes the check is made into a card with fixed values, and the card is
 * proven as fuzz_personalize.c proves it: a manifest the check lets through must not make a
 * card whose per-card files read back otherwise. Read from a memfd: no file per input.
 */
#include <fcntl.h>
#include <sys/mman.h>

#include "tests/fuzz/cards_fixture.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HASHED_MAX (1u << 20) /* mapped bytes hashed anew per input, at most */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fixture_init("cards");
	return 0;
}

/* The fixture image @m belongs to by its size (else the first). */
static struct fixture_image *image_of(const struct cards_manifest *m)
{
	struct fixture *f = fixture();

	for (size_t i = 0; i < FIXTURE_IMAGES; i++)
		if (f->img[i].size == m->image_size)
			return &f->img[i];
	return &f->img[0];
}

/* Puts into @m the digest its ranges of @im have, when they are @im's own or few. */
static void take_digest(struct fixture_image *im, struct cards_manifest *m, struct diag *d)
{
	uint64_t bytes = 0;

	if (m->n_mapped == im->m.n_mapped &&
	    !memcmp(m->mapped, im->m.mapped, m->n_mapped * sizeof(*m->mapped))) {
		memcpy(m->mapped_sha256, im->m.mapped_sha256, sizeof(m->mapped_sha256));
		return;
	}
	for (size_t i = 0; i < m->n_mapped; i++)
		bytes += m->mapped[i].end > m->mapped[i].start
				 ? m->mapped[i].end - m->mapped[i].start
				 : 0;
	if (bytes <= HASHED_MAX)
		cards_digest(im->fd, m->mapped, m->n_mapped, NULL, m->mapped_sha256, d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct cards_var vars[] = { { "SERIAL", "SN-0042" }, { "HOST", "card" } };
	struct cards_manifest m = { 0 };
	struct flash_patches p = { 0 };
	int fd = memfd_create("fuzz-cards", MFD_CLOEXEC);
	char path[64];
	struct diag d;

	if (fd < 0)
		return 0;
	diag_init(&d);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (write(fd, data, size) == (ssize_t)size && cards_manifest_read(path, &m, &d) == 0) {
		struct fixture_image *im = image_of(&m);
		take_digest(im, &m, &d);
		if (flash_cards_check(&m, "fuzz.cards.json", im->fd, "fuzz.img", im->size, &d) ==
			    0 &&
		    flash_cards_patches(&m, vars, 2, im->fd, "fuzz.img", &p, &d) == 0) {
			fixture_apply(im, &p, false);
			fixture_prove(im, &m, vars, 2);
			fixture_apply(im, &p, true);
		}
	}
	flash_patches_release(&p);
	cards_manifest_release(&m);
	diag_release(&d);
	close(fd);
	return 0;
}
