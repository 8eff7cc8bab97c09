#!/bin/sh
# SPDX-License-Identifier: MIT
# What a pass proves of a raw image without a bmap, whose holes are its zeros: a sparse
# image of 16 MiB (data at 0-1 MiB and 8-9 MiB, holes elsewhere) onto a loop device of
# 0xEE passes with every byte read back: the data extents against their checksums, the
# zeros --gaps zero wrote as zeros (bytes_verified = the image's size, gaps_verified true).
# A faultycard that drops exactly the writes of the first hole (FUSE, --drop) fails at
# verify, naming the first piece of the hole, with bytes_verified the data's 2 MiB: only
# bytes that matched. One that flips a byte of the second data extent fails with
# bytes_verified 1 MiB (the first extent; the read bytes of the failed one taken back).
# --gaps keep passes with a warning, in the report and the summary, that the holes were
# not read back (gaps_verified false). A bmap that maps no block (bmaptool create of an
# image that is all hole) passes with "nothing to write" on stderr and in the report.
. "$TOP/tests/e2e/lib/flash.sh"
need jq fusermount3
need_loops
flash_trap
size=$((16 * MiB))
head -c $MiB /dev/urandom >data.bin
dd if=data.bin of=holes.img bs=$MiB conv=notrunc status=none
dd if=data.bin of=holes.img bs=$MiB seek=8 conv=notrunc status=none
truncate -s $size holes.img
[ "$(stat -c %b holes.img)" -le $((4 * 2048)) ] || skip "this file system keeps no holes in holes.img"
fill_ee ee.cache $size

# a good card: every byte of the image read back, the holes as zeros
dev=$(ee_loop good $size)
expect_status 0 "$SDIMG" flash holes.img "$dev" --allow-fixed --json
cp out.txt report.json
[ "$(tj report.json "$dev" result)" = pass ] || fail "good: $(tj report.json "$dev" error)"
[ "$(jq -r .image.mapped_bytes report.json)" = $((2 * MiB)) ] ||
    fail "the data extents: $(jq -r .image.mapped_bytes report.json) bytes, not 2 MiB"
[ "$(tj report.json "$dev" gap_bytes)" = $((14 * MiB)) ] || fail "good: gap_bytes $(tj report.json "$dev" gap_bytes)"
[ "$(tj report.json "$dev" bytes_verified)" = $size ] ||
    fail "good: bytes_verified $(tj report.json "$dev" bytes_verified), not $size (the holes read back)"
[ "$(tj report.json "$dev" gaps_verified)" = true ] || fail "good: gaps_verified $(tj report.json "$dev" gaps_verified)"
cmp -n $size holes.img "$dev" || fail "good: the card does not hold the image"
loop_detach "$dev"
echo "good card: pass, bytes_verified $size (data and holes)"

# --gaps keep: a pass that says the holes were not read back
dev=$(ee_loop keep $size)
expect_status 0 "$SDIMG" flash holes.img "$dev" --gaps keep --allow-fixed --json
cp out.txt report.json
[ "$(tj report.json "$dev" result)" = pass ] || fail "keep: $(tj report.json "$dev" error)"
[ "$(tj report.json "$dev" gaps_verified)" = false ] || fail "keep: gaps_verified $(tj report.json "$dev" gaps_verified)"
[ "$(tj report.json "$dev" bytes_verified)" = $((2 * MiB)) ] || fail "keep: bytes_verified $(tj report.json "$dev" bytes_verified)"
said="the image's holes ($((14 * MiB)) bytes) were not read back (--gaps keep)"
[ "$(tj report.json "$dev" warning)" = "$said" ] || fail "keep: warning $(tj report.json "$dev" warning)"
grep "^$dev " err.txt | grep -qF "$said" || fail "keep: the summary does not say it: $(cat err.txt)"
loop_detach "$dev"
echo "--gaps keep: pass, warned: $said"

# a bmap that maps nothing: a warning, on stderr and in the report
if command -v bmaptool >/dev/null 2>&1; then
    truncate -s $size blank.img
    bmaptool create -o blank.img.bmap blank.img 2>/dev/null || fail "bmaptool create blank.img"
    dev=$(ee_loop blank $size)
    expect_status 0 "$SDIMG" flash blank.img "$dev" --allow-fixed --json
    cp out.txt report.json
    grep -qF "blank.img: nothing to write: its bmap blank.img.bmap maps no block" err.txt ||
        fail "blank: no warning on stderr: $(cat err.txt)"
    [ "$(jq -r .image.warning report.json)" = "nothing to write: the bmap maps no block" ] ||
        fail "blank: image.warning $(jq -r .image.warning report.json)"
    [ "$(tj report.json "$dev" warning)" = "nothing to write: the bmap maps no block" ] ||
        fail "blank: warning $(tj report.json "$dev" warning)"
    all_bytes "$dev" 0 $size 356 || fail "blank: the card was written"
    loop_detach "$dev"
    echo "a bmap that maps nothing: pass, warned: nothing to write"
else
    echo "SKIPPED PART: no bmaptool: a bmap that maps nothing was not tried"
fi

# faulty cards: a hole's writes dropped, a data byte flipped
need_fuse
dio_modes
set -- $DIO_MODES
fill_ee drop.store $size
fill_ee flip.store $size
card_start drop --drop $MiB:$((8 * MiB))
card_start flip --flip $((8 * MiB + 100))
drop=$(card_loop drop "$1")
flip=$(card_loop flip "$1")
expect_status 1 "$SDIMG" flash holes.img "$drop" "$flip" --allow-fixed --json
cp out.txt report.json
expect_fail report.json "$drop" verify "bytes $MiB-$((5 * MiB - 1)) read back differ from the zeros written there"
[ "$(tj report.json "$drop" first_bad_range.start)" = $MiB ] ||
    fail "drop: first_bad_range $(tj report.json "$drop" first_bad_range)"
[ "$(tj report.json "$drop" bytes_verified)" = $((2 * MiB)) ] ||
    fail "drop: bytes_verified $(tj report.json "$drop" bytes_verified), not the data's 2 MiB"
[ "$(tj report.json "$drop" gaps_verified)" = false ] || fail "drop: gaps_verified true"
grep -q "^dropped $MiB " drop.log || fail "drop: the card dropped nothing"
all_bytes drop.store $MiB $((8 * MiB)) 356 || fail "drop: the hole's bytes reached the card"
expect_fail report.json "$flip" verify "bytes $((8 * MiB))-$((9 * MiB - 1)) read back differ from the image"
[ "$(tj report.json "$flip" bytes_verified)" = $MiB ] ||
    fail "flip: bytes_verified $(tj report.json "$flip" bytes_verified), not the first extent's 1 MiB"
echo "drop: $(tj report.json "$drop" error); flip: bytes_verified $MiB"
exit 0
