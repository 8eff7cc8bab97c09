#!/bin/sh
# SPDX-License-Identifier: MIT
# Odd names (accents, CJK, Greek, Cyrillic, emoji, 255-unit names, mixed case, dots, short-name
# collisions), a 60-level deep path and a directory of 700 long names (many clusters), on
# FAT12, FAT16 and FAT32. mtools cannot decode surrogate pairs, so the emoji names are checked
# through 7z (and the kernel test) and mtools sees a copy of the tree without them.
. "$TOP/tests/e2e/lib/fatcheck.sh"
need_tools fsck.fat mcopy mdir 7z awk

mkdir -p src/names src/emoji/🎉 src/collide src/wide
cd src/names
for n in "Ünïcödé ñame.txt" "日本語ファイル.txt" "Ελληνικά.doc" "кириллица.txt" "MiXeD.TxT" \
         "lower.txt" "UPPER.TXT" "lowerb.TXT" "UPPERB.txt" "Makefile" "a" "A1" "x.tar.gz" \
         "a+b,c;d=e[f].txt" "name with  two  spaces" ".hidden" "..double leading" "noext" \
         "ab.c.d.e" "~tilde" "\$dollar" "123456789.abcd" "' quote"; do
    printf '%s\n' "$n" >"$n"
done
cd ../..
long=$(awk 'BEGIN { while (length(s) < 251) s = s "L"; print s }')
printf 'long\n' >"src/names/$long.txt"
wide=$(awk 'BEGIN { while (i++ < 125) s = s "é"; print s }')
printf 'wide\n' >"src/names/$wide.txt"
for i in 1 2 3 4 5 6 7 8 9; do printf '%s\n' $i >"src/collide/longfilename$i.txt"; done
for i in 1 2 3 4 5 6; do printf '%s\n' $i >"src/collide/Some Stuff $i.aspx"; done
awk 'BEGIN { for (i = 0; i < 700; i++) { f = sprintf("src/wide/entry number %03d with a long name.txt", i); print i > f; close(f) } }'
d=src/deep; for i in $(seq -w 1 60); do d=$d/d$i; done
mkdir -p "$d" && printf 'bottom\n' >"$d/bottom.txt"
printf 'party\n' >"src/emoji/🎉/🎂 cake.txt"
printf 'smile\n' >"src/emoji/😀.txt"

cp -a src bmp && rm -rf bmp/emoji

# what FAT cannot hold is refused, naming the source path
for bad in "tab	inside" "trailing." "a:b" "star*"; do
    rm -rf bad && mkdir bad && : >"bad/$bad"
    if "$FATWRITE" x.img auto bad 2>err.txt; then fail "fatwrite accepted \"$bad\""; fi
    grep -qF "bad/$bad" err.txt || fail "no message naming bad/$bad: $(cat err.txt)"
done
rm -rf bad && mkdir bad && : >bad/README && : >bad/readme
"$FATWRITE" x.img auto bad 2>err.txt && fail "fatwrite accepted README and readme"
grep -q "as equal" err.txt || fail "README/readme: $(cat err.txt)"

for type in 12 16 32; do
    "$FATWRITE" -t $type -c 4096 v.img auto src || fail "fatwrite FAT$type"
    fsck_clean v.img
    sevenz_same v.img src
    "$FATWRITE" -t $type -c 4096 b.img auto bmp || fail "fatwrite FAT$type (no emoji)"
    mtools_same b.img bmp
    # the plain 8.3 names carry no LFN: mdir shows them without a long name column
    mdir -i b.img ::/names | grep -q '^lower    txt ' || fail "lower.txt lost its lower-case flags"
    rm -f v.img b.img
done
