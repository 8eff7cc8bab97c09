# SPDX-License-Identifier: MIT
# A failed build prints one clear line, exits 1 and leaves nothing behind: no image, no
# temporary file, and an older image at the same name untouched.
. "$TOP/tests/e2e-lib.sh"

M=1048576
mkdir -p out tree
echo hello >tree/hello.txt
echo "an older image" >out/card.img
old=$(sha256sum <out/card.img)

# nothing but the expected files in out/ (no temporary name left)
only_old_image() {
    [ "$(ls -A out)" = card.img ] || fail "left in out/: $(ls -A out | tr '\n' ' ')"
    [ "$(sha256sum <out/card.img)" = "$old" ] || fail "the older image was touched"
}

# build_fails TEXT: building card.layout into out/card.img exits 1 with one line on stderr
# holding TEXT, and out/ holds the older image alone, untouched
build_fails() {
    expect_status 1 "$SDIMG" build -o out/card.img card.layout
    expect_stderr "$1"
    only_old_image
}

# a problem found only while reading the tree: a dangling symbolic link
ln -s nowhere tree/broken
cat >card.layout <<'LAYOUT'
image { size = 64M }
partition boot { type = fat size = 32M tree "/" { from = "tree" } }
LAYOUT
build_fails "tree/broken: dangling symbolic link"
rm tree/broken

# contents that do not fit a fixed size
head -c $((40 * M)) /dev/zero | tr '\0' 'x' >tree/big.bin
printf 'image { size = 64M }\npartition boot {\n type = fat\n size = 16M\n tree "/" { from = "tree" }\n}\n' >card.layout
build_fails "card.layout:4: partition 'boot': the files and folders need 20481 clusters of 2K but this 16M FAT16 volume has 6144; size = 45M or more holds them"
rm tree/big.bin

# a raw region whose file is larger than the space reserved for it
head -c 5000 /dev/urandom >spl.bin
printf 'raw spl {\n offset = 8K\n from = "spl.bin"\n size = 4K\n}\n' >card.layout
build_fails "card.layout:1: raw 'spl': ./spl.bin is 5000 bytes, the region has 4096"

# a raw partition image larger than the partition
head -c $((5 * M)) /dev/zero >root.img
printf 'image { size = 64M }\npartition root {\n from = "root.img"\n size = 4M\n}\n' >card.layout
build_fails "card.layout:4: partition 'root': its image needs 5 MiB, the partition has 4 MiB"

# a missing input, named with the layout line that wants it
printf 'image { size = 64M }\npartition root {\n from = "nothere.img"\n size = 4M\n}\n' >card.layout
build_fails "partition 'root': ./nothere.img: No such file or directory"
# ... also for a FAT partition's file and tree sources, and a plain file given as a tree
: >empty.bin
echo "just some text" >notes.txt
printf 'image { size = 64M }\npartition boot { type = fat size = 16M\n file "/zImage" { from = "in/zImage" } }\n' >card.layout
build_fails "card.layout:3: partition 'boot': file '/zImage': ./in/zImage: No such file or directory"
printf 'image { size = 64M }\npartition boot { type = fat size = 16M\n tree "/" { from = "notes.txt" } }\n' >card.layout
build_fails "card.layout:3: partition 'boot': tree '/': ./notes.txt: cannot be read as an archive: Unrecognized archive format (a tree comes from a folder or an archive; for this one file, write file \"/NAME\" { from = ... })"
printf 'image { size = 64M }\npartition boot { type = fat size = 16M\n tree "/" { from = "empty.bin" } }\n' >card.layout
build_fails "card.layout:3: partition 'boot': tree '/': ./empty.bin: an empty archive (no entries)"

# an empty image file with size = auto, and strip on a folder
: >empty.img
printf 'image { size = 64M }\npartition root {\n from = "empty.img"\n}\n' >card.layout
build_fails "card.layout:2: partition 'root': ./empty.img is empty (give the partition a size)"
printf 'image { size = 64M }\npartition boot { type = fat size = 32M\n tree "/" { from = "tree" strip = 1 } }\n' >card.layout
build_fails "card.layout:3: tree '/': strip = 1: ./tree is a folder, and strip applies to archive entries"

# the output name taken by something that is not an image file: refused, left alone
printf 'image { size = 64M }\npartition boot { type = fat size = 32M tree "/" { from = "tree" } }\n' >card.layout
mkfifo fifo.img
ln -s out/card.img link.img
for target in fifo.img link.img; do
    expect_status 1 "$SDIMG" build -o $target card.layout
    expect_stderr "$target: exists and is not a regular file"
