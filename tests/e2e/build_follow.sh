#!/bin/sh
# SPDX-License-Identifier: MIT
# --bmap and --sha256 take their checksums while the image is written, on threads of their
# own behind the writers (one for the image's digest, one for the ranges'): the build's own
# thread reads nothing of the image back (strace, by thread; it used to read every mapped
# byte, or the whole image, after the writers). The
# checksums are right whatever the layout: `sha256sum -c` of the checksum file, `bmaptool
# copy` (which checks every range's checksum) of the image into a file that is then the
# image (cmp). Layouts: a FAT32 tree of many folders, small and large files, zero blocks and
# holes (fat/ writes its folders first, then the files in cluster order, and tells how far
# it is); a GPT card with a boot region at 0 and its table's bytes as holes, a raw
# partition, FAT16, ext4 and exFAT partitions out of layout order; a FAT tree from an
# unsorted tar (whose data is written after the volume: the thread waits for the partition);
# an image of raw regions alone; one large file, which the thread follows as it is copied.
# With a compressed copy the checksums are also right.
. "$TOP/tests/e2e-lib.sh"
need strace bmaptool sha256sum cmp zstd tar truncate
REAL=${SDIMG_REAL:-$SDIMG}

mkdir -p in/tree out
i=0
while [ $i -lt 40 ]; do
    d=in/tree/dir$((i % 7))/sub$((i % 3))
    mkdir -p "$d"
    head -c $((i * 3001 + 1)) /dev/urandom >"$d/small$i.bin"
    i=$((i + 1))
done
head -c 3000000 /dev/urandom >in/tree/big.bin
{ head -c 700000 /dev/urandom; head -c 1048576 /dev/zero; head -c 5000 /dev/urandom; } >in/tree/dir1/zeros.bin
truncate -s 2M in/tree/dir2/hole.bin
: >in/tree/empty.txt
(cd in/tree && find . -type f | sort -r | tar -cf ../tree.tar -T -)
head -c 512 /dev/urandom >in/boot.bin
head -c 2000000 /dev/urandom >in/raw.bin

cat >fat.layout <<'EOF'
image { size = 80M seed = "follow" }
partition files { type = fat32 size = 72M fat { cluster-size = 1K } tree "/" { from = "in/tree" } }
EOF
cat >mixed.layout <<'EOF'
image { size = 200M table = gpt seed = "follow" }
raw boot { offset = 0 from = "in/boot.bin" holes = "440-512" }
partition root  { type = ext4 start = 100M size = 60M tree "/" { from = "in/tree" } }
partition files { type = fat16 start = 8M size = 40M tree "/" { from = "in/tree" } }
partition blob  { start = 52M from = "in/raw.bin" size = 4M }
partition ex    { type = exfat start = 60M size = 32M tree "/" { from = "in/tree" } }
EOF
cat >tar.layout <<'EOF'
image { size = 40M seed = "follow" }
partition files { type = fat size = 32M tree "/" { from = "in/tree.tar" } }
EOF
cat >raw.layout <<'EOF'
image { size = 6M table = none }
raw boot { offset = 0 from = "in/boot.bin" }
raw blob { offset = 1M from = "in/raw.bin" }
EOF

