# SPDX-License-Identifier: MIT
# MBR entries: extended-partition chooses the entry of the extended partition (the
# partitions from there on are logical), primary = true keeps a partition listed after the
# logical ones primary. sfdisk reads the numbers, starts and sizes back, following the EBR
# chain, and finds nothing wrong with it (sfdisk -V).
. "$TOP/tests/e2e-lib.sh"
need sfdisk fsck.fat mcopy jq

M=1048576
mkdir -p files
printf 'one\n' >files/one.txt

# entry 1: p1; entry 2: the extended partition with p2, p3, p4 (5, 6, 7); entries 3 and 4:
# p5 and p6, listed after the logical ones
cat >ex.layout <<'LAYOUT'
image { size = 256M disk-id = 0x1234abcd extended-partition = 2 }
partition p1 { type = fat16 size = 16M bootable = true tree "/" { from = "files" } }
partition p2 { size = 8M }
partition p3 { size = 8M mbr-type = 0xda }
partition p4 { size = 16M }
partition p5 { size = 8M primary = true }
partition p6 { size = grow primary = true }
LAYOUT
expect_status 0 "$SDIMG" build -q -o ex.img ex.layout
sfdisk -V ex.img >V.txt 2>&1 || { cat V.txt; fail "sfdisk -V"; }
grep -q "No errors detected" V.txt || { cat V.txt; fail "sfdisk -V found errors"; }
sfdisk --json ex.img >t.json
"$SDIMG" plan --json ex.layout >plan.json
[ "$(jq '.partitiontable.partitions | length' t.json)" -eq 7 ] || fail "7 entries (with the extended one)"
# sfdisk's entry for partition N
ent() { jq -r ".partitiontable.partitions[] | select(.node == \"ex.img$1\") | .$2" t.json; }
plan() { jq -r ".regions[] | select(.name == \"$1\") | .$2" plan.json; }
[ "$(ent 2 type)" = f ] || fail "entry 2 is not the extended partition: $(ent 2 type)"
[ "$(jq -r .image.extended.number plan.json)" -eq 2 ] || fail "plan: extended number"
[ "$(ent 2 start)" -eq $(($(jq -r .image.extended.start plan.json) / 512)) ] || fail "extended start"
[ "$(ent 2 size)" -eq $(($(jq -r .image.extended.size plan.json) / 512)) ] || fail "extended size"
for pn in p1:1 p2:5 p3:6 p4:7 p5:3 p6:4; do
    name=${pn%:*} n=${pn#*:}
    [ "$(plan "$name" number)" -eq "$n" ] || fail "plan: $name is number $(plan "$name" number), want $n"
    [ "$(ent "$n" start)" -eq $(($(plan "$name" start) / 512)) ] || fail "$name: start $(ent "$n" start)"
    [ "$(ent "$n" size)" -eq $(($(plan "$name" size) / 512)) ] || fail "$name: size $(ent "$n" size)"
done
[ "$(ent 1 type)" = e ] && [ "$(ent 1 bootable)" = true ] || fail "p1: type or active flag"
[ "$(ent 6 type)" = da ] || fail "p3: mbr-type"
[ "$(ent 4 start)" -gt "$(ent 3 start)" ] || fail "p6 before p5"
[ $(($(ent 4 start) + $(ent 4 size))) -eq $((256 * M / 512)) ] || fail "p6 does not grow to the end"
# the extended partition ends where p4 (its last logical partition) does, before p5
[ $(($(ent 2 start) + $(ent 2 size))) -eq $(($(ent 7 start) + $(ent 7 size))) ] || fail "extended end"
# the MBR's entry 2 as bytes: type 0x0f, start and size as sfdisk says
[ "$(le ex.img $((446 + 16 + 4)) 1)" -eq 15 ] || fail "MBR entry 2 type byte"
[ "$(le ex.img $((446 + 16 + 8)) 4)" -eq "$(ent 2 start)" ] || fail "MBR entry 2 start"
# each EBR: its partition one sector on, the link to the next EBR relative to the extended start
ebr=$(ent 2 start)
for n in 5 6 7; do
    [ "$(le ex.img $((ebr * 512 + 446 + 8)) 4)" -eq 1 ] || fail "EBR of $n: partition not in the next sector"
    [ $((ebr + 1)) -eq "$(ent $n start)" ] || fail "EBR of $n at sector $ebr"
    next=$(le ex.img $((ebr * 512 + 446 + 16 + 8)) 4)
    [ "$n" -eq 7 ] && { [ "$next" -eq 0 ] || fail "the last EBR links on"; break; }
    ebr=$(($(ent 2 start) + next))
done
check_fat ex.img $((4 * M)) $((16 * M)) files

# extended-partition = 1: every partition logical, the MBR holds the extended entry alone
cat >all.layout <<'LAYOUT'
image { size = 64M extended-partition = 1 }
partition a { size = 8M }
partition b { size = 8M }
partition c { size = grow }
LAYOUT
expect_status 0 "$SDIMG" build -q -o all.img all.layout
sfdisk -V all.img >V.txt 2>&1 || { cat V.txt; fail "sfdisk -V all.img"; }
sfdisk --json all.img >t.json
[ "$(jq -r '[.partitiontable.partitions[].node] | join(" ")' t.json)" = "all.img1 all.img5 all.img6 all.img7" ] ||
    fail "all logical: $(jq -c '[.partitiontable.partitions[].node]' t.json)"
[ "$(jq -r '.partitiontable.partitions[0].type' t.json)" = f ] || fail "entry 1 is not extended"
[ "$(le all.img $((446 + 16 + 4)) 1)" -eq 0 ] || fail "MBR entry 2 is used"

# the default is unchanged: more than four partitions, the fourth entry is extended
cat >dflt.layout <<'LAYOUT'
image { size = 64M }
partition a { size = 4M }
partition b { size = 4M }
partition c { size = 4M }
partition d { size = 4M }
partition e { size = 4M }
LAYOUT
expect_status 0 "$SDIMG" build -q -o dflt.img dflt.layout
sfdisk --json dflt.img >t.json
[ "$(jq -r '[.partitiontable.partitions[] | .node + ":" + .type] | join(" ")' t.json)" = \
  "dflt.img1:83 dflt.img2:83 dflt.img3:83 dflt.img4:f dflt.img5:83 dflt.img6:83" ] ||
    fail "default: $(jq -c '[.partitiontable.partitions[] | .node + ":" + .type]' t.json)"

# mistakes: one line each, naming the line
build_refused five "five.layout:7: partition 'e': primary = true: the MBR has four entries, and the extended partition is entry 4" <<'LAYOUT'
image { size = 64M }
partition a { size = 4M }
partition b { size = 4M }
partition c { size = 4M }
partition d { size = 4M }
partition e { size = 4M
    primary = true }
LAYOUT
build_refused early "early.layout:3: partition 'b': primary = true is for a partition listed after logical ones" <<'LAYOUT'
image { size = 64M extended-partition = 3 }
partition a { size = 4M }
partition b { size = 4M primary = true }
partition c { size = 4M }
LAYOUT
build_refused after "after.layout:5: partition 'd' would be a logical partition after the primary partition 'c' (primary = true)" <<'LAYOUT'
image { size = 64M extended-partition = 2 }
partition a { size = 4M }
partition b { size = 4M }
partition c { size = 4M primary = true }
partition d { size = 4M }
LAYOUT
build_refused empty "empty.layout:2: image: extended-partition = 4: no partition would be logical in it (the table holds 3 partitions" <<'LAYOUT'
image { size = 64M
    extended-partition = 4 }
partition a { size = 4M }
partition b { size = 4M }
partition c { size = 4M }
LAYOUT
build_refused gptext "gptext.layout:1: image: extended-partition: only an mbr table has an extended partition" <<'LAYOUT'
image { size = 64M table = gpt extended-partition = 2 }
partition a { size = 4M }
LAYOUT
build_refused gptprim "gptprim.layout:2: partition 'a': primary: only an mbr table has primary and logical partitions" <<'LAYOUT'
image { size = 64M table = gpt }
partition a { size = 4M primary = true }
LAYOUT
build_refused range "range.layout:1: image: extended-partition:" <<'LAYOUT'
image { size = 64M extended-partition = 5 }
partition a { size = 4M }
LAYOUT
