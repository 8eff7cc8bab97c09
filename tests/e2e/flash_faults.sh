#!/bin/sh
# SPDX-License-Identifier: MIT
# Faulty cards: loop devices over the file of a faultycard FUSE mount (tests/tools/
# faultycard.c), each with one fault, flashed in the same run as two good loop devices:
#   drop      writes to 4 KiB inside a mapped range succeed but store nothing
#   flip      one byte of a mapped range reads back inverted once written
#   eio-write writes touching 4 KiB inside a mapped range fail with EIO
#   eio-piece writes touching a whole 4 MiB piece sdimg writes fail with EIO
#   eio-read  reads touching 4 KiB inside a mapped range fail with EIO
#   wrap      a fake-capacity card: bytes from the start of partition 2 on land at the
#             card's start again (offset % N), over the table
# Each faulty card fails alone, at the stage its fault shows (write or verify), naming the
# range it shows in (first_bad_range in the --json report, or the piece in the EIO error);
# the good loop devices pass and read back equal. Run with the loop devices over the FUSE
# file with --direct-io=on and off (on only where the kernel takes it).
# A loop device without direct I/O takes a short write of its file as a success (the
# kernel's lo_complete_rq retries short reads only): when its write of a request fails after
# the first FUSE write of it succeeded, the failure reaches nobody and the bytes are lost.
# So with --direct-io=off the 4 KiB eio-write card fails at write or, its error swallowed,
# at verify with its range; the eio-piece card, whose every write there fails, at write.
. "$TOP/tests/e2e/lib/flash.sh"
need jq sfdisk mke2fs sha256sum fusermount3
need_loops
need_fuse
flash_trap
make_inputs
write_layout mbr
build_card card.layout card.img
fill_ee ee.cache "$size"
dio_modes
echo "loop devices over FUSE files take --direct-io=: $DIO_MODES"

piece=$((4 * MiB))                 # sdimg writes and reads back in 4 MiB pieces
set -- $(nth_range card.img.bmap 3)  # the FAT partition's tables and files: over 4 MiB
fat_s=$1 fat_e=$2
[ $((fat_e - fat_s)) -gt $((piece + MiB)) ] || fail "range 3 ($fat_s-$fat_e) is not over 5 MiB"
bad=$((fat_s + piece + MiB))       # 1 MiB into the range's second piece
pc_s=$((fat_s + piece))            # that piece
pc_e=$((fat_s + 2 * piece)); [ $pc_e -le $fat_e ] || pc_e=$fat_e
set -- $(bmap_ranges card.img.bmap | tail -1)  # the ext4 partition's last data
flip=$(($1 + 100))
flip_s=$1 flip_e=$2
p2=$(part_start card.img 2)
# the mapped bytes before the failing piece: what a card that fails there has written
before=$(bmap_ranges card.img.bmap | awk -v p=$pc_s '$2 <= p { n += $2 - $1 } $1 < p && p < $2 { n += p - $1 } END { print n }')

