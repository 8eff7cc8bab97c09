#!/bin/sh
# SPDX-License-Identifier: MIT
# A build that fails leaves none of its outputs (image, compressed image, bmap, checksums)
# at their names, and older files there keep their exact bytes: a missing input, a bmap in a
# folder that does not exist, a checksum file whose name is a folder, a bmap that does not
# fit its file system (written after the compression pass), and SIGINT or SIGTERM while a
# large image is compressed. Where a fuse2fs mount can be made, the same with the bmap and
# the checksums on a file system without O_TMPFILE (hidden temporary names).
. "$TOP/tests/e2e/lib/ship.sh"
need sha256sum
env --default-signal=INT true 2>/dev/null || { echo "env has no --default-signal (coreutils < 8.31)"; exit 77; }

PIDS="" MOUNTS=""
cleanup() {
    for p in $PIDS; do kill -KILL "$p" 2>/dev/null && wait "$p" 2>/dev/null || true; done
    for m in $MOUNTS; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM HUP

head -c 40000 /dev/urandom >spl.bin
mkdir -p tree/sub && head -c 300000 /dev/urandom >tree/sub/data.bin && echo hi >tree/hello.txt
cat >card.layout <<'LAYOUT'
image { size = 64M seed = "atomic" }
raw spl { offset = 8K from = "spl.bin" }
partition boot { type = fat size = 32M tree "/" { from = "tree" } }
LAYOUT

# older files at every name a build may write
mkdir -p out empty
for f in card.img card.img.zst card.img.bmap card.img.sha256; do
    printf 'an older %s\n' "$f" >out/$f
done
(cd out && sha256sum card.img card.img.zst card.img.bmap card.img.sha256) >old.sums

# untouched: out/ holds exactly the older files, byte for byte; empty/ is empty
untouched() {
    [ "$(ls -A out | sort | tr '\n' ' ')" = "card.img card.img.bmap card.img.sha256 card.img.zst " ] ||
        fail "$1: out/ holds $(ls -A out | tr '\n' ' ')"
    (cd out && sha256sum --quiet -c ../old.sums) >sums.log 2>&1 || fail "$1: an older file changed: $(cat sums.log)"
    [ -z "$(ls -A empty)" ] || fail "$1: left in empty/: $(ls -A empty | tr '\n' ' ')"
}

# fails WHAT MESSAGE ARGS...: the build exits 1 with MESSAGE on its one line, into out/ and
# into empty/, and nothing changes
fails() {
    what=$1 msg=$2
    shift 2
    expect_status 1 "$SDIMG" build -q -o out/card.img --compress zst --bmap --sha256 "$@" card.layout
    expect_stderr "$msg"
    expect_status 1 "$SDIMG" build -q -o empty/card.img --compress zst --bmap --sha256 "$@" card.layout
    expect_stderr "$msg"
    expect_status 1 "$SDIMG" build -q -o out/card.img.zst --bmap --sha256 "$@" card.layout
    expect_stderr "$msg"
    untouched "$what"
    echo "$what: exit 1, one line, nothing written, older files untouched"
}

mv spl.bin spl.away
fails "a missing input" "spl.bin: No such file or directory"
mv spl.away spl.bin
fails "--bmap in a folder that does not exist" "/nonexistent/x.bmap: cannot create the bmap: No such file or directory" --bmap=/nonexistent/x.bmap
mkdir -p adir
fails "--sha256 naming a folder" "adir: exists and is not a regular file" --sha256=adir

# a bmap that does not fit: the image and its .zst are complete when writing it fails
mkdir -p full
if mount -t tmpfs -o size=4k,nr_inodes=16 sdimg-ship full 2>/dev/null; then
    MOUNTS="$MOUNTS $PWD/full"
    printf 'an older map\n' >full/card.bmap
    head -c 1000000 /dev/zero >full/fill 2>/dev/null || true
    old_map=$(sha256sum <full/card.bmap)
    fails "a bmap on a full file system" "full/card.bmap: No space left on device" --bmap=full/card.bmap
    [ "$(ls -A full | sort | tr '\n' ' ')" = "card.bmap fill " ] || fail "left in full/: $(ls -A full)"
    [ "$(sha256sum <full/card.bmap)" = "$old_map" ] || fail "the older full/card.bmap changed"
    umount full
else
    echo "SKIPPED PART: no tmpfs can be mounted here: the bmap on a full file system is not tried"
fi

# interrupt SIGNAL ARGS...: a 4 GiB image compressed with xz (half a minute of work for both
# cores, after the 2 s the build takes to open its outputs) gets SIGNAL
# once its 4 outputs are open (in out/, or fm/ for a bmap and sums there: the compression
# pass has begun) and a moment later
interrupt() {
    sig=$1
    shift
    env --default-signal=INT,TERM "$SDIMG" build -q -o out/card.img --compress xz "$@" big.layout \
        >big.log 2>&1 &
    pid=$!
    PIDS="$PIDS $pid"
    n=0
    while [ "$(ls -l /proc/$pid/fd 2>/dev/null | grep -cE " $PWD/(out|fm)/")" -lt 4 ]; do
        kill -0 $pid 2>/dev/null || fail "the build ended before it was interrupted: $(cat big.log)"
        n=$((n + 1))
        [ $n -lt 600 ] || fail "the build did not open its outputs in 60 s"
        sleep 0.1
    done
    sleep 1
    kill -0 $pid 2>/dev/null || fail "the build ended before it was interrupted: $(cat big.log)"
    kill -"$sig" $pid
    set +e
    wait $pid
    rc=$?
    set -e
    [ $rc -ne 0 ] || fail "SIG$sig: the build succeeded"
    [ $rc -eq 130 ] || [ $rc -eq 143 ] || [ $rc -eq 1 ] || fail "SIG$sig: exit $rc: $(cat big.log)"
}

printf 'image { size = 4G seed = "big" }\nraw spl { offset = 8K from = "spl.bin" }\npartition boot { type = fat size = 32M tree "/" { from = "tree" } }\n' >big.layout
for sig in INT TERM; do
    interrupt $sig --bmap --sha256
    untouched "SIG$sig while compressing"
    echo "SIG$sig while compressing a 4 GiB image (exit $rc): nothing written, older files untouched"
done

# the bmap and the checksums on a file system without O_TMPFILE: hidden names, which must go
if command -v fuse2fs >/dev/null && [ -c /dev/fuse ] && command -v mke2fs >/dev/null; then
    mkdir -p fm
    truncate -s 16M fm.ext4 && mke2fs -q -F -t ext4 fm.ext4
    if fuse2fs fm.ext4 fm >/dev/null 2>&1; then
        MOUNTS="$MOUNTS $PWD/fm"
        printf 'an older map\n' >fm/card.bmap
        printf 'older sums\n' >fm/card.sha256
        (cd fm && sha256sum card.bmap card.sha256) >fm.sums
        rmdir fm/lost+found 2>/dev/null || true
        interrupt INT --bmap=fm/card.bmap --sha256=fm/card.sha256
        untouched "SIGINT with the bmap on fuse2fs"
        [ "$(ls -A fm | sort | tr '\n' ' ')" = "card.bmap card.sha256 " ] ||
            fail "SIGINT: left in the fuse2fs folder: $(ls -A fm | tr '\n' ' ')"
        (cd fm && sha256sum --quiet -c ../fm.sums) >sums.log 2>&1 || fail "an older file on fuse2fs changed"
        echo "SIGINT while compressing, the bmap and sums on fuse2fs (no O_TMPFILE): nothing left, older files untouched"
        umount fm
    else
        echo "SKIPPED PART: fuse2fs cannot mount here: the hidden-name case is not tried"
    fi
else
    echo "SKIPPED PART: no fuse2fs or /dev/fuse: the hidden-name case is not tried"
fi
