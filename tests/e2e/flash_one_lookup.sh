#!/bin/sh
# SPDX-License-Identifier: MIT
# sdimg flash writes the device it checked: a target given as a symbolic link that is
# re-pointed after its first look (a FUSE link, tests/tools/faultycard.c --link A --relink B:
# A the first time it is followed, B ever after) is looked up once: A is classified, held,
# written and reported; B is never touched (a program that checks the name and then opens
# it again writes B and reports A).
# A device another program holds (a first sdimg flash, its card hanging in a write) is
# refused at the check stage as held, and the first run's card is left alone.
# The station names each card /dev/NAME itself: under strace, the one syscall that names
# the card's node is its lookup (a program that stats it and then opens it again names it
# twice).
. "$TOP/tests/e2e/lib/flash.sh"
need jq lsblk sha256sum fusermount3
need_loops
need_fuse
flash_trap
small_image

echo "== a symbolic link re-pointed after its first look"
a=$(ee_loop a $((2 * MiB)))
b=$(ee_loop b $((2 * MiB)))
truncate -s 1M link.store
card_start link --link "$a" --relink "$b"; link_pid=$CARD_PID
expect_status 0 "$SDIMG" flash small.img link.mnt/link --allow-fixed --json
cp out.txt report.json
expect_pass report.json link.mnt/link $MiB
am=$(lsblk -dno MAJ:MIN "$a" | tr -d ' ')
[ "$(tj report.json link.mnt/link major_minor)" = "$am" ] ||
    fail "the report names $(tj report.json link.mnt/link major_minor), not $a ($am)"
holds_small "$a" || fail "$a, checked and reported, does not hold the image"
all_bytes "$b" 0 $((2 * MiB)) 356 || fail "$b, which the link named only later, was written"
n=$(grep -c '^readlink' link.log)
echo "the link was followed $n time(s): $(grep '^readlink' link.log | tr '\n' ' ')"
[ "$n" -eq 1 ] || fail "the target's name was followed $n times, not once"
loop_detach "$a"
loop_detach "$b"
card_stop link $link_pid

echo "== a device another program holds"
truncate -s 2M held.store
card_start held --hang-at 0 --hang-max 60; held_pid=$CARD_PID
held=$(card_loop held on)
"$SDIMG" flash small.img "$held" --allow-fixed --json >first.json 2>first.err &
first=$!
echo $first >>bg.txt
wait_for 30 grep -q "^hang " held.log || fail "the first run did not reach the card in 30 s: $(cat first.err)"
expect_status 1 "$SDIMG" flash small.img "$held" --allow-fixed --json
cp out.txt report.json
expect_refused report.json "$held" "cannot open it for writing: Device or resource busy (mounted, or held by another program)"
[ "$(tj report.json "$held" stage)" = check ] || fail "held: refused at $(tj report.json "$held" stage), not check"
kill -USR1 $held_pid
bg_expect $first 0 "the first run"
jq -e '.targets[0].result == "pass"' first.json >/dev/null || fail "the first run: $(cat first.json)"
echo "held: refused at check, $(tj report.json "$held" error); the first run passed"
loop_detach "$held"
card_stop held $held_pid

echo "== the station looks its card up once"
if command -v strace >/dev/null 2>&1 && command -v pgrep >/dev/null 2>&1; then
    slot=/dev/loop$(free_slots 1)
    fill_ee card.bin $((2 * MiB))
    station_start strace -f -qq -o trace.txt -e trace=%file "$SDIMG" flash small.img --watch \
        --match "${slot#/dev/}" --allow-fixed --log station.jsonl
    put "$slot" card.bin
    wait_lines 1
    [ "$(line 1 result)" = pass ] || fail "the station's card: $(cat station.jsonl)"
    holds_small "$slot" || fail "$slot does not hold the image"
    sdimg_pid=$(pgrep -P "$STATION" | head -1)
    [ -n "$sdimg_pid" ] || fail "no station under strace"
    kill -TERM "$sdimg_pid"
    bg_expect "$STATION" 0 "the station under strace"
    grep -F "\"$slot\"" trace.txt >named.txt || true
    [ "$(wc -l <named.txt)" -eq 1 ] && grep -q O_PATH named.txt ||
        fail "the station named $slot in $(wc -l <named.txt) syscalls, not one lookup: $(cat named.txt)"
    echo "the station's one syscall naming its card: $(sed 's/^[0-9]* *//' named.txt)"
    take "$slot"
else
    echo "no strace or pgrep here: the station's part is not checked"
fi
