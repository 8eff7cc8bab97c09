#!/bin/sh
# SPDX-License-Identifier: MIT
# Reading cut images and tables that point outside the image: an ext4 file past the end of a
# cut image is one line saying the image is cut (never zeros, never exit 0), ext4's messages
# name the image once, a partition outside the image or of 0 bytes says so with its numbers,
# one past the end gets a warning after what could be read, two GPT partitions of one name
# are refused.
. "$TOP/tests/e2e-lib.sh"
need jq sfdisk sgdisk debugfs python3

head -c 100000 /dev/urandom >big.bin
printf 'h\n' >hostname
cat >l.layout <<'L'
image { table = mbr  align = 1M }
partition boot { type = fat16  size = 8M  file "/a.txt" { content = "a" } }
partition root {
    type = ext4  size = 8M
    file "/big" { from = "big.bin" }
    file "/etc/hostname" { from = "hostname" }
}
L
"$SDIMG" build -q -o c.img l.layout
"$SDIMG" cat c.img:2/big >back.bin
cmp big.bin back.bin || fail "cat of the intact file differs"
p2=$(part_start c.img 2)
end2=$((p2 + $(part_size c.img 2)))
dd if=c.img of=p2.img bs=1M skip=$((p2 / 1048576)) count=8 status=none
first=$(debugfs -R "blocks /big" p2.img 2>/dev/null | awk '{ print $1 }')
hostblk=$(debugfs -R "blocks /etc/hostname" p2.img 2>/dev/null | awk '{ print $1 }')
[ "${first:-0}" -gt 0 ] && [ "${hostblk:-0}" -gt 0 ] || fail "no blocks of /big or /etc/hostname"

# cut before /big's first block (and /etc/hostname's): no byte of them is there
cut=$((p2 + (first < hostblk ? first : hostblk) * 4096))
head -c "$cut" c.img >cut.img
expect_status 1 "$SDIMG" cat cut.img:2/big
expect_stderr "sdimg: cut.img:2/big: the image ends at byte $cut, the partition claims bytes up to $end2: the image is cut short"
[ ! -s out.txt ] || fail "cat of a file past the cut wrote $(wc -c <out.txt) bytes"
expect_status 1 "$SDIMG" cat cut.img:2/etc/hostname
expect_stderr "cut.img:2/etc/hostname: the image ends at byte $cut"
# what is still there is listed, with a word that the partition runs past the end
expect_status 0 "$SDIMG" ls -l cut.img:2/
grep -q ' 100000 .* big$' out.txt || fail "ls of the cut image: $(cat out.txt)"
expect_stderr "sdimg: warning: cut.img: partition 2 ends at byte $end2, past the end of the image ($cut bytes)"

# cut 12K into the ext4 partition: the inode table is gone (not "/: not a folder")
head -c $((p2 + 12288)) c.img >cut12k.img
expect_status 1 "$SDIMG" ls cut12k.img:2/
expect_stderr "sdimg: cut12k.img:2/: the image ends at byte $((p2 + 12288)), the partition claims"
# cut inside the first block: the group descriptors are gone; the image is named once
head -c $((p2 + 2048)) c.img >cut2k.img
expect_status 1 "$SDIMG" ls cut2k.img:2
expect_stderr "sdimg: cut2k.img:2: opening the ext4 file system: the image ends at byte $((p2 + 2048))"

# a bare ext4 volume cut short: "IMAGE:/PATH: ..." (not "IMAGE:: IMAGE: ext4: ... seek")
printf 'image { table = none }\npartition p { type = ext4 size = 8M file "/big" { from = "big.bin" } }\n' >e.layout
"$SDIMG" build -q -o e.img e.layout
first=$(debugfs -R "blocks /big" e.img 2>/dev/null | awk '{ print $1 }')
head -c $((first * 4096)) e.img >ecut.img
expect_status 1 "$SDIMG" cat ecut.img:/big
expect_stderr "sdimg: ecut.img:/big: the image ends at byte $((first * 4096)), the file system claims bytes up to 8388608: the image is cut short"
"$SDIMG" inspect ecut.img >i.txt || true
grep -q "beyond-end .*the ext volume claims 8388608 bytes but only $((first * 4096)) are there" i.txt ||
    fail "inspect of a cut bare ext4 volume: $(cat i.txt)"

# MBR entries outside the image: start 0xFFFFFF00, size 0xFFFFFFFF
cp c.img far.img
printf '\000\377\377\377' | dd of=far.img bs=1 seek=$((446 + 8)) conv=notrunc status=none
expect_status 1 "$SDIMG" ls far.img:1
expect_stderr "sdimg: far.img: partition 1 lies outside the image: it starts at byte $((0xFFFFFF00 * 512)), the image has $(wc -c <c.img) bytes"
cp c.img huge.img
printf '\377\377\377\377' | dd of=huge.img bs=1 seek=$((446 + 12)) conv=notrunc status=none
expect_status 0 "$SDIMG" cat huge.img:1/a.txt
[ "$(cat out.txt)" = a ] || fail "cat from a partition past the end: $(cat out.txt)"
expect_stderr "sdimg: warning: huge.img: partition 1 ends at byte $(($(part_start c.img 1) + 0xFFFFFFFF * 512)), past the end of the image"

# GPT entries: first LBA 10^12, first after last, two of one name
sed 's/table = mbr/table = gpt/' l.layout >g.layout
"$SDIMG" build -q -o g.img g.layout
gpt_entry() { # gpt_entry IMG OUT PYTHON: PYTHON changes entry bytes e (bytearray), CRCs redone
    python3 - "$1" "$2" "$3" <<'PY'
import struct, sys, zlib
d = bytearray(open(sys.argv[1], "rb").read())
lba, n, size = struct.unpack_from("<QII", d, 512 + 72)
e = memoryview(d)[lba * 512:lba * 512 + n * size]
exec(sys.argv[3])
struct.pack_into("<I", d, 512 + 88, zlib.crc32(bytes(e)))
struct.pack_into("<I", d, 512 + 16, 0)
struct.pack_into("<I", d, 512 + 16, zlib.crc32(bytes(d[512:512 + struct.unpack_from("<I", d, 512 + 12)[0]])))
open(sys.argv[2], "wb").write(d)
PY
}
gpt_entry g.img gfar.img 'struct.pack_into("<QQ", e, 32, 10**12, 10**12 + 100)'
expect_status 1 "$SDIMG" ls gfar.img:1
expect_stderr "sdimg: gfar.img: partition 1 lies outside the image: it starts at byte $((1000000000000 * 512))"
gpt_entry g.img ginv.img 'f, l = struct.unpack_from("<QQ", e, 32); struct.pack_into("<QQ", e, 32, l, f)'
expect_status 1 "$SDIMG" ls ginv.img:1
expect_stderr "sdimg: ginv.img: partition 1 is 0 bytes long"
cp g.img same.img
sgdisk -c 2:boot same.img >/dev/null
expect_status 1 "$SDIMG" ls same.img:boot
expect_stderr "sdimg: same.img: partitions 1 and 2 are both named 'boot': name one by its number"
expect_status 0 "$SDIMG" cat same.img:2/etc/hostname
