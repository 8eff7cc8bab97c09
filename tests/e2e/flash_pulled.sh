#!/bin/sh
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

mkdir big
head -c 40000000 /dev/urandom >big/blob.bin
printf 'image { size = 128M table = mbr }\npartition boot { type = fat32 size = 96M fat { cluster-size = 1K } tree "/" { from = "big" } }\n' >big.layout
"$SDIMG" build -q --bmap -o big.img big.layout || fail "build"
size=$(stat -c %s big.img)
mapped=$(bmap_mapped big.img.bmap)
fill_ee ee.cache "$size"
MiB=1048576

# wait_log LOG PATTERN SECONDS: LOG has a line matching PATTERN within SECONDS
wait_log() {
    i=0
    until grep -q "$2" "$1"; do
        [ $i -lt $(($3 * 10)) ] || fail "$1: no '$2' in $3 s: $(tail -3 "$1")"
        sleep 0.1
        i=$((i + 1))
    done
}

# written LOG: the bytes the card's log says were written
written() {
    awk '$1 == "write" { n += $3 } END { printf "%.0f\n", n }' "$1"
}

echo "== pulled: the card's FUSE daemon killed mid-write"
good=$(ee_loop good "$size")
fill_ee slow.store "$size"
card_start slow --slow-ms 100
slow_pid=$CARD_PID
dev=$(card_loop slow on)
start=$(now_ms)
"$SDIMG" flash big.img "$good" "$dev" --allow-fixed --json >report.json 2>err.txt &
flash_pid=$!
echo $flash_pid >>bg.txt
# pulled once 8 MiB reached the card
until [ "$(written slow.log)" -ge $((8 * MiB)) ]; do
    kill -0 $flash_pid 2>/dev/null || fail "sdimg flash ended before the card was pulled: $(cat err.txt)"
    [ $(($(now_ms) - start)) -lt 30000 ] || fail "the slow card took no 8 MiB in 30 s"
    sleep 0.1
done
kill -9 $slow_pid
pulled=$(now_ms)
set +e
wait $flash_pid
rc=$?
set -e
forget bg $flash_pid
echo "pulled after $((pulled - start)) ms; sdimg flash ended $(($(now_ms) - pulled)) ms later with status $rc"
[ $rc -eq 1 ] || fail "sdimg flash exited $rc, expected 1: $(cat err.txt)"
expect_pass report.json "$good" "$mapped"
check_ranges "$good" big.img big.img.bmap
expect_fail report.json "$dev" write "Input/output error"
tj report.json "$dev" error | grep -q "^writing bytes [0-9]*-[0-9]*: " || fail "pulled: $(tj report.json "$dev" error)"
[ "$(tj report.json "$dev" errno)" = 5 ] || fail "pulled: errno $(tj report.json "$dev" errno)"
w=$(tj report.json "$dev" bytes_written)
[ "$w" -ge $((4 * MiB)) ] && [ "$w" -lt "$mapped" ] || fail "pulled: bytes_written $w of $mapped"
echo "pulled: fails at write after $w of $mapped bytes: $(tj report.json "$dev" error)"
loop_detach "$dev"
card_stop slow $slow_pid
loop_detach "$good"

echo "== detached: losetup -d mid-write"
good=$(ee_loop good "$size")
fill_ee slow.store "$size"
card_start slow --slow-ms 100
slow_pid=$CARD_PID
dev=$(card_loop slow on)
"$SDIMG" flash big.img "$good" "$dev" --allow-fixed --json >report.json 2>err.txt &
flash_pid=$!
echo $flash_pid >>bg.txt
start=$(now_ms)
until [ "$(written slow.log)" -ge $((8 * MiB)) ]; do
    kill -0 $flash_pid 2>/dev/null || fail "sdimg flash ended before the loop device was detached: $(cat err.txt)"
    [ $(($(now_ms) - start)) -lt 30000 ] || fail "the slow card took no 8 MiB in 30 s"
    sleep 0.1
done
losetup -d "$dev" || fail "losetup -d $dev"
forget loops "$dev"
set +e
wait $flash_pid
rc=$?
set -e
forget bg $flash_pid
expect_pass report.json "$good" "$mapped"
r=$(tj report.json "$dev" result)
case $r in
    pass) expect_pass report.json "$dev" "$mapped"
          [ $rc -eq 0 ] || fail "sdimg flash exited $rc with every target passed"
          [ "$(bytes_sum slow.store 0 "$size")" != "$(bytes_sum ee.cache 0 "$size")" ] || fail "the card holds nothing"
          check_ranges slow.store big.img big.img.bmap
          echo "detached: losetup -d waited for sdimg to close the device; the target passed" ;;
    fail) expect_fail report.json "$dev" write ""
          [ $rc -eq 1 ] || fail "sdimg flash exited $rc with a target failed"
          echo "detached: the device went away at once; the target failed at write: $(tj report.json "$dev" error)" ;;
    *) fail "detached: result $r" ;;
esac
i=0
while [ "$(losetup -nO BACK-FILE "$dev" 2>/dev/null)" = "$PWD/slow.mnt/card" ]; do
    [ $i -lt 50 ] || fail "$dev is still over slow.mnt/card 5 s after the run"
    sleep 0.1
    i=$((i + 1))
done
card_stop slow $slow_pid
loop_detach "$good"

echo "== hung: a write the card never answers, --timeout 3"
good=$(ee_loop good "$size")
fill_ee hang.store "$size"
card_start hang --hang-at $((20 * MiB)) --hang-max 60
hang_pid=$CARD_PID
dev=$(card_loop hang on)
rm -f report.json
start=$(now_ms)
"$SDIMG" flash big.img "$good" "$dev" --allow-fixed --timeout 3 --report report.json >out.txt 2>err.txt &
flash_pid=$!
echo $flash_pid >>bg.txt
wait_log hang.log "^hang " 30
hung=$(now_ms)
# the report: complete JSON, within 3 s of the hang plus the watchdog's tick and slack
until [ -s report.json ] && jq -e .targets report.json >/dev/null 2>&1; do
    [ $(($(now_ms) - hung)) -lt 20000 ] || fail "no report 20 s after the card hung: $(cat err.txt)"
    sleep 0.1
done
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
set +e
wait $flash_pid
rc=$?
set -e
forget bg $flash_pid
ended=$(now_ms)
grep -q "^released" hang.log && fail "the card was released before sdimg flash ended"
echo "hung: sdimg flash ended $((ended - reported)) ms after its report, status $rc, the card still hanging"
[ $rc -eq 1 ] || fail "sdimg flash exited $rc, expected 1"
kill -USR1 $hang_pid
loop_detach "$dev"
card_stop hang $hang_pid
loop_detach "$good"
exit 0
