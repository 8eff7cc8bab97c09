#!/bin/sh
# SPDX-License-Identifier: MIT
# e2e-long: a station's cards put in, written and taken out one after the other
# sdimg flash --watch: a station whose three slots are three loop devices (--match names
# them; --allow-fixed, since loop devices are not cards), each card a file attached to a
# slot while the station runs and detached when the test takes it out:
#   card 1  good                     slot A   pass
#   card 2  good                     slot B   pass
#   card 3  faulty (FUSE, --flip)    slot C   fail at verify
#   card 4  read-only (losetup -r)   slot A   refused
#   card 5  good                     slot A   pass
#   card 6  slow (FUSE), pulled      slot B   fail at write (its FUSE daemon killed mid-write)
#   card 7  slow (FUSE), good        slot C   pass: in flight when SIGINT comes, it finishes
#   card 8  good                     slot A   attached after SIGINT: never written
# plus a loop device outside the slots, attached while the station runs: never written.
# The log holds exactly one line per card (1-7) with its slot, result, stage and the
# report's fields; cards left in their slot for seconds are written once (the FUSE cards'
# own logs and the log's lines count it); the passed cards hold the image's mapped ranges;
# the summary says 4 passed, 2 failed, 1 refused, exit 1.
# Then --check-capacity: a fake-capacity FUSE card (claims 256 MiB, wraps at 32 MiB) that
# `flash` alone passes (the image's data lies below 32 MiB) is caught, in the station too.
# Also: a card present when the station starts is not written; a station without --match
# leaves loop devices alone (they are not cards); a second signal aborts the card in
# flight; the options that do not go together are usage errors (exit 2).
# Prints the time from a card's attach to its first write, and the station's own CPU time
# per card.
. "$TOP/tests/e2e/lib/flash.sh"
need jq sha256sum fusermount3

echo "== usage"
# usage_error MESSAGE: the first line of stderr, then the pointer to --help
usage_error() {
    [ "$(head -1 err.txt)" = "sdimg: $1" ] || fail "stderr: $(cat err.txt), expected: sdimg: $1"
    [ "$(sed -n 2p err.txt)" = "Try 'sdimg flash --help'." ] || fail "no pointer to --help: $(cat err.txt)"
    [ ! -s out.txt ] || fail "a usage error printed on stdout: $(cat out.txt)"
}
: >u.img
expect_status 2 "$SDIMG" flash u.img --watch /dev/null
usage_error "--watch takes no targets: the cards arrive"
expect_status 2 "$SDIMG" flash u.img --watch --allow-fixed
usage_error "--watch --allow-fixed would write every disk that appears, other programs' loop devices too: name the station's slots with --match"
expect_status 2 "$SDIMG" flash u.img /dev/null --match 'loop*'
usage_error "--match is for the station: add --watch"
expect_status 2 "$SDIMG" flash u.img /dev/null --log x.jsonl
usage_error "--log is for the station: add --watch"
expect_status 2 "$SDIMG" flash u.img --watch --json
usage_error "--watch logs each card with --log, not --json"
expect_status 2 "$SDIMG" flash u.img --watch --match ''
usage_error "--match: an empty pattern"
[ ! -e x.jsonl ] || fail "a usage error made the log"
rm -f u.img
# a station that cannot start leaves no log behind, and never writes into its image
expect_status 1 "$SDIMG" flash missing.img --watch --log x.jsonl
grep -q "missing.img" err.txt || fail "no word of the missing image: $(cat err.txt)"
[ ! -e x.jsonl ] || fail "a station that did not start left its log"
head -c 100000 /dev/urandom >i.img
cp i.img i.copy
expect_status 1 "$SDIMG" flash i.img --watch --log i.img
grep -q "sdimg: i.img: the log would be written into the image$" err.txt || fail "--log IMAGE: $(cat err.txt)"
cmp -s i.img i.copy || fail "--log IMAGE changed the image"
rm -f i.img i.copy

need_loops
need_fuse
flash_trap

blob_layout 24000000 48M 40M 512
build_card big.layout card.img
fill_ee ee.cache "$size"

# three free loop device numbers in a row, from a base of this test's own
base=$(free_slots 3)
A=/dev/loop$base B=/dev/loop$((base + 1)) C=/dev/loop$((base + 2))
echo "slots: $A $B $C"

# the cards
for f in card1.bin card2.bin card4.bin card5.bin card8.bin flip.store pulled.store slow.store other.bin; do
    fill_ee $f "$size"
done
set -- $(bmap_ranges card.img.bmap | tail -1)
flip=$(($1 + 100))
card_start flip --flip $flip; flip_pid=$CARD_PID
card_start pulled --slow-ms 100; pulled_pid=$CARD_PID
card_start slow --slow-ms 60; slow_pid=$CARD_PID

