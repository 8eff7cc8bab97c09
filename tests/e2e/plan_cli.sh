# SPDX-License-Identifier: MIT
# sdimg's command line and `sdimg plan`, checked from the outside (jq reads the JSON).
. "$TOP/tests/e2e-lib.sh"
need jq

expect_status 0 "$SDIMG" --version
grep -q '^sdimg [0-9]' out.txt || fail "--version prints no version"
expect_status 0 "$SDIMG" --help
grep -q 'plan' out.txt || fail "--help does not list plan"
expect_status 0 "$SDIMG" plan --help
grep -q -- '--json' out.txt || fail "plan --help does not describe --json"

# usage errors: status 2, a hint, nothing on stdout
expect_status 2 "$SDIMG"
expect_status 2 "$SDIMG" frobnicate
grep -q "unknown command 'frobnicate'" err.txt || fail "no word about the unknown command"
expect_status 2 "$SDIMG" plan
expect_status 2 "$SDIMG" plan --bogus x.layout
expect_status 2 "$SDIMG" plan a.layout b.layout
expect_status 2 "$SDIMG" plan --set NOEQUALS x.layout
[ ! -s out.txt ] || fail "usage errors print on stdout"

# every example plans cleanly, with nothing on stderr
for ex in "$TOP"/examples/*/card.layout; do
    expect_status 0 "$SDIMG" plan "$ex"
    [ ! -s err.txt ] || { cat err.txt; fail "warnings for $ex"; }
    expect_status 0 "$SDIMG" plan --json "$ex"
    jq -e '.image.size > 0 and (.regions | length) > 0' out.txt >/dev/null || fail "bad JSON for $ex"
done

# the JSON document, key by key
cat >card.layout <<'LAYOUT'
image { size = 64M table = gpt gpt-entries = 1M }
raw spl { offset = 8K from = "spl.bin" size = 100K }
partition boot { type = fat32 size = 36M bootable = true }
partition root { from = "root.img" size = grow }
LAYOUT
expect_status 0 "$SDIMG" plan --json card.layout
jq -e '.image == {"size": 67108864, "table": "gpt", "align": 4194304}' out.txt >/dev/null ||
    fail "image object: $(jq -c .image out.txt)"
jq -e '[.regions[].kind] == ["mbr","gpt-header","raw","gpt-entries","partition","partition","gpt-backup"]' \
    out.txt >/dev/null || fail "region kinds: $(jq -c '[.regions[].kind]' out.txt)"
jq -e '.regions[] | select(.name == "boot") |
    .number == 1 and .start == 4194304 and .size == 37748736 and .type == "fat32" and .bootable' \
    out.txt >/dev/null || fail "boot region: $(jq -c '.regions[] | select(.name == "boot")' out.txt)"
jq -e '.regions[] | select(.kind == "gpt-entries") | .start == 1048576 and .size == 16384' \
    out.txt >/dev/null || fail "gpt-entries region"
jq -e '.regions[] | select(.kind == "gpt-backup") | .start + .size == 67108864' out.txt >/dev/null ||
    fail "gpt-backup region"
[ "$(jq -r 'keys_unsorted | join(",")' out.txt)" = "image,regions" ] || fail "top-level key order"
[ "$(jq -r '.regions[4] | keys_unsorted | join(",")' out.txt)" = \
  "name,kind,number,start,size,alignment,type,logical,bootable" ] || fail "region key order"

# a name that is not UTF-8 (an MBR partition's is the layout's only) keeps its key: each
# byte that is no UTF-8 becomes U+FFFD, the rest is as written
printf 'partition "b\377x" { size = 8M }\npartition "\303\251t\303\251" { size = 1M }\n' >bytes.layout
expect_status 0 "$SDIMG" plan --json bytes.layout
jq -e '[.regions[] | select(.kind == "partition") | .name] == ["b\ufffdx", "\u00e9t\u00e9"]' out.txt >/dev/null ||
    fail "names not UTF-8: $(jq -c '[.regions[] | select(.kind == "partition") | .name]' out.txt)"

# pending sizes: null, with "pending": "auto"
cat >auto.layout <<'LAYOUT'
partition boot { type = fat }
partition data { size = 8M }
LAYOUT
expect_status 0 "$SDIMG" plan --json auto.layout
jq -e '.regions[] | select(.name == "boot") | .size == null and .pending == "auto" and .start == 4194304' \
    out.txt >/dev/null || fail "pending boot: $(jq -c '.regions[] | select(.name == "boot")' out.txt)"
jq -e '.regions[] | select(.name == "data") | .start == null and .pending == "auto"' out.txt >/dev/null ||
    fail "data after a pending size"
jq -e '.image.size == null and .image.pending == "auto"' out.txt >/dev/null || fail "pending image size"
expect_status 0 "$SDIMG" plan auto.layout
grep -q 'auto (pending)' out.txt || fail "the table does not show the pending size"

# errors: status 1, one line naming the file and line, no output
printf '# comment\n# another\npartition boot {\n  bootabel = true\n}\n' >typo.layout
expect_status 1 "$SDIMG" plan typo.layout
expect_stderr "typo.layout:4: unknown key 'bootabel' in partition 'boot' (did you mean 'bootable'?)"
[ ! -s out.txt ] || fail "a failed plan printed a plan"
printf 'raw a { offset = 400 from = "x" size = 100 }\n' >overlap.layout
expect_status 1 "$SDIMG" plan overlap.layout
expect_stderr "overlap.layout:1: raw 'a' (bytes 400-499) overlaps the mbr (bytes 440-511)"
expect_status 1 "$SDIMG" plan missing.layout
expect_stderr "missing.layout: No such file or directory"
head -c 300 /dev/urandom >binary.layout
expect_status 1 "$SDIMG" plan binary.layout

# warnings go to stderr, the plan still prints
printf 'image { size = 64M }\npartition a {\n start = 63s\n size = 8M\n}\n' >offgrid.layout
expect_status 0 "$SDIMG" plan offgrid.layout
expect_stderr "offgrid.layout:3: partition 'a': start 32256 is off the 4194304-byte alignment grid"

# variables: --set wins over the environment; an undefined one is an error
printf 'partition "${NAME}" { size = ${SIZE} }\n' >vars.layout
expect_status 1 env -u NAME -u SIZE "$SDIMG" plan vars.layout
expect_stderr 'vars.layout:1: variable ${NAME} is not set'
NAME=fromenv SIZE=8M expect_status 0 "$SDIMG" plan --json --set NAME=fromset vars.layout
jq -e '.regions[1].name == "fromset" and .regions[1].size == 8388608' out.txt >/dev/null ||
    fail "--set or environment variables"

# a 100-partition GPT layout: parsed and planned (the whole process) quickly
{
    echo 'image { table = gpt align = 1M }'
    i=0
    while [ $i -lt 100 ]; do echo "partition p$i { size = 1M }"; i=$((i + 1)); done
} >many.layout
start=$(date +%s%N)
expect_status 0 "$SDIMG" plan --json many.layout
end=$(date +%s%N)
echo "sdimg plan of 100 GPT partitions: $(((end - start) / 1000)) us for the whole process"
jq -e '[.regions[] | select(.kind == "partition")] | length == 100' out.txt >/dev/null || fail "100 partitions"
