# SPDX-License-Identifier: MIT
# `sdimg plan` says what `sdimg build` does. Every build of the e2e tests goes through
# lib/plan_agrees.sh (tests/e2e-lib.sh makes it $SDIMG), which compares the starts and sizes
# of `build -v` with those of `plan --json` wherever the plan knows them; here: that check
# can fail, every example card (examples/*/) planned without a pending value and equal to
# its image's table, and plans that read the sizes of `from` files as the build does.
. "$TOP/tests/e2e-lib.sh"
need jq sfdisk mke2fs
M=1048576
case $SDIMG in */plan_agrees.sh) ;; *) fail "the builds do not go through lib/plan_agrees.sh ($SDIMG)" ;; esac

# --- the check fails when a build puts a partition elsewhere, or when the plan fails
printf 'partition boot { size = 8M }\npartition data { size = 4M }\n' >two.layout
cat >liar <<EOF
#!/bin/sh
if [ "\$1" = build ]; then "$SDIMG_REAL" "\$@" | sed 's/ start 12582912,/ start 16777216,/'; exit 1; fi
exec "$SDIMG_REAL" "\$@"
EOF
cat >noplan <<EOF
#!/bin/sh
[ "\$1" != plan ] || exit 1
exec "$SDIMG_REAL" "\$@"
EOF
chmod +x liar noplan
expect_status 1 env -u SDIMG_DISAGREE_LOG SDIMG_REAL="$PWD/liar" "$SDIMG" build -q -o two.img two.layout
expect_stderr "plan and build disagree on two.layout: partition 'data': plan --json says start 12582912, build -v 16777216"
expect_status 1 env -u SDIMG_DISAGREE_LOG SDIMG_REAL="$PWD/noplan" "$SDIMG" build -q -o two.img two.layout
expect_stderr "plan and build disagree on two.layout: plan fails where build places every partition"
[ ! -e two.img ] || fail "a build that disagrees with its plan was run"
expect_status 0 "$SDIMG" build -q -o two.img two.layout

# --- every example card: nothing pending in its plan, and the plan is its image's table
for ex in "$TOP"/examples/*/; do
    name=$(basename "$ex")
    [ -e "$ex/card.layout" ] || continue # buildroot/, yocto/: build-system folders, not cards
    sh "$TOP/examples/make-inputs.sh" "$name" "in-$name"
    expect_status 0 "$SDIMG" plan --json -I "in-$name" "$ex/card.layout"
    [ ! -s err.txt ] || fail "$name: plan warns: $(cat err.txt)"
    jq -e '[.regions[] | select(.pending)] | length == 0' out.txt >/dev/null ||
        fail "$name: pending in the plan: $(jq -c '[.regions[] | select(.pending)]' out.txt)"
    jq -r '.regions[] | select(.kind == "partition" and .number != null) |
           "\(.number) \(.start) \(.size)"' out.txt | sort >plan.txt
    expect_status 0 "$SDIMG" build -q -I "in-$name" -o "$name.img" "$ex/card.layout"
    sfdisk --json "$name.img" | jq -r '.partitiontable.partitions | to_entries[] |
        "\(.key + 1) \(.value.start * 512) \(.value.size * 512)"' | sort >table.txt
    diff plan.txt table.txt >diff.txt || fail "$name: plan --json and the image's table differ: $(cat diff.txt)"
    rm -f "$name.img"
done

# --- a raw region of its file's size: the plan reads the size (was: boot at 4M in the
# plan, at 12M in the image)
head -c 9000000 /dev/urandom >big.bin
cat >loader.layout <<'LAYOUT'
raw loader { offset = 32K from = "big.bin" }
partition boot { type = fat size = 8M }
LAYOUT
expect_status 0 "$SDIMG" plan --json loader.layout
jq -e '.regions[] | select(.name == "loader") | .size == 9000000' out.txt >/dev/null || fail "plan: loader size"
jq -e '.regions[] | select(.name == "boot") | .start == 12582912' out.txt >/dev/null ||
    fail "plan: boot at $(jq '.regions[] | select(.name == "boot") | .start' out.txt), not 12M"
expect_status 0 "$SDIMG" build -q -o loader.img loader.layout
[ "$(part_start loader.img 1)" = 12582912 ] || fail "build: boot at $(part_start loader.img 1)"
same_bytes loader.img 32768 big.bin
# a raw partition's auto size from its file, rounded up to align
head -c 5000000 /dev/urandom >root.img
printf 'partition boot { type = fat size = 8M }\npartition root { from = "root.img" }\n' >rootauto.layout
expect_status 0 "$SDIMG" plan --json rootauto.layout
jq -e '.regions[] | select(.name == "root") | .start == 12582912 and .size == 8388608' out.txt >/dev/null ||
    fail "plan: root $(jq -c '.regions[] | select(.name == "root")' out.txt)"
jq -e '.image.size == 20971520' out.txt >/dev/null || fail "plan: image size $(jq .image.size out.txt)"

# a `from` that does not exist yet: the plan still prints, with what depends on it pending,
# and a warning naming the line
mkdir later && cp loader.layout rootauto.layout later/
expect_status 0 "$SDIMG" plan --json later/loader.layout
expect_stderr "sdimg: warning: later/loader.layout:1: raw 'loader': later/big.bin does not exist (yet): its size, and what follows from it, stay pending"
jq -e '.regions[] | select(.name == "loader") | .size == null and .pending == "input"' out.txt >/dev/null ||
    fail "plan: missing loader $(jq -c '.regions[] | select(.name == "loader")' out.txt)"
jq -e '.regions[] | select(.name == "boot") | .start == null and .size == 8388608' out.txt >/dev/null ||
    fail "plan: boot after a missing loader $(jq -c '.regions[] | select(.name == "boot")' out.txt)"
expect_status 0 "$SDIMG" plan later/rootauto.layout
grep -q '^root .*input (pending)' out.txt || fail "the table does not say that root waits for its input: $(cat out.txt)"
expect_stderr "later/rootauto.layout:2: partition 'root': later/root.img does not exist (yet)"
# a `from` that exists but cannot be used is an error, as in a build
mkdir later/big.bin
expect_status 1 "$SDIMG" plan later/loader.layout
expect_stderr "later/loader.layout:1: raw 'loader': later/big.bin is not a regular file"
: >later/root.img
expect_status 1 "$SDIMG" plan later/rootauto.layout
expect_stderr "later/rootauto.layout:2: partition 'root': later/root.img is empty (give the partition a size)"
