#!/bin/sh
# SPDX-License-Identifier: MIT
# Two builds to one output set at the same time leave the whole set of one of them, never
# a mix (one's compressed image beside the other's bmap and checksums, or a per-card
# manifest beside an image without per-card values), and both succeed: a build locks the
# folders of its outputs while it puts them in place. The interleaving is forced: the test
# holds that lock (flock on out/) while both builds run, sees both wait for it in
# /proc/locks, and only then lets them go on.
. "$TOP/tests/e2e-lib.sh"
need flock sha256sum cmp
[ -r /proc/locks ] || { echo "no /proc/locks: the builds waiting for the lock cannot be seen"; exit 77; }

PIDS=""
cleanup() {
    for p in $PIDS; do kill -KILL "$p" 2>/dev/null && wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM HUP

mkdir -p tree && head -c 100000 /dev/urandom >tree/data.bin && echo hi >tree/hello.txt
# two images at one set of names: A with per-card values (and so a manifest), B without
cat >a.layout <<'LAYOUT'
image { size = 16M seed = "build-a" disk-id = per-card }
partition boot { type = fat size = 8M tree "/" { from = "tree" } }
LAYOUT
cat >b.layout <<'LAYOUT'
image { size = 16M seed = "build-b" }
partition boot { type = fat size = 8M tree "/" { from = "tree" } }
LAYOUT
OUTS="-q -o out/card.img --compress zst --bmap --sha256"
for x in a b; do
    rm -rf ref_$x && mkdir -p ref_$x/out
    (cd ref_$x && "$SDIMG" build $OUTS ../$x.layout) || fail "$x.layout does not build"
done
[ -e ref_a/out/card.img.cards.json ] && [ ! -e ref_b/out/card.img.cards.json ] ||
    fail "only A should have a per-card manifest"

# set_of X: out/ holds exactly ref_X/out's files, byte for byte
set_of() {
    [ "$(ls -A out | sort | tr '\n' ' ')" = "$(ls -A ref_$1/out | sort | tr '\n' ' ')" ] || return 1
    for f in $(ls -A out); do cmp -s out/$f ref_$1/out/$f || return 1; done
}

# waiting N: N flocks wait for the folder out/ (its inode) in /proc/locks
waiting() {
    [ "$(grep -c "^[0-9]*: *-> FLOCK .*:$ino " /proc/locks)" -ge "$1" ]
}

mkdir -p out
ino=$(stat -c %i out)
for round in "empty" "older set"; do
    exec 9<out
    flock -x 9
    "$SDIMG" build $OUTS a.layout >a.log 2>&1 9<&- &
    pa=$!
    "$SDIMG" build $OUTS b.layout >b.log 2>&1 9<&- &
    pb=$!
    PIDS="$pa $pb"
    n=0
    until waiting 2; do
        kill -0 $pa 2>/dev/null || kill -0 $pb 2>/dev/null ||
            fail "$round: both builds ended while the set was locked: they did not wait ($(cat a.log b.log))"
        n=$((n + 1))
        [ $n -lt 600 ] || fail "$round: the builds did not both wait for the lock in 60 s"
        sleep 0.1
    done
    kill -0 $pa 2>/dev/null && kill -0 $pb 2>/dev/null || fail "$round: a build ended while waiting"
    flock -u 9
    exec 9<&-
    set +e
    wait $pa
    ra=$?
    wait $pb
    rb=$?
    set -e
    PIDS=""
    [ $ra -eq 0 ] && [ $rb -eq 0 ] || fail "$round: exit $ra and $rb: $(cat a.log b.log)"
    if set_of a; then
        who=A
    elif set_of b; then
        who=B
    else
        fail "$round: out/ holds a mixed set: $(cd out && sha256sum * | tr '\n' ' ')"
    fi
    echo "$round: both builds waited for the lock, both exit 0, out/ holds $who's whole set"
done
