# SPDX-License-Identifier: MIT
# Shared helpers of the flash_*.sh end-to-end tests (sourced; not a test itself).
#
# The tests write to loop devices they make over files of their own folder, or over the
# file of a faultycard FUSE mount (tests/tools/faultycard.c) they start; nothing else. Every
# loop device, mount, swap area, FUSE mount and background process they make is listed in a
# file of the test folder and undone by flash_cleanup, which the EXIT trap runs
# (flash_trap). Where root, loop devices or FUSE are missing the test skips (exit 77) with a
# last line that says which.
. "$TOP/tests/e2e/lib/card.sh"
FAULTYCARD=$BUILD/tests/tools/faultycard
MiB=1048576

skip() {
    echo "SKIP: $*"
    exit 77
}

# ------------------------------------------------------------------ cleanup

# Undoes, in order: hung FUSE writes released, background commands stopped, mounts and swap
# areas let go, loop devices detached, FUSE mounts unmounted and their daemons ended.
flash_cleanup() {
    set +e
    if [ -f cards.txt ]; then
        while read -r pid mnt; do kill -USR1 "$pid" 2>/dev/null; done <cards.txt
    fi
    if [ -f bg.txt ]; then
        while read -r pid; do
            kill "$pid" 2>/dev/null
            wait_for 10 ended "$pid"
        done <bg.txt
        rm -f bg.txt
    fi
    if [ -f mounts.txt ]; then
        while read -r m; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done <mounts.txt
        rm -f mounts.txt
    fi
    if [ -f swaps.txt ]; then
        while read -r s; do swapoff "$s" 2>/dev/null; done <swaps.txt
        rm -f swaps.txt
    fi
    loop_cleanup
    if [ -f cards.txt ]; then
        while read -r pid mnt; do
            fusermount3 -u "$mnt" 2>/dev/null || umount "$mnt" 2>/dev/null ||
                fusermount3 -uz "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null
            kill "$pid" 2>/dev/null
            wait_for 5 ended "$pid"
            kill -9 "$pid" 2>/dev/null
        done <cards.txt
        rm -f cards.txt
    fi
    return 0
}

flash_trap() {
    trap 'rc=$?; flash_cleanup; exit $rc' EXIT
    trap 'exit 1' INT TERM HUP
}

# ------------------------------------------------------------------ background commands

# ended PID: the process is no more
ended() { ! kill -0 "$1" 2>/dev/null; }

# running PID WHAT: PID has not ended; else the test fails: "WHAT ended", with err.txt
running() {
    kill -0 "$1" 2>/dev/null || fail "$2 ended: $(cat err.txt)"
}

# bg_wait PID: waits for the background command PID (listed in bg.txt) to end, and forgets
# it; its exit status in BG_STATUS
bg_wait() {
    set +e
    wait "$1"
    BG_STATUS=$?
    set -e
    forget bg "$1"
}

# bg_expect PID N WHAT: bg_wait, and fails unless PID (WHAT; its stderr in err.txt) exited N
bg_expect() {
    bg_wait "$1"
    [ "$BG_STATUS" -eq "$2" ] || fail "$3 exited $BG_STATUS, expected $2: $(cat err.txt)"
}

# ------------------------------------------------------------------ what the tests need

need_root() {
    [ "$(id -u)" -eq 0 ] || skip "not root: loop devices need root"
}

# need_loops: loop devices can be made here (one is made over a small file and detached)
need_loops() {
    need_root
    need losetup
    head -c 1048576 /dev/zero >probe.bin
    dev=$(losetup -f --show probe.bin 2>probe.err) || skip "no loop device can be made here: $(head -1 probe.err)"
    losetup -d "$dev"
    rm -f probe.bin probe.err
}

# need_fuse: faultycard can mount here (/dev/fuse, fusermount3, the tool built)
need_fuse() {
    [ -c /dev/fuse ] || skip "no FUSE here: /dev/fuse is missing"
    command -v fusermount3 >/dev/null 2>&1 || skip "no FUSE here: fusermount3 is not installed (fuse3)"
    [ -x "$FAULTYCARD" ] || skip "no FUSE test card: $FAULTYCARD is not built (libfuse3-dev missing?)"
}

# ------------------------------------------------------------------ loops, cards

# ee_loop NAME BYTES: a loop device over NAME.bin, BYTES bytes of 0xEE (prints it)
ee_loop() {
    fill_ee "$1.bin" "$2"
    loop_attach "$1.bin"
}

