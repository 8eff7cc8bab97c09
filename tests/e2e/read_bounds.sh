#!/bin/sh
# SPDX-License-Identifier: MIT
# What the readers read: `cat` and `ls` of an empty 2 TiB card read a few sectors (they count
# nothing, and follow only the path's folders; libfdisk's probe of the table, through
# libblkid, makes some 45 small reads of its own), `inspect` reads its 256 MiB FAT in at most 300
# reads (1 MiB each, none where the image file has a hole; once, each of the three was half a
# million reads of 512 bytes). Counted with strace: every call that reads the image file,
# whichever way (read, pread, readv, a mapping, a copy between files), and at least one.
. "$TOP/tests/e2e-lib.sh"
need strace jq

# reads COMMAND...: n is how many calls of COMMAND (which must succeed) read huge.img: read,
# pread64, readv, preadv, preadv2, mmap (a mapping counts as one read), copy_file_range,
# sendfile and splice on a descriptor of it (strace -y names each descriptor's file). None
# fails the test: COMMAND read the image some way this does not see, and proves nothing.
reads() {
    strace -f -y -e trace=read,pread64,readv,preadv,preadv2,mmap,copy_file_range,sendfile,splice \
        -o strace.txt "$@" >out.txt 2>err.txt || { cat err.txt; fail "$*"; }
    n=$(grep -cE '^([0-9]+ +)?[a-z_0-9]+\(.*<[^>]*/huge\.img>' strace.txt || true)
    [ "$n" -gt 0 ] || fail "$*: strace saw no read of huge.img"
}
strace -o /dev/null true 2>/dev/null || { echo "strace cannot trace here"; exit 77; }

mkdir -p few/sub && printf 'abc' >few/sub/abc.txt
printf 'image { size = 2T }\npartition data { type = fat32 size = grow tree "/" { from = "few" } }\n' >huge.layout
"$SDIMG" build -q -o huge.img huge.layout || fail "building the 2 TiB card"
fat_mib=$("$SDIMG" inspect --json huge.img | jq '.partitions[0].fat.fat_sectors / 2048 | floor')
[ "$fat_mib" -ge 200 ] || fail "the 2 TiB card's FAT is $fat_mib MiB"

reads "$SDIMG" cat huge.img:1/sub/abc.txt
[ "$(cat out.txt)" = abc ] || fail "cat: $(cat out.txt)"
echo "cat: $n reads"
[ "$n" -le 64 ] || fail "cat of a 3-byte file on a 2 TiB card: $n reads"
reads "$SDIMG" ls -R huge.img:1
printf 'sub/\n\n/sub:\nabc.txt\n' >want.txt
cmp -s want.txt out.txt || fail "ls -R: $(cat out.txt)"
echo "ls -R: $n reads"
[ "$n" -le 64 ] || fail "ls -R of a 2 TiB card with one folder: $n reads"
reads "$SDIMG" inspect huge.img
grep -q "1 file in 1 folder$" out.txt || fail "inspect: $(cat out.txt)"
echo "inspect: $n reads"
[ "$n" -le 300 ] || fail "inspect of a 2 TiB card: $n reads for a FAT of $fat_mib MiB"

# reading asks nothing of the device: no fsync (which on a card flushes its cache)
for cmd in "cat huge.img:1/sub/abc.txt" "ls huge.img:1" "inspect huge.img"; do
    strace -f -c -e trace=fsync,fdatasync,sync -o strace.txt "$SDIMG" $cmd >/dev/null 2>&1 || fail "$cmd"
    ! grep -Eq ' (fsync|fdatasync|sync)$' strace.txt || fail "sdimg $cmd syncs: $(cat strace.txt)"
done

# exFAT: mkfs.exfat's 2 TiB volume (a 2 MiB bitmap of 16.7 million clusters): ls -R reads a
# few sectors, inspect its 2 MiB bitmap a cluster at a time; a root directory whose FAT
# chain loops, its cluster full of deleted entries, is refused after one cluster
if command -v mkfs.exfat >/dev/null 2>&1 || [ -x /usr/sbin/mkfs.exfat ]; then
    PATH=$PATH:/sbin:/usr/sbin
    rm -f huge.img
    truncate -s 2T huge.img
    mkfs.exfat huge.img >/dev/null
    reads "$SDIMG" ls -R huge.img
    echo "exFAT ls -R: $n reads"
    [ "$n" -le 64 ] || fail "ls -R of an empty 2 TiB exFAT volume: $n reads"
    reads "$SDIMG" inspect huge.img
    grep -q "0 files in 0 folders" out.txt || fail "inspect: $(cat out.txt)"
    echo "exFAT inspect: $n reads"
    [ "$n" -le 120 ] || fail "inspect of an empty 2 TiB exFAT volume: $n reads"
    # the root (cluster 19 of 128 KiB from sector 133120) made to loop
    heap=$((133120 * 512)) cs=131072 root=$(le huge.img 96 4)
    [ "$root" -ge 2 ] || fail "no root cluster"
    dd if=/dev/zero bs=32 count=4096 status=none | tr '\0' '\005' |
        dd of=huge.img bs=1 seek=$((heap + (root - 2) * cs + 96)) count=$((cs - 96)) conv=notrunc status=none
    printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $((root & 255)) $((root >> 8 & 255)) 0 0)" |
        dd of=huge.img bs=1 seek=$((2048 * 512 + root * 4)) conv=notrunc status=none
    strace -f -y -e trace=read,pread64,readv,preadv,preadv2,mmap -o strace.txt \
        "$SDIMG" ls huge.img >out.txt 2>err.txt && fail "ls of a looping root succeeded"
    grep -q "also another's, or its own" err.txt || fail "ls of a looping root: $(cat err.txt)"
    n=$(grep -cE '^([0-9]+ +)?[a-z_0-9]+\(.*<[^>]*/huge\.img>' strace.txt || true)
    echo "exFAT ls of a looping root: $n reads"
    [ "$n" -le 64 ] || fail "ls of a looping exFAT root: $n reads"
fi
