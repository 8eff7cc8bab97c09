#!/bin/sh
# SPDX-License-Identifier: MIT
# The exFAT writer (through the exfatwrite test driver) against outside readers: fsck.exfat
# finds the volumes clean, dump.exfat and exfatlabel read their label, serial and geometry
# (the same as mkfs.exfat's where the specification fixes it), and exfat-fuse reads every
# file back equal to its source: names of every Unicode plane and of 255 UTF-16 units, sizes
# 0, 1, cluster - 1, cluster and cluster + 1, a sparse file of 4 GiB + 1 (which stays sparse in
# the image), 10,000 files in one folder and 40 nested folders. Names exFAT cannot hold are
# refused with the path named. Two writes from trees listed in other orders, in other time
# zones and locales, give the same bytes. Then fsck.exfat is shown to see damage.
. "$TOP/tests/e2e/lib/exfat_oracles.sh"
. "$TOP/tests/e2e/lib/repro.sh"
need_exfat_tools cmp diff sha256sum mkfs.exfat xxd seq truncate

rich_tree src
"$EXFATWRITE" -s -c 4096 -l 'Rich ✓' -i 0x1234ABCD -T 1700000000 rich.img auto src >geom.txt ||
    fail "exfatwrite rich"
exfat_clean rich.img
[ "$(exfatlabel rich.img 2>/dev/null | sed -n 's/^label: //p')" = 'Rich ✓' ] || fail "label: $(exfatlabel rich.img 2>&1)"
exfatlabel -i rich.img 2>/dev/null | grep -q 'volume serial : 0x1234abcd' || fail "serial: $(exfatlabel -i rich.img 2>&1)"
[ "$(dump_field rich.img 'Upcase table size')" = 5836 ] || fail "up-case table: $(dump.exfat rich.img)"
[ "$(dump_field rich.img 'Sector per Cluster bits')" = 3 ] || fail "cluster bits: $(dump.exfat rich.img)"
# the big file's zeros stay holes: the image holds little more than its metadata
[ "$(du -k rich.img | cut -f1)" -lt 65536 ] || fail "the image is not sparse: $(du -k rich.img)"
echo "rich volume: fsck.exfat clean; label, serial and up-case table as written; sparse"

fuse_mount rich.img mnt
diff -r --exclude=big src mnt >diff.txt || fail "exfat-fuse reads another tree: $(head -20 diff.txt)"
# the big file by its size and its last MiB (all of it would take long through FUSE)
[ "$(stat -c %s mnt/big)" -eq 4294967297 ] || fail "exfat-fuse: the big file has $(stat -c %s mnt/big) bytes"
tail -c 1048576 mnt/big | cmp - src/big -i 0:4293918721 || fail "exfat-fuse reads another end of the big file"
fuse_umount
echo "rich volume: exfat-fuse reads every file as its source"

# a Volume GUID entry (which exfat-fuse does not know: it refuses the volume)
"$EXFATWRITE" -g 0123456789abcdef0123456789abcdef -l G guid.img auto src/sizes || fail "exfatwrite -g"
exfat_clean guid.img
xxd -p -c 32 guid.img | grep -q '^a000....00000123456789abcdef0123456789abcdef' || fail "no Volume GUID entry"
echo "a Volume GUID entry: fsck.exfat clean"

# the same geometry as mkfs.exfat gives a volume of the same size where the specification
# fixes it (the cluster size by volume size, the bitmap and up-case table, the root's place
# after them), each with its defaults
for size in 33554432 1073741824 68719476736; do
    mkdir -p empty
    "$EXFATWRITE" e$size.img $size empty || fail "exfatwrite $size"
    truncate -s $size m$size.img
    mkfs.exfat -q m$size.img >/dev/null 2>&1 || mkfs.exfat m$size.img >/dev/null || fail "mkfs.exfat $size"
    exfat_clean e$size.img
    for f in 'Sector Size Bits' 'Sector per Cluster bits' 'Bitmap start cluster' \
             'Upcase table start cluster' 'Upcase table size' 'Root Cluster (cluster offset)'; do
        a=$(dump_field e$size.img "$f") b=$(dump_field m$size.img "$f")
        [ -n "$a" ] && [ "$a" = "$b" ] || fail "$size bytes: $f is $a, mkfs.exfat's $b"
    done
