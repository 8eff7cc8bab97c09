#!/bin/sh
# SPDX-License-Identifier: MIT
# Android sparse images, out and in. simg2img (AOSP's libsparse, not ours) turns every sparse
# image sdimg writes back into the exact raw image (cmp): FAT16 + ext4 (MBR) and FAT32 + ext4
# (GPT) cards, -o X.simg and --simg beside the raw image, with and without --simg-crc, with
# --simg-block-size 512 and 64K, split with --simg-max-size (all files together, and each
# alone a whole-device image that agrees with the raw one wherever it defines bytes, no file
# over the size); a card whose last mapped bytes end exactly at the image's end (the
# truncation of genimage#224) comes back whole; --sha256 lists the sparse files
# (sha256sum -c); two builds under other TZ, LANG and umask give one sha256. img2simg's output
# is read by sdimg: inspect, ls, cat, and flash to a loop device, read back (sdimg's own
# verification, then fsck.fat, mcopy, e2fsck on the device); sdimg's own X.simg flashes with
# X.bmap found beside it. personalize of a sparse image writes a sparse image, which simg2img
# turns into the card the raw image's personalize gives (mtype reads its value). Bad sparse files, made here byte by byte (a chunk past the declared
# blocks, chunks that do not add up, too few chunks, a total_sz wrong for its type, an unknown
# type, a bad CRC, a cut file, a block size not a multiple of 4) each give one line naming
# the file and the chunk, exit 1, for inspect and flash alike.
. "$TOP/tests/e2e/lib/flash.sh"
need simg2img img2simg zstd cmp sha256sum sfdisk jq fsck.fat mcopy mtype mke2fs e2fsck
make_inputs
write_layout mbr
"$SDIMG" build -q --bmap -o raw.img card.layout || fail "build raw.img"
size=$(stat -c %s raw.img)

# back SIMG... : simg2img of the files into back.img, which must be raw.img byte for byte
back() {
    rm -f back.img
    simg2img "$@" back.img 2>s2i.err || fail "simg2img $*: $(cat s2i.err)"
    cmp -s raw.img back.img || fail "simg2img $* is not raw.img: $(cmp raw.img back.img 2>&1 | head -1)"
}

"$SDIMG" build -q -o a.simg card.layout || fail "build -o a.simg"
[ -f a.simg ] && [ ! -e a ] || fail "-o a.simg wrote: $(ls)"
back a.simg
echo "-o a.simg ($(stat -c %s a.simg) bytes for a $size-byte image): simg2img gives raw.img"
"$SDIMG" build -q --simg --simg-crc -o b.img card.layout || fail "build --simg --simg-crc"
cmp -s raw.img b.img || fail "b.img (beside its .simg) is not raw.img"
back b.img.simg
"$SDIMG" build -q -o c.simg --simg-block-size 512 card.layout || fail "build --simg-block-size 512"
back c.simg
"$SDIMG" build -q -o d.simg --simg-block-size 64K --simg-crc card.layout || fail "build --simg-block-size 64K"
back d.simg
echo "--simg beside b.img, --simg-crc, blocks of 512 and 64K: simg2img gives raw.img"
# -o X.simg --compress zst: X.zst beside it (the raw image compressed), as -o X --simg does
"$SDIMG" build -q -o z.simg --compress zst card.layout || fail "build -o z.simg --compress zst"
back z.simg
zstd -dq z.zst -o z.raw && cmp -s raw.img z.raw || fail "z.zst is not raw.img compressed"
rm -f z.raw
expect_status 2 "$SDIMG" build -q -o sub/.simg card.layout
grep -q "needs a name before .simg" err.txt || fail "-o sub/.simg: $(cat err.txt)"

# the sizes of the mapped bytes: the sparse file holds little more than what is not a fill
mapped=$(bmap_mapped raw.img.bmap)
[ "$(stat -c %s a.simg)" -le "$mapped" ] || fail "a.simg ($(stat -c %s a.simg) bytes) is larger than the $mapped mapped"

