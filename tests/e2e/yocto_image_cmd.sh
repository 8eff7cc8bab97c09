# SPDX-License-Identifier: MIT
# examples/yocto/meta-sdimg/classes/image_types_sdimg.bbclass without bitbake: the shell
# body of IMAGE_CMD:sdimg and of CONVERSION_CMD:zst:sdimg, with every ${VAR} expanded as
# bitbake would (a reference the harness does not know fails the test), run the way
# do_image_sdimg runs them (sh -e, bbfatal; then cd IMGDEPLOYDIR, the conversion, and rm
# of the raw image when only sdimg.zst is asked for) on generated deploy folders, with the
# layer's sdimage-raspberrypi.layout and sdimage-bootpart.layout. The image, its bmap and
# checksums land in IMGDEPLOYDIR; sfdisk, fsck.fat, mtools and sha256sum accept them;
# SOURCE_DATE_EPOCH dates the FAT entries; sdimg.zst holds the same image.
. "$TOP/tests/e2e-lib.sh"
need awk sfdisk fsck.fat mdir mcopy mke2fs jq zstd sha256sum

LAYER=$TOP/examples/yocto/meta-sdimg
CLASS=$LAYER/classes/image_types_sdimg.bbclass
mkdir -p bin && ln -s "$SDIMG" bin/sdimg
PATH=$PWD/bin:$PATH

# the shell functions of the class
awk '/^IMAGE_CMD:sdimg \(\) \{$/ { on = 1; next } on && /^}$/ { on = 0 } on' "$CLASS" >image_cmd.sh
[ -s image_cmd.sh ] || fail "no IMAGE_CMD:sdimg () { ... } in the class"
sed -n 's/^CONVERSION_CMD:zst:sdimg = "\(.*\)"$/\1/p' "$CLASS" >conversion.sh
[ -s conversion.sh ] || fail "no CONVERSION_CMD:zst:sdimg in the class"

# expand FILE VARS: FILE with each ${NAME} of VARS (NAME=VALUE lines) replaced, as bitbake
# expands a shell function; fails on a ${NAME} that VARS does not define
expand() {
    awk -v vars="$2" '
    BEGIN { while ((getline line < vars) > 0) { i = index(line, "="); val[substr(line, 1, i - 1)] = substr(line, i + 1) } }
    {
        out = ""; rest = $0
        while (match(rest, /\$\{[A-Za-z0-9_]+\}/)) {
            name = substr(rest, RSTART + 2, RLENGTH - 3)
            if (!(name in val)) { print "unexpanded ${" name "}" > "/dev/stderr"; bad = 1 }
            out = out substr(rest, 1, RSTART - 1) val[name]; rest = substr(rest, RSTART + RLENGTH)
        }
        print out rest
    }
    END { exit bad }' "$1"
}

# do_image_sdimg NAME FSTYPES LAYOUT BOOT_FILES: the task as bitbake runs it for one image
# (IMAGE_NAME NAME; IMAGE_LINK_NAME the NAME up to its first '-')
do_image_sdimg() {
    name=$1 fstypes=$2 link=${1%%-*}
    raw="" zst=""
    case " $fstypes " in *" sdimg "*) raw=1 ;; esac
    case " $fstypes " in *" sdimg.zst "*) zst=1 ;; esac
    cat >vars.txt <<VARS
SDIMG_LAYOUT_PATH=$3
SDIMG_LAYOUT=${3##*/}
IMGDEPLOYDIR=$PWD/imgdeploy
DEPLOY_DIR_IMAGE=$PWD/deploy
IMAGE_NAME=$name
SDIMG_IMAGE_NAME=$name
IMAGE_LINK_NAME=$link
WORKDIR=$PWD/work
SDIMG_BOOT_FILES=$LAYER/scripts/sdimg-boot-files
IMAGE_BOOT_FILES=$4
SDIMG_INPUT_DIRS=$PWD/imgdeploy $PWD/deploy
SDIMG_SET=
SDIMG_ZST=$zst
SDIMG_ZST_LEVEL=3
SDIMG_RAW=$raw
SDIMG_ROOTFS=$link.ext4
MACHINE=raspberrypi4-64
type=sdimg
VARS
    expand image_cmd.sh vars.txt >task.sh || fail "the image command uses a variable the harness does not set"
    {
        echo 'bbfatal() { echo "ERROR: $*" >&2; exit 1; }'
        echo 'bbnote() { echo "NOTE: $*"; }'
        cat task.sh
        echo "cd $PWD/imgdeploy"
        if [ -n "$zst" ]; then expand conversion.sh vars.txt; fi
        if [ -z "$raw" ]; then echo "rm $name.sdimg"; fi
    } >do_image_sdimg.sh
    (cd work && sh -e ../do_image_sdimg.sh)
}

