# SPDX-License-Identifier: MIT
# sdimg inspect, ls and cat on exFAT volumes other tools made: mkfs.exfat's (bare and in an
# MBR partition), its parameters as dump.exfat prints them, the SD findings (heap on the
# grid or not, partition type), a volume exfat-fuse filled from a tree (as root, with a loop
# device) read back file for file, and damaged volumes: one clear line, exit 1.
. "$TOP/tests/e2e-lib.sh"
PATH=$PATH:/sbin:/usr/sbin
need jq sfdisk mkfs.exfat dump.exfat tune.exfat
need_mktree

# dump IMG FIELD: the value dump.exfat prints for FIELD (the text before its colon)
dump() {
    dump.exfat "$1" 2>/dev/null | sed -n "s/^$2:[[:space:]]*//p" | head -1
}

# a bare volume: inspect's parameters are dump.exfat's
truncate -s 64M bare.img
mkfs.exfat -L "Card Lbl" bare.img >/dev/null
tune.exfat -I 0x1234abcd bare.img >/dev/null
expect_status 0 "$SDIMG" inspect --json bare.img
p() { jq -r ".partitions[0].exfat.$1" out.txt; }
[ "$(jq -r '.image.table + " " + .partitions[0].content' out.txt)" = "none exfat" ] || fail "not a bare exFAT volume: $(cat out.txt)"
[ "$(p fat_offset)" = "$(dump bare.img 'FAT Offset(sector offset)')" ] || fail "FAT offset $(p fat_offset)"
[ "$(p fat_sectors)" = "$(dump bare.img 'FAT Length(sectors)')" ] || fail "FAT length $(p fat_sectors)"
[ "$(p heap_offset)" = "$(dump bare.img 'Cluster Heap Offset (sector offset)')" ] || fail "heap $(p heap_offset)"
[ "$(p clusters)" = "$(dump bare.img 'Cluster Count')" ] || fail "clusters $(p clusters)"
[ "$(p root_cluster)" = "$(dump bare.img 'Root Cluster (cluster offset)')" ] || fail "root $(p root_cluster)"
[ "$(p cluster_size)" = "$(dump bare.img 'Cluster size')" ] || fail "cluster size $(p cluster_size)"
[ "$(printf '0x%08x' "$(p serial)")" = "$(dump bare.img 'Volume Serial')" ] || fail "serial $(p serial)"
[ "$(p label)" = "$(dump bare.img 'Volume label')" ] || fail "label $(p label)"
free=$(dump bare.img 'Free Clusters')
[ "$(p free_bytes)" = "$((free * $(p cluster_size)))" ] || fail "free $(p free_bytes), dump.exfat: $free clusters"
[ "$(p files)/$(p dirs)" = "0/0" ] || fail "files and folders of an empty volume"
expect_status 0 "$SDIMG" inspect bare.img
grep -q 'exFAT "Card Lbl" serial 1234-ABCD, 4 KiB clusters x' out.txt || fail "inspect text: $(cat out.txt)"
expect_status 0 "$SDIMG" ls -l bare.img
[ ! -s out.txt ] || fail "an empty volume lists $(cat out.txt)"
expect_status 0 "$SDIMG" ls "bare.img:card lbl"

# in an MBR partition at 4 MiB: the heap on the 4 MiB grid only when mkfs.exfat aligns it
# (-b 4M); type 0x0c is not exFAT's
card() { # NAME TYPE MKFS-OPTIONS
    truncate -s 72M "$1.img"
    printf 'label: dos\nstart=8192, size=131072, type=%s\n' "$2" | sfdisk -q "$1.img"
    truncate -s 64M "$1.vol"
    # shellcheck disable=SC2086 # options are words
    mkfs.exfat $3 "$1.vol" >/dev/null
    dd if="$1.vol" of="$1.img" bs=1M seek=4 conv=notrunc status=none
    expect_status 0 "$SDIMG" inspect --json "$1.img"
}
card aligned 7 "-b 4M"
jq -e '.partitions[0].content == "exfat" and ([.findings[] | select(.severity != "info")] | length == 0)' out.txt >/dev/null ||
    fail "an aligned exFAT card has findings: $(jq -c .findings out.txt)"
card unaligned c "-b 1M"
jq -e '[.findings[].code] | index("heap-misaligned") and index("partition-type")' out.txt >/dev/null ||
    fail "no heap-misaligned and partition-type findings: $(jq -c .findings out.txt)"

