#!/bin/sh
# SPDX-License-Identifier: MIT
# The checksums in the bmap sdimg writes are the ones bmaptool checks: a byte of the image
# changed inside a mapped range (file data, a boot loader byte, or a byte in a stretch that
# is a hole in card.img, so checked as zeros) makes `bmaptool copy` fail with "checksum
# mismatch for blocks range", from the raw image and from a .zst of it; a byte changed
# outside every mapped range does not matter. A bmap with any one byte changed is refused:
# with "checksum mismatch for bmap file" for every byte bmaptool does not check before the
# file's checksum (its text, whitespace, ranges, range checksums, MappedBlocksCount and the
# file checksum itself), through bmaptool copy for a few and through bmaptool's own code
# (bmaptools.BmapCopy) for every byte of the file. The one exception is bmaptool's, not
# sdimg's: <bmap version="2.0"> changed to 0.x or 1.0-1.2 is read as an old format that
# had no checksums, so bmaptool 3.6 takes it unchecked (counted and printed, not a failure).
. "$TOP/tests/e2e/lib/ship.sh"
need bmaptool mke2fs sfdisk jq python3 zstd cmp
make_inputs
write_layout mbr
"$SDIMG" build -q --bmap -o card.img card.layout || fail "build"
size=$(stat -c %s card.img)
bmap_blocks card.img.bmap >ranges.txt

# corrupt_copy SRC OFFSET: a sparse copy of card.img with the byte at OFFSET changed, as
# the file SRC (compressed with zstd when SRC ends in .zst)
corrupt_copy() {
    cp --sparse=always card.img bad.img
    old=$(od -An -tu1 -j "$2" -N1 card.img | tr -d ' ')
    printf "\\$(printf '%03o' $(((old + 1) % 256)))" |
        dd of=bad.img bs=1 seek="$2" conv=notrunc status=none
    [ "$(cmp -l card.img bad.img | wc -l)" -eq 1 ] || fail "corrupt_copy changed more than one byte"
    case $1 in
        *.zst) zstd -q -f --rm bad.img -o "$1" ;;
        *) [ "$1" = bad.img ] || mv bad.img "$1" ;;
    esac
}

# copy_fails SRC WHAT: bmaptool copy of SRC with card.img.bmap fails with a range checksum
copy_fails() {
    if bmaptool copy --bmap card.img.bmap "$1" target.bin >copy.log 2>&1; then
        fail "bmaptool copied $1 with $2 changed"
    fi
    grep -q "checksum mismatch for blocks range" copy.log ||
        fail "$1 with $2 changed: not bmaptool's checksum message: $(cat copy.log)"
    echo "$2 changed ($1): $(grep -o 'checksum mismatch for blocks range [0-9-]*' copy.log | tail -1)"
}

