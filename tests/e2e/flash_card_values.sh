#!/bin/sh
# SPDX-License-Identifier: MIT
# sdimg flash --card-values: two loop devices written at once from one image, each with its
# own values, from a CSV file and from a counter. Each card's FAT volume is clean
# (fsck.fat), mtools reads its own per-card file, its ids are its own (sgdisk -v: both GPT
# headers sound), everything outside the manifest's per-card ranges is identical on both
# cards, the read-back passed on the card's own bytes, and the --json report says which row
# and values went to which card. A CSV with too few rows writes no card at all.
. "$TOP/tests/e2e/lib/flash.sh"
need jq sfdisk sgdisk fsck.fat mtype cmp bzip2
need_loops
flash_trap

cat >card.layout <<'EOT'
image { table = gpt disk-id = per-card size = 52M }
partition boot {
    type = fat32
    size = 40M
    fat { cluster-size = 512 volume-id = per-card }
    file "/etc-id/serial.txt" { content = "serial=\${CARD_SERIAL}\n" per-card = true reserve = 4K }
    file "/cmdline.txt" { content = "root=PARTUUID=\${PARTUUID_root} host=\${HOST}\n" per-card = true reserve = 256 }
    file "/plain.txt" { content = "on every card\n" }
}
partition root { type = raw size = 4M }
EOT
"$SDIMG" build -q --bmap -o card.img card.layout || fail "build"
size=$(stat -c %s card.img)
jq -r '.fields[] | [.data, .data + .reserve] | @tsv' card.img.cards.json >ranges.txt

