#!/bin/sh
# SPDX-License-Identifier: MIT
# Every way a run of `sdimg flash` can end, and what it leaves: for each, the --report file,
# the station's log and the exit status agree with the bytes on each card. A card is
# reported pass only when every range the bmap maps holds the image's bytes; a refused card
# is untouched; a run that ends without a verdict for a card leaves no report at all (the
# previous run's "pass" at the path is gone before any card is touched, and no empty file
# is left at a new path).
#   pass            a good card                            0  pass, the image on it
#   fail            a faultycard that drops a write        1  fail at verify, not the image
#   refused         a loop device too small                1  refused, untouched
#   SIGINT, SIGTERM, SIGHUP mid-write (a slow faultycard)  1  fail "aborted", summary
#   SIGKILL mid-write                                      137 no report (old one removed)
#   a damaged bmap                                         1  no report, untouched
#   --report naming the image or its bmap                  1  both kept, untouched
#   a missing CSV of --card-values                         1  no report, untouched
#   the station: SIGHUP with a card in flight              0  it finishes, logged, summary
#   the station's log on a full disk                       1  no partial record; the card
#                                                             is not announced as pass
#   a log that ends in a partial record (a full disk, a    0  cut off: the next one whole
#   power cut, an older sdimg)
. "$TOP/tests/e2e/lib/flash.sh"
need jq sha256sum fusermount3 mount
need_loops
need_fuse
flash_trap
blob_layout 6000000 48M 40M 512
build_card big.layout big.img
fill_ee ee.cache "$size"
dio_modes
dio=${DIO_MODES%% *}

# holds_image CARD: every range big.img.bmap maps holds, on CARD, the image's bytes
holds_image() {
    bmap_blocks big.img.bmap >held.txt
    while read -r first last sum; do
        [ "$(range_sum "$1" "$first" "$last")" = "$sum" ] || return 1
    done <held.txt
}

# agrees RESULT CARD WHAT: what a report or log says of a card (RESULT) is what CARD holds:
# pass only with the image on it; refused only untouched (0xEE)
agrees() {
    case $1 in
        pass) holds_image "$2" || fail "$3: reported pass, but the card does not hold the image" ;;
        refused) all_bytes "$2" 0 "$size" 356 || fail "$3: refused, yet the card was written" ;;
        fail) ;;
        *) fail "$3: no verdict ('$1')" ;;
    esac
}

# no_report PATH WHAT: no report at PATH, and no file of its making beside it
no_report() {
    [ ! -e "$1" ] || fail "$2: a report was left at $1: $(head -c 300 "$1")"
    ! ls -A | grep -q "^\.$1\." || fail "$2: a temporary file was left: $(ls -A | grep "^\.$1\.")"
}

# slow_card NAME: a faultycard whose every write waits 50 ms, as a loop device (in DEV)
slow_card() {
    fill_ee "$1.store" "$size"
    card_start "$1" --slow-ms 50
    SLOW_PID=$CARD_PID
    DEV=$(card_loop "$1" "$dio")
}

# flash_bg ARGS...: sdimg flash ARGS in the background (stdout in out.txt, stderr in err.txt)
flash_bg() {
    "$SDIMG" flash "$@" >out.txt 2>err.txt &
    FLASH=$!
    echo $FLASH >>bg.txt
}

echo "== pass"
good=$(ee_loop good "$size")
expect_status 0 "$SDIMG" flash big.img "$good" --allow-fixed --report report.json
expect_pass report.json "$good" "$mapped"
agrees pass good.bin "pass"
cp report.json pass.json

echo "== fail: a card that drops a write, and a good one"
set -- $(nth_range big.img.bmap 2)
bad=$(($1 + 2 * MiB))
fill_ee drop.store "$size"
card_start drop --drop $bad:$((bad + 4096)); drop_pid=$CARD_PID
drop=$(card_loop drop "$dio")
fill_ee good.bin "$size"
expect_status 1 "$SDIMG" flash big.img "$good" "$drop" --allow-fixed --report report.json
expect_pass report.json "$good" "$mapped"
agrees pass good.bin "fail run: the good card"
expect_fail report.json "$drop" verify "read back differ from the image"
! holds_image drop.store || fail "the dropping card holds the image"
loop_detach "$drop"
card_stop drop $drop_pid

