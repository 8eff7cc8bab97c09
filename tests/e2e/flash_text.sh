#!/bin/sh
# SPDX-License-Identifier: MIT
# What sdimg flash says, as text, whatever the text it is given:
#   names that are not UTF-8 (an image path, a target path, a CSV value) are kept in the
#   JSON report and the station's log, each byte that is no UTF-8 as U+FFFD: no key goes
#   missing, no "device": null;
#   on a terminal of 80 columns (script(1)), every progress row is cut to the width (a long
#   target path, a long reason), so that redrawing them leaves no stale text behind.
. "$TOP/tests/e2e/lib/flash.sh"
need jq script stty fusermount3
need_loops
need_fuse
flash_trap
blob_layout 3000000 48M 40M 512
build_card big.layout big.img
fill_ee ee.cache "$size"
bad=$(printf '\377')
fffd=$(printf '\357\277\275')

echo "== an image path and a target path that are not UTF-8"
img="card${bad}.img"
cp big.img "$img"
cp big.img.bmap "$img.bmap"
good=$(ee_loop good "$size")
ln -s "$good" "dev${bad}"
expect_status 0 "$SDIMG" flash "$img" "./dev${bad}" --allow-fixed --report report.json
[ "$(jq -r .image.path report.json)" = "card${fffd}.img" ] || fail "image.path: $(jq -c .image report.json)"
[ "$(jq -r .image.bmap report.json)" = "card${fffd}.img.bmap" ] || fail "image.bmap: $(jq -c .image report.json)"
[ "$(jq -r '.targets[0].device' report.json)" = "./dev${fffd}" ] || fail "device: $(jq -c '.targets[0]' report.json)"
[ "$(jq -r '.targets[0].result' report.json)" = pass ] || fail "result: $(jq -c '.targets[0]' report.json)"
check_sums good.bin big.img.bmap

echo "== the station's log, an image path that is not UTF-8"
base=$(free_slots 1)
A=/dev/loop$base
fill_ee card1.bin "$size"
station_start "$SDIMG" flash "$img" --watch --match "loop$base" --allow-fixed --log station.jsonl
put "$A" card1.bin
wait_lines 1
kill -TERM $STATION
bg_expect $STATION 0 "the station"
[ "$(line 1 image)" = "card${fffd}.img" ] || fail "the log's image: $(cat station.jsonl)"
[ "$(line 1 device)" = "$A" ] && [ "$(line 1 result)" = pass ] || fail "the log: $(cat station.jsonl)"
take "$A"

echo "== a CSV value that is not UTF-8"
cat >cards.layout <<'EOT'
image { table = gpt size = 48M }
partition boot {
    type = fat32
    size = 40M
    fat { cluster-size = 512 }
    file "/serial.txt" { content = "serial=\${CARD_SERIAL}\n" per-card = true reserve = 4K }
}
EOT
"$SDIMG" build -q --bmap -o cards.img cards.layout || fail "build cards.img"
printf 'CARD_SERIAL\nSN%s42\n' "$bad" >serials.csv
fill_ee good.bin "$size"
expect_status 0 "$SDIMG" flash cards.img "$good" --allow-fixed --card-values serials.csv --json
[ "$(jq -r '.targets[0].card.values.CARD_SERIAL' out.txt)" = "SN${fffd}42" ] ||
    fail "the card's value: $(jq -c '.targets[0].card' out.txt)"
LC_ALL=C grep -aq "serial=SN${bad}42" good.bin || fail "the card does not hold the value's bytes as given"
loop_detach "$good"

echo "== progress on a terminal of 80 columns: a long target path, a long reason"
long=$(printf 'a-folder-whose-name-alone-is-wider-than-half-of-an-eighty-column-terminal-%s' x)
mkdir "$long"
fill_ee slow.store "$size"
card_start slow --slow-ms 80; slow_pid=$CARD_PID
slow=$(card_loop slow off)
set -- $(nth_range big.img.bmap 2)
drop_at=$(($1 + MiB))
fill_ee drop.store "$size"
card_start drop --drop $drop_at:$((drop_at + 4096)); drop_pid=$CARD_PID
drop=$(card_loop drop off)
ln -s "$slow" "$long/slow-card"
ln -s "$drop" "$long/dropping-card"
set +e
script -qec "stty cols 80 rows 24; exec '$SDIMG' flash big.img '$long/slow-card' '$long/dropping-card' --allow-fixed" typescript >/dev/null 2>&1
status=$?
set -e
[ $status -eq 1 ] || fail "the run on a terminal exited $status: $(tr -d '\r' <typescript | tail -5)"
esc=$(printf '\033')
tr -d '\r' <typescript | grep -a "${esc}\[K" | sed "s/.*${esc}\[K//" >rows.txt
[ -s rows.txt ] || fail "no progress rows drawn: $(cat -v typescript | head -5)"
grep -aq "FAIL at verify" rows.txt || fail "the dropping card's row: $(cat rows.txt)"
awk 'length($0) > 79 { print "row of " length($0) " columns: " $0; wide = 1 } END { exit wide }' rows.txt ||
    fail "progress rows wider than the terminal's 80 columns"
echo "$(wc -l <rows.txt) progress rows drawn, the widest $(awk '{ if (length($0) > w) w = length($0) } END { print w }' rows.txt) columns"
loop_detach "$slow"
loop_detach "$drop"
card_stop slow $slow_pid
card_stop drop $drop_pid
exit 0
