#!/bin/sh
# SPDX-License-Identifier: MIT
# make-inputs.sh EXAMPLE DIR: creates the input files of an example card in DIR.
# Every boot-loader and firmware file is a placeholder of a plausible size filled with a
# repeated text (never a vendor binary); root file systems are small ext4 images made with
# mke2fs -d from a tiny tree, with a fixed UUID, hash seed and time so that they are the same
# on every run.
set -eu
example=$1
dir=$2
mkdir -p "$dir"
cd "$dir"

# blob FILE SIZE: a placeholder of SIZE bytes
blob() {
    mkdir -p "$(dirname "$1")"
    yes "sdimg example placeholder: $1" | head -c "$2" >"$1"
}

# rootfs FILE SIZE: an ext4 image holding a minimal tree
rootfs() {
    rm -rf rootfs-tree "$1"
    mkdir -p rootfs-tree/etc rootfs-tree/boot rootfs-tree/home
    echo "$example" >rootfs-tree/etc/hostname
    printf 'root:x:0:0:root:/root:/bin/sh\n' >rootfs-tree/etc/passwd
    E2FSPROGS_FAKE_TIME=315532800 mke2fs -q -t ext4 -d rootfs-tree -U 6d8a7b1c-0f1e-4a5b-9c3d-2e4f5a6b7c8d \
        -E hash_seed=0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9,root_owner=0:0 "$1" "$2" >/dev/null
    rm -rf rootfs-tree
}

case $example in
raspberrypi4)
    blob firmware/start4.elf 2281952
    blob firmware/fixup4.dat 5446
    blob firmware/bcm2711-rpi-4-b.dtb 52593
    blob firmware/kernel8.img 8000000
    blob overlays/vc4-kms-v3d.dtbo 3913
    blob overlays/disable-bt.dtbo 1073
    printf 'arm_64bit=1\nkernel=kernel8.img\ndtoverlay=vc4-kms-v3d\n' >config.txt
    rootfs rootfs.ext4 64M
    ;;
beaglebone-black)
    blob MLO 92000
    blob u-boot.img 900000
    rootfs rootfs.ext4 64M
    ;;
sunxi)
    blob u-boot-sunxi-with-spl.bin 700000
    blob boot.scr 1800
    rootfs rootfs.ext4 64M
    ;;
imx8m)
    blob flash.bin 1500000
    blob Image 20000000
    blob imx8mm-evk.dtb 60000
    rootfs rootfs.ext4 64M
    ;;
imx8m-emmc)
    blob flash.bin 1500000
    blob Image 20000000
    blob imx8mm-evk.dtb 60000
    rootfs rootfs.ext4 64M
    printf '%s\n' 'bootdelay=2' 'baudrate=115200' 'console=ttymxc1,115200' \
        'fdtfile=imx8mm-evk.dtb' 'mmcdev=2' 'mmcpart=1' \
        'mmcargs=setenv bootargs console=${console} root=/dev/mmcblk2p2 rootwait rw' \
        'bootcmd=mmc dev ${mmcdev}; fatload mmc ${mmcdev}:${mmcpart} ${loadaddr} Image; fatload mmc ${mmcdev}:${mmcpart} ${fdt_addr_r} ${fdtfile}; run mmcargs; booti ${loadaddr} - ${fdt_addr_r}' \
        >env.txt
    ;;
rk3399)
    blob idbloader.img 180000
    blob u-boot.itb 1200000
    blob Image 20000000
    blob rk3399-rock-4se.dtb 70000
    printf 'label linux\n  kernel /Image\n  fdt /rk3399-rock-4se.dtb\n  append root=/dev/mmcblk0p2 rootwait\n' >extlinux.conf
    rootfs rootfs.ext4 64M
    ;;
sd16g)
    blob data/README.txt 300
    blob data/music/track01.mp3 3000000
    blob data/photos/IMG_0001.JPG 2500000
    ;;
*)
    echo "make-inputs.sh: no example named '$example'" >&2
    exit 1
    ;;
esac
