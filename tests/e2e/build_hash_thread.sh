#!/bin/sh
# SPDX-License-Identifier: MIT
# build --bmap --sha256 --compress zst takes the SHA-256 of the image and of the bmap's
# ranges on a thread of its own behind the writers (build_follow.sh), while the build's
# thread compresses the image in a pass after them, and another thread starts the image's
# write-back first (sync_file_range): two threads read the image back, the sums are right,
# and a signal at any point stops the build with nothing of it left behind and every older
# file untouched:
#  - SIGINT while the threads read (each read slowed to 0.1 s: seconds of work left):
#    stopped within 1.2 s;
#  - SIGINT while the build's thread, its own part done, waits for the write-back's thread
#    (held in its sync_file_range for 1.5 s): the build stops once that thread is back.
. "$TOP/tests/e2e-lib.sh"
need sha256sum
. "$TOP/tests/e2e/lib/signals.sh"
# the binary itself under strace (not the wrapper that also asks `sdimg plan`, which every
# delay would slow down too)
BIN=${SDIMG_REAL:-$SDIMG}

mkdir -p tree
head -c $((24 << 20)) /dev/urandom >tree/data.bin
echo hello >tree/hello.txt
cat >card.layout <<'LAYOUT'
image { size = 96M seed = "hash-thread" }
partition boot { type = fat32 size = 80M tree "/" { from = "tree" } }
LAYOUT

# 1. the image is read back by the build's thread (the compressor's pass) and by another
# (the checksums'), the write-back is started once, by a third, and the sums agree with
# sha256sum and with the bmap's own ranges
strace -f -o trace.txt -e trace=pread64,sync_file_range "$BIN" build -q -o card.img --bmap --sha256 \
    --compress zst card.layout || fail "build --bmap --sha256 --compress zst under strace failed"
main=$(head -1 trace.txt | cut -d' ' -f1)
# the write-back of the whole image, from 0 to its end (the copy of a large file starts that
# of its own bytes as it goes: not these)
wb=$(grep 'sync_file_range([0-9]*, 0, 0, SYNC_FILE_RANGE_WRITE' trace.txt) ||
    fail "the image's write-back was not started: $(grep sync_file_range trace.txt)"
[ "$(echo "$wb" | wc -l)" -eq 1 ] || fail "the image's write-back was started more than once: $wb"
set -- $wb
wb_pid=$1 fd=${2#sync_file_range(}
fd=${fd%,}
[ "$wb_pid" != "$main" ] || fail "the build's own thread started the write-back"
grep "^[0-9]* *pread64($fd," trace.txt >reads.txt || true
[ "$(awk -v p="$main" '$1 == p' reads.txt | wc -l)" -ge 10 ] ||
    fail "the build's thread did not read the image for the compressor: $(head -3 reads.txt)"
[ "$(awk -v p="$main" -v w="$wb_pid" '$1 != p && $1 != w' reads.txt | wc -l)" -ge 10 ] ||
    fail "no other thread read the image for its checksums: $(head -3 reads.txt)"
sha256sum -c --quiet card.img.sha256 || fail "card.img.sha256 does not match the image"
# each range's chksum, recomputed with dd and sha256sum
sed -n 's|.*<Range chksum="\([0-9a-f]*\)"> *\([0-9]*\)-*\([0-9]*\) *</Range>.*|\1 \2 \3|p' card.img.bmap >ranges.txt
[ -s ranges.txt ] || fail "card.img.bmap has no ranges"
while read -r sum first last; do
    [ -n "$last" ] || last=$first
    got=$(dd if=card.img bs=4096 skip="$first" count=$((last - first + 1)) status=none | sha256sum | cut -d' ' -f1)
    [ "$got" = "$sum" ] || fail "range $first-$last: chksum $sum, its bytes hash to $got"
done <ranges.txt
echo "build --bmap --sha256 --compress zst: two threads read the image back, its write-back started once, every sum right"

olds() {
    rm -rf out && mkdir out
    for f in card.img card.img.bmap card.img.sha256 card.img.zst; do printf 'an older %s\n' $f >out/$f; done
    (cd out && sha256sum card.img card.img.bmap card.img.sha256 card.img.zst) >old.sums
}

# stopped WHAT: the build failed (the held signal ends it once its files are gone), out/ holds the older files alone, unchanged
stopped() {
    [ $rc -ne 0 ] || fail "$1: the build succeeded"
    [ "$(ls -A out | sort | tr '\n' ' ')" = "card.img card.img.bmap card.img.sha256 card.img.zst " ] ||
        fail "$1: out/ holds $(ls -A out | tr '\n' ' ')"
    (cd out && sha256sum --quiet -c ../old.sums) >sums.log 2>&1 || fail "$1: an older file changed: $(cat sums.log)"
}

# wait_hiddens N: until out/ holds N hidden names (the image's, then the bmap's and the
# checksums' and the compressed copy's, made just before the pass)
wait_hiddens() {
    n=0
    until [ "$(ls -A out | grep -c '^\.')" -ge "$1" ]; do
        kill -0 $tracer 2>/dev/null || fail "the build ended before its side files had hidden names: $(cat bg.log)"
        n=$((n + 1))
        [ $n -lt 600 ] || fail "no $1 hidden names in out/ in 30 s"
        sleep 0.05
    done
}

# 2. SIGINT while the threads read the image back (the checksums' thread behind the writers,
# or the compressor's pass after them: each read slowed, the build is in one or the other)
olds
start_traced named pread64:delay_exit=100000 "$BIN" build -q -o out/card.img --bmap --sha256 \
    --compress zst card.layout
wait_hiddens 1
sleep 0.3
kill -0 $tracer 2>/dev/null || fail "the build ended before it was interrupted: $(cat bg.log)"
t0=$(now_ms)
kill -INT $pid
finish
t=$(($(now_ms) - t0))
stopped "SIGINT while the threads read"
[ $t -le 1200 ] || fail "SIGINT while the threads read: the build took $t ms to stop"
echo "SIGINT while the threads read the image back: stopped in $t ms, nothing left"

# 3. SIGINT while the build's thread waits for the other one (small files: the only
# sync_file_range is that of the whole image)
mkdir small
for i in $(seq 1 40); do head -c 20000 /dev/urandom >small/f$i.bin; done
sed 's|from = "tree"|from = "small"|' card.layout >small.layout
olds
start_traced named sync_file_range:delay_exit=1500000 "$BIN" build -q -o out/card.img --bmap --sha256 \
    --compress zst small.layout
wait_hiddens 4
sleep 0.8
kill -0 $tracer 2>/dev/null || fail "the build ended before it was interrupted: $(cat bg.log)"
kill -INT $pid
finish
stopped "SIGINT while the build's thread waits for the other one"
echo "SIGINT while the build's thread waits for the write-back's thread: stopped, nothing left"
