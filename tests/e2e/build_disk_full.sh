#!/bin/sh
# SPDX-License-Identifier: MIT
# A disk that fills up during a build: the one line says "No space left on device" and names
# the image (not a stale cause of an earlier fallback, such as copy_file_range's
# "Invalid cross-device link"), for a raw region copied from another file system
# (read/write), from the same one (copy_file_range), and for a FAT partition's file; nothing
# is left on the full file system and an older image there is untouched. The full file
# system is an 8 MiB tmpfs: mounted directly as root, else in a user and mount namespace.
. "$TOP/tests/e2e-lib.sh"
need sha256sum

mkdir -p small
if mount -t tmpfs -o size=8M sdimg-full small 2>/dev/null; then
    trap 'umount small 2>/dev/null || umount -l small 2>/dev/null || true' EXIT
elif [ -z "${SDIMG_E2E_NAMESPACE:-}" ] && command -v unshare >/dev/null &&
    unshare -rm true 2>/dev/null; then
    SDIMG_E2E_NAMESPACE=1 exec unshare -rm sh "$0"
else
    echo "no tmpfs can be mounted here (not root, no user namespaces)"
    exit 77
fi

head -c $((30 * 1048576)) /dev/urandom >raw30.bin
head -c $((3 * 1048576)) /dev/urandom >small/raw3.bin
echo "an older image" >small/card.img
old=$(sha256sum <small/card.img)

# only_old: small/ holds its input and the older image, byte for byte
only_old() {
    [ "$(ls -A small | sort | tr '\n' ' ')" = "card.img raw3.bin " ] ||
        fail "$1: left in small/: $(ls -A small | tr '\n' ' ')"
    [ "$(sha256sum <small/card.img)" = "$old" ] || fail "$1: the older image changed"
}

# a raw region from another file system: copy_file_range refuses, read/write fills the disk
printf 'image { size = 64M }\nraw big { offset = 1M from = "raw30.bin" }\n' >raw.layout
expect_status 1 "$SDIMG" build -q -o small/card.img raw.layout
expect_stderr "small/card.img: writing ./raw30.bin into it: No space left on device"
only_old "a raw region from another file system"
echo "a raw region from another file system: one line naming the image and ENOSPC"

# a raw region from the same file system: copy_file_range itself fills it
printf 'image { size = 64M }\nraw a { offset = 1M from = "small/raw3.bin" }\nraw b { offset = 5M from = "small/raw3.bin" }\nraw c { offset = 9M from = "small/raw3.bin" }\n' >same.layout
expect_status 1 "$SDIMG" build -q -o small/card.img same.layout
expect_stderr "small/card.img: writing ./small/raw3.bin into it: No space left on device"
only_old "raw regions from the same file system"
echo "raw regions from the same file system: one line naming the image and ENOSPC"

# a FAT partition's file
mkdir -p tree
cp raw30.bin tree/big.bin
printf 'image { size = 64M }\npartition boot { type = fat size = 48M tree "/" { from = "tree" } }\n' >fat.layout
expect_status 1 "$SDIMG" build -q -o small/card.img fat.layout
expect_stderr "small/card.img: writing the FAT volume at byte"
grep -q "No space left on device" err.txt || fail "the FAT partition's message lacks ENOSPC: $(cat err.txt)"
only_old "a FAT partition"
echo "a FAT partition's file: one line naming the image and ENOSPC"
