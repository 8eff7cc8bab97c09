# Shared helpers of the exfat_*.sh end-to-end tests (sourced after tests/e2e-lib.sh; not a test
# itself). The oracles are other people's exFAT code: exfatprogs (fsck.exfat -n, exfatlabel,
# dump.exfat) checks the structures, and exfat-fuse (an independent implementation of the
# file system) reads every file back through a read-only loop device the test makes and
# detaches. 7-Zip reads FAT but not exFAT, so it is no oracle here.
export LC_ALL=C.UTF-8 TZ=UTC

# exfat_need: the tools (a skip without them) and a loop device with FUSE (root)
exfat_need() {
    need fsck.exfat exfatlabel dump.exfat mount.exfat-fuse losetup sfdisk jq sha256sum
    [ -e /dev/fuse ] || { echo "no /dev/fuse: exfat-fuse cannot mount"; exit 77; }
    [ "$(id -u)" -eq 0 ] || { echo "not root: no loop device for exfat-fuse"; exit 77; }
    trap 'exfat_cleanup' EXIT
}

exfat_mnt=""
exfat_loop=""
exfat_cleanup() {
    if [ -n "$exfat_mnt" ]; then
        umount "$exfat_mnt" 2>/dev/null || umount -l "$exfat_mnt" 2>/dev/null || true
    fi
    [ -z "$exfat_loop" ] || losetup -d "$exfat_loop" 2>/dev/null || true
    exfat_mnt="" exfat_loop=""
}

# exfat_fsck VOL: fsck.exfat -n finds the volume file VOL clean
exfat_fsck() {
    out=$(fsck.exfat -n "$1" 2>&1) || fail "fsck.exfat -n $1 (exit $?): $out"
    case $out in *": clean."*) ;; *) fail "fsck.exfat -n $1: $out" ;; esac
}

# exfat_part IMG N VOL: partition N of IMG (from its own table) as the file VOL, holes kept
exfat_part() {
    extract "$1" "$(part_start "$1" "$2")" "$(part_size "$1" "$2")" "$3"
}

# exfat_same VOL SRC: exfat-fuse mounts the volume file VOL read-only and reads back exactly
# the tree SRC (names, folders, every byte)
exfat_same() {
    exfat_loop=$(losetup -f --show -r "$1") || fail "losetup $1"
    mkdir -p fuse.mnt
    exfat_mnt=$PWD/fuse.mnt
    mount.exfat-fuse -o ro "$exfat_loop" "$exfat_mnt" >fuse.err 2>&1 ||
        fail "exfat-fuse cannot mount $1: $(cat fuse.err)"
    diff -r "$2" "$exfat_mnt" >diff.out 2>&1 || { d=$(head -20 diff.out); exfat_cleanup; fail "exfat-fuse reads another tree from $1 than $2: $d"; }
    exfat_cleanup
}

# exfat_field VOL NAME: a line's value from dump.exfat VOL ("Cluster Count", "Volume Serial")
exfat_field() {
    dump.exfat "$1" 2>/dev/null | awk -F':' -v k="$2" '$1 ~ "^" k { gsub(/[ \t]/, "", $2); print $2; exit }'
}

# seed_serial SEED NAME: the exFAT volume serial derived from SEED for partition NAME
# (LAYOUT.md, "Derived ids": the first 4 bytes of SHA-256("SEED\nexfat-volume-id/NAME"),
# little-endian), as 0x%08x
seed_serial() {
    h=$(printf '%s\n%s' "$1" "exfat-volume-id/$2" | sha256sum | cut -c1-8)
    printf '0x%s%s%s%s\n' "$(echo "$h" | cut -c7-8)" "$(echo "$h" | cut -c5-6)" \
        "$(echo "$h" | cut -c3-4)" "$(echo "$h" | cut -c1-2)"
}
