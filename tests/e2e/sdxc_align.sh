# SPDX-License-Identifier: MIT
# A card above 32 GiB (SDXC) built with the default alignment is on the SD allocation unit of
# its capacity, the one `sdimg inspect` judges it against: default 64 GB, 200 GB and 1 TB cards
# with a FAT boot partition, a small FAT one, a FAT one of size = auto and an exFAT one that
# grows (or a FAT32 one that grows) have no alignment finding, their partitions start on the
# unit (sfdisk), each data area or cluster heap is on the grid inspect names for it, and
# fsck.fat / fsck.exfat find them clean. A card of 32 GiB keeps 4 MiB; an `align` the layout
# sets is kept, inspect says the card is off its unit, and its advice, followed, clears it.
. "$TOP/tests/e2e-lib.sh"
PATH=$PATH:/sbin:/usr/sbin
need jq
need sfdisk
need fsck.fat
need fsck.exfat

M=1048576
mkdir -p files && echo "on the card" >files/readme.txt

# inspect_json IMG: `sdimg inspect --json IMG` into out.txt
inspect_json() { expect_status 0 "$SDIMG" inspect --json "$1"; }
misaligned() { jq -r '[.findings[] | select(.code | test("misaligned")) | .code] | join(" ")' out.txt; }
warnings() { jq -c '[.findings[] | select(.severity != "info")]' out.txt; }

# volumes_clean IMG: every FAT and exFAT partition passes fsck -n, starts on the card's grid,
# and its data area or cluster heap is on the grid inspect gives it
volumes_clean() {
    card=$(jq -r .image.grid out.txt)
    n=$(jq '.partitions | length' out.txt)
    i=0
    while [ "$i" -lt "$n" ]; do
        p=".partitions[$i]"
        start=$(($(part_json "$1" $((i + 1)) start) * 512))
        [ $((start % card)) -eq 0 ] || fail "$1: partition $((i + 1)) starts at byte $start (sfdisk), off the $card grid"
        size=$(jq -r "$p.size" out.txt)
        grid=$(jq -r "$p.grid" out.txt)
        case $(jq -r "$p.content" out.txt) in
        fat)
            # data_offset counts from the start of the image
            data=$(jq -r "$p.fat.data_offset" out.txt)
            extract "$1" "$start" "$size" vol.img
            fsck_clean vol.img ;;
        exfat)
            # heap_offset counts sectors from the volume's start, data_offset image bytes
            data=$(jq -r "$p.exfat.data_offset" out.txt)
            [ "$data" -eq "$(jq -r "$p.start + $p.exfat.heap_offset * 512" out.txt)" ] ||
                fail "$1: partition $((i + 1)): exfat.data_offset $data is not start + heap_offset * 512"
            extract "$1" "$start" "$size" vol.img
            fsck.exfat -n vol.img >fsck.out 2>&1 || fail "$1: fsck.exfat -n partition $((i + 1)): $(cat fsck.out)" ;;
        *) fail "$1: partition $((i + 1)) holds $(jq -r "$p.content" out.txt)" ;;
        esac
        [ $((data % grid)) -eq 0 ] || fail "$1: partition $((i + 1))'s data area at byte $data is off its grid $grid"
        rm -f vol.img
        i=$((i + 1))
    done
}

# NAME SIZE UNIT-MIB: a default card of four partitions, then one of a FAT32 partition growing
for c in "c64 64G 16" "c200 200G 32" "c1t 1T 64"; do
    set -- $c
    cat >"$1.layout" <<EOF
image { size = $2 }
partition boot { type = fat size = 64M }
partition small { type = fat size = 8M }
partition auto { type = fat size = auto tree "/" { from = "files/" } }
partition data { type = exfat size = grow tree "/" { from = "files/" } }
EOF
    expect_status 0 "$SDIMG" build -q -o "$1.img" "$1.layout"
    inspect_json "$1.img"
    [ "$(warnings)" = "[]" ] || fail "$1: a default $2 card has findings: $(warnings)"
    [ "$(jq -r .image.grid out.txt)" -eq $(($3 * M)) ] || fail "$1: the card's grid is $(jq -r .image.grid out.txt), not $3 MiB"
    [ "$(part_json "$1.img" 1 start)" -eq $(($3 * M / 512)) ] || fail "$1: the first partition starts at sector $(part_json "$1.img" 1 start)"
    # the exFAT heap that grows is on the card's full unit
    [ "$(jq -r .partitions[3].grid out.txt)" -eq $(($3 * M)) ] || fail "$1: the exFAT heap's grid is $(jq -r .partitions[3].grid out.txt)"
    volumes_clean "$1.img"
    expect_status 0 "$SDIMG" inspect "$1.img"
    grep -q "^SD alignment ($3 MiB grid, the SD allocation unit of this capacity" out.txt || fail "$1: the heading does not name the $3 MiB grid: $(grep 'SD alignment' out.txt)"
    rm -f "$1.img"
    # a FAT32 partition that grows over the whole card
    [ "$2" = 1T ] && continue
    printf 'image { size = %s }\npartition boot { type = fat size = 64M }\npartition data { type = fat32 size = grow }\n' "$2" >"$1f.layout"
    expect_status 0 "$SDIMG" build -q -o "$1f.img" "$1f.layout"
    inspect_json "$1f.img"
    [ "$(warnings)" = "[]" ] || fail "$1f: a default $2 FAT32 card has findings: $(warnings)"
    volumes_clean "$1f.img"
    rm -f "$1f.img"