# a 64 GiB (SDXC) card: its allocation unit is 16 MiB and its cluster 128 KiB (SD Part 2's
# table); the partition and the heap on that grid make no findings, at 4 MiB they do, and
# clusters of 32 KiB are noted. Only the volume's first 64 MiB are copied (what mkfs.exfat
# writes of an empty volume lies there)
sdxc() { # NAME START-SECTOR MKFS-OPTIONS
    truncate -s 64G "$1.img"
    printf 'label: dos\nstart=%s, type=7\n' "$2" | sfdisk -q "$1.img"
    truncate -s $((64 * 1073741824 - $2 * 512)) "$1.vol"
    # shellcheck disable=SC2086 # options are words
    mkfs.exfat $3 "$1.vol" >/dev/null
    dd if="$1.vol" of="$1.img" bs=1M seek=$(($2 / 2048)) count=64 conv=notrunc status=none
    rm "$1.vol"
    expect_status 0 "$SDIMG" inspect --json "$1.img"
}
sdxc sdxc-on-au 32768 "-b 16M"
jq -e '.partitions[0].exfat.cluster_size == 131072 and (.findings | length == 0)' out.txt >/dev/null ||
    fail "an SD-formatted SDXC card has findings: $(jq -c .findings out.txt)"
sdxc sdxc-off-au 8192 "-b 16M -c 32K"
jq -e '[.findings[].code] | index("start-misaligned") and index("heap-misaligned") and index("cluster-size")' out.txt >/dev/null ||
    fail "an SDXC card off its 16 MiB unit: $(jq -c .findings out.txt)"
jq -e '[.findings[].message] | any(test("16 MiB allocation unit"))' out.txt >/dev/null ||
    fail "the start finding does not name the 16 MiB unit: $(jq -c .findings out.txt)"
rm -f sdxc-on-au.img sdxc-off-au.img

# damaged volumes: inspect says why, ls and cat fail with one line
cp bare.img bad.img
printf 'x' | dd of=bad.img bs=1 seek=300 conv=notrunc status=none # in the boot code: the checksum fails
expect_status 0 "$SDIMG" inspect bad.img
grep -q "exFAT, unreadable: the boot checksum sector holds" out.txt || fail "inspect of a bad checksum: $(cat out.txt)"
grep -q "error   exfat-unreadable" out.txt || fail "no exfat-unreadable finding: $(cat out.txt)"
expect_status 1 "$SDIMG" ls bad.img
[ "$(wc -l <err.txt)" -eq 1 ] || fail "ls of a damaged volume: $(cat err.txt)"
expect_stderr "bad.img: the boot checksum sector holds"
cp bare.img bad.img
# the up-case table entry's checksum (the root's third entry: label, bitmap, up-case)
root=$(( $(dump bare.img 'Cluster Heap Offset (sector offset)') * 512 + ($(dump bare.img "Root Cluster (cluster offset)") - 2) * $(dump bare.img "Cluster size") ))
printf '\001' | dd of=bad.img bs=1 seek=$((root + 64 + 4)) conv=notrunc status=none
expect_status 1 "$SDIMG" cat bad.img:/x
[ "$(wc -l <err.txt)" -eq 1 ] || fail "cat of a damaged volume: $(cat err.txt)"
expect_stderr "bad.img: the up-case table sums to"

