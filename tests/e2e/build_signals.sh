#!/bin/sh
# SPDX-License-Identifier: MIT
# Signals and kills against a build, with hidden temporary names (/proc hidden from sdimg in
# a mount namespace of its own: it cannot name an unnamed file) and with unnamed files;
# strace's fault injection slows the system calls where a signal must land:
#  - SIGINT or SIGTERM at any moment of putting the outputs in place: exit 0 with every new
#    output in place, or non-zero with every older file untouched, never a mix;
#  - SIGKILL leaves a hidden name (during the build, or between linkat and rename with an
#    unnamed file): the next build to that name removes it (the per-card manifest's and the
#    bmap's too, also when that build writes none), and never one of a live build;
#  - SIGINT as the image's hidden name is made leaves nothing;
#  - under nohup, SIGHUP does not stop the build;
#  - SIGINT in the middle of a large FAT partition, or while the checksums of a large card
#    are taken, ends the build within a second, with nothing left behind.
. "$TOP/tests/e2e-lib.sh"
need sha256sum
. "$TOP/tests/e2e/lib/signals.sh"

# start MODE INJECT PREFIX ARGS...: `PREFIX sdimg build ARGS` in the background under strace
# (start_traced)
start() {
    mode=$1 inject=$2 prefix=$3
    shift 3
    start_traced "$mode" "$inject" $prefix "$SDIMG" build "$@"
}

mkdir -p tree
head -c 300000 /dev/urandom >tree/data.bin
echo hello >tree/hello.txt
cat >card.layout <<'LAYOUT'
image { size = 64M seed = "signals" }
partition boot { type = fat size = 32M tree "/" { from = "tree" } }
LAYOUT
"$SDIMG" build -q -o new.img --bmap --sha256 card.layout
new_img=$(sha256sum <new.img)

# older files at every name, and their sums
olds() {
    rm -rf out && mkdir out
    for f in card.img card.img.bmap card.img.sha256; do printf 'an older %s\n' $f >out/$f; done
}
olds
(cd out && sha256sum card.img card.img.bmap card.img.sha256) >old.sums

# start_on_olds MODE INJECT PREFIX ARGS...: older files at every name (olds), then the build
# started (start), back once its first hidden name is in out/
start_on_olds() {
    olds
    start "$@"
    wait_hidden out
}

# only_outputs WHAT: out/ holds the image, its bmap and its checksums, and nothing else
only_outputs() {
    [ "$(ls -A out | sort | tr '\n' ' ')" = "card.img card.img.bmap card.img.sha256 " ] ||
        fail "$1: out/ holds $(ls -A out | tr '\n' ' ')"
}

# all_or_none WHAT: either the build succeeded and every output is new, or it failed and
# every older file is untouched; no hidden name either way
all_or_none() {
    only_outputs "$1 (exit $rc: $(cat bg.log))"
    if [ $rc -eq 0 ]; then
        [ "$(sha256sum <out/card.img)" = "$new_img" ] || fail "$1: exit 0, but out/card.img is not the new image"
        grep -q older out/card.img.bmap out/card.img.sha256 && fail "$1: exit 0, but an older side file stayed"
        grep -qi interrupted bg.log && fail "$1: exit 0 with 'interrupted': $(cat bg.log)"
    else
        (cd out && sha256sum --quiet -c ../old.sums) >sums.log 2>&1 ||
            fail "$1: exit $rc, yet an older file changed: $(cat sums.log) ($(cat bg.log))"
    fi
    return 0
}

