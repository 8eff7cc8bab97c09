#!/bin/sh
# SPDX-License-Identifier: MIT
# table = none: no partition table counts sectors, so the image's size is any number of
# bytes: a 17-byte blob (a file less its first 3 bytes, skip) makes a 17-byte image whose
# bmap says so, and `sdimg plan` agrees; raw regions end where their bytes do. With a table
# the size stays whole sectors, one line naming FILE:LINE otherwise.
. "$TOP/tests/e2e/lib/ship.sh"
need cmp

printf 'xyzabcdefghijklmnopq' >blob.bin # 20 bytes; skip = 3 leaves 17
cat >bare.layout <<'LAYOUT'
image { table = none size = 17 }
raw blob { offset = 0 from = "blob.bin" skip = 3 }
LAYOUT
expect_status 0 "$SDIMG" plan bare.layout
grep -q 'size 17 B (17 bytes)' out.txt || fail "plan: $(cat out.txt)"
expect_status 0 "$SDIMG" build -q --bmap -o bare.img bare.layout
[ "$(stat -c %s bare.img)" -eq 17 ] || fail "bare.img is $(stat -c %s bare.img) bytes"
[ "$(cat bare.img)" = abcdefghijklmnopq ] || fail "bare.img holds $(cat bare.img)"
[ "$(bmap_value bare.img.bmap ImageSize)" = 17 ] || fail "the bmap's ImageSize: $(cat bare.img.bmap)"
check_sums bare.img bare.img.bmap
echo "table = none: a 17-byte image of the blob's last 17 bytes, its bmap of 17 bytes"

# a NOR flash image of 1000 bytes: a loader then 0xff
printf 'loader' >loader.bin
cat >nor.layout <<'LAYOUT'
image { table = none size = 1000 }
raw loader { offset = 0 size = 1000 from = "loader.bin" fill = true fill-byte = 0xff }
LAYOUT
expect_status 0 "$SDIMG" build -q -o nor.img nor.layout
[ "$(stat -c %s nor.img)" -eq 1000 ] || fail "nor.img is $(stat -c %s nor.img) bytes"
{ cat loader.bin; head -c 994 /dev/zero | tr '\0' '\377'; } | cmp nor.img - || fail "nor.img is not loader.bin then 0xff"
echo "table = none: a 1000-byte NOR flash image, the loader then 0xff"

build_refused mbr "mbr.layout:1: image: size: 1000 is not a multiple of 512 bytes (only an image with table = none may end inside a sector)" <<'LAYOUT'
image { table = mbr size = 1000 }
LAYOUT
echo "refused: an mbr image of 1000 bytes"
