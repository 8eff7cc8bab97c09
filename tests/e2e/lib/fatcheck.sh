# SPDX-License-Identifier: MIT
# Shared helpers of the fat_*.sh end-to-end tests (sourced; not a test itself): the common
# checks of tests/e2e-lib.sh, and the fatwrite test driver.
. "$TOP/tests/e2e-lib.sh"
FATWRITE=$BUILD/tests/tools/fatwrite
export LC_ALL=C.UTF-8 TZ=UTC

need_tools() {
    need "$@"
    [ -x "$FATWRITE" ] || { echo "missing $FATWRITE (make build/tests/tools/fatwrite)"; exit 77; }
}
