# SPDX-License-Identifier: MIT
# ext4 size = auto of one tree from a host folder is counted from the tree's walk, and the
# build reads each file once (no trial build reads them first; the count reads a file of
# 64 KiB or more, for its blocks of zeros); the size is the one a trial finds, for trees
# the count is sure of and for those it is not: zeros at the end of a file (the count takes
# them as bytes: the image is built again with what the build took, each file read twice),
# a block of zeros before more bytes in a small file (the build finds that no smaller
# partition holds what it took: once) and in a large one (the count reads it: twice), a
# file longer than the free blocks between two used ranges (read by the count: twice), so
# many of those that the count is a partition too large (built again with a trial's size:
# three times), a file with holes (sized by a trial: twice), an attribute in a block of its
# own, many names in one folder. The trial's size comes from the same tree with a second,
# empty tree beside it (a layout the count does not serve), which changes no byte.
. "$TOP/tests/e2e/lib/ext4.sh"
need e2fsck sfdisk strace
need_mktree
strace -f -o /dev/null true 2>/dev/null || { echo "strace cannot trace here (ptrace not allowed)"; exit 77; }

mkdir plain zeros zmid zbig zmany holes links mid many empty
"$MKTREE" plain/t 2000 100 3 >/dev/null || fail "mktree"
"$MKTREE" mid 600 300 5 >/dev/null || fail "mktree" # folders of 2 to 4 blocks, indexed
head -c 10M /dev/urandom >zeros/a
head -c 3M /dev/zero >zeros/z # 3 MiB the count takes and the build leaves out
{ head -c 5000 /dev/urandom; head -c 8192 /dev/zero; head -c 5000 /dev/urandom; } >zmid/f
{ head -c 300000 /dev/urandom; head -c 65536 /dev/zero; head -c 9000 /dev/urandom; } >zbig/f
mkdir long
head -c 12000000 /dev/urandom >long/g # at 1 KiB blocks, longer than a group's free blocks
# 1,200 files of a block of bytes, two of zeros and 100 bytes: 9.4 MiB the count takes
{ head -c 4096 /dev/urandom; head -c 8192 /dev/zero; head -c 100 /dev/urandom; } >unit
i=0
while [ $i -lt 11 ]; do # 2,048 of them in a row
    cat unit unit >units && mv units unit
    i=$((i + 1))
done
head -c $((1200 * 12388)) unit | (cd zmany && split -a 4 -b 12388 - f) && rm unit
[ "$(ls zmany | wc -l)" -eq 1200 ] || fail "zmany: $(ls zmany | wc -l) files"
printf 'b\n' >holes/b
truncate -s 20M holes/h
printf 'data' | dd of=holes/h bs=4096 seek=1000 conv=notrunc status=none
printf 'x\n' >links/file
ln links/file links/hard
ln -s "$(printf 'target/%0100d' 0)" links/slow
ln -s t links/fast
: >"links/$(printf 'n%0250d' 0)"
i=0
while [ $i -lt 1500 ]; do
    : >"many/a-name-of-some-length-$i"
    i=$((i + 1))
done
trees="plain zeros zmid zbig zmany long holes links mid many"
if printf 'x\n' >xattrs_probe && setfattr -n user.big -v "$(printf '%01500d' 0)" xattrs_probe 2>/dev/null; then
    mkdir xattrs
    printf 'y\n' >xattrs/f
    setfattr -n user.big -v "$(printf '%01500d' 0)" xattrs/f # a block of its own
    trees="$trees xattrs"
fi

# auto_as_trial TREE: TREE's size = auto image is the one a trial sizes, and read each
# file of it once when the count serves it (plain, links, mid)
auto_as_trial() {
    touch -r "$1" empty
    cat >count.layout <<LAYOUT
image { table = gpt seed = "count" timestamp = 1700000000 }
partition rootfs { type = ext4 size = auto ${2:-} tree "/" { from = "$1" } }
LAYOUT
    sed 's|tree "/" { from = "'"$1"'" }|& tree "/" { from = "empty" }|' count.layout >trial.layout
    grep -q empty trial.layout || fail "$1: trial.layout"
    # the program itself, not what stands in for it (which builds the layout first)
    strace -f -o opens.txt -e trace=openat "$SDIMG_REAL" build -q -o count.img count.layout ||
        fail "$1: size = auto failed"
    "$SDIMG" build -q -o trial.img trial.layout || fail "$1: size = auto with a trial failed"
    cmp -s count.img trial.img || fail "$1: counted, $(part_size count.img 1) bytes; by a trial, $(part_size trial.img 1)"
    ext4_clean count.img 1 p.img
    # the files with bytes, each inode once; each opened by its name in its folder
    files=$(find "$1" -type f -size +0 -printf '%i\n' | sort -u | wc -l)
    opened=$(grep 'openat([0-9]' opens.txt | grep -vc O_DIRECTORY || true)
    case $1 in
        plain | links | mid | zmid) reads=1 ;;
        zeros | holes | zbig | long) reads=2 ;;
        zmany) reads=3 ;;
        *) reads=$((files ? opened / files : 0)) ;;
    esac
    [ "$opened" -eq $((files * reads)) ] || fail "$1: $files files opened $opened times ($reads each wanted)"
    rm -f count.img trial.img p.img opens.txt
}

for tree in $trees; do
    case $tree in
        long) auto_as_trial $tree 'ext4 { block-size = 1K }' ;;
        *) auto_as_trial $tree ;;
    esac
done
