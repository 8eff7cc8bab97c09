# SPDX-License-Identifier: MIT
# Edge layouts: logical partitions, a moved GPT entry array with a raw region at 8K, a bare
# file system without a table, partitions kept out of the table, size = auto exactness.
. "$TOP/tests/e2e-lib.sh"
need sfdisk sgdisk fsck.fat mcopy jq

M=1048576
mkdir -p files/sub
printf 'one\n' >files/one.txt
head -c 70000 /dev/urandom >files/sub/blob.bin
head -c 20000 /dev/urandom >spl.bin
head -c $((3 * M)) /dev/urandom >data.img

# six partitions on an MBR: three primaries, an extended one, three logicals
cat >mbr6.layout <<'LAYOUT'
image { size = 256M disk-id = 0x1234abcd }
partition p1 { type = fat16 size = 16M bootable = true tree "/" { from = "files" } }
partition p2 { size = 8M from = "data.img" }
partition p3 { size = 8M mbr-type = 0xda }
partition p4 { type = fat32 size = 64M tree "/" { from = "files" } }
partition p5 { type = fat12 size = 8M tree "/" { from = "files" } }
partition p6 { size = grow }
LAYOUT
expect_status 0 "$SDIMG" build -q -o mbr6.img mbr6.layout
sfdisk --json mbr6.img >t.json
[ "$(jq -r .partitiontable.id t.json)" = 0x1234abcd ] || fail "disk id"
[ "$(jq '.partitiontable.partitions | length' t.json)" -eq 7 ] || fail "7 entries (with the extended one)"
[ "$(jq -r '.partitiontable.partitions[3].type' t.json)" = f ] || fail "extended partition type"
[ "$(jq -r '.partitiontable.partitions[2].type' t.json)" = da ] || fail "mbr-type"
[ "$(jq -r '.partitiontable.partitions[0].bootable' t.json)" = true ] || fail "bootable"
for n in 5 6 7; do
    start=$(jq -r ".partitiontable.partitions[$((n - 1))].start" t.json)
    [ $((start * 512 % (4 * M))) -eq 0 ] || fail "logical partition $n at sector $start is off the grid"
done
sfdisk --verify mbr6.img >v.txt 2>&1 || { cat v.txt; fail "sfdisk --verify"; }
plan_start() { "$SDIMG" plan --json "$1" | jq -r ".regions[] | select(.name == \"$2\") | .start"; }
plan_size() { "$SDIMG" plan --json "$1" | jq -r ".regions[] | select(.name == \"$2\") | .size"; }
for p in p1 p4 p5; do
    check_fat mbr6.img "$(plan_start mbr6.layout $p)" "$(plan_size mbr6.layout $p)" files $((4 * M))
done
same_bytes mbr6.img "$(plan_start mbr6.layout p2)" data.img

# GPT with the entry array at 1M and a raw boot loader at 8K (sunxi on GPT)
cat >gpt.layout <<'LAYOUT'
image { size = 128M table = gpt gpt-entries = 1M seed = "gpt-edge" }
raw spl { offset = 8K from = "spl.bin" }
partition esp { type = fat32 size = 64M gpt-type = esp bootable = true
    uuid = "11111111-2222-4333-8444-555555555555" label = "EFI system"
    tree "/" { from = "files" } }
partition root { size = grow gpt-type = linux-root-arm64 }
LAYOUT
expect_status 0 "$SDIMG" build -q -o gpt.img gpt.layout
sgdisk -v gpt.img >s.txt 2>&1 || { cat s.txt; fail "sgdisk -v"; }
grep -q "No problems found" s.txt || { cat s.txt; fail "sgdisk found problems"; }
sgdisk -p gpt.img | grep -q "Main partition table begins at sector 2048" || fail "entry array not at 1M"
sfdisk --verify gpt.img >v.txt 2>&1 || { cat v.txt; fail "sfdisk --verify"; }
same_bytes gpt.img 8192 spl.bin
sfdisk --json gpt.img >t.json
[ "$(jq -r '.partitiontable.partitions[0].uuid' t.json)" = 11111111-2222-4333-8444-555555555555 ] || fail "uuid"
[ "$(jq -r '.partitiontable.partitions[0].name' t.json)" = "EFI system" ] || fail "GPT name"
[ "$(jq -r '.partitiontable.partitions[0].attrs' t.json)" = LegacyBIOSBootable ] || fail "bootable attribute"
[ "$(jq -r '.partitiontable.partitions[0].type' t.json)" = C12A7328-F81F-11D2-BA4B-00A0C93EC93B ] || fail "esp type"
check_fat gpt.img $((4 * M)) $((64 * M)) files $((4 * M))

