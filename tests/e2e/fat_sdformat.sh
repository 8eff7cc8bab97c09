#!/bin/sh
# SPDX-License-Identifier: MIT
# sd-format: whole cards laid out as the SD formatter does (SD Part 2 File System Specification). From the
# boot sector's bytes: hidden sectors = partition start, total sectors = card - start, and the
# data area at the documented sector, a multiple of the boundary unit. The volume then passes
# fsck.fat -n and mcopy (at its offset) gives the tree back.
. "$TOP/tests/e2e/lib/fatcheck.sh"
need_tools fsck.fat mcopy mdir od dd

mkdir -p src/dir
printf 'sd\n' >src/dir/card.txt
head -c 100000 /dev/urandom >src/blob.bin

# card sectors, type, partition start, reserved, FAT sectors, data start, boundary unit
while read -r ts type start rsc sf data bu; do
    "$FATWRITE" -S -l SDCARD card.img $((ts * 512)) src || fail "sd-format $ts"
    off=$((start * 512))
    [ "$(le card.img $((off + 510)) 2)" -eq 43605 ] || fail "$ts: no boot sector at sector $start"
    [ "$(le card.img $((off + 28)) 4)" -eq "$start" ] || fail "$ts: hidden sectors"
    tot=$(le card.img $((off + 19)) 2); [ "$tot" -ne 0 ] || tot=$(le card.img $((off + 32)) 4)
    [ "$tot" -eq $((ts - start)) ] || fail "$ts: total sectors $tot"
    [ "$(le card.img $((off + 14)) 2)" -eq "$rsc" ] || fail "$ts: reserved sectors"
    fsz=$(le card.img $((off + 22)) 2); [ "$fsz" -ne 0 ] || fsz=$(le card.img $((off + 36)) 4)
    [ "$fsz" -eq "$sf" ] || fail "$ts: FAT size $fsz, want $sf"
    got=$(($(data_start card.img $off) / 512))
    [ "$got" -eq "$data" ] || fail "$ts: data area at sector $got, want $data"
    [ $((got % bu)) -eq 0 ] || fail "$ts: data area not on the boundary unit $bu"
    mtools_same "card.img@@$off" src
    extract card.img "$off" $(($(stat -c %s card.img) - off)) vol.img
    fsck_clean vol.img
    echo "$ts sectors: FAT$type, start $start, reserved $rsc, FAT $sf, data at $data"
    rm -f card.img vol.img
done <<LIST
129792 12 39 1 12 96 32
1984000 16 249 1 243 768 128
7744512 32 8192 6304 944 16384 8192
31116288 32 8192 598 3797 16384 8192
LIST
