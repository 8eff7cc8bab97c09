#!/bin/sh
# SPDX-License-Identifier: MIT
# A compressed image is the same bytes however its threads happen to run. The .zst of an
# image that is a whole number of zstd's 2 MiB jobs (14 MiB, random bytes up to its last
# one) built 8 times under a CPU load the test makes, on one CPU and on all, has one
# SHA-256, and its frame ends with a block of the image's bytes: never with the empty last
# block that ends a frame closed after its last full job was handed on (which depended on
# whether a worker had taken that job in time). (ship_repro.sh compares .xz and .gz made on
# one CPU and on all.)
# e2e-alone: it measures compression under its own CPU pinning and load
. "$TOP/tests/e2e-lib.sh"
need sha256sum python3 taskset

head -c $((10 << 20)) /dev/urandom >data.bin
cat >timing.layout <<'LAYOUT'
image { size = 14M table = mbr seed = "timing" }
partition data { start = 4M size = 10M from = "data.bin" }
LAYOUT

# the load: a busy loop on CPU 0 (where the one-CPU builds run) and one anywhere
loads=
trap 'kill $loads 2>/dev/null || true' EXIT
trap 'exit 1' INT TERM HUP
for cpus in 0 all; do
    if [ "$cpus" = all ]; then
        sh -c 'while :; do :; done' &
    else
        taskset -c "$cpus" sh -c 'while :; do :; done' &
    fi
    loads="$loads $!"
done

# zst_last_block FILE: "LAST-BLOCK-SIZE FRAMES" of a .zst: the content size of its last
# block (0 for an empty one) and how many frames it holds
zst_last_block() {
    python3 -c '
import sys
data = open(sys.argv[1], "rb").read()
pos, frames, last = 0, 0, None
while pos < len(data):
    if data[pos:pos + 4] != b"\x28\xb5\x2f\xfd":
        sys.exit("%s: no zstd frame at byte %d" % (sys.argv[1], pos))
    fhd = data[pos + 4]
    single = fhd >> 5 & 1
    fcs = (0, 2, 4, 8)[fhd >> 6] or single
    pos += 5 + (not single) + (0, 1, 2, 4)[fhd & 3] + fcs
    while True:
        header = int.from_bytes(data[pos:pos + 3], "little")
        kind, size = header >> 1 & 3, header >> 3
        pos += 3 + (1 if kind == 1 else size)
        last = size
        if header & 1:
            break
    pos += 4 if fhd >> 2 & 1 else 0
    frames += 1
print(last, frames)
' "$1"
}

sum() { sha256sum <"$1" | cut -d' ' -f1; }

# 8 builds of timing.img.zst, alternately on CPU 0 and on all CPUs: one SHA-256
first=
for i in 1 2 3 4 5 6 7 8; do
    mkdir -p "zst$i"
    if [ $((i % 2)) -eq 1 ]; then pin="taskset -c 0"; else pin=; fi
    $pin "$SDIMG" build -q -o "zst$i/timing.img.zst" timing.layout >build.log 2>&1 ||
        fail "build $i: $(cat build.log)"
    s=$(sum "zst$i/timing.img.zst")
    [ -n "$first" ] || first=$s
    [ "$s" = "$first" ] || fail "build $i differs from build 1 ($(stat -c %s "zst$i/timing.img.zst")" \
        "bytes, not $(stat -c %s zst1/timing.img.zst))"
done
echo ".zst: 8 builds under load, one SHA-256 $(echo "$first" | cut -c1-12)..."

set -- $(zst_last_block zst1/timing.img.zst)
[ "$2" -eq 1 ] || fail "the .zst holds $2 frames, not one"
[ "$1" -gt 0 ] ||
    fail "the .zst's frame ends with an empty block: it was closed after its last job, not with it"
echo ".zst: one frame, whose last block holds $1 bytes of the image"
if command -v zstd >/dev/null 2>&1; then
    zstd -dcq zst1/timing.img.zst >unpacked.img
    [ "$(stat -c %s unpacked.img)" -eq $((14 << 20)) ] || fail "the .zst does not unpack to 14 MiB"
    [ "$(tail -c $((10 << 20)) unpacked.img | sha256sum | cut -d' ' -f1)" = "$(sum data.bin)" ] ||
        fail "the .zst does not unpack to the image"
fi
