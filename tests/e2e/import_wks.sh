# SPDX-License-Identifier: MIT
# sdimg import FILE.wks: kickstart files the test writes are imported, built, and their
# tables read back with sfdisk and sgdisk; every start, size and number below is worked out
# by hand from wic's rules (oe-core scripts/lib/wic/plugins/imager/direct.py,
# layout_partitions(); partition.py, get_rootfs_size()), as the comments say.
. "$TOP/tests/e2e-lib.sh"
need sfdisk sgdisk jq mcopy e2fsck debugfs

mkdir -p deploy rootfs/etc rootfs/boot
printf 'kernel\n' >deploy/Image
head -c 70000 /dev/urandom >deploy/u-boot.bin
printf 'card\n' >rootfs/etc/hostname
printf 'kernel\n' >rootfs/boot/Image
sh "$TOP/examples/yocto/meta-sdimg/scripts/sdimg-boot-files" deploy "Image u-boot.bin;uboot.img" \
    >boot.files

# sfdisk_is IMG N START SIZE TYPE: partition N of IMG's table
sfdisk_is() {
    sfdisk --json "$1" >t.json 2>/dev/null || fail "sfdisk cannot read $1"
    got=$(jq -r --arg n "$1$2" '.partitiontable.partitions[] | select(.node == $n) |
        "\(.start) \(.size) \(.type)"' t.json)
    [ "$got" = "$3 $4 $5" ] || fail "$1 partition $2: '$got', wic's rules give '$3 $4 $5'"
}

# --- msdos, seven partitions (one out of the table), so four logical ones
cat >mbr.wks <<'WKS'
# a loader out of the table at 8 KiB, 1 MiB kept for it
part u-boot --source rawcopy --sourceparams="file=${DEPLOY}/u-boot.bin" --no-table --offset 8K --size 1
part /boot --source bootimg-partition --fstype=vfat --label BOOT --active --align 4096 --size 16 --extra-space 4
part / --source rootfs --fstype=ext4 --label root --align 4096 --size 20 --extra-space 8 --overhead-factor 1.5
part /data --fstype=ext4 --fixed-size 8M --align 1024
part /log --fstype=none --size 3
part /spare --fstype=none --size 2 --align 4 --system-id 0xda
part /last --fstype=vfat --size 4 --offset 100M
bootloader --ptable msdos --diskid 0xcafe0001
WKS
expect_status 0 "$SDIMG" import mbr.wks -o mbr.layout
grep -q "wic adds the partitions mounted outside /" err.txt || fail "no word of wic's fstab lines"
grep -q "note: mbr.wks: 7 partition(s) placed as wic places them" err.txt || fail "no summary line"
grep -qF 'from = "${DEPLOY}/u-boot.bin"' mbr.layout || fail "\${DEPLOY} is not left for the build"
expect_status 0 "$SDIMG" build -q -o mbr.img mbr.layout -I deploy -I . --set DEPLOY=deploy \
    --set BOOT_FILES=boot.files --set IMAGE_ROOTFS=rootfs
# u-boot: the MBR's sector, then --offset 8K: sector 16 (out of the table)
same_bytes mbr.img 8192 deploy/u-boot.bin
# /boot: up to 4096 KiB = sector 8192; 16 MiB x 1.3 = 21299 KiB = 42598 sectors
sfdisk_is mbr.img 1 8192 42598 c
# /: 50790 up to 8192 sectors: 57344; 20 MiB x 1.5 = 30 MiB = 61440 sectors
sfdisk_is mbr.img 2 57344 61440 83
# /data: 118784 is on 1 MiB; 8 MiB
sfdisk_is mbr.img 3 118784 16384 83
# the fourth in the table of six is logical: one sector for its EBR, 135169
sfdisk_is mbr.img 5 135169 6144 83
# 141313, +1 for the EBR, up to 8 sectors: 141320
sfdisk_is mbr.img 6 141320 4096 da
# 145416, +1, then --offset 100M: sector 204800; vfat is parted's fat32, 0x0c
sfdisk_is mbr.img 7 204800 8192 c
# the extended partition from a sector before the first logical one (135169 - 1) to the
# image's end (204800 + 8192 = 212992): wic's size is 212992 - 135169 + 1 = 77824
sfdisk_is mbr.img 4 135168 77824 f
[ "$(stat -c %s mbr.img)" -eq $((212992 * 512)) ] || fail "image size $(stat -c %s mbr.img)"
[ "$(jq -r .partitiontable.id t.json)" = "0xcafe0001" ] || fail "disk id"
[ "$(jq -r '.partitiontable.partitions[0].bootable' t.json)" = "true" ] || fail "/boot not active"
mdir -i mbr.img@@$((8192 * 512)) ::/uboot.img >/dev/null || fail "IMAGE_BOOT_FILES not in /boot"
[ "$(mlabel -s -i mbr.img@@$((8192 * 512)) :: | tr -d ' ')" = "VolumelabelisBOOT" ] ||
    fail "FAT label"
dd if=mbr.img of=root.ext4 bs=512 skip=57344 count=61440 status=none
e2fsck -fn root.ext4 >fsck.txt 2>&1 || { cat fsck.txt; fail "e2fsck on /"; }
debugfs -R "cat /etc/hostname" root.ext4 2>/dev/null | grep -q card || fail "the root's files"

# --- gpt, every size known: the image ends 34 sectors after the last partition
cat >gpt.wks <<'WKS'
bootloader --ptable gpt --diskid 5a5a5a5a-1111-4222-8333-444455556666
part /boot --source bootimg-partition --fstype=vfat --label boot --active --fixed-size 20M --part-name esp --part-type C12A7328-F81F-11D2-BA4B-00A0C93EC93B --uuid 0f0e0d0c-0b0a-4908-8706-050403020100 --align 1024
part / --source rootfs --fstype=ext4 --label root --fixed-size 24M --use-uuid --exclude-path boot/
part --fstype=none --size 1 --part-name spare --align 4
WKS
expect_status 0 "$SDIMG" import gpt.wks -o gpt.layout
# --use-uuid: the layout says how a file names the root's PARTUUID (`ids = true`)
grep -qF 'a file with ids = true names it as wic'"'"'s root=PARTUUID= does: \${PARTUUID_root}' gpt.layout ||
    { cat gpt.layout; fail "--use-uuid: no word of \${PARTUUID_root}"; }
expect_status 0 "$SDIMG" build -q -o gpt.img gpt.layout -I deploy -I . --set BOOT_FILES=boot.files \
    --set IMAGE_ROOTFS=rootfs
sgdisk -p gpt.img >p.txt 2>&1 || { cat p.txt; fail "sgdisk -p"; }
# 34 sectors up to 1 MiB: 2048, 40960 sectors; then 43008, 49152; then on 8 sectors: 92160;
# the image: 94208 + 34 = 94242 sectors, the last usable 94242 - 34 = 94208 (parted's)
grep -q "First usable sector is 34, last usable sector is 94208" p.txt ||
    { cat p.txt; fail "sgdisk: usable sectors"; }
grep -Eq "^ +1 +2048 +43007 .* EF00 +esp$" p.txt || { cat p.txt; fail "sgdisk: /boot"; }
grep -Eq "^ +2 +43008 +92159 .* 8300 +primary$" p.txt || { cat p.txt; fail "sgdisk: /"; }
grep -Eq "^ +3 +92160 +94207 .* 8300 +spare$" p.txt || { cat p.txt; fail "sgdisk: spare"; }
grep -qi "Disk identifier (GUID): 5A5A5A5A-1111-4222-8333-444455556666" p.txt ||
    { cat p.txt; fail "sgdisk: disk GUID"; }
sgdisk -i 1 gpt.img | grep -qi "unique GUID: 0F0E0D0C-0B0A-4908-8706-050403020100" ||
    fail "sgdisk: --uuid of /boot"
sgdisk -A 1:show gpt.img | grep -q "legacy BIOS bootable" || fail "/boot is not legacy bootable"
dd if=gpt.img of=root.ext4 bs=512 skip=43008 count=49152 status=none
e2fsck -fn root.ext4 >fsck.txt 2>&1 || { cat fsck.txt; fail "e2fsck on /"; }
debugfs -R "ls /boot" root.ext4 2>/dev/null | grep -q Image && fail "--exclude-path boot/ kept /boot/Image"
debugfs -R "stat /boot" root.ext4 2>/dev/null | grep -q "Type: directory" || fail "--exclude-path boot/ dropped /boot"

# --- what sdimg cannot give: one line naming the file's line, no layout left behind
printf 'part / --source rootfs --fstype=ext4\npart /boot --source bootimg_efi --sourceparams="loader=grub-efi"\n' >efi.wks
expect_status 1 "$SDIMG" import efi.wks -o efi.layout
expect_stderr "efi.wks:2: --source bootimg_efi: this wic plugin"
[ ! -e efi.layout ] || fail "a layout was left behind"
[ -z "$(ls -A | grep 'efi.layout.')" ] || fail "a temporary file was left behind"
printf 'part / --size 8X\n' >bad.wks
expect_status 1 "$SDIMG" import bad.wks
expect_stderr "bad.wks:1: --size: invalid size '8X'"
printf 'part / --size ${ROOT_SPACE}\n' >unset.wks
expect_status 1 "$SDIMG" import unset.wks
expect_stderr 'unset.wks:1: --size: ${ROOT_SPACE} is not set: give --set ROOT_SPACE=VALUE'
printf 'part / --size ${ROOT_SPACE:-40}\n' >default.wks
expect_status 1 "$SDIMG" import default.wks
expect_stderr "default.wks:1: --size: '\${ROOT_SPACE:-40}' is not a plain \${NAME}, which is all the import expands"
printf 'bootloader --ptable gpt-hybrid\npart / --fstype=ext4 --fixed-size 8 --mbr\n' >hybrid.wks
expect_status 1 "$SDIMG" import hybrid.wks
expect_stderr "hybrid.wks:1: bootloader --ptable gpt-hybrid: the MBR wic makes for it is not imported"
grep -qF 'table = hybrid with hybrid-ee = last' err.txt || fail "the refusal names no hybrid-ee = last"
expect_status 2 "$SDIMG" import

# a file copied without --size: wic sizes it to the KiB (70000 bytes: 69 KiB, 138 sectors)
printf 'part /u --source rawcopy --sourceparams=file=deploy/u-boot.bin --align 1024\npart / --fstype=ext4 --fixed-size 8 --align 4\n' >raw.wks
expect_status 0 "$SDIMG" import raw.wks -o raw.layout
expect_status 0 "$SDIMG" build -q -o raw.img raw.layout
# 1 sector, up to 1 MiB: 2048; the file's vfat type (wic's default --fstype), 0x0c
sfdisk_is raw.img 1 2048 138 c
# 2048 + 138 = 2186, up to 4 KiB (8 sectors): 2192
sfdisk_is raw.img 2 2192 16384 83

# two disks: wic makes an image of each; --image takes one
printf 'part / --fstype=ext4 --fixed-size 8 --ondisk sda\npart /b --fstype=none --size 2 --ondisk sdb --align 1024\n' >disks.wks
expect_status 1 "$SDIMG" import disks.wks
expect_stderr "disks.wks:2: part --ondisk sdb: wic makes one image per disk"
expect_status 0 "$SDIMG" import disks.wks --image sdb -o sdb.layout
expect_status 0 "$SDIMG" build -q -o sdb.img sdb.layout
# 1 sector for the MBR, up to 1 MiB: 2048; 2 MiB; --fstype=none is parted's ext2, 0x83
sfdisk_is sdb.img 1 2048 4096 83
# oe-core's templates end in .wks.in, and may start with an include: a kickstart by its name
printf 'part /b --fstype=none --size 2 --align 1024\n' >parts.inc
printf '# a template\ninclude parts.inc\nbootloader --ptable msdos\n' >tmpl.wks.in
expect_status 0 "$SDIMG" import tmpl.wks.in -o tmpl.layout
expect_status 0 "$SDIMG" build -q -o tmpl.img tmpl.layout
sfdisk_is tmpl.img 1 2048 4096 83
# a root sized by wic from its files' disk usage: sdimg's size = auto takes its place, and the
# summary line says that the card differs there
printf 'part / --source rootfs --fstype=ext4 --label root\nbootloader --ptable msdos\n' >du.wks
expect_status 0 "$SDIMG" import du.wks -o du.layout
grep -qF "but where wic sizes a partition from its files' disk usage (no --size), sdimg's size = auto takes its place" err.txt ||
    fail "the summary line does not say that the root's size is sdimg's"

# -o never writes over the kickstart or a file it includes
for f in tmpl.wks.in parts.inc; do
    cp "$f" "$f.before"
    expect_status 1 "$SDIMG" import tmpl.wks.in -o "$f"
    expect_stderr "$f: a file the import read (the configuration, a file it includes or an input it measured): write the layout elsewhere"
    cmp -s "$f" "$f.before" || fail "import -o $f wrote over it"
done
echo "import_wks: ok"
