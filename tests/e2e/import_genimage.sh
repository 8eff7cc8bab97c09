# SPDX-License-Identifier: MIT
# `sdimg import` of genimage configurations: each is built by genimage and, imported, by
# sdimg; the partition tables must be the same bytes: sfdisk -d, sgdisk -p, MBR bytes
# 440-511 (on GPT too: the protective entry's end CHS is the same) and, on GPT, the header
# and the entry array (every GUID is set in the configs, so none is random).
. "$TOP/tests/e2e-lib.sh"
need genimage sfdisk sgdisk mkdosfs mcopy mke2fs

mkdir input rootfs rootfs/etc
head -c 70000 /dev/urandom >input/spl.bin
head -c 1000000 /dev/urandom >input/rootfs.ext4
echo "console=ttyS0" >input/cmdline.txt
echo "kernel" >input/Image
mkdir input/overlays
echo "dtbo" >input/overlays/a.dtbo
echo "host" >rootfs/etc/hostname

# genimage_build CFG: genimage's images of CFG in out/
genimage_build() {
    rm -rf out tmp
    mkdir tmp
    genimage --config "$1" --inputpath input --outputpath out --rootpath rootfs \
        --tmppath tmp >genimage.log 2>&1 || { cat genimage.log >&2; fail "genimage $1"; }
}

# bytes IMG SKIP COUNT: those bytes of IMG as hex
bytes() {
    od -An -v -tx1 -j "$2" -N "$3" "$1"
}

# same_tables GENIMAGE_IMG SDIMG_IMG: the tables are the same
same_tables() {
    g=$1 s=$2
    [ "$(sfdisk -d "$g" | sed "s|$g||")" = "$(sfdisk -d "$s" | sed "s|$s||")" ] || {
        sfdisk -d "$g" >&2
        sfdisk -d "$s" >&2
        fail "$s: sfdisk -d differs from genimage's $g"
    }
    if sfdisk -d "$s" | grep -q '^label: gpt'; then
        [ "$(sgdisk -p "$g" | sed "s|$g||")" = "$(sgdisk -p "$s" | sed "s|$s||")" ] ||
            fail "$s: sgdisk -p differs"
        entries=$(od -An -tu8 -j 584 -N 8 "$s" | tr -d ' ')
        [ "$(bytes "$g" 512 512)" = "$(bytes "$s" 512 512)" ] || fail "$s: the GPT header differs"
        [ "$(bytes "$g" $((entries * 512)) 16384)" = "$(bytes "$s" $((entries * 512)) 16384)" ] ||
            fail "$s: the GPT entries differ"
    fi
    [ "$(bytes "$g" 440 72)" = "$(bytes "$s" 440 72)" ] || fail "$s: MBR bytes 440-511 differ"
}

# check CFG IMAGE [--set ...]: genimage's IMAGE and sdimg's from the imported layout agree
check() {
    cfg=$1 img=$2
    shift 2
    genimage_build "$cfg"
    expect_status 0 "$SDIMG" import "$cfg" --image "$img" -I input -o "$img.layout"
    "$SDIMG" build -q "$img.layout" -I input --set ROOTPATH="$PWD/rootfs" -o "$img" "$@"
    same_tables "out/$img" "$img"
}

# MBR: a loader outside the table, a FAT from files, a raw rootfs from its file (sizes
# rounded up to a sector), the default signature 0; an include and variables on the way
cat >vfat.cfg <<'EOF'
/* the boot partition */
image boot.vfat {
	vfat {
		label = "BOOT"
		files = { "cmdline.txt", "Image", "overlays" }   // a folder too
		file zImage { image = "Image" }
	}
	size = "${BOOT_MB:-8}M"
}
EOF
cat >mbr.cfg <<'EOF'
include("vfat.cfg")
image mbr.img {
	hdimage {
	}
	partition spl {
		in-partition-table = "no"
		image = "spl.bin"
		offset = 8K
	}
	partition boot {
		partition-type = 0xC
		bootable = "true"
		image = "boot.vfat"
	}
	partition rootfs {
		partition-type = 0x83
		image = "${ROOTFS}"        # from --set
	}
}
EOF
expect_status 1 "$SDIMG" import mbr.cfg -o never.layout
expect_stderr 'mbr.cfg:17: variable ${ROOTFS} is not set'
[ ! -e never.layout ] || fail "a layout was left behind after an error"
sed -i 's/${ROOTFS}/rootfs.ext4/' mbr.cfg
check mbr.cfg mbr.img
grep -q '^    tree "/overlays"' mbr.img.layout || fail "a folder of files = {} is no tree"
grep -q '^    file "/zImage" { from = "Image" }' mbr.img.layout || fail "file zImage { image }"
grep -q 'partitions are off the 4 MiB erase-block grid' err.txt ||
    fail "no summary line on stderr"

