# SPDX-License-Identifier: MIT
# examples/buildroot: the post-image helper (support/scripts/sdimg.sh) run by the Raspberry
# Pi 4 board's post-image script in a fake Buildroot output tree (output/images, target,
# host, build, .config; generated inputs) writes images/sdcard.img and its bmap, which
# sfdisk, fsck.fat and mtools accept holding what Buildroot's own Raspberry Pi post-image
# puts there (every *.dtb, all of rpi-firmware/, the kernel config.txt names);
# SOURCE_DATE_EPOCH is passed through as Buildroot exports it, TZ is UTC, --set and -o
# reach sdimg, several layouts build in one call, --no-bmap writes no block map, sdimg is
# found on PATH without HOST_DIR, and usage errors are one line.
. "$TOP/tests/e2e-lib.sh"
need bash sfdisk fsck.fat mdir mcopy mke2fs jq

BR=$TOP/examples/buildroot
brout=$PWD/output
mkdir -p "$brout/images/rpi-firmware/overlays" "$brout/target/etc" "$brout/host/bin" "$brout/build"
ln -s "$SDIMG" "$brout/host/bin/sdimg"
cd "$brout/images"
yes 'dtb' | head -c 52593 >bcm2711-rpi-4-b.dtb
yes 'dtb400' | head -c 52000 >bcm2711-rpi-400.dtb
yes 'dtbcm4' | head -c 51000 >bcm2711-rpi-cm4.dtb
yes 'dtbcm4s' | head -c 50000 >bcm2711-rpi-cm4s.dtb
yes 'kernel' | head -c 3000000 >Image
yes 'start4' | head -c 2281952 >rpi-firmware/start4.elf
yes 'fixup4' | head -c 5446 >rpi-firmware/fixup4.dat
yes 'bootcode' | head -c 52000 >rpi-firmware/bootcode.bin
printf 'arm_64bit=1\nkernel=Image\n' >rpi-firmware/config.txt
printf 'root=/dev/mmcblk0p2 rootwait console=tty1\n' >rpi-firmware/cmdline.txt
yes 'overlay' | head -c 3913 >rpi-firmware/overlays/vc4-kms-v3d.dtbo
echo rpi4 >"$brout/target/etc/hostname"
E2FSPROGS_FAKE_TIME=315532800 mke2fs -q -t ext4 -d "$brout/target" -U 6d8a7b1c-0f1e-4a5b-9c3d-2e4f5a6b7c8d \
    -E hash_seed=0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9 rootfs.ext4 16M >/dev/null
cd "$brout/.."
printf 'BR2_aarch64=y\nBR2_PACKAGE_HOST_SDIMG=y\nBR2_REPRODUCIBLE=y\n' >"$brout/.config"

# what Buildroot's post-image step sets: BINARIES_DIR as the first argument and in the
# environment, with TARGET_DIR, HOST_DIR, BUILD_DIR, BR2_CONFIG and (reproducible) the epoch
post_image() {
    env BINARIES_DIR="$brout/images" TARGET_DIR="$brout/target" HOST_DIR="$brout/host" BUILD_DIR="$brout/build" \
        BR2_CONFIG="$brout/.config" SOURCE_DATE_EPOCH=1700000000 TZ=Asia/Tokyo "$@"
}
expect_status 0 post_image "$BR/board/raspberrypi4/post-image.sh" "$brout/images"
img=$brout/images/sdcard.img
[ -f "$img" ] && [ -f "$img.bmap" ] || fail "no images/sdcard.img and sdcard.img.bmap"

# the table, as sfdisk reads it
[ "$(sfdisk --json "$img" | jq -r '.partitiontable.label')" = dos ] || fail "not an MBR card"
[ "$(sfdisk --json "$img" | jq '.partitiontable.partitions | length')" -eq 2 ] || fail "not two partitions"
[ "$(part_json "$img" 1 bootable)" = true ] || fail "the boot partition is not bootable"
[ "$(part_json "$img" 2 type)" = 83 ] || fail "the rootfs partition is not type 83"
bs=$(part_start "$img" 1) bz=$(part_size "$img" 1) rs=$(part_start "$img" 2)
[ $((bs % 4194304)) -eq 0 ] && [ $((rs % 4194304)) -eq 0 ] || fail "partitions off the 4 MiB grid"
[ "$bz" -eq 33554432 ] || fail "boot is $bz bytes, not 32 MiB"
same_bytes "$img" "$rs" "$brout/images/rootfs.ext4"

# the boot volume: every device tree, all of rpi-firmware/ and the kernel, nothing else
mkdir want
cp "$brout/images/"*.dtb "$brout/images/Image" want/
cp -r "$brout/images/rpi-firmware/." want/
dd if="$img" of=boot.vol bs=1M iflag=skip_bytes,count_bytes skip="$bs" count="$bz" status=none
fsck_clean boot.vol
mtools_same "$img@@$bs" want

# SOURCE_DATE_EPOCH with BR2_REPRODUCIBLE=y: 2023-11-14 22:13 UTC on every entry
mdir -i "$img@@$bs" ::/ >mdir.txt
grep -q 'IMAGE .*2023-11-14  22:13' mdir.txt || { cat mdir.txt; fail "the epoch was not honoured"; }
# without BR2_REPRODUCIBLE the epoch Buildroot exports counts all the same
printf 'BR2_aarch64=y\nBR2_PACKAGE_HOST_SDIMG=y\n' >"$brout/.config"
expect_status 0 post_image "$BR/board/raspberrypi4/post-image.sh" "$brout/images"
mdir -i "$img@@$bs" ::/ >mdir.txt
grep -q 'IMAGE .*2023-11-14  22:13' mdir.txt || { cat mdir.txt; fail "SOURCE_DATE_EPOCH was not passed through"; }
[ ! -s err.txt ] || { cat err.txt; fail "the post-image script printed on stderr"; }

