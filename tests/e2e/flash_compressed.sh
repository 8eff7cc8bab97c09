#!/bin/sh
# SPDX-License-Identifier: MIT
# Compressed images: `sdimg build --bmap -o card.img.zst` writes card.img.zst and
# card.img.bmap; `sdimg flash card.img.zst` finds card.img.bmap by itself, decompresses
# once and writes three loop devices of 0xEE at once: all pass, every mapped range reads
# back as the raw image holds it (built from the same layout, and zstd -d of the .zst), the
# FAT and ext4 partitions are clean. The .xz and .gz outputs flash the same to one each.
# Other tools' compressions, without a bmap (the image written whole): pzstd's (a skippable
# frame first), bzip2, lz4 (frame and legacy), legacy lzma each pass, and the card reads back
# the raw image byte for byte. Refused (exit 1, one line, the card untouched): a raw image
# named .zst, a bzip2 named .gz, a cut bzip2, lzip (known, not read here), an archive
# (NAME.tar.xz).
. "$TOP/tests/e2e/lib/flash.sh"
need jq zstd pzstd bzip2 lz4 lzma sfdisk fsck.fat mcopy mke2fs e2fsck sha256sum
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

# other tools' compressions (lzma at its fastest level: the format is the same): each
# decompressed whole onto the card
pzstd -q -p 2 raw.img -o p.img.zst || fail "pzstd"
[ "$(od -An -tx1 -N4 p.img.zst | tr -d ' ')" = 502a4d18 ] || fail "pzstd wrote no skippable frame first"
bzip2 -c raw.img >b.img.bz2 && lz4 -q -c raw.img >f.img.lz4 && lz4 -q -l -c raw.img >l.img.lz4 &&
    lzma -0 -c raw.img >a.img.lzma || fail "bzip2, lz4 or lzma"
for file in p.img.zst b.img.bz2 f.img.lz4 l.img.lz4 a.img.lzma; do
    dev=$(ee_loop "t$file" "$size")
    expect_status 0 "$SDIMG" flash "$file" "$dev" --allow-fixed --json
    cp out.txt report.json
    [ "$(jq -r .image.size report.json)" = "$size" ] || fail "$file: image.size $(jq -r .image.size report.json), not $size"
    [ "$(tj report.json "$dev" result)" = pass ] || fail "$file: $(tj report.json "$dev" error)"
    cmp -n "$size" raw.img "$dev" || fail "$file: the card does not hold raw.img"
    loop_detach "$dev"
    echo "$file: pass, the card holds the raw image"
done

# refused: the name says compressed over other bytes, a compression not read here, a cut
# stream, an archive
cp raw.img raw.img.zst
cp b.img.bz2 bz2.img.gz
head -c 20000 b.img.bz2 >cut.img.bz2
printf 'LZIP\001' >z.img.lz && cat raw.img >>z.img.lz
xz -0 -c raw.img >t.tar.xz
dev=$(ee_loop refused "$size")
for case in "raw.img.zst:named as zstd, but its bytes are not compressed" \
    "bz2.img.gz:named as gzip, but its bytes are bzip2" \
    "cut.img.bz2:not a valid bzip2 stream" \
    "z.img.lz:lzip-compressed, which flash cannot decompress" \
    "t.tar.xz:an archive of files, not a disk image"; do
    file=${case%%:*}
    expect_status 1 "$SDIMG" flash "$file" "$dev" --allow-fixed
    expect_stderr "sdimg: $file: ${case#*:}"
    all_bytes "$dev" 0 "$size" 356 || fail "$file: refused, yet the card was written"
    echo "$file: refused: $(cat err.txt)"
done
exit 0
