#!/bin/sh
# SPDX-License-Identifier: MIT
# A tree's host folder is walked once and each entry read once: a FAT, exFAT or ext4 build of
# a folder of 600 files in 20 folders lists each folder once (getdents64) and reads each entry
# at most twice (once as the walk meets it, once more as its bytes are copied, to find a file
# changed since), not four times (a count of the folder before the walk, two reads of each
# entry in it). A symbolic link to a folder copies it without a second walk of the tree.
. "$TOP/tests/e2e-lib.sh"
need strace
strace -f -o /dev/null true 2>/dev/null || { echo "strace cannot trace here (ptrace not allowed)"; exit 77; }

REAL=${SDIMG_REAL:-$SDIMG}

mkdir -p t
i=0
for d in $(seq -w 1 20); do
    mkdir t/d$d
    for f in $(seq -w 1 30); do
        i=$((i + 1))
        echo "file $i" >t/d$d/f$f.txt
    done
done
entries=$(find t -mindepth 1 | wc -l) # 620
folders=$(find t -type d | wc -l)     # 21

# calls SYSCALLS LAYOUT: how many of SYSCALLS (a strace class or list) building LAYOUT makes
# (a strace older than the kernel names a call it does not know syscall_0xNNN, and lets it
# through a class: listxattrat(2) of Linux 6.13 is no stat call)
calls() {
    rm -f x.img
    strace -f -qq -o calls.txt -e trace="$1" "$REAL" build -q -o x.img "$2" ||
        fail "$2: the traced build failed"
    [ -s x.img ] || fail "$2: no image"
    grep -v ' syscall_0x' calls.txt | grep -c .
}

for type in fat exfat ext4; do
    printf 'image { table = none }\npartition p { type = %s size = 16M\n tree "/" { from = "t" } }\n' \
        $type >$type.layout
    stats=$(calls %%stat $type.layout)
    # 2 per entry (a folder: as the walk meets it, and once opened, to find it is the same),
    # and some for the layout and the output
    [ "$stats" -le $((2 * entries + 100)) ] ||
        fail "$type: $stats stat calls for $entries entries (more than 2 each)"
    # 2 a folder (its entries, then none), and some listings of the output's folder
    lists=$(calls getdents64 $type.layout)
    [ "$lists" -le $((2 * folders + 20)) ] ||
        fail "$type: $lists getdents64 calls for $folders folders (more than one listing each)"
    echo "$type: $stats stat calls, $lists getdents64 calls for $entries entries in $folders folders"
done

# FAT copies what a link to a folder leads to: the copy is within the bound on copies without
# counting the tree again (30 files against 4 times 620, plus 10,000)
ln -s d01 t/link
stats=$(calls %%stat fat.layout)
[ "$stats" -le $((2 * (entries + 1 + 31) + 100)) ] ||
    fail "fat with a link: $stats stat calls for $entries entries and a copy of 31"
lists=$(calls getdents64 fat.layout)
[ "$lists" -le $((2 * (folders + 1) + 20)) ] ||
    fail "fat with a link: $lists getdents64 calls for $((folders + 1)) folders"
[ "$("$SDIMG" cat x.img:/link/f01.txt)" = "file 1" ] || fail "fat: the link's copy is not d01's"