echo "== refused: a card smaller than the image"
fill_ee small.bin $((size / 2))
small=$(loop_attach small.bin)
fill_ee good.bin "$size"
expect_status 1 "$SDIMG" flash big.img "$small" "$good" --allow-fixed --report report.json
expect_refused report.json "$small" "is too small"
expect_pass report.json "$good" "$mapped"
agrees pass good.bin "refused run: the good card"
all_bytes small.bin 0 $((size / 2)) 356 || fail "the refused card was written"
loop_detach "$small"

for sig in INT TERM HUP; do
    echo "== SIG$sig mid-write: the card fails, the report says so, a summary"
    cp pass.json report.json
    slow_card "s$sig"
    flash_bg big.img "$DEV" --allow-fixed --report report.json
    wait_written "s$sig.log" "$MiB" $FLASH "sdimg flash"
    kill -$sig $FLASH
    bg_expect $FLASH 1 "sdimg flash stopped by SIG$sig"
    grep -q "stopping: 1 in flight aborted (they fail)" err.txt || fail "SIG$sig: no word of the stop: $(cat err.txt)"
    grep -q "^TARGET  *CARD  *RESULT" out.txt || fail "SIG$sig: no summary: $(cat out.txt)"
    expect_fail report.json "$DEV" write "aborted: "
    wait_for 30 settled "s$sig.log" || fail "SIG$sig: the card is still written 30 s after the run ended"
    ! holds_image "s$sig.store" || fail "SIG$sig: the aborted card holds the image"
    loop_detach "$DEV"
    card_stop "s$sig" $SLOW_PID
done

echo "== SIGKILL mid-write: no report, neither the old one nor an empty new one"
for r in report.json new.json; do
    [ $r = new.json ] || cp pass.json report.json
    slow_card kill
    flash_bg big.img "$DEV" --allow-fixed --report $r
    wait_written kill.log "$MiB" $FLASH "sdimg flash"
    kill -KILL $FLASH
    bg_expect $FLASH 137 "sdimg flash killed"
    no_report $r "SIGKILL"
    wait_for 30 settled kill.log || fail "SIGKILL: the card is still written 30 s after the run ended"
    ! holds_image kill.store || fail "SIGKILL: the card holds the image"
    loop_detach "$DEV"
    card_stop kill $SLOW_PID
    rm -rf kill.store kill.mnt kill.log kill.out
done

echo "== a damaged bmap: no report, no card touched"
cp pass.json report.json
cp big.img dmg.img
c=$(grep -o '<Range chksum="[0-9a-f]' big.img.bmap | head -1 | tail -c 2)
[ "$c" = 0 ] && d=1 || d=0
sed "0,/<Range chksum=\"$c/s//<Range chksum=\"$d/" big.img.bmap >dmg.img.bmap
cmp -s big.img.bmap dmg.img.bmap && fail "the bmap was not damaged"
fill_ee good.bin "$size"
expect_status 1 "$SDIMG" flash dmg.img "$good" --allow-fixed --report report.json
no_report report.json "damaged bmap"
all_bytes good.bin 0 "$size" 356 || fail "damaged bmap: the card was written"

echo "== --report naming the bmap or the image: refused, both kept, no card touched"
for r in big.img.bmap big.img; do
    sum=$(sha256sum <$r)
    expect_status 1 "$SDIMG" flash big.img "$good" --allow-fixed --report $r
    expect_stderr "$r: the report would overwrite $([ $r = big.img ] && echo the image || echo its bmap)"
    [ "$(sha256sum <$r)" = "$sum" ] || fail "--report $r changed it"
done
all_bytes good.bin 0 "$size" 356 || fail "--report naming an input: the card was written"

echo "== a missing CSV: no report, no card touched"
cp pass.json report.json
expect_status 1 "$SDIMG" flash big.img "$good" --allow-fixed --report report.json --card-values missing.csv
no_report report.json "missing CSV"
all_bytes good.bin 0 "$size" 356 || fail "missing CSV: the card was written"
loop_detach "$good"

