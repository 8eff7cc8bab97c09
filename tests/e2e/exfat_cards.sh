#!/bin/sh
# SPDX-License-Identifier: MIT
# Per-card files on an exFAT partition (per-card = true, reserve): `sdimg personalize` gives
# four cards contents of 0 bytes, a few bytes, one cluster exactly and the whole reserve;
# `sdimg flash --card-values` writes two loop devices, each with its own values. For every
# card fsck.exfat -n finds the volume clean, exfat-fuse (through a read-only loop device the
# test makes and detaches) reads back exactly the card's tree and `sdimg cat` the card's
# files; two cards differ only in the per-card files' clusters, entry sets and allocation
# bitmap bytes the manifest names (cmp -l). A content past its reserve is refused in one
# line, as is a manifest whose exFAT places are edited; no output is left behind.
. "$TOP/tests/e2e-lib.sh"
. "$TOP/tests/e2e/lib/exfatcheck.sh"
. "$TOP/tests/e2e/lib/flash.sh"
exfat_need
need cmp awk
need_loops
FUSE_MORE_CLEANUP=flash_cleanup
trap 'rc=$?; fuse_umount; flash_cleanup; exit $rc' EXIT
trap 'exit 1' INT TERM HUP

cat >card.layout <<'EOT'
image { table = mbr size = 40M }
partition data {
    type = exfat
    size = 32M
    exfat { cluster-size = 4K label = CARDS }
    file "/id/serial.txt" { content = "\${S}" per-card = true reserve = 12K }
    file "/note.txt" { content = "card \${N}\n" per-card = true reserve = 100 }
    file "/plain.txt" { content = "on every card\n" }
}
EOT
"$SDIMG" build -q --bmap -o card.img card.layout || fail "build"
# pieces of a sparse image cannot take per-card values: refused, as on FAT
expect_status 1 "$SDIMG" build -q --simg-max-size 8M -o pieces.simg card.layout
expect_stderr "card.layout: the layout has per-card values, which pieces of a sparse image cannot take"
[ -z "$(ls pieces* 2>/dev/null)" ] || fail "a refused build left $(ls pieces*)"
size=$(stat -c %s card.img)
vol=$(part_start card.img 1)
[ "$(jq -r '[.fields[].kind] | unique | join(",")' card.img.cards.json)" = exfat-file ] ||
    fail "manifest kinds: $(jq -c '[.fields[].kind]' card.img.cards.json)"

# allowed: the per-card bytes of the manifest (data, entry sets, the bitmap bytes of the
# files' clusters: bit 0 is cluster 2)
jq -r '.fields[] | ([.data, .data + .reserve] | @tsv), ([.entry, .entry + 32 * .entries] | @tsv),
    ([.bitmap + ((.["first-cluster"] - 2) / 8 | floor),
      .bitmap + ((.["first-cluster"] - 2 + .clusters - 1) / 8 | floor) + 1] | @tsv)' \
    card.img.cards.json >allowed.txt

# check_card IMG S N: the volume is clean, exfat-fuse and sdimg cat read the card's files
check_card() {
    extract "$1" "$vol" $((32 * MiB)) vol.img
    exfat_clean vol.img
    rm -rf want && mkdir -p want/id
    printf '%s' "$2" >want/id/serial.txt
    printf 'card %s\n' "$3" >want/note.txt
    printf 'on every card\n' >want/plain.txt
    exfat_same vol.img want
    "$SDIMG" cat "$1:1/id/serial.txt" >got.txt || fail "$1: sdimg cat serial.txt"
    cmp -s got.txt want/id/serial.txt || fail "$1: sdimg cat reads another serial.txt"
    [ "$("$SDIMG" cat "$1:1/note.txt")" = "card $3" ] || fail "$1: sdimg cat note.txt"
}

# the image itself holds the templates: clean, and read back as they are
extract card.img "$vol" $((32 * MiB)) vol.img
exfat_clean vol.img

# four cards by personalize: 0 bytes, a few, one cluster exactly, the whole reserve
x4096=$(head -c 4096 /dev/zero | tr '\0' x)
y12288=$(head -c 12288 /dev/zero | tr '\0' y)
expect_status 0 "$SDIMG" personalize card.img --set S= --set N=1 -o c0.img
expect_status 0 "$SDIMG" personalize card.img --set S=SN-2 --set N=22 -o c1.img
expect_status 0 "$SDIMG" personalize card.img --set "S=$x4096" --set N=333 -o c2.img
expect_status 0 "$SDIMG" personalize card.img --set "S=$y12288" --set N= -o c3.img
check_card c0.img "" 1
check_card c1.img SN-2 22
check_card c2.img "$x4096" 333
check_card c3.img "$y12288" ""
differs_only_in allowed.txt c0.img c1.img
differs_only_in allowed.txt c2.img c3.img
differs_only_in allowed.txt c0.img c3.img

# one byte past the reserve: refused in one line, no output
expect_status 1 "$SDIMG" personalize card.img --set "S=${y12288}z" --set N=4 -o c4.img
expect_stderr "data:/id/serial.txt: the card's content takes 12289 bytes, more than its reserve of 12288"
[ "$(wc -l <err.txt)" = 1 ] || fail "more than one line: $(cat err.txt)"
[ ! -e c4.img ] || fail "a refused card left c4.img behind"

# two loop devices by flash --card-values, each with its own values, read back passed
a=$(ee_loop a "$size")
b=$(ee_loop b "$size")
expect_status 0 "$SDIMG" flash card.img "$a" "$b" --allow-fixed --json \
    --card-values 'S=SN{index:06}' --card-values 'N=n{index}' --first-index 7
cp out.txt report.json
for i in 0 1; do
    [ "$(jq -r ".targets[$i].result" report.json)" = pass ] || fail "target $i: $(jq -c ".targets[$i]" report.json)"
done
dd if="$a" of=a.img bs=1M count=$((size / MiB)) iflag=direct status=none
dd if="$b" of=b.img bs=1M count=$((size / MiB)) iflag=direct status=none
check_card a.img SN000007 n7
check_card b.img SN000008 n8
differs_only_in allowed.txt a.img b.img

# a manifest whose exFAT places are not the volume's is refused before any card is written
cp card.img.cards.json own.json
edited() { # edited JQ MESSAGE
    jq "$1" own.json >card.img.cards.json
    expect_status 1 "$SDIMG" personalize card.img --set S=1 --set N=1 -o bad.img
    expect_stderr "card.img.cards.json: $2"
    [ ! -e bad.img ] || fail "a refused manifest left bad.img behind"
}
edited '.fields[0].bitmap += 4096' "data:/id/serial.txt: byte $(($(jq '.fields[0].bitmap' own.json) + 4096)) is not the volume's allocation bitmap"
edited '.fields[0].entry = .fields[1].entry' "data:/id/serial.txt: the entry set at byte"
edited '.fields[0].path = "/id/other.txt"' "data:/id/other.txt: the volume has no file at this path"
edited '.fields[0].path = "/note.txt"' "data:/note.txt: the entry set at byte $(jq '.fields[0].entry' own.json) is not the file's"
edited '.fields[0].entries = 4' "data:/id/serial.txt: the entry set at byte"
edited '.fields[1]["first-cluster"] = .fields[0]["first-cluster"] | .fields[1].data = .fields[0].data' \
    "data:/note.txt: the image does not hold its template"
edited '.fields[0].kind = "fat-file"' "a damaged per-card manifest: fields[0] (data:/id/serial.txt): entries: not a key of a fat-file"
cp own.json card.img.cards.json
