#!/bin/sh
# SPDX-License-Identifier: MIT
# Cards that go away or hang while sdimg flash writes a larger image (a 40 MB file in a
# FAT32 partition) to them, beside a good loop device in the same run. The card is a loop
# device over a slow faultycard FUSE file (one write at a time, 100 ms each: about 10 MB/s)
# that makes the window:
#   pulled   its FUSE daemon is killed mid-write (the file, the "card", is gone): the target
#            fails alone at write with EIO, having written part of the image; the good one
#            passes
#   detached `losetup -d` mid-write: the kernel only marks a loop device that is open to
#            be let go at its last close (autoclear), so the write goes on; the device is
#            gone after the run
#   hung     a write never answered (until the test releases it): with --timeout 3 the
#            target fails with the timeout message some 3 s after its last progress, the
#            good one passes, the report is written and sdimg flash ends, exit 1, while the
#            card still hangs (its worker process stays blocked in the kernel until the
#            write returns: here when the card is released).
. "$TOP/tests/e2e/lib/flash.sh"
need jq sha256sum fusermount3
need_loops
need_fuse
flash_trap

blob_layout 40000000 128M 96M 1K
build_card big.layout big.img
fill_ee ee.cache "$size"

# cards NAME [FAULTYCARD OPTIONS]: good, a loop device of 0xEE, and dev, a loop device over
# the faultycard NAME (its daemon card_pid) of 0xEE, both the image's size
cards() {
    good=$(ee_loop good "$size")
    fill_ee "$1.store" "$size"
    card_start "$@"
    card_pid=$CARD_PID
    dev=$(card_loop "$1" on)
}

# flash_slow: big.img written to good and to a slow card (dev, card_pid) in the background
# (flash_pid, started at start ms; the report in report.json), back once 8 MiB reached the card
flash_slow() {
    cards slow --slow-ms 100
    start=$(now_ms)
    "$SDIMG" flash big.img "$good" "$dev" --allow-fixed --json >report.json 2>err.txt &
    flash_pid=$!
    echo $flash_pid >>bg.txt
    wait_written slow.log $((8 * MiB)) $flash_pid "sdimg flash"
}

# let_go DEV: DEV is no loop device over slow.mnt/card
let_go() { [ "$(losetup -nO BACK-FILE "$1" 2>/dev/null)" != "$PWD/slow.mnt/card" ]; }

# has_targets REPORT: REPORT is complete JSON, with its targets
has_targets() { [ -s "$1" ] && jq -e .targets "$1" >/dev/null 2>&1; }

echo "== pulled: the card's FUSE daemon killed mid-write"
flash_slow
kill -9 $card_pid
pulled=$(now_ms)
bg_expect $flash_pid 1 "sdimg flash"
echo "pulled after $((pulled - start)) ms; sdimg flash ended $(($(now_ms) - pulled)) ms later with status $BG_STATUS"
expect_pass report.json "$good" "$mapped"
check_ranges "$good" big.img big.img.bmap
expect_fail report.json "$dev" write "Input/output error"
tj report.json "$dev" error | grep -q "^writing bytes [0-9]*-[0-9]*: " || fail "pulled: $(tj report.json "$dev" error)"
[ "$(tj report.json "$dev" errno)" = 5 ] || fail "pulled: errno $(tj report.json "$dev" errno)"
w=$(tj report.json "$dev" bytes_written)
[ "$w" -ge $((4 * MiB)) ] && [ "$w" -lt "$mapped" ] || fail "pulled: bytes_written $w of $mapped"
echo "pulled: fails at write after $w of $mapped bytes: $(tj report.json "$dev" error)"
loop_detach "$dev"
card_stop slow $card_pid
loop_detach "$good"

echo "== detached: losetup -d mid-write"
flash_slow
loop_detach "$dev"
bg_wait $flash_pid
expect_pass report.json "$good" "$mapped"
r=$(tj report.json "$dev" result)
case $r in
    pass) expect_pass report.json "$dev" "$mapped"
          [ $BG_STATUS -eq 0 ] || fail "sdimg flash exited $BG_STATUS with every target passed"
          [ "$(bytes_sum slow.store 0 "$size")" != "$(bytes_sum ee.cache 0 "$size")" ] || fail "the card holds nothing"
          check_ranges slow.store big.img big.img.bmap
          echo "detached: losetup -d waited for sdimg to close the device; the target passed" ;;
    fail) expect_fail report.json "$dev" write ""
          [ $BG_STATUS -eq 1 ] || fail "sdimg flash exited $BG_STATUS with a target failed"
          echo "detached: the device went away at once; the target failed at write: $(tj report.json "$dev" error)" ;;
    *) fail "detached: result $r" ;;
esac
wait_for 5 let_go "$dev" || fail "$dev is still over slow.mnt/card 5 s after the run"
card_stop slow $card_pid
loop_detach "$good"

echo "== hung: a write the card never answers, --timeout 3"
cards hang --hang-at $((20 * MiB)) --hang-max 60
rm -f report.json
start=$(now_ms)
"$SDIMG" flash big.img "$good" "$dev" --allow-fixed --timeout 3 --report report.json >out.txt 2>err.txt &
flash_pid=$!
echo $flash_pid >>bg.txt
wait_for 30 grep -q "^hang " hang.log || fail "hang.log: no '^hang ' in 30 s: $(tail -3 hang.log)"
hung=$(now_ms)
# the report: complete JSON, within 3 s of the hang plus the watchdog's tick and slack
wait_for 20 has_targets report.json || fail "no report 20 s after the card hung: $(cat err.txt)"
reported=$(now_ms)
echo "hung after $((hung - start)) ms; the report came $((reported - hung)) ms later"
[ $((reported - hung)) -ge 2500 ] || fail "the report came $((reported - hung)) ms after the hang: not 3 s of no progress"
grep -q "^released" hang.log && fail "the card was released before the report"
expect_pass report.json "$good" "$mapped"
expect_fail report.json "$dev" write "no progress for 3 s: the card hangs"
[ "$(tj report.json "$dev" errno)" = 110 ] || fail "hung: errno $(tj report.json "$dev" errno)"
w=$(tj report.json "$dev" bytes_written)
[ "$w" -lt $((20 * MiB)) ] || fail "hung: bytes_written $w past the hung write at 20 MiB"
# the summary is out too (stdout, written before the report)
grep -q "^$dev  *- *fail  *[0-9.]*s  no progress for 3 s: the card hangs\$" out.txt ||
    fail "no summary line for the hung card: $(cat out.txt)"
# sdimg flash ends while the card still hangs
bg_expect $flash_pid 1 "sdimg flash"
ended=$(now_ms)
grep -q "^released" hang.log && fail "the card was released before sdimg flash ended"
echo "hung: sdimg flash ended $((ended - reported)) ms after its report, status $BG_STATUS, the card still hanging"
kill -USR1 $card_pid
loop_detach "$dev"
card_stop hang $card_pid
loop_detach "$good"
exit 0
