#!/bin/sh
# SPDX-License-Identifier: MIT
# Zeros are not written into the image file, they are its holes: a FAT partition holding a
# sparse 256 MiB host file and a file of written zeros allocates a few MiB, not 256, and
# mtools reads both back; a raw partition from an ext4 image whose journal is written
# zeros allocates no more than `cp --sparse=always` of that image, reads back as the
# image, and its bmap still maps every extent of it (bmaptool create on the input is the
# reference): a card of 0xEE given the mapped ranges holds the journal's zeros and passes
# e2fsck.
. "$TOP/tests/e2e-lib.sh"
need mke2fs e2fsck filefrag bmaptool python3 mtype fsck.fat
MiB=1048576

# --- FAT: a sparse file and written zeros
mkdir t
# (256 MiB, far past the bound of 8 MiB allocated: 1 GiB proved no more, and mtype took
# 40 s to read it back)
truncate -s 256M t/sparse.bin
printf 'first bytes' | dd of=t/sparse.bin conv=notrunc status=none
printf 'last bytes' | dd of=t/sparse.bin bs=1 seek=$((256 * MiB - 10)) conv=notrunc status=none
{ head -c $((32 * MiB)) /dev/zero; head -c $MiB /dev/urandom; head -c $((8 * MiB)) /dev/zero; } >t/zeros.bin
printf 'image { table = none }\npartition p { type = fat32\n tree "/" { from = "t" } }\n' >fat.layout
expect_status 0 "$SDIMG" build -q -o fat.img fat.layout
alloc=$(($(stat -c %b fat.img) * 512))
[ "$alloc" -le $((8 * MiB)) ] ||
    fail "fat.img ($(stat -c %s fat.img) bytes) allocates $alloc bytes: its files' zeros were written"
fsck.fat -n fat.img >fsck.txt 2>&1 || { cat fsck.txt; fail "fsck.fat: fat.img"; }
for f in sparse.bin zeros.bin; do
    mtype -i fat.img ::/$f | cmp - t/$f || fail "mtype ::/$f differs from t/$f"
done
echo "FAT: a sparse 256 MiB file and 41 MiB of written zeros: $((alloc / 1024)) KiB allocated, mtype reads both"

# --- raw partition: an ext4 image whose journal is written zeros
mkdir d && head -c $((3 * MiB)) /dev/urandom >d/data.bin && echo hello >d/a.txt
mke2fs -q -F -t ext4 -b 4096 -J size=32 -d d r.ext4 128M >/dev/null
# mke2fs may leave the journal allocated but unwritten: write its zeros
filefrag -v r.ext4 | awk '/unwritten/ { sub(/:$/, "", $2); sub(/\.\./, " ", $2); sub(/:$/, "", $3); print $2, $3 }' |
    while read -r first last; do
        dd if=/dev/zero of=r.ext4 bs=4096 seek="$first" count=$((last - first + 1)) conv=notrunc status=none
    done
cp --sparse=always r.ext4 sparse.ext4
in_alloc=$(($(stat -c %b r.ext4) * 512)) cp_alloc=$(($(stat -c %b sparse.ext4) * 512))
[ "$in_alloc" -ge $((cp_alloc + 30 * MiB)) ] ||
    { echo "r.ext4 holds no 30 MiB of written zeros here ($in_alloc bytes allocated, $cp_alloc by cp --sparse=always)"; exit 77; }
printf 'image { size = 160M }\npartition r { start = 4M from = "r.ext4" }\n' >r.layout
expect_status 0 "$SDIMG" build -q --bmap -o r.img r.layout
alloc=$(($(stat -c %b r.img) * 512))
# the table (a sector, in a block of its own) besides the partition
[ "$alloc" -le $((cp_alloc + 64 * 1024)) ] ||
    fail "r.img allocates $alloc bytes, cp --sparse=always of r.ext4 $cp_alloc: the journal's zeros were written"
cmp -i $((4 * MiB)):0 -n "$(stat -c %s r.ext4)" r.img r.ext4 || fail "the partition of r.img is not r.ext4"
bmaptool create -o ref.bmap r.ext4 >/dev/null 2>&1 || fail "bmaptool create"
python3 - r.img r.img.bmap ref.bmap r.ext4 card.bin $((4 * MiB / 4096)) <<'PY' || fail "the card's bmap misses extents of r.ext4"
import re, sys
img, card_bmap, ref_bmap, src, card, shift = sys.argv[1:6] + [int(sys.argv[6])]
def ranges(path):
    return [(int(m.group(1)), int(m.group(2) or m.group(1)))
            for m in re.finditer(r'>\s*(\d+)(?:-(\d+))?\s*</Range>', open(path).read())]
B = 4096
mapped = ranges(card_bmap)
size = len(open(img, 'rb').read())
# a card that held 0xEE, given the image's mapped ranges (what a flash with the bmap writes)
data = bytearray(b'\xee' * size)
with open(img, 'rb') as f:
    for a, b in mapped:
        f.seek(a * B)
        data[a * B:(b + 1) * B] = f.read((b + 1 - a) * B)
open(card, 'wb').write(data)
covered = set()
for a, b in mapped:
    covered.update(range(a, b + 1))
missing = [(a, b) for a, b in ranges(ref_bmap) if any(x + shift not in covered for x in range(a, b + 1))]
if missing:
    print("extents of r.ext4 the card's bmap misses:", missing)
    sys.exit(1)
with open(src, 'rb') as f:
    for a, b in ranges(ref_bmap):
        f.seek(a * B)
        if f.read((b + 1 - a) * B) != bytes(data[(a + shift) * B:(b + 1 + shift) * B]):
            print("the card differs from r.ext4 in blocks", a, b)
            sys.exit(1)
PY
dd if=card.bin of=card.ext4 bs=$MiB skip=4 count=128 status=none
e2fsck -fn card.ext4 >e2fsck.txt 2>&1 || { cat e2fsck.txt; fail "e2fsck: the card's partition"; }
echo "raw partition: r.img allocates $((alloc / 1024)) KiB (r.ext4 $((in_alloc / 1024)) KiB, cp --sparse=always $((cp_alloc / 1024)) KiB); the bmap maps every extent, a flashed card passes e2fsck"