# allowed RANGES: every byte where the two devices' images differ lies in a per-card range
# (file data, entries, FATs, FSInfo, boot sectors, GPT headers and arrays)
allowed_ranges() {
    jq -r '.fields[] | . as $f
        | ([.data, .data + .reserve] | @tsv), ([.entry, .entry + 32] | @tsv),
          (.fats[] | [. + $f["first-cluster"] * 4 - 8, . + ($f["first-cluster"] + $f.clusters) * 4 + 8] | @tsv),
          ((.fsinfo // [])[] | [., . + 512] | @tsv)' card.img.cards.json
    jq -r '.ids | (.volumes[]["volume-id"][] | [., . + 4] | @tsv), ((.["gpt-headers"] // [])[] | [., . + 512] | @tsv)' card.img.cards.json
    # the GPT entry arrays: LBA 2 and before the backup header
    echo "1024 17408"
    echo "$((size - 33 * 512)) $((size - 512))"
}

check_card() { # check_card DEV WANT_SERIAL WANT_HOST
    dd if="$1" of=dev.img bs=1M count=$((size / 1048576)) iflag=direct status=none
    off=$(($(part_json dev.img 1 start) * 512))
    dd if=dev.img of=vol.img bs=512 skip=$((off / 512)) count=$((40 * 2048)) status=none
    fsck_clean vol.img
    sgdisk -v dev.img >sg.txt 2>&1 && grep -q "No problems found" sg.txt || fail "$1: sgdisk -v: $(cat sg.txt)"
    [ "$(mtype -i dev.img@@$off ::/etc-id/serial.txt)" = "serial=$2" ] || fail "$1: serial: $(mtype -i dev.img@@$off ::/etc-id/serial.txt)"
    puuid=$(part_json dev.img 2 uuid | tr A-F a-f)
    [ "$(mtype -i dev.img@@$off ::/cmdline.txt)" = "root=PARTUUID=$puuid host=$3" ] ||
        fail "$1: cmdline: $(mtype -i dev.img@@$off ::/cmdline.txt), its root is $puuid"
    [ "$(mtype -i dev.img@@$off ::/plain.txt)" = "on every card" ] || fail "$1: plain.txt"
}

only_in_ranges() { # only_in_ranges A B
    allowed_ranges >allowed.txt
    differs_only_in allowed.txt "$1" "$2"
}

a=$(ee_loop a $size)
b=$(ee_loop b $size)

# a CSV file: rows 2 and 3 (--first-index 2), in the order the targets are given
printf 'CARD_SERIAL,HOST\nSN-1,one\n"SN-2, quoted",two\nSN-3,three\n' >cards.csv
expect_status 0 "$SDIMG" flash card.img "$a" "$b" --allow-fixed --json --card-values cards.csv --first-index 2
cp out.txt report.json
check_card "$a" "SN-2, quoted" two
cp dev.img a.img
check_card "$b" SN-3 three
cp dev.img b.img
only_in_ranges a.img b.img
for i in 0 1; do
    [ "$(jq -r ".targets[$i].result" report.json)" = pass ] || fail "target $i: $(jq -c ".targets[$i]" report.json)"
    [ "$(jq -r ".targets[$i].card.row" report.json)" = $((i + 2)) ] || fail "target $i: row"
done
[ "$(jq -r '.targets[1].card.values.CARD_SERIAL' report.json)" = SN-3 ] || fail "report: values"
[ "$(jq -r '.targets[0].device' report.json)" = "$a" ] || fail "report: device"

# a counter
expect_status 0 "$SDIMG" flash card.img "$a" "$b" --allow-fixed --json \
    --card-values 'CARD_SERIAL=SN{index:06}' --card-values 'HOST=node{index}' --first-index 41
cp out.txt report.json
check_card "$a" SN000041 node41
check_card "$b" SN000042 node42
[ "$(jq -r '.targets[1].card.index' report.json)" = 42 ] || fail "counter: index"
[ "$(jq -r '.targets[1].card.row' report.json)" = null ] || fail "counter: row"

# a compressed image finds its manifest under the raw image's name, whatever the suffix
# (card.img.bz2 -> card.img.cards.json), as it finds its bmap
bzip2 -k card.img
expect_status 0 "$SDIMG" flash card.img.bz2 "$a" --allow-fixed --json --card-values 'CARD_SERIAL=Z{index}' \
    --card-values 'HOST=bz'
check_card "$a" Z1 bz
rm -f card.img.bz2

# without --card-values every card gets the image's own values: a warning says so
expect_status 0 "$SDIMG" flash card.img "$a" --allow-fixed -q
expect_stderr "card.img: the image has per-card values (card.img.cards.json): without --card-values every card gets the image's own"

# too few rows: no card is touched
dd if="$a" of=before.img bs=1M count=1 iflag=direct status=none
expect_status 1 "$SDIMG" flash card.img "$a" "$b" --allow-fixed --card-values cards.csv --first-index 3
expect_stderr "cards.csv: no row 4 for this card (it has 3)"
dd if="$a" of=after.img bs=1M count=1 iflag=direct status=none
cmp -s before.img after.img || fail "a run without values for every card wrote a card"
# a value past its reserve, a variable the CSV does not give
printf 'CARD_SERIAL\nx\n' >short.csv
expect_status 1 "$SDIMG" flash card.img "$a" --allow-fixed --card-values short.csv
expect_stderr 'no value for ${HOST}'

# a manifest that is not the image's own (another build of the same size, or edited by
# hand) is refused before any card is touched
cp card.img.cards.json own.json
sed 's/on every card/on each card/' card.layout >other.layout
"$SDIMG" build -q --bmap -o other.img other.layout || fail "build other.img"
[ "$(stat -c %s other.img)" = "$size" ] || fail "other.img: another size"
dd if="$a" of=before.img bs=1M count=1 iflag=direct status=none
cp other.img.cards.json card.img.cards.json
expect_status 1 "$SDIMG" flash card.img "$a" --allow-fixed --card-values cards.csv
expect_stderr "card.img: its per-card manifest card.img.cards.json belongs to another image"
edited() { # edited JQ MESSAGE: a flash with own.json edited by JQ is refused with MESSAGE
    jq "$1" own.json >card.img.cards.json
    expect_status 1 "$SDIMG" flash card.img "$a" --allow-fixed --card-values cards.csv
    expect_stderr "card.img.cards.json: $2"
}
edited '.ids["gpt-headers"][0] = 1024' "ids: no GPT header at byte 1024"
edited '.ids["mbr-disk-id"] = 440' "ids: mbr-disk-id, but the image's table is gpt"
edited '.ids.partitions[0].number = 2 | .ids.partitions[1].number = 1' "ids: partition 2 is not"
edited '.seed = "other"' "seed: its seed is not the image's"
edited '.fields[1].entry = 446' "boot:/cmdline.txt: its directory entry at byte 446 is in no directory"
dd if="$a" of=after.img bs=1M count=1 iflag=direct status=none
cmp -s before.img after.img || fail "a run with a manifest not the image's wrote a card"
cp own.json card.img.cards.json
rm -f other.img*

# the names: each once, none an id the card derives (the card would hold one value and
# the report name another); a CSV saved with a byte order mark reads as any other
values_refused() { # values_refused MESSAGE --card-values...
    vr_msg=$1
    shift
    expect_status 1 "$SDIMG" flash card.img "$a" --allow-fixed --dry-run "$@"
    expect_stderr "$vr_msg"
}
printf 'CARD_SERIAL,HOST,CARD_SERIAL\nA,b,C\n' >twice.csv
values_refused "twice.csv:1: 'CARD_SERIAL' names two columns" --card-values twice.csv
values_refused "--card-values: 'HOST' is a column of the CSV file and a counter too" \
    --card-values cards.csv --card-values 'HOST=h{index}'
# two counters of one variable: a usage error, as --set twice is for every command
expect_status 2 "$SDIMG" flash card.img "$a" --allow-fixed --dry-run --card-values 'CARD_SERIAL=s' \
    --card-values 'HOST=h{index}' --card-values 'HOST=x'
[ "$(head -1 err.txt)" = "sdimg: --card-values 'HOST' given twice" ] || fail "two counters of HOST: $(cat err.txt)"
printf 'CARD_SERIAL,HOST,PARTUUID_root\nA,b,c\n' >derived.csv
values_refused "derived.csv:1: 'PARTUUID_root' names an id each card derives" --card-values derived.csv
values_refused "--card-values: 'DISK_ID' names an id each card derives" \
    --card-values cards.csv --card-values 'DISK_ID=0'
values_refused "--card-values: 'VOLUME_ID_boot' names an id each card derives" \
    --card-values cards.csv --card-values 'VOLUME_ID_boot=1234-5678'
# a counter the option cannot mean: a usage error, as other bad options are
expect_status 2 "$SDIMG" flash card.img "$a" --allow-fixed --dry-run --card-values 'CARD_SERIAL=SN{index:021}'
expect_stderr "a width of at most 20 digits ({index:020})"
printf '\357\273\277CARD_SERIAL,HOST\r\nSN-1,one\r\n' >bom.csv
expect_status 0 "$SDIMG" flash card.img "$a" --allow-fixed --dry-run --card-values bom.csv
grep -qF 'card 1 (row 1): CARD_SERIAL="SN-1", HOST="one"' out.txt || fail "a CSV with a BOM: $(cat out.txt)"

# out of memory says so in one line, exit 1 (a CSV of 60 MB, under the 64 MiB a CSV may
# have, read in 50 MB of memory)
{ echo CARD_SERIAL; head -c 60000000 /dev/zero | tr '\0' x; echo; } >huge.csv
(ulimit -v 50000 && exec "$SDIMG" flash card.img "$a" --allow-fixed --dry-run --card-values huge.csv) \
    >out.txt 2>err.txt && fail "60 MB of values in 50 MB of memory"
expect_stderr "out of memory"
rm -f huge.csv

# --dry-run: each card's values, quoted and escaped as C strings (a comma, a quote, a
# newline in a value read as part of it), and what --gaps zero adds to the mapped bytes
printf 'CARD_SERIAL,HOST\n"SN\n1",one\nSN-2,two\n"a,1, HOST=b","c""q"\n' >nl.csv
expect_status 0 "$SDIMG" flash card.img "$a" "$b" --allow-fixed --dry-run --gaps zero --card-values nl.csv
mapped=$(sed -n 's/.* \([0-9]*\) mapped in .*/\1/p' out.txt)
grep -qF "$a: would write $size bytes ($mapped mapped, $((size - mapped)) zeros over the gaps: --gaps zero)" out.txt ||
    fail "dry run, --gaps zero: $(cat out.txt)"
grep -qF 'card 1 (row 1): CARD_SERIAL="SN\n1", HOST="one"' out.txt || fail "dry run: card 1: $(cat out.txt)"
grep -qF 'card 2 (row 2): CARD_SERIAL="SN-2", HOST="two"' out.txt || fail "dry run: card 2: $(cat out.txt)"
c=$(ee_loop c $size)
expect_status 0 "$SDIMG" flash card.img "$a" "$b" "$c" --allow-fixed --dry-run --card-values nl.csv
grep -qF 'card 3 (row 3): CARD_SERIAL="a,1, HOST=b", HOST="c\"q"' out.txt ||
    fail "dry run: a value with a comma and a quote: $(grep 'card 3' out.txt)"
loop_detach "$c"

# a reserve of 1 GiB is not held in memory once per card: two cards' values fit in far
# less than one reserve of memory
cat >big.layout <<'EOT'
image { table = mbr }
partition boot {
    type = fat32
    size = 1200M
    file "/serial.txt" { content = "serial=\${CARD_SERIAL}\n" per-card = true reserve = 1G }
}
EOT
"$SDIMG" build -q --bmap -o big.img big.layout || fail "build big.img"
truncate -s 1300M big1.bin big2.bin
big1=$(loop_attach big1.bin)
big2=$(loop_attach big2.bin)
(ulimit -v 1500000 && exec "$SDIMG" flash big.img "$big1" "$big2" --allow-fixed --dry-run \
    --card-values 'CARD_SERIAL=S{index}') >out.txt 2>err.txt ||
    fail "two cards of a 1 GiB reserve in 1.5 GB of memory: $(cat err.txt)"
grep -qF 'card 2: CARD_SERIAL="S2"' out.txt || fail "big reserve: $(cat out.txt)"
rm -f big.img big1.bin big2.bin

# the station: one slot, three cards in turn; rows 2 and 3 go to the first two, the third
# has none left and is refused; the log says which row went to which card
echo "== the station"
base=$(free_slots 1)
S=/dev/loop$base
for c in 1 2 3; do fill_ee card$c.bin "$size"; done
rm -f station.jsonl
station_start "$SDIMG" flash card.img --watch --match "loop$base" --allow-fixed --log station.jsonl \
    --card-values cards.csv --first-index 2
for c in 1 2 3; do
    put "$S" card$c.bin
    wait_lines $c
    take "$S"
done
kill -INT $STATION
bg_expect $STATION 1 "the station (a card refused)"
[ "$(line 1 result)" = pass ] && [ "$(line 1 card.row)" = 2 ] || fail "log line 1: $(sed -n 1p station.jsonl)"
[ "$(line 2 result)" = pass ] && [ "$(line 2 card.row)" = 3 ] || fail "log line 2: $(sed -n 2p station.jsonl)"
[ "$(line 2 card.values.HOST)" = three ] || fail "log line 2: values"
[ "$(line 3 result)" = refused ] || fail "log line 3: $(sed -n 3p station.jsonl)"
line 3 error | grep -q "no card values: cards.csv: no row 4" || fail "log line 3: $(line 3 error)"
grep -q "card 2 (row 2)" out.txt || fail "the card's line names no row: $(cat out.txt)"
check_card "$(loop_attach card1.bin)" "SN-2, quoted" two
check_card "$(loop_attach card2.bin)" SN-3 three
echo "flash_card_values: ok"
