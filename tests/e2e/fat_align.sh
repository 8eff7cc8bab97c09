#!/bin/sh
# SPDX-License-Identifier: MIT
# data-align and the volume's disk offset: cluster 2 lands on the requested multiple counted
# from the start of the file, as the boot sector's own fields say (read with od); hidden
# sectors = the offset, total sectors = the volume size; FAT12/16 account for the root folder.
. "$TOP/tests/e2e/lib/fatcheck.sh"
need_tools fsck.fat mcopy mdir od dd

mkdir -p src/boot
printf 'kernel\n' >src/boot/zImage
head -c 300000 /dev/urandom >src/blob.bin

# type offset size align [cluster]
while read -r type off size align cs; do
    img=a.img
    "$FATWRITE" -t "$type" ${cs:+-c $cs} -o "$off" -a "$align" -l ALIGNED "$img" "$size" src ||
        fail "fatwrite FAT$type at $off, align $align"
    start=$(data_start "$img" "$off")
    [ $((start % align)) -eq 0 ] || fail "FAT$type at $off: data area at byte $start, not a multiple of $align"
    [ "$(le "$img" $((off + 28)) 4)" -eq $((off / 512)) ] || fail "FAT$type: hidden sectors"
    tot=$(le "$img" $((off + 19)) 2); [ "$tot" -ne 0 ] || tot=$(le "$img" $((off + 32)) 4)
    [ "$tot" -eq $((size / 512)) ] || fail "FAT$type: total sectors $tot, want $((size / 512))"
    [ "$(le "$img" $((off + 510)) 2)" -eq 43605 ] || fail "FAT$type: no 55AA signature"
    mtools_same "$img@@$off" src
    dd if="$img" of=vol.img bs=1M iflag=skip_bytes skip="$off" conv=sparse status=none
    fsck_clean vol.img
    echo "FAT$type offset $off align $align: cluster 2 at byte $start"
    rm -f "$img" vol.img
done <<LIST
16 4194304 67108864 4194304
32 1048576 314572800 4194304
12 32256 8388608 8192
16 32256 33554432 1048576 2048
32 4194304 104857600 1048576 512
12 0 2097152 65536 1024
LIST