# a volume sdimg's writer made (tests/tools/exfatwrite) of names of every plane, names of 255
# UTF-16 units, sizes 0, 1, cluster - 1 and cluster, folders four deep: fsck.exfat finds it
# clean, ls -R lists every folder, ls -l every size, cat gives every file back; with the
# heap on the 4 MiB grid inspect finds nothing
if [ -x "$BUILD/tests/tools/exfatwrite" ]; then
    mkdir -p w/tree
    (cd w && "$BUILD/tests/tools/mktree" tree 40 10 4)
    long=$(printf '%0255d' 0 | tr 0 L)
    mkdir -p "w/tree/Ünïcödé/$long/d1/d2"
    printf 'x' >"w/tree/Ünïcödé/😀 𝄞 ǅ.txt"
    : >w/tree/zero
    head -c 1 /dev/urandom >w/tree/one
    head -c 4095 /dev/urandom >w/tree/cm1
    head -c 4096 /dev/urandom >w/tree/c
    printf deep >"w/tree/Ünïcödé/$long/d1/d2/$long"
    "$BUILD/tests/tools/exfatwrite" -c 4096 -a 4194304 -l Written -i 0x89abcdef -T 1700000000 \
        w.img $((64 * 1048576)) w/tree || fail "exfatwrite"
    fsck.exfat -n w.img >/dev/null 2>&1 || fail "fsck.exfat: $(fsck.exfat -n w.img 2>&1)"
    expect_status 0 "$SDIMG" inspect --json w.img
    jq -e '(.findings | length == 0) and .partitions[0].exfat.label == "Written"' out.txt >/dev/null ||
        fail "inspect of the written volume: $(jq -c '.findings, .partitions[0].exfat' out.txt)"
    [ "$(p files)/$(p dirs)" = "$(find w/tree -type f | wc -l)/$(find w/tree -mindepth 1 -type d | wc -l)" ] ||
        fail "inspect counts $(p files)/$(p dirs)"
    expect_status 0 "$SDIMG" ls -R w.img
    sed -n 's/^\(\/.*\):$/\1/p' out.txt | sort >got-dirs.txt
    (cd w/tree && find . -mindepth 1 -type d | sed 's/^\.//' | sort) >want-dirs.txt
    cmp -s got-dirs.txt want-dirs.txt || fail "ls -R's folders: $(diff want-dirs.txt got-dirs.txt | head)"
    expect_status 0 "$SDIMG" ls -lR w.img
    (cd w/tree && find . -type f -printf '%s %f\n' | sort) >want-sizes.txt
    awk '/^-/ { $1 = ""; $3 = ""; $4 = ""; sub(/^ +/, ""); sub(/   +/, " "); print }' out.txt | sort >got-sizes.txt
    cmp -s want-sizes.txt got-sizes.txt || fail "ls -lR's sizes: $(diff want-sizes.txt got-sizes.txt | head -5)"
    grep -q "^----a             1 2023-11-14 22:13:20  one$" out.txt || fail "ls -l of /one: $(grep one out.txt)"
    (cd w/tree && find . -type f) | while IFS= read -r f; do
        "$SDIMG" cat "w.img:/${f#./}" | cmp -s - "w/tree/$f" || fail "cat $f differs"
    done
fi

# a tree that exfat-fuse (a writer nobody here wrote) put on a loop device, read back
if [ "$(id -u)" = 0 ] && command -v mount.exfat-fuse >/dev/null 2>&1 &&
    dev=$(losetup -f --show bare.img 2>/dev/null); then
    mkdir mnt
    if mount.exfat-fuse "$dev" mnt >/dev/null 2>&1; then
        "$BUILD/tests/tools/mktree" tree 60 20 3
        mkdir -p "tree/Ünïcödé folder/$(printf '%0200d' 0 | tr 0 L)"
        printf 'odd\n' >"tree/Ünïcödé folder/naïve café 😀.txt"
        head -c 300000 /dev/urandom >tree/big.bin
        cp -R tree/. mnt/
        head -c 5000 /dev/urandom >>mnt/big.bin # appended after the others: a FAT chain
        cat mnt/big.bin >tree/big.bin
        umount mnt
    fi
    losetup -d "$dev"
    [ -f tree/big.bin ] || fail "exfat-fuse could not fill the volume"
    expect_status 0 "$SDIMG" inspect --json bare.img
    want_files=$(find tree -type f | wc -l) want_dirs=$(find tree -mindepth 1 -type d | wc -l)
    [ "$(p files)/$(p dirs)" = "$want_files/$want_dirs" ] || fail "inspect counts $(p files)/$(p dirs), the tree has $want_files/$want_dirs"
    expect_status 0 "$SDIMG" ls -R bare.img
    grep -v '^$' out.txt | sed -n 's/^\(\/.*\):$/\1/p' | sort >got-dirs.txt
    (cd tree && find . -mindepth 1 -type d | sed 's/^\.//' | sort) >want-dirs.txt
    cmp -s got-dirs.txt want-dirs.txt || fail "ls -R's folders differ: $(diff want-dirs.txt got-dirs.txt | head)"
    (cd tree && find . -type f) | while IFS= read -r f; do
        "$SDIMG" cat "bare.img:/${f#./}" | cmp -s - "tree/$f" || fail "cat $f differs"
    done
    expect_status 0 "$SDIMG" ls -l "bare.img:/ÜNÏCÖDÉ FOLDER"
    grep -q -- "----a  *4 .*  naïve café 😀.txt$" out.txt || fail "ls -l: $(cat out.txt)"
else
    echo "(no root, exfat-fuse or loop device: the volume exfat-fuse fills is not read)"
fi
