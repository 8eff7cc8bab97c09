# Shared helpers of the fat_*.sh end-to-end tests (sourced; not a test itself).
# Needs $BUILD (build folder) from tests/run-e2e. Every check prints what failed and exits 1.
set -eu
FATWRITE=$BUILD/tests/tools/fatwrite
export MTOOLS_SKIP_CHECK=1 LC_ALL=C.UTF-8 TZ=UTC

need_tools() {
    for t in "$@"; do
        command -v "$t" >/dev/null 2>&1 || { echo "missing tool: $t"; exit 77; }
    done
    [ -x "$FATWRITE" ] || { echo "missing $FATWRITE (make build/tests/tools/fatwrite)"; exit 77; }
}

fail() { echo "FAIL: $*" >&2; exit 1; }

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
