#!/bin/sh
# SPDX-License-Identifier: MIT
# What `sdimg flash` must never do to the files it reads, and what a pass must not hide:
#   --report naming the CSV of --card-values or the image's per-card manifest: refused
#     before any card, the file kept (as for the image and its bmap)
#   the station's --log naming an input (the CSV), or a file that is no station's log (a
#     CSV, an image, text without a final newline): refused, the file untouched
#   --no-verify: the pass says "not read back (--no-verify)" ("verified": false, a warning
#     in the report and on the table)
#   an IMAGE or --bmap that is no regular file (a FIFO, a pipe, a folder): refused in one
#     line, never waited on
#   SIGTERM, SIGHUP or SIGINT before any card is touched (here: while the image, on a
#     faultycard whose read waits, is checked): one line, exit 1, no report (an earlier one
#     is gone), the card untouched; SIGINT too where it was ignored when sdimg started (a
#     script's background job, as here), as it is taken mid-write (flash_endings.sh)
#   SIGTERM while the station starts (its image read waiting the same way): it stops once
#     started, with its summary, exit 0
#   two loop devices over one file: the second refused ("the same backing file as")
#   a compressed image without a bmap is written whole: no word of holes under --gaps keep
. "$TOP/tests/e2e/lib/flash.sh"
need jq gzip mkfifo timeout
need_loops
flash_trap

cat >card.layout <<'EOT'
image { table = mbr size = 16M }
partition boot {
    type = fat16
    size = 8M
    file "/serial.txt" { content = "serial=\${CARD_SERIAL}\n" per-card = true reserve = 512 }
}
EOT
build_card card.layout card.img
printf 'CARD_SERIAL\nSN-1\nSN-2' >cards.csv # no final newline
csv_sum=$(sha256sum <cards.csv)
man_sum=$(sha256sum <card.img.cards.json)
a=$(ee_loop a "$size")

# kept FILE SUM WHAT: FILE still has the sha256 SUM
kept() { [ "$(sha256sum <"$1")" = "$2" ] || fail "$3 changed $1"; }
# untouched: the card a still holds 0xEE only
untouched() { all_bytes a.bin 0 "$size" 356 || fail "$1: the card was written"; }

echo "== an image or bmap that is not a regular file: refused in one line, nothing waits on it"
mkfifo fifo.img
mkdir folder.img
# refused_input WHY ARGS: flash ARGS ends at once (timeout: a waiting sdimg fails rather
# than hangs), exit 1, saying WHY
refused_input() {
    why=$1
    shift
    cat card.img | expect_status 1 timeout -k 2 10 "$SDIMG" flash "$@" "$a" --allow-fixed --dry-run
    expect_stderr "$why"
}
for i in fifo.img /dev/stdin; do
    refused_input "$i: not a regular file (a FIFO, a socket or a device)" $i
done
refused_input "folder.img: Is a directory" folder.img
refused_input "fifo.img: not a regular file (a FIFO, a socket or a device)" card.img --bmap fifo.img
untouched "an image that is no file"

echo "== --report naming the CSV or the per-card manifest: refused, kept, no card touched"
expect_status 1 "$SDIMG" flash card.img "$a" --allow-fixed --card-values cards.csv --report cards.csv
expect_stderr "cards.csv: the report would overwrite the CSV of --card-values"
kept cards.csv "$csv_sum" "--report cards.csv"
expect_status 1 "$SDIMG" flash card.img "$a" --allow-fixed --card-values cards.csv --report card.img.cards.json
expect_stderr "card.img.cards.json: the report would overwrite the image's per-card manifest"
kept card.img.cards.json "$man_sum" "--report card.img.cards.json"
untouched "--report naming an input"

echo "== the station's --log: an input, or no station's log, refused untouched"
base=$(free_slots 1)
# station_refused LOG TEXT [ARGS]: the station with --log LOG ends at once, exit 1, saying TEXT
station_refused() {
    log=$1 text=$2
    shift 2
    sum=$(sha256sum <"$log")
    expect_status 1 timeout 20 "$SDIMG" flash card.img --watch --match "loop$base" --allow-fixed \
        --log "$log" "$@"
    expect_stderr "$text"
    kept "$log" "$sum" "--log $log"
}
station_refused cards.csv "cards.csv: the log would be written into the CSV of --card-values" \
    --card-values cards.csv
station_refused card.img.cards.json "the log would be written into the image's per-card manifest" \
    --card-values cards.csv
printf 'CARD_SERIAL\nSN-1\n' >whole.csv
station_refused whole.csv "whole.csv: not a station log"
printf 'notes\nof the day' >notes.txt
station_refused notes.txt "notes.txt: not a station log"
head -c 100000 /dev/urandom | tr -d '\n' >other.img
station_refused other.img "other.img: not a station log"

