# Shared helpers of the flash_*.sh end-to-end tests (sourced; not a test itself).
#
# The tests write to loop devices they make over files of their own folder, or over the
# file of a faultycard FUSE mount (tests/tools/faultycard.c) they start; nothing else. Every
# loop device, mount, swap area, FUSE mount and background process they make is listed in a
# file of the test folder and undone by flash_cleanup, which the EXIT trap runs
# (flash_trap). Where root, loop devices or FUSE are missing the test skips (exit 77) with a
# last line that says which.
. "$TOP/tests/e2e-lib.sh"
export LC_ALL=C.UTF-8 TZ=UTC
FAULTYCARD=$BUILD/tests/tools/faultycard

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
            i=0
            while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
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
    if [ -f loops.txt ]; then
        # only while the device is still over the file it was made over: a device the
        # kernel let go may already serve someone else
        while read -r l f; do
            case $(losetup -nO BACK-FILE "$l" 2>/dev/null) in
                "$f"*) losetup -d "$l" 2>/dev/null ;;
            esac
        done <loops.txt
        rm -f loops.txt
    fi
    if [ -f cards.txt ]; then
        while read -r pid mnt; do
            fusermount3 -u "$mnt" 2>/dev/null || umount "$mnt" 2>/dev/null ||
                fusermount3 -uz "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null
            kill "$pid" 2>/dev/null
            i=0
            while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
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

forget() { # forget LIST WORD: the lines of LIST.txt that begin with WORD are gone
    awk -v w="$2" '$1 != w' "$1.txt" >"$1.tmp"
    mv "$1.tmp" "$1.txt"
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

# fill_ee FILE BYTES: a file of BYTES bytes 0xEE (a card that held something else)
fill_ee() {
    if [ -f ee.cache ] && [ "$(stat -c %s ee.cache)" -ge "$2" ]; then
        head -c "$2" ee.cache >"$1"
    else
        head -c "$2" /dev/zero | tr '\0' '\356' >"$1"
    fi
}

# loop_attach FILE [LOSETUP OPTIONS]: prints the new loop device (listed for the cleanup)
loop_attach() {
    f=$1
    shift
    dev=$(losetup -f --show "$@" "$f" 2>loop.err) || fail "losetup $* $f: $(cat loop.err)"
    echo "$dev $(realpath "$f")" >>loops.txt
    echo "$dev"
}

loop_detach() {
    losetup -d "$1" || fail "losetup -d $1"
    forget loops "$1"
}

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
    i=0
    while [ ! -f "$name.mnt/card" ]; do
        kill -0 "$CARD_PID" 2>/dev/null || skip "FUSE cannot mount here: $(tail -1 "$name.out")"
        [ $i -lt 100 ] || fail "faultycard $name did not mount in 10 s: $(cat "$name.out")"
        sleep 0.1
        i=$((i + 1))
    done
}

# card_stop NAME PID: unmounts the card (its loop device must be detached first)
card_stop() {
    fusermount3 -u "$1.mnt" 2>/dev/null || umount "$1.mnt" 2>/dev/null || umount -l "$1.mnt" ||
        fail "cannot unmount $1.mnt"
    i=0
    while kill -0 "$2" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    kill -9 "$2" 2>/dev/null || true
    forget cards "$2"
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

# write_layout TABLE [SIZE_MIB]: card.layout, an MBR or a GPT card: a boot loader at 8K,
# a FAT32 partition of tree/, an ext4 raw partition from root.ext4
write_layout() {
    case $1 in
        mbr) tablekeys="" ;;
        gpt) tablekeys="gpt-entries = 2M" ;;
        *) fail "write_layout: $1" ;;
    esac
    cat >card.layout <<LAYOUT
image { size = ${2:-96}M table = $1 seed = "flash-$1" $tablekeys }
raw spl { offset = 8K from = "spl.bin" size = 1000K }
partition boot {
    type = fat32
    size = 40M
    bootable = true
    fat { label = "BOOT" cluster-size = 512 }
    tree "/" { from = "tree" }
}
partition root { from = "root.ext4" size = 40M }
LAYOUT
}

# ------------------------------------------------------------------ the bmap

# bmap_ranges BMAP: one line "START END CHKSUM" per mapped range (bytes, END excluded)
bmap_ranges() {
    awk -F'[<>]' '/<Range / {
        split($2, c, "\""); n = split($3, r, "-")
        gsub(/ /, "", r[1]); gsub(/ /, "", r[n])
        printf "%.0f %.0f %s\n", r[1] * 4096, (r[n] + 1) * 4096, c[2]
    }' "$1"
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
    n=0
    bmap_ranges "$3" >ranges.txt
    while read -r s e sum; do
        got=$(bytes_sum "$1" "$s" "$e")
        [ "$got" = "$sum" ] || fail "$1: bytes $s-$((e - 1)) have sha256 $got, the bmap says $sum"
        n=$((n + 1))
    done <ranges.txt
    [ "$n" -gt 0 ] || fail "$3 maps nothing"
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

# ------------------------------------------------------------------ the JSON report

# tj REPORT DEVICE FIELD: a field of the report's entry for DEVICE (jq path after the dot)
tj() {
    jq -r --arg d "$2" ".targets[] | select(.device == \$d) | .$3" "$1"
}

# expect_pass REPORT DEVICE MAPPED: passed, every mapped byte written and read back
expect_pass() {
    [ "$(tj "$1" "$2" result)" = pass ] || fail "$2 did not pass: $(tj "$1" "$2" error)"
    [ "$(tj "$1" "$2" stage)" = done ] || fail "$2: stage $(tj "$1" "$2" stage), not done"
    [ "$(tj "$1" "$2" bytes_written)" = "$3" ] || fail "$2: bytes_written $(tj "$1" "$2" bytes_written), not $3"
    [ "$(tj "$1" "$2" bytes_verified)" = "$3" ] || fail "$2: bytes_verified $(tj "$1" "$2" bytes_verified), not $3"
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
