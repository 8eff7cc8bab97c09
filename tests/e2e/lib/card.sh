# SPDX-License-Identifier: MIT
# Shared helpers of lib/flash.sh and lib/ship.sh (sourced by them; not a test itself): the
# card their tests build (its layout), the ranges its bmap maps, files of 0xEE that stand for
# cards that held something else, and loop devices over files.
. "$TOP/tests/e2e-lib.sh"
export LC_ALL=C.UTF-8 TZ=UTC

# card_layout TABLE SEED SIZE FAT FAT_SIZE CLUSTER: card.layout, an MBR or a GPT card of SIZE
# (with GPT the entry array moves to 2M, away from the boot loader): a boot loader at 8K,
# a FAT partition of tree/ (type FAT, size FAT_SIZE, clusters of CLUSTER), an ext4 raw
# partition from root.ext4 (make_inputs makes the three)
card_layout() {
    case $1 in
        mbr) tablekeys="" ;;
        gpt) tablekeys="gpt-entries = 2M" ;;
        *) fail "card_layout: $1" ;;
    esac
    cat >card.layout <<LAYOUT
image { size = $3 table = $1 seed = "$2" $tablekeys }
raw spl { offset = 8K from = "spl.bin" size = 1000K }
partition boot {
    type = $4
    size = $5
    bootable = true
    fat { label = "BOOT" cluster-size = $6 }
    tree "/" { from = "tree" }
}
partition root { from = "root.ext4" size = 40M }
LAYOUT
}

# bmap_blocks BMAP: one line "FIRST LAST CHKSUM" (4 KiB blocks, LAST included) per mapped range
bmap_blocks() {
    awk -F'[<>]' '/<Range / {
        split($2, c, "\""); n = split($3, r, "-")
        gsub(/ /, "", r[1]); gsub(/ /, "", r[n])
        print r[1], r[n], c[2]
    }' "$1"
}

# range_sum FILE FIRST LAST: SHA-256 of blocks FIRST..LAST (4 KiB) of FILE or device
range_sum() {
    dd if="$1" bs=4096 skip="$2" count=$(($3 - $2 + 1)) status=none | sha256sum | cut -d' ' -f1
}

# check_sums TARGET BMAP: every range BMAP maps has, on TARGET, the checksum the bmap gives it
check_sums() {
    n=0
    bmap_blocks "$2" >ranges.txt
    while read -r first last sum; do
        got=$(range_sum "$1" "$first" "$last")
        [ "$got" = "$sum" ] || fail "$1: blocks $first-$last have sha256 $got, the bmap says $sum"
        n=$((n + 1))
    done <ranges.txt
    [ "$n" -gt 0 ] || fail "$2 maps nothing"
}

# fill_ee FILE BYTES: a file of BYTES bytes 0xEE (a card that held something else; from
# ee.cache where the test made one that large)
fill_ee() {
    if [ -f ee.cache ] && [ "$(stat -c %s ee.cache)" -ge "$2" ]; then
        head -c "$2" ee.cache >"$1"
    else
        head -c "$2" /dev/zero | tr '\0' '\356' >"$1"
    fi
}

forget() { # forget LIST WORD: the lines of LIST.txt that begin with WORD are gone
    awk -v w="$2" '$1 != w' "$1.txt" >"$1.tmp"
    mv "$1.tmp" "$1.txt"
}

# loop_try FILE [LOSETUP OPTIONS]: prints the new loop device (listed in loops.txt, with its
# file, for loop_cleanup), or nothing where this machine gives none (losetup's word in loop.err)
loop_try() {
    f=$1
    shift
    dev=$(losetup -f --show "$@" "$f" 2>loop.err) || return 0
    echo "$dev $(realpath "$f")" >>loops.txt
    echo "$dev"
}

# loop_attach FILE [LOSETUP OPTIONS]: loop_try, and the test fails where it gives no device
loop_attach() {
    dev=$(loop_try "$@")
    [ -n "$dev" ] || fail "losetup $*: $(cat loop.err)"
    echo "$dev"
}

loop_detach() {
    losetup -d "$1" || fail "losetup -d $1"
    forget loops "$1"
}

# loop_cleanup: every loop device of loops.txt detached, but only while it is still over the
# file it was made over: a device the kernel let go may already serve someone else
loop_cleanup() {
    [ -f loops.txt ] || return 0
    while read -r l f; do
        case $(losetup -nO BACK-FILE "$l" 2>/dev/null) in
            "$f"*) losetup -d "$l" 2>/dev/null || true ;;
        esac
    done <loops.txt
    rm -f loops.txt
}
