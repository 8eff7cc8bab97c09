#!/bin/sh
# SPDX-License-Identifier: MIT
# What sdimg flash refuses, with nothing written: every target's bytes are the same after.
# In one run with --allow-fixed, beside a good loop device (which passes): a loop device
# with an ext4 mounted (read-only), a loop device in use as swap, a regular file, a /dev path that does
# not exist (nothing is created there), a loop device smaller than the image, a read-only
# loop device; with -q each refusal is one line on stderr. Then a loop
# device without --allow-fixed; a damaged bmap (its own checksum wrong), an image byte that
# does not match its range's checksum and a range checksum changed in a resealed bmap: each
# stops the run before any card is touched, exit 1, one line on stderr. And the disk that
# holds / with --dry-run only (never written: --dry-run, and no --allow-fixed either).
. "$TOP/tests/e2e/lib/flash.sh"
need jq sha256sum mkfs.ext4 mount umount findmnt mountpoint
need_loops
flash_trap

mkdir -p tree/sub
head -c 300000 /dev/urandom >tree/kernel.img
printf 'hello\n' >tree/sub/hello.txt
printf 'image { size = 16M table = mbr seed = "refuse" }\npartition boot { type = fat16 size = 12M tree "/" { from = "tree" } }\n' >card.layout
build_card card.layout card.img

# sums NAME...: "NAME SHA256" of each target (read through the device where it is one)
sums() {
    sync
    for t in "$@"; do
        if [ -e "$t" ]; then echo "$t $(sha256sum <"$t" | cut -d' ' -f1)"; else echo "$t absent"; fi
    done
}

good=$(ee_loop good "$size")
fill_ee file.bin "$size"
small=$(ee_loop small $((4 * MiB)))
fill_ee ro.bin "$size"
ro=$(loop_attach ro.bin -r)
missing=/dev/sdimg-test-missing-$$
[ ! -e "$missing" ] || fail "$missing exists"

truncate -s 32M mounted.bin
mounted=$(loop_attach mounted.bin)
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$mounted" >mkfs.out 2>&1 || fail "mkfs.ext4: $(cat mkfs.out)"
mkdir mnt
# read-only: a file system mounted read-write writes by itself now and then (its journal),
# and the check below is that not one byte of the target changes
mount -o ro "$mounted" mnt 2>mount.err || fail "mount $mounted: $(cat mount.err)"
echo "$PWD/mnt" >>mounts.txt
swap=
if command -v mkswap >/dev/null && command -v swapon >/dev/null && [ -r /proc/swaps ]; then
    truncate -s 32M swap.bin
    swap=$(loop_attach swap.bin)
    mkswap "$swap" >/dev/null 2>&1 || fail "mkswap $swap"
    if swapon "$swap" 2>swapon.err; then
        echo "$swap" >>swaps.txt
    else
        echo "SKIPPED PART: swapon $swap: $(cat swapon.err)"
        loop_detach "$swap"
        swap=
    fi
fi

targets="$good file.bin $missing $small $ro $mounted $swap"
sums $targets >before.txt
expect_status 1 "$SDIMG" flash card.img $targets --allow-fixed --json
cp out.txt report.json
sums $targets >after.txt
expect_pass report.json "$good" "$mapped"
check_ranges "$good" card.img card.img.bmap
expect_refused report.json file.bin "not a block device"
expect_refused report.json "$missing" "No such file or directory (nothing is created there)"
[ ! -e "$missing" ] || fail "$missing was created"
expect_refused report.json "$small" "is too small: it holds 4 MiB (4194304 bytes), the image needs 16 MiB ($size bytes)"
expect_refused report.json "$mounted" "is mounted at $PWD/mnt (unmount it first)"
[ -z "$swap" ] || expect_refused report.json "$swap" "is in use as swap (swapoff it first)"
expect_refused report.json "$ro" "$(basename "$ro") is read-only (a card's lock switch, or the kernel's ro flag)"
grep -v "^$good " before.txt >b.txt
grep -v "^$good " after.txt >a.txt
cmp -s b.txt a.txt || fail "a refused target changed: $(diff b.txt a.txt)"
echo "refused and untouched: a file, a missing path, a small loop, a read-only loop, a mounted loop${swap:+, a swap loop}; the good one passed"

