#!/bin/sh
# sdimg flash writes the device it checked: a target given as a symbolic link that is
# re-pointed after its first look (a FUSE link, tests/tools/faultycard.c --link A --relink B:
# A the first time it is followed, B ever after) is looked up once: A is classified, held,
# written and reported; B is never touched (a program that checks the name and then opens
# it again writes B and reports A).
# The station names each card /dev/NAME itself: under strace, the one syscall that names
# the card's node is its lookup (a program that stats it and then opens it again names it
# twice).
. "$TOP/tests/e2e/lib/flash.sh"
need jq lsblk sha256sum fusermount3
need_loops
need_fuse
flash_trap

head -c $MiB /dev/urandom >small.img
img=$(sha256sum <small.img | cut -d' ' -f1)
# holds DEVICE: the image's bytes are DEVICE's first
holds() { [ "$(bytes_sum "$1" 0 $MiB)" = "$img" ]; }

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
holds "$a" || fail "$a, checked and reported, does not hold the image"
all_bytes "$b" 0 $((2 * MiB)) 356 || fail "$b, which the link named only later, was written"
n=$(grep -c '^readlink' link.log)
echo "the link was followed $n time(s): $(grep '^readlink' link.log | tr '\n' ' ')"
[ "$n" -eq 1 ] || fail "the target's name was followed $n times, not once"
loop_detach "$a"
loop_detach "$b"
card_stop link $link_pid

echo "== the station looks its card up once"
if command -v strace >/dev/null 2>&1; then
    slot=/dev/loop$(free_slots 1)
    fill_ee card.bin $((2 * MiB))
    station_start strace -f -qq -o trace.txt -e trace=%file "$SDIMG" flash small.img --watch \
        --match "${slot#/dev/}" --allow-fixed --log station.jsonl
    put "$slot" card.bin
    wait_lines 1
    [ "$(line 1 result)" = pass ] || fail "the station's card: $(cat station.jsonl)"
    holds "$slot" || fail "$slot does not hold the image"
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
    echo "no strace here: the station's part is not checked"
fi
