#!/bin/sh
# SPDX-License-Identifier: MIT
# The reader (through tests/tools/fatread) on volumes mkfs.fat + mcopy made (FAT12/16/32, long
# names by mtools) and on our own at an offset: it reports the boot sector's parameters and
# extracts a tree identical to the source.
. "$TOP/tests/e2e/lib/fatcheck.sh"
need_tools mkfs.fat mcopy
FATREAD=$BUILD/tests/tools/fatread
[ -x "$FATREAD" ] || { echo "missing $FATREAD"; exit 77; }

mkdir -p src/sub/deeper src/empty
printf 'a\n' >src/readme.txt
printf 'b\n' >"src/A long name with Ünïcödé.text"
printf 'c\n' >src/sub/Makefile
head -c 300000 /dev/urandom >src/sub/deeper/random.bin
for i in 1 2 3 4 5 6; do printf '%s\n' $i >"src/sub/longfilename$i.txt"; done

for type in 12 16 32; do
    rm -f m.img && mkfs.fat -F $type -i 1234ABCD -n MKFS -C m.img $((type == 32 ? 66000 : 16384)) >/dev/null
    mcopy -s -i m.img src/* ::/ || fail "mcopy into FAT$type"
    rm -rf out && mkdir out
    "$FATREAD" m.img out >info.txt || fail "fatread FAT$type (mkfs.fat): $(cat info.txt)"
    grep -q "type=$type .*volume_id=1234ABCD label=MKFS" info.txt || fail "FAT$type info: $(cat info.txt)"
    diff -r src out >diff.txt || fail "fatread tree of mkfs.fat FAT$type differs: $(cat diff.txt)"

    "$FATWRITE" -t $type -o 1048576 -l OURS o.img auto src || fail "fatwrite FAT$type"
    rm -rf out && mkdir out
    "$FATREAD" -o 1048576 o.img out >info.txt || fail "fatread FAT$type (ours): $(cat info.txt)"
    grep -q "type=$type .*hidden=2048 .*label=OURS" info.txt || fail "FAT$type info: $(cat info.txt)"
    diff -r src out >diff.txt || fail "fatread tree of our FAT$type differs: $(cat diff.txt)"
done
# a damaged boot sector is refused with a message, not a crash
printf '\000\000' | dd of=m.img bs=1 seek=11 conv=notrunc status=none
if "$FATREAD" m.img 2>err.txt; then fail "fatread accepted 0 bytes per sector"; fi
grep -q "bytes per sector 0" err.txt || fail "no message: $(cat err.txt)"