# split: 1 MiB files, each alone a sparse image of the whole card
"$SDIMG" build -q -o e.simg --simg-max-size 1M --simg-crc card.layout || fail "build --simg-max-size 1M"
[ ! -e e.simg ] || fail "with --simg-max-size, e.simg itself was written"
n=$(ls e.*.simg | wc -l)
[ "$n" -ge 3 ] || fail "--simg-max-size 1M gave $n files"
back $(i=0; while [ $i -lt "$n" ]; do echo e.$i.simg; i=$((i + 1)); done)
for f in e.*.simg; do
    [ "$(stat -c %s "$f")" -le 1048576 ] || fail "$f has $(stat -c %s "$f") bytes, over 1 MiB"
    simg2img "$f" one.img 2>s2i.err || fail "simg2img $f alone: $(cat s2i.err)"
    [ "$(stat -c %s one.img)" -eq "$size" ] || fail "$f alone is $(stat -c %s one.img) bytes, not $size"
    # where the piece defines bytes they are raw.img's: every byte that differs is a 0 of
    # its DONT_CARE stretches
    cmp -l one.img raw.img | awk '$2 != 0 { bad = 1; exit } END { exit bad }' ||
        fail "$f alone holds bytes raw.img has not"
done
echo "--simg-max-size 1M: $n files of at most 1 MiB, together raw.img, each alone agrees with it"
# a size that holds the whole sparse file gives one piece, a byte less two
whole=$(stat -c %s a.simg)
"$SDIMG" build -q -o w.simg --simg-max-size "$whole" card.layout || fail "build --simg-max-size $whole"
[ "$(ls w.*.simg)" = w.0.simg ] && cmp -s a.simg w.0.simg || fail "--simg-max-size $whole (a.simg's size): $(ls w.*.simg)"
"$SDIMG" build -q -o w.simg --simg-max-size $((whole - 1)) card.layout || fail "build --simg-max-size $((whole - 1))"
[ "$(ls w.*.simg | wc -l)" -eq 2 ] || fail "--simg-max-size $((whole - 1)): $(ls w.*.simg)"
back w.0.simg w.1.simg
# a rebuild in fewer pieces removes the older ones past its last: the glob is this image
"$SDIMG" build -q -o e.simg --simg-max-size 64M card.layout || fail "build --simg-max-size 64M"
[ "$(ls e.*.simg | wc -l)" -lt "$n" ] || fail "after a build in fewer pieces: $(ls e.*.simg)"
back e.*.simg
expect_status 2 "$SDIMG" build -q -o f.simg --simg-max-size 4K card.layout
grep -q "needs at least 4160 bytes" err.txt || fail "--simg-max-size 4K: $(cat err.txt)"
[ -z "$(ls f.* 2>/dev/null)" ] || fail "a refused split left: $(ls f.*)"

# the GPT card: FAT32 and ext4
write_layout gpt
"$SDIMG" build -q -o raw.img card.layout || fail "build raw.img (gpt)"
"$SDIMG" build -q -o g.simg --simg-crc card.layout || fail "build -o g.simg (gpt)"
back g.simg
write_layout mbr
"$SDIMG" build -q -o raw.img card.layout || fail "build raw.img (mbr again)"
echo "GPT card: simg2img gives raw.img"

# genimage#224: the last mapped extent ends at the image's end; an odd size wants 512
head -c 65536 /dev/urandom >tail.bin
cat >tail.layout <<'LAYOUT'
image { size = 8M table = none seed = "tail" }
raw head { offset = 0 from = "spl.bin" }
raw tail { offset = 8128K from = "tail.bin" }
LAYOUT
"$SDIMG" build -q --bmap -o raw.img tail.layout || fail "build tail raw.img"
"$SDIMG" build -q -o t.simg --simg-crc tail.layout || fail "build tail t.simg"
back t.simg
head -c 2000 spl.bin >small.bin
printf 'image { size = 8194K table = none seed = "odd" }\nraw tail { offset = 8192K from = "small.bin" }\n' >odd.layout
expect_status 1 "$SDIMG" build -q -o o.simg odd.layout
expect_stderr "o.simg: its 8390656 bytes are not a whole number of 4096-byte sparse blocks"
[ ! -e o.simg ] || fail "a refused build left o.simg"
"$SDIMG" build -q -o raw.img odd.layout || fail "build odd raw.img"
"$SDIMG" build -q -o o.simg --simg-block-size 512 odd.layout || fail "build odd o.simg, blocks of 512"
back o.simg
echo "the last mapped block at the image's end comes back whole; an image of 8194 KiB in blocks of 512 too"

