# SPDX-License-Identifier: MIT
# table = hybrid: a GPT whose MBR mirrors the partitions with hybrid = true, beside an 0xEE
# entry from LBA 1 up to the first mirrored partition, as gdisk's own hybrid MBR has it.
# gdisk, sgdisk and sfdisk (on both labels) are the oracles; the bytes are compared with
# what sgdisk --hybrid writes for the same GPT.
. "$TOP/tests/e2e-lib.sh"
need sfdisk sgdisk gdisk fsck.fat mcopy jq

M=1048576
mkdir -p files
printf 'config\n' >files/config.txt
head -c 20000 /dev/urandom >spl.bin

cat >hy.layout <<'LAYOUT'
image { size = 256M table = hybrid seed = "hybrid" gpt-entries = 1M }
raw spl { offset = 8K from = "spl.bin" }
partition boot { type = fat32 size = 64M bootable = true hybrid = true tree "/" { from = "files" } }
partition root { size = 64M }
partition data { size = grow hybrid = true mbr-type = 0xda }
LAYOUT
"$SDIMG" plan hy.layout | grep -q "table hybrid" || fail "sdimg plan does not say hybrid"
expect_status 0 "$SDIMG" build -q -o hy.img hy.layout

# the GPT: whole, read as a GPT with a hybrid MBR
gdisk -l hy.img >g.txt 2>&1 || { cat g.txt; fail "gdisk -l"; }
grep -q "MBR: hybrid" g.txt || { cat g.txt; fail "gdisk does not see a hybrid MBR"; }
grep -q "GPT: present" g.txt || { cat g.txt; fail "gdisk does not see the GPT"; }
sgdisk -v hy.img >v.txt 2>&1 || { cat v.txt; fail "sgdisk -v"; }
grep -q "No problems found" v.txt || { cat v.txt; fail "sgdisk found problems"; }
sfdisk -V hy.img >V.txt 2>&1 || { cat V.txt; fail "sfdisk -V"; }
sfdisk --json hy.img >gpt.json
[ "$(jq -r .partitiontable.label gpt.json)" = gpt ] || fail "sfdisk does not read a GPT first"
[ "$(jq '.partitiontable.partitions | length' gpt.json)" -eq 3 ] || fail "three GPT partitions"
[ "$(jq -r '.partitiontable.partitions[0].attrs' gpt.json)" = LegacyBIOSBootable ] || fail "GPT bootable"

# the MBR (sfdisk reads it under the GPT with -Y dos): 0xEE, then boot and data
sfdisk -V -Y dos hy.img >VD.txt 2>&1 || { cat VD.txt; fail "sfdisk -V -Y dos"; }
sfdisk --json -Y dos hy.img >mbr.json
[ "$(jq -r .partitiontable.label mbr.json)" = dos ] || fail "sfdisk -Y dos"
[ "$(jq '.partitiontable.partitions | length' mbr.json)" -eq 3 ] || fail "three MBR entries"
mbr() { jq -r ".partitiontable.partitions[$1].$2" mbr.json; }
gpt() { jq -r ".partitiontable.partitions[$1].$2" gpt.json; }
[ "$(mbr 0 type)" = ee ] || fail "entry 1 is not 0xEE"
[ "$(mbr 0 start)" -eq 1 ] || fail "0xEE start $(mbr 0 start)"
[ "$(mbr 0 size)" -eq $(($(gpt 0 start) - 1)) ] || fail "0xEE size $(mbr 0 size): not up to boot"
[ "$(mbr 1 type)" = c ] || fail "boot's MBR type $(mbr 1 type), want c (FAT32 LBA)"
[ "$(mbr 1 bootable)" = true ] || fail "boot is not active in the MBR"
[ "$(mbr 1 start)" -eq "$(gpt 0 start)" ] && [ "$(mbr 1 size)" -eq "$(gpt 0 size)" ] ||
    fail "boot's MBR entry differs from its GPT entry"
[ "$(mbr 2 type)" = da ] || fail "data's MBR type $(mbr 2 type)"
[ "$(mbr 2 bootable)" = null ] || fail "data is active"
[ "$(mbr 2 start)" -eq "$(gpt 2 start)" ] && [ "$(mbr 2 size)" -eq "$(gpt 2 size)" ] ||
    fail "data's MBR entry differs from its GPT entry"
[ "$(le hy.img 440 4)" -ne 0 ] || fail "no MBR disk signature"
same_bytes hy.img 8192 spl.bin
check_fat hy.img "$(($(gpt 0 start) * 512))" $((64 * M)) files

