#!/bin/sh
# SPDX-License-Identifier: MIT
# fill = true with a from: the file, then the fill byte up to the end of the partition or
# region, all of it data of the image file and mapped in the bmap (a flash without the bmap
# writes it too); fill-byte = 0xff for a NOR flash image, whose erased bytes read 0xff;
# sparse = false: the zeros of a from (a hole of the file, an all-zero block) are data of the
# image and mapped as well, where by default they are holes of the image and only the file's
# extents are mapped. What the rules refuse is one line naming FILE:LINE.
. "$TOP/tests/e2e/lib/ship.sh"
need cmp jq python3 sha256sum

K=1024
M=1048576
head -c 100000 /dev/urandom >loader.bin
head -c 10000 /dev/urandom >u-boot.bin
# a file system image with a 1 MiB hole after its first 64K, and 64K of written zeros
head -c $((64 * K)) /dev/urandom >fs.img
truncate -s $((M + 64 * K)) fs.img
head -c $((64 * K)) /dev/zero >>fs.img
head -c $((64 * K)) /dev/urandom >>fs.img # 1216K in all

cat >fill.layout <<'LAYOUT'
image { size = 16M seed = "raw-fill" }
raw nor { offset = 64K size = 256K from = "u-boot.bin" fill = true fill-byte = 0xff }
raw erased { offset = 320K size = 64K fill = true fill-byte = 0xff }
partition loader { size = 1M from = "loader.bin" fill = true }
partition fs { from = "fs.img" sparse = false }
partition plain { from = "fs.img" }
LAYOUT
expect_status 0 "$SDIMG" build -q --bmap -o fill.img fill.layout
img=fill.img bmap=fill.img.bmap

# bytes: the file, then the fill byte to the end
ff() { head -c "$1" /dev/zero | tr '\0' '\377'; }
cmp -i $((64 * K)):0 -n 10000 $img u-boot.bin || fail "nor is not u-boot.bin"
ff $((256 * K - 10000)) | cmp -i $((64 * K + 10000)):0 -n $((256 * K - 10000)) $img - ||
    fail "nor is not 0xff after u-boot.bin"
ff $((64 * K)) | cmp -i $((320 * K)):0 -n $((64 * K)) $img - || fail "erased is not 0xff"
cmp -i $((4 * M)):0 -n 100000 $img loader.bin || fail "loader is not loader.bin"
cmp -i $((4 * M + 100000)):0 -n $((M - 100000)) $img /dev/zero || fail "loader is not zeros after loader.bin"
cmp -i $((8 * M)):0 -n $((1216 * K)) $img fs.img || fail "fs is not fs.img"
cmp -i $((12 * M)):0 -n $((1216 * K)) $img fs.img || fail "plain is not fs.img"
echo "fill: the file, then the fill byte (0xff for nor, zeros for loader) to the end"

# the image file: the fill and the zeros of sparse = false are data; plain keeps its holes
data_extents $img >extents.txt
covered() { # covered START END: one data extent of the image holds [START, END)
    awk -v s="$1" -v e="$2" '$1 <= s && e <= $2 { f = 1 } END { exit !f }' extents.txt ||
        fail "bytes $1-$(($2 - 1)) ($3) are not data of the image: $(cat extents.txt)"
}
covered $((4 * M + 100000)) $((5 * M)) "loader's fill"
covered $((8 * M)) $((8 * M + 1216 * K)) "fs, sparse = false"
! awk -v s=$((12 * M + 64 * K)) -v e=$((13 * M)) '$1 < e && $2 > s { f = 1 } END { exit !f }' extents.txt ||
    fail "plain's hole was written: $(cat extents.txt)"

# the bmap: its checksums are the image's; it maps the fills whole and all of fs.img with
# sparse = false, and not plain's hole
check_sums $img $bmap
mapped $bmap $((64 * K)) $((320 * K)) "nor"
mapped $bmap $((320 * K)) $((384 * K)) "erased"
mapped $bmap $((4 * M)) $((5 * M)) "loader"
mapped $bmap $((8 * M)) $((8 * M + 1216 * K)) "fs"
! bmap_blocks $bmap | awk -v s=$((12 * M + 64 * K)) -v e=$((13 * M)) '$1 * 4096 < e && s < ($2 + 1) * 4096 { f = 1 } END { exit !f }' ||
    fail "$bmap maps plain's hole"
echo "fill and sparse = false: data of the image and mapped; plain's hole neither"

# what the rules refuse
build_refused byte "byte.layout:2: partition 'p': fill-byte: is the byte" <<'LAYOUT'
image { size = 16M }
partition p { from = "loader.bin" fill-byte = 0xff }
LAYOUT
build_refused sparse "sparse.layout:2: partition 'p': sparse: 'false' writes the zeros of 'from'" <<'LAYOUT'
image { size = 16M }
partition p { size = 1M fill = true sparse = false }
LAYOUT
echo "refused: fill-byte without fill, sparse = false without from"
