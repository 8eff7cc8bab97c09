# SPDX-License-Identifier: MIT
# Shared helpers of the end-to-end tests that stop sdimg with signals (sourced; not a test
# itself): sdimg run in the background under strace, whose fault injection slows the system
# calls where a signal must land, with /proc hidden from it or not.
#   MODE named: /proc hidden in a mount namespace of its own (sdimg cannot name an unnamed
#   file, and so gives every file a hidden name from the start); unnamed: as it is.
need strace unshare
env --default-signal=INT true 2>/dev/null || { echo "env has no --default-signal (coreutils < 8.31)"; exit 77; }
strace -f -o /dev/null true 2>/dev/null || { echo "strace cannot trace here (ptrace not allowed)"; exit 77; }
NS=""
for ns in "unshare -m" "unshare -rm"; do
    if $ns sh -c 'mount -t tmpfs sdimg-noproc /proc' 2>/dev/null; then
        NS=$ns
        break
    fi
done
[ -n "$NS" ] || { echo "no mount namespace can be made here to hide /proc"; exit 77; }

PIDS=""
cleanup() {
    for p in $PIDS; do kill -KILL "$p" 2>/dev/null && wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'cleanup; exit 1' INT TERM HUP

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# start_traced MODE INJECT COMMAND...: COMMAND in the background under strace with the
# fault injection INJECT, its output in bg.log. $pid: COMMAND's own process, $tracer: what
# to wait for (it exits as COMMAND does).
start_traced() {
    mode=$1 inject=$2
    shift 2
    rm -f pid.txt
    if [ "$mode" = named ]; then
        env --default-signal=INT,TERM,HUP strace -o /dev/null -f -e inject="$inject" $NS sh -c \
            'mount -t tmpfs sdimg-noproc /proc && echo $$ >pid.txt && exec "$@"' sh "$@" >bg.log 2>&1 &
    else
        env --default-signal=INT,TERM,HUP strace -o /dev/null -f -e inject="$inject" sh -c \
            'echo $$ >pid.txt && exec "$@"' sh "$@" >bg.log 2>&1 &
    fi
    tracer=$!
    PIDS="$PIDS $tracer"
    wait_for 15 test -s pid.txt || fail "'$*' did not start: $(cat bg.log)"
    pid=$(cat pid.txt)
}

# finish: waits for the command start_traced started; $rc is its exit status
finish() {
    set +e
    wait $tracer
    rc=$?
    set -e
}

# wait_hidden DIR: until a hidden temporary name appears in DIR
wait_hidden() {
    n=0
    until ls -A "$1" | grep -q '^\.'; do
        kill -0 $tracer 2>/dev/null || fail "sdimg ended before a hidden name appeared: $(cat bg.log)"
        n=$((n + 1))
        [ $n -lt 600 ] || fail "no hidden name appeared in $1 in 30 s"
        sleep 0.05
    done
}
