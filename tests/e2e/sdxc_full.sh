# SPDX-License-Identifier: MIT
# inspect judges a FAT data area or exFAT cluster heap against what a default build of that
# volume reaches WITH the clusters it uses: a fixed partition that its files fill too much to
# take the card's full unit (the builder lowers data-align) inspects clean, on a 64 GB and a
# 1 TB card; a few-MiB volume that cannot reach the erase block inspects clean too (also on a
# 16 GB card); a volume made off that grid by hand still gets a finding, and its advice,
# followed, builds and inspects clean. On images without a table or with two partitions the
# advice is one a build accepts (no sd-format), and names no default for a size not given.
. "$TOP/tests/e2e-lib.sh"
need jq
need python3

mkdir -p f55 f54 f50 small edge
for i in 1 2 3 4 5; do head -c 11M /dev/zero >f55/f$i; head -c 10M /dev/zero >f50/f$i; done
for i in 1 2 3 4 5 6; do head -c 9M /dev/zero >f54/f$i; done
echo small >small/a.txt

warnings() { jq -c '[.findings[] | select(.severity != "info")]' out.txt; }
# clean NAME LAYOUT: builds LAYOUT by default and inspect --json has no warning
clean() {
    expect_status 0 "$SDIMG" build -q -o "$1.img" "$2"
    expect_status 0 "$SDIMG" inspect --json "$1.img"
    [ "$(warnings)" = "[]" ] || fail "$1: a default build has findings: $(warnings)"
    rm -f "$1.img"
}
# advised NAME LAYOUT CODE KEY: a build of LAYOUT gets finding CODE whose advice names
# KEY = VALUE; the layout with that key added in its partition's braces builds clean
advised() {
    expect_status 0 "$SDIMG" build -q -o "$1.img" "$2"
    expect_status 0 "$SDIMG" inspect --json "$1.img"
    msg=$(jq -r "[.findings[] | select(.code == \"$3\") | .message][0] // \"\"" out.txt)
    [ -n "$msg" ] || fail "$1: no $3 finding: $(warnings)"
    case $msg in *sd-format*) fail "$1: advice a build refuses: $msg" ;; esac
    v=$(printf '%s\n' "$msg" | sed -n "s/.*$4 { data-align = \([0-9]*[KMG]\) }.*/\1/p")
    [ -n "$v" ] || fail "$1: the $3 advice names no $4 { data-align }: $msg"
    sed "s/$4 { data-align = [0-9]*[KMG]* }/$4 { data-align = $v }/" "$2" >"$1b.layout"
    expect_status 0 "$SDIMG" build -q -o "$1b.img" "$1b.layout"
    expect_status 0 "$SDIMG" inspect --json "$1b.img"
    [ "$(warnings)" = "[]" ] || fail "$1: after the advice ($4 { data-align = $v }): $(warnings)"
    rm -f "$1.img" "$1b.img"
}

# full fixed partitions: the builder lowers the unit for the files, inspect agrees
printf 'image { size = 64G }\npartition boot { type = fat size = 64M tree "/" { from = "f55/" } }\npartition data { type = exfat size = grow }\n' >fat64.layout
clean fat64 fat64.layout
printf 'image { size = 64G }\npartition e { type = exfat size = 64M tree "/" { from = "f54/" } }\npartition f { type = exfat size = grow }\n' >ex64.layout
clean ex64 ex64.layout
printf 'image { size = 1T }\npartition boot { type = fat size = 64M tree "/" { from = "f50/" } }\npartition data { type = exfat size = grow }\n' >fat1t.layout
clean fat1t fat1t.layout

# few-MiB volumes: below the erase block, judged against what they reach
printf 'image { size = 64G }\npartition e { type = exfat size = 3M }\npartition f { type = exfat size = grow }\n' >ex3.layout
clean ex3 ex3.layout
printf 'image { size = 1T }\npartition s { type = fat16 size = 3M }\npartition f { type = exfat size = grow }\n' >f3t.layout
clean f3t f3t.layout
printf 'image { size = 16G }\npartition s { type = fat size = 3M tree "/" { from = "small/" } }\npartition e { type = exfat size = 3M }\npartition f { type = fat32 size = grow }\n' >f316.layout
clean f316 f316.layout

# made off the grid by hand: a finding, and its advice, followed, builds and inspects clean
printf 'image { size = 64G }\npartition boot { type = fat size = 64M tree "/" { from = "f55/" } fat { data-align = 512 } }\npartition data { type = exfat size = grow }\n' >fatm.layout
advised fatm fatm.layout data-misaligned fat
printf 'image { size = 64G }\npartition e { type = exfat size = 64M tree "/" { from = "f54/" } exfat { data-align = 512 } }\npartition f { type = exfat size = grow }\n' >exm.layout
advised exm exm.layout heap-misaligned exfat

# exFAT at the edge of its bitmap's first cluster: 144M at 16M has 32,768 clusters of 4K, a
# bitmap of one cluster, and the file fills all the rest; a default build keeps 16M. The
# bitmap is sized for the grid tried (not taken as the image has it): a heap on 8M gets a
# finding, and one made off the grid is advised 16M (64M on a 1 TB card, with 192M)
truncate -s 134201344 edge/f
printf 'image { size = 64G }\npartition e { type = exfat size = 144M tree "/" { from = "edge/" } exfat { data-align = 8M } }\npartition f { type = exfat size = grow }\n' >exe.layout
expect_status 0 "$SDIMG" build -q -o exe.img exe.layout
expect_status 0 "$SDIMG" inspect --json exe.img
jq -e '.findings | any(.code == "heap-misaligned" and .partition == 1)' out.txt >/dev/null ||
    fail "exe: a heap on 8M where a default build reaches 16M has no finding: $(warnings)"
