# SPDX-License-Identifier: MIT
# Shared helpers of the ship_*.sh end-to-end tests (sourced; not a test itself): a card with
# every kind of region (a boot loader at 8K, a FAT partition of files and folders, an ext4
# raw partition with a sparse journal area) in an MBR or a GPT variant, and readers of what
# `sdimg build --bmap` writes, checked with outside tools (bmaptool, fsck.fat, mtools, e2fsck).
. "$TOP/tests/e2e/lib/card.sh"

# write_layout TABLE: card.layout (card_layout) of 96 MiB, the MBR variant with a FAT16 of
# 24M and 1K clusters, the GPT one with a FAT32 of 40M and 512-byte clusters
write_layout() {
    case $1 in
        mbr) card_layout mbr ship-mbr 96M fat16 24M 1K ;;
        gpt) card_layout gpt ship-gpt 96M fat32 40M 512 ;;
        *) fail "write_layout: $1" ;;
    esac
}

# bmap_value BMAP TAG: the number in <TAG> ... </TAG>
bmap_value() {
    sed -n "s|.*<$2> *\\([0-9a-z]*\\) *</$2>.*|\\1|p" "$1"
}

# loop_trap: the loop devices the test made (loop_try, loop_attach) are detached on exit
loop_trap() {
    trap 'loop_cleanup' EXIT
    trap 'loop_cleanup; exit 1' INT TERM HUP
}

# holes_in_ranges IMAGE BMAP: "START END" (bytes, END excluded) of every stretch that is a
# hole in the file IMAGE (SEEK_HOLE) yet inside a range the bmap maps
holes_in_ranges() {
    bmap_blocks "$2" | python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
size = os.fstat(fd).st_size
for line in sys.stdin:
    first, last, _ = line.split()
    pos, end = int(first) * 4096, min((int(last) + 1) * 4096, size)
    while pos < end:
        try:
            hole = os.lseek(fd, pos, os.SEEK_HOLE)
        except OSError:
            break
        if hole >= end:
            break
        try:
            data = os.lseek(fd, hole, os.SEEK_DATA)
        except OSError:
            data = size
        print(hole, min(data, end))
        pos = data
' "$1"
}

# zeros_written TARGET HOLES [allocated]: each stretch "START END" of the file HOLES reads as
# zeros on TARGET (a file or a device); with "allocated", TARGET is a file that holds them
# as data, not as holes: something wrote them
zeros_written() {
    python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
allocated = len(sys.argv) > 3
n = 0
for line in open(sys.argv[2]):
    start, end = map(int, line.split())
    left, pos = end - start, start
    while left:
        chunk = os.pread(fd, min(left, 1 << 20), pos)
        if not chunk or chunk.count(0) != len(chunk):
            sys.exit("%s: bytes %d-%d are not all zero" % (sys.argv[1], start, end - 1))
        pos += len(chunk)
        left -= len(chunk)
    if allocated and (os.lseek(fd, start, os.SEEK_DATA) != start or
                      os.lseek(fd, start, os.SEEK_HOLE) < end):
        sys.exit("%s: bytes %d-%d are a hole: nothing wrote them" % (sys.argv[1], start, end - 1))
    n += 1
' "$@" || fail "zeros_written $*"
}

# first_unmapped BMAP: the first block no range maps
first_unmapped() {
    bmap_blocks "$1" | awk 'BEGIN { b = 0 } { if ($1 > b) exit; b = $2 + 1 } END { print b }'
}

# mapped BMAP START END: bytes [START, END) lie inside one mapped range of BMAP
mapped() {
    bmap_blocks "$1" | awk -v s="$2" -v e="$3" '
        $1 * 4096 <= s && e <= ($2 + 1) * 4096 { found = 1 } END { exit !found }' ||
        fail "$1 does not map bytes $2-$(($3 - 1))${4:+ ($4)}"
}

# data_extents FILE: "START END" of each data extent of FILE (SEEK_DATA/SEEK_HOLE)
data_extents() {
    python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
size, pos = os.fstat(fd).st_size, 0
while pos < size:
    try:
        data = os.lseek(fd, pos, os.SEEK_DATA)
    except OSError:
        break
    hole = os.lseek(fd, data, os.SEEK_HOLE)
    print(data, hole)
    pos = hole
' "$1"
}