# card_start NAME [FAULTYCARD OPTIONS]: mounts a faultycard over NAME.store (made by the
# caller) at NAME.mnt, its log in NAME.log; sets CARD_PID. Run it in the test's own shell
# (not in $(...)): the daemon is its child.
card_start() {
    name=$1
    shift
    mkdir -p "$name.mnt"
    : >"$name.log"
    "$FAULTYCARD" --store "$name.store" --log "$name.log" "$@" "$name.mnt" -f \
        -o max_threads=16 >"$name.out" 2>&1 &
    CARD_PID=$!
    echo "$CARD_PID $PWD/$name.mnt" >>cards.txt
    wait_for 10 card_mounted "$name" || fail "faultycard $name did not mount in 10 s: $(cat "$name.out")"
}

# card_mounted NAME: NAME.mnt/card is there; a skip where the daemon CARD_PID ended first
card_mounted() {
    [ ! -f "$1.mnt/card" ] || return 0
    kill -0 "$CARD_PID" 2>/dev/null || skip "FUSE cannot mount here: $(tail -1 "$1.out")"
    return 1
}

# card_stop NAME PID: unmounts the card (its loop device must be detached first)
card_stop() {
    fusermount3 -u "$1.mnt" 2>/dev/null || umount "$1.mnt" 2>/dev/null || umount -l "$1.mnt" ||
        fail "cannot unmount $1.mnt"
    wait_for 5 ended "$2" || kill -9 "$2" 2>/dev/null || true
    forget cards "$2"
}

# written LOG: the bytes a faultycard's log says were written
written() {
    awk '$1 == "write" { n += $3 } END { printf "%.0f\n", n }' "$1"
}

# wait_written LOG BYTES PID WHAT: within 60 s the faultycard log LOG counts BYTES written,
# while PID (WHAT, writing the card; its stderr in err.txt) runs
wait_written() {
    wait_for 60 wrote "$@" || fail "$1: $(written "$1") bytes written in 60 s, expected $2"
}
# wrote LOG BYTES PID WHAT: LOG counts BYTES written; false while not, a failure once PID ended
wrote() {
    [ "$(written "$1")" -lt "$2" ] || return 0
    running "$3" "$4"
    return 1
}

# settled LOG: the count of the faultycard log LOG did not change in the last second (what
# a run wrote before it was stopped may still be on its way to the card: a piece in the loop
# device's queue, the FUSE file's page cache)
settled() {
    settled_a=$(written "$1")
    sleep 1
    [ "$(written "$1")" = "$settled_a" ]
}

# card_loop NAME DIO: a loop device over NAME.mnt/card, with --direct-io=DIO (on|off)
card_loop() {
    loop_attach "$1.mnt/card" --direct-io="$2"
}

# dio_modes: the --direct-io modes a loop over a FUSE file takes here ("on off", or "off")
dio_modes() {
    truncate -s 1M dioprobe.store
    card_start dioprobe
    if dev=$(losetup -f --show --direct-io=on dioprobe.mnt/card 2>/dev/null); then
        d=$(cat "/sys/block/$(basename "$dev")/loop/dio" 2>/dev/null || echo 0)
        losetup -d "$dev"
        [ "$d" = 1 ] && DIO_MODES="on off" || DIO_MODES="off"
    else
        DIO_MODES="off"
    fi
    card_stop dioprobe "$CARD_PID"
    rm -rf dioprobe.store dioprobe.mnt dioprobe.log dioprobe.out
}

# ------------------------------------------------------------------ inputs and images

# build_card LAYOUT IMG: IMG and IMG.bmap built from LAYOUT; sets size (IMG's bytes) and
# mapped (the bytes its bmap maps)
build_card() {
    "$SDIMG" build -q --bmap -o "$2" "$1" || fail "build $2 from $1"
    size=$(stat -c %s "$2")
    mapped=$(bmap_mapped "$2.bmap")
}

# blob_layout BYTES IMAGE_SIZE FAT_SIZE CLUSTER: big.layout, an MBR image whose FAT32
# partition holds one file of BYTES random bytes (big/blob.bin)
blob_layout() {
    mkdir -p big
    head -c "$1" /dev/urandom >big/blob.bin
    printf 'image { size = %s table = mbr }\npartition boot { type = fat32 size = %s fat { cluster-size = %s } tree "/" { from = "big" } }\n' \
        "$2" "$3" "$4" >big.layout
}

# write_layout TABLE [SIZE_MIB]: card.layout (card_layout), an MBR or a GPT card of 96 MiB
# or SIZE_MIB, its FAT partition a FAT32 of 40M with 512-byte clusters
write_layout() {
    card_layout "$1" "flash-$1" "${2:-96}M" fat32 40M 512
}

