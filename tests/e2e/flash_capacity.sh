#!/bin/sh
# SPDX-License-Identifier: MIT
# sdimg flash --check-capacity against fake-capacity cards that wrap anywhere: FUSE cards
# (tests/tools/faultycard.c --wrap W) that claim 256 MiB and hold W bytes, byte x landing
# on byte x mod W, each with a loop device over it, all flashed in one run beside a genuine
# 256 MiB card:
#   W = 40 MiB + 4 KiB, 100 MiB + 512, 255 MiB + 512   not multiples of any stride
#   W = 3 MiB + 1536                                   below the region stamped densely
#   W = 256 MiB - 3584                                 past the last 4 KiB block's start
#   W = 1 MiB, 32 MiB, 128 MiB                         powers of two
# and a card that keeps nothing written past 40 MiB + 4 KiB (--drop), which fails at stage
# capacity too: it does not keep what is written there.
# Each fake card fails at stage capacity, saying it wraps and where (the byte that lands on
# byte 0 is W), and gets none of the image; the genuine card passes. The check's time for
# all of them is printed.
. "$TOP/tests/e2e/lib/flash.sh"
need jq fusermount3
need_loops
need_fuse
flash_trap
dio_modes
dio=${DIO_MODES%% *}

claims=$((256 * MiB))
wraps="$((40 * MiB + 4096)) $((100 * MiB + 512)) $((255 * MiB + 512)) $((3 * MiB + 1536)) \
$((claims - 3584)) $MiB $((32 * MiB)) $((128 * MiB))"
head -c 65536 /dev/urandom >small.img
cards="" n=0
for w in $wraps; do
    n=$((n + 1))
    truncate -s "$w" "w$w.store"
    card_start "w$w" --size "$claims" --wrap "$w"
    eval "dev_$w=\$(card_loop w$w $dio)"
    eval "cards=\"\$cards \$dev_$w\""
done
lost=$((40 * MiB + 4096))
truncate -s "$claims" lost.store
card_start lost --drop "$lost:$claims"
dev_lost=$(card_loop lost "$dio")
truncate -s "$claims" genuine.store
card_start genuine
genuine=$(card_loop genuine "$dio")

start=$(now_ms)
# shellcheck disable=SC2086 # the cards, one word each
expect_status 1 "$SDIMG" flash small.img $cards "$dev_lost" "$genuine" --allow-fixed --check-capacity --json
echo "--check-capacity over $((n + 1)) fake cards and a genuine one (256 MiB each, loop --direct-io=$dio): $(($(now_ms) - start)) ms"
cp out.txt report.json
expect_pass report.json "$genuine" 65536
for w in $wraps; do
    eval "dev=\$dev_$w"
    expect_fail report.json "$dev" capacity "the card wraps"
    tj report.json "$dev" error | grep -qF "not the 256 MiB it claims (what is written at byte $w lands on byte 0)" ||
        fail "wrap at $w: $(tj report.json "$dev" error)"
    [ "$(tj report.json "$dev" bytes_written)" = 0 ] || fail "wrap at $w: the fake card got the image"
    echo "wrap at $w: $(tj report.json "$dev" error)"
done
expect_fail report.json "$dev_lost" capacity "the card does not keep what is written there, not the 256 MiB it claims"
[ "$(tj report.json "$dev_lost" bytes_written)" = 0 ] || fail "the lossy card got the image"
echo "lost past $lost: $(tj report.json "$dev_lost" error)"