# 1. a signal at moments all through the end of a build (each fsync takes 0.15 s: the image,
# the bmap, the checksums, their folders), with hidden names and with unnamed files (whose
# names appear only once they are complete)
for run in "named INT 0 250 500 750 1000" "named TERM 100 350 600 850" "unnamed INT 0 200 400 600"; do
    set -- $run
    mode=$1 sig=$2
    shift 2
    ok=0 stopped=0
    for ms in "$@"; do
        start_on_olds $mode fsync:delay_exit=150000 "" -q -o out/card.img --bmap --sha256 card.layout
        sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
        kill -$sig $pid 2>/dev/null || true
        finish
        all_or_none "$mode, SIG$sig $ms ms after the first hidden name"
        [ $rc -eq 0 ] && ok=$((ok + 1)) || stopped=$((stopped + 1))
    done
    echo "$mode, SIG$sig at $# moments: $ok built, $stopped stopped, never a mix"
done

# ... and at the moment the image's hidden name is made (its lock slowed to 0.5 s): the name
# goes with the build
start_on_olds named flock:delay_exit=500000 "" -q -o out/card.img card.layout
kill -INT $pid
finish
[ $rc -ne 0 ] || fail "SIGINT as the hidden name was made: the build succeeded"
(cd out && sha256sum --quiet -c ../old.sums) >sums.log 2>&1 || fail "SIGINT as the hidden name was made: an older file changed"
only_outputs "SIGINT as the hidden name was made (exit $rc: $(cat bg.log))"
echo "named, SIGINT as the image's hidden name is made: nothing left"

# 2. SIGKILL leaves a hidden name behind; the next build to that name removes it, and a
# build to another name in the folder leaves it alone
start_on_olds named fsync:delay_exit=2000000 "" -q -o out/card.img card.layout
kill -KILL $pid
finish
hidden=$(ls -A out | grep '^\.') || fail "SIGKILL left no hidden name (nothing to clean up)"
"$SDIMG" build -q -o out/other.img card.layout
ls -A out | grep -qxF "$hidden" || fail "a build to another name removed $hidden"
rm out/other.img
"$SDIMG" build -q -o out/card.img --bmap --sha256 card.layout
only_outputs "after SIGKILL, the next build"
echo "SIGKILL during a build: its hidden name goes with the next build to that name"

# ... also with an unnamed file killed between linkat and rename
start_on_olds unnamed renameat2:delay_enter=3000000 "" -q -o out/card.img card.layout
kill -KILL $pid
finish
ls -A out | grep -q '^\.' || fail "SIGKILL before the rename left no hidden name"
"$SDIMG" build -q -o out/card.img --bmap --sha256 card.layout
only_outputs "after SIGKILL before the rename, the next build"
echo "SIGKILL between linkat and rename: the hidden name goes with the next build"

# ... also the hidden name of a per-card manifest, when the next build to that image has no
# per-card values (and so no manifest of its own to write)
# wait_second_hidden WHAT: until out/ holds two hidden names, the image's and WHAT's
wait_second_hidden() {
    n=0
    until [ "$(ls -A out | grep -c '^\.')" -ge 2 ]; do
        kill -0 $tracer 2>/dev/null || fail "the build ended before $1 had a hidden name: $(cat bg.log)"
        n=$((n + 1))
        [ $n -lt 600 ] || fail "the build made no hidden name for $1 in 30 s"
        sleep 0.05
    done
}
sed 's/seed = "signals"/seed = "signals" disk-id = per-card/' card.layout >percard.layout
start_on_olds named fsync:delay_exit=2000000 "" -q -o out/card.img percard.layout
wait_second_hidden "its per-card manifest"
kill -KILL $pid
finish
"$SDIMG" build -q -o out/card.img --bmap --sha256 card.layout
only_outputs "after SIGKILL of a per-card build, the next build without per-card values"
echo "SIGKILL of a per-card build: the next build, without a manifest, removes the manifest's hidden name too"

# ... and so of the bmap (as of the checksums and the compressed copies): the next build to
# that image without --bmap removes its hidden name
start_on_olds named fsync:delay_exit=2000000 "" -q -o out/card.img --bmap card.layout
wait_second_hidden "its bmap"
kill -KILL $pid
finish
"$SDIMG" build -q -o out/card.img --sha256 card.layout
only_outputs "after SIGKILL of a build with --bmap, the next build without"
echo "SIGKILL of a build with --bmap: the next build, without --bmap, removes the bmap's hidden name too"

