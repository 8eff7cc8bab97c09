/* SPDX-License-Identifier: MIT */
/* Unit tests of layouts/: errors of the layout language, each naming its FILE:LINE. */
#include "layout_test_util.h"

/* ------------------------------------------------------------------ errors, with lines */

static void test_errors_syntax(void **state)
{
	(void)state;
	/* every message names the real line, after comments of any kind */
	expect_error("# a\n# b\n// c\npartition boot {\n  bootabel = true\n}",
		     "t.layout:5: unknown key 'bootabel' in partition 'boot' (did you mean "
		     "'bootable'?)");
	expect_error("/* one\n two */\npartition boot { type = fat\n  fat { lable = \"X\" } }",
		     "t.layout:4: unknown key 'lable' in partition 'boot': fat (did you mean "
		     "'label'?)");
	expect_error("\npartiton boot {}",
		     "t.layout:2: unknown section 'partiton' (did you mean 'partition'?)");
	expect_error("image { size = 1G }\nimage { size = 2G }",
		     "t.layout:2: section 'image' appears twice in the top level (first on "
		     "t.layout:1)");
	expect_error("partition boot {\n  size = 4M\n  size = 8M\n}",
		     "t.layout:3: key 'size' appears twice in partition 'boot' (first on "
		     "t.layout:2)");
	expect_error("partition boot {\n  size = 4M\n\n",
		     "t.layout:1: '{' of partition 'boot' is never closed");
	expect_error("partition boot {\n}\n}", "t.layout:3: unexpected '}'");
	expect_error("partition boot {\n from = \"abc\n}", "t.layout:2: string not closed");
	expect_error("partition boot { type = fat\n fat = 3\n}",
		     "t.layout:2: partition 'boot': missing opening brace");
	expect_error("partition {\n}", "t.layout:1: missing title for section 'partition'");
	expect_error("partition a {\n size = 4M 8M\n}",
		     "t.layout:2: unknown key '8M' in partition 'a'");
	expect_error("/* never closed\n", "t.layout:1: comment not closed");
}

