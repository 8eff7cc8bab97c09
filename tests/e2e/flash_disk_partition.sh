#!/bin/sh
# SPDX-License-Identifier: MIT
# sdimg flash refuses a disk and one of its own partitions in one run (a loop device with a
# partition table, losetup -P): both are refused at the check stage, each naming the other,
# in --dry-run as in a run, in either order, and a later partition of that disk too;
# nothing is written. Two partitions of one disk, without the disk, are written.
. "$TOP/tests/e2e/lib/flash.sh"
need jq sfdisk partx sha256sum
need_loops
flash_trap
small_image

echo "== a disk and its own partition"
truncate -s 64M disk.bin
printf 'label: dos\nstart=2048, size=32M\nsize=16M\n' | sfdisk -q disk.bin >sfdisk.out 2>&1 ||
    fail "sfdisk: $(cat sfdisk.out)"
disk=$(loop_attach disk.bin -P)
p1=${disk}p1 p2=${disk}p2
# a kernel without the MBR reader makes no partitions of its own: partx adds them (BLKPG)
wait_for 2 test -b "$p2" || partx -a "$disk" 2>partx.err || fail "partx -a $disk: $(cat partx.err)"
wait_for 10 test -b "$p2" || fail "no $p1 and $p2 after losetup -P and partx -a"
before=$(sha256sum <disk.bin)

# refused_pair REPORT DISK PART: both refused at check, each naming the other
refused_pair() {
    expect_refused "$1" "$2" "$3, one of its partitions, is also a target: a disk and its own partition are not written in one run"
    expect_refused "$1" "$3" "a partition of $2, also a target"
    [ "$(tj "$1" "$2" stage)" = check ] && [ "$(tj "$1" "$3" stage)" = check ] ||
        fail "refused at $(tj "$1" "$2" stage) and $(tj "$1" "$3" stage), not check"
}

expect_status 1 "$SDIMG" flash small.img "$disk" "$p1" --allow-fixed --dry-run --json
cp out.txt report.json
refused_pair report.json "$disk" "$p1"
expect_status 1 "$SDIMG" flash small.img "$p1" "$disk" --allow-fixed --dry-run
grep -qF "$p1: refused: a partition of $disk, also a target" out.txt &&
    grep -qF "$disk: refused: $p1, one of its partitions, is also a target" out.txt ||
    fail "--dry-run, the partition first: $(cat out.txt)"
echo "--dry-run: $(grep -F "$disk:" out.txt)"

expect_status 1 "$SDIMG" flash small.img "$disk" "$p1" "$p2" --allow-fixed --json
cp out.txt report.json
refused_pair report.json "$disk" "$p1"
expect_refused report.json "$p2" "a partition of $disk, also a target"
grep -q "held by another program" report.json && fail "a target failed as held: $(cat report.json)"
[ "$(sha256sum <disk.bin)" = "$before" ] || fail "a refused disk or partition was written"
echo "a run: the disk and its partitions refused, nothing written"

expect_status 0 "$SDIMG" flash small.img "$p1" "$p2" --allow-fixed --json
cp out.txt report.json
expect_pass report.json "$p1" $MiB
expect_pass report.json "$p2" $MiB
holds_small "$p1" && holds_small "$p2" || fail "the partitions do not hold the image"
echo "two partitions of one disk, without the disk: both written"
