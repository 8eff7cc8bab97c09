#!/bin/sh
# SPDX-License-Identifier: MIT
# What the unmapped stretches of the image get on the card (--gaps), on loop devices of
# 0xEE 1 MiB larger than the image: with --gaps zero every unmapped stretch reads back as
# zeros (written, and read back: gap_bytes counts them, bytes_verified too, gaps_verified
# is true); with --gaps discard the same, by BLKDISCARD (a loop device over a file punches
# holes in it; not read back); with --gaps keep (the default) they keep their 0xEE. In every mode the mapped ranges hold the image and the bytes past the image
# keep their 0xEE. Where FUSE is here, a loop device over a faultycard file (which cannot
# punch holes) shows --gaps discard on a card that cannot discard: a pass with a warning,
# the gaps left as they were.
. "$TOP/tests/e2e/lib/flash.sh"
need jq sha256sum mke2fs
need_loops
flash_trap
make_inputs
write_layout mbr
build_card card.layout card.img
bmap_gaps card.img.bmap "$size" >gaps.txt
unmapped=$(awk '{ n += $2 - $1 } END { printf "%.0f\n", n }' gaps.txt)
[ $((mapped + unmapped)) -eq "$size" ] || fail "mapped $mapped + unmapped $unmapped is not $size"
echo "$(wc -l <gaps.txt) unmapped stretches, $unmapped bytes"
fill_ee ee.cache $((size + MiB))

# gaps_are DEV BYTE: every unmapped stretch of DEV is all BYTE (octal for tr)
gaps_are() {
    while read -r s e; do
        all_bytes "$1" "$s" "$e" "$2" || fail "$1: bytes $s-$((e - 1)) are not all \\$2"
    done <gaps.txt
}

for mode in zero discard keep; do
    dev=$(ee_loop $mode $((size + MiB)))
    blocks_before=$(stat -c %b $mode.bin)
    expect_status 0 "$SDIMG" flash card.img "$dev" --gaps $mode --allow-fixed --json
    cp out.txt report.json
    if [ $mode = zero ]; then # the zeros written are read back too
        expect_pass report.json "$dev" "$mapped" $((mapped + unmapped))
        [ "$(tj report.json "$dev" gaps_verified)" = true ] || fail "zero: the gaps were not read back"
    else
        expect_pass report.json "$dev" "$mapped"
        [ "$(tj report.json "$dev" gaps_verified)" = false ] || fail "$mode: gaps_verified true"
    fi
    [ "$(tj report.json "$dev" warning)" = null ] || fail "$mode: warning $(tj report.json "$dev" warning)"
    check_ranges "$dev" card.img card.img.bmap
    all_bytes "$dev" "$size" $((size + MiB)) 356 || fail "$mode: the bytes past the image changed"
    gap_bytes=$(tj report.json "$dev" gap_bytes)
    case $mode in
        zero|discard)
            gaps_are "$dev" 0
            [ "$gap_bytes" = "$unmapped" ] || fail "$mode: gap_bytes $gap_bytes, the gaps hold $unmapped" ;;
        keep)
            gaps_are "$dev" 356
            [ "$gap_bytes" = 0 ] || fail "keep: gap_bytes $gap_bytes" ;;
    esac
    loop_detach "$dev"
    blocks_after=$(stat -c %b $mode.bin)
    [ $mode != discard ] || [ "$blocks_after" -lt "$blocks_before" ] ||
        fail "discard: the file under the loop device kept its blocks ($blocks_before, $blocks_after)"
    echo "--gaps $mode: pass, gap_bytes $gap_bytes, the gaps read $( [ $mode = keep ] && echo 0xEE || echo zeros), the file under it $((blocks_before / 2048)) -> $((blocks_after / 2048)) MiB"
    rm -f $mode.bin
done

if [ -c /dev/fuse ] && command -v fusermount3 >/dev/null && [ -x "$FAULTYCARD" ]; then
    fill_ee plain.store "$size"
    card_start plain
    dev=$(card_loop plain off)
    expect_status 0 "$SDIMG" flash card.img "$dev" --gaps discard --allow-fixed --json
    cp out.txt report.json
    expect_pass report.json "$dev" "$mapped"
    w=$(tj report.json "$dev" warning)
    if [ "$w" = null ]; then
        gaps_are plain.store 0
        echo "--gaps discard over FUSE: the kernel discarded anyway (gaps read zeros)"
    else
        [ "$w" = "the device cannot discard: the gaps keep what they held" ] || fail "discard over FUSE: warning $w"
        gaps_are plain.store 356
        grep -q "^$dev: pass in [0-9.]* s; the device cannot discard: the gaps keep what they held\$" err.txt ||
            fail "no warning on stderr: $(cat err.txt)"
        echo "--gaps discard on a card that cannot discard: pass, warned, gaps kept 0xEE"
    fi
    loop_detach "$dev"
    card_stop plain "$CARD_PID"
else
    echo "SKIPPED PART: no FUSE here: --gaps discard on a card that cannot discard was not run"
fi
exit 0