# what the machine deployed (meta-raspberrypi's kinds of files) and this image's rootfs
mkdir -p deploy/bootfiles deploy/overlays imgdeploy work rootfs/etc
yes start | head -c 2281952 >deploy/bootfiles/start4.elf
yes fixup | head -c 5446 >deploy/bootfiles/fixup4.dat
printf 'arm_64bit=1\nkernel=kernel8.img\n' >deploy/bootfiles/config.txt
printf 'root=/dev/mmcblk0p2 rootwait\n' >deploy/bootfiles/cmdline.txt
yes dtb | head -c 52593 >deploy/bcm2711-rpi-4-b.dtb
yes overlay | head -c 3913 >deploy/overlays/vc4-kms-v3d.dtbo
yes kernel | head -c 3000000 >deploy/Image
echo rpi4 >rootfs/etc/hostname
# mkext4 NAME: this image's root file system (one ext4 made once: a second mke2fs -d of the
# same tree may differ in the access times it copies), with its IMAGE_LINK_NAME link
E2FSPROGS_FAKE_TIME=315532800 mke2fs -q -t ext4 -d rootfs -U 6d8a7b1c-0f1e-4a5b-9c3d-2e4f5a6b7c8d \
    -E hash_seed=0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9 rootfs.ext4 16M >/dev/null