done
[ -p fifo.img ] && [ -L link.img ] || fail "the fifo or the link was replaced"
only_old_image

# a symbolic link to a regular file where any output goes (the image, the compressed image,
# the bmap, the checksums, the per-card manifest) is refused too, as LAYOUT.md says, and the
# file it names is untouched
echo "not an image" >victim.txt
printf 'image { size = 64M }\npartition boot { type = fat size = 32M\n file "/id" { content = "\\${ID}" per-card = true reserve = 1K } }\n' >percard.layout
for case in "v.img|-o v.img" "v.img.zst|-o v.img.zst" "v.img.zst|-o v.img --compress zst" \
    "v.map|-o v.img --bmap=v.map" "v.sum|-o v.img --sha256=v.sum" "v.img.cards.json|-o v.img"; do
    name=${case%%|*}
    layout=card.layout
    [ "$name" != v.img.cards.json ] || layout=percard.layout
    ln -s victim.txt "$name"
    expect_status 1 "$SDIMG" build ${case#*|} $layout
    expect_stderr "$name: exists and is not a regular file"
    [ -L "$name" ] && [ "$(cat victim.txt)" = "not an image" ] || fail "$name: the link or its file changed"
    [ "$name" = v.img ] || [ ! -e v.img ] || fail "$name: v.img was written"
    rm "$name"
done

# a file size limit (ulimit -f): the image cannot be made
(ulimit -f 1024 && "$SDIMG" build -o out/card.img card.layout) >out.txt 2>err.txt && fail "built past ulimit -f"
expect_stderr "out/card.img: cannot make a 67108864-byte image: File too large"
only_old_image

# an output folder that does not exist
expect_status 1 "$SDIMG" build -o nosuchdir/card.img card.layout
expect_stderr "nosuchdir/card.img: cannot create the image: No such file or directory"

# a full file system (where this machine lets the test mount a small tmpfs)
mkdir small
if mount -t tmpfs -o size=2m tmpfs small 2>/dev/null; then
    head -c $((4 * M)) /dev/urandom >tree/random.bin
    set +e
    "$SDIMG" build -o small/card.img card.layout >out.txt 2>err.txt
    rc=$?
    set -e
    leftover=$(ls -A small)
    umount small
    [ "$rc" -eq 1 ] || fail "ENOSPC: exit $rc"
    expect_stderr "No space left on device"
    [ -z "$leftover" ] || fail "left on the full file system: $leftover"
    rm tree/random.bin
else
    echo "(no tmpfs mount here: the full-disk case is not run)"
fi

# SIGTERM and SIGINT in the middle of a build
head -c $((300 * M)) /dev/urandom >tree/large.bin
printf 'image { size = 1G }\npartition boot { type = fat32 size = 600M tree "/" { from = "tree" } }\n' >card.layout
for sig in TERM INT; do
    # a background job starts with SIGINT ignored: give the build the default action back
    env --default-signal=INT "$SDIMG" build -o out/card.img card.layout >out.txt 2>err.txt &
    pid=$!
    sleep 0.2
    kill -"$sig" $pid 2>/dev/null || true
    set +e
    wait $pid
    rc=$?
    set -e
    if [ "$rc" -eq 0 ]; then
        echo "(the build finished before SIG$sig arrived)"
        mv out/card.img built.img
        echo "an older image" >out/card.img
    else
        [ "$rc" -gt 128 ] || fail "SIG$sig: exit $rc, not killed by the signal"
    fi
    only_old_image
done

# more partitions than an MBR holds: refused in the plan, at the line of the first too many
{ echo 'image { align = 1M }'; i=1; while [ $i -le 60 ]; do echo "partition p$i { size = 1M }"; i=$((i + 1)); done; } >card.layout
expect_status 1 "$SDIMG" plan card.layout
expect_stderr "card.layout:61: 60 partitions in the table: an MBR holds 59 at most"
build_fails "card.layout:61: 60 partitions in the table: an MBR holds 59 at most"
# with the extended partition in entry 1, every partition is logical: 56 at most
{ echo 'image { align = 1M extended-partition = 1 }'; i=1; while [ $i -le 57 ]; do echo "partition p$i { size = 1M }"; i=$((i + 1)); done; } >card.layout
expect_status 1 "$SDIMG" plan card.layout
expect_stderr "card.layout:58: partition 'p57': 57 logical partitions: an MBR holds 56 at most"