# small_image: small.img, 1 MiB of random bytes (without a bmap: written whole)
small_image() {
    head -c $MiB /dev/urandom >small.img
    SMALL_SUM=$(sha256sum <small.img | cut -d' ' -f1)
}

# holds_small DEVICE: DEVICE's first MiB is small.img's
holds_small() { [ "$(bytes_sum "$1" 0 $MiB)" = "$SMALL_SUM" ]; }

# ------------------------------------------------------------------ the bmap

# bmap_ranges BMAP: one line "START END CHKSUM" per mapped range (bytes, END excluded)
bmap_ranges() {
    bmap_blocks "$1" | awk '{ printf "%.0f %.0f %s\n", $1 * 4096, ($2 + 1) * 4096, $3 }'
}

# bmap_gaps BMAP SIZE: one line "START END" per unmapped stretch of [0, SIZE)
bmap_gaps() {
    bmap_ranges "$1" | awk -v size="$2" '
        { if ($1 > pos) printf "%.0f %.0f\n", pos, $1; pos = $2 }
        END { if (size > pos) printf "%.0f %.0f\n", pos, size }'
}

# bmap_mapped BMAP: the bytes it maps
bmap_mapped() {
    bmap_ranges "$1" | awk '{ n += $2 - $1 } END { printf "%.0f\n", n }'
}

# range_of BMAP OFFSET: "START END" of the mapped range holding byte OFFSET
range_of() {
    bmap_ranges "$1" | awk -v o="$2" '$1 <= o && o < $2 { printf "%.0f %.0f\n", $1, $2; f = 1 }
        END { exit !f }' || fail "$1 maps no range holding byte $2"
}

# nth_range BMAP N: "START END" of the Nth (1-based) mapped range
nth_range() {
    bmap_ranges "$1" | awk -v n="$2" 'NR == n { print $1, $2; f = 1 } END { exit !f }' ||
        fail "$1 has no range $2"
}

# bytes_sum FILE START END: SHA-256 of bytes [START, END) of a file or device
bytes_sum() {
    dd if="$1" bs=4096 iflag=skip_bytes,count_bytes skip="$2" count=$(($3 - $2)) status=none |
        sha256sum | cut -d' ' -f1
}

# check_ranges TARGET IMAGE BMAP: every mapped range of TARGET holds IMAGE's bytes, which
# have the checksum the bmap gives them
check_ranges() {
    check_sums "$1" "$3"
    [ -z "$2" ] || [ "$(bytes_sum "$2" 0 4096)" = "$(bytes_sum "$1" 0 4096)" ] ||
        fail "$1: sector 0 is not $2's"
}

# all_bytes FILE START END BYTE: bytes [START, END) of FILE are all BYTE (octal, as tr
# takes it: 0 for zeros, 356 for 0xEE)
all_bytes() {
    left=$(dd if="$1" bs=65536 iflag=skip_bytes,count_bytes skip="$2" count=$(($3 - $2)) status=none |
        tr -d "\\$4" | wc -c)
    [ "$left" -eq 0 ]
}

# ------------------------------------------------------------------ the cards' contents

# same_table A B: sfdisk reads the same partitions (start, size, type) from both
same_table() {
    sfdisk --json "$1" | jq -c '[.partitiontable.label, (.partitiontable.partitions[] | [.start, .size, .type])]' >table.a ||
        fail "sfdisk --json $1"
    sfdisk --json "$2" | jq -c '[.partitiontable.label, (.partitiontable.partitions[] | [.start, .size, .type])]' >table.b ||
        fail "sfdisk --json $2"
    cmp -s table.a table.b || fail "the table of $2 ($(cat table.b)) is not $1's ($(cat table.a))"
}

# ------------------------------------------------------------------ the station

# station_start COMMAND...: COMMAND (sdimg flash --watch ..., or a wrapper that runs it) in
# the background, its output in out.txt and err.txt; its pid in STATION (listed in bg.txt);
# back once the station says it waits for cards
station_start() {
    rm -f out.txt err.txt # the last station's
    "$@" >out.txt 2>err.txt &
    STATION=$!
    echo $STATION >>bg.txt
    wait_for 10 station_waits || fail "the station did not start in 10 s"
}
# station_waits: the station said it waits; false while not, a failure once it ended
station_waits() {
    ! grep -q "waiting for cards" out.txt 2>/dev/null || return 0
    kill -0 "$STATION" 2>/dev/null || fail "the station did not start: $(cat err.txt)"
    return 1
}

