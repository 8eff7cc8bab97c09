#!/bin/sh
# SPDX-License-Identifier: MIT
# Raw regions and raw partitions with holes, skip and fill, checked with outside tools: a
# PC BIOS boot sector written at 0 with holes = "440-512" keeps its code in bytes 0-439
# while sfdisk reads the MBR the table wrote in its hole (and on a GPT card a loader at 0
# holds the protective MBR, the header and the entry array in its holes: sgdisk -v is
# content); a raw region's holes read as zeros and the rest as the file (cmp); skip copies
# a file from that byte on (an i.MX flash.bin without its first 32K, an ext4 image behind a
# header, which e2fsck -fn then passes); fill writes zeros that are data of the image file
# and mapped in the bmap, while the holes and a raw partition without from or fill are not
# mapped. What the rules refuse is one line naming FILE:LINE.
. "$TOP/tests/e2e/lib/ship.sh"
need sfdisk sgdisk cmp mke2fs e2fsck jq python3 sha256sum

K=1024
M=1048576
# a boot sector: 510 bytes of code and 55 AA
head -c 510 /dev/urandom >boot.img
printf '\125\252' >>boot.img
# a flash.bin: a 32K header of 0xAA the card must not get, then 200K of loader
head -c $((32 * K)) /dev/zero | tr '\0' '\252' >flash.bin
head -c $((200 * K)) /dev/urandom >>flash.bin
head -c $((64 * K)) /dev/urandom >loader.bin
# an ext4 image behind a 4K header
mkdir -p rootsrc/etc
printf 'card\n' >rootsrc/etc/hostname
head -c 100000 /dev/urandom >rootsrc/etc/blob
mke2fs -q -F -t ext4 -b 4096 -d rootsrc root.ext4 8M >/dev/null || fail "mke2fs"
head -c 4096 /dev/urandom >hdr-root.img
cat root.ext4 >>hdr-root.img

cat >mbr.layout <<'LAYOUT'
image { size = 64M seed = "raw-inputs" }
raw mbr-boot { offset = 0 from = "boot.img" holes = "440-512" }
raw flash { offset = 32K from = "flash.bin" skip = 32K }
raw loader { offset = 1M from = "loader.bin" holes = "8K-16K, 40K-44K" }
raw env { offset = 3M size = 128K fill = true }
partition uboot-env { size = 4M fill = true holes = "2M-3M" }
partition root { from = "hdr-root.img" skip = 4K }
partition spare { size = 4M }
LAYOUT
expect_status 0 "$SDIMG" build -q --bmap -o mbr.img mbr.layout
img=mbr.img bmap=mbr.img.bmap

# the boot code is boot.img's, the MBR in its hole is the table's
cmp -n 440 $img boot.img || fail "bytes 0-439 are not boot.img's"
sfdisk --verify $img >verify.txt 2>&1 || fail "sfdisk --verify: $(cat verify.txt)"
sfdisk --json $img >t.json || fail "sfdisk --json"
[ "$(jq '.partitiontable.partitions | length' t.json)" -eq 3 ] || fail "sfdisk reads $(cat t.json)"
expect_start_size() { # expect_start_size N START SIZE (bytes)
    [ "$(part_json $img "$1" start)" -eq $(($2 / 512)) ] && [ "$(part_json $img "$1" size)" -eq $(($3 / 512)) ] ||
        fail "partition $1: start $(part_json $img "$1" start) size $(part_json $img "$1" size) (sectors), expected $2 and $3 bytes"
}
expect_start_size 1 $((4 * M)) $((4 * M))
expect_start_size 2 $((8 * M)) $((8 * M))  # root.ext4 (the file less its 4K header)
expect_start_size 3 $((16 * M)) $((4 * M))
echo "boot.img at 0 with the MBR in its hole: bytes 0-439 are boot.img's, sfdisk reads 3 partitions"

