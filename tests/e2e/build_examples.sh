# SPDX-License-Identifier: MIT
# Every example card, built and then read back by tools nobody here wrote.
. "$TOP/tests/e2e-lib.sh"
need sfdisk sgdisk fsck.fat mcopy 7z jq mke2fs

ex=$TOP/examples
for name in raspberrypi4 beaglebone-black sunxi imx8m imx8m-emmc rk3399 sd16g; do
    sh "$ex/make-inputs.sh" "$name" "in-$name"
    expect_status 0 "$SDIMG" build -q -I "in-$name" -o "$name.img" "$ex/$name/card.layout"
    [ ! -s out.txt ] || fail "-q printed: $(cat out.txt)"
    [ ! -s err.txt ] || fail "stderr: $(cat err.txt)"
done
M=1048576

# Raspberry Pi 4: MBR, bootable FAT32 at 4M (type 0x0c), ext4 to the end of 2G
img=raspberrypi4.img
[ "$(stat -c %s $img)" -eq $((2048 * M)) ] || fail "rpi4 image size"
[ "$(part_json $img 1 start)" = 8192 ] && [ "$(part_json $img 1 size)" = 524288 ] || fail "rpi4 boot placement"
[ "$(part_json $img 1 type)" = c ] && [ "$(part_json $img 1 bootable)" = true ] || fail "rpi4 boot type/flag"
[ "$(part_json $img 2 start)" = 532480 ] && [ "$(part_json $img 2 type)" = 83 ] || fail "rpi4 rootfs"
[ $(($(part_json $img 2 start) + $(part_json $img 2 size))) -eq $((2048 * M / 512)) ] || fail "rootfs does not grow to the end"
mkdir want-rpi && cp -r in-raspberrypi4/firmware/. want-rpi/ && cp -r in-raspberrypi4/overlays want-rpi/ &&
    cp in-raspberrypi4/config.txt want-rpi/
printf '%s' "console=serial0,115200 console=tty1 root=/dev/mmcblk0p2 rootfstype=ext4 rootwait" >want-rpi/cmdline.txt
check_fat $img $((4 * M)) $((256 * M)) want-rpi $((4 * M))
same_bytes $img $((260 * M)) in-raspberrypi4/rootfs.ext4
[ "$(le $img $((4 * M + 22)) 2)" -eq 0 ] || fail "rpi4 boot is not FAT32"
[ "$(sfdisk --json $img | jq -r .partitiontable.id)" != 0x00000000 ] || fail "no disk id"

# BeagleBone Black: active FAT16 with MLO first in the root directory, two FATs
img=beaglebone-black.img
[ "$(part_json $img 1 bootable)" = true ] && [ "$(part_json $img 1 type)" = e ] || fail "bbb boot type/flag"
mkdir want-bbb && cp in-beaglebone-black/MLO in-beaglebone-black/u-boot.img want-bbb/
printf 'bootpart=0:2\nbootdir=/boot\nuenvcmd=run loadimage; run loadfdt; run mmcargs; bootz ${loadaddr} - ${fdtaddr}\n' >want-bbb/uEnv.txt
check_fat $img $((4 * M)) $((64 * M)) want-bbb $((4 * M))
[ "$(le $img $((4 * M + 16)) 1)" -eq 2 ] || fail "bbb: not two FATs"
first=$(MTOOLS_SKIP_CHECK=1 mdir -b -i $img@@$((4 * M)) ::/ | head -1)
[ "$first" = "::/MLO" ] || fail "MLO is not the first root entry ($first)"
same_bytes $img $((68 * M)) in-beaglebone-black/rootfs.ext4

# sunxi: the SPL at 8K, byte for byte, outside every partition
img=sunxi.img
same_bytes $img 8192 in-sunxi/u-boot-sunxi-with-spl.bin
[ "$(part_json $img 1 start)" = 8192 ] || fail "sunxi boot start"
mkdir want-sunxi && cp in-sunxi/boot.scr want-sunxi/
check_fat $img $((4 * M)) $((32 * M)) want-sunxi $((4 * M))

