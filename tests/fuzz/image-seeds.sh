#!/bin/sh
# SPDX-License-Identifier: MIT
# Writes the seeds of the image fuzzer (tests/fuzz/fuzz_image.c) into tests/fuzz/corpus/image/:
# images our build writes of FAT12, FAT16 and FAT32 volumes under MBR, GPT and no table, with
# long names (one of 255 characters: 20 entries), names that share a short basis (~1, ~2
# tails), lower-case 8.3 names, attributes and folders eight deep. FAT12 ones stay raw (each
# under the fuzzer's 64 KiB -max_len); the others are packed (tests/tools/fuzz_pack) to the
# sectors that are not zeros. Run from the top of the tree after `make all` and
# `make build/tests/tools/fuzz_pack`; the output is the same on every run (seeds, timestamps).
set -eu
SDIMG=${SDIMG:-build/sdimg}
PACK=${PACK:-build/tests/tools/fuzz_pack}
OUT=${OUT:-tests/fuzz/corpus/image}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

long=$(printf '%0255d' 0 | tr 0 L)
files='
  file "/A long file name.text" { content = "long" }
  file "/A long file name.other" { content = "other" }
  file "/lower.txt" { content = "lower" }
  file "/MiXeD.Txt" { content = "mixed" }
  file "/'"$long"'" { content = "255" }
  file "/d\303\274r/\303\274n\303\257c\303\266de \360\237\230\200.txt" { content = "utf-16" }
  file "/hidden.sys" { content = "h" attrs = "hidden,system,readonly" }
  file "/empty" { content = "" }
  dir "/d1/d2/d3/d4/d5/d6/d7/d8 long folder name" {}
  file "/d1/d2/d3/deep file.txt" { content = "deep" }
  file "/d1/multi" { content = "'"$(printf '%02000d' 0)"'" }'

# NAME TABLE TYPE FAT-OPTIONS: builds $tmp/NAME.img
build() {
	printf 'image { table = %s align = 512 seed = "%s" timestamp = 1700000000 }\n' "$2" "$1" \
		>"$tmp/$1.layout"
	printf 'partition p { type = %s fat { label = "SEED" data-align = 512 %s } %s }\n' \
		"$3" "$4" "$files" >>"$tmp/$1.layout"
	"$SDIMG" build -q -o "$tmp/$1.img" "$tmp/$1.layout"
}

build fat12-mbr mbr fat12 'root-entries = 48 cluster-size = 512'
build fat12-gpt gpt fat12 'root-entries = 48 cluster-size = 1K fats = 1'
build fat12-bare none fat12 'root-entries = 48 cluster-size = 512'
build fat16-mbr mbr fat16 'root-entries = 48 cluster-size = 512'
build fat32-mbr mbr fat32 'cluster-size = 512'
build fat32-gpt gpt fat32 'cluster-size = 512 fats = 1'
for n in fat12-mbr fat12-gpt fat12-bare; do
	cp "$tmp/$n.img" "$OUT/seed-$n"
done
for n in fat16-mbr fat32-mbr fat32-gpt; do
	"$PACK" "$tmp/$n.img" >"$OUT/seed-$n-packed"
done
ls -l "$OUT"/seed-*