# GPT: fixed GUIDs, align 1M (genimage's first usable LBA is the first partition's start),
# the entries moved to 64K, an ext4 from the root tree, autoresize in a sized image
cat >gpt.cfg <<'EOF'
include("vfat.cfg")
image root.ext4 { ext4 { label = "root" use-mke2fs = true } size = 16M }
image gpt.img {
	hdimage {
		partition-table-type = "gpt"
		align = 1M
		gpt-location = 64K
		disk-uuid = "11111111-2222-4333-8444-555555555555"
	}
	size = 48M
	partition boot {
		partition-type-uuid = U
		bootable = true
		image = "boot.vfat"
		partition-uuid = "11111111-2222-4333-8444-555555555556"
	}
	partition root {
		image = "root.ext4"
		partition-uuid = "11111111-2222-4333-8444-555555555557"
	}
	partition data {
		autoresize = true
		partition-uuid = "11111111-2222-4333-8444-555555555558"
	}
}
EOF
check gpt.cfg gpt.img

# GPT with a loader outside the table before the first partition, sizes from the files,
# the image's size genimage's (the backup table, then a 4 KiB boundary)
cat >gpt2.cfg <<'EOF'
image gpt2.img {
	hdimage { partition-table-type = gpt disk-uuid = 11111111-2222-4333-8444-555555555555 }
	partition loader { in-partition-table = false image = spl.bin offset = 32K }
	partition rootfs {
		partition-type-uuid = L
		image = rootfs.ext4
		partition-uuid = 11111111-2222-4333-8444-555555555559
	}
}
EOF
check gpt2.cfg gpt2.img

# a partition's name genimage takes as any string (a space, a brace): the layout quotes it,
# and the GPT entry's name is genimage's
cat >names.cfg <<'EOF'
image names.img {
	hdimage { partition-table-type = gpt disk-uuid = 11111111-2222-4333-8444-555555555555 }
	partition "boot part" {
		partition-type-uuid = L
		size = 1M
		partition-uuid = 11111111-2222-4333-8444-55555555555a
	}
	partition "we}ird" {
		partition-type-uuid = L
		size = 1M
		partition-uuid = 11111111-2222-4333-8444-55555555555b
	}
}
EOF
check names.cfg names.img

# no table: the image is its regions, as long as genimage's file (which ends with the last
# bytes it copied, whatever size the last region reserves): the same bytes throughout
head -c 8192 /dev/urandom >input/env.bin
cat >none.cfg <<'EOF'
image none.img {
	hdimage { partition-table-type = "none" }
	partition spl { image = "spl.bin" }
	partition env { image = "env.bin" offset = 128K size = 72K }
}
EOF
genimage_build none.cfg
expect_status 0 "$SDIMG" import none.cfg -I input -o none.layout
"$SDIMG" build -q none.layout -I input -o none.img
cmp out/none.img none.img || fail "table = none: not genimage's bytes"
# with the hdimage's fill, genimage's file reaches the end of the last region: so does sdimg's
sed 's/"none" }/"none" fill = true }/' none.cfg >fill.cfg
genimage_build fill.cfg
expect_status 0 "$SDIMG" import fill.cfg -I input -o fill.layout
"$SDIMG" build -q fill.layout -I input -o none.img
[ "$(stat -c %s none.img)" -eq $((200 * 1024)) ] || fail "fill: the image does not end with the last region"
cmp out/none.img none.img || fail "table = none, fill = true: not genimage's bytes"
# a file of no whole number of sectors (a table needs none): sdimg's image is as long
sed -i 's/size = 72K }/size = 72K }\n\tpartition odd { image = "spl.bin" offset = 300K }/' none.cfg
genimage_build none.cfg
expect_status 0 "$SDIMG" import none.cfg -I input -o odd.layout
"$SDIMG" build -q odd.layout -I input -o odd.img
[ "$(stat -c %s odd.img)" -eq 377200 ] || fail "table = none: the image is not 377200 bytes"
cmp out/none.img odd.img || fail "table = none, 377200 bytes: not genimage's bytes"