echo "== the station"
station_start "$SDIMG" flash card.img --watch --match "loop$base" --match "/dev/loop$((base + 1))" \
    --match "loop$((base + 2))" --allow-fixed --log station.jsonl --timeout 30
# cpu_ms: the station's own CPU time so far (its workers' is theirs)
cpu_ms() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.0f", ($14 + $15) * 1000 / hz }' /proc/$STATION/stat; }
cpu_start=$(cpu_ms) # the image checked against its bmap

put "$A" card1.bin
put "$B" card2.bin
put "$C" flip.mnt/card --direct-io=on
other=$(loop_attach other.bin)
wait_lines 3
sleep 2 # cards left in their slots: never written again
[ "$(lines)" = 3 ] || fail "cards left in their slots were written again: $(cat station.jsonl)"
take "$A"
put "$A" card4.bin -r
wait_lines 4
take "$A"
put "$A" card5.bin
take "$B"
put "$B" pulled.mnt/card --direct-io=on
wait_written pulled.log $((4 * MiB)) "$STATION" "the station"
kill -9 $pulled_pid # the card is pulled mid-write
wait_lines 6
take "$B"
take "$C"
put "$C" slow.mnt/card --direct-io=on
wait_written slow.log $((2 * MiB)) "$STATION" "the station"
cpu_cards=$(($(cpu_ms) - cpu_start))
kill -INT $STATION
sleep 0.3
take "$A"
put "$A" card8.bin
bg_wait $STATION
echo "station ended with status $BG_STATUS"
sed 's/^/    /' out.txt err.txt
[ $BG_STATUS -eq 1 ] || fail "the station exited $BG_STATUS, expected 1 (cards failed)"

# exactly one line per card, in the order their results came
[ "$(lines)" = 7 ] || fail "the log has $(lines) lines, expected 7: $(cat station.jsonl)"
jq -e . station.jsonl >/dev/null || fail "the log is not JSON lines"
# line N: slot device, result, stage
expect_line() {
    [ "$(line "$1" device)" = "$2" ] || fail "line $1: device $(line "$1" device), expected $2"
    [ "$(line "$1" slot)" = "${2#/dev/}" ] || fail "line $1: slot $(line "$1" slot)"
    [ "$(line "$1" result)" = "$3" ] || fail "line $1 ($2): result $(line "$1" result), expected $3: $(line "$1" error)"
    [ "$(line "$1" stage)" = "$4" ] || fail "line $1 ($2): stage $(line "$1" stage), expected $4: $(line "$1" error)"
}
# cards 1-3 finish in any order; then 4, 5 and 6 in any order but 4 first on slot A
sort_key() { jq -r '[.device, .result] | join(" ")' station.jsonl | sed -n "$1p"; }
first3=$(for n in 1 2 3; do sort_key $n; done | sort | tr '\n' ' ')
[ "$first3" = "$A pass $B pass $C fail " ] || fail "the first three lines: $first3"
for n in 1 2 3; do
    case $(line $n device) in
        "$A"|"$B") expect_line $n "$(line $n device)" pass done
                   [ "$(line $n bytes_written)" = "$mapped" ] && [ "$(line $n bytes_verified)" = "$mapped" ] ||
                       fail "line $n: bytes $(line $n bytes_written)/$(line $n bytes_verified) of $mapped" ;;
        "$C") expect_line $n "$C" fail verify
              line $n error | grep -q "read back differ from the image" || fail "card 3: $(line $n error)" ;;
    esac
done
expect_line 4 "$A" refused check
line 4 error | grep -q "read-only" || fail "card 4: $(line 4 error)"
[ "$(line 4 bytes_written)" = 0 ] || fail "card 4 refused, yet written"
rest=$(for n in 5 6 7; do sort_key $n; done | sort | tr '\n' ' ')
[ "$rest" = "$A pass $B fail $C pass " ] || fail "lines 5-7: $rest"
for n in 5 6 7; do
    case $(line $n device) in
        "$B") expect_line $n "$B" fail write
              line $n error | grep -q "^writing bytes [0-9]*-[0-9]*: Input/output error" || fail "card 6: $(line $n error)" ;;
        *) expect_line $n "$(line $n device)" pass done ;;
    esac
done
# the slow card was in flight when SIGINT came, and finished
[ "$(sed -n 7p station.jsonl | jq -r .device)" = "$C" ] || fail "the card in flight at SIGINT did not finish last"
# every line carries the report's fields, the image's, and its times
for n in 1 2 3 4 5 6 7; do
    for f in arrived finished major_minor mapped_sha256 serial usb_port size image first_bad_range; do
        sed -n "${n}p" station.jsonl | jq -e "has(\"$f\")" >/dev/null || fail "line $n lacks $f"
    done
