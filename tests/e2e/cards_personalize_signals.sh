#!/bin/sh
# SPDX-License-Identifier: MIT
# `sdimg personalize` makes its copy as a build makes its outputs: SIGINT or SIGTERM in the
# middle of the copy (strace slows each piece of it) ends it within a second with nothing
# left and the older file at the name untouched, with a hidden temporary name (/proc hidden)
# and with an unnamed file, also as the hidden name is made; SIGKILL leaves a hidden name,
# which the next run to that name removes (a run to another name leaves it alone).
# e2e-alone: its signals land at moments timed by a slowed copy
. "$TOP/tests/e2e-lib.sh"
. "$TOP/tests/e2e/lib/personalize.sh"
need sha256sum
. "$TOP/tests/e2e/lib/signals.sh"

serial_card signals 24
"$SDIMG" personalize card.img --set CARD_SERIAL=7 -o want.img

# older: out/ holds an older c.img (its sum in old.sum) and nothing else
older() {
    rm -rf out && mkdir out
    echo "an older card" >out/c.img
    sha256sum <out/c.img >old.sum
}

# only_older WHAT: out/ holds the older c.img, untouched, and nothing else
only_older() {
    [ "$(ls -A out | tr '\n' ' ')" = "c.img " ] || fail "$1: out/ holds $(ls -A out | tr '\n' ' ')"
    [ "$(sha256sum <out/c.img)" = "$(cat old.sum)" ] || fail "$1: the older out/c.img changed"
}

# start_copy MODE: personalize card.img to out/c.img in the background, each copy_file_range
# and pwrite slowed to 50 ms (seconds of copying), back while it copies
start_copy() {
    older
    start_traced "$1" copy_file_range,pwrite64:delay_exit=50000 "$SDIMG" personalize card.img \
        --set CARD_SERIAL=7 -o out/c.img
    if [ "$1" = named ]; then
        wait_hidden out
    else
        sleep 0.5
    fi
    sleep 0.3
    kill -0 $tracer 2>/dev/null || fail "$1: personalize ended before it was stopped: $(cat bg.log)"
}

for run in "unnamed INT" "unnamed TERM" "named INT" "named TERM"; do
    set -- $run
    start_copy $1
    t0=$(now_ms)
    kill -$2 $pid
    finish
    t=$(($(now_ms) - t0))
    [ $rc -ne 0 ] || fail "$1, SIG$2: personalize succeeded"
    [ $t -le 1500 ] || fail "$1, SIG$2: personalize took $t ms to stop"
    only_older "$1, SIG$2 (exit $rc: $(cat bg.log))"
    echo "$1, SIG$2 in the middle of the copy: stopped in $t ms (exit $rc), nothing left"
done

# ... and at the moment the hidden name is made (its lock slowed to 0.5 s)
older
start_traced named flock:delay_exit=500000 "$SDIMG" personalize card.img --set CARD_SERIAL=7 -o out/c.img
wait_hidden out
kill -INT $pid
finish
[ $rc -ne 0 ] || fail "SIGINT as the hidden name was made: personalize succeeded"
only_older "SIGINT as the hidden name was made (exit $rc: $(cat bg.log))"
echo "named, SIGINT as the hidden name is made: nothing left"

# ... and at moments all through putting the copy in place (each fsync and rename slowed to
# 0.15 s): the new copy with the older file's mode, or the older file untouched, never other
for ms in 0 150 300 450; do
    older
    chmod 600 out/c.img
    start_traced named fsync,renameat2:delay_exit=150000 "$SDIMG" personalize card.img \
        --set CARD_SERIAL=7 -o out/c.img
    sleep "0.$(printf %03d $ms)"
    kill -INT $pid 2>/dev/null || true
    finish
    if [ $rc -eq 0 ]; then
        [ "$(ls -A out | tr '\n' ' ')" = "c.img " ] && cmp -s out/c.img want.img ||
            fail "SIGINT $ms ms into the end: exit 0, but out/ holds $(ls -A out | tr '\n' ' ') or not the card's copy"
        [ "$(stat -c %a out/c.img)" = 600 ] || fail "SIGINT $ms ms into the end: the copy is $(stat -c %a out/c.img)"
    else
        only_older "SIGINT $ms ms into the end (exit $rc: $(cat bg.log))"
    fi
done
echo "SIGINT at 4 moments of putting the copy in place: all or none"

# SIGKILL: the hidden name stays until the next run to that name
start_copy named
kill -KILL $pid
finish
hidden=$(ls -A out | grep '^\.') || fail "SIGKILL left no hidden name (nothing to clean up)"
"$SDIMG" personalize card.img --set CARD_SERIAL=7 -o out/other.img
ls -A out | grep -qxF "$hidden" || fail "a run to another name removed $hidden"
rm out/other.img
"$SDIMG" personalize card.img --set CARD_SERIAL=7 -o out/c.img
[ "$(ls -A out | tr '\n' ' ')" = "c.img " ] || fail "after SIGKILL, the next run left $(ls -A out | tr '\n' ' ')"
cmp -s out/c.img want.img || fail "after SIGKILL, the next run's copy is not the card's"
echo "SIGKILL during the copy: its hidden name goes with the next run to that name"
echo "cards_personalize_signals: ok"
