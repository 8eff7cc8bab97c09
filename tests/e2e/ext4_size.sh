# SPDX-License-Identifier: MIT
# An ext4 partition's size and cost: a large volume writes only what holds data (its inode
# tables and journal are holes of the image file, mapped in the bmap, and read back as
# zeros); with size = auto an error of the contents is said once, as it is; the size auto
# chooses is the smallest that works, and one MiB less does not.
. "$TOP/tests/e2e/lib/ext4.sh"
need e2fsck dumpe2fs debugfs sfdisk jq sha256sum

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

# size = auto is the smallest size that works: a sparse file's holes and a file's zero
# blocks take no blocks in the trials either (the build leaves them out), and one MiB less
# does not build; the same with a set inode count, whose tables the size holds
need_mktree
mkdir -p root/many
"$MKTREE" root/many 2000 100 5 >/dev/null || fail "mktree"
truncate -s 200M root/sparse
printf data | dd of=root/sparse bs=1 seek=100M conv=notrunc status=none
head -c 20M /dev/zero >root/zeros
{ head -c 3M /dev/urandom; head -c 5M /dev/zero; head -c 1M /dev/urandom; } >root/mixed
for inodes in '' 'ext4 { inodes = 4000 }' 'ext4 { inodes = 60000 }'; do
    cat >auto.layout <<LAYOUT
image { table = gpt seed = "ext4" timestamp = 1700000000 align = 1M }
partition rootfs { type = ext4 size = auto tree "/" { from = "root" } $inodes }
LAYOUT
    expect_status 0 "$SDIMG" build auto.layout -o auto.img
    auto=$(part_size auto.img 1)
    ext4_clean auto.img 1 pa.img
    [ "$auto" -le $((48 * 1048576)) ] || fail "auto ($inodes) chose $auto bytes for 12 MiB of data"
    sed "s/size = auto/size = $((auto / 1048576 - 1))M/" auto.layout >small.layout
    expect_status 1 "$SDIMG" build small.layout -o small.img
    grep -qE "all [0-9]+ (inodes|blocks of [0-9]+ bytes) are used.*partition 'rootfs' needs" err.txt ||
        fail "$(cat err.txt)"
    debugfs -R 'dump /mixed mixed.out' pa.img >/dev/null 2>&1
    cmp -s root/mixed mixed.out || fail "/mixed's bytes differ"
    rm -f auto.img pa.img small.img mixed.out
done

# a set size too small: only the advice that applies (not the block size already set), and
# the size found as size = auto finds it, in units of the partition's align (not a MiB)
for case in '1K journal' '4K nojournal'; do
    set -- $case
    if [ "$2" = journal ]; then ext='block-size = 1K'; else ext='journal = false'; fi
    cat >tiny.layout <<LAYOUT
image { table = gpt seed = "tiny" timestamp = 1700000000 }
partition rootfs { type = ext4 size = 64K align = 64K file "/a" { content = "x" } ext4 { $ext } }
LAYOUT
    expect_status 1 "$SDIMG" build tiny.layout -o tiny.img
    expect_stderr "partition 'rootfs' needs size ="
    ! grep -q 'block-size = 1K' err.txt || fail "advice of the block size already set: $(cat err.txt)"
    need=$(sed -n "s/.*needs size = \([0-9]*[KM]\) or more.*/\1/p" err.txt)
    [ "$2" = nojournal ] && [ "$need" = 1M ] && fail "1M asked where less builds: $(cat err.txt)"
    sed "s/size = 64K/size = $need/" tiny.layout >fits.layout
    expect_status 0 "$SDIMG" build fits.layout -o tiny.img
    ext4_clean tiny.img 1 pt.img
    rm -f tiny.img pt.img
done