static void test_errors_values(void **state)
{
	(void)state;
	expect_error("partition boot {\n bootable = maybe\n}",
		     "t.layout:2: partition 'boot': bootable: 'maybe' is not a boolean");
	expect_error("\nimage {\n size = 64X\n}", "t.layout:3: image: size: unknown unit in '64X'");
	expect_error("partition boot { type = fat\n fat {\n  fats = 3 } }",
		     "t.layout:3: partition 'boot': fat: fats: 3 is out of range (1 to 2)");
	expect_error("partition boot { type = fat\n fat { label = \"TWELVE CHARS\" } }",
		     "t.layout:2: partition 'boot': fat: label: 'TWELVE CHARS' is longer than 11");
	expect_error("partition \"\" { size = 4M }",
		     "t.layout:1: partition '': a partition needs a name");
	expect_error("image { table = gpt }\npartition "
		     "\"a-name-much-longer-than-thirty-six-characters\" { size = 4M }",
		     "t.layout:2: partition 'a-name-much-longer-than-thirty-six-characters': the "
		     "name is longer than the 36");
	expect_error("partition p { type = fat\n file \"/a\" { content = \"a\\x00b\" } }",
		     "t.layout:2: a NUL character cannot stand in a string");
	expect_error("partition p { type = fat\n file \"/a\" { content = \"${\" } }",
		     "t.layout:2: '${' must be followed by a variable name");
	expect_error("partition p { size = 2000000T }",
		     "t.layout:1: partition 'p': size: '2000000T' is too large");
	expect_error("image {\n align = 2T\n}",
		     "t.layout:2: image: align: 2199023255552 is larger than 1 TiB");
	expect_error("partition boot { type = fat\n fat { label = \"A/B\" } }",
		     "'/' cannot stand in a FAT volume label");
	expect_error("partition boot { type = fat\n fat { cluster-size = 3K } }",
		     "t.layout:2: partition 'boot': fat: cluster-size: 3072 is not a power of two "
		     "from 512 to 64K");
	expect_error("partition boot { type = fat\n fat { cluster-size = 128K } }",
		     "131072 is not a power of two");
	expect_error("partition boot { type = fat\n fat { root-entries = 100 } }",
		     "100 is not a multiple of 16");
	expect_error("partition boot { type = fat32\n fat { root-entries = 256 } }",
		     "FAT32 has no fixed root directory");
	/* written out, the value that is also the default still counts as set */
	expect_error("partition boot { type = fat32\n fat { root-entries = 512 } }",
		     "FAT32 has no fixed root directory");
	expect_error("partition boot { type = fat\n fat { oem-name = \"NINECHARS\" } }",
		     "longer than 8 characters");
	expect_error("partition boot {\n size = 1000\n}",
		     "t.layout:2: partition 'boot': size: 1000 is not a multiple of 512 bytes");
	expect_error("partition boot {\n start = 4097\n}",
		     "t.layout:2: partition 'boot': start: 4097 is not a multiple of 512");
	expect_error("partition boot {\n type = ext3\n}",
		     "t.layout:2: partition 'boot': type: 'ext3' is not one of raw, fat, fat12, "
		     "fat16, fat32, ext4 or exfat");
	expect_error("partition boot {\n type = fat\n tree \"/\" { from = \"x\" owner = 0 } }",
		     "t.layout:3: partition 'boot': tree '/': owner: only an ext4 partition has "
		     "owners");
	expect_error("partition boot {\n type = fat\n tree \"/\" { from = \"x\" owners = host } }",
		     "t.layout:3: partition 'boot': tree '/': owners: only an ext4 partition has "
		     "owners");
	expect_error("partition root {\n type = ext4\n tree \"/\" { from = \"x\" owners = me } }",
		     "t.layout:3: partition 'root': tree '/': owners: 'me' is not one of host or "
		     "root");
	expect_error("partition root {\n type = ext4\n tree \"/\" { from = \"x\" links = refuse } "
		     "}",
		     "t.layout:3: partition 'root': tree '/': links: an ext4 partition keeps "
		     "symbolic "
		     "links as links and follows none (only a FAT or exFAT tree has it)");
	expect_error("partition boot {\n type = fat\n tree \"/\" { from = \"x\" links = copy } }",
		     "t.layout:3: partition 'boot': tree '/': links: 'copy' is not one of inside, "
		     "follow or refuse");
	expect_error("partition boot {\n type = fat\n ext4 { journal = false } }",
		     "t.layout:3: partition 'boot': ext4: an ext4 { } section needs type = ext4");
	expect_error("partition root {\n type = ext4\n file \"/a\" { content = \"x\" attrs = "
		     "hidden } }",
		     "t.layout:3: partition 'root': file '/a': attrs: only a FAT or exFAT "
		     "partition "
		     "has it");
	expect_error("partition root {\n type = ext4\n file \"/a\" { content = 'x' per-card = true "
		     "reserve = 4K } }",
		     "t.layout:3: partition 'root': file '/a': per-card: only a FAT or exFAT "
		     "partition has per-card files");
	expect_error("partition root {\n type = ext4\n ext4 { block-size = 8K } }",
		     "t.layout:3: partition 'root': ext4: block-size: 8192 is not 1K, 2K or 4K");
	expect_error("image {\n table = dos\n}",
		     "t.layout:2: image: table: 'dos' is not one of mbr, gpt, none or hybrid");
	expect_error("image {\n mtime = now\n}", "'now' is not one of fixed or source");
	expect_error("image {\n disk-id = 0x123456789\n}",
		     "t.layout:2: image: disk-id: 0x123456789 is out of range");
	expect_error("image { table = gpt\n disk-id = 0x1234\n}",
		     "t.layout:2: image: disk-id: '0x1234' is not a GUID");
	expect_error("image {\n gpt-entries = 1M\n}",
		     "t.layout:2: image: gpt-entries: only a gpt table");
	expect_error("image { table = gpt\n gpt-entries = 512\n}", "cannot start before byte 1024");
	expect_error("image {\n timestamp = -5\n}",
		     "t.layout:2: image: timestamp: '-5' is not a whole number");
	expect_error("image {\n seed = \"\"\n}", "t.layout:2: image: seed: must not be empty");
	expect_error("image {\n align = 0\n}", "t.layout:2: image: align: must not be 0");
	expect_error("partition p {\n mbr-type = 0x05\n}", "0x05 is an extended partition type");
	expect_error("partition p {\n mbr-type = 256\n}",
		     "t.layout:2: partition 'p': mbr-type: 256 is out of range");
	expect_error("image { table = gpt }\npartition p {\n mbr-type = 0x83\n}",
		     "t.layout:3: partition 'p': mbr-type: only an mbr table");
	expect_error("partition p {\n uuid = \"11111111-2222-3333-4444-555555555555\"\n}",
		     "t.layout:2: partition 'p': uuid: only a gpt table has it");
	expect_error("image { table = gpt }\npartition p {\n gpt-type = linux-root-m68k\n}",
		     "t.layout:3: partition 'p': gpt-type: 'linux-root-m68k' is neither a GUID");
	expect_error("image { table = gpt }\npartition p {\n label = "
		     "\"0123456789012345678901234567890123456\"\n}",
		     "t.layout:3: partition 'p': label: '0123456789012345678901234567890123456' is "
		     "longer than the 36 UTF-16 units");
	/* an encoded surrogate (U+D800) and an overlong '/' are not UTF-8, in a label or a name */
	expect_error("image { table = gpt }\npartition p {\n label = \"x\\xED\\xA0\\x80y\"\n}",
		     "t.layout:3: partition 'p': label: is not valid UTF-8");
	expect_error("image { table = gpt }\npartition p {\n label = \"x\\xC0\\xAFy\"\n}",
		     "t.layout:3: partition 'p': label: is not valid UTF-8");
	expect_error("image { table = gpt }\npartition \"x\\xED\\xA0\\x80y\" {\n size = 4M\n}",
		     "the name is not valid UTF-8: set a 'label' that is");
	expect_error("partition p { type = fat\n file \"/a\" { content = \"x\"\n  attrs = "
		     "\"readonly,secret\" } }",
		     "t.layout:3: partition 'p': file '/a': attrs: 'secret' is not an attribute");
	expect_error("partition p { type = fat\n tree \"/\" { from = \"x\"\n strip = many } }",
		     "t.layout:3: partition 'p': tree '/': strip: 'many'");
	expect_error("partition p {\n size = 4M\n extra = 1M\n}",
		     "t.layout:3: partition 'p': extra: only adds to size = auto");
}

