# SPDX-License-Identifier: MIT
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
    # a test's own cleanup (FUSE_MORE_CLEANUP, a command) still runs on exit
    trap 'rc=$?; fuse_umount; ${FUSE_MORE_CLEANUP:-:}; exit $rc' EXIT
    mkdir -p "$2"
    mount.exfat-fuse -o ro "$fuse_loop" "$2" >fuse.txt 2>&1 || fail "exfat-fuse refused $1: $(cat fuse.txt)"
}
fuse_umount() {
    [ -z "${fuse_dir:-}" ] || umount "$fuse_dir" 2>/dev/null || umount -l "$fuse_dir" 2>/dev/null || true
    [ -z "${fuse_loop:-}" ] || losetup -d "$fuse_loop" 2>/dev/null || true
    fuse_dir="" fuse_loop=""
}

# rich_tree DIR: the tree the exFAT tests write: names of every Unicode plane (planes/), of
# 255 UTF-16 units in 255 bytes and of 85 units in 255 bytes, files of 0, 1, 4095, 4096 and
# 4097 bytes (sizes/), 10,000 files in one folder (many/, some of them not empty), 40
# nested folders (deep/) and a sparse file of 4 GiB + 1 (big)
rich_tree() {
    mkdir -p "$1/planes" "$1/sizes" "$1/many"
    rich_i=0
    for c in 'A' '\303\251' '\316\251' '\320\226' '\327\220' '\344\270\255' '\352\260\200' \
             '\357\274\241' '\360\220\215\210' '\360\237\230\200' '\360\240\256\267' \
             '\360\257\240\200' '\363\240\201\201' '\363\260\200\200' '\364\200\200\200'; do
        printf "$c$c$c\n" >"$1/planes/$(printf "p%02d_$c" $rich_i)"
        rich_i=$((rich_i + 1))
    done
    printf 'long\n' >"$1/$(printf '%255s' '' | tr ' ' L)"
    printf 'wide\n' >"$1/$(printf '%85s' '' | sed 's/ /\xe4\xb8\xad/g')"
    for s in 0 1 4095 4096 4097; do head -c $s /dev/urandom >"$1/sizes/s$s"; done
    (cd "$1/many" && seq -w 1 10000 | xargs touch &&
        seq -w 1 37 10000 | while read -r f; do echo "$f" >"$f"; done)
    rich_d=$1/deep
    for k in $(seq 1 40); do rich_d=$rich_d/d$k; done
    mkdir -p "$rich_d" && printf 'leaf\n' >"$rich_d/leaf"
    truncate -s 4294967296 "$1/big" && printf 'Z' >>"$1/big"
    [ "$(stat -c %s "$1/big")" -eq 4294967297 ] || fail "no 4 GiB + 1 source"
}