# i.MX8M: GPT with the boot loader at 33K, checked by sgdisk and sfdisk
img=imx8m.img
sgdisk -v $img >sgdisk.txt 2>&1 || { cat sgdisk.txt; fail "sgdisk -v"; }
grep -q "No problems found" sgdisk.txt || { cat sgdisk.txt; fail "sgdisk found problems"; }
sfdisk --verify $img >verify.txt 2>&1 || { cat verify.txt; fail "sfdisk --verify"; }
same_bytes $img $((33 * 1024)) in-imx8m/flash.bin
[ "$(part_json $img 2 type)" = B921B045-1DF0-41C3-AF44-4C6F280D3FAE ] || fail "rootfs GPT type"
[ "$(part_json $img 1 name)" = boot ] || fail "GPT name"
mkdir want-imx && cp in-imx8m/Image in-imx8m/imx8mm-evk.dtb want-imx/
check_fat $img $((4 * M)) $((128 * M)) want-imx $((4 * M))

# i.MX8M on eMMC: the same, and the redundant U-Boot environment at 4M (4K a copy; checked
# with mkenvimage and fw_printenv in uboot_env.sh)
img=imx8m-emmc.img
sgdisk -v $img >sgdisk.txt 2>&1 || { cat sgdisk.txt; fail "sgdisk -v"; }
grep -q "No problems found" sgdisk.txt || { cat sgdisk.txt; fail "imx8m-emmc: sgdisk found problems"; }
same_bytes $img $((33 * 1024)) in-imx8m-emmc/flash.bin
[ "$(part_json $img 1 start)" = 16384 ] || fail "imx8m-emmc: boot does not start at 8M, after the environment"
[ -s imx8m-emmc.img.cards.json ] || fail "imx8m-emmc: no per-card manifest"

# RK3399: idbloader at 32K and u-boot.itb at 8M, byte for byte; the partitions after them at
# 16M, where the GPT's first usable LBA lies too
img=rk3399.img
sgdisk -v $img >sgdisk.txt 2>&1 || { cat sgdisk.txt; fail "sgdisk -v"; }
grep -q "No problems found" sgdisk.txt || { cat sgdisk.txt; fail "sgdisk found problems"; }
same_bytes $img $((32 * 1024)) in-rk3399/idbloader.img
same_bytes $img $((8 * M)) in-rk3399/u-boot.itb
[ "$(le $img $((512 + 40)) 8)" -eq 32768 ] || fail "rk3399 FirstUsableLBA $(le $img $((512 + 40)) 8)"
[ "$(part_json $img 1 start)" = 32768 ] && [ "$(part_json $img 1 size)" = 524288 ] || fail "rk3399 boot placement"
[ "$(part_json $img 2 start)" = 557056 ] || fail "rk3399 rootfs start"
mkdir -p want-rk/extlinux && cp in-rk3399/Image in-rk3399/rk3399-rock-4se.dtb want-rk/ &&
    cp in-rk3399/extlinux.conf want-rk/extlinux/
check_fat $img $((16 * M)) $((256 * M)) want-rk $((4 * M))
same_bytes $img $((272 * M)) in-rk3399/rootfs.ext4

# 16 GB data card as the SD formatter lays it out (its numbers worked by hand from the SD Part 2 algorithms)
img=sd16g.img
[ "$(stat -c %s $img)" -eq $((31116288 * 512)) ] || fail "sd16g size"
[ "$(part_json $img 1 start)" = 8192 ] && [ "$(part_json $img 1 size)" = $((31116288 - 8192)) ] || fail "sd16g placement"
[ "$(part_json $img 1 type)" = c ] || fail "sd16g type"
[ "$(le $img $((4 * M + 14)) 2)" -eq 598 ] || fail "sd16g reserved sectors"
[ "$(le $img $((4 * M + 36)) 4)" -eq 3797 ] || fail "sd16g FAT size"
[ "$(data_start $img $((4 * M)))" -eq $((16384 * 512)) ] || fail "sd16g data area"
check_fat $img $((4 * M)) $(((31116288 - 8192) * 512)) in-sd16g/data $((4 * M))
