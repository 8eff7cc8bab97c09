# Shared helpers of the ext4_*.sh end-to-end tests (sourced; not a test itself): an ext4
# partition read out and checked (e2fsck, debugfs), and the kernel's view of it, mounted
# read-only over a loop device, against the tree it was built from.
. "$TOP/tests/e2e-lib.sh"

# ext4_clean IMG N VOL: partition N of IMG (where sfdisk places it) read out into VOL, which
# e2fsck -fn finds clean
ext4_clean() {
    dd if="$1" of="$3" bs=1M iflag=skip_bytes,count_bytes skip="$(part_start "$1" "$2")" \
        count="$(part_size "$1" "$2")" status=none
    e2fsck -fn "$3" >e2fsck.out 2>&1 || fail "e2fsck -fn of partition $2 of $1 (exit $?): $(cat e2fsck.out)"
}

# stat_of PATH: what debugfs's stat says of PATH in the volume p.img
stat_of() { debugfs -R "stat $1" p.img 2>/dev/null; }

# ext4_mount IMG N: the ext4 volume of partition N of IMG mounted read-only at mnt/ over a
# loop device (ext4_unmount lets both go; so does the end of the test). Where root, a loop
# device or the kernel's ext4 is missing, the test ends here with a pass (the rest passed)
# and a last line that says so.
ext4_mount() {
    if [ "$(id -u)" -ne 0 ] || ! command -v losetup >/dev/null ||
        ! EXT4_LOOP=$(losetup -f --show -r -o "$(part_start "$1" "$2")" \
            --sizelimit "$(part_size "$1" "$2")" "$1" 2>/dev/null); then
        echo "the mount check needs root and a loop device: skipped; the rest passed"
        exit 0
    fi
    trap 'rc=$?; ext4_unmount; exit $rc' EXIT
    mkdir -p mnt
    if ! mount -t ext4 -o ro "$EXT4_LOOP" mnt 2>/dev/null; then
        ext4_unmount
        echo "the kernel did not mount ext4 here: the mount check skipped; the rest passed"
        exit 0
    fi
}

# ext4_unmount: mnt/ unmounted and its loop device detached
ext4_unmount() {
    ! mountpoint -q mnt || umount mnt
    [ -z "${EXT4_LOOP:-}" ] || losetup -d "$EXT4_LOOP"
    EXT4_LOOP=
}

# walk DIR FORMAT: every entry below DIR but lost+found, as find -printf FORMAT prints it
# (paths from DIR), sorted
walk() {
    (cd "$1" && find . ! -name lost+found ! -path './lost+found/*' -printf "$2" | LC_ALL=C sort)
}

# same_walk WANT GOT FORMAT: the walks (walk) of the folders WANT and GOT are the same; the
# difference on stderr
same_walk() {
    walk "$1" "$3" >walk.want
    walk "$2" "$3" >walk.got
    diff walk.want walk.got >&2 || fail "the walk of $2 differs from $1's (above: < only in $1, > only in $2)"
}
