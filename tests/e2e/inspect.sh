# SPDX-License-Identifier: MIT
# e2e-long: sdimg inspect, ls and cat over many images, built here or by other tools
# sdimg inspect, ls and cat on images sdimg built, on images other tools made, and on
# hostile ones: findings as text and JSON, files byte for byte, no crash on bad input.
. "$TOP/tests/e2e-lib.sh"
need jq sfdisk sgdisk mkfs.fat mcopy

M=1048576
"$BUILD/tests/tools/mktree" tree 300 50 3
mkdir -p "tree/Ünïcödé folder" && printf 'odd\n' >"tree/Ünïcödé folder/naïve café.txt"
cat >card.layout <<'LAYOUT'
image { size = 128M }
partition boot { type = fat size = 32M fat { label = "BOOT" fats = 1 } tree "/" { from = "tree" } }
partition data { size = grow }
LAYOUT
expect_status 0 "$SDIMG" build -q -o card.img card.layout

# an image sdimg built: no problems, in text and in JSON
expect_status 0 "$SDIMG" inspect card.img
grep -q "SD alignment (4 MiB grid): no problems" out.txt || { cat out.txt; fail "sdimg's image has problems"; }
expect_status 0 "$SDIMG" inspect --json card.img
jq -e '[.findings[] | select(.severity != "info")] | length == 0' out.txt >/dev/null || fail "JSON findings"
jq -e '.image.table == "mbr" and .image.size == 134217728' out.txt >/dev/null || fail "JSON image"
jq -e '.partitions[0] | .number == 1 and .start == 4194304 and .content == "fat" and
    .fat.fats == 1 and .fat.label == "BOOT" and .fat.files == 301 and .fat.data_offset % 4194304 == 0' \
    out.txt >/dev/null || fail "JSON partition 1: $(jq -c '.partitions[0]' out.txt)"

# ls and cat: every file back, byte for byte
expect_status 0 "$SDIMG" ls -R card.img:1
[ "$(grep -vc '[/:]$' out.txt)" -ge 301 ] || fail "ls -R lists too little"
(cd tree && find . -type f) | while IFS= read -r f; do
    "$SDIMG" cat "card.img:1/${f#./}" | cmp -s - "tree/$f" || fail "cat $f differs"
done
expect_status 0 "$SDIMG" ls -l "card.img:1/Ünïcödé folder"
grep -q "naïve café.txt" out.txt || fail "ls -l lacks the long name"
grep -q "~1" out.txt || fail "ls -l lacks the 8.3 name"
expect_status 1 "$SDIMG" cat card.img:1/missing.txt
expect_stderr "card.img:1/missing.txt: no such file or directory"
expect_status 1 "$SDIMG" ls card.img
expect_stderr "which partition?"
expect_status 1 "$SDIMG" ls card.img:2
expect_stderr "partition 2 holds no FAT, exFAT or ext file system"
# MBR has no names: the layout's `boot` is found by its volume label, in any case
f=$(cd tree && find . -type f | head -1)
"$SDIMG" cat "card.img:boot/${f#./}" | cmp -s - "tree/$f" || fail "cat by the label boot"
expect_status 0 "$SDIMG" ls card.img:Boot
expect_status 1 "$SDIMG" ls card.img:rootfs
expect_stderr "card.img: no partition 'rootfs' (a number, a GPT name or a volume label)"

# images made by sfdisk + mkfs.fat: their misalignment shows, with codes for scripts
for opts in "-a" "-R 7" "-s 1 -F 32" "-f 1" ""; do
    rm -f m.img p.img
    truncate -s 64M m.img
    echo 'start=2048, size=100000, type=c' | sfdisk -q m.img
    mkfs.fat -C $opts p.img 50000 >/dev/null
    dd if=p.img of=m.img bs=512 seek=2048 conv=notrunc,sparse status=none
    expect_status 0 "$SDIMG" inspect --json m.img
    codes=$(jq -r '[.findings[].code] | join(" ")' out.txt)
    case " $codes " in *" start-misaligned "*) ;; *) fail "mkfs.fat $opts: no start-misaligned ($codes)" ;; esac
    case " $codes " in *" data-misaligned "*) ;; *) fail "mkfs.fat $opts: no data-misaligned ($codes)" ;; esac
    case " $codes " in *" hidden-sectors "*) ;; *) fail "mkfs.fat $opts: hidden sectors 0 not seen ($codes)" ;; esac
    [ "$(jq '.partitions[0].fat.reserved' out.txt)" -ge 1 ] || fail "reserved"
    [ "$(jq -r '.findings[0] | keys_unsorted | join(",")' out.txt)" = "severity,code,partition,message" ] ||
        fail "finding keys: $(jq -c '.findings[0]' out.txt)"