done

# a card of 32 GiB is SDHC: 4 MiB as before
printf 'image { size = 32G }\npartition data { type = exfat size = grow }\n' >h32.layout
expect_status 0 "$SDIMG" build -q -o h32.img h32.layout
inspect_json h32.img
[ "$(part_json h32.img 1 start)" -eq 8192 ] || fail "a 32 GiB card starts at sector $(part_json h32.img 1 start)"
[ "$(jq -r .image.grid out.txt)" -eq $((4 * M)) ] || fail "32 GiB: grid $(jq -r .image.grid out.txt)"
[ "$(warnings)" = "[]" ] || fail "32 GiB: $(warnings)"
rm -f h32.img

# an align the layout sets is kept; inspect finds the card off its 16 MiB unit and says so
printf 'image { size = 64G align = 4M }\npartition boot { type = fat size = 64M }\npartition data { type = exfat size = grow }\n' >a64.layout
expect_status 0 "$SDIMG" build -q -o a64.img a64.layout
[ "$(part_json a64.img 1 start)" -eq 8192 ] || fail "align = 4M: the partition starts at sector $(part_json a64.img 1 start)"
inspect_json a64.img
case " $(misaligned) " in *" heap-misaligned "*" data-misaligned "*|*" data-misaligned "*" heap-misaligned "*) ;;
*) fail "align = 4M on 64 GiB: no data and heap findings: $(warnings)" ;; esac
jq -e '[.findings[].message] | any(test("16 MiB grid \\(the SD allocation unit of this capacity\\)"))' out.txt >/dev/null ||
    fail "align = 4M: the findings do not name the 16 MiB unit: $(warnings)"
expect_status 0 "$SDIMG" inspect a64.img
grep -q "^SD alignment (16 MiB grid" out.txt || fail "align = 4M: heading $(grep 'SD alignment' out.txt)"
rm -f a64.img
# the advice, followed, clears the findings: FAT's data-align, exFAT's align and data-align
printf 'image { size = 64G align = 4M }\npartition boot { type = fat size = 64M fat { data-align = 16M } }\n' >b64.layout
expect_status 0 "$SDIMG" build -q -o b64.img b64.layout
inspect_json b64.img
[ "$(warnings)" = "[]" ] || fail "fat { data-align = 16M } as advised: $(warnings)"
rm -f b64.img
printf 'image { size = 64G align = 16M }\npartition boot { type = fat size = 64M }\npartition data { type = exfat size = grow exfat { data-align = 16M } }\n' >x64.layout
expect_status 0 "$SDIMG" build -q -o x64.img x64.layout
inspect_json x64.img
[ "$(warnings)" = "[]" ] || fail "align and data-align = 16M as advised: $(warnings)"
rm -f x64.img

# a FAT partition of size = auto on a card above 512 GiB: the 64 MiB unit cannot be reached
# within 65535 reserved sectors, so it is lowered as for a fixed size, and inspect agrees
printf 'image { size = 1T }\npartition boot { type = fat size = 64M }\npartition a { type = fat size = auto tree "/" { from = "files/" } }\n' >auto1t.layout
expect_status 0 "$SDIMG" build -q -o auto1t.img auto1t.layout
inspect_json auto1t.img
[ "$(warnings)" = "[]" ] || fail "1T, FAT size = auto: $(warnings)"
[ "$(jq -r .partitions[1].grid out.txt)" -eq $((32 * M)) ] || fail "1T FAT auto: grid $(jq -r .partitions[1].grid out.txt)"
rm -f auto1t.img
echo "SDXC default alignment: ok"
