#!/bin/sh
# SPDX-License-Identifier: MIT
# FAT12, FAT16 and FAT32 with every cluster size from 512 to 64K and 1 or 2 FATs: each volume
# (size = the minimum that holds the tree) passes fsck.fat -n, mcopy and 7z give the tree back.
. "$TOP/tests/e2e/lib/fatcheck.sh"
need_tools fsck.fat mcopy mdir 7z od

mkdir -p src/sub/deeper src/Empty
printf 'hello\n' >src/readme.txt
printf 'Make\n' >src/Makefile
head -c 70000 /dev/urandom >src/sub/random.bin
head -c 131072 /dev/zero >src/sub/zeros.bin
: >src/sub/empty.txt
printf 'deep\n' >"src/sub/deeper/A long name with spaces.text"

for type in 12 16 32; do
    for cs in 512 1024 2048 4096 8192 16384 32768 65536; do
        for fats in 1 2; do
            img=v$type-$cs-$fats.img
            "$FATWRITE" -s -t $type -c $cs -f $fats -l "T$type" "$img" auto src >geom.txt ||
                fail "fatwrite FAT$type cluster $cs fats $fats"
            # the boot sector says what was asked for
            [ "$(le "$img" 13 1)" -eq $((cs / 512)) ] || fail "$img: sectors per cluster"
            [ "$(le "$img" 16 1)" -eq $fats ] || fail "$img: number of FATs"
            if [ $type = 32 ]; then
                [ "$(le "$img" 22 2)" -eq 0 ] || fail "$img: FAT32 with FATSz16"
                [ "$(le "$img" 17 2)" -eq 0 ] || fail "$img: FAT32 with root entries"
            fi
            check_all "$img" src
            rm -f "$img"
        done
    done
done
echo "48 volumes checked"