# no table: a bare FAT file system filling the image, its data area on the 4M grid
printf 'image { table = none size = 40M }\npartition vol { type = fat size = grow\n fat { label = "BARE" }\n tree "/" { from = "files" } }\n' >bare.layout
expect_status 0 "$SDIMG" build -q -o bare.img bare.layout
check_fat bare.img 0 $((40 * M)) files $((4 * M))
[ "$(le bare.img 510 2)" -eq 43605 ] || fail "no boot signature at the start"

# in-table = false keeps the space but leaves the partition out of the table
printf 'image { size = 64M }\npartition hidden { size = 8M in-table = false }\npartition data { type = fat size = 16M tree "/" { from = "files" } }\n' >hidden.layout
expect_status 0 "$SDIMG" build -q -o hidden.img hidden.layout
[ "$(sfdisk --json hidden.img | jq '.partitiontable.partitions | length')" -eq 1 ] || fail "in-table = false"
[ "$(part_json hidden.img 1 start)" -eq $((12 * M / 512)) ] || fail "the hidden space is not kept"

# size = auto: the smallest FAT that holds the files (plus extra), on the grid. With the
# data area on the 4M grid, the volume's first 4M hold the boot sector, FATs and padding.
printf 'partition boot { type = fat extra = 1M\n tree "/" { from = "files" } }\n' >auto.layout
expect_status 0 "$SDIMG" build -q -o auto.img auto.layout
size=$(part_json auto.img 1 size)
[ $((size * 512)) -eq $((8 * M)) ] || fail "auto size is $((size * 512)) bytes, expected 8 MiB"
check_fat auto.img $((4 * M)) $((8 * M)) files $((4 * M))
[ "$(stat -c %s auto.img)" -eq $((12 * M)) ] || fail "image size follows the last partition"
# without the grid (data-align = 512): type = fat is never FAT12 by choice, so the smallest
# volume is the smallest FAT16 (4101 clusters of 512 bytes and more: just over 2 MiB),
# rounded up to align; `type = fat12` gets the smallest FAT12 that holds the files
printf 'image { align = 1M }\npartition boot { type = fat\n fat { data-align = 512 }\n tree "/" { from = "files" } }\n' >small.layout
expect_status 0 "$SDIMG" build -q -o small.img small.layout
[ "$(part_json small.img 1 size)" -eq $((3 * M / 512)) ] || fail "auto size without the grid: $(part_json small.img 1 size) sectors"
dd if=small.img of=small.vol bs=1M skip=1 status=none
MTOOLS_SKIP_CHECK=1 minfo -i small.vol :: | grep -q 'disk type="FAT16' || fail "small auto volume is not FAT16"
sed 's/type = fat$/type = fat12/' small.layout >small12.layout
expect_status 0 "$SDIMG" build -q -o small12.img small12.layout
[ "$(part_json small12.img 1 size)" -eq $((M / 512)) ] || fail "fat12 auto size without the grid: $(part_json small12.img 1 size) sectors"
check_fat small.img $M $((3 * M)) files