for dio in $DIO_MODES; do
    echo "== loop devices over FUSE with --direct-io=$dio"
    good1=$(ee_loop good1 "$size")
    good2=$(ee_loop good2 "$size")
    for c in drop flip eiow eiop eior; do fill_ee $c.store "$size"; done
    fill_ee wrap.store "$p2"
    card_start drop --drop $bad:$((bad + 4096)); drop_pid=$CARD_PID
    card_start flip --flip $flip; flip_pid=$CARD_PID
    card_start eiow --eio-write $bad:$((bad + 4096)); eiow_pid=$CARD_PID
    card_start eiop --eio-write $pc_s:$pc_e; eiop_pid=$CARD_PID
    card_start eior --eio-read $bad:$((bad + 4096)); eior_pid=$CARD_PID
    card_start wrap --size "$size" --wrap "$p2"; wrap_pid=$CARD_PID
    for c in drop flip eiow eiop eior wrap; do eval "dev_$c=\$(card_loop $c $dio)"; done

    start=$(now_ms)
    expect_status 1 "$SDIMG" flash card.img "$good1" "$dev_drop" "$dev_flip" "$dev_eiow" "$dev_eiop" "$dev_eior" "$dev_wrap" \
        "$good2" --allow-fixed --json --timeout 30
    echo "8 targets in $(($(now_ms) - start)) ms"
    cp out.txt report.json
    sed 's/^/    /' err.txt

    for g in "$good1" "$good2"; do
        expect_pass report.json "$g" "$mapped"
        check_ranges "$g" card.img card.img.bmap
    done

    # drop: written, yet the range reads back wrong; the card kept its 0xEE there
    expect_fail report.json "$dev_drop" verify "bytes $fat_s-$((fat_e - 1)) read back differ from the image"
    [ "$(tj report.json "$dev_drop" first_bad_range.start)" = $fat_s ] &&
        [ "$(tj report.json "$dev_drop" first_bad_range.end)" = $fat_e ] ||
        fail "drop: first_bad_range $(tj report.json "$dev_drop" first_bad_range), expected $fat_s-$fat_e"
    [ "$(tj report.json "$dev_drop" bytes_written)" = "$mapped" ] || fail "drop: not every byte was written"
    all_bytes drop.store $bad $((bad + 4096)) 356 || fail "drop: the dropped bytes are not 0xEE"
    [ "$(bytes_sum drop.store $fat_s $bad)" = "$(bytes_sum card.img $fat_s $bad)" ] ||
        fail "drop: the bytes before the dropped ones did not reach the card"
    grep -q "^dropped $bad 4096" drop.log || fail "drop: the card dropped nothing: $(grep -c . drop.log) log lines"

    # flip: the card holds the right byte, and reads it back inverted
    expect_fail report.json "$dev_flip" verify "bytes $flip_s-$((flip_e - 1)) read back differ from the image"
    [ "$(tj report.json "$dev_flip" first_bad_range.start)" = $flip_s ] &&
        [ "$(tj report.json "$dev_flip" first_bad_range.end)" = $flip_e ] ||
        fail "flip: first_bad_range $(tj report.json "$dev_flip" first_bad_range), expected $flip_s-$flip_e"
    [ "$(bytes_sum flip.store $flip_s $flip_e)" = "$(bytes_sum card.img $flip_s $flip_e)" ] ||
        fail "flip: the store does not hold the range"

    # eio-write, eio-piece: fail while writing, at the 4 MiB piece holding the bad bytes;
    # nothing after it is written (the 4 KiB card with --direct-io=off: see above)
    grep -q "^eio-write" eiow.log || fail "eio-write: the card saw no failing write"
    if [ $dio = off ] && [ "$(tj report.json "$dev_eiow" stage)" = verify ]; then
        expect_fail report.json "$dev_eiow" verify "bytes $fat_s-$((fat_e - 1)) read back differ from the image"
        [ "$(tj report.json "$dev_eiow" first_bad_range.start)" = $fat_s ] ||
            fail "eio-write: first_bad_range $(tj report.json "$dev_eiow" first_bad_range), expected $fat_s-$fat_e"
        echo "$dio: the loop device took the failed write for a success; the read-back found the range"
        cards=eiop
    else
        cards="eiow eiop"
    fi
    for c in $cards; do
        eval "d=\$dev_$c"
        expect_fail report.json "$d" write "writing bytes $pc_s-$((pc_e - 1)): Input/output error"
        [ "$(tj report.json "$d" errno)" = 5 ] || fail "$c: errno $(tj report.json "$d" errno)"
        [ "$(tj report.json "$d" bytes_written)" = "$before" ] ||
            fail "$c: bytes_written $(tj report.json "$d" bytes_written), expected $before"
        [ "$(tj report.json "$d" bytes_verified)" = 0 ] || fail "$c: read back after a failed write"
        [ "$(tj report.json "$d" first_bad_range)" = null ] || fail "$c: a first_bad_range"
        all_bytes $c.store $pc_e $((pc_e + 4096)) 356 || fail "$c: bytes after the failed piece were written"
    done

    # eio-read: every byte written, the read-back fails at the piece holding the bad bytes
    expect_fail report.json "$dev_eior" verify "reading bytes $pc_s-$((pc_e - 1)) back: Input/output error"
    [ "$(tj report.json "$dev_eior" errno)" = 5 ] || fail "eio-read: errno $(tj report.json "$dev_eior" errno)"
    [ "$(tj report.json "$dev_eior" bytes_written)" = "$mapped" ] || fail "eio-read: not every byte was written"
    [ "$(bytes_sum eior.store $fat_s $fat_e)" = "$(bytes_sum card.img $fat_s $fat_e)" ] ||
        fail "eio-read: the store does not hold the range"

    # wrap: the ext4 partition's first blocks landed over the table: range 1 reads back wrong
    expect_fail report.json "$dev_wrap" verify "bytes 0-4095 read back differ from the image"
    [ "$(tj report.json "$dev_wrap" first_bad_range.start)" = 0 ] &&
        [ "$(tj report.json "$dev_wrap" first_bad_range.end)" = 4096 ] ||
        fail "wrap: first_bad_range $(tj report.json "$dev_wrap" first_bad_range), expected 0-4096"
    [ "$(tj report.json "$dev_wrap" bytes_written)" = "$mapped" ] || fail "wrap: not every byte was written"
    [ "$(stat -c %s wrap.store)" = "$p2" ] || fail "wrap: the store grew"
    [ "$(bytes_sum wrap.store 0 4096)" = "$(bytes_sum card.img "$p2" $((p2 + 4096)))" ] ||
        fail "wrap: the card's first block is not partition 2's"

    # the summary names each failure on its own line
    for c in drop flip eiow eiop eior wrap; do
        eval "d=\$dev_$c"
        grep -q "^$d  *- *fail  *[0-9.]*s  $(tj report.json "$d" error)\$" err.txt ||
            fail "no summary line for $d failing: $(cat err.txt)"
    done
    for g in "$good1" "$good2"; do
        grep -q "^$g  *- *pass  *[0-9.]*s\$" err.txt || fail "no summary line for $g passing: $(cat err.txt)"
    done
    echo "$dio: the good cards pass; drop, flip and wrap fail at verify with their range, eio-write at write, eio-read at verify"

    # quiet: one error line for the failed card, nothing for the good one
    expect_status 1 "$SDIMG" flash -q card.img "$good1" "$dev_flip" --allow-fixed
    [ ! -s out.txt ] || fail "-q: output on stdout: $(cat out.txt)"
    expect_stderr "sdimg: $dev_flip: failed at verify: bytes $flip_s-$((flip_e - 1)) read back differ from the image"

    for c in drop flip eiow eiop eior wrap; do eval "loop_detach \$dev_$c"; done
    loop_detach "$good1"
    loop_detach "$good2"
    for c in drop flip eiow eiop eior wrap; do eval "card_stop $c \$${c}_pid"; done
    rm -f ./*.store good?.bin
done
exit 0
