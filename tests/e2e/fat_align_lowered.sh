# SPDX-License-Identifier: MIT
# A FAT partition whose data-align is the partition's align (not set) and leaves the files too
# little room takes the largest data alignment below it that works, down to the cluster size,
# with a note: a 24M boot partition with 20.5 MiB of files, a 2M FAT. A volume that works
# with the full alignment keeps it; a data-align set in the layout is never lowered; when no
# alignment helps, the error names the padding.
. "$TOP/tests/e2e/lib/fatcheck.sh"
need fsck.fat mcopy mdir sfdisk jq

mkdir files
head -c 21495808 /dev/urandom >files/big.bin # 20.5 MiB

# built NAME: NAME.layout builds, with one note on stderr that names ALIGN (the second
# argument) as the data area's; its FAT partition 1 is clean and holds files/ (when not
# empty); prints where its data area starts
built() {
    expect_status 0 "$SDIMG" build -o "$1.img" "$1.layout"
    expect_stderr "note: $1.layout:2: partition 'boot': data-align 4M (the partition's align) leaves too little room in this"
    grep -qF "its data area starts on a multiple of $2 instead" err.txt || fail "$1: $(cat err.txt)"
    off=$(part_start "$1.img" 1)
    dd if="$1.img" of=vol.img bs=1M iflag=skip_bytes,count_bytes skip="$off" \
        count="$(part_size "$1.img" 1)" conv=sparse status=none
    fsck_clean vol.img
    [ "${3:-}" = empty ] || mtools_same vol.img files
    data_start "$1.img" "$off"
}

cat >boot24.layout <<'LAYOUT'
image { size = 64M seed = "lowered" }
partition boot { type = fat size = 24M tree "/" { from = "files" } }
LAYOUT
start=$(built boot24 2M)
[ $((start % (2 * 1048576))) -eq 0 ] && [ $((start % (4 * 1048576))) -ne 0 ] ||
    fail "boot24: data area at byte $start, not on the 2M grid (and off the 4M one)"

cat >boot2.layout <<'LAYOUT'
image { size = 8M seed = "lowered" }
partition boot { type = fat size = 2M }
LAYOUT
start=$(built boot2 1M empty)
[ $((start % 1048576)) -eq 0 ] || fail "boot2: data area at byte $start"

# the same volume without the files keeps the 4M grid, with no note
sed 's/ tree "\/" { from = "files" }//' boot24.layout >empty24.layout
expect_status 0 "$SDIMG" build -q -o empty24.img empty24.layout
[ ! -s err.txt ] || fail "empty24: $(cat err.txt)"
start=$(data_start empty24.img "$(part_start empty24.img 1)")
[ $((start % (4 * 1048576))) -eq 0 ] || fail "empty24: data area at byte $start, off the 4M grid"

# data-align set in the layout stays as it is
sed 's/size = 24M/size = 24M fat { data-align = 4M }/' boot24.layout | build_refused set \
    "set.layout:2: partition 'boot': the files and folders need 5248 clusters of 4K but this 24M FAT16 volume has 5120; size = 25M or more holds them"

# no alignment leaves the room: the error says what the padding takes
cp files/big.bin files/big2.bin
build_refused full "data-align 4M, the partition's align, pads 3.96 MiB before the data area)" <boot24.layout
