#!/bin/sh
# SPDX-License-Identifier: MIT
# A raw partition with a fixed `start`, a `from` and no `size` is as large as its file,
# rounded up to a whole sector, not to `align`: boot loaders at the offsets a boot ROM reads
# (two copies of a first-stage loader at 17K and 273K and the next stage at 529K, as on an
# STM32MP1 card) sit one after the other on the default 4 MiB grid without overlapping, and
# sgdisk reads each partition's size as the file's. A raw partition with an automatic start,
# or with an `align` of its own, keeps the size rounded up to `align`. `sdimg plan` says the same sizes before the build
# (tests/e2e/lib/plan_agrees.sh checks every build of this script).
. "$TOP/tests/e2e-lib.sh"
need sgdisk jq cmp

K=1024
M=1048576
head -c 100000 /dev/urandom >fsbl.bin # 195.3 sectors
head -c 300000 /dev/urandom >fip.bin
head -c 5000 /dev/urandom >env.bin

cat >card.layout <<'LAYOUT'
image { table = gpt size = 16M seed = "raw-file-size" }
partition fsbl1 { start = 17K from = "fsbl.bin" }
partition fsbl2 { start = 273K from = "fsbl.bin" }
partition fip { start = 529K from = "fip.bin" }
partition env { from = "env.bin" }
LAYOUT
expect_status 0 "$SDIMG" plan --json card.layout
plan_size() { jq -r --arg n "$1" '.regions[] | select(.name == $n) | .size' out.txt; }
[ "$(plan_size fsbl1)" = 100352 ] && [ "$(plan_size fip)" = 300032 ] ||
    fail "plan: fsbl1 $(plan_size fsbl1) bytes, fip $(plan_size fip), expected 100352 and 300032"
expect_status 0 "$SDIMG" build -q -o card.img card.layout
sgdisk -p card.img >p.txt || fail "sgdisk -p: $(cat p.txt)"
# sgdisk -p: number, first and last sector
sectors() { awk -v n="$1" '$1 == n { print $2 "-" $3 }' p.txt; }
[ "$(sectors 1)" = 34-229 ] && [ "$(sectors 2)" = 546-741 ] && [ "$(sectors 3)" = 1058-1643 ] ||
    fail "the loaders are not their files' sectors: $(cat p.txt)"
# env has an automatic start: on the 4 MiB grid, its size rounded up to 4 MiB
[ "$(sectors 4)" = 8192-16383 ] || fail "env is not the 4 MiB after 4 MiB: $(cat p.txt)"
cmp -i $((17 * K)):0 -n 100000 card.img fsbl.bin || fail "fsbl1 is not fsbl.bin"
cmp -i $((273 * K)):0 -n 100000 card.img fsbl.bin || fail "fsbl2 is not fsbl.bin"
cmp -i $((529 * K)):0 -n 300000 card.img fip.bin || fail "fip is not fip.bin"
cmp -i $((4 * M)):0 -n 5000 card.img env.bin || fail "env is not env.bin"
echo "fixed starts: fsbl1, fsbl2 and fip as large as their files (whole sectors); env on the grid"

# skip and extra count as they do for size = auto: the file less skip, plus extra
cat >skip.layout <<'LAYOUT'
image { table = mbr size = 8M seed = "raw-file-size" }
partition loader { start = 32K from = "fip.bin" skip = 1000 extra = 1K }
partition next { start = 332K size = 1M }
partition own { start = 2M from = "fsbl.bin" align = 64K }
LAYOUT
expect_status 0 "$SDIMG" build -q -o skip.img skip.layout
[ "$(part_json skip.img 1 size)" -eq $(((300000 - 1000 + 1024 + 511) / 512)) ] ||
    fail "loader is $(part_json skip.img 1 size) sectors"
[ "$(part_json skip.img 3 size)" -eq 256 ] || fail "own is $(part_json skip.img 3 size) sectors, not 128K"
echo "skip and extra: the file less skip, plus extra, in whole sectors; an align of its own rounds"
