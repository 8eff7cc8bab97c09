# SPDX-License-Identifier: MIT
# ext4 builds that used to be corrupt or crash: an archive entry with no file type is one
# line naming the layout and the entry; a device number Linux cannot hold likewise; times
# outside ext4's range clamp with a warning instead of wrapping; symbolic
# links added to a folder whose block is full (each grows it) leave e2fsck -fn clean and each
# link where it points; files of 2 GiB, 5 GiB and 17 GiB (sparse, a few data blocks far out)
# keep their size and bytes, read back through the kernel.
. "$TOP/tests/e2e/lib/ext4.sh"
need e2fsck debugfs sfdisk jq sha256sum truncate

# newc NAME MODE RDEVMAJOR RDEVMINOR DATA: one cpio newc entry on stdout
newc() {
    printf '070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%s\0' \
        1 "$2" 0 0 1 1700000000 "${#5}" 0 0 "$3" "$4" $((${#1} + 1)) 0 "$1"
    pad=$(((4 - (110 + ${#1} + 1) % 4) % 4)); head -c "$pad" /dev/zero
    printf '%s' "$5"; head -c $(((4 - ${#5} % 4) % 4)) /dev/zero
}
# cpio NAME ENTRIES: the newc archive NAME of the entries (lines "name mode major minor data")
cpio_of() {
    { while read -r n m ma mi d; do newc "$n" "$m" "$ma" "$mi" "$d"; done; newc 'TRAILER!!!' 0 0 0 ''; } >"$1"
}
layout_of() {
    printf 'image { table = gpt timestamp = 1700000000 }\npartition rootfs { type = ext4 size = %s tree "/" { from = "%s" } }\n' "$2" "$1"
}

# an entry of no file type (mode 0644 alone): refused, not taken for a hard link
printf '. %d 0 0 x\nok %d 0 0 hi\nweird %d 0 0 x\n' 16877 33188 420 | cpio_of notype.cpio
layout_of notype.cpio 8M | build_refused notype "notype.layout:2: tree '/': ./notype.cpio: 'weird' is of a type ext4 has not"

# a device number Linux cannot hold: refused naming the entry, not re-encoded as another
printf '. %d 0 0 x\nsda1 %d 8 1048576 x\n' 16877 25008 | cpio_of bigminor.cpio
layout_of bigminor.cpio 8M | build_refused bigminor "/sda1: device 8,1048576: Linux holds majors below 4096"
printf '. %d 0 0 x\nodd %d 4096 1 x\n' 16877 8612 | cpio_of bigmajor.cpio
layout_of bigmajor.cpio 8M | build_refused bigmajor "/odd: device 4096,1"

# times ext4 cannot hold clamp to its range with a warning naming the entry (1900, 2500;
# with inode-size = 128, 2040), where they used to wrap; 2400 is kept, in the epoch bits
mkdir when
echo a >when/f
for y in 1900 2400 2500 2040; do
    tar --format=pax --mtime="$y-01-01 00:00:00 UTC" -C when -cf "$y.tar" f
    isize=; [ $y != 2040 ] || isize='ext4 { inode-size = 128 }'
    printf 'image { table = gpt timestamp = 1700000000 mtime = source }\npartition rootfs { type = ext4 size = 8M tree "/y%s" { from = "%s.tar" } %s }\n' \
        $y $y "$isize" >"t$y.layout"
    expect_status 0 "$SDIMG" build -q "t$y.layout" -o "t$y.img"
    ext4_clean "t$y.img" 1 p.img
    debugfs -R "stat /y$y/f" p.img 2>/dev/null | grep 'mtime:' >"mtime$y"
    cp err.txt "err$y.txt"
done
[ ! -s err2400.txt ] || fail "a warning for 2400: $(cat err2400.txt)"
cp err1900.txt err.txt
expect_stderr "/y1900/f: its time (-2208988800 s from 1970) is outside what ext4 holds"
grep -q 'mtime: 0x80000000:00000000 -- Fri Dec 13 20:45:52 1901' mtime1900 || fail "1900 is not 1901-12-13: $(cat mtime1900)"
grep -q 'mtime: 0x28cd9d00:00000003 -- Sat Jan  1 00:00:00 2400' mtime2400 || fail "2400 is not kept: $(cat mtime2400)"
grep -q 'mtime: 0x7fffffff:00000003 -- Thu May 10 22:38:55 2446' mtime2500 || fail "2500 is not 2446-05-10: $(cat mtime2500)"
grep -q 'mtime: 0x7fffffff -- Tue Jan 19 03:14:07 2038' mtime2040 || fail "2040 with 128-byte inodes is not 2038-01-19: $(cat mtime2040)"
cp err2040.txt err.txt
expect_stderr "/y2040/f: its time (2208988800 s from 1970) is past 2038-01-19, the last an inode of 128 bytes holds"

# 300 symbolic links (fast and slow) and 300 files in one folder of a small volume: the folder
# grows while links are added; each link keeps its own inode and target
mkdir -p links/d
i=1
while [ $i -le 300 ]; do
    ln -s "target-$i" "links/d/link-$i"
    ln -s "$(printf '%080d' $i)" "links/d/slow-$i"
    echo "$i" >"links/d/file-$i"
    i=$((i + 1))
done
layout_of links 16M >links.layout
expect_status 0 "$SDIMG" build -q links.layout -o links.img
ext4_clean links.img 1 p.img
for i in 1 150 299 300; do
    debugfs -R "stat /d/link-$i" p.img 2>/dev/null | grep -q "Fast link dest: \"target-$i\"" ||
        fail "/d/link-$i does not point at target-$i"
    debugfs -R "cat /d/file-$i" p.img 2>/dev/null | grep -qx "$i" || fail "/d/file-$i lost its bytes"
done

# files of 2 GiB and more: sparse, with data at far offsets (past 2^31, 2^32, 2^34)
mkdir big
truncate -s 2G big/two
truncate -s 5G big/five
truncate -s 17G big/seventeen
put() { printf 'bytes at %s of %s' "$2" "$1" | dd of="big/$1" bs=1 seek="$2" conv=notrunc status=none; }
put two 0; put two 2147483000
put five 1234567; put five 3000000000; put five 4294967296; put five 5368700000
put seventeen 4096; put seventeen 8589934592; put seventeen 17179869184; put seventeen 18253600000
layout_of big 64M >big.layout
expect_status 0 "$SDIMG" build -q big.layout -o big.img
ext4_clean big.img 1 p.img
# windows FILE: the sizes and the 64 KiB at each place written, as sha256 (a whole read of
# 24 GiB of holes would take minutes)
windows() {
    for f in two five seventeen; do
        stat -c "$f %s" "$1/$f"
        for o in 0 1234567 2147483000 3000000000 4294967296 5368700000 8589934592 17179869184 18253600000; do
            dd if="$1/$f" bs=64K iflag=skip_bytes skip=$o count=1 status=none | sha256sum
        done
    done
}
windows big >want.txt
ext4_mount big.img 1
windows mnt >got.txt
ext4_unmount
cmp -s want.txt got.txt || { diff want.txt got.txt >&2; fail "the big files read back through the kernel differ"; }
