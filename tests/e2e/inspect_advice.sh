# SPDX-License-Identifier: MIT
# sdimg inspect's advice works when followed: the cluster size it suggests keeps the volume's
# FAT type and builds, data-align names the image's align as its default, and the free
# ranges hold no EBR. The volumes come from mkfs.fat and from sdimg itself.
. "$TOP/tests/e2e-lib.sh"
need jq sfdisk mkfs.fat

M=1048576
# message IMG PART CODE: the message of the finding CODE for PART, or nothing
message() {
    "$SDIMG" inspect --json "$1" | jq -r --argjson p "$2" --arg c "$3" \
        '[.findings[] | select(.partition == $p and .code == $c)][0].message // empty'
}

# follow NAME TYPE SIZE ADVICE: the layouts the cluster-size ADVICE describes build, and the
# volume they make draws no cluster-size advice of its own
follow() {
    name=$1 type=$2 size=$3 advice=$4
    cs=$(printf '%s\n' "$advice" | sed -n 's/.*cluster-size = \([0-9]*[KM]*\) }.*/\1/p')
    [ -n "$cs" ] || fail "$name: no cluster size in the advice: $advice"
    case $advice in
        *"type = fat$type with fat {"*) types="fat$type" ;;
        *) types="fat fat$type" ;;
    esac
    for t in $types; do
        printf 'image { size = %s }\npartition p { type = %s start = 4M size = %s fat { cluster-size = %s } }\n' \
            $((size + 8 * M)) "$t" "$size" "$cs" >follow.layout
        expect_status 0 "$SDIMG" build -q -o follow.img follow.layout
        [ -z "$(message follow.img 1 cluster-size)" ] || fail "$name: following '$advice' draws more advice"
        expect_status 0 "$SDIMG" inspect --json follow.img
        jq -e --argjson t "$type" '.partitions[0].fat.type == $t' out.txt >/dev/null ||
            fail "$name: following the advice ($t, $cs) changed the FAT type"
    done
}

# sdimg's FAT16 of 32M (the SD table would make it FAT12 with 16K clusters): no advice that
# needs FAT12
printf 'partition boot { type = fat16 size = 32M }\n' >f16.layout
expect_status 0 "$SDIMG" build -q -o f16.img f16.layout
expect_status 0 "$SDIMG" inspect f16.img
grep -q "cluster-size = 16K" out.txt && fail "advice that cannot build: $(grep cluster-size out.txt)"
a=$(message f16.img 1 cluster-size)
[ -z "$a" ] || follow "sdimg FAT16 32M" 16 $((32 * M)) "$a"

# mkfs.fat volumes in a partition at 4M, with clusters far from sdimg's: the advice is there,
# and following it builds (TYPE KIB SECTORS-PER-CLUSTER)
for v in "16 32768 1" "12 8192 4" "32 307200 1"; do
    set -- $v
    type=$1 kib=$2 spc=$3
    rm -f vol.img card.img
    mkfs.fat -F "$type" -s "$spc" -h 8192 -C vol.img "$kib" >/dev/null
    truncate -s $((kib * 1024 + 8 * M)) card.img
    echo "start=8192, size=$((kib * 2)), type=c" | sfdisk -q card.img
    dd if=vol.img of=card.img bs=1M seek=4 conv=notrunc,sparse status=none
    a=$(message card.img 1 cluster-size)
    [ -n "$a" ] || fail "mkfs.fat FAT$type $kib KiB, $spc sectors per cluster: no cluster-size advice"
    follow "mkfs.fat FAT$type" "$type" $((kib * 1024)) "$a"

    # data-align: the image's align is its default, and following the advice aligns it
    a=$(message card.img 1 data-misaligned)
    case $a in
        *"fat { data-align = 4M } (the default data-align is the image's align: unless set, 4M, or the SD allocation unit of an image above 32 GiB)"*) ;;
        *) fail "mkfs.fat FAT$type: data-align advice: $a" ;;
    esac
    case $a in *"(its default)"*) fail "mkfs.fat FAT$type: data-align 4M called the default: $a" ;; esac
    printf 'image { size = %s align = 1M }\npartition p { type = fat%s start = 4M size = %s fat { cluster-size = %s data-align = 4M } }\n' \
        $((kib * 1024 + 8 * M)) "$type" $((kib * 1024)) $((spc * 512)) >align.layout
    expect_status 0 "$SDIMG" build -q -o align.img align.layout
    [ -z "$(message align.img 1 data-misaligned)" ] || fail "FAT$type: data-align = 4M did not align"
done

# free ranges: never an EBR (sfdisk puts one in front of each logical partition)
rm -f ebr.img && truncate -s 64M ebr.img
printf 'start=2048, size=8192, type=c\nstart=16384, type=5\nstart=20480, size=4096, type=83\nstart=32768, size=4096, type=83\n' |
    sfdisk -q ebr.img
expect_status 0 "$SDIMG" inspect --json ebr.img
ext=$(le ebr.img $((446 + 16 + 8)) 4)
ebrs=$ext
next=$(le ebr.img $((ext * 512 + 446 + 16 + 8)) 4)
[ "$next" -ne 0 ] || fail "sfdisk wrote one EBR only"
ebrs="$ebrs $((ext + next))"
for e in $ebrs; do
    [ "$(od -An -tx1 -j $((e * 512 + 510)) -N 2 ebr.img | tr -d ' ')" = 55aa ] || fail "no EBR at sector $e"
    jq -e --argjson b $((e * 512)) '[.free[] | select(.start <= $b and $b < .start + .size)] | length == 0' \
        out.txt >/dev/null || fail "the EBR at byte $((e * 512)) is in a free range: $(jq -c .free out.txt)"
done
# the space around them is free: before partition 5 and before partition 6
jq -e '[.free[] | [.start, .size]] | index([[8389120, 2096640]]) and index([[15729152, 1048064]])' \
    out.txt >/dev/null || fail "free ranges: $(jq -c .free out.txt)"

# The exFAT heap's advice on an SDXC card of two partitions names keys that put the heap on
# the allocation unit (exfat { sd-format } lays out a card of one partition only); the
# partition already starts on the unit, so its align is not named (data-align counts from
# the start of the image)
printf 'image { size = 64G }\npartition a { type = fat32 size = 100M }\npartition x { type = exfat size = grow exfat { data-align = 4M } }\n' >heap.layout
expect_status 0 "$SDIMG" build -q -o heap.img heap.layout
advice=$(message heap.img 2 heap-misaligned)
case $advice in
    *"; align = "*) fail "heap advice names an align the partition already has: $advice" ;;
    *"its clusters start off the 16 MiB grid; exfat { data-align = 16M } puts it there"*) ;;
    *) fail "heap advice on a card of two partitions: $advice" ;;
esac
sed 's/data-align = 4M/data-align = 16M/' heap.layout >heap2.layout
expect_status 0 "$SDIMG" build -q -o heap2.img heap2.layout
[ -z "$(message heap2.img 2 heap-misaligned)" ] || fail "the heap advice, followed, still draws the finding"
rm -f heap.img heap2.img
