# SPDX-License-Identifier: MIT
# A card above 32 GiB (SDXC) built with the default alignment is on the SD allocation unit of
# its capacity, the one `sdimg inspect` judges it against: a default 64 GB exFAT or FAT32
# card, and a 256 GB and 1 TB exFAT one, have no alignment finding, their partition starts at
# the unit and their data area or cluster heap is on it. A card of 32 GiB keeps
# 4 MiB, and an `align` the layout sets is kept (and inspect says the card is off its unit).
. "$TOP/tests/e2e-lib.sh"
PATH=$PATH:/sbin:/usr/sbin
need jq

M=1048576
# card NAME SIZE TYPE [IMAGE-KEYS]: builds NAME.img, a default TYPE partition filling it,
# and leaves `sdimg inspect --json` of it in out.txt
card() {
    printf 'image { size = %s %s }\npartition data { type = %s size = grow }\n' "$2" "${4:-}" "$3" >"$1.layout"
    expect_status 0 "$SDIMG" build -q -o "$1.img" "$1.layout"
    expect_status 0 "$SDIMG" inspect --json "$1.img"
}
misaligned() { jq -r '[.findings[] | select(.code | test("misaligned")) | .code] | join(" ")' out.txt; }
start() { jq -r '.partitions[0].start' out.txt; }

# NAME SIZE TYPE UNIT-MIB
for c in "x64 64G exfat 16" "f64 64G fat32 16" "x256 256G exfat 32" "x1t 1T exfat 64" "f2t 2T fat32 64"; do
    set -- $c
    card "$1" "$2" "$3"
    [ -z "$(misaligned)" ] || fail "$1: a default $2 $3 card has alignment findings: $(jq -c .findings out.txt)"
    unit=$(($4 * M))
    [ "$(start)" -eq "$unit" ] || fail "$1: the partition starts at $(start), not at $4 MiB"
    if [ "$3" = exfat ]; then
        heap=$(jq -r '.partitions[0].start + .partitions[0].exfat.heap_offset * 512' out.txt)
    else
        heap=$(jq -r '.partitions[0].start + .partitions[0].fat.data_offset' out.txt)
    fi
    [ $((heap % unit)) -eq 0 ] || fail "$1: the data area at byte $heap is off the $4 MiB unit"
    rm -f "$1.img"
done

# a card of 32 GiB is SDHC: 4 MiB as before
card h32 32G exfat
[ "$(start)" -eq $((4 * M)) ] || fail "a 32 GiB card starts at $(start)"
[ -z "$(misaligned)" ] || fail "32 GiB: $(jq -c .findings out.txt)"
rm -f h32.img

# an align the layout sets is kept; inspect then finds the card off its 16 MiB unit
card a64 64G exfat "align = 4M"
[ "$(start)" -eq $((4 * M)) ] || fail "align = 4M: the partition starts at $(start)"
case " $(misaligned) " in *" heap-misaligned "*) ;; *) fail "align = 4M on 64 GiB: no heap finding: $(jq -c .findings out.txt)" ;; esac
card a64f 64G fat32 "align = 4M"
case " $(misaligned) " in *" data-misaligned "*) ;; *) fail "FAT32, align = 4M on 64 GiB: no data finding: $(jq -c .findings out.txt)" ;; esac
jq -e '[.findings[].message] | any(test("16M"))' out.txt >/dev/null || fail "the FAT finding does not name data-align = 16M: $(jq -c .findings out.txt)"
rm -f a64.img a64f.img
echo "SDXC default alignment: ok"
