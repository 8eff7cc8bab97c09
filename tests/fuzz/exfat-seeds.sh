#!/bin/sh
# SPDX-License-Identifier: MIT
# Writes the seeds of the exFAT fuzzer (tests/fuzz/fuzz_exfat.c) into tests/fuzz/corpus/exfat/:
# empty volumes of mkfs.exfat (exfatprogs) with a label, with 512-byte and 32 KiB clusters
# and with the bitmap packed into the FAT's alignment gap, and a volume sdimg's writer filled,
# packed (tests/tools/fuzz_pack) to their sectors that are not zeros. With root, exfat-fuse
# and a free loop device it adds a volume that exfat-fuse filled (folders three deep, 40
# files in one folder of 512-byte clusters, so that it spans several, a name of 200
# characters, a name beyond the BMP, an empty file and a file whose clusters are not
# contiguous). Run from the top of the tree after `make build/tests/tools/fuzz_pack
# build/tests/tools/exfatwrite`; all but the exfat-fuse seed come out the same on every run
# (mkfs.exfat's serial, which it draws from the clock, is set here).
set -eu
PACK=${PACK:-build/tests/tools/fuzz_pack}
OUT=${OUT:-tests/fuzz/corpus/exfat}
PATH=$PATH:/sbin:/usr/sbin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$OUT"

# NAME SIZE MKFS-OPTIONS: a packed seed of a fresh volume
volume() {
	truncate -s "$2" "$tmp/$1.img"
	# shellcheck disable=SC2086 # the options are words
	mkfs.exfat -q $3 "$tmp/$1.img" >/dev/null 2>&1 || mkfs.exfat $3 "$tmp/$1.img" >/dev/null
	# the serial mkfs.exfat draws from the clock, fixed (tune.exfat sets the checksum too)
	tune.exfat -I 0x12345678 "$tmp/$1.img" >/dev/null
	"$PACK" "$tmp/$1.img" >"$OUT/seed-$1-packed"
}

volume label 4M '-L SEED'
volume c512 4M '-c 512 -L small'
volume c32k 8M '-c 32K'
volume packed-bitmap 4M '--pack-bitmap -L PB'

# a 1 MiB volume sdimg's writer made (tests/tools/exfatwrite): folders four deep, one of 20
# files over several 512-byte clusters, an empty file, one of three clusters, a name beyond
# the BMP
EXFATWRITE=${EXFATWRITE:-build/tests/tools/exfatwrite}
mkdir -p "$tmp/t/a/b/c"
printf hi >"$tmp/t/a/hi.txt"
printf deep >"$tmp/t/a/b/c/deep"
: >"$tmp/t/empty"
head -c 1500 /dev/zero | tr '\0' q >"$tmp/t/three-clusters"
printf u >"$tmp/t/$(printf '\303\274\360\237\230\200')"
for i in $(seq 1 20); do echo "$i" >"$tmp/t/a/b/f$i"; done
"$EXFATWRITE" -c 512 -l SEED -i 0x12345678 -T 1700000000 "$tmp/written.img" 1048576 "$tmp/t"
"$PACK" "$tmp/written.img" >"$OUT/seed-written-packed"

if [ "$(id -u)" = 0 ] && command -v mount.exfat-fuse >/dev/null &&
	dev=$(losetup -f --show "$tmp/c512.img" 2>/dev/null); then
	m=$tmp/mnt
	mkdir "$m"
	trap 'umount "$m" 2>/dev/null || :; losetup -d "$dev" || :; rm -rf "$tmp"' EXIT INT TERM
	if mount.exfat-fuse "$dev" "$m" >/dev/null 2>&1; then
		mkdir -p "$m/d1/d2/d3"
		echo hello >"$m/readme.txt"
		: >"$m/empty"
		echo deep >"$m/d1/d2/d3/deep.txt"
		for i in $(seq 1 40); do echo "$i" >"$m/d1/file$i.txt"; done
		echo long >"$m/$(printf '%0200d' 0 | tr 0 L)"
		printf 'x' >"$m/$(printf '\360\237\230\200') emoji.txt"
		head -c 600 /dev/zero | tr '\0' a >"$m/frag1"
		head -c 600 /dev/zero | tr '\0' b >"$m/frag2"
		head -c 900 /dev/zero | tr '\0' c >>"$m/frag1"
		umount "$m"
		"$PACK" "$tmp/c512.img" >"$OUT/seed-fuse-filled-packed"
	fi
fi

# the image fuzzer (tests/fuzz/fuzz_image.c) takes a bare exFAT volume through the probe
cp "$OUT/seed-label-packed" "${OUT%/exfat}/image/seed-exfat-bare-packed"
