# SPDX-License-Identifier: MIT
# Shared helpers for the end-to-end test scripts (sourced; POSIX sh). Every check prints
# what failed and exits 1; a missing tool makes the test a skip (exit 77).
set -eu
export MTOOLS_SKIP_CHECK=1

# Every sdimg of the tests goes through lib/plan_agrees.sh: before each build it checks that
# `sdimg plan` says what the build does (SDIMG_REAL is the program under test).
if [ -z "${SDIMG_REAL:-}" ]; then
    SDIMG_REAL=${SDIMG:?the sdimg under test} SDIMG=$TOP/tests/e2e/lib/plan_agrees.sh
    export SDIMG_REAL SDIMG
fi

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# expect_status N COMMAND...: runs COMMAND, its stdout to out.txt and stderr to err.txt,
# and fails unless it exits with status N.
expect_status() {
    want=$1
    shift
    set +e
    "$@" >out.txt 2>err.txt
    got=$?
    set -e
    [ "$got" -eq "$want" ] || {
        cat out.txt err.txt >&2
        fail "'$*' exited $got, expected $want"
    }
}

# expect_stderr TEXT: err.txt holds exactly one line, and it contains TEXT.
expect_stderr() {
    [ "$(wc -l <err.txt)" -eq 1 ] || { cat err.txt >&2; fail "expected one line on stderr"; }
    grep -qF -- "$1" err.txt || { cat err.txt >&2; fail "stderr lacks: $1"; }
}

# wait_for SECONDS COMMAND...: runs COMMAND until it succeeds, 0.1 s apart; returns 1 when
# it has not after SECONDS of those waits, for the caller to say what failed
# (wait_for 5 test -s a.log || fail ...)
wait_for() {
    wait_ticks=$(($1 * 10))
    shift
    until "$@"; do
        [ "$wait_ticks" -gt 0 ] || return 1
        wait_ticks=$((wait_ticks - 1))
        sleep 0.1
    done
}

# build_refused NAME TEXT: the layout on stdin, as NAME.layout, does not build: `sdimg build
# -q -o NAME.img NAME.layout` exits 1 with one line on stderr holding TEXT, and no NAME.img
build_refused() {
    cat >"$1.layout"
    expect_status 1 "$SDIMG" build -q -o "$1.img" "$1.layout"
    expect_stderr "$2"
    [ ! -e "$1.img" ] || fail "$1: an image was left behind"
}

# differs_only_in RANGES A B: A and B differ, and every byte where they do lies in one of
# the "START END" lines of the file RANGES (0-based, END excluded)
differs_only_in() {
    cmp -l "$2" "$3" >diff.txt || true
    [ -s diff.txt ] || fail "$2 and $3 are identical"
    awk -v r="$1" 'NR == FNR { lo[NR] = $1; hi[NR] = $2; n = NR; next }
         { off = $1 - 1; ok = 0
           for (i = 1; i <= n; i++) if (off >= lo[i] && off < hi[i]) ok = 1
           if (!ok) { print "byte " off " differs outside the ranges of " r; exit 1 } }' \
        "$1" diff.txt || fail "$2 and $3"
}

need() {
    for tool in "$@"; do
        command -v "$tool" >/dev/null 2>&1 || { echo "$tool is not installed"; exit 77; }
    done
}

# le IMG OFFSET LEN: the little-endian unsigned number at byte OFFSET of IMG.
le() {
    od -An -tu1 -j "$2" -N "$3" "$1" | awk '{ for (i = NF; i >= 1; i--) v = v * 256 + $i } END { printf "%.0f\n", v }'
}

# data_start IMG VOLOFF: byte offset (from the image start) of cluster 2, from the boot sector.
data_start() {
    bps=$(le "$1" $(($2 + 11)) 2); rsv=$(le "$1" $(($2 + 14)) 2); nf=$(le "$1" $(($2 + 16)) 1)
    rde=$(le "$1" $(($2 + 17)) 2); fsz=$(le "$1" $(($2 + 22)) 2)
    [ "$fsz" -ne 0 ] || fsz=$(le "$1" $(($2 + 36)) 4)
    echo $(($2 + (rsv + nf * fsz) * bps + (rde * 32 + bps - 1) / bps * bps))
}