# checksums and reproducibility
"$SDIMG" build -q -o h.simg --sha256 card.layout || fail "build --sha256"
[ "$(awk '{ print $2 }' h.sha256)" = h.simg ] || fail "h.sha256 lists: $(cat h.sha256)"
sha256sum -c h.sha256 >/dev/null || fail "sha256sum -c h.sha256"
"$SDIMG" build -q -o s.simg --simg-max-size 2M --sha256 card.layout || fail "build split --sha256"
[ "$(awk '{ print $2 }' s.sha256 | tr '\n' ' ')" = "$(ls s.*.simg | sort -t. -k2n | tr '\n' ' ')" ] ||
    fail "s.sha256 lists: $(cat s.sha256)"
sha256sum -c s.sha256 >/dev/null || fail "sha256sum -c s.sha256"
mkdir -p again
(umask 077 && TZ=Asia/Kolkata LANG=C.UTF-8 "$SDIMG" build -q -o again/h.simg card.layout) ||
    fail "second build"
cmp -s h.simg again/h.simg || fail "two builds of h.simg differ"
echo "--sha256 lists the sparse files; two builds give one sha256: $(sha256sum <h.simg | cut -c1-16)"

# img2simg's sparse image, read by sdimg
"$SDIMG" build -q --bmap -o raw.img card.layout || fail "build raw.img"
img2simg raw.img i.simg 2>i2s.err || fail "img2simg: $(cat i2s.err)"
expect_status 0 "$SDIMG" inspect --json i.simg
[ "$(jq '.partitions | length' out.txt)" = 2 ] || fail "inspect i.simg: $(cat out.txt)"
[ "$(jq -r '.partitions[0].content' out.txt)" = fat ] || fail "inspect i.simg: partition 1 is $(jq -r '.partitions[0].content' out.txt)"
expect_status 0 "$SDIMG" ls i.simg:1/boot
grep -qx kernel.img out.txt || fail "ls i.simg:1/boot: $(cat out.txt)"
"$SDIMG" cat i.simg:1/boot/kernel.img >kernel.out || fail "cat i.simg:1/boot/kernel.img"
cmp -s kernel.out tree/boot/kernel.img || fail "cat i.simg:1/boot/kernel.img differs"
"$SDIMG" cat i.simg:2/etc/blob >blob.out || fail "cat i.simg:2/etc/blob"
cmp -s blob.out rootsrc/etc/blob || fail "cat i.simg:2/etc/blob differs"
echo "img2simg's i.simg: inspect, ls and cat read it"

# personalize: a sparse image gives a sparse image, the card's bytes those of the raw path
cat >p.layout <<'LAYOUT'
image { table = mbr size = 40M seed = "p" }
partition boot {
    type = fat16
    size = 32M
    file "/hello.txt" { content = "hello\n" }
    file "/etc-id/serial.txt" { content = "serial=\${CARD_SERIAL}\n" per-card = true reserve = 3000 }
}
LAYOUT
"$SDIMG" build -q -o p.img p.layout || fail "build p.img"
"$SDIMG" build -q -o p.simg --simg-crc p.layout || fail "build p.simg"
[ -f p.cards.json ] || fail "-o p.simg wrote no p.cards.json: $(ls p.*)"
expect_status 0 "$SDIMG" personalize p.simg --set CARD_SERIAL=SN000042 -o q.simg
expect_status 0 "$SDIMG" personalize p.img --set CARD_SERIAL=SN000042 -o q.img
[ "$(od -An -tx4 -N4 q.simg | tr -d ' ')" = ed26ff3a ] || fail "personalize of p.simg wrote no sparse image"
simg2img q.simg qs.img 2>s2i.err || fail "simg2img q.simg: $(cat s2i.err)"
cmp -s q.img qs.img || fail "the personalized q.simg is not the personalized q.img"
[ "$(mtype -i "qs.img@@$(($(part_json qs.img 1 start) * 512))" ::/etc-id/serial.txt)" = serial=SN000042 ] ||
    fail "q.simg: the card's serial.txt"
