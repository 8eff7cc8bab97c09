# SPDX-License-Identifier: MIT
# sdimg inspect, ls and cat on what real boards ship: a bare FAT volume without a table
# (mkfs.fat on a plain file, sdimg's `table = none`), an MBR whose boot code looks like a
# BPB, a GPT image cut short (no backup, a partition past the end), a hybrid MBR.
# mtools, sfdisk and sgdisk are the oracles.
. "$TOP/tests/e2e-lib.sh"
need jq sfdisk sgdisk mkfs.fat mcopy mtype mdir

M=1048576
mkdir -p src/sub
printf 'first\n' >src/readme.txt
printf 'second\n' >"src/sub/A long name.text"
head -c 70000 /dev/urandom >src/sub/blob.bin

# same_files IMG ADDRESS-PREFIX MTOOLS-IMG: sdimg ls and cat give what mtools reads
same_files() {
    for f in readme.txt "sub/A long name.text" sub/blob.bin; do
        mtype -i "$3" "::/$f" >want.bin || fail "mtype $3 ::/$f"
        "$SDIMG" cat "$2/$f" >got.bin || fail "sdimg cat $2/$f"
        cmp -s want.bin got.bin || fail "sdimg cat $2/$f differs from mtype"
    done
    expect_status 0 "$SDIMG" ls "$2/sub"
    [ "$(sort out.txt | tr '\n' '|')" = "A long name.text|blob.bin|" ] || fail "ls $2/sub: $(cat out.txt)"
}

# expect_bare IMG TYPE: one FAT volume at byte 0, no table
expect_bare() {
    expect_status 0 "$SDIMG" inspect --json "$1"
    jq -e --argjson t "$2" '.image.table == "none" and (.partitions | length) == 1 and
        (.partitions[0] | .number == 0 and .start == 0 and .content == "fat" and .fat.type == $t)' \
        out.txt >/dev/null || fail "$1: not one bare FAT$2 volume: $(jq -c '.image, .partitions' out.txt)"
    expect_status 0 "$SDIMG" inspect "$1"
    grep -q "table none" out.txt || fail "$1: $(head -1 out.txt)"
    grep -q "SD alignment" out.txt || fail "$1: no findings"
}

