# An ext4 partition's size and cost: a large volume writes only what holds data (its inode
# tables and journal are holes of the image file, mapped in the bmap, and read back as
# zeros); with size = auto an error of the contents is said once, as it is; the size auto
# chooses is the smallest that works, and one MiB less does not.
. "$TOP/tests/e2e/lib/ext4.sh"
need e2fsck dumpe2fs sfdisk jq sha256sum

# a large volume: its inode tables (128 MiB) and journal (64 MiB) are not written, the
# image file holds little more than its superblocks and bitmaps; the bmap maps them all
cat >large.layout <<'LAYOUT'
image { size = 8G seed = "large" timestamp = 1700000000 }
partition rootfs { type = ext4 size = grow file "/etc/hostname" { content = "board" } }
LAYOUT
expect_status 0 "$SDIMG" build large.layout -o large.img --bmap
written=$(($(stat -c %b large.img) * $(stat -c %B large.img)))
[ "$written" -lt $((8 * 1048576)) ] || fail "an empty 8G ext4 volume wrote $written bytes"
ext4_clean large.img 1 pl.img
tables=$(dumpe2fs -h pl.img 2>/dev/null | awk -F: '/^Inode count/ { n = $2 } /^Inode size/ { s = $2 }
    END { print n * s }')
journal=$(dumpe2fs -h pl.img 2>/dev/null | awk -F: '/^Total journal size/ { print $2 }' | tr -d ' ')
[ "$journal" = 64M ] || fail "the journal is $journal, not 64M"
mapped=$(sed -n 's/.*<MappedBlocksCount> *\([0-9]*\) .*/\1/p' large.img.bmap)
[ $((mapped * 4096)) -gt $((tables + 64 * 1048576)) ] ||
    fail "the bmap maps $mapped blocks: less than the inode tables ($tables bytes) and the journal"
rm -f pl.img large.img large.img.bmap

# size = auto, a content error: said once, as it is (a trial's scratch volume is no excuse)
mkdir -p dup && printf 'a\n' >dup/a
build_refused dup "'a' is there already" <<'LAYOUT'
image { seed = "dup" timestamp = 1700000000 }
partition rootfs { type = ext4 size = auto tree "/" { from = "dup" } file "/a" { content = "x" } }
LAYOUT
