# Shared helpers for the end-to-end test scripts (sourced; POSIX sh).
set -eu

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

need() {
    for tool in "$@"; do
        command -v "$tool" >/dev/null 2>&1 || { echo "$tool is not installed"; exit 77; }
    done
}

# le16 FILE OFFSET / le32 FILE OFFSET / u8 FILE OFFSET: a little-endian field of FILE
u8() { od -An -tu1 -j "$2" -N 1 "$1" | tr -d ' '; }
le16() { od -An -tu2 --endian=little -j "$2" -N 2 "$1" | tr -d ' '; }
le32() { od -An -tu4 --endian=little -j "$2" -N 4 "$1" | tr -d ' '; }

# fat_data_offset IMG VOLUME_OFFSET: the byte offset of cluster 2 on the disk, computed from
# the boot sector's own bytes (fatgen103: reserved + FATs x FAT size + root directory).
fat_data_offset() {
    img=$1 vol=$2
    res=$(le16 "$img" $((vol + 14)))
    nfats=$(u8 "$img" $((vol + 16)))
    rootents=$(le16 "$img" $((vol + 17)))
    fatsz=$(le16 "$img" $((vol + 22)))
    [ "$fatsz" -ne 0 ] || fatsz=$(le32 "$img" $((vol + 36)))
    echo $((vol + (res + nfats * fatsz + (rootents * 32 + 511) / 512) * 512))
}

# check_fat IMG OFFSET SIZE EXPECTED_DIR [ALIGN]: the FAT volume at bytes [OFFSET,
# OFFSET+SIZE) of IMG passes fsck.fat -n, mtools copies every file back out identical to
# EXPECTED_DIR (names and tree too), 7z lists it, its boot sector counts exactly SIZE bytes
# and its start as hidden sectors, and (with ALIGN) its data area sits on a multiple of ALIGN.
check_fat() {
    img=$1 off=$2 size=$3 want=$4 align=${5:-}
    rm -rf fat.vol fat.out
    dd if="$img" of=fat.vol bs=4M iflag=skip_bytes,count_bytes skip="$off" count="$size" conv=sparse status=none
    fsck.fat -n fat.vol >fsck.txt 2>&1 || { cat fsck.txt >&2; fail "fsck.fat -n: volume at $off of $img"; }
    mkdir fat.out
    MTOOLS_SKIP_CHECK=1 mcopy -s -n -i "$img@@$off" '::/*' fat.out/ 2>/dev/null || true
    diff -r "$want" fat.out >diff.txt 2>&1 || { cat diff.txt >&2; fail "mcopy readback differs from $want"; }
    7z l fat.vol >7z.txt 2>&1 || { cat 7z.txt >&2; fail "7z cannot list the volume at $off"; }
    total=$(le16 "$img" $((off + 19)))
    [ "$total" -ne 0 ] || total=$(le32 "$img" $((off + 32)))
    [ "$total" -eq $((size / 512)) ] || fail "total sectors $total, the partition has $((size / 512))"
    hidden=$(le32 "$img" $((off + 28)))
    [ "$hidden" -eq $((off / 512)) ] || fail "hidden sectors $hidden, the partition starts at $((off / 512))"
    if [ -n "$align" ]; then
        data=$(fat_data_offset "$img" "$off")
        [ $((data % align)) -eq 0 ] || fail "data area at byte $data is not on a multiple of $align"
    fi
    rm -rf fat.vol fat.out
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
