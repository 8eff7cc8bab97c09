#!/bin/sh
# SPDX-License-Identifier: MIT
# What a build leaves at its names besides the bytes: a new image at a name of 255 bytes
# (the longest a file system allows: the hidden temporary name must not be longer), a name
# too long refused before any work (also the per-card manifest's, when the layout has per-card
# values: the name with .cards.json), -o X.img.zst built whatever is at X.img (a link, a
# folder: the raw image never goes there), and the permissions of the files it replaces (0600
# stays 0600, for the image, the compressed image, the bmap and the checksums), new files
# with 0666 less the umask. Where a mount namespace can hide /proc, the same with hidden
# temporary names instead of unnamed files.
. "$TOP/tests/e2e-lib.sh"
need stat

mkdir -p tree out
echo hello >tree/hello.txt
head -c 20000 /dev/urandom >spl.bin
cat >card.layout <<'LAYOUT'
image { size = 16M seed = "outputs" }
raw spl { offset = 8K from = "spl.bin" }
partition boot { type = fat size = 8M tree "/" { from = "tree" } }
LAYOUT

sed 's/seed = "outputs"/seed = "outputs" disk-id = per-card/' card.layout >percard.layout

# NAMED: a command prefix that hides /proc from sdimg (it then uses hidden names), if any
NAMED=""
for ns in "unshare -m" "unshare -rm"; do
    if $ns sh -c 'mount -t tmpfs sdimg-noproc /proc' 2>/dev/null; then
        NAMED="$ns"
        break
    fi
done
named() {
    $NAMED sh -c 'mount -t tmpfs sdimg-noproc /proc && exec "$@"' sh "$@"
}

# only FILE...: out/ holds exactly these names (no hidden temporary name)
only() {
    want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
    [ "$(ls -A out | sort | tr '\n' ' ')" = "$want" ] || fail "out/ holds $(ls -A out | tr '\n' ' '), expected $want"
}

for mode in unnamed named; do
    run=""
    if [ $mode = named ]; then
        [ -n "$NAMED" ] || { echo "SKIPPED PART: no mount namespace can hide /proc here: hidden names not tried"; continue; }
        run=named
    fi
    rm -rf out && mkdir out

    # a name of 255 bytes: built; one of 256: refused at once, naming it
    long=$(printf '%0251d' 0 | tr 0 a).img
    expect_status 0 $run "$SDIMG" build -q -o "out/$long" card.layout
    [ ! -s err.txt ] || fail "$mode: the 255-byte name: $(cat err.txt)"
    only "$long"
    cmp -s "out/$long" /dev/null && fail "$mode: the 255-byte name holds nothing"
    # with per-card values its manifest (the name and .cards.json) cannot exist: refused
    # before any work; a name that leaves room for it is built
    expect_status 1 $run "$SDIMG" build -q -o "out/$long" percard.layout
    expect_stderr "out/$long.cards.json: cannot create the per-card manifest: File name too long"
    only "$long"
    short=$(printf '%0240d' 0 | tr 0 a).img
    expect_status 0 $run "$SDIMG" build -q -o "out/$short" percard.layout
    [ -s "out/$short.cards.json" ] || fail "$mode: no per-card manifest beside out/$short"
    rm "out/$short" "out/$short.cards.json"
    expect_status 1 $run "$SDIMG" build -q -o "out/x$long" card.layout
    expect_stderr "out/x$long: cannot create the image: File name too long"
    # a side file whose name is too long fails before the image is written, too
    expect_status 1 $run "$SDIMG" build -q -o "out/$long" --bmap card.layout
    expect_stderr "out/$long.bmap: cannot create the bmap: File name too long"
    only "$long"
    echo "$mode: a 255-byte output name is built (no word of a manifest without per-card values; with them refused before any work); 256 bytes are refused before any work"

    # -o X.img.zst writes X.img.zst alone: whatever is at X.img (a link, a folder) is no
    # matter and stays as it was
    rm -rf out && mkdir out
    echo victim >victim.txt
    ln -s ../victim.txt out/card.img
    expect_status 0 $run "$SDIMG" build -q -o out/card.img.zst --bmap --sha256 card.layout
    [ "$(readlink out/card.img)" = ../victim.txt ] && [ "$(cat victim.txt)" = victim ] ||
        fail "$mode: the link out/card.img or what it names changed"
    only card.img card.img.zst card.img.bmap card.img.sha256
    rm out/card.img && mkdir out/card.img
    expect_status 0 $run "$SDIMG" build -q -o out/card.img.zst card.layout
    [ -d out/card.img ] && [ -z "$(ls -A out/card.img)" ] || fail "$mode: the folder out/card.img changed"
    echo "$mode: -o card.img.zst beside a link or a folder named card.img: built, the link and the folder untouched"

    # older files at every name keep their permissions: 0600, and 0640 for the bmap
    rm -rf out && mkdir out
    for f in card.img card.img.zst card.img.bmap card.img.sha256; do echo older >out/$f; done
    chmod 600 out/card.img out/card.img.zst out/card.img.sha256
    chmod 640 out/card.img.bmap
    expect_status 0 $run "$SDIMG" build -q -o out/card.img --compress zst --bmap --sha256 card.layout
    only card.img card.img.zst card.img.bmap card.img.sha256
    grep -q older out/card.img.sha256 && fail "$mode: the checksum file was not replaced"
    for f in card.img card.img.zst card.img.sha256; do
        [ "$(stat -c %a out/$f)" = 600 ] || fail "$mode: out/$f was 0600 and is now $(stat -c %a out/$f)"
    done
    [ "$(stat -c %a out/card.img.bmap)" = 640 ] || fail "$mode: out/card.img.bmap was 0640 and is now $(stat -c %a out/card.img.bmap)"
    # the compressed image alone (-o X.zst)
    chmod 604 out/card.img.zst
    expect_status 0 $run "$SDIMG" build -q -o out/card.img.zst card.layout
    [ "$(stat -c %a out/card.img.zst)" = 604 ] || fail "$mode: out/card.img.zst was 0604 and is now $(stat -c %a out/card.img.zst)"

    # new files: 0666 less the umask
    rm -rf out && mkdir out
    (umask 027 && expect_status 0 $run "$SDIMG" build -q -o out/card.img --compress gz --bmap --sha256 card.layout)
    for f in card.img card.img.gz card.img.bmap card.img.sha256; do
        [ "$(stat -c %a out/$f)" = 640 ] || fail "$mode: the new out/$f has $(stat -c %a out/$f), umask 027 gives 640"
    done
    echo "$mode: replaced files keep their permissions, new ones get 0666 less the umask"
done