mkext4() {
    cp rootfs.ext4 "imgdeploy/$1.ext4"
    ln -sfn "$1.ext4" "imgdeploy/${1%%-*}.ext4"      # create_symlinks' IMAGE_LINK_NAME link
}
BOOT='bootfiles/* bcm2711-rpi-4-b.dtb overlays/vc4-kms-v3d.dtbo;overlays/vc4-kms-v3d.dtbo Image;kernel8.img'
mkdir -p want/overlays
cp deploy/bootfiles/* deploy/bcm2711-rpi-4-b.dtb want/
cp deploy/overlays/vc4-kms-v3d.dtbo want/overlays/
cp deploy/Image want/kernel8.img

# check_card IMG: the Raspberry Pi card, as the outside tools read it
check_card() {
    [ "$(sfdisk --json "$1" | jq -r '.partitiontable.label')" = dos ] || fail "$1: not an MBR card"
    [ "$(part_json "$1" 1 bootable)" = true ] || fail "$1: the boot partition is not bootable"
    bs=$(part_start "$1" 1) bz=$(part_size "$1" 1) rs=$(part_start "$1" 2)
    [ "$bz" -eq 104857600 ] || fail "$1: boot is $bz bytes, not 100 MiB"
    [ $((rs % 4194304)) -eq 0 ] || fail "$1: the root partition is off the 4 MiB grid"
    dd if="$1" of=boot.vol bs=1M iflag=skip_bytes,count_bytes skip="$bs" count="$bz" status=none
    fsck_clean boot.vol
    mtools_same "$1@@$bs" want
    same_bytes "$1" "$rs" "$PWD/imgdeploy/$2.ext4"
}

# IMAGE_FSTYPES = "sdimg sdimg.zst": image, compressed image, bmap, checksums of both
mkext4 rpi-a
SOURCE_DATE_EPOCH=1700000000 TZ=Asia/Tokyo do_image_sdimg rpi-a "ext4 sdimg sdimg.zst" \
    "$LAYER/files/sdimg/sdimage-raspberrypi.layout" "$BOOT" >task.log 2>&1 || { cat task.log; fail "do_image_sdimg (sdimg sdimg.zst)"; }
for f in rpi-a.sdimg rpi-a.sdimg.zst rpi-a.sdimg.bmap rpi-a.sdimg.sha256; do
    [ -f "imgdeploy/$f" ] || { ls imgdeploy; fail "no $f in IMGDEPLOYDIR"; }
done
(cd imgdeploy && sha256sum -c --quiet rpi-a.sdimg.sha256) || fail "the checksums do not match"
[ "$(wc -l <imgdeploy/rpi-a.sdimg.sha256)" -eq 2 ] || fail "not one checksum per image file"
check_card imgdeploy/rpi-a.sdimg rpi-a
zstd -dc imgdeploy/rpi-a.sdimg.zst | cmp -s - imgdeploy/rpi-a.sdimg || fail "sdimg.zst is not the image"
grep -q "<ImageSize> $(stat -c %s imgdeploy/rpi-a.sdimg) </ImageSize>" imgdeploy/rpi-a.sdimg.bmap ||
    fail "the bmap is not the image's"
mdir -i "imgdeploy/rpi-a.sdimg@@$(part_start imgdeploy/rpi-a.sdimg 1)" ::/ >mdir.txt
grep -qi 'kernel8 .*2023-11-14  22:13' mdir.txt || { cat mdir.txt; fail "SOURCE_DATE_EPOCH does not date the entries"; }

# IMAGE_FSTYPES = "sdimg.zst": the raw image goes, and so does its checksum; another build
# (another IMAGE_NAME, the same link name) gives the same bytes
mkext4 rpi-b
SOURCE_DATE_EPOCH=1700000000 do_image_sdimg rpi-b "ext4 sdimg.zst" \
    "$LAYER/files/sdimg/sdimage-raspberrypi.layout" "$BOOT" >task.log 2>&1 || { cat task.log; fail "do_image_sdimg (sdimg.zst)"; }
[ ! -e imgdeploy/rpi-b.sdimg ] || fail "the raw image stayed"
[ -f imgdeploy/rpi-b.sdimg.zst ] && [ -f imgdeploy/rpi-b.sdimg.bmap ] || fail "no rpi-b.sdimg.zst and its bmap"
(cd imgdeploy && sha256sum -c --quiet rpi-b.sdimg.sha256) || fail "the checksums do not match"
[ "$(wc -l <imgdeploy/rpi-b.sdimg.sha256)" -eq 1 ] || fail "a checksum of the removed image stayed"
zstd -dc imgdeploy/rpi-b.sdimg.zst | cmp -s - imgdeploy/rpi-a.sdimg || fail "the same inputs gave another image"

# sdimage-bootpart.layout, another epoch: a 16 MiB boot partition dated by it
mkext4 bp-1
SOURCE_DATE_EPOCH=1500000000 do_image_sdimg bp-1 "sdimg" "$LAYER/files/sdimg/sdimage-bootpart.layout" \
    'Image u-boot.bin;uboot.img' >task.log 2>&1 && fail "a missing boot file did not fail the task"
grep -q 'u-boot.bin' task.log || { cat task.log; fail "the missing boot file is not named"; }
echo uboot >deploy/u-boot.bin
SOURCE_DATE_EPOCH=1500000000 do_image_sdimg bp-1 "sdimg" "$LAYER/files/sdimg/sdimage-bootpart.layout" \
    'Image u-boot.bin;uboot.img' >task.log 2>&1 || { cat task.log; fail "do_image_sdimg (bootpart)"; }
bs=$(part_start imgdeploy/bp-1.sdimg 1)
[ "$(part_size imgdeploy/bp-1.sdimg 1)" -eq 16777216 ] || fail "the bootpart boot partition is not 16 MiB"
mdir -i "imgdeploy/bp-1.sdimg@@$bs" ::/ >mdir.txt
grep -qi 'uboot .*2017-07-14 *2:40' mdir.txt || { cat mdir.txt; fail "bootpart: uboot.img missing or misdated"; }
[ "$(mtype -i "imgdeploy/bp-1.sdimg@@$bs" ::/uboot.img)" = uboot ] || fail "uboot.img is not u-boot.bin"

# no layout: the task stops with bbfatal naming SDIMG_LAYOUT
do_image_sdimg none "sdimg" "" 'Image' >task.log 2>&1 && fail "no layout did not fail the task"
grep -q "ERROR: sdimg: no layout file for SDIMG_LAYOUT" task.log || { cat task.log; fail "no word about SDIMG_LAYOUT"; }
echo "yocto_image_cmd: ok"