# an ESP-like overlay: later entries name folders in another case; they land in the folders
# as they already are, and a later file replaces a folder of the same name
mkdir -p esp/EFI/BOOT
printf 'efi\n' >esp/EFI/BOOT/BOOTAA64.EFI
cat >esp.layout <<'LAYOUT'
image { size = 64M }
partition esp { type = fat size = 32M
    tree "/" { from = "esp" }
    file "/efi/boot/grub.cfg" { content = "set timeout=0" }
    dir "/Logs" {}
    file "/logs/today.txt" { content = "log" }
}
LAYOUT
expect_status 0 "$SDIMG" build -q -o esp.img esp.layout
mkdir -p want-esp/EFI/BOOT want-esp/Logs
cp esp/EFI/BOOT/BOOTAA64.EFI want-esp/EFI/BOOT/
printf 'set timeout=0' >want-esp/EFI/BOOT/grub.cfg
printf 'log' >want-esp/Logs/today.txt
check_fat esp.img $((4 * M)) $((32 * M)) want-esp $((4 * M))

# attrs and first: DIR_Attr bits as mtools reads them, the first entry of the root
cat >attrs.layout <<'LAYOUT'
image { size = 64M }
partition boot { type = fat size = 16M
    file "/plain.txt" { content = "p" }
    file "/locked.txt" { content = "l" attrs = "readonly,hidden,system,archive" }
    file "/zz-first.bin" { content = "f" first = true }
}
LAYOUT
expect_status 0 "$SDIMG" build -q -o attrs.img attrs.layout
mattrib -i attrs.img@@$((4 * M)) ::/locked.txt >attr.txt
grep -q 'A  SHR *::/locked.txt' attr.txt || fail "attributes of locked.txt: $(cat attr.txt)"
mattrib -i attrs.img@@$((4 * M)) ::/plain.txt | grep -q '^ *::/plain.txt' || fail "plain.txt has attributes"
[ "$(mdir -b -i attrs.img@@$((4 * M)) ::/ | head -1)" = "::/zz-first.bin" ] || fail "first = true"

# build -v names GPT partition types (alias or GUID), not MBR type bytes
printf 'image { table = gpt size = 64M }\npartition boot { type = fat size = 16M gpt-type = esp }\npartition r { size = 8M gpt-type = "0FC63DAF-8483-4772-8E79-3D69D8477DE5" }\n' >gptv.layout
expect_status 0 "$SDIMG" build -v -o gptv.img gptv.layout
grep -q "^  boot .*, partition 1, type esp, FAT" out.txt || fail "build -v on GPT: $(cat out.txt)"
grep -q "^  r .*, partition 2, type 0FC63DAF-8483-4772-8E79-3D69D8477DE5$" out.txt || fail "build -v on GPT: $(cat out.txt)"

# a lower-case FAT label is written as given (LABEL=boot matches), with a note
printf 'image { size = 64M }\npartition boot { type = fat size = 16M fat { label = "boot" } }\n' >lc.layout
expect_status 0 "$SDIMG" build -o lc.img lc.layout
grep -q "note: lc.layout:2: partition 'boot': fat: label: 'boot' is written as given" err.txt || fail "no note: $(cat err.txt)"
# -q: errors and warnings only, no note
expect_status 0 "$SDIMG" build -q -o lc.img lc.layout
[ ! -s err.txt ] || fail "-q printed: $(cat err.txt)"
[ "$(dd if=lc.img bs=1 skip=$((4 * M + 43)) count=11 status=none)" = "boot       " ] || fail "BS_VolLab is not 'boot'"
mlabel -s -i lc.img@@$((4 * M)) :: | grep -q "Volume label is boot" || fail "mlabel: $(mlabel -s -i lc.img@@$((4 * M)) ::)"
if command -v blkid >/dev/null; then
    dd if=lc.img of=lcp.img bs=1M skip=4 count=16 status=none
    [ "$(blkid -o value -s LABEL lcp.img)" = "boot" ] || fail "blkid LABEL: $(blkid lcp.img)"
fi

# 59 partitions, the most an MBR holds: sfdisk reads 60 entries (with the extended one)
{ echo 'image { align = 1M }'; i=1; while [ $i -le 59 ]; do echo "partition p$i { size = 1M }"; i=$((i + 1)); done; } >mbr59.layout
expect_status 0 "$SDIMG" build -q -o mbr59.img mbr59.layout
[ "$(sfdisk --json mbr59.img | jq '.partitiontable.partitions | length')" -eq 60 ] || fail "sfdisk: not 60 entries"
