# SPDX-License-Identifier: MIT
# gpt-backup = false: no backup GPT at the end, the primary header says where it would be
# (AlternateLBA = the last LBA) and lets partitions reach the end (LastUsableLBA = the last
# LBA); size = grow reaches the end; sgdisk and sfdisk read the partitions.
. "$TOP/tests/e2e-lib.sh"
need sfdisk sgdisk fsck.fat mcopy jq

M=1048576
mkdir -p files
printf 'one\n' >files/one.txt

cat >nb.layout <<'LAYOUT'
image { size = 64M table = gpt seed = "no-backup" gpt-backup = false }
partition boot { type = fat32 size = 40M tree "/" { from = "files" } }
partition root { size = grow }
LAYOUT
"$SDIMG" plan --json nb.layout >plan.json
jq -e '[.regions[] | select(.kind == "gpt-backup")] | length == 0' plan.json >/dev/null ||
    fail "the plan reserves a backup area"
[ "$(jq -r '.regions[] | select(.name == "root") | .start + .size' plan.json)" -eq $((64 * M)) ] ||
    fail "size = grow does not reach the end of the image"
expect_status 0 "$SDIMG" build -q -o nb.img nb.layout
[ "$(stat -c %s nb.img)" -eq $((64 * M)) ] || fail "image size $(stat -c %s nb.img)"
last=$((64 * M / 512 - 1))

# the primary header, field by field (UEFI 2.10, table 5-5)
[ "$(dd if=nb.img bs=1 skip=512 count=8 status=none)" = "EFI PART" ] || fail "no GPT header"
[ "$(le nb.img $((512 + 24)) 8)" -eq 1 ] || fail "MyLBA"
[ "$(le nb.img $((512 + 32)) 8)" -eq $last ] || fail "AlternateLBA $(le nb.img $((512 + 32)) 8), want $last"
[ "$(le nb.img $((512 + 40)) 8)" -eq 34 ] || fail "FirstUsableLBA"
[ "$(le nb.img $((512 + 48)) 8)" -eq $last ] || fail "LastUsableLBA $(le nb.img $((512 + 48)) 8), want $last"
# the protective MBR entry ends at the last LBA too
[ "$(le nb.img 450 1)" -eq 238 ] || fail "MBR entry 1 is not the 0xEE protective entry"
[ "$(le nb.img 454 4)" -eq 1 ] || fail "protective entry start"
[ "$(le nb.img 458 4)" -eq $last ] || fail "protective entry size $(le nb.img 458 4), want $last"
# nothing at the end: no backup array, no backup header
[ "$(dd if=nb.img bs=512 skip=$((last - 32)) count=33 status=none | tr -d '\000' | wc -c)" -eq 0 ] ||
    fail "the last 33 sectors are not zero"
# sgdisk: the main header and table are sound, the backup is missing (as it should be)
sgdisk -v nb.img >v.txt 2>&1 || { cat v.txt; fail "sgdisk -v"; }
grep -q "Main header: OK" v.txt || { cat v.txt; fail "sgdisk: main header"; }
grep -q "Main partition table: OK" v.txt || { cat v.txt; fail "sgdisk: main partition table"; }
grep -q "Backup header: ERROR" v.txt || { cat v.txt; fail "sgdisk found a backup header"; }
sgdisk -p nb.img >p.txt 2>&1 || { cat p.txt; fail "sgdisk -p"; }
grep -q "last usable sector is $last" p.txt || { cat p.txt; fail "sgdisk: last usable sector"; }
grep -Eq "^ +1 +8192 +90111 .* boot$" p.txt || { cat p.txt; fail "sgdisk: partition 1"; }
grep -Eq "^ +2 +90112 +$last .* root$" p.txt || { cat p.txt; fail "sgdisk: partition 2"; }

# sfdisk: reads the primary, finds no error in it
sfdisk -V nb.img >V.txt 2>&1 || { cat V.txt; fail "sfdisk -V"; }
grep -q "No errors detected" V.txt || { cat V.txt; fail "sfdisk -V found errors"; }
sfdisk --json nb.img >t.json 2>/dev/null
[ "$(jq -r .partitiontable.lastlba t.json)" -eq $last ] || fail "sfdisk: last-lba"
[ "$(jq -r '.partitiontable.partitions[1].start' t.json)" -eq 90112 ] || fail "sfdisk: start of 2"
[ "$(jq -r '.partitiontable.partitions[1].size' t.json)" -eq $((last + 1 - 90112)) ] || fail "sfdisk: size of 2"
check_fat nb.img $((4 * M)) $((40 * M)) files

# without a size, the image ends with the last partition (rounded to align): no backup added
cat >auto.layout <<'LAYOUT'
image { table = gpt gpt-backup = false }
partition boot { size = 8M }
LAYOUT
expect_status 0 "$SDIMG" build -q -o auto.img auto.layout
[ "$(stat -c %s auto.img)" -eq $((12 * M)) ] || fail "derived size $(stat -c %s auto.img), want 12 MiB"
[ "$(le auto.img $((512 + 32)) 8)" -eq $((12 * M / 512 - 1)) ] || fail "AlternateLBA of auto.img"

# only a GPT has a backup
cat >mbr.layout <<'LAYOUT'
image { size = 16M
    gpt-backup = false }
partition boot { size = 8M }
LAYOUT
expect_status 1 "$SDIMG" build -q -o mbr.img mbr.layout
expect_stderr "mbr.layout:2: image: gpt-backup: only a gpt table has a backup"
[ ! -e mbr.img ] || fail "an image was left behind"