done

# a GPT made by sgdisk; then its backup header broken
truncate -s 64M g.img
sgdisk -o -n 1:2048:+16M -t 1:0700 -n 2:0:0 g.img >/dev/null
expect_status 0 "$SDIMG" inspect --json g.img
jq -e '.image.gpt.primary_valid and .image.gpt.backup_valid and (.partitions | length) == 2' out.txt >/dev/null ||
    fail "sgdisk GPT"
# the header's CRC (random, as the GUIDs are) gets one byte inverted: a fixed
# byte would equal the one there once in 256 runs
crc_at=$((64 * M - 512 + 16))
crc_byte=$(od -An -tu1 -j $crc_at -N1 g.img)
printf "\\$(printf %o $((255 - crc_byte)))" | dd of=g.img bs=1 seek=$crc_at conv=notrunc status=none
expect_status 0 "$SDIMG" inspect --json g.img
jq -e '[.findings[].code] | index("gpt-backup-invalid")' out.txt >/dev/null || fail "broken backup GPT not seen"

# hostile images: a finding or one error line, never a crash or a hang
cp card.img h.img
printf '\000' | dd of=h.img bs=1 seek=$((4 * M + 13)) conv=notrunc status=none   # 0 sectors per cluster
expect_status 0 "$SDIMG" inspect h.img
grep -q "fat-unreadable" out.txt || fail "zero cluster size not reported"
cp card.img h.img
dd if=/dev/urandom of=h.img bs=512 seek=$((4 * M / 512 + 1)) count=64 conv=notrunc status=none  # FATs garbled
set +e
timeout 60 "$SDIMG" inspect h.img >/dev/null 2>&1; rc=$?
timeout 60 "$SDIMG" ls -R h.img:1 >/dev/null 2>&1; rc2=$?
set -e
[ $rc -le 1 ] && [ $rc2 -le 1 ] || fail "garbled FAT: exit $rc/$rc2"
cp g.img h.img
printf '\377\377\377\377' | dd of=h.img bs=1 seek=$((512 + 80)) conv=notrunc status=none  # 2^32 entries
set +e
timeout 60 "$SDIMG" inspect h.img >/dev/null 2>&1; rc=$?
set -e
[ $rc -le 1 ] || fail "GPT with 2^32 entries: exit $rc"