# free_slots N: the first of N loop device numbers in a row that serve no file, from a base
# of this test's own (the station's slots)
free_slots() {
    slots=$((200 + ($$ % 100) * 3))
    while ! slots_free "$slots" "$1"; do slots=$((slots + $1)); done
    echo "$slots"
}
slots_free() { # slots_free FIRST N: loop devices FIRST to FIRST+N-1 serve no file
    for k in $(seq "$1" $(($1 + $2 - 1))); do
        [ ! -e "/sys/block/loop$k/loop/backing_file" ] || return 1
    done
}

# put SLOT FILE [LOSETUP OPTIONS]: the card goes in (the slot and the time in ms into puts.txt)
put() {
    slot=$1 f=$2
    shift 2
    echo "${slot#/dev/} $(now_ms)" >>puts.txt
    losetup "$@" "$slot" "$f" 2>loop.err || fail "losetup $slot $f: $(cat loop.err)"
    echo "$slot $(realpath "$f")" >>loops.txt
}

# take SLOT: the card comes out (once sdimg has let it go, a loop device detaches)
take() {
    loop_detach "$1"
    wait_for 10 slot_empty "$1" || fail "$1 still holds its card 10 s after losetup -d"
}
# slot_empty SLOT: the loop device SLOT holds no card
slot_empty() { [ "$(cat "/sys/block/${1#/dev/}/size")" = 0 ]; }

# lines: the station log's (station.jsonl) lines
lines() {
    if [ -f station.jsonl ]; then grep -c . station.jsonl || true; else echo 0; fi
}

# line N FIELD: a field of the log's Nth line
line() { sed -n "$1p" station.jsonl | jq -r ".$2"; }

# wait_lines N: the log holds N lines within 60 s, the station (STATION) running till then
wait_lines() {
    wait_for 60 station_logged "$1" || fail "the log has $(lines) lines after 60 s, expected $1: $(cat out.txt)"
}
# station_logged N: the log holds N lines; false while not, a failure once the station ended
station_logged() {
    [ "$(lines)" -lt "$1" ] || return 0
    running "$STATION" "the station"
    return 1
}

# ------------------------------------------------------------------ the JSON report

# tj REPORT DEVICE FIELD: a field of the report's entry for DEVICE (jq path after the dot)
tj() {
    jq -r --arg d "$2" ".targets[] | select(.device == \$d) | .$3" "$1"
}

# expect_pass REPORT DEVICE MAPPED [VERIFIED]: passed, every mapped byte written and read
# back (VERIFIED bytes read back, MAPPED unless given: the zeros of --gaps zero count too)
expect_pass() {
    [ "$(tj "$1" "$2" result)" = pass ] || fail "$2 did not pass: $(tj "$1" "$2" error)"
    [ "$(tj "$1" "$2" stage)" = done ] || fail "$2: stage $(tj "$1" "$2" stage), not done"
    [ "$(tj "$1" "$2" bytes_written)" = "$3" ] || fail "$2: bytes_written $(tj "$1" "$2" bytes_written), not $3"
    [ "$(tj "$1" "$2" bytes_verified)" = "${4:-$3}" ] || fail "$2: bytes_verified $(tj "$1" "$2" bytes_verified), not ${4:-$3}"
    [ "$(tj "$1" "$2" error)" = null ] || fail "$2 passed with an error: $(tj "$1" "$2" error)"
}

# expect_fail REPORT DEVICE STAGE TEXT: failed at STAGE, its error holding TEXT
expect_fail() {
    [ "$(tj "$1" "$2" result)" = fail ] || fail "$2: result $(tj "$1" "$2" result), expected fail"
    [ "$(tj "$1" "$2" stage)" = "$3" ] || fail "$2 failed at $(tj "$1" "$2" stage), expected $3: $(tj "$1" "$2" error)"
    tj "$1" "$2" error | grep -qF -- "$4" || fail "$2: error '$(tj "$1" "$2" error)' lacks '$4'"
}

# expect_refused REPORT DEVICE TEXT
expect_refused() {
    [ "$(tj "$1" "$2" result)" = refused ] || fail "$2: result $(tj "$1" "$2" result), expected refused"
    tj "$1" "$2" error | grep -qF -- "$3" || fail "$2: reason '$(tj "$1" "$2" error)' lacks '$3'"
    [ "$(tj "$1" "$2" bytes_written)" = 0 ] || fail "$2 refused, yet $(tj "$1" "$2" bytes_written) bytes written"
}

# ------------------------------------------------------------------ timing

now_ms() { date +%s%3N; }