# the kernel config.txt names, and no other
mv "$brout/images/Image" "$brout/images/kernel8.img"
printf 'arm_64bit=1\nkernel=kernel8.img\n' >"$brout/images/rpi-firmware/config.txt"
expect_status 0 post_image "$BR/board/raspberrypi4/post-image.sh" "$brout/images"
mdir -i "$img@@$bs" -b ::/ >mdir.txt
grep -q '^::/kernel8.img$' mdir.txt || { cat mdir.txt; fail "the kernel config.txt names is not on the card"; }
! grep -q '^::/Image$' mdir.txt || fail "Image is on the card though config.txt names kernel8.img"
mv "$brout/images/kernel8.img" "$brout/images/Image"
printf 'arm_64bit=1\nkernel=Image\n' >"$brout/images/rpi-firmware/config.txt"

# the variables, TZ and --set reach the layout; -o names the output in BINARIES_DIR
cat >vars.layout <<'LAYOUT'
image { table = mbr }
partition p {
    type = fat size = 8M
    file "/vars.txt" { content = "${TZ} ${BINARIES_DIR} ${TARGET_DIR} ${HOST_DIR} ${BUILD_DIR} ${BR2_CONFIG} ${EXTRA}" }
}
LAYOUT
expect_status 0 post_image "$BR/support/scripts/sdimg.sh" -c vars.layout -o vars.img --set EXTRA=x "$brout/images"
[ -f "$brout/images/vars.img" ] && [ -f "$brout/images/vars.img.bmap" ] || fail "-o vars.img did not land in BINARIES_DIR"
vs=$(part_start "$brout/images/vars.img" 1)
mtype -i "$brout/images/vars.img@@$vs" ::/vars.txt >vars.txt
printf 'UTC %s %s %s %s %s x' "$brout/images" "$brout/target" "$brout/host" "$brout/build" "$brout/.config" | cmp -s - vars.txt ||
    { cat vars.txt; echo; fail "the layout does not see the variables"; }

# several layouts in one call (as boards that call genimage.sh twice): each its own image,
# named by its -o or after the layout; --no-bmap: no block maps
cp vars.layout two.layout
rm -f "$brout/images/"*.bmap
expect_status 0 post_image "$BR/support/scripts/sdimg.sh" -c vars.layout -o one.img -c two.layout \
    --set EXTRA=y --no-bmap "$brout/images"
[ -f "$brout/images/one.img" ] && [ -f "$brout/images/two.img" ] || fail "two layouts did not give one.img and two.img"
[ -z "$(ls "$brout/images/"*.bmap 2>/dev/null)" ] || fail "--no-bmap wrote a block map"
expect_status 1 post_image "$BR/support/scripts/sdimg.sh" -c vars.layout -c two.layout -o vars.img "$brout/images"
grep -q 'two layouts write' err.txt || { cat err.txt; fail "two layouts writing one image are not refused"; }

# without HOST_DIR: the sdimg on PATH
mkdir pathbin && ln -s "$SDIMG" pathbin/sdimg
rm -f "$brout/images/one.img"
expect_status 0 env -u HOST_DIR PATH="$PWD/pathbin:$PATH" BINARIES_DIR="$brout/images" \
    "$BR/support/scripts/sdimg.sh" -c vars.layout -o one.img --set EXTRA=z
[ -f "$brout/images/one.img" ] || fail "the sdimg on PATH was not used"

# usage errors: one line naming the problem, then the usage; nothing written
rm -f "$brout/images/sdcard.img"
expect_status 1 post_image "$BR/support/scripts/sdimg.sh" "$brout/images"
grep -q '^sdimg.sh: no layout (-c LAYOUT)$' err.txt || { cat err.txt; fail "no word about the missing layout"; }
expect_status 1 post_image "$BR/support/scripts/sdimg.sh" -c vars.layout --bogus "$brout/images"
grep -q "unknown option '--bogus'" err.txt || fail "no word about the unknown option"
grep -q '^Usage: sdimg.sh ' err.txt || { cat err.txt; fail "a usage error does not show the usage"; }
expect_status 1 env -u HOST_DIR PATH=/usr/bin:/bin BINARIES_DIR="$brout/images" BR2_CONFIG="$brout/.config" \
    "$BR/support/scripts/sdimg.sh" -c "$BR/board/raspberrypi4/card.layout"
grep -q 'HOST_DIR is not set and no sdimg is on PATH' err.txt || { cat err.txt; fail "no word about HOST_DIR"; }
expect_status 1 post_image env HOST_DIR="$brout/build" "$BR/support/scripts/sdimg.sh" -c vars.layout "$brout/images"
grep -q 'enable BR2_PACKAGE_HOST_SDIMG' err.txt || fail "no word about a missing host-sdimg"
# errors that are not the call's: the one line, no usage
[ "$(wc -l <err.txt)" -eq 1 ] || { cat err.txt; fail "a missing host-sdimg is told with the usage"; }
[ ! -e "$brout/images/sdcard.img" ] || fail "a failed run left sdcard.img"

# the helper and the board script pass shellcheck where it is installed
if command -v shellcheck >/dev/null 2>&1; then
    shellcheck "$BR/support/scripts/sdimg.sh" "$BR/board/raspberrypi4/post-image.sh" || fail "shellcheck"
fi
echo "buildroot_post_image: ok"
