#!/bin/sh
# SPDX-License-Identifier: MIT
# A tree of 20,000 small files (10,000 with long names in one directory that spans many
# clusters, 10,000 in ten subfolders) on FAT16 and FAT32: fsck.fat, mcopy and 7z agree.
. "$TOP/tests/e2e/lib/fatcheck.sh"
need_tools fsck.fat mcopy mdir 7z awk

mkdir -p src/many
awk 'BEGIN {
    for (i = 0; i < 10000; i++) {
        f = sprintf("src/many/small file number %05d.txt", i); print "file " i > f; close(f)
    }
    for (d = 0; d < 10; d++) {
        system("mkdir -p src/dir" d)
        for (i = 0; i < 1000; i++) {
            f = sprintf("src/dir%d/F%04d.DAT", d, i); printf "%d-%d", d, i > f; close(f)
        }
    }
}'
[ "$(find src -type f | wc -l)" -eq 20000 ] || fail "could not make 20000 files"

for type in 16 32; do
    start=$(date +%s)
    "$FATWRITE" -s -t $type -c 2048 v$type.img auto src >geom.txt || fail "fatwrite FAT$type"
    echo "FAT$type: $(cat geom.txt); written in $(($(date +%s) - start)) s"
    check_all v$type.img src
    rm -f v$type.img
done
