#!/bin/sh
# SPDX-License-Identifier: MIT
# bmaptool (bmap-tools) writes a card sdimg built, guided by the bmap sdimg wrote beside it,
# and the card works: for an MBR and a GPT card with a boot loader at 8K, a FAT partition of
# files and folders and an ext4 raw partition, `bmaptool copy` of card.img and of card.img.zst
# (which finds card.img.bmap by itself) onto a file and onto a loop device that held 0xEE
# bytes gives every mapped range the image's bytes, a FAT partition that fsck.fat -n passes
# and mtools reads back as the source tree, and an ext4 partition that e2fsck -fn passes.
# Ranges that are holes in card.img yet mapped (a FAT's zero tail, the boot loader's
# reserved space) are written by bmaptool: zeros on the device where 0xEE was, allocated
# zeros in a target file. Loop devices are skipped, with a word, where none can be made.
. "$TOP/tests/e2e/lib/ship.sh"
need bmaptool fsck.fat mcopy mke2fs e2fsck sfdisk jq python3 zstd sha256sum
loop_trap
make_inputs

# the ext4 image is sparse (its journal and unused inode tables were never written)
ext_data=$(data_extents root.ext4 | awk '{ n += $2 - $1 } END { print n + 0 }')
[ "$ext_data" -lt $((32 * 1048576)) ] || fail "root.ext4 is not sparse: $ext_data bytes of data"

loops_tried=no
for table in mbr gpt; do
    echo "== $table"
    write_layout $table
    rm -rf $table && mkdir $table
    "$SDIMG" build -q --bmap --compress zst -o $table/card.img card.layout || fail "$table: build"
    img=$table/card.img bmap=$table/card.img.bmap
    [ -f $img ] && [ -f $img.zst ] && [ -f $bmap ] || fail "$table: outputs missing: $(ls $table)"
    size=$(stat -c %s $img)
    [ "$(bmap_value $bmap ImageSize)" = "$size" ] || fail "$table: ImageSize is not $size"
    [ "$(bmap_value $bmap BlocksCount)" = $((size / 4096)) ] || fail "$table: BlocksCount"
    [ "$(bmap_value $bmap ChecksumType)" = sha256 ] || fail "$table: ChecksumType"
    mapped_blocks=$(bmap_blocks $bmap | awk '{ n += $2 - $1 + 1 } END { print n }')
    [ "$(bmap_value $bmap MappedBlocksCount)" = "$mapped_blocks" ] ||
        fail "$table: MappedBlocksCount is not the sum of the ranges ($mapped_blocks)"

    # the image's own bytes have the bmap's checksums (computed here with sha256sum)
    check_sums $img $bmap

    # what the bmap must map: the table, the boot loader's whole region, each FAT volume
    # from its start through its data area, every data extent of the ext4 image
    mapped $bmap 0 512 "sector 0"
    mapped $bmap 8192 $((8192 + 1000 * 1024)) "the boot loader's region"
    if [ $table = gpt ]; then
        mapped $bmap 512 1024 "the GPT header"
        mapped $bmap $((2 * 1048576)) $((2 * 1048576 + 16384)) "the GPT entries"
        mapped $bmap $((size - 33 * 512)) "$size" "the backup GPT"
    fi
    fs=$(part_start $img 1)
    mapped $bmap "$fs" "$(data_start $img "$fs")" "the FAT volume up to its data area"
    es=$(part_start $img 2)
    data_extents root.ext4 >ext-extents.txt
    while read -r s e; do
        mapped $bmap $((es + s)) $((es + e)) "root.ext4 bytes $s-$((e - 1))"
    done <ext-extents.txt
    # and not everything: the free space of the FAT volume and of the card is not mapped
    [ "$mapped_blocks" -lt $((size / 4096 / 4)) ] || fail "$table: $mapped_blocks blocks mapped"

    # mapped stretches that are holes in card.img: some in the FAT volume, some in the boot
    # loader's region (its 1000K hold a 40000-byte file)
    holes_in_ranges $img $bmap >holes.txt
    awk -v s="$fs" -v e=$((fs + $(part_size $img 1))) '$1 >= s && $2 <= e { f = 1 } END { exit !f }' \
        holes.txt || fail "$table: no mapped hole in the FAT volume: $(cat holes.txt)"
    awk '$1 >= 8192 && $2 <= 8192 + 1024000 { f = 1 } END { exit !f }' holes.txt ||
        fail "$table: no mapped hole in the boot loader's region: $(cat holes.txt)"
    echo "$(bmap_blocks $bmap | wc -l) ranges, $mapped_blocks blocks mapped, $(wc -l <holes.txt) mapped holes"

    # onto a file that held 0xEE (bmaptool truncates a regular file first: its unmapped
    # blocks become holes, so the mapped holes must be there as written zeros)
    for src in $img $img.zst; do
        fill_ee target.bin "$size"
        bmaptool copy "$src" target.bin >copy.log 2>&1 || fail "bmaptool copy $src target.bin: $(cat copy.log)"
        grep -q "discovered bmap file '$bmap'" copy.log || fail "bmaptool did not find $bmap: $(cat copy.log)"
        check_sums target.bin $bmap
        check_partitions target.bin
        zeros_written target.bin holes.txt allocated
        echo "$src onto a file: the same mapped ranges, fsck.fat, mtools and e2fsck clean"
    done

    # onto a loop device over a file of 0xEE: its unmapped blocks keep 0xEE
    loops_tried=yes
    fill_ee ee.blk 4096
    for src in $img $img.zst; do
        fill_ee dev.bin "$size"
        dev=$(loop_try dev.bin)
        if [ -z "$dev" ]; then
            loops_tried=none
            break
        fi
        bmaptool copy "$src" "$dev" >copy.log 2>&1 || fail "bmaptool copy $src $dev: $(cat copy.log)"
        grep -q "to block device '$dev'" copy.log || fail "bmaptool did not see a block device: $(cat copy.log)"
        check_sums "$dev" $bmap
        check_partitions "$dev"
        zeros_written "$dev" holes.txt
        free=$(first_unmapped $bmap)
        dd if="$dev" bs=4096 skip="$free" count=1 status=none | cmp -s - ee.blk ||
            fail "$dev: unmapped block $free lost its 0xEE (bmaptool wrote it?)"
        # the partitions as block devices of their own
        fz=$(part_size "$dev" 1) ez=$(part_size "$dev" 2)
        loop_detach "$dev"
        pdev=$(loop_attach dev.bin -r --offset "$fs" --sizelimit "$fz")
        fsck.fat -n "$pdev" >fsck.out 2>&1 || fail "fsck.fat -n $pdev: $(cat fsck.out)"
        loop_detach "$pdev"
        pdev=$(loop_attach dev.bin -r --offset "$es" --sizelimit "$ez")
        e2fsck -fn "$pdev" >e2fsck.out 2>&1 || fail "e2fsck -fn $pdev: $(cat e2fsck.out)"
        loop_detach "$pdev"
        echo "$src onto a loop device: the same mapped ranges, zeros in the mapped holes, 0xEE elsewhere, fsck.fat, mtools and e2fsck clean"
    done