# fsck_clean IMG: fsck.fat -n finds nothing to fix.
fsck_clean() {
    out=$(fsck.fat -n "$1" 2>&1) || fail "fsck.fat -n $1 (exit $?): $out"
    case $out in *"Free cluster summary"*|*"differ"*|*"Dirty"*|*"dirty"*) fail "fsck.fat -n $1: $out" ;; esac
}

# mtools_same IMG[@@OFF] SRC: every file back out through mcopy, identical to SRC.
mtools_same() {
    rm -rf mt.out && mkdir mt.out
    if [ -n "$(ls -A "$2")" ]; then
        mcopy -s -p -Q -i "$1" '::/*' mt.out/ 2>mt.err || fail "mcopy -i $1: $(cat mt.err)"
    fi
    diff -r "$2" mt.out >diff.out 2>&1 || fail "mcopy tree differs from $2: $(head -20 diff.out)"
    mdir -i "$1" ::/ >/dev/null || fail "mdir -i $1"
}

# sevenz_same IMG SRC: 7z lists the volume and extracts a tree identical to SRC.
sevenz_same() {
    7z l "$1" >7z.list || fail "7z l $1"
    grep -q "Type = FAT" 7z.list || fail "7z l $1 does not see FAT: $(tail -5 7z.list)"
    rm -rf 7z.out && mkdir 7z.out
    7z x -o7z.out "$1" >/dev/null || fail "7z x $1"
    diff -r "$2" 7z.out >diff.out 2>&1 || fail "7z tree differs from $2: $(head -20 diff.out)"
}

# check_all IMG SRC: fsck.fat, mtools and 7z.
check_all() {
    fsck_clean "$1"
    mtools_same "$1" "$2"
    sevenz_same "$1" "$2"
}