# a byte of the boot loader, a byte of the kernel file in the FAT volume, a byte of the ext4
# superblock, a byte in a mapped stretch that is a hole in card.img
spl_byte=$((8192 + 1234))
kernel_byte=$(python3 -c '
import sys
data = open("card.img", "rb").read()
print(data.find(open("tree/boot/kernel.img", "rb").read(4096)) + 100000)')
[ "$kernel_byte" -gt 100000 ] || fail "kernel.img is not in card.img"
ext_byte=$(($(part_start card.img 2) + 1024 + 40))
holes_in_ranges card.img card.img.bmap >holes.txt
[ -s holes.txt ] || fail "no mapped hole in card.img"
fs=$(part_start card.img 1)
spl_hole=$(awk '$1 >= 8192 && $2 <= 8192 + 1024000 { print $1 + 17; exit }' holes.txt)
fat_hole=$(awk -v s="$fs" '$1 >= s { print $1 + 17; exit }' holes.txt)
[ -n "$spl_hole" ] && [ -n "$fat_hole" ] || fail "no mapped hole in the boot loader's region or the FAT volume"
for spot in "boot loader:$spl_byte" "kernel.img in the FAT volume:$kernel_byte" \
            "ext4 superblock:$ext_byte" "a mapped hole after the boot loader:$spl_hole" \
            "a mapped hole in the FAT volume:$fat_hole"; do
    what=${spot%:*} at=${spot##*:}
    corrupt_copy bad.img "$at"
    copy_fails bad.img "$what (byte $at)"
done
corrupt_copy bad.img.zst "$kernel_byte"
copy_fails bad.img.zst "kernel.img in the FAT volume (byte $kernel_byte)"

# a byte outside every mapped range: nothing to check there, the copy goes through
free_byte=$(($(first_unmapped card.img.bmap) * 4096 + 99))
corrupt_copy bad.img "$free_byte"
bmaptool copy --bmap card.img.bmap bad.img target.bin >copy.log 2>&1 ||
    fail "an unmapped byte ($free_byte) changed and bmaptool refused: $(cat copy.log)"
check_sums target.bin card.img.bmap
echo "an unmapped byte changed: bmaptool copies, every mapped range intact"

# the bmap itself: one byte changed, bmaptool copy refuses it
cp card.img card2.img
bmap_len=$(stat -c %s card.img.bmap)
for what in "<!-- The block map" "<MappedBlocksCount>" "<BmapFileChecksum>" "<Range chksum=" "</BlockMap>"; do
    # the byte 3 characters after the marker's end (inside the comment's text, the count,
    # the file checksum, the first range's checksum; for </BlockMap> its newline), changed
    # within its kind so the file stays well-formed XML
    python3 -c '
import sys
data = bytearray(open("card.img.bmap", "rb").read())
at = data.find(sys.argv[1].encode()) + len(sys.argv[1]) + 3
if sys.argv[1] == "</BlockMap>":
    at -= 3
c = chr(data[at])
data[at] = ord({"\n": " ", " ": "\t"}.get(c, "1" if c == "0" else "0" if c.isdigit() else
          "b" if c == "a" else "a"))
open("card2.img.bmap", "wb").write(data)
print(at)' "$what" >at.txt
    [ "$(cmp -l card.img.bmap card2.img.bmap | wc -l)" -eq 1 ] || fail "more than one byte changed"
    if bmaptool copy card2.img target.bin >copy.log 2>&1; then
        fail "bmaptool took a bmap with byte $(cat at.txt) changed (after '$what')"
    fi
    grep -q "checksum mismatch for bmap file" copy.log ||
        fail "byte $(cat at.txt) of the bmap changed: not bmaptool's bmap checksum message: $(cat copy.log)"
    echo "bmap byte $(cat at.txt) changed (after '$what'): bmaptool copy refuses the bmap"
done

# every byte of the bmap, through bmaptool's own parser: each single change is refused
python3 - card.img card.img.bmap <<'PY' || fail "a changed bmap byte went through"
import os, re, sys, tempfile
sys.path.insert(0, "/usr/lib/python3/dist-packages")
from bmaptools import BmapCopy

image, path = sys.argv[1], sys.argv[2]
data = open(path, "rb").read()
text = data.decode()
# bytes whose change bmaptool must catch by the file's checksum: the comment's text, the
# values it does not check first (MappedBlocksCount, BmapFileChecksum), the ranges and
# their checksums, and whitespace between elements
must = set()
def span(m, g=1):
    must.update(range(m.start(g), m.end(g)))
for rx in (r"<!--(.*?)-->", r"<MappedBlocksCount>([^<]*)<", r"<BmapFileChecksum>([^<]*)<",
           r"<Range chksum=\"([0-9a-f]+)\"", r"<Range [^>]*>([^<]*)</Range>", r">(\s+)<"):
    for m in re.finditer(rx, text, re.S):
        span(m)
def other(c):
    if c == "\n": return " "
    if c in " \t": return "\t" if c == " " else " "
    if c.isdigit(): return "1" if c == "0" else "0"
    if c.isalpha(): return "b" if c == "a" else "a"
    return "x"
version = set(range(text.index('<bmap version="') + 15, text.index('">', text.index('<bmap version="'))))
by_checksum = refused_otherwise = 0
unchecked = []
tmp = tempfile.mkdtemp()
bad = os.path.join(tmp, "bad.bmap")
with open(image, "rb") as img, open(os.devnull, "wb") as dest:
    for at in range(len(data)):
        changed = bytearray(data)
        changed[at] = ord(other(chr(data[at])))
        with open(bad, "wb") as f:
            f.write(changed)
        try:
            with open(bad, "rb") as f:
                BmapCopy.BmapCopy(img, dest, f, os.fstat(img.fileno()).st_size)
            if at in version:
                unchecked.append("%d (version %r -> %r)" % (at, chr(data[at]), other(chr(data[at]))))
                continue
            sys.exit("byte %d (%r -> %r) changed: bmaptool takes the bmap" % (at, chr(data[at]), other(chr(data[at]))))
        except SystemExit:
            raise
        except Exception as e:
            msg = str(e)
        if "checksum mismatch for bmap file" in msg:
            by_checksum += 1
        elif at in must:
            sys.exit("byte %d (%r) changed: refused, but not by the checksum: %s" % (at, chr(data[at]), msg))
        else:
            refused_otherwise += 1
print("%d bytes of the bmap changed one at a time: refused, %d by the bmap's checksum, "
      "%d by bmaptool's earlier checks (XML, version, sizes)" % (len(data) - len(unchecked), by_checksum, refused_otherwise))
if unchecked:
    print("taken unchecked by bmaptool as an older bmap format without checksums: byte " +
          ", ".join(unchecked))
PY
