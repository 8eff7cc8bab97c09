# SPDX-License-Identifier: MIT
# Images without a bmap: a raw image's data extents are written and its holes, which are
# the image's zeros, are zeroed on the card (the default --gaps zero then): a card that held
# 0xEE reads back as a clean file system. A gzip file of several members (gzip -dc reads
# them all) is decompressed whole, not cut at its first member.
. "$TOP/tests/e2e/lib/flash.sh"
need jq sfdisk mke2fs fsck.fat mcopy gzip
need_loops
flash_trap
make_inputs
write_layout mbr
"$SDIMG" build -q -o card.img card.layout || fail "build"
size=$(stat -c %s card.img)

dev=$(ee_loop t "$size")
expect_status 0 "$SDIMG" flash card.img "$dev" --allow-fixed --json
grep -q "card.img: no bmap found (card.img.bmap): its data extents are written, and its holes are zeros" err.txt ||
    fail "no warning: $(cat err.txt)"
[ "$(jq -r '.targets[0].result' out.txt)" = pass ] || fail "report: $(cat out.txt)"
[ "$(jq -r '.targets[0].gap_bytes' out.txt)" -gt 0 ] || fail "no gap zeroed: $(cat out.txt)"
check_partitions "$dev"
cmp -n "$size" card.img "$dev" || fail "$dev differs from card.img"
echo "no bmap: the card equals the image, its file systems are clean"
loop_detach "$dev"

# two gzip members, as `cat a.gz b.gz` makes
half=$((size / 2))
head -c "$half" card.img | gzip -n -1 >two.img.gz
tail -c $((size - half)) card.img | gzip -n -1 >>two.img.gz
[ "$(gzip -dc two.img.gz | wc -c)" -eq "$size" ] || fail "gzip -dc does not give the image back"
dev=$(ee_loop u "$size")
expect_status 0 "$SDIMG" flash two.img.gz "$dev" --allow-fixed --json
[ "$(jq -r '.image.size' out.txt)" -eq "$size" ] || fail "two members read as $(jq -r '.image.size' out.txt) bytes, not $size"
cmp -n "$size" card.img "$dev" || fail "$dev differs from card.img"
echo "a gzip file of two members: read whole ($size bytes), written whole"
loop_detach "$dev"
