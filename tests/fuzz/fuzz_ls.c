/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: any bytes as the address of `sdimg ls` and `sdimg cat` (IMAGE[:PART][/PATH]:
 * partition numbers, GPT names, volume labels, paths with long and short names), parsed and
 * resolved by mkimage/cmd_ls.c against three small images built once per process: "g" (GPT:
 * FAT volumes named and labelled, two with the same label, a raw partition), "m" (MBR with
 * logical partitions) and "n" (no table: one bare FAT volume). The listing and the messages
 * go to /dev/null; what is looked for is a crash, a leak or undefined behaviour.
 *
 * Input: byte 0 picks the command (ls, ls -l, ls -R, cat); the rest is the address, after
 * the folder of the images: it must start with an image's name ("g:BOOT/a.txt"), so that
 * no address names a host file other than these images.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "layouts/layouts.h"
#include "mkimage/builder/builder.h"
#include "mkimage/cli.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FILES                                                                          \
	" file \"/a.txt\" { content = \"alpha\" }"                                     \
	" file \"/Long File Name.text\" { content = \"long\" }"                        \
	" file \"/dir/sub/b.bin\" { content = \"bravo\" }"                             \
	" file \"/dir/\xc3\xbcn\xc3\xaf.txt\" { content = \"utf-8\" }"                 \
	" file \"/empty\" { content = \"\" }"                                          \
	" file \"/hidden.sys\" { content = \"h\" attrs = \"hidden,system,readonly\" }" \
	" dir \"/d1/d2/d3/d4/d5/d6/d7/d8\" {}"                                         \
	" file \"/d1/d2/d3/f\" { content = \"f\" }"

static const char *const images[][2] = {
	{ "g",
	  "image { table = gpt align = 512 seed = \"g\" timestamp = 1700000000 }\n"
	  "partition boot { type = fat12 fat { label = \"BOOT\" data-align = 512 }" FILES " }\n"
	  "partition twin1 { type = fat fat { label = \"TWIN\" data-align = 512 }"
	  " file \"/one\" { content = \"1\" } }\n"
	  "partition twin2 { type = fat fat { label = \"twin\" data-align = 512 }"
	  " file \"/two\" { content = \"2\" } }\n"
	  "partition blob { size = 64K }\n"
	  "partition \"N\xc3\xa4me\" { type = fat16 fat { data-align = 512 root-entries = 16 }"
	  " file \"/x\" { content = \"x\" } }\n" },
	{ "m",
	  "image { table = mbr align = 512 seed = \"m\" timestamp = 1700000000 }\n"
	  "partition p1 { type = fat fat { label = \"P1\" data-align = 512 }" FILES " }\n"
	  "partition p2 { size = 32K }\n"
	  "partition p3 { type = fat fat { data-align = 512 } file \"/3\" { content = \"3\" } }\n"
	  "partition p4 { type = fat fat { label = \"P4\" data-align = 512 } }\n"
	  "partition p5 { type = fat fat { label = \"LOGICAL\" data-align = 512 }"
	  " file \"/5/5\" { content = \"5\" } }\n"
	  "partition p6 { type = fat fat { label = \"P6\" fats = 1 data-align = 512 } }\n" },
	{ "n",
	  "image { table = none seed = \"n\" timestamp = 1700000000 }\n"
	  "partition whole { type = fat fat { label = \"BARE\" data-align = 512 }" FILES " }\n" },
};

#define N_IMAGES (sizeof(images) / sizeof(images[0]))

/* The folder of the images, and /dev/null. */
struct place {
	char dir[200];
	FILE *quiet;
};

static struct place *place(void)
{
	static struct place p;
	return &p;
}

static void remove_place(void)
{
	char path[300];

	for (size_t i = 0; i < N_IMAGES; i++) {
		snprintf(path, sizeof(path), "%.200s/%s", place()->dir, images[i][0]);
		unlink(path);
	}
	rmdir(place()->dir);
}

static void build(const char *name, const char *text)
{
	const char *const dirs[] = { place()->dir };
	const struct layout_options opts = { .input_dirs = dirs, .n_input_dirs = 1 };
	char path[300];
	struct layout *l = NULL;
	struct diag d;

	snprintf(path, sizeof(path), "%.200s/%s", place()->dir, name);
	const struct build_options bo = { .output = path,
					  .write_raw = true,
					  .verbosity = BUILD_QUIET,
					  .report = place()->quiet };
	diag_init(&d);
	if (layout_load_text("fuzz_ls.layout", text, &opts, &d, &l) < 0 ||
	    build_image_file(l, &bo, &d) < 0) {
		diag_print(&d, stderr, "fuzz_ls");
		abort();
	}
	layout_free(l);
	diag_release(&d);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct place *p = place();
	const char *tmp = getenv("TMPDIR");

	(void)argc;
	(void)argv;
	snprintf(p->dir, sizeof(p->dir), "%.150s/sdimg-fuzz-ls-XXXXXX",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm"
		 : tmp                         ? tmp
					       : "/tmp");
	if (!mkdtemp(p->dir) || !(p->quiet = fopen("/dev/null", "w"))) {
		perror("fuzz_ls: setting up");
		exit(1);
	}
	atexit(remove_place);
	for (size_t i = 0; i < N_IMAGES; i++)
		build(images[i][0], images[i][1]);
	return 0;
}

static bool names_an_image(const uint8_t *data, size_t size)
{
	for (size_t i = 0; i < N_IMAGES; i++)
		if (size >= 1 && data[0] == (uint8_t)images[i][0][0])
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct place *p = place();
	size_t dir_len = strlen(p->dir);
	char *arg;

	if (size < 2 || !names_an_image(data + 1, size - 1))
		return 0;
	arg = malloc(dir_len + size + 1);
	if (!arg)
		return 0;
	memcpy(arg, p->dir, dir_len);
	arg[dir_len] = '/';
	memcpy(arg + dir_len + 1, data + 1, size - 1);
	arg[dir_len + size] = '\0';
	switch (data[0] & 3) {
	case 0:
		cli_ls_run(arg, false, false, false, p->quiet, p->quiet);
		break;
	case 1:
		cli_ls_run(arg, false, true, false, p->quiet, p->quiet);
		break;
	case 2:
		cli_ls_run(arg, false, true, true, p->quiet, p->quiet);
		break;
	default:
		cli_ls_run(arg, true, false, false, p->quiet, p->quiet);
		break;
	}
	free(arg);
	return 0;
}