# skip: the region holds flash.bin from its byte 32K on, and not one byte of the header
cmp -i $((32 * K)):$((32 * K)) -n $((200 * K)) $img flash.bin || fail "flash.bin from 32K is not at 32K"
cmp -i $((232 * K)):0 -n 4096 $img /dev/zero || fail "flash.bin's region runs on past its 200K"
# holes: zeros in the image; the rest is the file's
cmp -i $M:0 -n $((8 * K)) $img loader.bin || fail "loader.bin bytes 0-8K"
cmp -i $((M + 16 * K)):$((16 * K)) -n $((24 * K)) $img loader.bin || fail "loader.bin bytes 16K-40K"
cmp -i $((M + 44 * K)):$((44 * K)) -n $((20 * K)) $img loader.bin || fail "loader.bin bytes 44K-64K"
cmp -i $((M + 8 * K)):0 -n $((8 * K)) $img /dev/zero || fail "the hole 8K-16K is not zeros"
cmp -i $((M + 40 * K)):0 -n $((4 * K)) $img /dev/zero || fail "the hole 40K-44K is not zeros"
# skip on a partition: root.ext4 itself, which e2fsck passes
cmp -i $((8 * M)):0 -n "$(stat -c %s root.ext4)" $img root.ext4 || fail "partition 2 is not root.ext4"
dd if=$img of=root.vol bs=1M skip=8 count=8 status=none
e2fsck -fn root.vol >e2fsck.txt 2>&1 || fail "e2fsck -fn partition 2: $(cat e2fsck.txt)"
echo "skip and holes: flash.bin from 32K, loader.bin between its holes, root.ext4 without its header (e2fsck clean)"

# fill: zeros that are data of the image file; the bare partition is a hole of it
cmp -i $((3 * M)):0 -n $((128 * K)) $img /dev/zero || fail "env is not zeros"
cmp -i $((4 * M)):0 -n $((4 * M)) $img /dev/zero || fail "uboot-env is not zeros"
data_extents $img >extents.txt
covered() { # covered START END: one data extent of the image holds [START, END)
    awk -v s="$1" -v e="$2" '$1 <= s && e <= $2 { f = 1 } END { exit !f }' extents.txt
}
covered $((3 * M)) $((3 * M + 128 * K)) || fail "env's zeros are not data of the image: $(cat extents.txt)"
covered $((4 * M)) $((6 * M)) && covered $((7 * M)) $((8 * M)) ||
    fail "uboot-env's zeros are not data of the image: $(cat extents.txt)"
! awk -v s=$((6 * M)) -v e=$((7 * M)) '$1 < e && $2 > s { f = 1 } END { exit !f }' extents.txt ||
    fail "uboot-env's hole 2M-3M was written: $(cat extents.txt)"
! awk -v s=$((16 * M)) -v e=$((20 * M)) '$1 < e && $2 > s { f = 1 } END { exit !f }' extents.txt ||
    fail "the bare partition 'spare' has data in the image: $(cat extents.txt)"

# the bmap: its checksums are the image's; it maps the table, the regions but their
# holes, the fills, root.ext4's extents; not the 4K-aligned holes nor 'spare'
check_sums $img $bmap
mapped $bmap 0 512 "sector 0"
mapped $bmap $((32 * K)) $((232 * K)) "flash"
mapped $bmap $M $((M + 8 * K)) "loader before its first hole"
mapped $bmap $((M + 16 * K)) $((M + 40 * K)) "loader between its holes"
mapped $bmap $((M + 44 * K)) $((M + 64 * K)) "loader after its holes"
mapped $bmap $((3 * M)) $((3 * M + 128 * K)) "env"
mapped $bmap $((4 * M)) $((6 * M)) "uboot-env before its hole"
mapped $bmap $((7 * M)) $((8 * M)) "uboot-env after its hole"
data_extents root.ext4 >ext.txt
while read -r s e; do
    mapped $bmap $((8 * M + s)) $((8 * M + e)) "root.ext4 bytes $s-$((e - 1))"
done <ext.txt
unmapped() { # unmapped START END: no range of the bmap touches [START, END)
    ! bmap_blocks $bmap | awk -v s="$1" -v e="$2" '$1 * 4096 < e && s < ($2 + 1) * 4096 { f = 1 } END { exit !f }' ||
        fail "$bmap maps bytes of $1-$(($2 - 1))${3:+ ($3)}"
}
unmapped $((M + 8 * K)) $((M + 16 * K)) "loader's hole 8K-16K"
unmapped $((M + 40 * K)) $((M + 44 * K)) "loader's hole 40K-44K"
unmapped $((6 * M)) $((7 * M)) "uboot-env's hole 2M-3M"
unmapped $((16 * M)) $((20 * M)) "the bare partition 'spare'"
echo "fill: zeros written into the image and mapped; holes and the bare partition unmapped"

