#!/bin/sh
# SPDX-License-Identifier: MIT
# exfat { sd-format = true }: whole SDXC cards of 64 GB, 128 GB, 256 GB and 1 TB (sparse
# images) laid out as the SD Association's formatter does (SD Part 2 File System
# Specification, the SDXC rows): checked field by field from the MBR and the exFAT boot sector
# against the table (partition start = boundary unit BU, FatOffset = BU / 2, ClusterHeapOffset
# = BU, cluster size 128K up to 128 GiB, 256K up to 512 GiB, 512K up to 2 TiB, one FAT, the
# partition to the card's end, MBR type 0x07), fsck.exfat -n clean, exfat-fuse reading a file
# back. The empty 64 GB card's build time and allocated size are printed.
. "$TOP/tests/e2e/lib/exfatcheck.sh"
exfat_need
need du date

mkdir -p src
printf 'on an SDXC card\n' >src/readme.txt

# card bytes, BU (sectors), SectorsPerClusterShift
while read -r bytes bu shift; do
    sectors=$((bytes / 512))
    printf 'image { size = %s seed = "sdxc" }\npartition card { type = exfat size = grow\n  exfat { sd-format = true label = "SDXC" }\n  tree "/" { from = "src" } }\n' \
        "$bytes" >sd.layout
    expect_status 0 "$SDIMG" build -q -o sd.img sd.layout
    [ "$(le sd.img 450 1)" -eq 7 ] || fail "$bytes: MBR type $(le sd.img 450 1)"
    [ "$(le sd.img 454 4)" -eq "$bu" ] || fail "$bytes: partition start $(le sd.img 454 4), BU $bu"
    [ "$(le sd.img 458 4)" -eq $((sectors - bu)) ] || fail "$bytes: partition size $(le sd.img 458 4)"
    v=$((bu * 512))
    [ "$(dd if=sd.img bs=1 skip=$((v + 3)) count=8 status=none)" = "EXFAT   " ] || fail "$bytes: no exFAT boot sector at BU"
    [ "$(le sd.img $((v + 64)) 8)" -eq "$bu" ] || fail "$bytes: PartitionOffset $(le sd.img $((v + 64)) 8)"
    [ "$(le sd.img $((v + 72)) 8)" -eq $((sectors - bu)) ] || fail "$bytes: VolumeLength"
    [ "$(le sd.img $((v + 80)) 4)" -eq $((bu / 2)) ] || fail "$bytes: FatOffset $(le sd.img $((v + 80)) 4), want $((bu / 2))"
    [ "$(le sd.img $((v + 88)) 4)" -eq "$bu" ] || fail "$bytes: ClusterHeapOffset $(le sd.img $((v + 88)) 4), want $bu"
    [ "$(le sd.img $((v + 109)) 1)" -eq "$shift" ] || fail "$bytes: SectorsPerClusterShift $(le sd.img $((v + 109)) 1), want $shift"
    [ "$(le sd.img $((v + 110)) 1)" -eq 1 ] || fail "$bytes: NumberOfFats"
    clusters=$(le sd.img $((v + 92)) 4)
    [ "$clusters" -eq $(((sectors - 2 * bu) >> shift)) ] || fail "$bytes: ClusterCount $clusters"
    extract sd.img "$v" $((bytes - v)) vol.img
    exfat_clean vol.img
    exfat_same vol.img src
    echo "$bytes bytes: start $bu, FAT at +$((bu / 2)), heap at +$bu, $((512 << shift >> 10)) KiB clusters x $clusters"
    rm -f sd.img vol.img
done <<LIST
64000000000 32768 8
128000000000 32768 8
256000000000 65536 9
1000000000000 131072 10
LIST

# the empty 64 GB card: its time and what it allocates
printf 'image { size = 64000000000 }\npartition card { type = exfat size = grow exfat { sd-format = true } }\n' >empty.layout
t0=$(date +%s%N)
"$SDIMG_REAL" build -q -o empty.img empty.layout || fail "empty 64 GB sd-format"
t1=$(date +%s%N)
kib=$(du -k empty.img | cut -f1)
[ "$kib" -le 4096 ] || fail "the empty 64 GB card allocates $kib KiB"
extract empty.img 16777216 $((64000000000 - 16777216)) vol.img
exfat_clean vol.img
echo "empty 64 GB sd-format: $(((t1 - t0) / 1000000)) ms, $kib KiB allocated"
