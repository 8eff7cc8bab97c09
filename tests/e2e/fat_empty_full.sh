#!/bin/sh
# SPDX-License-Identifier: MIT
# An empty volume of each type (with and without a label), and a full one: every cluster used
# (fsck.fat counts them; FAT32's FSInfo says 0 free); one byte more is refused.
. "$TOP/tests/e2e/lib/fatcheck.sh"
need_tools fsck.fat mcopy mdir 7z od

mkdir empty
for type in 12 16 32; do
    size=$((type == 32 ? 40 * 1048576 : 4 * 1048576)) cs=$((type == 12 ? 4096 : 512))
    "$FATWRITE" -t $type -c $cs e.img $size empty || fail "empty FAT$type"
    check_all e.img empty
    "$FATWRITE" -t $type -c $cs -l EMPTY e.img $size empty || fail "empty FAT$type with label"
    check_all e.img empty
    mdir -i e.img ::/ | grep -q "Volume in drive : is EMPTY" || fail "FAT$type: label entry"
done

# only what is not zero is written: an empty 1 GiB FAT32 volume stays a sparse file
"$FATWRITE" -t 32 -c 4096 s.img 1073741824 empty || fail "empty 1 GiB FAT32"
used=$(du -k s.img | cut -f1)
[ "$used" -le 256 ] || fail "an empty 1 GiB volume takes $used KiB on disk"
fsck_clean s.img
rm -f s.img

# full: find the cluster count, then one file that takes every cluster left
for type in 12 16 32; do
    size=$((type == 32 ? 40 * 1048576 : 8 * 1048576)) cs=$((type == 12 ? 4096 : 512))
    rm -rf full && mkdir full
    "$FATWRITE" -s -t $type -c $cs f.img $size empty >geom.txt || fail "FAT$type geometry"
    clusters=$(sed 's/.*clusters=\([0-9]*\).*/\1/' geom.txt)
    free=$((type == 32 ? clusters - 1 : clusters))    # the FAT32 root takes one cluster
    head -c $((free * cs)) /dev/urandom >full/all.bin
    "$FATWRITE" -t $type -c $cs f.img $size full || fail "full FAT$type"
    fsck.fat -n f.img | grep -q " $clusters/$clusters clusters" || fail "FAT$type is not full: $(fsck.fat -n f.img)"
    check_all f.img full
    if [ $type = 32 ]; then
        [ "$(le f.img $((512 + 488)) 4)" -eq 0 ] || fail "FSInfo free count on a full volume"
        [ "$(le f.img $((512 + 492)) 4)" -eq 4294967295 ] || fail "FSInfo next free on a full volume"
    fi
    printf x >>full/all.bin
    if "$FATWRITE" -t $type -c $cs f.img $size full 2>err.txt; then fail "FAT$type: one byte too many accepted"; fi
    grep -q "clusters of" err.txt || fail "FAT$type overfull: $(cat err.txt)"
    echo "FAT$type: $clusters clusters, full"
done