# bare volumes by mkfs.fat: FAT12, FAT16, FAT32, with -I, with its fake MBR record
for v in "-F 12:16384:12" "-F 16:32768:16" "-F 32:70000:32" "-I -F 16:32768:16" "--mbr=y -F 12:16384:12"; do
    opts=${v%%:*} rest=${v#*:} kib=${rest%%:*} type=${rest#*:}
    rm -f bare.img
    mkfs.fat $opts -C bare.img "$kib" >/dev/null
    mcopy -s -i bare.img src/* ::/ || fail "mcopy into mkfs.fat $opts"
    expect_bare bare.img "$type"
    same_files bare.img bare.img: bare.img
    expect_status 0 "$SDIMG" ls bare.img
    grep -qx "readme.txt" out.txt || fail "ls bare.img (mkfs.fat $opts): $(cat out.txt)"
done

# sdimg's own table = none
cat >none.layout <<'LAYOUT'
image { table = none }
partition vol { type = fat size = 24M fat { label = "BARE" } tree "/" { from = "src" } }
LAYOUT
expect_status 0 "$SDIMG" build -q -o none.img none.layout
expect_bare none.img 16
same_files none.img none.img: none.img
expect_status 0 "$SDIMG" inspect none.img
grep -q "SD alignment (4 MiB grid): no problems" out.txt || fail "table = none: $(cat out.txt)"

# an MBR whose boot code carries a valid BPB (copied from mkfs.fat) stays an MBR: its records
# are plausible
rm -f bpb.img && truncate -s 64M bpb.img
printf 'start=8192, size=32768, type=c\nstart=40960, type=83\n' | sfdisk -q bpb.img
mkfs.fat -F 12 -C vol.img 16384 >/dev/null
dd if=vol.img of=bpb.img bs=1 count=90 conv=notrunc status=none
expect_status 0 "$SDIMG" inspect --json bpb.img
jq -e '.image.table == "mbr" and [.partitions[] | [.number, .start]] == [[1, 4194304], [2, 20971520]]' \
    out.txt >/dev/null || fail "MBR with a BPB in its boot code: $(jq -c '.image, .partitions' out.txt)"
# and one record past the end of the disk makes the BPB's sector a bare volume again
cp vol.img bpbvol.img
printf '\000\376\377\377\014\376\377\377\000\040\000\000\000\000\001\000' |
    dd of=bpbvol.img bs=1 seek=446 conv=notrunc status=none
expect_bare bpbvol.img 12

# a GPT image cut short: 2 MiB off the end. sgdisk still reads the primary.
cat >gpt.layout <<'LAYOUT'
image { table = gpt size = 64M }
partition boot { type = fat size = 16M tree "/" { from = "src" } }
partition data { size = grow }
LAYOUT
expect_status 0 "$SDIMG" build -q -o gpt.img gpt.layout
cp gpt.img cut.img && truncate -s $((62 * M)) cut.img
sgdisk -p cut.img 2>&1 | grep -q "^ *1 *8192 " || fail "sgdisk does not read the cut image"
expect_status 0 "$SDIMG" inspect --json cut.img
jq -e '.image.table == "gpt" and .image.gpt.primary_valid and .image.gpt.backup == "missing" and
    [.partitions[] | [.number, .start, .size, .name]] == [[1, 4194304, 16777216, "boot"], [2, 20971520, 46120448, "data"]]' \
    out.txt >/dev/null || fail "cut GPT: $(jq -c '.image, [.partitions[] | del(.fat)]' out.txt)"
# the same partitions as in the whole image
[ "$(jq -c '[.partitions[] | del(.fat)]' out.txt)" = \
  "$("$SDIMG" inspect --json gpt.img | jq -c '[.partitions[] | del(.fat)]')" ] || fail "cut GPT read differently"
codes=$(jq -r '[.findings[] | "\(.code):\(.partition)"] | join(" ")' out.txt)
case " $codes " in *" gpt-backup-missing:0 "*) ;; *) fail "cut GPT: no gpt-backup-missing ($codes)" ;; esac
case " $codes " in *" beyond-end:2 "*) ;; *) fail "cut GPT: partition 2 not beyond the end ($codes)" ;; esac
case " $codes " in *" beyond-end:1 "*) fail "cut GPT: partition 1 is inside ($codes)" ;; esac
jq -e '[.findings[] | select(.code == "gpt-backup-missing")][0].message | test("LBA 131071, past the end")' \
    out.txt >/dev/null || fail "gpt-backup-missing message: $(jq -c '.findings' out.txt)"
expect_status 0 "$SDIMG" inspect cut.img
grep -q "table gpt, .*primary GPT valid, backup GPT missing" out.txt || fail "cut GPT text: $(head -1 out.txt)"
first=$(sgdisk -i 1 cut.img 2>/dev/null | sed -n 's/^First sector: \([0-9]*\).*/\1/p')
off=$((first * 512))
same_files cut.img cut.img:1 "cut.img@@$off"
same_files cut.img cut.img:boot "cut.img@@$off"
# a whole image whose backup header was never written: missing too, a warning
cp gpt.img nobackup.img
dd if=/dev/zero of=nobackup.img bs=512 seek=$((64 * M / 512 - 1)) count=1 conv=notrunc status=none
expect_status 0 "$SDIMG" inspect --json nobackup.img
jq -e '.image.gpt.backup == "missing" and ([.findings[] | select(.code == "gpt-backup-missing" and
    .severity == "warning")] | length) == 1' out.txt >/dev/null || fail "no backup: $(jq -c '.image, .findings' out.txt)"