# main_reads STRACE: bytes the build's first thread pread from files under out/ after its
# last pwrite to one (the ext4 writer reads its own blocks while it writes: not counted)
main_reads() {
    awk 'NR == 1 { main = $1 }
         $1 == main && /pwrite64\([0-9]+<[^>]*\/out\// { sum = 0 }
         $1 == main && /pread64\([0-9]+<[^>]*\/out\// { n = $NF; if (n ~ /^[0-9]+$/) sum += n }
         END { print sum + 0 }' "$1"
}

# check LAYOUT OUTPUT OPTIONS...: the build's checksums are right, and with a raw image its
# first thread read none of the image
check() {
    layout=$1 output=$2
    shift 2
    rm -rf out && mkdir out
    strace -f -y -e trace=pread64,pwrite64 -o st.txt "$REAL" build -q -o "$output" "$@" "$layout" ||
        fail "$layout $*: build failed"
    if [ -e out/card.img.sha256 ]; then
        (cd out && sha256sum -c --quiet card.img.sha256) || fail "$layout $*: sha256sum -c failed"
    fi
    if [ -e out/card.img.bmap ]; then
        img=out/card.img
        [ -e "$img" ] || { zstd -dq out/card.img.zst -o out/plain.img && img=out/plain.img; }
        bmaptool -q copy --bmap out/card.img.bmap "$img" out/copy.img 2>bt.err ||
            fail "$layout $*: bmaptool copy: $(tail -1 bt.err)"
        cmp -s "$img" out/copy.img || fail "$layout $*: bmaptool's copy differs from the image"
    fi
    case $output in
        *.zst) ;;
        *)
            n=$(main_reads st.txt)
            [ "$n" -eq 0 ] || fail "$layout $*: the build's thread read $n bytes of the image back"
            ;;
    esac
}

for layout in fat.layout mixed.layout tar.layout raw.layout; do
    check $layout out/card.img --bmap
    check $layout out/card.img --sha256
    check $layout out/card.img --bmap --sha256
done
check fat.layout out/card.img.zst --bmap --sha256
check mixed.layout out/card.img.zst --bmap

# a large file is followed as it is copied, not once it is whole: the thread reads bytes of
# it before the writer's last write (the writer copies it a chunk of 256 KiB at a time, each
# one pwrite of random data; the file's first is the lowest such write). Each write of the
# build is held 10 ms, so that the thread has its turns on a loaded machine too.
mkdir -p in/big
head -c 48000000 /dev/urandom >in/big/kernel.img
cat >big.layout <<'EOF'
image { size = 80M seed = "follow" }
partition files { type = fat32 size = 72M tree "/" { from = "in/big" } }
EOF
# early_readers OPTIONS...: for each thread but the writer's that read bytes of the large file
# before the writer's last write, how many it read, a line each
early_readers() {
    rm -rf out && mkdir out
    # one trace file a thread (-ff: no call cut in two by another's), each call with its time
    strace -ff -ttt -y -s 0 -e trace=pread64,pwrite64 -e inject=pwrite64:delay_exit=10000 \
        -o big.trace "$REAL" build -q -o out/card.img "$@" big.layout ||
        fail "big.layout $*: build failed"
    awk '
        /pwrite64\([0-9]+<[^>]*\/out\// {
            writer = FILENAME; last = $1
            if ($0 ~ /, 262144, [0-9]+\) = 262144( \(DELAYED\))?$/) {
                split($0, a, ", "); if (start == "" || a[4] + 0 < start) start = a[4] + 0 } }
        /pread64\([0-9]+<[^>]*\/out\// { n++; t[n] = $1; f[n] = FILENAME; line[n] = $0 }
        END {
            for (i = 1; i <= n; i++)
                if (f[i] != writer && t[i] < last) {
                    split(line[i], a, ", "); split(line[i], r, "= ")
                    if (start != "" && a[4] + 0 >= start && r[2] ~ /^[0-9]+$/) sum[f[i]] += r[2] }
            for (k in sum) print sum[k] }' big.trace.*
    rm -f big.trace.*
}
early=$(early_readers --bmap | awk '{ s += $1 } END { print s + 0 }')
[ "$early" -gt 0 ] || fail "big.layout: the thread read none of the large file while it was copied"
# the image's digest and the ranges' are taken on a thread each (one thread hashing both
# lagged the writer by the image's whole length)
readers=$(early_readers --bmap --sha256 | awk '$1 > 0 { n++ } END { print n + 0 }')
[ "$readers" -eq 2 ] ||
    fail "big.layout --bmap --sha256: $readers threads read the large file while it was copied, not 2"
check big.layout out/card.img --bmap --sha256