done

# an image whose size is not a multiple of the 4 KiB block: a raw region ends in its
# partial last block, which the bmap maps (hashed at its real length) and bmaptool writes
echo "== an image of 16385 sectors"
head -c 2048 /dev/urandom >tail.bin
cat >odd.layout <<'LAYOUT'
image { size = 16385s table = mbr seed = "odd" }
raw tail { offset = 8387072 from = "tail.bin" }
partition boot { type = fat12 size = 2M fat { cluster-size = 512 data-align = 512 } tree "/" { from = "tree/docs" } }
LAYOUT
"$SDIMG" build -q --bmap -o odd.img odd.layout || fail "build odd.layout"
size=$(stat -c %s odd.img)
[ "$size" -eq $((16385 * 512)) ] || fail "odd.img is $size bytes"
[ "$(bmap_value odd.img.bmap BlocksCount)" -eq $((size / 4096 + 1)) ] || fail "odd.img.bmap: BlocksCount"
[ "$(bmap_blocks odd.img.bmap | tail -1 | cut -d' ' -f2)" -eq $((size / 4096)) ] ||
    fail "odd.img.bmap does not map the partial last block"
check_sums odd.img odd.img.bmap
fill_ee target.bin "$size"
bmaptool copy odd.img target.bin >copy.log 2>&1 || fail "bmaptool copy odd.img: $(cat copy.log)"
[ "$(stat -c %s target.bin)" -eq "$size" ] || fail "the target file is $(stat -c %s target.bin) bytes"
same_bytes target.bin 8387072 tail.bin
check_sums target.bin odd.img.bmap
fill_ee dev.bin "$size"
dev=$(loop_try dev.bin)
if [ -n "$dev" ]; then
    bmaptool copy odd.img "$dev" >copy.log 2>&1 || fail "bmaptool copy odd.img $dev: $(cat copy.log)"
    loop_detach "$dev"
    same_bytes dev.bin 8387072 tail.bin
    check_sums dev.bin odd.img.bmap
fi
echo "odd.img: the partial last block is mapped and copied"

rm -f target.bin dev.bin
[ "$loops_tried" = none ] && echo "SKIPPED PART: no loop device can be made here (losetup -f failed): the block-device copies were not run"
exit 0
