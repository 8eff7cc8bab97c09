# SPDX-License-Identifier: MIT
# tests/run-e2e --beside COMMAND (what make check runs its compiles and its static analysis
# with): COMMAND runs at nice 19 while the scripts run and at nice 0 after them (as root),
# the run waits for it, prints its output after the scripts' results, and fails when it
# fails, whatever the scripts did.
. "$TOP/tests/e2e-lib.sh"
need nice

# A copy of run-e2e over one script of its own (run-e2e finds its scripts beside itself),
# which runs until the command beside it has written its niceness: that is written while a
# script runs, whatever the load.
mkdir -p fake/tests/e2e
cp "$TOP/tests/run-e2e" fake/tests/run-e2e
cat >fake/tests/e2e/held.sh <<SCRIPT
n=0
until [ -s "$PWD/beside.nice" ]; do n=\$((n + 1)); [ \$n -lt 300 ] || exit 1; sleep 0.1; done
SCRIPT
expect_status 0 fake/tests/run-e2e --beside "nice >$PWD/beside.nice; echo \"beside at nice \$(nice)\"" "$SDIMG_REAL"
grep -qx 'beside at nice 19' out.txt || { cat out.txt; fail "the command beside did not run at nice 19"; }
grep -q '^e2e: 1 passed, 0 failed, 0 skipped$' out.txt || { cat out.txt; fail "no closing line"; }
# its output comes after the closing line of the scripts
[ "$(grep -nx 'beside at nice 19' out.txt | cut -d: -f1)" -gt "$(grep -n '^e2e: ' out.txt | cut -d: -f1)" ] ||
    { cat out.txt; fail "the command's output is not after the scripts' results"; }

# a failing command fails the run, and says so
expect_status 1 "$TOP/tests/run-e2e" --beside 'echo half done; exit 3' "$SDIMG_REAL" no-such-script
grep -qx 'half done' out.txt || { cat out.txt; fail "the failing command's output is not printed"; }
grep -q 'the command beside the scripts failed (exit 3)' out.txt ||
    { cat out.txt; fail "the run does not say the command beside failed"; }

# once the scripts have ended, what is left of the command runs at nice 0 (root only: only
# root may lower a niceness), so that on a shared machine it does not wait behind every
# other program
if [ "$(id -u)" -eq 0 ] && command -v pgrep >/dev/null 2>&1; then
    # (it looks at its niceness until that is 0, for up to 30 s)
    expect_status 0 "$TOP/tests/run-e2e" --beside 'n=0; while [ "$(nice)" != 0 ] && [ $n -lt 300 ]; do
        n=$((n + 1)); sleep 0.1; done; echo "beside at nice $(nice)"' "$SDIMG_REAL" no-such-script
    grep -qx 'beside at nice 0' out.txt || { cat out.txt; fail "the command beside was not back at nice 0 after the scripts"; }
fi

# the run ends only once the command has ended
expect_status 0 "$TOP/tests/run-e2e" --beside 'sleep 1; touch done.mark' "$SDIMG_REAL" no-such-script
[ -e done.mark ] || fail "the run ended before the command beside it"

# --beside without a command is refused
expect_status 2 "$TOP/tests/run-e2e" --beside
exit 0
