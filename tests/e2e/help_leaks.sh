#!/bin/sh
# SPDX-License-Identifier: MIT
# `sdimg COMMAND --help` for every command `sdimg --help` lists: exit 0, the usage on stdout,
# nothing on stderr, and nothing left allocated (valgrind: no block definitely lost; flash
# once returned from its option loop without freeing its --match and --card-values lists).
. "$TOP/tests/e2e-lib.sh"
need valgrind
# valgrind runs the program itself, not the plan_agrees.sh wrapper SDIMG is (e2e-lib.sh)

"$SDIMG" --help | awk '/^Commands:/ { on = 1; next } on && /^$/ { on = 0 } on { print $1 }' >commands.txt
[ "$(wc -l <commands.txt)" -ge 6 ] || fail "sdimg --help lists no commands"
while read -r c; do
    expect_status 0 valgrind -q --leak-check=full --errors-for-leak-kinds=definite \
        --error-exitcode=9 "$SDIMG_REAL" "$c" --help
    grep -q "^Usage: sdimg $c" out.txt || fail "$c --help: no usage on stdout: $(head -3 out.txt)"
    [ ! -s err.txt ] || fail "$c --help: $(cat err.txt)"
    echo "$c --help: usage, no leak"
done <commands.txt
