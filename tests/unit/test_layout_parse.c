/* SPDX-License-Identifier: MIT */
/* Unit tests of the layout parser: the grammar, the section tree, the key table. */
#include "layout_test_util.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "layouts/parse.h"
#include "layouts/schema.h"
#include "layouts/section_tree.h"

/* Parses @text as "t.layout" into @doc; returns what layout_parse() returned. */
static int parse(const char *text, struct diag *d, struct doc *doc)
{
	diag_init(d);
	return layout_parse("t.layout", text, &test_opts, d, doc);
}

/* Parses @text, expects success, and returns the tree (release @doc afterwards). */
static const struct tree_section *parse_ok(const char *text, struct doc *doc)
{
	struct diag d;

	if (parse(text, &d, doc) != 0)
		dump_diag(&d);
	assert_int_equal(d.errors, 0);
	diag_release(&d);
	assert_non_null(doc->top);
	return doc->top;
}

/* Parses @text and expects exactly @n error lines, the first containing @needle. */
static void expect_errors(const char *text, size_t n, const char *needle)
{
	struct diag d;
	struct doc doc;
	int rc = parse(text, &d, &doc);

	if (rc == 0 || d.errors != n || !strstr(d.msgs[0].text, needle)) {
		fprintf(stderr, "  expected %zu error(s), the first containing: %s\n  got:\n", n,
			needle);
		dump_diag(&d);
	}
	assert_int_equal(rc, -EINVAL);
	assert_int_equal(d.errors, n);
	assert_non_null(strstr(d.msgs[0].text, needle));
	layout_doc_release(&doc);
	diag_release(&d);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* ------------------------------------------------------------------ the tree */

static void test_tree_nesting_and_titles(void **state)
{
	struct doc doc;
	char what[300];

	(void)state;
	const struct tree_section
		*top = parse_ok("image { size = 1G }   # a comment\n"
				"partition boot {\n"
				"  type = fat // another\n"
				"  fat { label = \"BOOT\" }\n"
				"  file \"/a b\" { content = 'x' }\n"
				"  dir /logs {}\n"
				"}\n"
				"raw \"${BOARD}-spl\"\n"
				"  /* the title on one line, the brace on the next */\n"
				"  { offset = 8K from = spl.bin }\n"
				"partition\n  data\n  {\n  size\n  =\n  grow\n}\n",
				&doc);
	assert_int_equal(top->n_subs, 4);
	assert_null(top->parent);
	assert_string_equal(top->loc.file, "t.layout");
	assert_int_equal(top->loc.line, 1);

	const struct tree_section *image = top->subs[0];
	assert_string_equal(image->spec->name, "image");
	assert_null(image->title);
	assert_ptr_equal(image->parent, top);
	assert_int_equal(image->n_keys, 1);
	assert_string_equal(image->keys[0].text, "1G");
	assert_int_equal(image->keys[0].value.n, 1ull << 30);

	const struct tree_section *boot = top->subs[1];
	assert_string_equal(boot->title, "boot");
	assert_int_equal(boot->loc.line, 2);
	assert_int_equal(boot->n_keys, 1);
	assert_string_equal(boot->keys[0].value.word, "fat");
	assert_int_equal(boot->keys[0].value.n, LAYOUT_PART_FAT);
	assert_int_equal(boot->keys[0].loc.line, 3);
	assert_int_equal(boot->n_subs, 3);
	assert_string_equal(boot->subs[0]->spec->name, "fat");
	assert_string_equal(layout_tree_key(boot->subs[0], "label")->text, "BOOT");
	assert_string_equal(boot->subs[1]->title, "/a b");
	assert_string_equal(layout_tree_key(boot->subs[1], "content")->text, "x");
	assert_string_equal(boot->subs[2]->title, "/logs");
	assert_int_equal(boot->subs[2]->loc.line, 6);
	assert_ptr_equal(layout_tree_sub(boot, "fat"), boot->subs[0]);
	assert_null(layout_tree_sub(boot, "tree"));
	assert_null(layout_tree_key(boot, "size"));
	layout_tree_what(boot->subs[1], what, sizeof(what));
	assert_string_equal(what, "partition 'boot': file '/a b'");
	layout_tree_what(boot->subs[0], what, sizeof(what));
	assert_string_equal(what, "partition 'boot': fat");
	layout_tree_what(top, what, sizeof(what));
	assert_string_equal(what, "");

	const struct tree_section *spl = top->subs[2];
	assert_string_equal(spl->title, "rpi4-spl");
	assert_int_equal(spl->loc.line, 8);
	assert_string_equal(layout_tree_key(spl, "from")->text, "spl.bin");
	assert_int_equal(layout_tree_key(spl, "offset")->value.n, 8192);

	const struct tree_section *data = top->subs[3];
	assert_string_equal(data->title, "data");
	assert_int_equal(data->loc.line, 11);
	assert_int_equal(data->keys[0].loc.line, 14);
	assert_string_equal(data->keys[0].value.word, "grow");
	assert_int_equal(doc.n_files, 1);
	layout_doc_release(&doc);
}

static void test_empty_and_comment_only(void **state)
{
	struct doc doc;

	(void)state;
	assert_int_equal(parse_ok("", &doc)->n_subs, 0);
	layout_doc_release(&doc);
	assert_int_equal(parse_ok("# nothing\n/* at\nall */ // here\n", &doc)->n_subs, 0);
	layout_doc_release(&doc);
	/* a title may be any string, also an empty one or one that reads like a keyword */
	const struct tree_section *top = parse_ok("partition \"\" {}\npartition include {}\n"
						  "partition '{' {}\npartition \"=\" {}\n",
						  &doc);
	assert_int_equal(top->n_subs, 4);
	assert_string_equal(top->subs[0]->title, "");
	assert_string_equal(top->subs[1]->title, "include");
	assert_string_equal(top->subs[2]->title, "{");
	assert_string_equal(top->subs[3]->title, "=");
	layout_doc_release(&doc);
}

static void test_include_into_a_section(void **state)
{
	struct doc doc;
	struct diag d;

	(void)state;
	assert_int_equal(system("mkdir -p p"), 0);
	write_file("p/main.layout",
		   "partition boot {\n  type = fat\n  include(\"keys.layout\")\n}\n");
	write_file("p/keys.layout", "# keys of boot\nsize = 8M\nfile \"/x\" { content = \"1\" }\n");
	diag_init(&d);
	assert_int_equal(layout_parse("p/main.layout",
				      "partition boot {\n  type = fat\n"
				      "  include(\"keys.layout\")\n}\n",
				      &test_opts, &d, &doc),
			 0);
	const struct tree_section *boot = doc.top->subs[0];
	assert_int_equal(boot->n_keys, 2);
	assert_string_equal(boot->keys[1].loc.file, "p/keys.layout");
	assert_int_equal(boot->keys[1].loc.line, 2);
	assert_string_equal(boot->subs[0]->loc.file, "p/keys.layout");
	assert_int_equal(doc.n_files, 2);
	assert_string_equal(doc.texts[1],
			    "# keys of boot\nsize = 8M\nfile \"/x\" { content = \"1\" }\n");
	layout_doc_release(&doc);
	diag_release(&d);

	/* an include cannot close a section of the file that includes it, nor leave one open */
	write_file("p/close.layout", "size = 8M }\n");
	write_file("p/open.layout", "partition x {\n");
	diag_init(&d);
	assert_int_not_equal(layout_parse("p/m.layout",
					  "partition a {\ninclude(\"close.layout\")\n}", &test_opts,
					  &d, &doc),
			     0);
	assert_true(diag_has(&d, "p/close.layout:1: unexpected '}' (no section is open here)"));
	layout_doc_release(&doc);
	assert_int_not_equal(layout_parse("p/m.layout", "include(\"open.layout\")\n}", &test_opts,
					  &d, &doc),
			     0);
	assert_true(diag_has(&d, "p/open.layout:1: '{' of partition 'x' is never closed"));
	layout_doc_release(&doc);
	diag_release(&d);
}

/* Parses @text as @name with @opts and expects an error line containing @needle. */
static void expect_parse_error(const char *name, const char *text,
			       const struct layout_options *opts, const char *needle)
{
	struct doc doc;
	struct diag d;

	diag_init(&d);
	if (layout_parse(name, text, opts, &d, &doc) == 0 || !diag_has(&d, needle)) {
		fprintf(stderr, "  expected an error containing: %s\n  got:\n", needle);
		dump_diag(&d);
	}
	assert_true(diag_has(&d, needle));
	assert_int_equal(d.errors, 1);
	layout_doc_release(&doc);
	diag_release(&d);
}

/* Parses @text as @name with @opts and expects no error. */
static void expect_parse_ok(const char *name, const char *text, const struct layout_options *opts)
{
	struct doc doc;
	struct diag d;

	diag_init(&d);
	if (layout_parse(name, text, opts, &d, &doc) != 0)
		dump_diag(&d);
	assert_int_equal(d.errors, 0);
	layout_doc_release(&doc);
	diag_release(&d);
}

/* 16 nested includes are the limit: accepted; a 17th is refused where it is named. */
static void test_include_depth_edges(void **state)
{
	char name[32], text[64];

	(void)state;
	assert_int_equal(system("mkdir -p p"), 0);
	for (int i = 1; i < 16; i++) {
		snprintf(name, sizeof(name), "p/d%d.layout", i);
		snprintf(text, sizeof(text), "include(\"d%d.layout\")\n", i + 1);
		write_file(name, text);
	}
	write_file("p/d16.layout", "# the 16th include\n");
	expect_parse_ok("p/d0.layout", "include(\"d1.layout\")\n", &test_opts);
	write_file("p/d16.layout", "include(\"d17.layout\")\n");
	write_file("p/d17.layout", "# one too deep\n");
	expect_parse_error("p/d0.layout", "include(\"d1.layout\")\n", &test_opts,
			   "p/d16.layout:1: include(\"d17.layout\"): includes nested more than 16 "
			   "deep");
}

/* @n lines of include("@file") into a new string (free() it). */
static char *includes_text(const char *file, int n)
{
	size_t each = strlen(file) + 12;
	char *text = malloc(each * (size_t)n + 1);

	assert_non_null(text);
	text[0] = '\0';
	for (int i = 0; i < n; i++)
		snprintf(text + strlen(text), each + 1, "include(\"%s\")\n", file);
	return text;
}

/* The number of includes, and the text of the layout with its includes, are bounded before
 * anything is read: an include bomb or one big file included many times fails at once. */
static void test_include_limits(void **state)
{
	char *text;

	(void)state;
	assert_int_equal(system("mkdir -p p"), 0);
	write_file("p/leaf.layout", "# leaf\n");
	text = includes_text("leaf.layout", 256);
	expect_parse_ok("p/m.layout", text, &test_opts);
	free(text);
	text = includes_text("leaf.layout", 257);
	expect_parse_error("p/m.layout", text, &test_opts,
			   "p/m.layout:257: include(\"leaf.layout\"): more than 256 includes in "
			   "one "
			   "layout");
	free(text);

	/* 600 KiB is fine once; twice it takes the layout past 1 MiB */
	text = malloc(600 << 10);
	assert_non_null(text);
	memset(text, '#', (600 << 10) - 1);
	text[(600 << 10) - 1] = '\0';
	write_file("p/big.layout", text);
	expect_parse_ok("p/m.layout", "include(\"big.layout\")\n", &test_opts);
	expect_parse_error("p/m.layout", "include(\"big.layout\")\ninclude(\"big.layout\")\n",
			   &test_opts,
			   "p/m.layout:2: include(\"big.layout\"): p/big.layout: too large: a "
			   "layout "
			   "with its includes and its variables' values holds at most 1 MiB of "
			   "text");
	free(text);
	text = malloc(LAYOUT_TEXT_MAX + 2);
	assert_non_null(text);
	memset(text, '#', LAYOUT_TEXT_MAX + 1);
	text[LAYOUT_TEXT_MAX + 1] = '\0';
	expect_parse_error("t.layout", text, &test_opts,
			   "t.layout: too large: a layout with its "
			   "includes and its variables' values holds at most 1 MiB of text");
	text[LAYOUT_TEXT_MAX] = '\0';
	expect_parse_ok("t.layout", text, &test_opts);
	free(text);
}

/* A FIFO (or a device, a socket) is never waited on: refused in one line. */
static void test_include_of_a_fifo(void **state)
{
	(void)state;
	/* a parse that waits on the FIFO ends the test program (SIGALRM), never hangs it */
	alarm(30);
	assert_int_equal(system("mkdir -p p && rm -f p/fifo.layout && mkfifo p/fifo.layout"), 0);
	expect_parse_error("p/m.layout", "include(\"fifo.layout\")\n", &test_opts,
			   "p/m.layout:1: include(\"fifo.layout\"): p/fifo.layout: not a regular "
			   "file (a FIFO, a socket or a device): a layout is read only from a "
			   "file");
	expect_parse_error("p/m.layout", "include(\"/dev/null\")\n", &test_opts,
			   "p/m.layout:1: include(\"/dev/null\"): /dev/null: not a regular file");
	alarm(0);
}

/* ${VAR}: one value holds at most 64 KiB, and all the values put in count towards the
 * layout's 1 MiB of text. */
static void test_variable_limits(void **state)
{
	char *big = malloc(LAYOUT_VALUE_MAX + 2);
	struct layout_var vars[] = { { "BIG", big } };
	struct layout_options o = { .vars = vars, .n_vars = 1 };
	char text[16 * 64];

	(void)state;
	assert_non_null(big);
	memset(big, 'v', LAYOUT_VALUE_MAX + 1);
	big[LAYOUT_VALUE_MAX + 1] = '\0';
	expect_parse_error("t.layout", "\npartition a { from = ${BIG} }", &o,
			   "t.layout:2: ${BIG} is 65537 bytes long: a variable's value holds at "
			   "most "
			   "64 KiB");
	big[LAYOUT_VALUE_MAX] = '\0';
	text[0] = '\0';
	for (int i = 0; i < 15; i++)
		snprintf(text + strlen(text), 64, "partition p%d { from = \"${BIG}\" }\n", i);
	expect_parse_ok("t.layout", text, &o);
	strcat(text, "partition p15 { from = ${BIG} }\n");
	expect_parse_error("t.layout", text, &o,
			   "t.layout:16: ${BIG}: too large: a layout with its includes and its "
			   "variables' values holds at most 1 MiB of text");
	free(big);
}

/* A UTF-8 byte order mark opens a layout or an included file: skipped. Elsewhere it is
 * text like any other. */
static void test_byte_order_mark(void **state)
{
	struct doc doc;
	const struct tree_section *top;

	(void)state;
	top = parse_ok("\xef\xbb\xbfpartition a {}\n", &doc);
	assert_int_equal(top->n_subs, 1);
	assert_string_equal(top->subs[0]->title, "a");
	layout_doc_release(&doc);
	assert_int_equal(system("mkdir -p p"), 0);
	write_file("p/bom.layout", "\xef\xbb\xbfsize = 8M\n");
	expect_parse_ok("p/m.layout", "partition a {\ninclude(\"bom.layout\")\n}\n", &test_opts);
	expect_errors("partition a {}\n\xef\xbb\xbfpartition b {}\n", 1,
		      "t.layout:2: unknown "
		      "section '<U+FEFF>partition'");
}

/* ------------------------------------------------------------------ syntax errors */

static void test_stray_symbols(void **state)
{
	(void)state;
	expect_errors("partition a { size = 4M, from = x }", 1,
		      "t.layout:1: partition 'a': unexpected ',' (keys are separated by spaces or "
		      "line breaks, not commas)");
	expect_errors("\n= 4M", 1, "t.layout:2: unexpected '=' (a key name must come before it)");
	expect_errors("partition a {\n += 4M }", 1,
		      "t.layout:2: partition 'a': unexpected '+=' (a key name must come before "
		      "it)");
	expect_errors("{ }", 1, "t.layout:1: unexpected '{' (a section name must come before it)");
	expect_errors("partition a { ( }", 1,
		      "t.layout:1: partition 'a': unexpected '(' (only include(\"file\") takes "
		      "parentheses)");
	expect_errors(")", 1, "t.layout:1: unexpected ')'");
	expect_errors("partition a { }\n}", 1,
		      "t.layout:2: unexpected '}' (no section is open here)");
	/* a syntax error stops the parse: nothing after it is reported */
	expect_errors("partition a { , }\npartition b { sise = 1 }", 1, "unexpected ','");
}

static void test_key_syntax(void **state)
{
	(void)state;
	expect_errors("partition a {\n size 4M\n}", 1,
		      "t.layout:2: partition 'a': missing '=' after key 'size'");
	expect_errors("partition a {\n size\n}", 1,
		      "t.layout:2: partition 'a': missing '=' after key 'size'");
	expect_errors("partition a { type = fat\n fat { fats } }", 1,
		      "t.layout:2: partition 'a': fat: missing '=' after key 'fats'");
	expect_errors("partition a {\n size += 4M\n}", 1,
		      "t.layout:2: partition 'a': size: '+=' is not supported: write 'size = ...' "
		      "(every key "
		      "takes one value)");
	expect_errors("partition a {\n size { }\n}", 1,
		      "t.layout:2: partition 'a': size is a key, not a section: write 'size = "
		      "...'");
	expect_errors("partition a {\n size = { 4M, 8M }\n}", 1,
		      "t.layout:2: partition 'a': size: takes one value, not a { } list");
	expect_errors("partition a {\n size = {}\n}", 1, "size: takes one value, not a { } list");
	expect_errors("partition a {\n size =\n}", 1,
		      "t.layout:2: partition 'a': size: a value must follow '=' (found '}')");
	expect_errors("partition a {\n size = = 4M\n}", 1,
		      "size: a value must follow '=' (found '=')");
	expect_errors("image {\n size =", 1,
		      "t.layout:2: image: size: a value must follow '=' (the file ends)");
}

static void test_section_syntax(void **state)
{
	(void)state;
	expect_errors("\npartition {\n}", 1, "t.layout:2: missing title for section 'partition'");
	expect_errors("partition", 1, "t.layout:1: missing title for section 'partition'");
	expect_errors("partition a", 1,
		      "t.layout:1: missing opening brace for section 'partition'");
	expect_errors("partition a b { }", 1,
		      "t.layout:1: missing opening brace for section 'partition'");
	expect_errors("partition a { type = fat\n file\n}", 1,
		      "t.layout:2: partition 'a': missing title for section 'file'");
	expect_errors("partition a { type = fat\n file \"/x\" content = 1 }", 1,
		      "t.layout:2: partition 'a': missing opening brace for section 'file'");
	expect_errors("image = 3", 1, "t.layout:1: missing opening brace for section 'image'");
	expect_errors("image", 1, "t.layout:1: missing opening brace for section 'image'");
	expect_errors("image x { }", 1, "t.layout:1: section 'image' takes no title");
	expect_errors("partition a { type = fat\n fat \"x\" { } }", 1,
		      "t.layout:2: partition 'a': section 'fat' takes no title");
	expect_errors("partition a {\n\n", 1,
		      "t.layout:1: '{' of partition 'a' is never closed (a '}' is missing)");
	expect_errors("image {\n", 1, "t.layout:1: '{' of image is never closed");
	expect_errors("partition a { type = fat\n file \"/x\" {\n", 1,
		      "t.layout:2: '{' of file '/x' is never closed");
	/* an unknown section is skipped whole: its braces must balance all the same */
	expect_errors("\nwhatever x { a { b = { c } }\n", 2,
		      "t.layout:2: unknown section 'whatever'");
	expect_errors("whatever x {\n", 2, "");
}

static void test_include_syntax(void **state)
{
	(void)state;
	expect_errors("include(\"a\", \"b\")", 1,
		      "t.layout:1: include() takes one file name: include(\"x.layout\")");
	expect_errors("include()", 1, "include() takes one file name");
	expect_errors("include(\"a\"", 1, "include() takes one file name");
	expect_errors("\ninclude \"a\"", 1, "t.layout:2: include() takes one file name");
	expect_errors("include(\"nope.layout\")", 1,
		      "t.layout:1: include(\"nope.layout\"): ./nope.layout: No such file or "
		      "directory");
	expect_errors("include(\"/\")", 1, "include(\"/\"): /: Is a directory");
	assert_int_equal(system("printf 'a\\000b' >nul.layout"), 0);
	expect_errors("include(\"nul.layout\")", 1,
		      "include(\"nul.layout\"): ./nul.layout: not a text file (it holds a NUL "
		      "byte)");
	/* `include` without parentheses is a name like any other */
	expect_errors("include = 3", 1, "t.layout:1: unknown section 'include'");
	expect_errors("partition a { include = 3 }", 1,
		      "t.layout:1: unknown key 'include' in partition 'a'");
}

static void test_lexer_errors(void **state)
{
	(void)state;
	expect_errors("partition a {\n from = \"abc\n}", 1,
		      "t.layout:2: string not closed (a \" is missing)");
	expect_errors("partition a {\n from = 'abc\n}", 1,
		      "t.layout:2: string not closed (a ' is missing)");
	expect_errors("\n/* never closed", 1, "t.layout:2: comment not closed (a '*/' is missing)");
	expect_errors("partition a {\n size = 4M +\n}", 1, "t.layout:2: unexpected character '+'");
	expect_errors("partition a { from = \"${BOARD\"\n}", 1,
		      "t.layout:1: '${' without a closing '}'");
	expect_errors("partition a { from = \"${1X}\" }", 1,
		      "'${' must be followed by a variable name");
	expect_errors("partition a { from = ${UNSET_VAR} }", 1,
		      "t.layout:1: variable ${UNSET_VAR} is not set");
	expect_errors("partition a { from = \"\\400\" }", 1,
		      "t.layout:1: invalid octal escape '\\400'");
	expect_errors("partition a { from = \"\\9\" }", 1,
		      "t.layout:1: unknown escape '\\9' in a string");
	/* a unit cut off its number by a space: one error that says so, not "unknown key 'M'" */
	expect_errors("image { size = 8 M }", 1,
		      "t.layout:1: image: size = 8 M: a number and its unit go without a space "
		      "between them (8M)");
	expect_errors("partition a { size = 4 MiB\n start = 1 G }", 2,
		      "size = 4 MiB: a number and its unit");
	/* an unknown escape is an error, not silently the bare character */
	expect_errors("partition a { from = \"C:\\data\" }", 1,
		      "t.layout:1: unknown escape '\\d' in a string (write '\\\\' for a backslash, "
		      "or use single quotes)");
	expect_errors("partition a { from = \"\\xg\" }", 1,
		      "t.layout:1: unknown escape '\\x' in a string");
	expect_errors("partition a { from = \"a\\0\" }", 1,
		      "a NUL character cannot stand in a string");
}

/* Sections nested 36,000 deep: the schema stops at the first unknown one (no recursion
 * whose depth the input controls), with two errors. */
static void test_deep_nesting(void **state)
{
	const char *open[] = { "image { ", "partition p { file \"/a\" { " };

	(void)state;
	for (size_t k = 0; k < 2; k++) {
		size_t len = strlen(open[k]);
		char *text = malloc(len * 36000 + 1);
		assert_non_null(text);
		for (size_t i = 0; i < 36000; i++)
			memcpy(text + i * len, open[k], len);
		text[len * 36000] = '\0';
		expect_errors(text, 2, "t.layout:1: unknown section");
		free(text);
	}
}

/* Every documented escape of a double-quoted string gives its character. */
static void test_known_escapes(void **state)
{
	struct doc doc;
	const struct tree_section *top =
		parse_ok("raw r { from = \"\\n\\t\\r\\\\\\\"\\$\\'\\a\\b\\e\\f\\v\\101\\x42\" }",
			 &doc);

	(void)state;
	assert_string_equal(layout_tree_key(top->subs[0], "from")->text,
			    "\n\t\r\\\"$'\a\b\033\f\vAB");
	layout_doc_release(&doc);
}

/* ------------------------------------------------------------------ names and values */

static void test_unknown_names_all_reported(void **state)
{
	struct diag d;
	struct doc doc;

	(void)state;
	assert_int_equal(parse("partiton a { size = 4M }\n"
			       "partition b {\n bootabel = true\n siez = 4M\n colour = { red }\n"
			       " fta { x = 1 }\n tre \"/\" { from = x }\n}\n"
			       "partition c { type = fat\n fat { lable = X }\n"
			       " file \"/a\" { contents = \"x\" }\n}\n",
			       &d, &doc),
			 -EINVAL);
	assert_int_equal(d.errors, 8);
	assert_string_equal(d.msgs[0].text,
			    "t.layout:1: unknown section 'partiton' (did you mean 'partition'?)");
	assert_string_equal(d.msgs[1].text, "t.layout:3: unknown key 'bootabel' in partition 'b' "
					    "(did you mean 'bootable'?)");
	assert_string_equal(d.msgs[2].text, "t.layout:4: unknown key 'siez' in partition 'b' (did "
					    "you mean 'size'?)");
	assert_string_equal(d.msgs[3].text, "t.layout:5: unknown key 'colour' in partition 'b'");
	/* a name followed by a brace is a section: the suggestion is a section too */
	assert_string_equal(d.msgs[4].text, "t.layout:6: unknown section 'fta' in partition 'b' "
					    "(did you mean 'fat'?)");
	assert_string_equal(d.msgs[5].text, "t.layout:7: unknown section 'tre' in partition 'b' "
					    "(did you mean 'tree'?)");
	assert_string_equal(d.msgs[6].text, "t.layout:10: unknown key 'lable' in partition 'c': "
					    "fat (did you mean 'label'?)");
	assert_string_equal(d.msgs[7].text, "t.layout:11: unknown key 'contents' in partition 'c': "
					    "file '/a' (did you mean 'content'?)");
	layout_doc_release(&doc);
	diag_release(&d);
	/* a file that is no layout at all stops after 20 errors */
	char words[400] = "";
	for (int i = 0; i < 30; i++)
		snprintf(words + strlen(words), sizeof(words) - strlen(words), "word%d\n", i);
	assert_int_equal(parse(words, &d, &doc), -EINVAL);
	assert_int_equal(d.errors, 21);
	assert_string_equal(d.msgs[20].text, "t.layout:20: stopping after 20 errors");
	layout_doc_release(&doc);
	diag_release(&d);
	/* a stray value reads as a key name */
	expect_errors("partition a {\n size = 4M 8M\n}", 1,
		      "t.layout:2: unknown key '8M' in partition 'a'");
	expect_errors("foo = bar", 1, "t.layout:1: unknown section 'foo'");
}

static void test_repeats(void **state)
{
	(void)state;
	expect_errors("image {}\npartition a {}\nimage {}\nimage {}", 2,
		      "t.layout:3: section 'image' appears twice in the top level (first on "
		      "t.layout:1)");
	expect_errors("partition a { type = fat\n fat { }\n fat { } }", 1,
		      "t.layout:3: section 'fat' appears twice in partition 'a' (first on "
		      "t.layout:2)");
	expect_errors("partition a { type = fat\n fat {\n label = A\n label = B } }", 1,
		      "t.layout:4: key 'label' appears twice in partition 'a': fat (first on "
		      "t.layout:3)");
	expect_errors("image {\n seed = a\n seed = a }", 1,
		      "t.layout:3: key 'seed' appears twice in image (first on t.layout:2)");
	/* titled sections repeat, whatever their titles */
	struct doc doc;
	const struct tree_section *top =
		parse_ok("partition a { type = fat\n tree / { from = x }\n tree / { from = y } }\n"
			 "partition a {}\n",
			 &doc);
	assert_int_equal(top->n_subs, 2);
	assert_int_equal(top->subs[0]->n_subs, 2);
	layout_doc_release(&doc);
}

static void test_value_types(void **state)
{
	(void)state;
	/* every value is checked against its key's type as it is read, each with its line */
	expect_errors("image {\n size = 4X\n align = 1000\n table = dos\n timestamp = -1\n}\n"
		      "partition a {\n bootable = maybe\n uuid = 1234\n gpt-type = ext9\n"
		      " start = 0\n size = 0\n mbr-type = 0x100\n}\n",
		      9, "t.layout:2: image: size: unknown unit in '4X'");
	expect_errors("image {\n align = 1000\n}", 1,
		      "t.layout:2: image: align: 1000 is not a multiple of 512 bytes");
	expect_errors("image {\n align = 0\n}", 1, "t.layout:2: image: align: must not be 0");
	expect_errors("partition a {\n size = autom\n}", 1,
		      "t.layout:2: partition 'a': size: 'autom' is not a size");
	expect_errors("partition a {\n uuid = 1234\n}", 1,
		      "t.layout:2: partition 'a': uuid: '1234' is not a GUID");
	expect_errors("partition a { type = fat\n file \"/a\" { content = x\n attrs = "
		      "\"hidden,blue\" } }",
		      1, "t.layout:3: partition 'a': file '/a': attrs: 'blue' is not an attribute");
	expect_errors("partition a { type = fat\n fat {\n volume-id = 0x100000000 } }", 1,
		      "t.layout:3: partition 'a': fat: volume-id: 0x100000000 is out of range (0 "
		      "to 4294967295)");
	expect_errors("image {\n mtime = sometimes\n}", 1,
		      "t.layout:2: image: mtime: 'sometimes' is not one of fixed or source");

	/* a partition size takes a byte count or one of two words */
	struct doc doc;
	const struct tree_section
		*top = parse_ok("partition a { size = auto }\npartition b { size = 8M }\n", &doc);
	assert_string_equal(top->subs[0]->keys[0].value.word, "auto");
	assert_null(top->subs[1]->keys[0].value.word);
	assert_int_equal(top->subs[1]->keys[0].value.n, 8u << 20);
	layout_doc_release(&doc);
}

/* ------------------------------------------------------------------ the key table */

/* Every key of @s, and of the sections inside it, has a type and its own name. */
static void check_section_spec(const struct section_spec *s, unsigned depth)
{
	assert_true(depth < 4);
	for (const struct key_spec *k = s->keys; k->name; k++) {
		assert_ptr_equal(layout_schema_key(s, k->name), k);
		assert_null(layout_schema_section(s, k->name)); /* no name is both */
		if (k->type == KEY_CHOICE)
			assert_non_null(k->words);
		if (k->type == KEY_UINT)
			assert_true(k->min <= k->max);
	}
	for (const struct section_spec *const *c = s->sections; c && *c; c++) {
		assert_ptr_equal(layout_schema_section(s, (*c)->name), *c);
		assert_true((*c)->titled == (*c)->repeats); /* as the language has them today */
		check_section_spec(*c, depth + 1);
	}
}

static void test_key_table(void **state)
{
	const struct section_spec *top = layout_schema_top();
	const struct section_spec *part = layout_schema_section(top, "partition");
	struct key_value v;
	struct why why;

	(void)state;
	check_section_spec(top, 0);
	assert_null(top->keys[0].name);
	assert_non_null(layout_schema_section(top, "image"));
	assert_non_null(layout_schema_section(top, "raw"));
	assert_null(layout_schema_section(top, "fat"));
	assert_non_null(layout_schema_section(part, "fat"));
	assert_null(layout_schema_key(part, "offset"));

	/* the checks each type makes */
	assert_int_equal(layout_schema_value(layout_schema_key(part, "start"), "8192s", &v, &why),
			 0);
	assert_int_equal(v.n, 8192ull * 512);
	assert_int_not_equal(layout_schema_value(layout_schema_key(part, "start"), "100", &v, &why),
			     0);
	assert_string_equal(why.text, "100 is not a multiple of 512 bytes");
	assert_int_equal(layout_schema_value(layout_schema_key(part, "size"), "grow", &v, &why), 0);
	assert_string_equal(v.word, "grow");
	assert_int_equal(layout_schema_value(layout_schema_key(part, "bootable"), "On", &v, &why),
			 0);
	assert_int_equal(v.n, 1);
	assert_int_equal(layout_schema_value(layout_schema_key(part, "type"), "fat16", &v, &why),
			 0);
	assert_int_equal(v.n, LAYOUT_PART_FAT16);
	assert_int_equal(layout_schema_value(layout_schema_key(part, "type"), "ext4", &v, &why), 0);
	assert_int_equal(v.n, LAYOUT_PART_EXT4);
	assert_int_not_equal(layout_schema_value(layout_schema_key(part, "type"), "ext3", &v, &why),
			     0);
	assert_string_equal(why.text,
			    "'ext3' is not one of raw, fat, fat12, fat16, fat32, ext4 or exfat");
	assert_int_equal(layout_schema_value(layout_schema_key(part, "gpt-type"), "esp", &v, &why),
			 0);
	assert_int_equal(v.guid.b[0], 0xC1);
	assert_int_equal(layout_schema_value(layout_schema_key(part, "mbr-type"), "0x83", &v, &why),
			 0);
	assert_int_equal(v.n, 0x83);
	assert_int_not_equal(layout_schema_value(layout_schema_key(part, "mbr-type"), "0", &v,
						 &why),
			     0);
	assert_string_equal(why.text, "0 is out of range (1 to 255)");
	/* the disk id's form depends on the table: the reader checks it */
	const struct key_spec *id = layout_schema_key(layout_schema_section(top, "image"),
						      "disk-id");
	assert_int_equal(layout_schema_value(id, "anything", &v, &why), 0);

	/* suggestions stay within the kind of name: keys for keys, sections for sections */
	assert_string_equal(layout_schema_suggest(part, "sise", false), "size");
	assert_null(layout_schema_suggest(part, "bootabel", true));
	assert_string_equal(layout_schema_suggest(part, "fta", true), "fat");
	assert_null(layout_schema_suggest(part, "completely-different", false));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree_nesting_and_titles),
		cmocka_unit_test(test_empty_and_comment_only),
		cmocka_unit_test(test_include_into_a_section),
		cmocka_unit_test(test_include_depth_edges),
		cmocka_unit_test(test_include_limits),
		cmocka_unit_test(test_include_of_a_fifo),
		cmocka_unit_test(test_variable_limits),
		cmocka_unit_test(test_byte_order_mark),
		cmocka_unit_test(test_stray_symbols),
		cmocka_unit_test(test_key_syntax),
		cmocka_unit_test(test_section_syntax),
		cmocka_unit_test(test_include_syntax),
		cmocka_unit_test(test_lexer_errors),
		cmocka_unit_test(test_known_escapes),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_unknown_names_all_reported),
		cmocka_unit_test(test_repeats),
		cmocka_unit_test(test_value_types),
		cmocka_unit_test(test_key_table),
	};
	return cmocka_run_group_tests_name("layout_parse", tests, NULL, NULL);
}