echo "== --no-verify: a pass that says it was not read back"
expect_status 0 "$SDIMG" flash card.img "$a" --allow-fixed --no-verify --report report.json
[ "$(tj report.json "$a" result)" = pass ] || fail "--no-verify: $(cat report.json)"
[ "$(tj report.json "$a" verified)" = false ] || fail "--no-verify: verified is $(tj report.json "$a" verified)"
tj report.json "$a" warning | grep -qF "not read back (--no-verify)" ||
    fail "--no-verify: the warning is '$(tj report.json "$a" warning)'"
grep "^$a " out.txt | grep -qF "not read back (--no-verify)" || fail "--no-verify: the table: $(cat out.txt)"
expect_status 0 "$SDIMG" flash card.img "$a" --allow-fixed --report report.json
[ "$(tj report.json "$a" verified)" = true ] || fail "verified: $(tj report.json "$a" verified)"
[ "$(tj report.json "$a" warning)" = null ] || fail "a read-back pass warns: $(tj report.json "$a" warning)"

echo "== a signal before any card is touched: one line, exit 1, no report"
# the image (one without per-card values: no manifest beside it) is read from a faultycard
# whose first read waits (FIFOs are refused, never waited on): the signal comes while
# sdimg checks the image
if [ -c /dev/fuse ] && command -v fusermount3 >/dev/null 2>&1 && [ -x "$FAULTYCARD" ]; then
printf 'image { table = mbr size = 16M }\npartition boot { type = fat16 size = 8M }\n' >plain.layout
"$SDIMG" build -q --bmap -o plain.img plain.layout || fail "build plain.img"
for sig in TERM HUP INT; do
    fill_ee a.bin "$size"
    cp report.json old.json
    cp plain.img slow.store
    card_start slow --hang-read-at 0
    "$SDIMG" flash slow.mnt/card "$a" --bmap plain.img.bmap --allow-fixed --report old.json \
        >out.txt 2>err.txt &
    pid=$!
    echo $pid >>bg.txt
    wait_for 10 grep -q "^hang" slow.log || fail "SIG$sig: sdimg did not read the image"
    [ ! -e old.json ] || fail "SIG$sig: the old report is still there"
    kill -$sig $pid
    sleep 0.5
    kill -USR1 "$CARD_PID"
    bg_expect $pid 1 "sdimg flash stopped by SIG$sig before any card"
    expect_stderr "stopped by SIG$sig before any card was touched"
    [ ! -e old.json ] || fail "SIG$sig: a report was left: $(cat old.json)"
    untouched "SIG$sig before any card"
    card_stop slow "$CARD_PID"
done

echo "== the station: SIGTERM while it starts stops it once started, with its summary"
rm -f st.jsonl
cp plain.img slow.store
card_start slow --hang-read-at 0
"$SDIMG" flash slow.mnt/card --bmap plain.img.bmap --watch --match "loop$base" --allow-fixed \
    --log st.jsonl >out.txt 2>err.txt &
pid=$!
echo $pid >>bg.txt
wait_for 10 grep -q "^hang" slow.log || fail "the station did not read the image"
kill -TERM $pid
sleep 0.5
kill -USR1 "$CARD_PID"
bg_expect $pid 0 "the station stopped by SIGTERM as it started"
grep -q "station stopped: 0 passed, 0 failed, 0 refused" out.txt || fail "no summary: $(cat out.txt err.txt)"
card_stop slow "$CARD_PID"
else
    echo "(no FUSE here: the signals before any card are not tried)"
fi

echo "== two loop devices over one file: the second refused"
b=$(loop_attach a.bin)
expect_status 1 "$SDIMG" flash card.img "$a" "$b" --allow-fixed --dry-run --report same.json
expect_refused same.json "$b" "the same backing file as $a"
[ "$(tj same.json "$a" result)" = accepted ] || fail "the first of two loops over one file: $(cat same.json)"
loop_detach "$b"

echo "== a compressed image without a bmap: no word of holes under --gaps keep"
head -c $MiB /dev/urandom >whole.img
gzip -k whole.img
expect_status 0 "$SDIMG" flash whole.img.gz "$a" --allow-fixed --gaps keep --dry-run
! grep -q "without a bmap" err.txt || fail "a compressed image, no holes: $(cat err.txt)"
truncate -s 4M whole.img # a raw image with holes: they keep what the card held
expect_status 0 "$SDIMG" flash whole.img "$a" --allow-fixed --gaps keep --dry-run
grep -qF -- "--gaps keep without a bmap: the image's holes keep what the cards held there" err.txt ||
    fail "a raw image with holes: no word of them under --gaps keep: $(cat err.txt)"
loop_detach "$a"
exit 0