static void test_errors_rules(void **state)
{
	(void)state;
	expect_error("partition boot { size = 4M }\n\npartition boot { size = 8M }",
		     "t.layout:3: the name 'boot' is taken (by t.layout:1)");
	expect_error("raw boot { offset = 0 from = \"x\" }\npartition boot { size = 8M }",
		     "t.layout:2: the name 'boot' is taken (by t.layout:1)");
	expect_error("partition data {\n size = 8M\n tree \"/\" { from = \"x\" } }",
		     "t.layout:3: partition 'data': tree, file and dir need a FAT, exFAT or ext4 "
		     "partition");
	expect_error("partition data {\n fat { fats = 1 } }",
		     "t.layout:2: partition 'data': fat: a fat { } section needs type = fat");
	expect_error("partition boot { type = fat\n file \"/a\" {\n from = \"x\"\n content = \"y\" "
		     "} }",
		     "t.layout:4: partition 'boot': file '/a': content: 'from' and 'content' are "
		     "both set");
	expect_error("partition boot { type = fat\n file \"/a\" { first = true } }",
		     "t.layout:2: partition 'boot': file '/a': needs 'from' (a host file) or "
		     "'content'");
	expect_error("partition boot { type = fat\n tree \"/\" { strip = 1 } }",
		     "t.layout:2: partition 'boot': tree '/': 'from' is required");
	expect_error("partition boot { type = fat\n file \"config.txt\" { from = \"c\" } }",
		     "t.layout:2: partition 'boot': file 'config.txt': the path must be absolute");
	expect_error("partition boot { type = fat\n dir \"/a/../b\" {} }",
		     "has an empty, '.' or '..' component");
	expect_error("partition boot { type = fat\n dir \"/\" {} }",
		     "'/' is the root directory itself");
	expect_error("partition boot { type = fat\n file \"/a\" { content = \"1\" first = true }\n"
		     " file \"/b\" { content = \"2\" first = true } }",
		     "t.layout:3: partition 'boot': '/b' and '/a' (line 2) both ask to be first");
	expect_error("image { size = 1G }\npartition a {\n size = grow }\npartition b { size = 8M "
		     "}",
		     "t.layout:3: partition 'a': size = grow is only for the last partition ('b' "
		     "comes after it)");
	expect_error("partition a {\n size = grow }",
		     "t.layout:2: partition 'a': size = grow needs the image size");
	expect_error("partition a {\n size = auto }",
		     "t.layout:2: partition 'a': size = auto on a raw partition needs 'from'");
	expect_error("partition a { type = fat\n from = \"x.img\" }",
		     "t.layout:2: partition 'a': from: a FAT partition is filled");
	expect_error("raw spl {\n from = \"x\" }", "t.layout:1: raw 'spl': 'offset' is required");
	expect_error("raw spl {\n offset = 8K }", "t.layout:1: raw 'spl': 'from' is required (the "
						  "file whose bytes go there), or 'fill = true'");
	expect_error("image { size = 16G }\npartition a { type = fat size = grow\n fat { sd-format "
		     "= true } }\n"
		     "partition b { size = 8M }",
		     "t.layout:3: partition 'a': sd-format = true: it formats a whole card");
	expect_error("image { size = 16G }\npartition a { type = fat size = grow\n fat { sd-format "
		     "= true fats = 1 } }",
		     "sd-format = true: it chooses cluster-size, fats");
	/* the values the SD formatter would choose too: still the user's, still refused */
	expect_error("image { size = 16G }\npartition a { type = fat size = grow\n fat { sd-format "
		     "= true fats = 2 } }",
		     "sd-format = true: it chooses cluster-size, fats");
	expect_error("image { size = 16G }\npartition a { type = fat size = grow\n fat { sd-format "
		     "= true root-entries = 512 } }",
		     "sd-format = true: it chooses cluster-size, fats");
	expect_error("image { table = none }\npartition a { size = 8M }\npartition b { size = 8M }",
		     "t.layout:3: partition 'b': table = none holds one partition at most");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errors_syntax),
		cmocka_unit_test(test_errors_values),
		cmocka_unit_test(test_errors_rules),
	};
	return cmocka_run_group_tests_name("layout errors", tests, NULL, NULL);
}
