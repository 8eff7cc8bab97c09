/* SPDX-License-Identifier: MIT */
/* Helpers shared by the unit tests that ask outside programs (e2fsprogs, util-linux, gdisk)
 * about an image a test wrote: each check is skipped, with a line saying so, where the
 * program is not installed, unless SDIMG_REQUIRE_TOOLS=1 (what .ci/run sets, where every
 * package of `make deps` is installed): there a missing program fails the test, so the
 * outside judges cannot quietly stop judging. */
#ifndef SDIMG_TESTS_TOOL_TEST_UTIL_H
#define SDIMG_TESTS_TOOL_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* The search path of the programs: sbin too, where e2fsck, debugfs, sfdisk and sgdisk are. */
#define TOOL_PATH "PATH=$PATH:/sbin:/usr/sbin "

/* Whether the program @tool can be run; a line on stderr when not (its check is skipped),
 * and the test fails instead under SDIMG_REQUIRE_TOOLS=1. */
static inline bool have_tool(const char *tool)
{
	const char *require = getenv("SDIMG_REQUIRE_TOOLS");
	char cmd[128];

	snprintf(cmd, sizeof(cmd), TOOL_PATH "command -v %s >/dev/null 2>&1", tool);
	if (system(cmd) == 0)
		return true;
	if (require && strcmp(require, "1") == 0)
		fail_msg("%s not found, and SDIMG_REQUIRE_TOOLS=1 requires it", tool);
	fprintf(stderr, "  (%s not found: its check skipped)\n", tool);
	return false;
}

/* What the shell command @cmd writes on its standard output, at most @n - 1 bytes, in @out
 * (ended by a 0); returns its status as pclose() gives it, or -1 when it cannot be run. */
static inline int tool_output(const char *cmd, char *out, size_t n)
{
	FILE *p = popen(cmd, "r");
	size_t got = 0;

	if (!p)
		return -1;
	while (got + 1 < n) {
		size_t r = fread(out + got, 1, n - 1 - got, p);
		if (r == 0)
			break;
		got += r;
	}
	out[got] = 0;
	return pclose(p);
}

#endif