echo "== the station: SIGHUP with a card in flight"
base=$(free_slots 1)
A=/dev/loop$base
rm -f station.jsonl
station_start "$SDIMG" flash big.img --watch --match "loop$base" --allow-fixed --log station.jsonl
fill_ee hup.store "$size"
card_start hup --slow-ms 20; hup_pid=$CARD_PID
put "$A" hup.mnt/card --direct-io="$dio"
wait_written hup.log "$MiB" "$STATION" "the station"
kill -HUP $STATION
bg_expect $STATION 0 "the station stopped by SIGHUP"
grep -q "Hangup: stopping" err.txt || fail "no word of SIGHUP: $(cat err.txt)"
grep -q "station stopped: 1 passed, 0 failed, 0 refused" out.txt || fail "summary: $(cat out.txt)"
[ "$(lines)" = 1 ] || fail "the log has $(lines) lines: $(cat station.jsonl)"
agrees "$(line 1 result)" hup.store "the station's card at SIGHUP"
[ "$(line 1 result)" = pass ] || fail "the card in flight at SIGHUP: $(cat station.jsonl)"
take "$A"
card_stop hup $hup_pid

echo "== the station's log on a full disk: no partial record, the card not announced as pass"
jq -c '{slot: "loop0"} + .targets[0]' pass.json >rec.json # a station's record
mkdir full
if mount -t tmpfs -o size=8k sdimg-full full 2>mount.err; then
    echo "$PWD/full" >>mounts.txt
    head -c 4096 /dev/zero >full/pad
    # whole records that leave less room than one more takes
    while [ $(($(stat -c %s full/log.jsonl 2>/dev/null || echo 0) + $(stat -c %s rec.json) + 1)) -lt 4096 ]; do
        cat rec.json >>full/log.jsonl
    done
    before=$(stat -c %s full/log.jsonl)
    fill_ee full.bin "$size"
    station_start sh -c 'exec "$0" "$@" 2>&1' "$SDIMG" flash big.img --watch --match "loop$base" \
        --allow-fixed --log full/log.jsonl
    put "$A" full.bin
    wait_for 60 grep -q "^loop$base " out.txt || fail "no line of the card in 60 s: $(cat out.txt)"
    bg_expect $STATION 1 "the station whose log is full"
    [ "$(stat -c %s full/log.jsonl)" = "$before" ] || fail "the log grew by a partial record: $(tail -c 300 full/log.jsonl)"
    jq -c . full/log.jsonl >/dev/null || fail "the log is no list of whole records"
    grep -q "log.jsonl: the card.s record cannot be written: No space left on device (the log ends with the record before it)" out.txt ||
        fail "no word of the log: $(cat out.txt)"
    said=$(grep -n "cannot be written" out.txt | head -1 | cut -d: -f1)
    shown=$(grep -n "^loop$base " out.txt | head -1 | cut -d: -f1)
    [ "$said" -lt "$shown" ] || fail "the card's line came before the word of the log: $(cat out.txt)"
    grep "^loop$base " out.txt | grep -q " fail .*its record is not in the log" ||
        fail "a card whose record is not in the log was shown as: $(grep "^loop$base " out.txt)"
    grep -q "station stopped: 0 passed, 1 failed" out.txt || fail "summary: $(cat out.txt)"
    holds_image full.bin || fail "the card said to be written and verified does not hold the image"
    take "$A"
else
    echo "SKIPPED PART: no tmpfs can be mounted here ($(cat mount.err)): the full log was not run"
fi

echo "== a log that ends in a partial record: cut off, the next record whole"
cat rec.json rec.json >cut.jsonl
whole=$(wc -l <cut.jsonl)
part=$(printf '{"slot":"loop%s","result":"pa' "$base")
printf '%s' "$part" >>cut.jsonl
fill_ee cut.bin "$size"
station_start "$SDIMG" flash big.img --watch --match "loop$base" --allow-fixed --log cut.jsonl
put "$A" cut.bin
wait_for 60 grep -q "^loop$base " out.txt || fail "no line of the card in 60 s: $(cat out.txt)"
kill -TERM $STATION
bg_expect $STATION 0 "the station after a partial record"
grep -q "cut.jsonl: ended in ${#part} bytes of a record not written whole" err.txt || fail "no word of the partial record: $(cat err.txt)"
jq -c . cut.jsonl >/dev/null || fail "the next record ran on from the partial one: $(tail -2 cut.jsonl)"
[ "$(wc -l <cut.jsonl)" = $((whole + 1)) ] || fail "the log has $(wc -l <cut.jsonl) lines, expected $((whole + 1))"
[ "$(tail -1 cut.jsonl | jq -r .result)" = pass ] || fail "the last record: $(tail -1 cut.jsonl)"
agrees pass cut.bin "the station's card after a partial record"
take "$A"
exit 0