done

# the passed cards hold the image; the refused one, the one after SIGINT and the disk
# outside the slots hold what they held
for f in card1.bin card2.bin card5.bin slow.store; do check_ranges "$f" card.img card.img.bmap; done
for f in card4.bin card8.bin other.bin; do
    [ "$(bytes_sum $f 0 "$size")" = "$(bytes_sum ee.cache 0 "$size")" ] || fail "$f was written"
done
# the FUSE cards saw one writer each: no byte written twice
for c in flip slow; do
    w=$(written $c.log)
    [ "$w" -le $((mapped + 64 * 1024)) ] || fail "$c: $w bytes written, the image maps $mapped: written twice?"
done
grep -q "station stopped: 4 passed, 2 failed, 1 refused" out.txt || fail "no summary: $(cat out.txt)"
grep -q "stopping" err.txt || fail "no word of the stop on stderr: $(cat err.txt)"
[ "$(grep -c "^loop[0-9]*  *pass  *[0-9.]* s  serial -  *$A\|^loop[0-9]*  *pass  *[0-9.]* s  serial -  *$B\|^loop[0-9]*  *pass  *[0-9.]* s  serial -  *$C" out.txt)" = 4 ] ||
    fail "not one terminal line per passed card: $(cat out.txt)"

# the numbers: from a card's attach (puts.txt: the Nth put into a slot is the Nth line of
# that slot in the log) to its first write, and the station's own CPU time per card
total=0
for n in 1 2 3 4 5 6 7; do
    slot=$(line $n slot)
    k=$(head -n $n station.jsonl | jq -r .slot | grep -c "^$slot\$")
    put_ms=$(awk -v s="$slot" -v k="$k" '$1 == s && ++i == k { print $2 }' puts.txt)
    arrived_ms=$(date -d "$(line $n arrived)" +%s%3N)
    fw=$(line $n first_write_s)
    [ "$fw" != null ] || continue
    lat=$(awk -v a="$arrived_ms" -v p="$put_ms" -v w="$fw" 'BEGIN { printf "%.0f", a - p + w * 1000 }')
    echo "card $n ($slot, $(line $n result)): attach to first write $lat ms (the station saw it $((arrived_ms - put_ms)) ms after the attach)"
    [ "$lat" -le 2000 ] || fail "card $n: $lat ms from attach to first write"
done
echo "the station's own CPU time: $cpu_start ms to start (the image checked), then $cpu_cards ms for 6 cards in $(($(now_ms) - $(head -1 puts.txt | cut -d' ' -f2))) ms"

take "$A"
take "$C"
loop_detach "$other"
card_stop flip $flip_pid
card_stop slow $slow_pid
card_stop pulled $pulled_pid

echo "== --check-capacity: a card that claims 256 MiB and wraps at 32 MiB"
truncate -s 32M fake.store
card_start fake --size 256M --wrap 32M; fake_pid=$CARD_PID
fake=$(card_loop fake on)
good=$(ee_loop good "$size")
expect_status 0 "$SDIMG" flash card.img "$fake" --allow-fixed --json
echo "without --check-capacity the fake card passes: the image's data lies below 32 MiB"
start=$(now_ms)
expect_status 1 "$SDIMG" flash card.img "$fake" "$good" --allow-fixed --check-capacity --json
echo "--check-capacity: $(($(now_ms) - start)) ms for both"
cp out.txt report.json
expect_pass report.json "$good" "$mapped"
expect_fail report.json "$fake" capacity "the card wraps, it holds at most 32 MiB, not the 256 MiB it claims"
[ "$(tj report.json "$fake" bytes_written)" = 0 ] || fail "the fake card got the image"
echo "fake: $(tj report.json "$fake" error)"
loop_detach "$fake"

echo "== the station with --check-capacity"
station_start "$SDIMG" flash card.img --watch --match "loop$base" --allow-fixed --check-capacity --log cap.jsonl
put "$A" fake.mnt/card --direct-io=on
wait_for 30 test -s cap.jsonl || fail "no record of the fake card in 30 s: $(cat out.txt err.txt)"
kill -TERM $STATION
bg_expect $STATION 1 "the station with a fake card"
[ "$(jq -r .result cap.jsonl)" = fail ] && [ "$(jq -r .stage cap.jsonl)" = capacity ] ||
    fail "the station's fake card: $(cat cap.jsonl)"
grep -q "station stopped: 0 passed, 1 failed, 0 refused" out.txt || fail "summary: $(cat out.txt)"
echo "the station caught it: $(jq -r .error cap.jsonl)"
take "$A"
loop_detach "$good"
card_stop fake $fake_pid

