#!/bin/sh
# SPDX-License-Identifier: MIT
# sdimg flash writes a built card to four loop devices at once, each over a file of 0xEE:
# for an MBR and a GPT card (a boot loader at 8K, a FAT32 partition of files and folders,
# an ext4 raw partition from mke2fs -d) every loop device's mapped ranges hold the image's
# bytes (the bmap parsed here, its checksums recomputed), its unmapped blocks keep 0xEE,
# sfdisk reads the image's table from it (sgdisk -v finds the GPT sound: its targets are the
# image's size, the backup GPT at their end; the MBR card's are 1 MiB larger, and the bytes
# past the image keep 0xEE too), fsck.fat -n and
# mtools read the FAT partition back as the tree, e2fsck -fn passes the ext4 partition, and
# the --json report says pass for each with bytes_written = bytes_verified = the mapped bytes.
. "$TOP/tests/e2e/lib/flash.sh"
need jq sfdisk sgdisk fsck.fat mcopy mke2fs e2fsck sha256sum
need_loops
flash_trap
make_inputs

for table in mbr gpt; do
    echo "== $table"
    write_layout $table
    build_card card.layout card.img
    check_ranges card.img "" card.img.bmap
    extra=0
    [ $table = gpt ] || extra=1048576
    fill_ee ee.cache $((size + extra))
    devs=
    for i in 1 2 3 4; do
        dev=$(ee_loop t$i $((size + extra)))
        devs="$devs $dev"
    done
    start=$(now_ms)
    expect_status 0 "$SDIMG" flash card.img $devs --allow-fixed --json
    echo "flashed $mapped of $size bytes to$devs in $(($(now_ms) - start)) ms"
    cp out.txt report.json
    [ "$(jq -r .image.mapped_bytes report.json)" = "$mapped" ] ||
        fail "the report's mapped_bytes $(jq -r .image.mapped_bytes report.json), the bmap maps $mapped"
    [ "$(jq -r .image.bmap report.json)" = card.img.bmap ] || fail "the bmap used: $(jq -r .image.bmap report.json)"
    [ "$(jq '.targets | length' report.json)" = 4 ] || fail "the report lists $(jq '.targets | length' report.json) targets"
    grep -q 'pass' err.txt || fail "no summary on stderr with --json: $(cat err.txt)"
    for dev in $devs; do
        expect_pass report.json "$dev" "$mapped"
        [ "$(tj report.json "$dev" gap_bytes)" = 0 ] || fail "$dev: gap_bytes with --gaps keep"
        check_ranges "$dev" card.img card.img.bmap
        # unmapped blocks (the first stretch, and the card past the image) keep their 0xEE
        set -- $(bmap_gaps card.img.bmap "$size" | head -1)
        all_bytes "$dev" "$1" "$2" 356 || fail "$dev: the unmapped bytes $1-$(($2 - 1)) lost their 0xEE"
        [ $extra -eq 0 ] || all_bytes "$dev" "$size" $((size + extra)) 356 ||
            fail "$dev: the bytes past the image changed"
        same_table card.img "$dev"
        if [ $table = gpt ]; then
            sgdisk -v "$dev" >sgdisk.out 2>&1 || fail "sgdisk -v $dev: $(cat sgdisk.out)"
            grep -q "No problems found" sgdisk.out || fail "sgdisk -v $dev: $(cat sgdisk.out)"
        fi
        check_partitions "$dev"
        echo "$dev: pass, mapped ranges equal, table, FAT and ext4 clean"
    done
    for dev in $devs; do loop_detach "$dev"; done
    rm -f t?.bin card.img card.img.bmap
done
exit 0
