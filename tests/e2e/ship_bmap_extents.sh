# SPDX-License-Identifier: MIT
# A raw partition from a file system image: every extent the image file has, written or
# allocated but unwritten (mke2fs leaves the journal and inode tables unwritten, and
# SEEK_DATA calls them holes), is mapped in the card's bmap, so that a flashed card holds
# their zeros and not what it held before. bmaptool create on the input is the reference.
. "$TOP/tests/e2e-lib.sh"
need mke2fs bmaptool python3

mkdir d && echo hello >d/a.txt
mke2fs -q -F -t ext4 -b 4096 -d d r.ext4 32M
printf 'image { size = 64M }\npartition r { from = "r.ext4" }\n' >r.layout
expect_status 0 "$SDIMG" build -q --bmap -o r.img r.layout
bmaptool create -o ref.bmap r.ext4 >/dev/null 2>&1 || fail "bmaptool create"
python3 - r.img.bmap ref.bmap $((4 * 1048576 / 4096)) <<'PY' || fail "the card's bmap misses extents of r.ext4"
import re, sys
def ranges(path):
    out = []
    for m in re.finditer(r'>\s*(\d+)(?:-(\d+))?\s*</Range>', open(path).read()):
        out.append((int(m.group(1)), int(m.group(2) or m.group(1))))
    return out
card, ref, shift = ranges(sys.argv[1]), ranges(sys.argv[2]), int(sys.argv[3])
covered = set()
for a, b in card:
    covered.update(range(a, b + 1))
missing = [(a, b) for a, b in ref if any(x + shift not in covered for x in range(a, b + 1))]
print("input ranges (bmaptool create):", ref)
print("card ranges (sdimg build --bmap):", card)
sys.exit(1 if missing else 0)
PY
echo "every extent of r.ext4 that bmaptool create maps is mapped in the card's bmap"