# quiet: nothing on stdout, one error line on stderr for each refused target
expect_status 1 "$SDIMG" flash card.img $targets --allow-fixed -q
sums $targets >after.txt
grep -v "^$good " after.txt >a.txt
cmp -s b.txt a.txt || fail "-q: a refused target changed: $(diff b.txt a.txt)"
[ ! -s out.txt ] || fail "-q: output on stdout: $(cat out.txt)"
set -- $targets
[ "$(wc -l <err.txt)" -eq $(($# - 1)) ] || fail "-q: not one line for each refused target: $(cat err.txt)"
for t in file.bin $missing $small $ro $mounted $swap; do
    grep -q "^sdimg: $t: refused: $(tj report.json "$t" error)\$" err.txt || fail "-q: no line for $t: $(cat err.txt)"
done
echo "-q: one line for each refused target"

# without --allow-fixed a loop device is refused, and says how to write it anyway
fill_ee good.bin "$size"
sums "$good" >before.txt
expect_status 1 "$SDIMG" flash card.img "$good" --json
cp out.txt report.json
expect_refused report.json "$good" "is a loop device (over $PWD/good.bin), not a card; --allow-fixed writes it anyway"
sums "$good" | cmp -s before.txt - || fail "$good was written without --allow-fixed"
echo "refused and untouched: a loop device without --allow-fixed"

# a damaged bmap, a damaged image, a damaged range checksum: nothing starts
reseal() { # reseal BMAP: its BmapFileChecksum made right again (bmaptool's rule)
    zeros=0000000000000000000000000000000000000000000000000000000000000000
    sed -i "s|<BmapFileChecksum> *[0-9a-f]* *</BmapFileChecksum>|<BmapFileChecksum> $zeros </BmapFileChecksum>|" "$1"
    sum=$(sha256sum <"$1" | cut -d' ' -f1)
    sed -i "s|$zeros|$sum|" "$1"
}
set -- $(bmap_ranges card.img.bmap | head -1)
first_sum=$3
cp card.img.bmap damaged.bmap
sed -i "s/$first_sum/$(echo "$first_sum" | tr '0-9a-f' '1-9a-f0')/" damaged.bmap
cp damaged.bmap resealed.bmap
reseal resealed.bmap
cp card.img damaged.img
printf '\001' | dd of=damaged.img bs=1 seek=446 conv=notrunc status=none
sums "$good" >before.txt
expect_status 1 "$SDIMG" flash card.img "$good" --bmap damaged.bmap --allow-fixed
expect_stderr "damaged.bmap: the block map's own checksum (BmapFileChecksum) does not match: the file is damaged"
expect_status 1 "$SDIMG" flash damaged.img "$good" --bmap card.img.bmap --allow-fixed
expect_stderr "damaged.img: bytes 0-4095 do not match their checksum in card.img.bmap: the image or its bmap is damaged; no card was touched"
expect_status 1 "$SDIMG" flash card.img "$good" --bmap resealed.bmap --allow-fixed
expect_stderr "card.img: bytes 0-4095 do not match their checksum in resealed.bmap: the image or its bmap is damaged; no card was touched"
[ ! -s out.txt ] || fail "output on stdout with a damaged bmap: $(cat out.txt)"
sums "$good" | cmp -s before.txt - || fail "$good was written from a damaged image or bmap"
echo "nothing written: a damaged bmap, a damaged image, a resealed bmap with a wrong range checksum"

# a report that cannot be written is told before any card is touched
expect_status 1 "$SDIMG" flash card.img "$good" --allow-fixed --report nosuchdir/report.json
expect_stderr "nosuchdir/report.json: the report cannot be written there: No such file or directory"
sums "$good" | cmp -s before.txt - || fail "$good was written although the report cannot be"

# the disk of /: --dry-run only, and without --allow-fixed
majmin=$(mountpoint -d / 2>/dev/null || true)
sysdir=$(readlink -f "/sys/dev/block/$majmin" 2>/dev/null || true)
if [ -n "$majmin" ] && [ -n "$sysdir" ] && [ -d "$sysdir" ]; then
    [ -e "$sysdir/partition" ] && sysdir=$(dirname "$sysdir")
    root=/dev/$(basename "$sysdir")
fi
if [ -n "${root:-}" ] && [ -b "$root" ]; then
    echo "the disk of / ($(findmnt -no SOURCE /), $majmin): $root"
    expect_status 1 "$SDIMG" flash --dry-run card.img "$root" "$good"
    grep -q "^$root: refused: $(basename "$root") holds the running system: / is on" out.txt ||
        fail "the disk of / is not refused as such: $(cat out.txt)"
    grep -qF "$good: refused: " out.txt || fail "the loop device is not refused without --allow-fixed: $(cat out.txt)"
    expect_status 0 "$SDIMG" flash --dry-run card.img "$good" --allow-fixed
    grep -qxF "$good: would write $mapped bytes and read them back: $(basename "$good") is a loop device (over $PWD/good.bin), not a card; written as --allow-fixed asks" out.txt ||
        fail "dry run: $(cat out.txt)"
    expect_status 1 "$SDIMG" flash --dry-run --json card.img "$root" "$good" --allow-fixed
    [ "$(jq -c '[.dry_run, [.targets[] | .result]]' out.txt)" = '[true,["refused","accepted"]]' ] ||
        fail "dry run as JSON: $(cat out.txt)"
    sums "$good" | cmp -s before.txt - || fail "$good was written by a dry run"
    echo "dry run: the disk of / is refused, the loop device with --allow-fixed would be written; nothing written"
else
    echo "SKIPPED PART: / is on no block device here ($(findmnt -no SOURCE /)): the refusal of its disk was not run"
fi
exit 0
