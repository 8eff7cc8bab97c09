#!/bin/sh
# The same tree gives the same bytes whatever the time zone, the host's listing order and the
# way file data is read (fd + copy_file_range or the read callback); `first` goes first.
. "$TOP/tests/e2e/lib/fatcheck.sh"
need_tools fsck.fat mdir cmp

mkdir -p src/sub
for n in zeta Alpha mid "long name number one.txt" "long name number two.txt"; do
    printf '%s\n' "$n" >"src/$n"; printf '%s\n' "$n" >"src/sub/$n"
done
printf 'MLO\n' >src/zz-mlo
TZ=UTC "$FATWRITE" -T 1700000000 -F 0 -1 /zz-mlo a.img auto src || fail "fatwrite a"
TZ=Asia/Kolkata "$FATWRITE" -T 1700000000 -F 1000 -1 /zz-mlo b.img auto src || fail "fatwrite b"
cmp a.img b.img || fail "the same tree gave different bytes"
fsck_clean a.img
first=$(mdir -b -i a.img ::/ | head -1)
case $first in *zz-mlo*) ;; *) fail "first entry is not zz-mlo: $first" ;; esac
# DOS time in UTC: 2023-11-14 22:13:20
mdir -i a.img ::/ | grep -q "2023-11-14  22:13" || fail "timestamps are not UTC: $(mdir -i a.img ::/)"