# extract IMG OFFSET SIZE OUT: bytes [OFFSET, OFFSET+SIZE) of IMG as the file OUT, its holes
# left holes: only the stretches IMG holds as data (SEEK_DATA) are read, so a 16 GB volume
# of a few files takes no time (dd where python3 is missing)
extract() {
    if ! command -v python3 >/dev/null 2>&1; then
        dd if="$1" of="$4" bs=4M iflag=skip_bytes,count_bytes skip="$2" count="$3" conv=sparse status=none ||
            fail "extract $*"
        return 0
    fi
    python3 - "$@" <<'PY' || fail "extract $*"
import os, sys
src = os.open(sys.argv[1], os.O_RDONLY)
off, size = int(sys.argv[2]), int(sys.argv[3])
dst = os.open(sys.argv[4], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
os.ftruncate(dst, size)
pos, end = off, off + size
while pos < end:
    try:
        pos = os.lseek(src, pos, os.SEEK_DATA)
    except OSError:  # ENXIO: no data past pos
        break
    stop = min(os.lseek(src, pos, os.SEEK_HOLE), end)
    while pos < stop:
        data = os.pread(src, min(stop - pos, 1 << 22), pos)
        if not data:
            sys.exit("%s: short read at byte %d" % (sys.argv[1], pos))
        os.pwrite(dst, data, pos - off)
        pos += len(data)
PY
}

# check_fat IMG OFFSET SIZE EXPECTED_DIR [ALIGN]: the FAT volume at bytes [OFFSET,
# OFFSET+SIZE) of IMG passes fsck.fat -n, mtools and 7z give back EXPECTED_DIR exactly (names
# and tree too), its boot sector counts exactly SIZE bytes and its start as hidden sectors,
# and (with ALIGN) its data area sits on a multiple of ALIGN from the start of IMG.
check_fat() {
    img=$1 off=$2 size=$3 want=$4 align=${5:-}
    extract "$img" "$off" "$size" fat.vol
    check_all fat.vol "$want"
    mtools_same "$img@@$off" "$want"
    total=$(le "$img" $((off + 19)) 2)
    [ "$total" -ne 0 ] || total=$(le "$img" $((off + 32)) 4)
    [ "$total" -eq $((size / 512)) ] || fail "total sectors $total, the partition has $((size / 512))"
    hidden=$(le "$img" $((off + 28)) 4)
    [ "$hidden" -eq $((off / 512)) ] || fail "hidden sectors $hidden, the partition starts at $((off / 512))"
    if [ -n "$align" ]; then
        data=$(data_start "$img" "$off")
        [ $((data % align)) -eq 0 ] || fail "data area at byte $data is not on a multiple of $align"
    fi
    rm -f fat.vol
}

# part_json IMG N FIELD: a field of partition N (1-based) from sfdisk --json
part_json() {
    sfdisk --json "$1" | jq -r ".partitiontable.partitions[$(($2 - 1))].$3"
}

# same_bytes IMG OFFSET FILE: IMG holds FILE's bytes at OFFSET
same_bytes() {
    n=$(stat -c %s "$3")
    dd if="$1" bs=4096 iflag=skip_bytes,count_bytes skip="$2" count="$n" status=none | cmp -s - "$3" ||
        fail "the bytes at $2 of $1 are not $3"
}

# part_start TARGET N, part_size TARGET N: bytes, from the target's own table (sfdisk)
part_start() { echo $(($(part_json "$1" "$2" start) * 512)); }
part_size() { echo $(($(part_json "$1" "$2" size) * 512)); }

# check_partitions TARGET: its own table read by sfdisk; the FAT partition (1) passes
# fsck.fat -n and gives tree/ back through mtools in place (TARGET@@OFFSET); the ext4
# partition (2) passes e2fsck -fn (both read out with dd for the checkers)
check_partitions() {
    t=$1
    fs=$(part_start "$t" 1) fz=$(part_size "$t" 1)
    dd if="$t" of=fat.vol bs=1M iflag=skip_bytes,count_bytes skip="$fs" count="$fz" status=none
    fsck_clean fat.vol
    rm -rf mt.out && mkdir mt.out
    mcopy -s -p -Q -i "$t@@$fs" '::/*' mt.out/ >mt.err 2>&1 || fail "mcopy -i $t@@$fs: $(cat mt.err)"
    diff -r tree mt.out >diff.out 2>&1 || fail "mcopy from $t@@$fs differs from tree/: $(head -20 diff.out)"
    es=$(part_start "$t" 2) ez=$(part_size "$t" 2)
    dd if="$t" of=ext.vol bs=1M iflag=skip_bytes,count_bytes skip="$es" count="$ez" status=none
    e2fsck -fn ext.vol >e2fsck.out 2>&1 || fail "e2fsck -fn of partition 2 of $t: $(cat e2fsck.out)"
    rm -rf fat.vol ext.vol mt.out
}

# need_mktree: the test driver that makes trees of files (skips without it)
MKTREE=$BUILD/tests/tools/mktree
need_mktree() {
    [ -x "$MKTREE" ] || { echo "missing $MKTREE (make build/tests/tools/mktree)"; exit 77; }
}

# make_inputs: tree/ (files and folders for the FAT partition), spl.bin (the boot loader)
# and root.ext4 (an ext4 image made by mke2fs -d from rootsrc/, 32 MiB of 4 KiB blocks; its
# inode tables and its journal are sparse: never written, so holes or unwritten extents)
make_inputs() {
    need_mktree
    mkdir -p tree/boot/overlays tree/docs/deep/er tree/empty-dir rootsrc/etc rootsrc/var/log
    "$MKTREE" tree/many 160 40 11 >/dev/null || fail "mktree"
    head -c 3000000 /dev/urandom >tree/boot/kernel.img
    printf 'console=ttyS0,115200 root=/dev/mmcblk0p2 rootwait\n' >tree/boot/cmdline.txt
    head -c 70000 /dev/urandom >tree/boot/overlays/uart.dtbo
    : >tree/boot/empty.txt
    printf 'deep\n' >"tree/docs/deep/er/a file with spaces.txt"
    printf 'readme\n' >tree/README
    head -c 500000 /dev/urandom >rootsrc/etc/blob
    printf 'card\n' >rootsrc/etc/hostname
    printf 'log\n' >rootsrc/var/log/messages
    head -c 40000 /dev/urandom >spl.bin
    mke2fs -q -F -t ext4 -b 4096 -d rootsrc -E root_owner=0:0 -U 2b5a9f7e-0d3c-4c1e-9a55-6f0e8d1c2b3a \
        -L rootfs root.ext4 32M >/dev/null || fail "mke2fs -d rootsrc root.ext4"
}