# overlapping MBR partitions, which sfdisk will not write: the table's bytes by hand.
# mbr_entry TYPE START SECTORS: one 16-byte entry (not active, CHS fields at their LBA-only
# maximum 0xfe 0xff 0xff, then the LBA start and the sector count, little-endian)
le32() {
    n=$1
    for i in 1 2 3 4; do printf "\\$(printf %03o $((n & 255)))"; n=$((n >> 8)); done
}
mbr_entry() {
    printf '\000\376\377\377'; printf "\\$(printf %03o "$1")"; printf '\376\377\377'; le32 "$2"; le32 "$3"
}
mbr() {   # mbr IMG ENTRIES...: a 32 MiB image whose MBR holds ENTRIES ("TYPE START SECTORS" each)
    rm -f "$1" && truncate -s 32M "$1"
    img=$1
    shift
    for e in "$@"; do mbr_entry $e; done | dd of="$img" bs=1 seek=446 conv=notrunc status=none
    printf '\125\252' | dd of="$img" bs=1 seek=510 conv=notrunc status=none
}
# expect_inspect IMG PARTITIONS FREE FINDINGS: exit 0; the partitions ([number, start, end,
# size, type, content] each), the free ranges ([start, size] each) and the findings
# ([code, partition, message] each) as given.
expect_inspect() {
    expect_status 0 "$SDIMG" inspect --json "$1"
    got=$(jq -c '[.partitions[] | [.number, .start, .end, .size, .type, .content]]' out.txt)
    [ "$got" = "$2" ] || fail "$1: partitions $got, expected $2"
    got=$(jq -c '[.free[] | [.start, .size]]' out.txt)
    [ "$got" = "$3" ] || fail "$1: free space $got, expected $3"
    got=$(jq -c '[.findings[] | [.severity, .code, .partition, .message]]' out.txt)
    [ "$got" = "$4" ] || fail "$1: findings $got, expected $4"
    expect_status 0 "$SDIMG" inspect "$1"
    grep -q "  error   overlap  " out.txt || fail "$1: $(cat out.txt)"
}
# 4-12 MiB and 8-16 MiB: the second starts inside the first
mbr o.img "12 8192 16384" "131 16384 16384"
[ "$(od -An -tx1 -j 446 -N 32 o.img | tr -d ' \n')" = \
  "00feffff0cfeffff0020000000400000""00feffff83feffff0040000000400000" ] || fail "MBR entries written wrong"
sfdisk -d o.img | grep -q 'o.img2 : start= *16384, size= *16384, type=83' || fail "sfdisk reads another table"
expect_inspect o.img \
    '[[1,4194304,12582911,8388608,"0x0c","unknown"],[2,8388608,16777215,8388608,"0x83","unknown"]]' \
    '[[512,4193792],[16777216,16777216]]' \
    '[["error","overlap",2,"partitions 1 and 2 overlap: bytes 8388608-12582911 belong to both, so writing one destroys the other; give each its own range in the layout"]]'
# 4-20 MiB holding 8-12 MiB whole, then 24-28 MiB: the free space after the first one's end
mbr o.img "12 8192 32768" "131 16384 8192" "131 49152 8192"
expect_inspect o.img \
    '[[1,4194304,20971519,16777216,"0x0c","unknown"],[2,8388608,12582911,4194304,"0x83","unknown"],[3,25165824,29360127,4194304,"0x83","unknown"]]' \
    '[[512,4193792],[20971520,4194304],[29360128,4194304]]' \
    '[["error","overlap",2,"partitions 1 and 2 overlap: bytes 8388608-12582911 belong to both, so writing one destroys the other; give each its own range in the layout"]]'

head -c 100000 /dev/urandom >noise.img
expect_status 1 "$SDIMG" inspect noise.img
expect_stderr "noise.img: not a disk image"

# a loop device, where this machine lets the test make one
if dev=$(losetup -f --show -r card.img 2>/dev/null); then
    set +e
    "$SDIMG" inspect --json "$dev" >out.txt 2>err.txt; rc=$?
    set -e
    losetup -d "$dev"
    [ $rc -eq 0 ] || fail "inspect $dev: $(cat err.txt)"
    jq -e '.partitions[0].fat.label == "BOOT"' out.txt >/dev/null || fail "loop device content"
else
    echo "(no loop device here: the block-device case is not run)"
fi

# a FIFO is neither an image nor a device: refused at once, never waited on in open()
mkfifo fifo.img
expect_status 1 timeout 10 "$SDIMG" inspect fifo.img
expect_stderr "fifo.img: neither an image file nor a block device"
expect_status 1 timeout 10 "$SDIMG" ls fifo.img
expect_stderr "fifo.img: neither an image file nor a block device"


# README's list of finding codes names every code inspect gives (a factory script gates on them)
codes=$(grep -ohE '"[a-z0-9]+(-[a-z0-9]+)+"' "$TOP/mkimage/reader/findings.c" | tr -d '"' | sort -u)
[ "$(echo "$codes" | wc -l)" -ge 20 ] || fail "finding codes not found in findings.c: $codes"
for code in $codes; do
    grep -q "\`$code\`" "$TOP/README.md" || fail "README.md's finding codes miss $code"
done