echo "personalize p.simg gives a sparse q.simg, simg2img of it the raw path's card"

# bad sparse files: one line naming the chunk, exit 1
le32() { printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)))"; }
le16() { printf "$(printf '\\%03o\\%03o' $(($1 & 255)) $(($1 >> 8 & 255)))"; }
# header BLKSZ BLOCKS CHUNKS
header() { le32 3978755898; le16 1; le16 0; le16 28; le16 12; le32 "$1"; le32 "$2"; le32 "$3"; le32 0; }
# chunk TYPE BLOCKS TOTAL_SZ
chunk() { le16 "$1"; le16 0; le32 "$2"; le32 "$3"; }
{ header 4096 2 1; chunk 51905 3 12300; head -c 12288 /dev/zero; } >past.simg
{ header 4096 4 1; chunk 51907 2 12; } >short.simg
{ header 4096 4 2; chunk 51907 4 12; } >few.simg
{ header 4096 4 1; chunk 51906 4 12; } >totalsz.simg
{ header 4096 4 1; chunk 51909 4 12; } >type.simg
{ header 1001 4 1; chunk 51907 4 12; } >blksz.simg
head -c $(($(stat -c %s b.img.simg) - 4)) b.img.simg >badcrc.simg
printf '\125\125\125\125' >>badcrc.simg
head -c 100000 a.simg >cut.simg
for c in "past:chunk 1 of 1: blocks 0 to 2, past the 2 blocks" \
         "short:stand for 2 blocks, the header declares 4" \
         "few:the file ends after chunk 1 of the 2" \
         "totalsz:chunk 1 of 1: a FILL chunk of 4 blocks has total_sz 12, not 16" \
         "type:chunk 1 of 1: unknown chunk type 0xcac5" \
         "blksz:block size 1001 is not a multiple of 4" \
         "badcrc:its CRC-32 is 0x55555555" \
         "cut:ends inside its data"; do
    name=${c%%:*} text=${c#*:}
    expect_status 1 "$SDIMG" inspect "$name.simg"
    expect_stderr "$name.simg: "
    expect_stderr "$text"
done
expect_status 1 "$SDIMG" flash --dry-run badcrc.simg raw.img
grep -q "its CRC-32 is 0x55555555" err.txt || fail "flash of badcrc.simg: $(cat err.txt)"
echo "8 bad sparse files: one line each, exit 1"

# flash: img2simg's i.simg and sdimg's own a.simg (a.bmap beside it) onto loop devices
need_loops
flash_trap
"$SDIMG" build -q --bmap -o a.simg card.layout || fail "build -o a.simg --bmap"
[ -f a.bmap ] || fail "-o a.simg --bmap wrote no a.bmap: $(ls)"
for img in i.simg a.simg; do
    dev=$(ee_loop "card-$img" "$size")
    expect_status 0 "$SDIMG" flash "$img" "$dev" --allow-fixed --json
    cp out.txt report.json
    [ "$(jq -r .image.size report.json)" = "$size" ] || fail "$img: the image's size $(jq -r .image.size report.json)"
    grep -q "no bmap" err.txt && fail "$img: a warning of no bmap: $(cat err.txt)"
    [ "$(tj report.json "$dev" result)" = pass ] || fail "$img onto $dev: $(tj report.json "$dev" error)"
    [ $img = i.simg ] || check_ranges "$dev" raw.img a.bmap
    same_table raw.img "$dev"
    check_partitions "$dev"
    loop_detach "$dev"
    echo "$img onto $dev: pass, FAT and ext4 clean"
done