# byte for byte as sgdisk --hybrid makes it (types and active flags aside: sgdisk derives
# the types from the GPT and sets no flag): the 0xEE entry whole, then each mirrored entry's
# CHS, start and size
cp hy.img gd.img
sgdisk --hybrid=1:3 gd.img >/dev/null 2>&1 || fail "sgdisk --hybrid"
for slot in 0 1 2; do
    o=$((446 + 16 * slot))
    if [ "$slot" -eq 0 ]; then
        cmp -s -i $o:$o -n 16 hy.img gd.img || fail "the 0xEE entry differs from sgdisk's"
    else
        cmp -s -i $((o + 1)):$((o + 1)) -n 3 hy.img gd.img &&
            cmp -s -i $((o + 5)):$((o + 5)) -n 11 hy.img gd.img ||
            fail "MBR entry $((slot + 1)) differs from sgdisk's: $(xxd -s $o -l 16 hy.img) / $(xxd -s $o -l 16 gd.img)"
    fi
done
cmp -s -i 510:510 -n 2 hy.img gd.img || fail "boot signature"

# sdimg inspect still reads the image as the GPT it is
expect_status 0 "$SDIMG" inspect hy.img
grep -q "table gpt" out.txt || { cat out.txt; fail "inspect: table"; }

# hybrid-ee = last: the mirrored entries first, in layout order
sed 's/gpt-entries = 1M/gpt-entries = 1M hybrid-ee = last/' hy.layout >last.layout
expect_status 0 "$SDIMG" build -q -o last.img last.layout
sfdisk --json -Y dos last.img >mbr.json
[ "$(mbr 0 type)" = c ] && [ "$(mbr 1 type)" = da ] && [ "$(mbr 2 type)" = ee ] ||
    fail "hybrid-ee = last: types $(mbr 0 type) $(mbr 1 type) $(mbr 2 type)"
[ "$(mbr 2 start)" -eq 1 ] && [ "$(mbr 2 size)" -eq $(($(gpt 0 start) - 1)) ] || fail "0xEE placed last"
sgdisk -v last.img | grep -q "No problems found" || fail "sgdisk -v on hybrid-ee = last"

# mistakes: one line each, naming the line
build_refused four "four.layout:6: partition 'd': hybrid = true: a hybrid MBR mirrors three partitions at most ('a', 'b' and 'c' already)" <<'LAYOUT'
image { size = 64M table = hybrid }
partition a { size = 4M hybrid = true }
partition b { size = 4M hybrid = true }
partition c { size = 4M hybrid = true }
partition d { size = 4M
    hybrid = true }
LAYOUT
build_refused none "none.layout:2: image: table = hybrid mirrors no partition in its MBR" <<'LAYOUT'
image { size = 64M
    table = hybrid }
partition a { size = 4M }
LAYOUT
build_refused out "out.layout:4: partition 'b': hybrid: the partition is not in the table (in-table = false)" <<'LAYOUT'
image { size = 64M table = hybrid }
partition a { size = 4M hybrid = true }
partition b { size = 4M in-table = false
    hybrid = true }
LAYOUT
build_refused gpt "gpt.layout:2: partition 'a': hybrid: only a hybrid table (image { table = hybrid }) mirrors" <<'LAYOUT'
image { size = 64M table = gpt }
partition a { size = 4M hybrid = true }
LAYOUT
build_refused type "type.layout:3: partition 'b': mbr-type: only a partition the hybrid MBR mirrors" <<'LAYOUT'
image { size = 64M table = hybrid }
partition a { size = 4M hybrid = true }
partition b { size = 4M mbr-type = 0x83 }
LAYOUT
build_refused ee "ee.layout:1: image: hybrid-ee: only a hybrid table" <<'LAYOUT'
image { size = 64M table = gpt hybrid-ee = last }
partition a { size = 4M }
LAYOUT
# a mirrored partition must end within 2 TiB (the plan says so before any byte is written)
cat >big.layout <<'LAYOUT'
image { size = 3T table = hybrid }
partition small { size = 4M hybrid = true }
partition big { start = 2044G size = 8G
    hybrid = true }
LAYOUT
expect_status 1 "$SDIMG" plan big.layout
expect_stderr "big.layout:4: partition 'big' (bytes 2194728288256-2203318222847) ends beyond 2 TiB, which the hybrid MBR cannot describe"
sed 's/^    hybrid = true }/}/' big.layout >big2.layout
expect_status 0 "$SDIMG" plan big2.layout
# gdisk and sgdisk refuse a hybrid MBR beside a GPT without backup ("Invalid partition data")
build_refused nobackup "nobackup.layout:2: image: gpt-backup: a hybrid MBR beside a GPT without backup is refused by gdisk and sgdisk" <<'LAYOUT'
image { size = 64M table = hybrid
    gpt-backup = false }
partition a { size = 4M hybrid = true }
LAYOUT
