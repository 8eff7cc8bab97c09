#!/bin/sh
# SPDX-License-Identifier: MIT
# Reading damaged images: a cluster chain that loops back, a directory entry larger than the
# whole data area, a damaged boot sector, a partition of 0 bytes, a folder whose chain breaks.
# Each is one clear line naming the image (and the file), never a stream of repeated clusters
# or a wrapped number.
. "$TOP/tests/e2e-lib.sh"
need jq

head -c 20000 /dev/urandom >f.bin
cat >l.layout <<'L'
image { table = mbr  align = 1M }
partition boot {
    type = fat16  size = 16M
    fat { cluster-size = 2K  fats = 1 }
    file "/f.bin" { from = "f.bin" }
}
L
"$SDIMG" build -o c.img l.layout >/dev/null
"$SDIMG" cat c.img:1/f.bin >back.bin
cmp f.bin back.bin || fail "cat of the intact file differs"

# f.bin takes clusters 2..11 (20000 bytes, 2K clusters): make cluster 6 point back to 3
vol=$((1024 * 1024))
fat=$((vol + $(le c.img $((vol + 14)) 2) * 512))
[ "$(le c.img $((fat + 2 * 2)) 2)" -eq 3 ] || fail "f.bin does not start at cluster 2"
printf '\003\000' | dd of=c.img bs=1 seek=$((fat + 6 * 2)) conv=notrunc status=none
expect_status 1 timeout 20 "$SDIMG" cat c.img:1/f.bin
expect_stderr "f.bin: cluster chain loops back to cluster 3 after 10240 of 20000 bytes"

# a size of 4 GiB - 1 in a volume of 16 MiB (the entry of F.BIN is the root's first)
printf '\001\000' | dd of=c.img bs=1 seek=$((fat + 6 * 2)) conv=notrunc status=none
root=$((fat + $(le c.img $((vol + 22)) 2) * 512))
[ "$(le c.img $((root + 28)) 4)" -eq 20000 ] || fail "no 20000-byte entry at the root's start"
printf '\377\377\377\377' | dd of=c.img bs=1 seek=$((root + 28)) conv=notrunc status=none
expect_status 1 timeout 20 "$SDIMG" cat c.img:1/f.bin
expect_stderr "is larger than the volume's data area"
[ ! -s out.txt ] || fail "cat wrote $(wc -c <out.txt) bytes of a file it refused"

# a damaged boot sector: ls and cat name the image and the partition before fat/'s words
"$SDIMG" build -o d.img l.layout >/dev/null
printf '\000\000' | dd of=d.img bs=1 seek=$((vol + 11)) conv=notrunc status=none
expect_status 1 "$SDIMG" ls d.img:1
expect_stderr "sdimg: d.img:1: bytes per sector 0: must be 512"
expect_status 1 "$SDIMG" cat d.img:1/f.bin
expect_stderr "sdimg: d.img:1: bytes per sector 0: must be 512"

# a partition of 0 bytes: no last byte (not START - 1, nor 2^64 - 1 at start 0), no content
"$SDIMG" build -o z.img l.layout >/dev/null
printf '\000\000\000\000' | dd of=z.img bs=1 seek=$((446 + 12)) conv=notrunc status=none
"$SDIMG" inspect z.img >z.txt || true
grep -Eq '^1 +1048576 +- +0 B ' z.txt || fail "inspect of a 0-byte partition: $(cat z.txt)"
"$SDIMG" inspect --json z.img >z.json || true
[ "$(jq -c '.partitions[0] | [.start, .end, .size]' z.json)" = "[1048576,null,0]" ] ||
    fail "inspect --json of a 0-byte partition: $(jq -c '.partitions[0]' z.json)"

# a folder whose entry names its parent's cluster: ls -R and inspect stop at once, ls -R with
# one line naming the folder (not 64 levels of the same names, then "nested too deeply")
mkdir -p t/a/b && echo x >t/a/f.txt
printf 'image { table = none }\npartition p { type = fat16 size = 16M fat { cluster-size = 2K } tree "/" { from = "t" } }\n' >t.layout
"$SDIMG" build -q -o t.img t.layout
data=$(data_start t.img 0)
# /a is cluster 2; in it ".", "..", then B (cluster 3) and F.TXT
[ "$(le t.img $((data + 64 + 26)) 2)" -eq 3 ] || fail "/a/b is not the third entry of cluster 2"
printf '\002\000' | dd of=t.img bs=1 seek=$((data + 64 + 26)) conv=notrunc status=none
expect_status 1 "$SDIMG" ls -R t.img
expect_stderr "sdimg: t.img:/a/b: its cluster 2 is also another folder's, or its own"
[ "$(wc -l <out.txt)" -le 8 ] || fail "ls -R of a looping tree printed $(wc -l <out.txt) lines"
"$SDIMG" inspect t.img >t.txt || fail "inspect of a looping tree: $(cat t.txt)"
! grep -qE "files? in" t.txt || fail "inspect counts a looping tree: $(grep -E "files? in" t.txt)"

# a folder of two clusters whose first links to a free cluster: ls and cat name the folder
# (and the file looked up), not "IMAGE:: a directory's ..."
mkdir -p w/a && for i in $(seq 70); do : >w/a/f$i; done
printf 'image { table = none }\npartition p { type = fat16 size = 16M fat { cluster-size = 2K } tree "/" { from = "w" } }\n' >w.layout
"$SDIMG" build -q -o w.img w.layout
"$SDIMG" ls w.img:/a >/dev/null || fail "ls of the intact folder"
fat=$(($(le w.img 14 2) * 512))
# /a is cluster 2, its 72 entries in two clusters of 64
[ "$(le w.img $((fat + 2 * 2)) 2)" -eq 3 ] || fail "/a does not go on from cluster 2 to 3"
printf '\000\000' | dd of=w.img bs=1 seek=$((fat + 2 * 2)) conv=notrunc status=none
expect_status 1 "$SDIMG" ls w.img:/a
expect_stderr "sdimg: w.img:/a: a directory's cluster chain leads to cluster 0, outside 2.."
expect_status 1 "$SDIMG" cat w.img:/a/f70
expect_stderr "sdimg: w.img:/a/f70: a directory's cluster chain leads to cluster 0, outside 2.."