echo "== a station without --match leaves loop devices alone"
station_start "$SDIMG" flash card.img --watch --log none.jsonl -v
put "$A" card8.bin
wait_for 5 grep -q "^loop$base  *left alone: not a card" out.txt || fail "no word of loop$base left alone: $(cat out.txt)"
kill -TERM $STATION
bg_expect $STATION 0 "the station with no card"
[ ! -s none.jsonl ] || fail "a loop device was taken for a card: $(cat none.jsonl)"
[ "$(bytes_sum card8.bin 0 "$size")" = "$(bytes_sum ee.cache 0 "$size")" ] || fail "card8.bin was written"
grep -q "station stopped: 0 passed, 0 failed, 0 refused" out.txt || fail "summary: $(cat out.txt)"
take "$A"

echo "== without the kernel's uevents: a look at sysfs once a second"
if command -v strace >/dev/null 2>&1; then
    # strace makes the station's socket() fail, as where netlink is not allowed
    rm -f poll.jsonl
    station_start strace -o /dev/null -e trace=socket -e inject=socket:error=EPERM \
        "$SDIMG" flash card.img --watch --match "loop$base" --allow-fixed --log poll.jsonl
    tracer=$STATION
    STATION=$(pgrep -P $tracer) || fail "no station under strace"
    grep -q "the kernel's uevents cannot be read here: looking at the disks once a second" out.txt ||
        fail "no word of the uevents missing: $(cat out.txt)"
    fill_ee card9.bin "$size"
    put "$A" card9.bin
    wait_for 10 test -s poll.jsonl || fail "no card seen in 10 s without uevents: $(cat out.txt err.txt)"
    kill -INT $STATION
    bg_expect $tracer 0 "the station without uevents"
    [ "$(jq -r .result poll.jsonl)" = pass ] || fail "without uevents: $(cat poll.jsonl)"
    seen=$(($(date -d "$(jq -r .arrived poll.jsonl)" +%s%3N) - $(tail -1 puts.txt | cut -d' ' -f2)))
    echo "without uevents the station saw the card $seen ms after its attach"
    [ $seen -le 2500 ] || fail "without uevents the card was seen $seen ms after its attach"
    check_ranges card9.bin card.img card.img.bmap
    take "$A"
else
    echo "skipped: no strace to make the uevent socket fail"
fi

echo "== a second signal aborts the card in flight; a card present at the start is not written"
fill_ee slow2.store "$size"
card_start slow2 --slow-ms 100; slow2_pid=$CARD_PID
rm -f station.jsonl
put "$B" card8.bin
station_start "$SDIMG" flash card.img --watch --match "loop$base" --match "loop$((base + 1))" --allow-fixed --log station.jsonl
grep -q "^loop$((base + 1))  *present at the start, not written" out.txt || fail "no word of the card present at the start: $(cat out.txt)"
put "$A" slow2.mnt/card --direct-io=on
wait_written slow2.log $((2 * MiB)) "$STATION" "the station"
kill -INT $STATION
sleep 0.3
kill -INT $STATION
signalled=$(now_ms)
bg_expect $STATION 1 "the station with a card aborted"
echo "the station ended $(($(now_ms) - signalled)) ms after the second signal, status $BG_STATUS"
[ "$(lines)" = 1 ] || fail "the log has $(lines) lines: $(cat station.jsonl)"
[ "$(jq -r .result station.jsonl)" = fail ] || fail "the aborted card: $(cat station.jsonl)"
jq -r .error station.jsonl | grep -q "aborted: a second signal stopped the station" ||
    fail "the aborted card: $(jq -r .error station.jsonl)"
w=$(jq -r .bytes_written station.jsonl)
[ "$w" -lt "$mapped" ] || fail "the aborted card was written whole"
grep -q "station stopped: 0 passed, 1 failed, 0 refused" out.txt || fail "summary: $(cat out.txt)"
# what the station wrote before it stopped may still be on its way to the card (a piece in
# the loop device's queue, the FUSE file's page cache): once that has settled, the card holds
# no more than the station wrote, and at most the one piece (IO_SIZE, 4 MiB) in flight
wait_for 30 settled slow2.log || fail "the aborted card is still written 30 s after the station ended"
[ "$(written slow2.log)" -le $((w + 4 * MiB)) ] ||
    fail "the aborted card got $(written slow2.log) bytes; the station wrote $w before it stopped"
echo "the aborted card: $(written slow2.log) bytes on it, $w written by the station"
[ "$(bytes_sum card8.bin 0 "$size")" = "$(bytes_sum ee.cache 0 "$size")" ] || fail "the card present at the start was written"
take "$A"
take "$B"
card_stop slow2 $slow2_pid
exit 0
