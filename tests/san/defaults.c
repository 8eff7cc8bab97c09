/* SPDX-License-Identifier: MIT */
/*
 * defaults: the sanitizer options of sdimg built with SANITIZE=1, for where ASAN_OPTIONS
 * and UBSAN_OPTIONS cannot be read. The sanitizers read the environment from
 * /proc/self/environ, and the end-to-end tests run sdimg with /proc hidden (its fallback to
 * hidden temporary names): there, with the runtime's own defaults, LeakSanitizer (which
 * needs /proc too) would end a clean run with a fatal error. Options in the environment,
 * as tests/run-e2e --sanitized sets them, come after these and win.
 */

/* AddressSanitizer: stop with SIGABRT at the first error (a status no test expects), no
 * leak check unless the environment asks for one. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "halt_on_error=1:abort_on_error=1:detect_leaks=0";
}

/* UndefinedBehaviorSanitizer: the same stop, with the stack. */
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void)
{
	return "halt_on_error=1:abort_on_error=1:print_stacktrace=1";
}
