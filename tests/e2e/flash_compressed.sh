#!/bin/sh
# Compressed images: `sdimg build --bmap -o card.img.zst` writes card.img.zst and
# card.img.bmap; `sdimg flash card.img.zst` finds card.img.bmap by itself, decompresses
# once and writes three loop devices of 0xEE at once: all pass, every mapped range reads
# back as the raw image holds it (built from the same layout, and zstd -d of the .zst), the
# FAT and ext4 partitions are clean. The .xz and .gz outputs flash the same to one each.
. "$TOP/tests/e2e/lib/flash.sh"
need jq zstd sfdisk fsck.fat mcopy mke2fs e2fsck sha256sum
need_loops
flash_trap
make_inputs
write_layout mbr
"$SDIMG" build -q --bmap -o raw.img card.layout || fail "build raw.img"
"$SDIMG" build -q --bmap -o card.img.zst card.layout || fail "build card.img.zst"
[ -f card.img.zst ] && [ -f card.img.bmap ] && [ ! -e card.img ] || fail "outputs: $(ls)"
zstd -q -d -o unzstd.img card.img.zst || fail "zstd -d card.img.zst"
cmp -s raw.img unzstd.img || fail "card.img.zst is not raw.img"
[ "$(bmap_ranges raw.img.bmap)" = "$(bmap_ranges card.img.bmap)" ] || fail "the two bmaps map differently"
size=$(stat -c %s raw.img)
mapped=$(bmap_mapped card.img.bmap)
fill_ee ee.cache "$size"
devs=
for i in 1 2 3; do devs="$devs $(ee_loop t$i "$size")"; done

start=$(now_ms)
expect_status 0 "$SDIMG" flash card.img.zst $devs --allow-fixed --json
echo "card.img.zst ($(stat -c %s card.img.zst) bytes) to$devs in $(($(now_ms) - start)) ms"
cp out.txt report.json
[ "$(jq -r .image.bmap report.json)" = card.img.bmap ] || fail "the bmap found: $(jq -r .image.bmap report.json)"
[ "$(jq -r .image.size report.json)" = "$size" ] || fail "the image's size: $(jq -r .image.size report.json)"
[ "$(jq -r .image.mapped_bytes report.json)" = "$mapped" ] || fail "mapped_bytes $(jq -r .image.mapped_bytes report.json)"
grep -q "no bmap" err.txt && fail "a warning of no bmap: $(cat err.txt)"
for dev in $devs; do
    expect_pass report.json "$dev" "$mapped"
    check_ranges "$dev" raw.img card.img.bmap
    same_table raw.img "$dev"
    check_partitions "$dev"
    echo "$dev: pass, mapped ranges equal the raw image, FAT and ext4 clean"
done
for dev in $devs; do loop_detach "$dev"; done

for kind in xz gz; do
    "$SDIMG" build -q --bmap -o c$kind.img.$kind card.layout || fail "build c$kind.img.$kind"
    dev=$(ee_loop t$kind "$size")
    expect_status 0 "$SDIMG" flash c$kind.img.$kind "$dev" --allow-fixed --json
    cp out.txt report.json
    [ "$(jq -r .image.bmap report.json)" = c$kind.img.bmap ] || fail "$kind: the bmap found: $(jq -r .image.bmap report.json)"
    expect_pass report.json "$dev" "$mapped"
    check_ranges "$dev" raw.img c$kind.img.bmap
    loop_detach "$dev"
    echo "c$kind.img.$kind: pass, mapped ranges equal the raw image"
done
exit 0
