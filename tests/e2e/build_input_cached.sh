#!/bin/sh
# SPDX-License-Identifier: MIT
# A raw partition from a file whose bytes are still only in the page cache (just written,
# its blocks not yet allocated: ext4's delayed allocation, which filefrag -v calls
# "delalloc"): the build copies them and maps them in the bmap without first writing the
# input to its own disk, a wait cp or cat never has. Two such files are written, the other
# one first: the kernel's flusher takes them in that order, so that the input losing its
# delayed extents while the other keeps them is the build's doing. Where the file system
# shows no delayed extent there is nothing to see: a skip.
. "$TOP/tests/e2e-lib.sh"
need filefrag cmp python3 sfdisk jq

delayed() { filefrag -v "$1" 2>/dev/null | grep -q delalloc; }

head -c $((3 * 1048576)) /dev/urandom >other.bin
head -c $((3 * 1048576)) /dev/urandom >in.bin
delayed other.bin && delayed in.bin || {
    echo "no delayed allocation shown here (file system, or written back at once)"
    exit 77
}
printf 'image { size = 8M }\npartition r { from = "in.bin" size = 4M }\n' >r.layout
expect_status 0 "$SDIMG" build -q --bmap -o r.img r.layout
if ! delayed in.bin && delayed other.bin; then
    fail "the build wrote its input to the disk before copying it (in.bin has no delayed extent left)"
fi
start=$(part_start r.img 1)
same_bytes r.img "$start" in.bin
python3 - r.img.bmap "$start" <<'PY' || fail "the bmap does not map all of in.bin"
import re, sys
text = open(sys.argv[1]).read()
first, last = int(sys.argv[2]) // 4096, (int(sys.argv[2]) + 3 * 1048576) // 4096 - 1
covered = set()
for m in re.finditer(r'>\s*(\d+)(?:-(\d+))?\s*</Range>', text):
    covered.update(range(int(m.group(1)), int(m.group(2) or m.group(1)) + 1))
sys.exit(0 if all(b in covered for b in range(first, last + 1)) else 1)
PY
echo "the input's cached bytes are copied and mapped, and it is not written back for it"
