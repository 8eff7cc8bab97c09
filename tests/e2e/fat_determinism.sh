#!/bin/sh
# SPDX-License-Identifier: MIT
# The same tree gives the same bytes whatever the time zone, the host's listing order and the
# way file data is read (fd + copy_file_range or the read callback); `first` goes first.
# fatwrite -U adds each folder's entries in the order the host lists them, so that the order
# on the volume is the library's own, from two copies of the tree that list in other orders.
. "$TOP/tests/e2e/lib/fatcheck.sh"
. "$TOP/tests/e2e/lib/repro.sh"
need_tools fsck.fat mdir cmp

mkdir -p src/sub
for n in zeta Alpha mid "long name number one.txt" "long name number two.txt"; do
    printf '%s\n' "$n" >"src/$n"; printf '%s\n' "$n" >"src/sub/$n"
done
printf 'MLO\n' >src/zz-mlo
orders_folder
copy_in_order src "$orders_dir/1" forward
copy_in_order src "$orders_dir/2" backward
ln -s "$orders_dir/1" src1
ln -s "$orders_dir/2" src2
orders_differ src1/ src2/
TZ=UTC "$FATWRITE" -U -T 1700000000 -F 0 -1 /zz-mlo a.img auto src1/ || fail "fatwrite a"
TZ=Asia/Kolkata "$FATWRITE" -U -T 1700000000 -F 1000 -1 /zz-mlo b.img auto src2/ || fail "fatwrite b"
cmp a.img b.img || fail "the same tree gave different bytes"
fsck_clean a.img
first=$(mdir -b -i a.img ::/ | head -1)
case $first in *zz-mlo*) ;; *) fail "first entry is not zz-mlo: $first" ;; esac
# DOS time in UTC: 2023-11-14 22:13:20
mdir -i a.img ::/ | grep -q "2023-11-14  22:13" || fail "timestamps are not UTC: $(mdir -i a.img ::/)"
