# SPDX-License-Identifier: MIT
# examples/yocto/meta-sdimg/scripts/sdimg-boot-files: IMAGE_BOOT_FILES turned into layout
# lines the way wic's bootimg-partition reads it, one case per form (a, a;b, dir/*,
# dir/*;dir/, separators, folders, errors), and the lines pulled into a FAT partition with
# include("${BOOT_FILES}"): mtools finds each file where wic would put it.
. "$TOP/tests/e2e-lib.sh"
need mdir mcopy fsck.fat sfdisk jq

conv=$TOP/examples/yocto/meta-sdimg/scripts/sdimg-boot-files
mkdir -p deploy/overlays deploy/bootfiles deploy/extlinux
cd deploy
echo kernel >Image
echo uboot >u-boot.bin
echo dtb-a >bcm2711-rpi-4-b.dtb
echo dtb-b >bcm2711-rpi-400.dtb
echo ov1 >overlays/vc4-kms-v3d.dtbo
echo ov2 >overlays/disable-bt.dtbo
echo hidden >overlays/.hidden
echo start >bootfiles/start4.elf
echo fixup >bootfiles/fixup4.dat
echo conf >extlinux/extlinux.conf
echo plus >'a+b.txt'
echo odd >'we"ird$.txt'
cd ..

# case NAME IMAGE_BOOT_FILES: the converter's lines (without the heading comment) are want.txt
case_ok() {
    "$conv" "$PWD/deploy" "$2" >got.txt 2>err.txt || { cat err.txt; fail "$1: the converter failed"; }
    head -1 got.txt | grep -q '^# IMAGE_BOOT_FILES' || fail "$1: no heading comment"
    sed 1d got.txt | diff want.txt - || fail "$1: IMAGE_BOOT_FILES='$2'"
}

# a: the file under its own name
printf '%s\n' 'file "/Image" { from = "Image" }' >want.txt
case_ok plain 'Image'
# a;b: the file under another name, also in a folder
printf '%s\n' 'file "/kernel8.img" { from = "Image" }' 'file "/boot/u.bin" { from = "u-boot.bin" }' >want.txt
case_ok renamed 'Image;kernel8.img u-boot.bin;boot/u.bin'
# dir/*: each match at the top under its own name, in byte order, no dot files
printf '%s\n' 'file "/disable-bt.dtbo" { from = "overlays/disable-bt.dtbo" }' \
    'file "/vc4-kms-v3d.dtbo" { from = "overlays/vc4-kms-v3d.dtbo" }' >want.txt
case_ok glob 'overlays/*'
# dir/*;dir/: each match under its own name in the folder
printf '%s\n' 'file "/overlays/disable-bt.dtbo" { from = "overlays/disable-bt.dtbo" }' \
    'file "/overlays/vc4-kms-v3d.dtbo" { from = "overlays/vc4-kms-v3d.dtbo" }' >want.txt
case_ok glob-folder 'overlays/*;overlays/'
# *.dtb and bootfiles/*;./ (meta-raspberrypi's forms): matches at the top
printf '%s\n' 'file "/bcm2711-rpi-4-b.dtb" { from = "bcm2711-rpi-4-b.dtb" }' \
    'file "/bcm2711-rpi-400.dtb" { from = "bcm2711-rpi-400.dtb" }' \
    'file "/fixup4.dat" { from = "bootfiles/fixup4.dat" }' 'file "/start4.elf" { from = "bootfiles/start4.elf" }' >want.txt
case_ok glob-top '*.dtb bootfiles/*;./'
# separators: white space of any kind, and any character outside wic's pattern ("a+b" is two)
printf '%s\n' 'file "/Image" { from = "Image" }' 'file "/u-boot.bin" { from = "u-boot.bin" }' \
    'file "/a" { from = "a" }' 'file "/b.txt" { from = "b.txt" }' >want.txt
case_ok separators "$(printf '  Image,\tu-boot.bin\n a+b.txt ')"
# a folder is a tree; a destination ending in / takes the source under its name
printf '%s\n' 'tree "/extlinux" { from = "extlinux/" }' 'file "/boot/Image" { from = "Image" }' >want.txt
case_ok folder 'extlinux Image;boot/'
# a glob match whose name needs quoting is quoted for the layout
printf '%s\n' 'file "/we\"ird\$.txt" { from = "we\"ird\$.txt" }' >want.txt
case_ok quoting 'we*'
# nothing at all
: >want.txt
case_ok empty ''
# a pattern that matches nothing adds nothing, with a warning
case_ok nomatch 'nothing*'
grep -q "warning: 'nothing\*' matches nothing in" err.txt || fail "no warning for a pattern that matches nothing"

# errors: an empty side of ';', two ';'
for bad in ';Image' 'Image;' 'a;b;c'; do
    expect_status 1 "$conv" "$PWD/deploy" "Image $bad"
    grep -q "malformed boot file entry '$bad'" err.txt || { cat err.txt; fail "no word about '$bad'"; }
done
expect_status 2 "$conv" "$PWD/deploy"

# the lines in a layout: every file where wic would put it, as mtools reads the volume
"$conv" "$PWD/deploy" 'bootfiles/*;./ *.dtb overlays/*;overlays/ Image;kernel8.img extlinux' >boot.layout
cat >card.layout <<'LAYOUT'
image { table = mbr }
partition boot {
    type = fat size = 16M
    include("${BOOT_FILES}")
}
LAYOUT
expect_status 0 "$SDIMG" build -q -I deploy --set BOOT_FILES="$PWD/boot.layout" -o card.img card.layout
mkdir -p want/overlays want/extlinux
cp deploy/bootfiles/* deploy/*.dtb want/
cp deploy/overlays/*.dtbo want/overlays/
cp deploy/Image want/kernel8.img
cp deploy/extlinux/extlinux.conf want/extlinux/
off=$(part_start card.img 1)
mtools_same "card.img@@$off" want
dd if=card.img of=boot.vol bs=1M iflag=skip_bytes,count_bytes skip="$off" count="$(part_size card.img 1)" status=none
fsck_clean boot.vol
echo "yocto_boot_files: ok"
