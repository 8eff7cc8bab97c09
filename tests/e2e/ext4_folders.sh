# SPDX-License-Identifier: MIT
# Big folders on ext4: 100,000 names in one folder build in seconds (names are looked up and
# added in memory, not by reading the folder each time), and a folder of more than one
# block is a hashed tree (dir_index) that e2fsck finds clean and in which the kernel finds
# every name, with one level of index blocks too (1K blocks).
. "$TOP/tests/e2e/lib/ext4.sh"
need e2fsck debugfs sfdisk jq timeout xargs

mkdir -p big
(cd big && seq -f "name-%07g.txt" 1 100000 | xargs touch)
cat >big.layout <<'LAYOUT'
image { seed = "big" timestamp = 1700000000 }
partition rootfs { type = ext4 size = 2G tree "/" { from = "big" } tree "/small" { from = "big" }
    ext4 { inodes = 250000 } }
LAYOUT
# (a build that reads the folder for each name takes many minutes)
expect_status 0 timeout 120 "$SDIMG" build big.layout -o big.img
ext4_clean big.img 1 p.img
debugfs -R 'htree /' p.img 2>/dev/null | grep -q 'Indirect levels: 1' ||
    fail "the root folder of 100,000 names is not a hashed tree of two levels"
rm -f p.img

# 1K blocks: the root holds too few leaves, one level of index blocks below it
cat >small.layout <<'LAYOUT'
image { seed = "small" timestamp = 1700000000 }
partition rootfs { type = ext4 size = 200M file "/one" { content = "1" }
    tree "/many" { from = "big" } ext4 { block-size = 1K inodes = 120000 } }
LAYOUT
expect_status 0 "$SDIMG" build small.layout -o small.img
ext4_clean small.img 1 ps.img
debugfs -R 'htree /many' ps.img 2>/dev/null | grep -q 'Indirect levels: 1' ||
    fail "/many of 100,000 names in 1K blocks is not a hashed tree of two levels"
debugfs -R 'htree /' ps.img 2>/dev/null | grep -q 'Indirect levels' &&
    fail "the root folder of three names was made a hashed tree"
rm -f ps.img

# names that need a third level of index blocks (47,000 of 255 bytes in 1K blocks): the
# folder is written linear, and the build says so, naming it (ext4 reads a third level only
# with the largedir feature)
mkdir -p deep/d
pad=$(printf '%0249d' 0)
(cd deep/d && seq -f "%06g$pad" 1 47000 | xargs touch)
cat >deep.layout <<'LAYOUT'
image { seed = "deep" timestamp = 1700000000 }
partition rootfs { type = ext4 size = 80M tree "/" { from = "deep" }
    ext4 { block-size = 1K inodes = 48000 } }
LAYOUT
expect_status 0 "$SDIMG" build deep.layout -o deep.img
grep -q 'warning: .*/d: 47000 names need more than two index levels of 1024-byte blocks: written unindexed' err.txt ||
    fail "no warning of the folder written unindexed: $(cat err.txt)"
ext4_clean deep.img 1 pd.img
rm -rf deep deep.img pd.img

# the kernel finds every name, in both
ext4_mount small.img 1
[ "$(ls mnt/many | wc -l)" -eq 100000 ] || fail "the kernel lists $(ls mnt/many | wc -l) names"
(cd mnt/many && seq -f "name-%07g.txt" 1 100000 | xargs stat -c %i >/dev/null) ||
    fail "the kernel cannot find every name in /many"
ext4_unmount
ext4_mount big.img 1
(cd mnt && seq -f "name-%07g.txt" 1 100000 | xargs stat -c %i >/dev/null) ||
    fail "the kernel cannot find every name in /"
