# SPDX-License-Identifier: MIT
# tests/run-e2e --beside COMMAND (what make check runs its compiles and its static analysis
# with): COMMAND runs at nice 19 while the scripts run and at nice 0 after them (as root),
# the run waits for it, prints its output after the scripts' results, and fails when it
# fails, whatever the scripts did.
. "$TOP/tests/e2e-lib.sh"
need nice

# no script picked (the pattern matches none): only the command beside them runs
expect_status 0 "$TOP/tests/run-e2e" --beside 'sleep 0.5; echo "beside at nice $(nice)"' \
    "$SDIMG_REAL" no-such-script
grep -qx 'beside at nice 19' out.txt || { cat out.txt; fail "the command beside did not run at nice 19"; }
grep -q '^e2e: 0 passed, 0 failed, 0 skipped$' out.txt || { cat out.txt; fail "no closing line"; }
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
    expect_status 0 "$TOP/tests/run-e2e" --beside 'sleep 2; echo "beside at nice $(nice)"' \
        "$SDIMG_REAL" no-such-script
    grep -qx 'beside at nice 0' out.txt || { cat out.txt; fail "the command beside was not back at nice 0 after the scripts"; }
fi

# the run ends only once the command has ended
expect_status 0 "$TOP/tests/run-e2e" --beside 'sleep 1; touch done.mark' "$SDIMG_REAL" no-such-script
[ -e done.mark ] || fail "the run ended before the command beside it"

# --beside without a command is refused
expect_status 2 "$TOP/tests/run-e2e" --beside
exit 0
