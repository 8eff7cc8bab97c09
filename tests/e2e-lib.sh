# Shared helpers for the end-to-end test scripts (sourced; POSIX sh).
set -eu

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# expect_status N COMMAND...: runs COMMAND, its stdout to out.txt and stderr to err.txt,
# and fails unless it exits with status N.
expect_status() {
    want=$1
    shift
    set +e
    "$@" >out.txt 2>err.txt
    got=$?
    set -e
    [ "$got" -eq "$want" ] || {
        cat out.txt err.txt >&2
        fail "'$*' exited $got, expected $want"
    }
}

# expect_stderr TEXT: err.txt holds exactly one line, and it contains TEXT.
expect_stderr() {
    [ "$(wc -l <err.txt)" -eq 1 ] || { cat err.txt >&2; fail "expected one line on stderr"; }
    grep -qF -- "$1" err.txt || { cat err.txt >&2; fail "stderr lacks: $1"; }
}

need() {
    for tool in "$@"; do
        command -v "$tool" >/dev/null 2>&1 || { echo "$tool is not installed"; exit 77; }
    done
}