done
echo "empty volumes of 32 MiB, 1 GiB and 64 GiB: mkfs.exfat's cluster size and system clusters"

# names exFAT cannot hold, each refused naming its path (a name of 256 UTF-16 units takes
# 256 bytes or more, which no Linux file system holds: test_exfat_names tries it)
mkdir -p bad2 bad3 bad4
printf x >"bad2/a:b"
printf x >bad3/Straße && printf x >bad3/STRASSE && printf x >bad3/straße_ && printf x >"bad3/STRAßE"
printf x >"bad4/$(printf 'bad\377name')"
for k in 2 3 4; do
    expect_status 1 "$EXFATWRITE" -T 0 bad$k.img auto bad$k
    [ ! -s bad$k.img ] || fail "bad$k: an image was written"
done
"$EXFATWRITE" -T 0 x.img auto bad2 2>&1 | grep -q "bad2/a:b: the name holds a character" ||
    fail "a colon: $("$EXFATWRITE" -T 0 x.img auto bad2 2>&1)"
"$EXFATWRITE" -T 0 x.img auto bad3 2>&1 | grep -q "bad3/STRAßE and bad3/Straße: exFAT sees these names as equal" ||
    fail "equal names: $("$EXFATWRITE" -T 0 x.img auto bad3 2>&1)"
"$EXFATWRITE" -T 0 x.img auto bad4 2>&1 | grep -q "not valid UTF-8" ||
    fail "invalid UTF-8: $("$EXFATWRITE" -T 0 x.img auto bad4 2>&1)"
echo "names with a colon, equal after up-casing, not UTF-8: refused, named"

# the same bytes from trees listed in other orders, through fds or the read callback or
# host paths, in other time zones and locales
rm -rf src/big src/many
orders_folder
copy_in_order src "$orders_dir/1" forward
copy_in_order src "$orders_dir/2" backward
orders_differ "$orders_dir/1" "$orders_dir/2"
TZ=UTC LC_ALL=C "$EXFATWRITE" -U -T 1700000000 -F 0 a.img auto "$orders_dir/1" || fail "exfatwrite a"
TZ=Asia/Kolkata LC_ALL=C.UTF-8 "$EXFATWRITE" -U -T 1700000000 -P b.img auto "$orders_dir/2" || fail "exfatwrite b"
cmp a.img b.img || fail "the same tree gave different bytes"
exfat_clean a.img
echo "two writes of one tree in other orders, zones and locales: the same bytes"

# fsck.exfat sees damage: a File entry's SetChecksum no longer matches its set
# the File Name entry of "planes" (C1 00, then the name in UTF-16LE), one a line of 32 bytes
n=$(xxd -p -c 32 a.img | grep -n '^c10070006c0061006e006500730000' | head -1 | cut -d: -f1)
[ -n "$n" ] || fail "no File Name entry of planes in a.img"
# its File entry is 2 entries before it; byte 8 is the File entry's CreateTimestamp
printf '\001' | dd of=a.img bs=1 seek=$(((n - 1 - 2) * 32 + 8)) conv=notrunc status=none
if fsck.exfat -n a.img >fsck.txt 2>&1; then fail "fsck.exfat misses a broken SetChecksum: $(cat fsck.txt)"; fi
grep -q "checksum of a file is wrong" fsck.txt || fail "fsck.exfat on a broken SetChecksum: $(cat fsck.txt)"
echo "a broken SetChecksum: fsck.exfat says so"
