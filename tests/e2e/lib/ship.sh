# Shared helpers of the ship_*.sh end-to-end tests (sourced; not a test itself): a card with
# every kind of region (a boot loader at 8K, a FAT partition of files and folders, an ext4
# raw partition with a sparse journal area) in an MBR or a GPT variant, and readers of what
# `sdimg build --bmap` writes, checked with outside tools (bmaptool, fsck.fat, mtools, e2fsck).
. "$TOP/tests/e2e-lib.sh"
export LC_ALL=C.UTF-8 TZ=UTC

# write_layout TABLE: card.layout with the MBR (FAT16) or the GPT (FAT32) variant. With GPT
# the entry array moves to 2M, away from the boot loader at 8K.
write_layout() {
    case $1 in
        mbr) fat=fat16 fatsize=24M cluster=1K tablekeys="" ;;
        gpt) fat=fat32 fatsize=40M cluster=512 tablekeys="gpt-entries = 2M" ;;
        *) fail "write_layout: $1" ;;
    esac
    cat >card.layout <<LAYOUT
image { size = 96M table = $1 seed = "ship-$1" $tablekeys }
raw spl { offset = 8K from = "spl.bin" size = 1000K }
partition boot {
    type = $fat
    size = $fatsize
    bootable = true
    fat { label = "BOOT" cluster-size = $cluster }
    tree "/" { from = "tree" }
}
partition root { from = "root.ext4" size = 40M }
LAYOUT
}

# bmap_ranges BMAP: one line "FIRST LAST CHKSUM" (blocks, LAST included) per mapped range
bmap_ranges() {
    awk -F'[<>]' '/<Range / {
        split($2, c, "\""); n = split($3, r, "-")
        gsub(/ /, "", r[1]); gsub(/ /, "", r[n])
        print r[1], r[n], c[2]
    }' "$1"
}

# bmap_value BMAP TAG: the number in <TAG> ... </TAG>
bmap_value() {
    sed -n "s|.*<$2> *\\([0-9a-z]*\\) *</$2>.*|\\1|p" "$1"
}

# range_sum FILE FIRST LAST: SHA-256 of blocks FIRST..LAST (4 KiB) of FILE or device
range_sum() {
    dd if="$1" bs=4096 skip="$2" count=$(($3 - $2 + 1)) status=none | sha256sum | cut -d' ' -f1
}

# check_ranges TARGET BMAP: every mapped range of TARGET has the checksum the bmap gives it
check_ranges() {
    n=0
    bmap_ranges "$2" >ranges.txt
    while read -r first last sum; do
        got=$(range_sum "$1" "$first" "$last")
        [ "$got" = "$sum" ] || fail "$1: blocks $first-$last have sha256 $got, the bmap says $sum"
        n=$((n + 1))
    done <ranges.txt
    [ "$n" -gt 0 ] || fail "$2 maps nothing"
}

# fill_ee FILE BYTES: a file of BYTES bytes 0xEE (a card that held something else)
fill_ee() {
    head -c "$2" /dev/zero | tr '\0' '\356' >"$1"
}

# Loop devices this test made, listed in loops.txt (loop_attach runs in $(...), a
# subshell); all detached on exit (set the trap with loop_trap).
loop_cleanup() {
    [ -f loops.txt ] || return 0
    while read -r l; do losetup -d "$l" 2>/dev/null || true; done <loops.txt
    rm -f loops.txt
}
loop_trap() {
    trap 'loop_cleanup' EXIT
    trap 'loop_cleanup; exit 1' INT TERM HUP
}

# loop_attach FILE [LOSETUP OPTIONS]: prints the new loop device, or nothing when this
# machine gives none
loop_attach() {
    f=$1
    shift
    dev=$(losetup -f --show "$@" "$f" 2>/dev/null) || return 0
    echo "$dev" >>loops.txt
    echo "$dev"
}

loop_detach() {
    losetup -d "$1" || fail "losetup -d $1"
    grep -vxF "$1" loops.txt >loops.tmp || true
    mv loops.tmp loops.txt
}

# holes_in_ranges IMAGE BMAP: "START END" (bytes, END excluded) of every stretch that is a
# hole in the file IMAGE (SEEK_HOLE) yet inside a range the bmap maps
holes_in_ranges() {
    bmap_ranges "$2" | python3 -c '
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
    bmap_ranges "$1" | awk 'BEGIN { b = 0 } { if ($1 > b) exit; b = $2 + 1 } END { print b }'
}

# mapped BMAP START END: bytes [START, END) lie inside one mapped range of BMAP
mapped() {
    bmap_ranges "$1" | awk -v s="$2" -v e="$3" '
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
