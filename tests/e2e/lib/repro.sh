# SPDX-License-Identifier: MIT
# Shared helpers of the reproducibility tests (build_repro, ship_repro, fat_determinism;
# sourced after tests/e2e-lib.sh, not a test itself): copies of one tree that the host lists
# in different orders, shown to differ, and locales that must exist.

# orders_folder: sets orders_dir to a new empty folder on a tmpfs, where a folder lists its
# entries in the order they were made or in its reverse, by kernel version (ext4 lists them by
# a hash of the names, so two copies made in opposite orders there list alike): /dev/shm,
# else a tmpfs mounted in the test's folder (root); the test skips where there is neither.
# Removed on exit (orders_cleanup, which the EXIT trap runs).
orders_folder() {
    if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
        orders_dir=$(mktemp -d /dev/shm/sdimg-orders.XXXXXX) || fail "mktemp in /dev/shm"
    else
        mkdir -p orders.mnt
        mount -t tmpfs -o size=256M sdimg-orders orders.mnt 2>/dev/null ||
            { echo "no tmpfs: neither /dev/shm nor one mounted here (not root?): two listing orders cannot be made"; exit 77; }
        orders_dir=$PWD/orders.mnt
    fi
    trap 'orders_cleanup' EXIT
}
orders_cleanup() {
    [ -n "${orders_dir:-}" ] || return 0
    case $orders_dir in
        */orders.mnt) umount "$orders_dir" 2>/dev/null || umount -l "$orders_dir" 2>/dev/null || true ;;
        *) rm -rf "$orders_dir" ;;
    esac
}

# copy_in_order SRC DST forward|backward: a copy of the tree SRC (folders, files, symbolic
# links) at DST, each folder's entries made in byte order of their names, or the reverse
copy_in_order() {
    case $3 in
        forward) rev="" ;;
        backward) rev=-r ;;
        *) fail "copy_in_order: $3" ;;
    esac
    mkdir -p "$2"
    # a folder's entries are made when it is reached, and find reaches a folder before
    # what it holds
    (cd "$1" && find . -type d) | while IFS= read -r d; do
        ls -A "$1/$d" | LC_ALL=C sort $rev | while IFS= read -r name; do
            if [ -d "$1/$d/$name" ] && [ ! -L "$1/$d/$name" ]; then
                mkdir "$2/$d/$name"
            else
                cp -P "$1/$d/$name" "$2/$d/$name"
            fi
        done
    done
    diff -r "$1" "$2" >/dev/null || fail "copy_in_order: $2 is not a copy of $1"
}

# orders_differ A B: every folder of the tree A with two entries or more lists them (ls -U,
# the order of readdir) in another order than the same folder of the copy B; else the test
# fails, as it would prove nothing about the order
orders_differ() {
    n=0
    (cd "$1" && find . -type d) >folders.txt
    while IFS= read -r d; do
        [ "$(ls -A "$1/$d" | wc -l)" -ge 2 ] || continue
        [ "$(ls -AU "$1/$d")" != "$(ls -AU "$2/$d")" ] ||
            fail "the folder $d of $1 and of $2 lists its entries in one order: $(ls -AU "$1/$d" | tr '\n' ' ')"
        n=$((n + 1))
    done <folders.txt
    [ "$n" -gt 0 ] || fail "$1 has no folder of two entries"
    echo "$1 and $2 list each of their $n folders of two entries or more in other orders (ls -U)"
}

# need_locales NAME...: each locale NAME (de_DE.UTF-8) exists (`locale -a`); without one the
# test would run in C instead without a word, so it skips, named (a package build chroot has
# only C.UTF-8), or fails with SDIMG_REQUIRE_TOOLS=1, as in CI (`make deps` makes them:
# DEB_LOCALES in config.mk)
need_locales() {
    have=$(locale -a 2>/dev/null | tr '[:upper:]' '[:lower:]' | tr -d '-')
    for l in "$@"; do
        echo "$have" | grep -qxF "$(echo "$l" | tr '[:upper:]' '[:lower:]' | tr -d '-')" ||
            if [ "${SDIMG_REQUIRE_TOOLS:-}" = 1 ]; then
                fail "the locale $l is missing (make deps makes it): this test would run in C"
            else
                echo "the locale $l is missing (make deps makes it; a package build chroot has only C.UTF-8): skipped"
                exit 77
            fi
    done
}
