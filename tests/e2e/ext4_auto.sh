# SPDX-License-Identifier: MIT
# e2e-long: each tree built at its measured size and one MiB less, each volume checked by e2fsck
# ext4 size = auto over trees of every shape its size depends on: many small files, a file
# larger than one extent (128 MiB) and one block group, folders whose names need hashed
# trees (long names, many names), symbolic links kept in the inode and in a block, hard
# links, extended attributes in the inode and in a block of their own. For each: the build
# takes the size it measured (no trial but the one), e2fsck -fn finds the volume clean, one
# MiB less does not build (the size is the least to the MiB), and the inode count is the
# tree's and a quarter more (LAYOUT.md), not one per 16 KiB of the volume.
. "$TOP/tests/e2e/lib/ext4.sh"
need e2fsck dumpe2fs sfdisk jq
need_mktree

mkdir -p small big htree/long htree/many links xattrs
"$MKTREE" small 3000 100 7 >/dev/null || fail "mktree"
head -c 140M /dev/urandom >big/huge
head -c 3M /dev/urandom >big/three
long=$(printf '%0200d' 0)
i=0
while [ $i -lt 400 ]; do
    : >"htree/long/$long$i"
    i=$((i + 1))
done
i=0
while [ $i -lt 3000 ]; do
    printf '%d\n' $i >"htree/many/n$i"
    i=$((i + 1))
done
slow=$(printf 'target/%0150d' 0)
i=0
while [ $i -lt 60 ]; do
    ln -s "t$i" "links/fast$i"
    ln -s "$slow$i" "links/slow$i"
    printf '%d\n' $i >"links/file$i"
    ln "links/file$i" "links/hard$i"
    i=$((i + 1))
done
big_value=$(printf '%01800d' 0)
i=0
has_xattrs=1
while [ $i -lt 200 ]; do
    printf '%d\n' $i >"xattrs/f$i"
    if ! setfattr -n user.small -v "v$i" "xattrs/f$i" 2>/dev/null ||
        ! setfattr -n user.big -v "$big_value$i" "xattrs/f$i" 2>/dev/null; then
        has_xattrs=0
        break
    fi
    i=$((i + 1))
done
[ $has_xattrs = 1 ] || echo "no user.* attributes on this file system: the xattrs tree has none"

# auto_fits TREE: size = auto of TREE is clean, the least to the MiB, and has the inodes
# the tree takes and a quarter more
auto_fits() {
    cat >auto.layout <<LAYOUT
image { table = gpt seed = "auto" timestamp = 1700000000 align = 1M }
partition rootfs { type = ext4 size = auto tree "/" { from = "$1" } }
LAYOUT
    expect_status 0 "$SDIMG" build auto.layout -o auto.img
    size=$(part_size auto.img 1)
    ext4_clean auto.img 1 pa.img
    sed "s/size = auto/size = $((size / 1048576 - 1))M/" auto.layout >less.layout
    expect_status 1 "$SDIMG" build less.layout -o less.img
    grep -qE "all [0-9]+ (inodes|blocks of [0-9]+ bytes) are used|too few for a journal" err.txt ||
        fail "$1: one MiB less than auto's $size bytes failed otherwise: $(cat err.txt)"
    set -- "$1" $(dumpe2fs -h pa.img 2>/dev/null | awk -F: '/^Inode count/ { n = $2 }
        /^Free inodes/ { f = $2 } END { print n, n - f }')
    # 11 reserved, the tree's, a quarter of them more; ext4 fills its inode table blocks
    # (16 inodes of 256 bytes in a 4 KiB block, in each group)
    groups=$(dumpe2fs pa.img 2>/dev/null | grep -c '^Group ')
    tree=$(($3 - 11))
    [ "$2" -ge "$3" ] && [ "$2" -le $((11 + tree + tree / 4 + 16 * groups)) ] ||
        fail "$1: $2 inodes for the $3 it uses (a quarter more wanted)"
    rm -f auto.img pa.img less.img
}

for tree in small big htree links xattrs; do
    auto_fits $tree
done
# all of them in one volume
mkdir all
mv small big htree links xattrs all/
auto_fits all

# A set inode count is kept: files that take more stop the build with the ext4 section's
# line (a larger volume would round its inode tables up to hold them: no silent growth)
mkdir few
i=0
while [ $i -lt 300 ]; do
    printf '%d\n' $i >"few/f$i"
    i=$((i + 1))
done
build_refused few "few.layout:3: partition 'p': its files take 311 inodes, more than inodes = 100" <<'LAYOUT'
image { table = none }
partition p { type = ext4 size = auto
    ext4 { inodes = 100 }
    tree "/" { from = "few" } }
LAYOUT
sed -i 's/inodes = 100/inodes = 400/' few.layout
"$SDIMG" build -q -o few.img few.layout || fail "inodes = 400 for 311 files: refused"
e2fsck -fn few.img >/dev/null 2>&1 || fail "e2fsck -fn few.img"
