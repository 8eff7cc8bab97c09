/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: any bytes as a U-Boot environment (common/uboot_env), as `inspect --uboot-env`
 * and `cat --uboot-env` read one from an image (mkimage/reader/uboot_env.c, the copy's size
 * found by its CRC or given), and as mkenvimage's text that a layout's `vars` names. What
 * is read is written again and must read back the same. Built with libFuzzer by
 * `make fuzz`; replay.c gives it a main() that runs the saved corpus.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/uboot_env.h"
#include "mkimage/reader/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* @e encoded into a copy of @size bytes and read back: the same variables. */
static void round_trip(const struct uboot_env *e, size_t size, bool redundant)
{
	uint8_t *buf = malloc(size);
	struct uboot_env back = { 0 };
	struct uboot_env_copy c;
	struct diag d;

	diag_init(&d);
	if (buf && uboot_env_encode(e, buf, size, redundant, 1, 0xff) == 0) {
		uboot_env_read_copy(buf, size, redundant, &c);
		if (!c.crc_ok || !c.ended || uboot_env_copy_vars(&c, &back, &d) != 0 ||
		    back.n != e->n)
			abort();
		for (size_t i = 0; i < e->n; i++)
			if (strcmp(back.vars[i].name, e->vars[i].name) != 0 ||
			    strcmp(back.vars[i].value, e->vars[i].value) != 0)
				abort();
	}
	uboot_env_release(&back);
	diag_release(&d);
	free(buf);
}

/* The bytes as an image holding an environment at 0, read as the reader reads it. */
static void as_image(const uint8_t *data, size_t size, const char *place_text)
{
	struct reader_env_place place;
	struct reader_env e = { .active = -1 };
	struct diag d;
	char why[160];
	int fd = memfd_create("fuzz-env", 0);
	FILE *out = fopen("/dev/null", "w");

	diag_init(&d);
	if (fd >= 0 && out && write(fd, data, size) == (ssize_t)size &&
	    reader_env_place_parse(place_text, &place, why, sizeof(why)) == 0 &&
	    reader_env_read(fd, "fuzz.img", &place, &e, &d) == 0) {
		reader_env_print_text(&e, out, &d);
		reader_env_print_vars(&e, "fuzz.img", out, &d);
	}
	reader_env_release(&e);
	diag_release(&d);
	if (out)
		fclose(out);
	if (fd >= 0)
		close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uboot_env e = { 0 };
	struct diag d;

	diag_init(&d);
	if (uboot_env_parse_text(&e, (const char *)data, size, "fuzz.txt", &d) == 0)
		round_trip(&e, uboot_env_data_bytes(&e) + uboot_env_header_bytes(true), true);
	uboot_env_release(&e);
	for (int redundant = 0; redundant < 2; redundant++) {
		struct uboot_env_copy c;
		uboot_env_read_copy(data, size, redundant, &c);
		if (c.data && uboot_env_copy_vars(&c, &e, &d) == 0 && e.n)
			round_trip(&e, uboot_env_data_bytes(&e) + uboot_env_header_bytes(false),
				   false);
		uboot_env_release(&e);
	}
	as_image(data, size, "0");
	as_image(data, size, "0,64,64");
	diag_release(&d);
	return 0;
}
