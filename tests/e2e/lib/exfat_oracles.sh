# Shared helpers of the exfat_*.sh end-to-end tests (sourced; not a test itself): the common
# checks of tests/e2e-lib.sh, the exfatwrite test driver, and the outside readers of exFAT:
# exfatprogs (fsck.exfat, dump.exfat, exfatlabel) and FUSE exfat (exfat-fuse, another
# implementation than the kernel's), mounted read-only from a read-only loop device.
. "$TOP/tests/e2e-lib.sh"
EXFATWRITE=$BUILD/tests/tools/exfatwrite
export LC_ALL=C.UTF-8 TZ=UTC

need_exfat_tools() {
    need fsck.exfat dump.exfat exfatlabel "$@"
    [ -x "$EXFATWRITE" ] || { echo "missing $EXFATWRITE (make build/tests/tools/exfatwrite)"; exit 77; }
}

# exfat_clean IMG: fsck.exfat -n finds nothing to say about the volume IMG
exfat_clean() {
    fsck.exfat -n "$1" >fsck.txt 2>&1 || fail "fsck.exfat -n $1: $(cat fsck.txt)"
    grep -q ': clean\.' fsck.txt || fail "fsck.exfat -n $1 is not clean: $(cat fsck.txt)"
}

# dump_field IMG TEXT: the value dump.exfat prints after TEXT (its field names) for IMG
dump_field() {
    dump.exfat "$1" 2>/dev/null | awk -v k="$2" 'index($0, k) == 1 { sub(/.*:[ \t]*/, ""); print; exit }'
}

# fuse_mount IMG DIR: IMG mounted read-only at DIR by exfat-fuse, through a read-only loop
# device; the test skips where that cannot be done (no root, no loop device, no FUSE).
# fuse_umount undoes it (the EXIT trap too).
fuse_mount() {
    need mount.exfat-fuse losetup
    [ "$(id -u)" -eq 0 ] && [ -c /dev/fuse ] || { echo "exfat-fuse needs root and /dev/fuse here"; exit 77; }
    fuse_loop=$(losetup -f --show -r "$1" 2>/dev/null) || { echo "no loop device for exfat-fuse"; exit 77; }
    fuse_dir=$2
    trap 'fuse_umount' EXIT
    mkdir -p "$2"
    mount.exfat-fuse -o ro "$fuse_loop" "$2" >fuse.txt 2>&1 || fail "exfat-fuse refused $1: $(cat fuse.txt)"
}
fuse_umount() {
    [ -z "${fuse_dir:-}" ] || umount "$fuse_dir" 2>/dev/null || umount -l "$fuse_dir" 2>/dev/null || true
    [ -z "${fuse_loop:-}" ] || losetup -d "$fuse_loop" 2>/dev/null || true
    fuse_dir="" fuse_loop=""
}
