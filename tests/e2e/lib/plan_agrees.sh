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
# Every build of the e2e scripts passes here (over a thousand of them): the check starts
# five programs (mktemp, the two sdimg runs, one jq for the comparison, rm) and the shell's
# own work, no process per argument or partition.
set -u
real=${SDIMG_REAL:?the real sdimg}
[ "${1:-}" = build ] && command -v jq >/dev/null 2>&1 || exec "$real" "$@"

# disagreement build ARGS...: prints why the plan and the build of ARGS disagree, as
# "LAYOUT: WHY" on one line (nothing where they agree); returns 2 where ARGS are not a build
# this can check (an option it does not know, no layout or two), which then goes to the
# real sdimg unchecked, and 3 where the check cannot run (no scratch folder: mktemp said
# why). ARGS are kept in place but for -o/--output/--compress and their values and the
# output options: the layout, -I and --set, in their order.
disagreement() {
    shift
    layout= want= n=$#
    while [ "$n" -gt 0 ]; do
        arg=$1
        shift
        n=$((n - 1))
        if [ -n "$want" ]; then
            [ "$want" = skip ] || set -- "$@" "$arg"
            want=
            continue
        fi
        case $arg in
            -I | --input | --set) set -- "$@" "$arg"; want=keep ;;
            -I?* | --input=* | --set=*) set -- "$@" "$arg" ;;
            -o | --output | --compress) want=skip ;;
            --output=* | --compress=* | --bmap | --bmap=* | --sha256 | --sha256=* | -q | -v) ;;
            --quiet | --verbose) ;;
            -*) return 2 ;;
            *) [ -z "$layout" ] || return 2; layout=$arg; set -- "$@" "$arg" ;;
        esac
    done
    [ -n "$layout" ] || return 2
    # its own scratch folder in /tmp, whatever TMPDIR a test gives the build
    dir=$(TMPDIR=/tmp mktemp -d) || return 3
    "$real" build -v -o "$dir/no-such-folder/card.img" "$@" >"$dir/build.out" 2>/dev/null
    plan_rc=0
    "$real" plan --json "$@" >"$dir/plan.json" 2>"$dir/plan.err" || plan_rc=1
    # the partitions build -v places ("  NAME  start N, size N (...") against the plan's
    # (its start and size where it knows them), in the order of their "NAME|START|SIZE"; the
    # first difference. A plan that is no JSON plan is one (a jq error would be a line of its
    # own).
    rc=0
    jq -rn --rawfile build "$dir/build.out" --rawfile plan "$dir/plan.json" \
        --rawfile err "$dir/plan.err" --argjson failed "$plan_rc" --arg layout "$layout" '
        [$build | splits("\n") |
         capture("^  (?<name>.*[^ ]) *start (?<start>[0-9]*), size (?<size>[0-9]*) \\(")] |
        sort_by("\(.name)|\(.start)|\(.size)") as $built |
        (try ($plan | fromjson) catch null) as $json |
        if ($built | length) == 0 then empty
        elif $failed == 1 then
            "\($layout): plan fails where build places every partition: \($err | split("\n")[0] // "")"
        elif ($json | type) != "object" or ($json.regions | type) != "array" then
            "\($layout): plan --json gives no plan (.regions): \($plan | split("\n")[0] // "")"
        else
            [$json.regions[] | select(.kind == "partition")] as $planned |
            first($built[] as $b |
                  ([$planned[] | select(.name == $b.name)] | .[0]) as $p |
                  if $p == null then "\($layout): partition '\''\($b.name)'\'' is not in the plan"
                  elif $p.start != null and ($p.start | tostring) != $b.start then
                      "\($layout): partition '\''\($b.name)'\'': plan --json says start \($p.start), build -v \($b.start)"
                  elif $p.size != null and ($p.size | tostring) != $b.size then
                      "\($layout): partition '\''\($b.name)'\'': plan --json says size \($p.size), build -v \($b.size)"
                  else empty end)
        end' 2>&1 || rc=1
    rm -rf "$dir"
    return $rc
}

why=$(disagreement "$@")
case $? in
    0) ;;
    2) exec "$real" "$@" ;;
    3) exit 1 ;;
    *) why="$(printf '%s' "$why" | head -1) (the check failed: jq)" ;;
esac
if [ -n "$why" ]; then
    echo "FAIL: plan and build disagree on $why" >&2
    [ -z "${SDIMG_DISAGREE_LOG:-}" ] || echo "$why" >>"$SDIMG_DISAGREE_LOG"
    exit 1
fi
exec "$real" "$@"