# ... but the hidden name of a live build stays: both builds succeed (its two fsyncs, the
# image's and its folder's, slowed to 1 s each: it is still running while the other runs)
start_on_olds named fsync:delay_exit=1000000 "" -q -o out/card.img card.layout
live=$(ls -A out | grep '^\.')
$NS sh -c 'mount -t tmpfs sdimg-noproc /proc && exec "$@"' sh "$SDIMG" build -q -o out/card.img card.layout ||
    fail "a second build beside a live one failed"
kill -0 $tracer 2>/dev/null && { ls -A out | grep -qxF "$live" || fail "a second build removed $live of a live build"; }
finish
[ $rc -eq 0 ] || fail "a build whose folder another build cleaned up failed: $(cat bg.log)"
only_outputs "two builds to one name"
echo "two builds to one name at once: both succeed, nothing left"

# 3. nohup: SIGHUP is ignored, the build goes on
start_on_olds named fsync:delay_exit=500000 nohup -q -o out/card.img card.layout
kill -HUP $pid
finish
[ $rc -eq 0 ] || fail "nohup sdimg build: SIGHUP stopped it (exit $rc): $(cat bg.log)"
[ "$(sha256sum <out/card.img)" = "$new_img" ] || fail "nohup sdimg build: out/card.img is not the new image"
echo "nohup sdimg build: SIGHUP changes nothing"

# stopped_soon INJECT WAIT WHAT ARGS...: a build of ARGS (held signals, strace's INJECT),
# SIGINT after WAIT seconds: it ends within 1.5 s, nothing of it left, the older files kept;
# the milliseconds it took in $t
stopped_soon() {
    inject=$1 pause=$2 what=$3
    shift 3
    start_on_olds named "$inject" "" -q -o out/card.img "$@"
    sleep "$pause"
    kill -0 $tracer 2>/dev/null || fail "the $what build ended before it was interrupted: $(cat bg.log)"
    t0=$(now_ms)
    kill -INT $pid
    finish
    t=$(($(now_ms) - t0))
    [ $rc -ne 0 ] || fail "SIGINT: the $what build succeeded"
    [ $t -le 1500 ] || fail "SIGINT: the $what build took $t ms to stop"
    (cd out && sha256sum --quiet -c ../old.sums) >sums.log 2>&1 || fail "SIGINT: an older file changed"
    only_outputs "SIGINT"
}

# 4. SIGINT in the middle of a 3 GiB FAT partition (each write slowed to 50 ms: seconds of
# work left) ends the build at once
mkdir -p big
yes sdimg | head -c 24M >big/large.bin
for i in $(seq 1 60); do yes "$i" | head -c 256K >big/f$i.bin; done
cat >big.layout <<'LAYOUT'
image { size = 3G seed = "big" }
partition boot { type = fat size = 3000M tree "/" { from = "big" } }
LAYOUT
stopped_soon copy_file_range,pwrite64:delay_exit=50000 0.5 "3 GiB" big.layout
echo "SIGINT in the middle of a 3 GiB FAT partition: stopped in $t ms (exit $rc), nothing left"

# 5. SIGINT while the checksums of a 16 GiB card are still being taken, behind the written
# image (held signals: the wait for the thread that takes them looks for one), ends the
# build at once, not once the rest of the image is hashed (seconds of zeros here)
cat >huge.layout <<'LAYOUT'
image { size = 16G table = gpt seed = "huge" }
partition boot { type = fat32 size = 100M tree "/" { from = "tree" } }
LAYOUT
stopped_soon fsync:delay_exit=1 1 "16 GiB" --bmap --sha256 huge.layout
echo "SIGINT while a 16 GiB card's checksums are taken: stopped in $t ms (exit $rc), nothing left"
