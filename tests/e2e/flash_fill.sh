#!/bin/sh
# SPDX-License-Identifier: MIT
# fill = true reaches the card: on loop devices over files of 0xFF (a card that held a former
# image), a raw region and a raw partition with fill = true read back as zeros after
# `sdimg flash` with the bmap (the default --gaps keep), after `sdimg flash` without a bmap
# and with --gaps keep (the image's data extents alone are written: the fill's zeros are
# data of the image file), and after `bmaptool copy` with the bmap; in all three a raw
# partition with neither from nor fill keeps its 0xFF, and the table reads as the image's.
. "$TOP/tests/e2e/lib/flash.sh"
need jq sfdisk bmaptool cmp
need_loops
flash_trap

K=1024
M=1048576
head -c 40000 /dev/urandom >spl.bin
cat >card.layout <<'LAYOUT'
image { size = 32M seed = "flash-fill" }
raw spl { offset = 8K from = "spl.bin" }
raw env { offset = 1M size = 128K fill = true }
partition uboot-env { size = 4M fill = true }
partition spare { size = 4M }
LAYOUT
"$SDIMG" build -q --bmap -o card.img card.layout || fail "build"
size=$(stat -c %s card.img)
ff_loop() { # ff_loop NAME: a loop device over NAME.bin, the image's size of 0xFF
    head -c "$size" /dev/zero | tr '\0' '\377' >"$1.bin"
    loop_attach "$1.bin"
}

# check_card DEV HOW: the fills are zeros, spl is spl.bin, 'spare' kept its 0xFF
check_card() {
    same_table card.img "$1"
    all_bytes "$1" $M $((M + 128 * K)) 0 || fail "$2: the raw region env is not zeros"
    all_bytes "$1" $((4 * M)) $((8 * M)) 0 || fail "$2: the partition uboot-env is not zeros"
    cmp -i $((8 * K)):0 -n 40000 "$1" spl.bin || fail "$2: spl is not spl.bin"
    all_bytes "$1" $((8 * M)) $((12 * M)) 377 || fail "$2: the bare partition spare lost its 0xFF"
    echo "$2: env and uboot-env read zeros where 0xFF was, spare keeps its 0xFF"
}

dev=$(ff_loop bmap)
expect_status 0 "$SDIMG" flash card.img "$dev" --allow-fixed --json
[ "$(jq -r '.targets[0].result' out.txt)" = pass ] || fail "flash with the bmap: $(cat out.txt)"
check_card "$dev" "sdimg flash with the bmap"
loop_detach "$dev"

mv card.img.bmap kept.bmap
dev=$(ff_loop nobmap)
expect_status 0 "$SDIMG" flash card.img "$dev" --gaps keep --allow-fixed --json
grep -q "no bmap found" err.txt || fail "no warning about the bmap: $(cat err.txt)"
[ "$(jq -r '.targets[0].result' out.txt)" = pass ] || fail "flash without a bmap: $(cat out.txt)"
check_card "$dev" "sdimg flash without a bmap, --gaps keep"
loop_detach "$dev"

dev=$(ff_loop bmaptool)
bmaptool copy --bmap kept.bmap card.img "$dev" >copy.log 2>&1 || fail "bmaptool copy: $(cat copy.log)"
check_card "$dev" "bmaptool copy"
loop_detach "$dev"
