#!/bin/sh
# SPDX-License-Identifier: MIT
# Stands in for sdimg in the end-to-end tests (tests/e2e-lib.sh makes it $SDIMG, the real
# program being $SDIMG_REAL): `sdimg plan` must say what `sdimg build` does. Before every
# `sdimg build`, the same layout with the same -I and --set is
#   - planned: `sdimg plan --json`, and
#   - built with -v into a folder that does not exist, so that the build prints where it puts
#     each partition and then stops before it writes anything;
# every start and size the plan knows (not pending) must be the build's, and a plan must
# exist whenever the build gets that far. A disagreement is one line on stderr (also
# appended to $SDIMG_DISAGREE_LOG when it is set, for tests/run-e2e) and exit status 1;
# otherwise the real sdimg replaces this script (exec: same process, same signals), with the
# arguments as given. Other commands go straight to the real sdimg.
set -u
real=${SDIMG_REAL:?the real sdimg}
[ "${1:-}" = build ] && command -v jq >/dev/null 2>&1 || exec "$real" "$@"

# quote WORD: WORD as a shell word, for eval
quote() {
    printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

# the layout, -I and --set of the build; anything this does not know goes to the real sdimg
layout= common= want= given=
for arg in "$@"; do
    given="$given $(quote "$arg")"
    if [ -n "$want" ]; then
        [ "$want" = keep ] && common="$common $(quote "$arg")"
        want=
        continue
    fi
    case $arg in
        build) ;;
        -I | --input | --set) common="$common $(quote "$arg")"; want=keep ;;
        -I?* | --input=* | --set=*) common="$common $(quote "$arg")" ;;
        -o | --output | --compress) want=skip ;;
        --output=* | --compress=* | --bmap | --bmap=* | --sha256 | --sha256=* | -q | -v) ;;
        --quiet | --verbose) ;;
        -*) exec "$real" "$@" ;;
        *) [ -z "$layout" ] || exec "$real" "$@"; layout=$arg ;;
    esac
done
[ -n "$layout" ] || exec "$real" "$@"

# its own scratch folder in /tmp, whatever TMPDIR a test gives the build
dir=$(TMPDIR=/tmp mktemp -d) || exit 1
eval "set -- $common $(quote "$layout")"
"$real" build -v -o "$dir/no-such-folder/card.img" "$@" >"$dir/build.out" 2>"$dir/build.err"
sed -n 's/^  \(.*[^ ]\) *start \([0-9]*\), size \([0-9]*\) (.*/\1|\2|\3/p' "$dir/build.out" \
    | sort >"$dir/build.txt"
why=
if [ -s "$dir/build.txt" ]; then
    if "$real" plan --json "$@" >"$dir/plan.json" 2>"$dir/plan.err"; then
        jq -r '.regions[] | select(.kind == "partition") |
               "\(.name)|\(.start // "-")|\(.size // "-")"' "$dir/plan.json" | sort >"$dir/plan.txt"
        while IFS='|' read -r name start size; do
            line=$(awk -F'|' -v n="$name" '$1 == n' "$dir/plan.txt" | head -1)
            pstart=$(echo "$line" | cut -d'|' -f2) psize=$(echo "$line" | cut -d'|' -f3)
            if [ -z "$line" ]; then
                why="partition '$name' is not in the plan"
            elif [ "$pstart" != - ] && [ "$pstart" != "$start" ]; then
                why="partition '$name': plan --json says start $pstart, build -v $start"
            elif [ "$psize" != - ] && [ "$psize" != "$size" ]; then
                why="partition '$name': plan --json says size $psize, build -v $size"
            fi
            [ -z "$why" ] || break
        done <"$dir/build.txt"
    else
        why="plan fails where build places every partition: $(head -1 "$dir/plan.err")"
    fi
fi
rm -rf "$dir"
if [ -n "$why" ]; then
    echo "FAIL: plan and build disagree on $layout: $why" >&2
    [ -z "${SDIMG_DISAGREE_LOG:-}" ] || echo "$layout: $why" >>"$SDIMG_DISAGREE_LOG"
    exit 1
fi
eval "exec \"\$real\" $given"