rm -f exe.img
sed 's/data-align = 8M/data-align = 512/' exe.layout >exe5.layout
advised exe5 exe5.layout heap-misaligned exfat
[ "$v" = 16M ] || fail "exe5: advised data-align = $v, the default build reaches 16M"
printf 'image { size = 1T }\npartition e { type = exfat size = 192M tree "/" { from = "edge/" } exfat { data-align = 512 } }\npartition f { type = exfat size = grow }\n' >exe1t.layout
advised exe1t exe1t.layout heap-misaligned exfat
[ "$v" = 64M ] || fail "exe1t: advised data-align = $v, the default build reaches 64M"

# a FAT or bitmap that marks clusters no file holds: said, and not taken as files. FAT16 of
# 8K clusters, off the grid by hand, no files: 7,000 bad-cluster marks are no use; random
# FAT bytes, an all-ones bitmap: an info line, and judged against the card's grid
printf 'image { size = 64G }\npartition b { type = fat size = 64M fat { data-align = 512 } }\npartition f { type = exfat size = grow }\n' >fd.layout
printf 'image { size = 64G }\npartition e { type = exfat size = 64M exfat { data-align = 512 } }\npartition f { type = exfat size = grow }\n' >xd.layout
# damage IMG MODE [N]: tests/e2e/lib/damage_volume.py on the volume at 16 MiB of IMG
damage() { python3 "$TOP/tests/e2e/lib/damage_volume.py" "$@"; }
# judged NAME LAYOUT MODE CODE: after the damage, the CODE finding's advice names 16M
judged() {
    expect_status 0 "$SDIMG" build -q -o "$1.img" "$2"
    damage "$1.img" "$3"
    expect_status 0 "$SDIMG" inspect --json "$1.img"
    msg=$(jq -r "[.findings[] | select(.code == \"$4\") | .message][0] // \"\"" out.txt)
    case $msg in *"data-align = 16M"*) ;; *) fail "$1 ($3): $4: ${msg:-none}: $(jq -c .findings out.txt)" ;; esac
}
judged fdb fd.layout bad data-misaligned
jq -e '.findings | any(.code == "clusters-unheld")' out.txt >/dev/null && fail "fdb: bad marks said to be held"
case $msg in *"one cluster in 2048 straddles a boundary of the 16 MiB grid"*) ;;
    *) fail "fdb: 512 bytes off with clusters of 8K: $msg" ;; esac
judged fdg fd.layout garbage data-misaligned
held=$(jq -r '[.findings[] | select(.code == "clusters-unheld") | .message][0] // ""' out.txt)
case $held in "the FAT marks "*" clusters in use, "*" more than the 0 clusters its 0 files and 0 folders hold"*) ;;
    *) fail "fdg: random FAT bytes, no clusters-unheld line: $(jq -c .findings out.txt)" ;; esac
judged xdo xd.layout ones heap-misaligned
held=$(jq -r '[.findings[] | select(.code == "clusters-unheld") | .message][0] // ""' out.txt)
case $held in "the allocation bitmap marks "*) ;; *) fail "xdo: no clusters-unheld line: $(jq -c .findings out.txt)" ;; esac
case $msg in *"its clusters start off the 16 MiB grid"*) ;; *) fail "xdo: $msg" ;; esac
rm -f fdb.img fdg.img xdo.img
# the heading names a lowered grid as the heap's, and none for a volume it cannot read
truncate -s 134201345 edge/f
sed 's/ exfat { data-align = 8M }//' exe.layout >exe8.layout
expect_status 0 "$SDIMG" build -q -o exe8.img exe8.layout
"$SDIMG" inspect exe8.img >out.txt
grep -q "; partition 1's cluster heap: 8 MiB)" out.txt || fail "exe8: heading: $(grep 'SD alignment' out.txt)"
rm -f edge/f exe8.img
expect_status 0 "$SDIMG" build -q -o xdn.img xd.layout
damage xdn.img nolength
"$SDIMG" inspect xdn.img >out.txt
grep -q "SD alignment (16 MiB grid, the SD allocation unit of this capacity): " out.txt ||
    fail "xdn: heading of an unreadable volume: $(grep 'SD alignment' out.txt)"
rm -f xdn.img

# no table, no size: the heap advice is a data-align (sd-format needs an mbr table)
printf 'image { table = none }\npartition d { type = exfat size = 40G exfat { data-align = 4M } }\n' >bare.layout
advised bare bare.layout heap-misaligned exfat
# two partitions and no size: the start finding names no default of "this size"
printf 'image { }\npartition a { type = exfat size = 20G }\npartition b { type = exfat size = 20G }\n' >two.layout
expect_status 0 "$SDIMG" build -q -o two.img two.layout
expect_status 0 "$SDIMG" inspect --json two.img
msg=$(jq -r '[.findings[] | select(.code == "start-misaligned") | .message][0] // ""' out.txt)
[ -n "$msg" ] || fail "two: no start-misaligned finding: $(warnings)"
case $msg in *"of this size"* | *"SD formatter starts"*) fail "two: $msg" ;; esac
case $msg in *"align = 16M"*) ;; *) fail "two: the advice names no align = 16M: $msg" ;; esac
jq -e '[.findings[].message] | any(test("sd-format"))' out.txt >/dev/null && fail "two: sd-format advised: $(warnings)"
rm -f two.img
echo "SDXC grid with the clusters in use: ok"