# a hybrid MBR (gdisk's: 0xEE plus records mirroring GPT partitions 1 and 2) is read as GPT
cp gpt.img hybrid.img
sgdisk -h 1:2 hybrid.img >/dev/null 2>&1 || fail "sgdisk -h"
sfdisk -d hybrid.img | grep -q "label: gpt" || fail "sfdisk does not see the GPT"
expect_status 0 "$SDIMG" inspect --json hybrid.img
jq -e '.image.table == "gpt" and .image.gpt.mbr == "hybrid" and (.partitions | length) == 2 and
    ([.findings[] | select(.code == "hybrid-mbr")] | length) == 1 and
    ([.findings[] | select(.code == "hybrid-mbr-mismatch")] | length) == 0' \
    out.txt >/dev/null || fail "hybrid MBR: $(jq -c '.image, .findings' out.txt)"
expect_status 0 "$SDIMG" inspect hybrid.img
grep -q "table gpt, .*hybrid MBR" out.txt || fail "hybrid text: $(head -1 out.txt)"
same_files hybrid.img hybrid.img:1 "hybrid.img@@$off"
# a hybrid record that no GPT partition matches: the MBR and the GPT disagree
rec=
for i in 0 1 2 3; do
    t=$(le hybrid.img $((446 + 16 * i + 4)) 1)
    [ "$t" -eq 0 ] || [ "$t" -eq 238 ] || { rec=$i; break; }
done
[ -n "$rec" ] || fail "sgdisk -h wrote no mirroring record"
printf '\001' | dd of=hybrid.img bs=1 seek=$((446 + 16 * rec + 8)) conv=notrunc status=none
expect_status 0 "$SDIMG" inspect --json hybrid.img
jq -e '[.findings[] | select(.code == "hybrid-mbr-mismatch")] | length == 1' out.txt >/dev/null ||
    fail "hybrid mismatch: $(jq -c '.findings' out.txt)"
# a protective MBR alone is no hybrid
expect_status 0 "$SDIMG" inspect --json gpt.img
jq -e '.image.gpt.mbr == "protective" and ([.findings[] | select(.code | startswith("hybrid"))] | length) == 0' \
    out.txt >/dev/null || fail "protective MBR: $(jq -c '.image' out.txt)"

# genimage's GPT without a backup (gpt-no-backup, as Orange Pi images are made), where
# genimage is installed
if command -v genimage >/dev/null 2>&1; then
    mkdir -p gi/input gi/root
    mkfs.fat -F 12 -C gi/input/boot.vfat 8192 >/dev/null
    mcopy -s -i gi/input/boot.vfat src/* ::/ || fail "mcopy into boot.vfat"
    cat >gi/opi.cfg <<'CFG'
image opi.img {
	hdimage {
		partition-table-type = "gpt"
		gpt-no-backup = true
	}
	partition boot {
		image = "boot.vfat"
		offset = 4M
	}
}
CFG
    genimage --config gi/opi.cfg --inputpath gi/input --outputpath gi/out --rootpath gi/root \
        --tmppath gi/tmp >gi/log 2>&1 || fail "genimage: $(tail -5 gi/log)"
    expect_status 0 "$SDIMG" inspect --json gi/out/opi.img
    jq -e '.image.table == "gpt" and .image.gpt.primary_valid and .image.gpt.backup == "missing" and
        [.partitions[] | [.number, .start, .size, .name, .content]] == [[1, 4194304, 8388608, "boot", "fat"]] and
        ([.findings[] | select(.code == "gpt-backup-missing")] | length) == 1' \
        out.txt >/dev/null || fail "genimage without backup: $(jq -c '.image, .partitions, .findings' out.txt)"
    same_files gi/out/opi.img gi/out/opi.img:boot "gi/out/opi.img@@4194304"
else
    echo "(genimage is not installed: its GPT without a backup is not tried)"
fi