# a GPT card: a loader at 0 whose holes take the protective MBR, the header and the entries
cat >gpt.layout <<'LAYOUT'
image { size = 32M table = gpt seed = "raw-inputs-gpt" }
raw loader { offset = 0 from = "loader.bin" holes = "440-512, 512-17K" }
partition env { size = 4M fill = true }
LAYOUT
expect_status 0 "$SDIMG" build -q -o gpt.img gpt.layout
cmp -n 440 gpt.img loader.bin || fail "gpt: bytes 0-439 are not loader.bin's"
cmp -i $((17 * K)):$((17 * K)) -n $((47 * K)) gpt.img loader.bin || fail "gpt: loader.bin bytes 17K-64K"
sgdisk -v gpt.img >sgdisk.txt 2>&1 || fail "sgdisk -v: $(cat sgdisk.txt)"
grep -q "No problems found" sgdisk.txt || fail "sgdisk -v: $(cat sgdisk.txt)"
[ "$(sfdisk --json gpt.img | jq -r '.partitiontable.partitions[0].start')" -eq 8192 ] ||
    fail "gpt: partition 1 does not start at 4M"
echo "gpt: the loader at 0 keeps bytes 0-439 and 17K-64K, sgdisk -v finds no problem in its holes"

# what the rules refuse, each one line naming its line, and sdimg plan refuses it alike
refused() { # refused LAYOUT-TEXT MESSAGE
    printf '%s\n' "$1" >bad.layout
    expect_status 1 "$SDIMG" build -o bad.img bad.layout
    expect_stderr "$2"
    [ ! -e bad.img ] || fail "bad.img left behind"
    expect_status 1 "$SDIMG" plan bad.layout
    expect_stderr "$2"
}
# over the MBR's bytes, the message says how to leave them to the table
refused 'raw b { offset = 0 from = "boot.img" }' \
    "bad.layout:1: raw 'b' (bytes 0-511) overlaps the mbr (bytes 440-511); if the file leaves those bytes to the partition table, say so with holes = \"440-512\""
refused 'raw b { offset = 0 from = "boot.img" holes = "446-512" }' \
    "bad.layout:1: raw 'b' (bytes 0-511) overlaps the mbr (bytes 440-511); if the file leaves those bytes to the partition table, say so with holes = \"440-512\""
refused 'raw b { offset = 500 from = "boot.img" }' \
    "bad.layout:1: raw 'b' (bytes 500-1011) overlaps the mbr (bytes 440-511); if the file leaves those bytes to the partition table, say so with holes = \"0-12\""
refused 'raw b { offset = 0 from = "boot.img" holes = "440-1K" }' \
    "bad.layout:1: raw 'b': holes: 440-1024 ends past the 512 bytes of ./boot.img"
refused 'raw b { offset = 0 from = "boot.img" holes = "440-512, 500-510" }' \
    "bad.layout:1: raw 'b': holes: the ranges 440-512 and 500-510 overlap"
refused 'raw b { offset = 0 from = "boot.img" holes = "440..512" }' \
    "bad.layout:1: raw 'b': holes: '440..512' is not a range START-END in bytes (like 440-512)"
refused 'raw b { offset = 8K from = "boot.img" skip = 1K }' \
    "bad.layout:1: raw 'b': skip 1024 is past the end of ./boot.img (512 bytes)"
refused 'partition p { from = "hdr-root.img" skip = 9M }' \
    "bad.layout:1: partition 'p': skip 9437184 is past the end of ./hdr-root.img"
refused 'raw b { offset = 8K from = "flash.bin" size = 100K skip = 32K }' \
    "bad.layout:1: raw 'b': ./flash.bin is 204800 bytes after skip, the region has 102400"
refused 'partition p { from = "flash.bin" size = 100K }' \
    "bad.layout:1: partition 'p': its image needs 232 KiB, the partition has 100 KiB"
refused 'partition p { from = "flash.bin" skip = 32K size = 100K }' \
    "bad.layout:1: partition 'p': its image needs 200 KiB, the partition has 100 KiB"
refused 'raw e { offset = 8K fill = true }' "bad.layout:1: raw 'e': fill: needs the region's 'size'"
refused 'raw e { offset = 8K }' "bad.layout:1: raw 'e': 'from' is required (the file whose bytes go there), or 'fill = true' (zeros)"
echo "refused: overlaps outside the holes, bad holes, skip past the end, a fill without a size"