# a NOR flash image: the partitions one after the other, each its image then 0xff, a gap
# before a partition's offset and a partition without image 0xff too, the last one to the
# end of the flash: sdimg's image is genimage's, byte for byte
cat >nor.cfg <<'EOF'
flash nor-1M {
	pebsize = 65536
	numpebs = 16
}
image nor.img {
	flash {}
	flashtype = "nor-1M"
	partition loader { image = "spl.bin" size = 128K }
	partition env { size = 64K }
	partition kernel { image = "env.bin" offset = 320K size = 128K }
	partition rest { image = "cmdline.txt" }
}
EOF
genimage_build nor.cfg
expect_status 0 "$SDIMG" import nor.cfg -I input -o nor.layout
"$SDIMG" build -q nor.layout -I input -o nor.img
cmp out/nor.img nor.img || fail "flash: not genimage's bytes"

# a partition's fill and sparse (genimage's later releases have them; the installed one may
# not, so no genimage build here): fill = true and sparse = false in the layout, and the
# card holds the loader, then zeros written up to the partition's end
cat >pfill.cfg <<'EOF'
image pfill.img {
	hdimage {}
	partition loader { partition-type = 0x83 image = "spl.bin" size = 1M fill = true sparse = false }
	partition env { in-partition-table = false offset = 2M size = 64K fill = true }
}
EOF
expect_status 0 "$SDIMG" import pfill.cfg -I input -o pfill.layout
[ "$(grep -c 'fill = true' pfill.layout)" -eq 2 ] && grep -q 'sparse = false' pfill.layout ||
    fail "fill and sparse are not in the layout: $(cat pfill.layout)"
"$SDIMG" build -q pfill.layout -I input -o pfill.img
start=$(($(part_json pfill.img 1 start) * 512))
cmp -i $start:0 -n 70000 pfill.img input/spl.bin || fail "pfill: the loader is not spl.bin"
python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
for s, e in ((int(sys.argv[2]), int(sys.argv[2]) + 1048576), (2097152, 2097152 + 65536)):
    if os.lseek(fd, s, os.SEEK_DATA) != s or os.lseek(fd, s, os.SEEK_HOLE) < e:
        sys.exit("bytes %d-%d are not all data of the image" % (s, e - 1))
' pfill.img $start || fail "pfill: the fill is not written"

# MBR with logical partitions: the fifth in the table and after are logical, each after an
# EBR in the sector before it (genimage's, with align 512); the table and the MBR the same
cat >ext.cfg <<'EOF'
image ext.img {
	hdimage {}
	partition a { partition-type = 0x83 image = "env.bin" }
	partition b { partition-type = 0x83 image = "env.bin" }
	partition c { partition-type = 0x83 image = "env.bin" }
	partition d { partition-type = 0x83 image = "env.bin" }
	partition e { partition-type = 0x0c image = "env.bin" size = 64K }
}
EOF
check ext.cfg ext.img
grep -q 'link to the next with type 0x05' err.txt || fail "no note on the EBRs' link type"

# what cannot be imported: one line naming FILE:LINE, nothing written
# refused NAME MESSAGE: the config on stdin, as NAME.cfg, is refused with MESSAGE
refused() {
    cat >"$1.cfg"
    expect_status 1 "$SDIMG" import "$1.cfg" -I input -o "$1.layout"
    expect_stderr "$2"
    [ ! -e "$1.layout" ] || fail "$1.layout written"
}
printf 'image h.img {\n\thdimage {\n\t\tpartition-table-type = "hybrid"\n\t}\n}\n' |
    refused hybrid 'hybrid.cfg:2: hdimage: partition-table-type = hybrid cannot be imported'
grep -qF 'table = hybrid with hybrid-ee = last' err.txt || fail "the refusal names no hybrid-ee = last"
# what it says holds: genimage's hybrid MBR lists the mirrored partition first and the 0xEE
# entry after it, as hybrid-ee = last does
cat >hy.cfg <<'EOF'
image hy.img {
	hdimage {
		partition-table-type = "hybrid"
		disk-uuid = "8e1b5d6a-0c63-4a3b-9c7e-2f4d1a6b3c5d"
	}
	partition boot {
		partition-type = 0x0c
		partition-uuid = "0f6c3a9e-5b1d-4e2a-8c7f-3d9b6e1a4c2f"
		image = "spl.bin"
		offset = 1M
		size = 1M
	}
}
EOF
genimage_build hy.cfg
cat >hy.layout <<'LAYOUT'
image { size = 4M table = hybrid hybrid-ee = last align = 1M }
partition boot { size = 1M start = 1M mbr-type = 0x0c hybrid = true }
LAYOUT
"$SDIMG" build -q -o hy.img hy.layout
for img in out/hy.img hy.img; do # entry 1: type 0x0c from LBA 2048; entry 2: type 0xEE
    [ "$(le $img 450 1) $(le $img 454 4) $(le $img 466 1)" = "12 2048 238" ] ||
        fail "$img: MBR entries $(bytes $img 446 32)"
done
printf 'image x.img {\n\thdimage {}\n\tpartition a { image = "missing.bin" }\n}\n' |
    refused missing "missing.cfg:3: image 'missing.bin' is not there"
printf 'image x.img {\n\thdimage {\n\t\talign = 1M\n\t}\n\tpartition a { image = }\n}\n' |
    refused syntax "syntax.cfg:5: expected a value or '{', found '}'"
printf 'image x.img {\n\thdimage {\n\t\tgpt = true\n\t\tgpt-no-backup = true\n\t}\n}\n' |
    refused nobackup "nobackup.cfg:4: hdimage: 'gpt-no-backup' cannot be imported"
printf 'image x.img {\n\thdimage {}\n\tpartition a {\n\t\tpartition-uuid = %%PARTUUID%%\n\t}\n}\n' |
    refused template "template.cfg:4: partition-uuid: '%PARTUUID%' is a template's placeholder"
printf 'flash nor {\n\tpebsize = 64K\n\tnumpebs = 4\n}\nimage nor.img {\n\tflash {}\n\tflashtype = "nor"\n\tpartition a {}\n\tpartition b { size = 64K }\n}\n' |
    refused flash "flash.cfg:8: partition 'a': only the last partition may have no size"
printf 'image x.img {\n\thdimage {}\n\tpartition a {\n\t\timage = "env.bin"\n\t}\n}\n' |
    refused notype "notype.cfg:3: partition 'a': no partition-type: genimage writes type 0"

# a config over the 1 MiB bound: the bound is named, read directly or through include()
head -c 1100000 /dev/zero | tr '\0' '#' | refused huge "huge.cfg: too large: a genimage config holds at most 1 MiB"
printf 'include("huge.cfg")\n' | refused inchuge 'inchuge.cfg:1: include("./huge.cfg"): too large: a genimage config holds at most 1 MiB'
# -o never writes over what the import read: the configuration, a file it includes, an input
# whose size placed a partition (each is left as it was)
printf 'image self.img {\n\thdimage {}\n\tpartition p {\n\t\tpartition-type = 0x83\n\t\timage = "measured.bin"\n\t}\n}\n' >inc.cfg
printf 'include("inc.cfg")\n' >top.cfg
head -c 3000 /dev/urandom >measured.bin
for f in top.cfg inc.cfg measured.bin; do
    cp "$f" "$f.before"
    expect_status 1 "$SDIMG" import top.cfg -o "$f"
    expect_stderr "$f: a file the import read (the configuration, a file it includes or an input it measured): write the layout elsewhere"
    cmp -s "$f" "$f.before" || fail "import -o $f wrote over it"
done
expect_status 0 "$SDIMG" import top.cfg -o top.layout
echo "import_genimage: ok"
